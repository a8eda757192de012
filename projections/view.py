"""The typed view of an encounter every ruleset returns, and every surface reads by attribute.

The core (the clock, combatants in acting order with status, vital figure, budget and
effects, and the pending actions) has the same shape whatever the ruleset, so the state
table, the reports, `why`, the console and the browser pages show any ruleset without
knowing which one it is. What is a ruleset's own (its figures, its clock's details, the
scene's counters) rides in the ``own`` parts: Structs the ruleset defines as subclasses
of :class:`Own`, printed by ``state --json`` and tabulated by ``state --wide``, but read
by name only by the ruleset itself.

Views are built fresh from a state on demand and never stored: a field may be added
here (with a default) without a migration; ``VIEW_VERSION`` says which shape
``state --json`` prints.
"""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

import msgspec

# The shape `state --json` prints; raised when a field is renamed or removed (docs/tutorial.md).
VIEW_VERSION = 2

Status = Literal["fighting", "down", "out", "dead", "left"]
# What each status means to the clock, whatever the ruleset (the ruleset decides which
# applies when, and says so in its module docstring):
STATUSES: dict[str, str] = {
    "fighting": "in the fight: acts when the clock reaches it",
    "down": "still in the fight, but cannot act (the ruleset's own threshold)",
    "out": "cannot act this round or turn, or at all under the rules text, though not down",
    "dead": "dead under the rules text",
    "left": "has left the fight (fled, carried off); may return",
}
STANDING: frozenset[str] = frozenset({"fighting", "out"})


class Own(msgspec.Struct, frozen=True, kw_only=True):
    """Base of a ruleset's own part of a view: its fields are shown, never read, by a surface.

    ``repeats``: the fields that hold a figure the core shows already (a budget's left,
    under the ruleset's own name). ``state --json`` keeps them for scripts; a table, the
    replay and `why` show the core's figure alone, so each fact is printed once.

    ``none_made``: the fields whose value, come from blank, is a tally of nothing made yet,
    with the words for it (srd-5.2's death saves: "0/0" at 0 HP before any is rolled).
    `why`'s text says those words of a figure that has been nothing else, rather than show
    a tally of nothing as a change; its JSON keeps the figure as it is."""

    repeats: ClassVar[frozenset[str]] = frozenset()
    none_made: ClassVar[Mapping[str, tuple[str, str]]] = {}


class NoOwn(Own, frozen=True, kw_only=True):
    """A view part a ruleset has nothing of its own to put in."""


class Clock(msgspec.Struct, frozen=True, kw_only=True):
    """Where the fight stands in time.

    ``round`` counts what the ruleset's `round` command starts (a round, or a turn in
    rulesets whose turn is the round); ``unit`` names it. ``moment`` is the label of the
    moment within it ("count 35", "phase 6, call 4", "Jack's turn", "between rounds").
    ``now`` are those who act at this moment (several act at once in some rulesets),
    ``next`` those who act at the next moment the clock knows of (empty: the round ends).
    """

    round: int
    unit: Literal["round", "turn"] = "round"
    running: bool = False  # a round (or turn) is under way
    moment: str = ""
    now: tuple[str, ...] = ()
    next: tuple[str, ...] = ()
    phase: str | None = None  # the named step of the round where the rules have fixed ones (reports grid by it)
    own: Own = NoOwn()


class Gauge(msgspec.Struct, frozen=True, kw_only=True):
    """A combatant's vital figure: how close it is to going down (hits left, Health, ...)."""

    name: str
    value: int
    maximum: int | None = None


class Budget(msgspec.Struct, frozen=True, kw_only=True):
    """What a combatant may still spend this round or turn (AP, activity %, slots, actions),
    ``left`` of the ``of`` it had. ``lost``: what went unspent and can no longer be, while
    the round runs (phases: the phases let pass); UNSET (left out of JSON) while nothing is
    lost so. What was spent is ``of - left - lost``."""

    name: str
    left: int
    of: int | None = None
    lost: int | msgspec.UnsetType = msgspec.UNSET


class Effect(msgspec.Struct, frozen=True, kw_only=True):
    """An effect or condition on a combatant: ``left`` rounds (or turns) to run, None while
    it lasts until ended; ``detail`` what else the table needs ("2/round", "until turn 4")."""

    kind: str
    left: int | None = None
    detail: str = ""
    custom: bool = False  # a kind the ruleset does not know, recorded as the GM's own (`effect --custom`)


class Combatant(msgspec.Struct, frozen=True, kw_only=True):
    """A combatant's row. ``vital2`` is a second gauge shown beside the vital figure by
    every surface, where the rules keep two (crisis: Endurance, which damage empties before
    Health); UNSET where there is one. ``state --json`` (view 2) leaves it out, so its
    shape and bytes stay as they were: a ruleset puts the figure in its ``own`` part too."""

    name: str
    side: str
    status: Status = "fighting"
    acting: bool = False  # acts at this moment (one of ``Clock.now``)
    vital: Gauge
    budget: Budget
    effects: tuple[Effect, ...] = ()
    own: Own = NoOwn()
    vital2: Gauge | msgspec.UnsetType = msgspec.UNSET

    def gauges(self) -> tuple[Gauge, ...]:
        """The vital figure, then the second gauge where there is one."""
        return (self.vital,) if isinstance(self.vital2, msgspec.UnsetType) else (self.vital, self.vital2)


class Pending(msgspec.Struct, frozen=True, kw_only=True):
    """A declared action that has not resolved yet, with when it will, as a label."""

    who: str
    action: str
    target: str | None = None
    resolves: str = ""
    own: Own = NoOwn()


class View(msgspec.Struct, frozen=True, kw_only=True):
    """An encounter's state as every surface reads it. ``combatants`` are in acting order
    (the ruleset's: who acts first this round, then the rest; those who cannot act last)."""

    clock: Clock
    combatants: tuple[Combatant, ...] = ()
    pending: tuple[Pending, ...] = ()
    own: Own = NoOwn()

    def combatant(self, name: str) -> Combatant:
        for c in self.combatants:
            if c.name == name:
                return c
        raise KeyError(name)

    def standing(self) -> dict[str, list[str]]:
        """Side -> the names of its combatants still standing (fighting or out)."""
        sides: dict[str, list[str]] = {}
        for c in self.combatants:
            sides.setdefault(c.side, [])
            if c.status in STANDING:
                sides[c.side].append(c.name)
        return sides


class Glance(msgspec.Struct, frozen=True, kw_only=True):
    """What the narrated replay reads of a view, an event at a time: the clock's ``round``,
    ``unit`` and ``moment`` (its ``now`` and ``next`` may be left empty), and every
    combatant's row, whose figures (status, vital, budget, effects, ``own``) are the view's
    (its ``acting`` may be left False). ``ordered``: the rows are in the view's acting
    order; else in any order, and the replay builds the whole view to order the rows of
    an event that changed two or more. A row an event left alone may be the same object
    as the one before it: the replay compares only rows that are not."""

    clock: Clock
    combatants: tuple[Combatant, ...] = ()
    ordered: bool = True


class Ended(msgspec.Struct, frozen=True, kw_only=True):
    """The encounter was ended (`end`) at ``event``, for ``reason``."""

    event: int
    reason: str = ""


class NoteOn(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A note on a combatant (`note --on WHO TEXT`), written at event ``at``."""

    id: int
    at: int
    text: str
    private: bool = False  # the GM's alone (in the JSON only when true)


class Shown(View, frozen=True, kw_only=True):
    """A view with where it was taken: ``state --json`` prints this object (``ended`` and
    ``notes`` only when there are: the JSON of a log without them is as it always was)."""

    view: int = VIEW_VERSION
    encounter: str
    ruleset: str
    branch: str  # the branch whose history holds ``at`` (the current one if it does); "": undone
    head: int
    at: int
    ended: Ended | None = None  # the encounter has ended at or before ``at``
    notes: dict[str, tuple[NoteOn, ...]] = {}  # combatant (as named at ``at``) -> its notes, oldest first
    # the experience points of the foes added with an ``xp`` stat (the bundled bestiary's); only when some are
    xp: int | msgspec.UnsetType = msgspec.UNSET


def second_gauge(view: View) -> str | None:
    """The name of the second gauge the view's combatants carry (``Combatant.vital2``), if any."""
    return next((c.vital2.name for c in view.combatants if isinstance(c.vital2, Gauge)), None)


def printed(shown: Shown) -> dict[str, Any]:
    """``state --json``'s object: view 2, as it always was (the second gauge left out)."""
    out: dict[str, Any] = msgspec.to_builtins(shown)
    for row in out["combatants"]:
        row.pop("vital2", None)
    return out


def figures(part: Own) -> dict[str, object]:
    """A ruleset's own part as name -> value, in its declared order (for tables and diffs)."""
    return {name: getattr(part, name) for name in part.__struct_fields__}
