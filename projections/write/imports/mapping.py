"""An imported stat block as the stats a ruleset asks for, and a line for each field it cannot hold.

The stat names are the srd-5.2 ruleset's (record.py, :func:`srd_stats`), which it takes as
they are (``SRD``); a name another ruleset shares means something else there (crisis's
``speed`` is a modifier, not feet), so no other ruleset is matched by name. The five other rulesets hold the vital
figure under their own names (``VITAL``): hit points become ap-countdown's and
percent-activity's hits, modular's and crisis's health; phases counts wounds against its
Initiative and holds no hit points. The side is the stat block's: ``players`` for a player
character, ``foes`` for a monster. Every other field is named in one line, so the GM sees
what the ruleset leaves out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skirmish.eventlog.errors import BadInput
from skirmish.projections.write.imports.record import Creature, srd_stats
from skirmish.projections.ruleset import Ruleset

# The ruleset's stat holding hit points, where it is not named ``hp``.
VITAL = {"ap-countdown": "hits", "percent-activity": "hits", "modular": "health", "crisis": "health"}
MEANING = {
    "hp": "hit points", "ac": "armour class", "dex": "Dexterity modifier", "init": "initiative modifier",
    "legendary": "legendary actions a round", "pc": "player character", "speed": "speed in feet",
    "resist": "damage resistances", "vulnerable": "damage vulnerabilities", "immune": "damage immunities",
    "con": "Constitution saving throw modifier", "xp": "experience points", "actions": "stat block actions",
    "saves": "saving throw modifiers", "senses": "senses",
}
TRAITS = frozenset({"resist", "vulnerable", "immune"})  # text stats of words, each checked by the ruleset
PARTY, FOES = "players", "foes"
SRD = frozenset({"srd-5.2"})  # the rulesets whose stats are named as srd_stats names them


def side_of(creature: Creature) -> str:
    return PARTY if creature.pc else FOES


def stats_for(creature: Creature, ruleset: Ruleset[Any], hp: int | None = None) -> tuple[dict[str, str], list[str]]:
    """The stats ``ruleset`` takes from ``creature`` (``hp``: hit points other than the
    average, e.g. rolled), as typed, and one line per field it could not map."""
    fields = srd_stats(creature)
    if hp is not None:
        fields["hp"] = hp
    stats: dict[str, str] = {}
    lines: list[str] = []
    vital = VITAL.get(ruleset.id)
    unknown = getattr(ruleset, "unknown_words", None)
    for key, value in fields.items():
        by_name = ruleset.id in SRD and key in ruleset.stats
        if by_name and key in TRAITS and unknown is not None:  # a text stat, clause by clause
            clauses = getattr(creature, key)
            kept = [c for c in clauses if not unknown(key, c)]
            lines += [f"{creature.name}: {MEANING[key]} ({key} {c}) not mapped: {ruleset.id} takes "
                      f"{'damage types or conditions' if key == 'immune' else 'damage types'} only"
                      for c in clauses if c not in kept]
            if kept:
                stats[key] = ", ".join(kept)
            continue
        target = key if by_name else vital if key == "hp" and vital in ruleset.stats else None
        if target is not None and isinstance(value, ruleset.stats[target].kind):  # a text stat takes the damage types
            stats[target] = str(value)
        elif key == "pc" and not by_name:
            continue  # it is the side
        elif key == "legendary" and value == 0 and not by_name:
            continue  # no legendary actions: nothing left out
        else:
            why = "takes a different kind of value" if target is not None else "has no such stat"
            shown = ", ".join(a.name for a in creature.actions) if key == "actions" else value
            lines.append(f"{creature.name}: {MEANING[key]} ({key} {shown}) not mapped: {ruleset.id} {why}")
    if "actions" in ruleset.stats and ruleset.id in SRD:  # elsewhere the whole line is named above
        lines += creature.left_out
    return stats, lines


def rolled_hp(creature: Creature, faces: Sequence[int]) -> int:
    """Hit points rolled on the stat block's hit dice with the GM's typed faces: the faces
    plus the bonus, at least 1 (SRD 5.2, Hit Points: a monster's hit dice)."""
    dice = creature.hit_dice
    if dice is None:
        raise BadInput(f"{creature.name} has no hit dice in {creature.source}: --hp rolled has nothing to roll")
    if len(faces) != dice.count or any(not 1 <= f <= dice.sides for f in faces):
        shown = ",".join(str(f) for f in faces) or "none"
        raise BadInput(f"--hp rolled for {creature.name} takes {dice.count} faces from 1 to {dice.sides} "
                       f"({dice}), not {shown}")
    return max(1, sum(faces) + dice.bonus)
