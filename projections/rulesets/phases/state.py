"""phases's state: the fighters, the turn, its phase and call (package docstring)."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from typing import NamedTuple

import msgspec

from skirmish.projections.rulesets.phases.vocabulary import PANIC


# --- state -------------------------------------------------------------------------------
# The state is a working copy the fold changes in place (STYLE 7): the structs it mutates
# are mutable; Aim and Repeat are values, replaced whole.


class Aim(msgspec.Struct, frozen=True):
    turn: int
    phase: int  # 7: before the first turn
    target: str | None = None
    area: str | None = None


class Repeat(msgspec.Struct, frozen=True):
    action: str
    target: str | None = None
    area: str | None = None
    move: str | None = None
    melee: str | None = None


class Last(msgspec.Struct):
    """The character's latest action this turn: what it was, when, and whether it moved."""

    action: str
    phase: int
    call: int
    how: str
    moved: bool
    resolved: bool = False


class Fighter(msgspec.Struct):
    name: str
    side: str
    base: int
    agility: int
    bulk: int
    slight: int = 0
    serious: int = 0
    panic: int = 0
    prone: bool = False
    mounted: bool = False
    acted: list[int] = []  # phases acted in this turn
    # Half metres are kept exact (standing up halves a move). int | float, as Derivation.amount:
    # typed float, a whole number held as an int came back from a snapshot as a float and
    # encoded to other bytes than the state it was cached from.
    moved_m: int | float = 0
    left: bool = False  # has left the fight (`leave`); back with `return`
    repeat: Repeat | None = None
    restricted: bool = False  # interrupted a repetitive action: next action is limited
    aim: Aim | None = None
    reload: tuple[int, int] | None = None  # (reload actions done, needed)
    last: Last | None = None
    had: int | None = None  # actions it had when the turn began (TurnStarted.budgets); None: older logs


class PhaseState(msgspec.Struct):
    options: dict[str, str]
    turn: int = 0
    in_turn: bool = False
    phase: int | None = None
    call: int = 0  # 0: the start of the phase, where repetitive actions are conducted
    fighters: dict[str, Fighter] = {}  # by name, in the order added

    def names(self) -> list[str]:
        return list(self.fighters)


class Wounds(NamedTuple):
    """What lowers a character's initiative: wounds of each kind, and panic (Initiative)."""

    slight: int
    serious: int
    panic: int


def wounds_of(f: Fighter) -> Wounds:
    return Wounds(f.slight, f.serious, f.panic)


def wounds_after(f: Fighter, kind: str, change: int) -> Wounds:
    """A wound more or less, or panic set (change > 0: by that much) or ended (Initiative)."""
    if kind == PANIC:
        return Wounds(f.slight, f.serious, max(0, change))
    step = 1 if change > 0 else -1
    if kind == "slight-wound":
        return Wounds(f.slight + step, f.serious, f.panic)
    return Wounds(f.slight, f.serious + step, f.panic)
