"""crisis's state: the fighters and the turn (package docstring)."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from collections.abc import Iterable
from typing import Literal

import msgspec

from skirmish.projections.rulesets.crisis.vocabulary import DRUNK


Kind = Literal["spanning", "hit"]


# --- state -------------------------------------------------------------------------------


class Condition(msgspec.Struct, frozen=True):
    kind: str
    until: int | None = None  # stunned: the last turn it cannot act in


class Under(msgspec.Struct):
    """An action still under way: a spanning one (over 6 AP) or a hit awaiting its damage."""

    name: str
    kind: Kind
    cost: int
    progress: int = 0
    target: str | None = None


# Mutable: the fold changes a working copy in place (STYLE 7); decide only reads them.
class Fighter(msgspec.Struct):
    name: str
    side: str
    stats: dict[str, int]
    endurance: int
    health: int
    durability: int
    order: int | None = None
    ap: int = 0
    spent: int = 0
    conditions: dict[str, Condition] = {}  # kind -> the condition, in the order they came
    no_gain_turn: int | None = None  # Stunned: the turn start at which it gains no AP
    action: Under | None = None
    left: bool = False  # has left the fight (`leave`); back with `return`

    def has(self, kind: str) -> bool:
        return kind in self.conditions

    @property
    def dead(self) -> bool:
        return self.health <= 0

    def figure(self, key: str) -> int:
        """An ability or skill modifier as in force: Drunk takes 2 off (Conditions)."""
        return self.stats[key] + (DRUNK if self.has("drunk") else 0)


class CrisisState(msgspec.Struct):
    options: dict[str, str]
    seed: int
    turn: int = 0
    in_turn: bool = False
    surprise: tuple[str, ...] = ()  # the surprise round's attackers, while it lasts
    sequence: tuple[str, ...] = ()  # the turn order, first to act first
    acting: str | None = None
    fighters: dict[str, Fighter] = {}  # by name, in the order they were added
    budgets: bool = False  # TurnStarted.budgets: the budget is of the AP had this turn

    def names(self) -> list[str]:
        return list(self.fighters)

    def fighter(self, name: str) -> Fighter:
        return self.fighters[name]

    def stunned(self, f: Fighter) -> bool:
        return _stunned(f, self.turn)

    def may_act(self, f: Fighter) -> bool:
        return f.order is not None and _able(f, self.turn, self.surprise)

    def first_able(self, names: Iterable[str], turn: int, surprise: tuple[str, ...]) -> str | None:
        """The first of ``names`` (in the turn order) able to act in ``turn``."""
        return next((n for n in names if _able(self.fighters[n], turn, surprise)), None)

    def after_acting(self) -> str | None:
        """Who acts once the one acting now is done (None: the turn ends)."""
        if self.acting is None:
            return None
        later = self.sequence[self.sequence.index(self.acting) + 1:]
        return next((n for n in later if self.may_act(self.fighters[n])), None)


def _stunned(f: Fighter, turn: int) -> bool:
    c = f.conditions.get("stunned")
    return c is not None and (c.until is None or c.until >= turn)


def _able(f: Fighter, turn: int, surprise: tuple[str, ...]) -> bool:
    """Turn Order: acts when its place comes, unless dead (Damage), stunned (Conditions) or,
    in a surprise round, not one of the attackers (Surprise Round)."""
    return not f.dead and not f.left and not _stunned(f, turn) and (not surprise or f.name in surprise)


# --- view parts (projections/view.py) ----------------------------------------------------
