"""modular's state: the fighters, the round and its order (package docstring)."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

import msgspec

from skirmish.projections.rulesets.modular.vocabulary import AGILITY_STEP, BASE_SPEED, MOVE, SPEED_PER_STEP, Slot


# --- state -------------------------------------------------------------------------------


class Course(msgspec.Struct, frozen=True):
    """One course of play of a Ready: one primary, optional secondary, tertiary and movement."""

    primary: str
    secondary: str | None = None
    tertiary: str | None = None
    move: bool = False

    def words(self) -> str:
        parts = [self.primary, self.secondary, self.tertiary, MOVE if self.move else None]
        return "+".join(p for p in parts if p)


class Held(msgspec.Struct, frozen=True):
    """A pending Ready: its trigger, its two courses and the movement held for them."""

    trigger: str
    then: Course
    otherwise: Course
    feet: int
    round: int


class Effect(msgspec.Struct):
    kind: str
    rounds: int


class Fighter(msgspec.Struct):
    name: str
    side: str
    agility: int
    dodge: int
    health: int
    speed_override: int
    init_bonus: int
    damage: int = 0
    initiative: int | None = None
    feet_moved: int = 0
    dashed: bool = False
    primary: str | None = None
    secondary: str | None = None
    tertiary: str | None = None
    held_feet: int = 0  # movement held for a Ready's courses this round
    ready: Held | None = None
    evade: int | None = None  # the evading dodge class, while Evade lasts
    effects: list[Effect] = []
    left: bool = False  # has left the fight (`leave`); back with `return`

    def slot(self, slot: Slot) -> str | None:
        used: str | None = getattr(self, slot)
        return used

    @property
    def speed(self) -> int:
        return self.speed_override or speed_of(self.agility)

    @property
    def movement(self) -> int:
        """The round's movement allowance: Speed, doubled by a Dash (Combat Rules, Dash)."""
        return self.speed * (2 if self.dashed else 1)

    @property
    def feet_left(self) -> int:
        return max(0, self.movement - self.feet_moved - self.held_feet)


class ModularState(msgspec.Struct):
    """Mutable: the fold applies events to a working copy in place (Rules.apply)."""

    options: dict[str, str]
    seed: int
    round: int = 0
    in_round: bool = False
    order: tuple[str, ...] = ()
    turn: int | None = None  # index into order of whose turn it is
    over: bool = False
    fighters: dict[str, Fighter] = {}  # by name, in the order they were added

    def names(self) -> list[str]:
        return list(self.fighters)

    def fighter(self, name: str) -> Fighter:
        return self.fighters[name]

    @property
    def current(self) -> str | None:
        return self.order[self.turn] if self.turn is not None else None


def speed_of(agility: int) -> int:
    return BASE_SPEED + SPEED_PER_STEP * (agility // AGILITY_STEP)
