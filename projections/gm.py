"""What GMs expect of a tracker, the same in every ruleset: a roll for the table, a new name,
stats changed after `add` (their checks and how a state takes them; ruleset.py decides them).

Nothing here knows a ruleset: a rename walks a state by the names of its fields, a stat
change sets the fighter's field named as the stat (ruleset.py, ``Rules.restat``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

from skirmish.eventlog.errors import BadInput
from skirmish.eventlog.events import Derivation, Roll, Term

# --- roll DICE ----------------------------------------------------------------------------------

_DICE = re.compile(r"\s*(\d*)\s*d\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*", re.IGNORECASE)
MOST_DICE = 100  # `roll 100d6` is a table's most; more is a typo
MOST_SIDES = 1000
DICE_KEY = "dice"  # the key of the GM's faces in RollDice.rolls (`roll 2d6 --roll 4,5`)


class DiceSpec(msgspec.Struct, frozen=True):
    count: int
    sides: int
    modifier: int = 0

    @property
    def dice(self) -> str:
        return f"{self.count}d{self.sides}"

    def shown(self) -> str:
        """As the GM reads it: 2d6+3, 1d20, 3d6-1."""
        return self.dice + (f"{self.modifier:+d}" if self.modifier else "")


def parse_dice(text: str) -> DiceSpec:
    """``2d6+3``, ``d20``, ``3d6-1``: the dice of a `roll`, refused in one line otherwise."""
    match = _DICE.fullmatch(text)
    if match is None:
        raise BadInput(f"DICE takes dice like 2d6+3 or d20, not {text!r}")
    count = int(match[1] or 1)
    sides = int(match[2])
    modifier = int(match[4] or 0) * (-1 if match[3] == "-" else 1)
    if not 1 <= count <= MOST_DICE:
        raise BadInput(f"DICE rolls 1 to {MOST_DICE} dice at once, not {count}")
    if not 2 <= sides <= MOST_SIDES:
        raise BadInput(f"DICE takes dice of 2 to {MOST_SIDES} sides, not d{sides}")
    if abs(modifier) > 1_000_000:
        raise BadInput(f"DICE's modifier {modifier:+d} is out of range")
    return DiceSpec(count, sides, modifier)


def check_faces(spec: DiceSpec, typed: tuple[int, ...] | None) -> None:
    """The GM's faces (`--roll 4,5`) fit the dice: one face per die, each on the die."""
    if typed is not None and (len(typed) != spec.count or any(not 1 <= f <= spec.sides for f in typed)):
        shown = ",".join(str(f) for f in typed)
        raise BadInput(f"roll {spec.shown()} takes {spec.count} face(s) from 1 to {spec.sides} "
                       f"(--roll {','.join(['N'] * spec.count)}), not {shown}")


def total(spec: DiceSpec, roll: Roll) -> Derivation:
    """The roll's total with its faces and modifier, as `explain` shows it."""
    terms = (Term("modifier", spec.modifier),) if spec.modifier else ()
    formula = spec.dice + (f" {'+' if spec.modifier > 0 else '-'} {abs(spec.modifier)}" if spec.modifier else "")
    return Derivation(value=roll.total + spec.modifier, formula=formula, terms=terms, roll=roll,
                      rule="an ad-hoc roll for the table (`roll`): it changes no figure")


# --- rename -------------------------------------------------------------------------------------

# Where a ruleset's state holds a combatant's name (besides its fighter's ``name`` and the
# ``fighters`` keys): a field of one of these names holds one name, a field of NAME_LISTS a
# sequence of them. A ruleset whose state keeps names elsewhere overrides Rules.rename_in.
NAME_FIELDS = frozenset({"target", "acting", "parry_against", "against", "who", "by"})
NAME_LISTS = frozenset({"order", "sequence", "surprise", "declaring", "resolving"})


def renamed(state: Any, old: str, new: str) -> Any:
    """A copy of a ruleset's state (a msgspec Struct) in which the combatant ``old`` is
    ``new``: its key and order in ``fighters``, its ``name``, and every name field
    (NAME_FIELDS, NAME_LISTS) that held it. Other strings (actions, effect kinds, sides)
    are never touched, whatever they hold."""
    tree = msgspec.to_builtins(state)
    return msgspec.convert(_walk(tree, old, new), type(state))


def _walk(node: Any, old: str, new: str) -> Any:
    if isinstance(node, (list, tuple)):  # to_builtins keeps a tuple a tuple
        return [_walk(item, old, new) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "fighters" and isinstance(value, dict):
            fighters = {}
            for name, fighter in value.items():
                fighter = _walk(fighter, old, new)
                if name == old:
                    name = new
                    if isinstance(fighter, dict) and fighter.get("name") == old:
                        fighter["name"] = new
                fighters[name] = fighter
            out[key] = fighters
        elif key in NAME_FIELDS and value == old:
            out[key] = new
        elif key in NAME_LISTS and isinstance(value, (list, tuple)):
            out[key] = [new if item == old else _walk(item, old, new) for item in value]
        else:
            out[key] = _walk(value, old, new)
    return out


def rename_in_place(state: Any, old: str, new: str) -> None:
    """:func:`renamed`, applied to the fold's working copy in place."""
    after = renamed(state, old, new)
    for field in state.__struct_fields__:
        setattr(state, field, getattr(after, field))


# --- set WHO stat=V -----------------------------------------------------------------------------


def stat_field(fighter: Any, key: str, fields: Mapping[str, str]) -> str:
    """The fighter's field that holds stat ``key``: the ruleset's mapping, else the stat's own
    name (``init-bonus``: ``init_bonus``)."""
    name = fields.get(key, key.replace("-", "_"))
    if name not in fighter.__struct_fields__:
        raise TypeError(f"{type(fighter).__name__} keeps stat {key!r} in no field {name!r}: "
                        "map it in the ruleset's stat_fields or override restat")
    return name


def stat_now(fighter: Any, key: str, fields: Mapping[str, str]) -> int:
    """A fighter's stat as it stands (a ``stats`` dict if it keeps one, else its field)."""
    stats = getattr(fighter, "stats", None)
    if isinstance(stats, dict) and key in stats:
        return int(stats[key])
    return int(getattr(fighter, stat_field(fighter, key, fields)))


def restat_fields(fighter: Any, stats: Mapping[str, int], fields: Mapping[str, str]) -> Any:
    """The fighter with its stats set: its ``stats`` dict where it keeps one, else the field
    named as each stat. A figure kept apart (damage taken, wounds) is left as it is."""
    kept = getattr(fighter, "stats", None)
    if isinstance(kept, dict):
        return msgspec.structs.replace(fighter, stats={**kept, **stats})
    named = {stat_field(fighter, k, fields): v for k, v in stats.items()}
    # A 0/1 stat kept as a flag (srd-5.2's pc, lair) stays a flag: a copy decodes it by its type.
    return msgspec.structs.replace(fighter, **{f: bool(v) if isinstance(getattr(fighter, f, None), bool) else v
                                               for f, v in named.items()})


def state_json(shown: Any) -> dict[str, Any]:
    """`state --json`: the view, with ``ended`` and each combatant's ``notes`` only where
    there are (a log without them prints the bytes it always did)."""
    from skirmish.projections.view import printed

    data: dict[str, Any] = printed(shown)
    ended, notes = data.pop("ended", None), data.pop("notes", {})
    if ended is not None:
        data["ended"] = ended
    for combatant in data["combatants"]:
        if combatant["name"] in notes:
            combatant["notes"] = notes[combatant["name"]]
    return data
