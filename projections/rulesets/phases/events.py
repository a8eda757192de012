"""phases's events: tags and field names are stored forever."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

import msgspec

from skirmish.eventlog.events import Derivation, Event
from skirmish.projections.rulesets.phases.vocabulary import How


# --- events ------------------------------------------------------------------------------


class Initiative(msgspec.Struct, frozen=True):
    who: str
    initiative: Derivation


class TurnStarted(Event, frozen=True, tag="phases.turn-started"):
    turn: int
    initiatives: tuple[Initiative, ...]
    ambush: str | None = None
    # The actions budget reads against the actions each had when the turn began (its
    # initiative: Turn Sequence), not those it acted in or may still take; UNSET, so left
    # out, in an older turn start, which reads and prints as it was stored.
    budgets: bool | msgspec.UnsetType = msgspec.UNSET


class ClockAdvanced(Event, frozen=True, tag="phases.clock-advanced"):
    """The clock moves to a call: ``call`` 0 is the start of the phase (repetitive actions)."""

    phase: int
    call: int
    acting: tuple[str, ...] = ()  # at a call: in Agility - bulk order (Agility and Weapon Bulks)


class ActionTaken(Event, frozen=True, tag="phases.action-taken"):
    who: str
    action: str
    phase: int
    call: int
    how: How
    repeat: bool = False  # chosen for the whole turn here (Repetition)
    target: str | None = None
    area: str | None = None
    move: str | None = None  # a move combined with fire or melee
    melee: str | None = None
    talk: str | None = None
    distance: Derivation | None = None
    prone: bool | None = None  # the character's posture after the action
    mounted: bool | None = None
    reload: tuple[int, int] | None = None  # (done, needed) after this action
    bulk: int | None = None
    cover: bool = False
    aimed: Derivation | None = None  # shots counted as aimed (Opportunity Fire)
    keeps_aim: bool = False
    order: Derivation | None = None  # Agility - bulk against a target acting at the same call
    first: str | None = None
    reason: str = ""


class ActionResolved(Event, frozen=True, tag="phases.action-resolved"):
    who: str
    action: str
    outcome: str


class RepetitionInterrupted(Event, frozen=True, tag="phases.repetition-interrupted"):
    who: str
    action: str
    phase: int


class EffectApplied(Event, frozen=True, tag="phases.effect-applied"):
    who: str
    kind: str
    by: int
    initiative: Derivation  # the character's initiative from now on


class EffectEnded(Event, frozen=True, tag="phases.effect-ended"):
    who: str
    kind: str
    initiative: Derivation


class TurnEnded(Event, frozen=True, tag="phases.turn-ended"):
    turn: int
    actions: dict[str, int] = {}
