"""percent-activity's events: tags and field names are stored, forever."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from typing import Literal

import msgspec

from skirmish.eventlog.events import Derivation, Event
from skirmish.projections.rulesets.percent_activity.vocabulary import R_UPKEEP, Step


class Initiative(msgspec.Struct, frozen=True):
    who: str
    value: Derivation


class RoundStarted(Event, frozen=True, tag="pa.round-started"):
    round: int
    initiatives: tuple[Initiative, ...]
    order: tuple[str, ...]


class ActionContinued(Event, frozen=True, tag="pa.action-continued"):
    """A round-to-round action at the start of a round: due this round, or going on."""

    who: str
    action: str
    step: Literal["resolves", "progresses"]
    remaining: Derivation
    paid: int = 0


class TurnPassed(Event, frozen=True, tag="pa.turn-passed"):
    who: str
    to: str


class ActionDeclared(Event, frozen=True, tag="pa.action-declared"):
    who: str
    action: str
    cost: Derivation
    penalty: Derivation
    step: Step
    paid: int
    target: str | None = None
    trigger: str | None = None
    melee: bool = False  # the round's one melee attack (Resolve Actions step)
    instant: bool = False


class ActionResolved(Event, frozen=True, tag="pa.action-resolved"):
    who: str
    action: str
    outcome: str | None = None
    target: str | None = None


class ActionCancelled(Event, frozen=True, tag="pa.action-cancelled"):
    who: str
    action: str
    reason: str


class ActionProgressed(Event, frozen=True, tag="pa.action-progressed"):
    who: str
    action: str
    paid: int
    progress: int
    cost: int


class HitsHealed(Event, frozen=True, tag="pa.hits-healed"):
    who: str
    amount: Derivation
    hits_left: int


class DamageTaken(Event, frozen=True, tag="pa.damage-taken"):
    who: str
    amount: Derivation
    hits_left: int
    wounded: bool = False  # more than half its hits taken, after this damage


class EffectApplied(Event, frozen=True, tag="pa.effect-applied"):
    who: str
    kind: str
    per_round: int = 0
    rounds: int | None = None


class EffectEnded(Event, frozen=True, tag="pa.effect-ended"):
    who: str
    kind: str
    reason: str


class UpkeepTick(Event, frozen=True, tag="pa.upkeep-tick"):
    """One line of the upkeep: who, which step, what changed."""

    step: Literal["bleeding", "stun", "stagger", "timed"]
    who: str
    effect: str
    serial: int
    change: int = 0
    rounds_left: int | None = None
    removed: bool = False
    rule: str = R_UPKEEP


class RoundEnded(Event, frozen=True, tag="pa.round-ended"):
    round: int
