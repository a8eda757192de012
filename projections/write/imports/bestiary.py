"""The SRD 5.2 bestiary shipped with skirmish: its creatures found by name, listed, and brought
into an srd-5.2 `add` that gives no stats.

The figures are data/srd-5.2-creatures.json (330 stat blocks, numbers only; data/NOTICE.md
holds its source and the CC-BY-4.0 attribution, :data:`ATTRIBUTION`, which every listing
prints). A creature is read into a :class:`~skirmish.projections.write.imports.record.Creature` as
the stat block files are (monsters.py), and mapped by the one import mapping (mapping.py),
so the lines naming what srd-5.2 leaves out read as an import's.

Why the bestiary is read before the decision and not inside it: the stats it gives are
written into the recorded `add` (:func:`complete`), so a replay, an amend or an export
decides the same command on the same figures without reading this file again; a later
skirmish with corrected figures changes no old log.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from functools import cache
from fractions import Fraction
from importlib import resources
from typing import Any

from skirmish.eventlog.errors import BadInput

RULESET = "srd-5.2"  # the ruleset whose `add` takes a bestiary creature
DATA = "srd-5.2-creatures.json"
ATTRIBUTION = (
    'This work includes material from the System Reference Document 5.2 ("SRD 5.2") by Wizards of the '
    "Coast LLC, available at https://www.dndbeyond.com/srd. The SRD 5.2 is licensed under the Creative "
    "Commons Attribution 4.0 International License, available at "
    "https://creativecommons.org/licenses/by/4.0/legalcode."
)
SOURCE = "the bundled SRD 5.2 bestiary"
SUGGESTED = 3  # names a did-you-mean offers at most
CLOSE = 0.75  # difflib ratio a name is offered from (its get_close_matches cutoff is 0.6: too loose for 330 names)


@dataclass(frozen=True)
class Entry:
    """One creature of the bestiary as a listing shows it."""

    name: str
    type: str
    cr: str
    xp: int
    ac: int
    hp: int

    @property
    def rating(self) -> Fraction:
        return Fraction(self.cr)


@cache
def raw() -> dict[str, Any]:
    """The bundled file, read once a process (from the installed package: importlib.resources)."""
    data: dict[str, Any] = json.loads(resources.files(__package__).joinpath("data", DATA).read_text(encoding="utf-8"))
    return data


@cache
def _by_fold() -> dict[str, dict[str, Any]]:
    from skirmish.projections.names import skeleton

    return {skeleton(c["name"]): c for c in raw()["creatures"]}


def entries() -> list[Entry]:
    """Every creature, in the file's (alphabetical) order."""
    return [Entry(c["name"], c["type"], c["challenge_rating"], c["xp"], c["armor_class"], c["hit_points"])
            for c in raw()["creatures"]]


def find(name: str) -> dict[str, Any] | None:
    """The creature ``name`` is, compared as names are (projections/names.py: case, look-alike
    letters); None: no such creature."""
    from skirmish.projections.names import skeleton

    return _by_fold().get(skeleton(name))


def suggestions(name: str) -> list[str]:
    """The bestiary's names closest to ``name``, the closest first: difflib's ratio against the
    whole name and against each run of as many of its words as were typed ("gobln" is close
    to Goblin Boss's "goblin"), or a typed start of one of its words ("gob")."""
    from skirmish.projections.names import fold

    typed = fold(name)
    if not typed:
        return []
    width = len(typed.split())
    scored: list[tuple[float, float, int, str]] = []
    for order, found in enumerate(raw()["creatures"]):
        words = fold(found["name"]).split()
        runs = {" ".join(words[i:i + width]) for i in range(len(words))} | {" ".join(words)}
        best = max(difflib.SequenceMatcher(None, typed, run).ratio() for run in runs)
        if len(typed) >= 3 and any(run.startswith(typed) for run in runs):
            best = max(best, 0.8)
        if best >= CLOSE:  # ties: the closer whole name first (Skeleton before Minotaur Skeleton)
            whole = difflib.SequenceMatcher(None, typed, " ".join(words)).ratio()
            scored.append((-best, -whole, order, found["name"]))
    return [found for *_, found in sorted(scored)[:SUGGESTED]]


def creature(found: dict[str, Any]) -> Any:
    """The stat block as an import reads one (record.py's Creature, in srd-5.2's stat names)."""
    from skirmish.projections.write.imports.actions import structured
    from skirmish.projections.write.imports.record import Creature, Fields, hit_dice, modifier
    from skirmish.projections.rulesets.srd_5__2.block import ABILITIES

    fields = Fields(SOURCE, found, repr(found["name"]))
    legendary = found.get("legendary_actions_per_round") or {}
    return Creature(
        name=found["name"], source=SOURCE, hp=found["hit_points"],
        hit_dice=hit_dice(fields, "hit_points_roll") or hit_dice(fields, "hit_dice"),
        ac=found["armor_class"], dex=modifier(found["abilities"]["dex"]), init=found["initiative_bonus"],
        speed=found["speed"].get("walk", 0), legendary=legendary.get("uses", 0),
        resist=tuple(found["damage_resistances"]), vulnerable=tuple(found["damage_vulnerabilities"]),
        immune=(*found["damage_immunities"], *found["condition_immunities"]),
        con=found["saving_throws"].get("con", modifier(found["abilities"]["con"])), xp=found["xp"],
        actions=structured(found["name"], found["actions"])[0],
        saves=tuple((k, v) for k, v in found["saving_throws"].items() if k in ABILITIES),
        senses=", ".join(f"{k.replace('passive_perception', 'passive')} {v}" for k, v in found["senses"].items()),
    )


def _left_out(found: dict[str, Any]) -> list[str]:
    """What the stat block holds that no srd-5.2 stat takes (the mapping never sees it)."""
    name, out = found["name"], []
    for key, what in (("damage_resistances_conditional", "resistance"),
                      ("damage_vulnerabilities_conditional", "vulnerability"),
                      ("condition_immunities_conditional", "immunity")):
        if found.get(key):
            out.append(f"{name}: conditional {what} ({', '.join(found[key])}) not mapped: the GM types it when it holds")
    from skirmish.projections.write.imports.actions import structured

    out += structured(name, found["actions"])[1]
    if found.get("damage_resistances_choice"):
        out.append(f"{name}: chosen resistance not mapped: type it with --stat resist=TYPE")
    return out


def complete(command: Any, ruleset: Any) -> tuple[Any, list[str]]:
    """An srd-5.2 `add` lacking a required stat, as the `add` of the bestiary creature its name
    is: the stat block's stats, the GM's typed ones over them, side ``foes`` where none was
    given (a monster's, as an import's), and the lines saying where they came from and what
    was left out. Any other command is returned as it is. A name that is no creature, given
    no stats at all, is refused with the names it is closest to (when there are any)."""
    from skirmish.eventlog.commands import AddCombatant

    if not isinstance(command, AddCombatant) or ruleset.id != RULESET:
        return command, []
    required = [key for key, stat in ruleset.stats.items() if stat.required]
    if all(key in command.stats for key in required):
        return command, []
    found = find(command.name)
    if found is None:
        close = suggestions(command.name)
        if not command.stats and close:
            raise BadInput(f"no stats given and no creature {command.name!r} in the SRD 5.2 bestiary; "
                           f"did you mean {', '.join(close)}?")
        return command, []
    from skirmish.projections.write.imports.mapping import stats_for

    stats, lines = stats_for(creature(found), ruleset)
    lines += _left_out(found)
    side = "foes" if command.side == "neutral" else command.side
    completed = type(command)(name=found["name"], side=side, stats=stats | command.stats, count=command.count)
    many = f" ({command.count})" if command.count > 1 else ""
    said = f"{found['name']}{many}: from {SOURCE} (CR {found['challenge_rating']}, {found['xp']:,} XP each)"
    return completed, [said, *lines]


def rating(text: str) -> Fraction:
    """A challenge rating as typed: "1/4", "0.25", "5"."""
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise BadInput(f"--cr takes challenge ratings (0, 1/8, 1/4, 1/2, 1 to 30), not {text.strip()[:20]!r}") from None
    if value < 0:
        raise BadInput(f"--cr takes challenge ratings from 0, not {text.strip()[:20]!r}")
    return value


def ratings(text: str) -> tuple[Fraction | None, Fraction | None]:
    """``--cr``: "1/4..1" (both ends in), "..2", "10..", or one rating ("5")."""
    low, dots, high = text.partition("..")
    if not dots:
        return rating(low), rating(low)
    return (rating(low) if low.strip() else None), (rating(high) if high.strip() else None)


def search(words: str = "", kind: str | None = None, cr: str | None = None) -> list[Entry]:
    """The creatures whose name holds ``words`` (as names compare: case, look-alike letters),
    of type ``kind``, with a challenge rating in ``cr`` (:func:`ratings`), in name order."""
    from skirmish.projections.names import fold, skeleton

    low, high = ratings(cr) if cr is not None else (None, None)
    wanted = skeleton(words)
    return [e for e in entries()
            if wanted in skeleton(e.name) and (kind is None or fold(kind) == fold(e.type))
            and (low is None or e.rating >= low) and (high is None or e.rating <= high)]


def listing_lines(found: list[Entry]) -> list[str]:
    """The creatures as 80 columns' rows (name, type, CR, XP, AC, HP), then the attribution."""
    import textwrap

    from skirmish.projections.text.board import WIDTH, table

    if found:
        rows = [[e.name, e.type, e.cr, f"{e.xp:,}", str(e.ac), str(e.hp)] for e in found]
        lines = table(["name", "type", "CR", "XP", "AC", "HP"], rows)
        lines.append(f"{len(found)} of {len(raw()['creatures'])} creatures")
    else:
        lines = ["no creature of the SRD 5.2 bestiary matches"]
    return [*lines, "", *textwrap.wrap(ATTRIBUTION, WIDTH)]


def listing_json(found: list[Entry]) -> dict[str, Any]:
    """``bestiary --json``: the creatures, and the attribution that goes with them."""
    return {"creatures": [{"name": e.name, "type": e.type, "cr": e.cr, "xp": e.xp, "ac": e.ac, "hp": e.hp}
                          for e in found], "attribution": ATTRIBUTION}
