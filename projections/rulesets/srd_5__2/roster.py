"""srd-5.2's roster: the text stats ``add`` and ``set`` check (damage types, conditions, a stat
block's lines), a rename, and what a fight carries into the next (``new --carry``) or leaves
behind (docs/adding-a-ruleset.md, step 6)."""

from collections.abc import Mapping

import msgspec

from skirmish.eventlog.commands import CarriedEffect
from skirmish.eventlog.errors import BadInput
from skirmish.projections import gm
from skirmish.projections.rulesets.srd_5__2.block import (
    DAMAGE_TYPES,
    format_actions,
    format_saves,
    parse_actions,
    parse_saves,
    parse_slots,
)
from skirmish.projections.rulesets.srd_5__2.state import Fighter, Mark, SrdRules, SrdState
from skirmish.projections.rulesets.srd_5__2.vocabulary import CONDITIONS, KNOCKED_OUT, R, comma_words


class Roster(SrdRules):
    """The text stats `add` and `set` check, a rename, and what is carried between fights."""

    # `set Orc hp=20`: the stat ``hp`` is the Hit Point maximum (§9), kept in ``hp_max``.
    stat_fields: Mapping[str, str] = {"hp": "hp_max"}

    def restat(self, fighter: Fighter, stats: Mapping[str, int], was: Mapping[str, int]) -> Fighter:
        """The damage taken is kept: a maximum raised or lowered by N moves the Hit Points left
        by N, never above the new maximum nor below 0; a creature at 0 Hit Points stays at 0
        (a heal brings it back, §9)."""
        new: Fighter = gm.restat_fields(fighter, stats, self.stat_fields)
        if "hp" in stats and "hp" in was and fighter.hp > 0:
            new = msgspec.structs.replace(new, hp=max(0, min(new.hp_max, fighter.hp + stats["hp"] - was["hp"])))
        return new

    def trait_words(self, key: str, text: str) -> str:
        """`set resist=fire,cold` mid-fight: the words checked as `add` checks them (§7, §13); a stat
        block's lines read, and kept as they are read back (block.py)."""
        if key == "actions":
            return format_actions(parse_actions(text))
        if key == "saves":
            return format_saves(parse_saves(text))
        if key == "slots":
            return ", ".join(f"{level}:{count}" for level, count in sorted(parse_slots(text).items()))
        if key == "senses":
            return " ".join(text.split())
        for word in self.unknown_words(key, text):
            kinds = "damage type or condition" if key == "immune" else "damage type"
            raise BadInput(f"{key}={text}: {word!r} is no {kinds} ({R(7)})")
        return ", ".join(comma_words(text))

    def unknown_words(self, key: str, text: str) -> list[str]:
        """The words of text stat ``key`` (commas between) that are no damage type, nor for
        ``immune`` a condition (§7, §13): `add` refuses them, an import names them."""
        if key not in ("resist", "vulnerable", "immune"):
            return []
        return [w for w in comma_words(text) if w not in DAMAGE_TYPES and not (key == "immune" and w in CONDITIONS)]

    def rename_in(self, state: SrdState, old: str, new: str) -> None:
        """The shared rename, and the names it cannot see: the Initiative scores' keys, the turn an
        effect is anchored to, the ended turns ("round:who") legendary uses follow, the lair's list."""
        super().rename_in(state, old, new)
        state.scores = {new if k == old else k: v for k, v in state.scores.items()}
        state.gap = [_renamed_turn(t, old, new) for t in state.gap]
        state.lair_used = [new if n == old else n for n in state.lair_used]
        for f in state.fighters.values():
            f.legendary_after = [_renamed_turn(t, old, new) for t in f.legendary_after]
            for m in f.marks:
                m.anchor = new if m.anchor == old else m.anchor

    # --- carried in: the party between fights, a saved fight set up (docs/adding-a-ruleset.md, step 6)

    # `new --carry` takes the characters' sides by default (projections/write/carry.py), as `pc` reads them.
    party_sides = ("players", "party", "pcs", "characters", "heroes")
    # The figures a saved fight's seat brings that this applier holds (projections/write/imports/bring.py).
    seat_figures = frozenset({"temp", "initiative"})

    def carried_figures(self, state: SrdState, who: str) -> dict[str, int]:
        """What outlasts a fight besides hit points, those not 0: temporary HP (§8), the Exhaustion
        level (§13), death saves, Stable, dead (§9), knocked out (§9); an initiative held from a
        saved fight no round has used yet."""
        f = state.fighters[who]
        figures = {"temp": f.temp, "exhaustion": f.exhaustion, "dead": int(f.dead), "successes": f.successes,
                   "failures": f.failures, "stable": int(f.stable),
                   "knocked-out": int(any(m.kind == "unconscious" and m.detail == KNOCKED_OUT for m in f.marks))}
        held = {"initiative": f.initiative} if f.initiative is not None and state.round == 0 else {}
        return {k: v for k, v in figures.items() if v} | held

    def _lasts(self, f: Fighter, m: Mark) -> bool:
        """A condition until ended by nobody's turn, Concentration or another creature: the GM's own,
        Prone, Poisoned...; Exhaustion and 0 HP's Unconscious come in the figures."""
        if m.left is not None or m.spell or m.by or m.kind == "exhaustion":
            return False
        return not (m.kind == "unconscious" and (m.detail == KNOCKED_OUT or (m.detail == "at 0 HP" and f.hp == 0)))

    def lasting(self, state: SrdState, who: str) -> list[CarriedEffect]:
        f = state.fighters[who]
        return [CarriedEffect(kind=m.kind, custom=m.custom) for m in f.marks if self._lasts(f, m)]

    def left_behind(self, state: SrdState, who: str) -> list[str]:
        """What ends with the fight, for `new --carry` to name: effects on a turn's clock or held by
        another creature or a Concentration, the Concentration itself, a Ready."""
        f = state.fighters[who]
        out = [f"{m.kind} ({m.left} rounds left)" if m.left is not None else
               f"{m.kind} (by {m.by})" if m.by else f"{m.kind} (held by {m.spell})"
               for m in f.marks if m.kind != "exhaustion" and not self._lasts(f, m)
               and not (m.kind == "unconscious" and m.detail in (KNOCKED_OUT, "at 0 HP"))]
        if f.concentration:
            out.append(f"concentration on {f.concentration}")
        if f.ready:
            out.append(f"ready ({f.ready})")
        return out


def _renamed_turn(turn: str, old: str, new: str) -> str:
    number, _, who = turn.partition(":")
    return f"{number}:{new}" if who == old else turn
