"""ap-countdown's state: the fighters, their actions and effects, the scene's counters."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from collections.abc import Set as AbstractSet

import msgspec

from skirmish.eventlog.events import Derivation
from skirmish.projections.rulesets.ap_countdown.vocabulary import BLEEDING, COUNT_PER_AP, Step


class Effect(msgspec.Struct, frozen=True, gc=False):
    kind: str
    per_round: int = 0
    rounds: int | None = None
    spent_before: int = 0
    fresh: bool = True  # not yet through an upkeep
    serial: int = 0  # which of the combatant's effects this is, in order of application
    custom: bool = False


class Action(msgspec.Struct, frozen=True, gc=False):
    name: str
    cost: int
    declared_at: int
    declared_round: int
    step: Step
    resolves_at: int | None
    target: str | None = None
    trigger: str | None = None
    penalty: int = 0
    progress: int = 0  # AP already paid (round-to-round shares, a used parry, a readied hold)
    paid: bool = False
    pace_penalty: int = 0  # the pace's part of ``penalty``, as it was at declaration


class Fighter(msgspec.Struct):
    """A combatant as the fold keeps it: changed in place by the appliers (ApState). Its
    action and effects are frozen values, replaced whole when they change, so a shallow
    copy (``replace(f)``) is a snapshot of it that no later event alters."""

    name: str
    side: str
    qu: int
    hits: int
    penalty: int
    damage: int = 0
    base: int | None = None
    base_derivation: Derivation | None = None
    ap: int = 0
    spent: int = 0
    instants: int = 0
    delay: int = 0
    out: bool = False
    action: Action | None = None
    pace: str = "still"
    pace_penalty: int = 0
    pace_count: tuple[int, int] | None = None  # (round, count) of the last pace change
    parry: int | None = None
    parry_against: str | None = None
    parry_used: bool = False
    parry_owes_melee: bool = False  # a parry was used with no melee attack pending (Parry)
    declared_this_round: bool = False
    effects: tuple[Effect, ...] = ()
    effects_applied: int = 0
    left: bool = False  # has left the fight (`leave`); back with `return`
    had: int | None = None  # the AP it had this round (None: logs before RoundStarted.budgets)

    @property
    def initiative(self) -> int | None:
        if self.base is None:
            return None
        return self.base + COUNT_PER_AP * self.ap + self.delay


class Counter(msgspec.Struct, frozen=True):
    name: str
    value: int
    per_round: int


class ApState(msgspec.Struct):
    """Mutable: the fold applies events to a working copy in place (Rules.apply), its
    fighters included, as every ruleset's does (a ``replace`` of a 26-field fighter an
    event was most of what the appliers cost). ``copy`` and ``evolve`` give states sharing
    no fighter. What a fighter holds besides numbers, strings and flags (its ``action``,
    its ``effects``, ``pace_count``) is a frozen value or a tuple of them, set whole, never
    changed in place: so a shallow copy of a fighter, taken before an event, still says
    what the fighter was after it. The view keeps such a copy beside the rows it built
    (``ApCountdown._rows``), and the glance the figures its rows read (``_ROW_FIGURES``),
    compared with the fighter's to know whether a row still holds: never the fighter
    object itself, which an event changes without becoming another object."""

    options: dict[str, str]
    seed: int
    round: int = 0
    in_round: bool = False
    count: int | None = None
    fighters: dict[str, Fighter] = {}  # by name, in the order they were added
    counters: tuple[Counter, ...] = ()

    def names(self) -> list[str]:
        return list(self.fighters)

    def fighter(self, name: str) -> Fighter:
        return self.fighters[name]


def may_declare(f: Fighter, down: bool) -> bool:
    """Whether the fighter may declare an action this round; ``down``: whether it is down."""
    return not (f.out or f.left or f.ap <= 0 or f.base is None or down)


def next_count(state: ApState, may: AbstractSet[str]) -> int | None:
    """The next count below the current one at which someone declares or an action
    arrives (as `next` finds it); None: the countdown is over. ``may``: the names of
    those who may declare (:meth:`ApCountdown._declaring`)."""
    count = state.count
    assert count is not None
    points: list[int] = []
    for f in state.fighters.values():
        a = f.action
        if a is not None and a.resolves_at is not None and a.step != "ready":
            if a.resolves_at < count:
                points.append(a.resolves_at)
        elif f.name in may and f.initiative is not None and f.initiative < count:
            points.append(f.initiative)
    return max(points) if points else None


def bleeding_per_round(f: Fighter) -> int:
    return sum(e.per_round for e in f.effects if e.kind == BLEEDING)
