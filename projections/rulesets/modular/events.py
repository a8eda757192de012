"""modular's events: tags and field names are stored forever."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from typing import Literal

import msgspec

from skirmish.eventlog.events import Derivation, Event, Roll
from skirmish.projections.rulesets.modular.state import Course
from skirmish.projections.rulesets.modular.vocabulary import Slot


# --- events ------------------------------------------------------------------------------


class Initiative(msgspec.Struct, frozen=True):
    who: str
    value: Derivation
    speed: Derivation | None = None  # the round's Speed, quirks and perks included


class TieBreak(msgspec.Struct, frozen=True):
    """A roll-off between combatants tied on initiative: higher goes first."""

    who: str
    attempt: int
    roll: Roll


class RoundStarted(Event, frozen=True, tag="modular.round-started"):
    round: int
    initiatives: tuple[Initiative, ...]
    order: tuple[str, ...]
    ties: tuple[TieBreak, ...] = ()
    tie_rule: str = ""


class TurnStarted(Event, frozen=True, tag="modular.turn-started"):
    who: str
    index: int


class EvadeEnded(Event, frozen=True, tag="modular.evade-ended"):
    who: str
    reason: str


class Moved(Event, frozen=True, tag="modular.moved"):
    who: str
    feet: int
    cost: Derivation
    left: Derivation


class ActionTaken(Event, frozen=True, tag="modular.action-taken"):
    who: str
    action: str
    slot: Slot
    rule: str
    target: str | None = None
    skill: str | None = None
    movement: Derivation | None = None  # Dash: the round's movement allowance
    dodge: Derivation | None = None  # Evade: the evading dodge class


class ReadyDeclared(Event, frozen=True, tag="modular.ready-declared"):
    who: str
    trigger: str
    then: Course
    otherwise: Course
    feet: int  # movement held for the courses


class ReadyResolved(Event, frozen=True, tag="modular.ready-resolved"):
    who: str
    course: Literal["triggered", "untriggered"]
    played: Course
    feet: Derivation | None = None
    movement: Derivation | None = None
    dodge: Derivation | None = None
    outcome: str | None = None


class ReadyCancelled(Event, frozen=True, tag="modular.ready-cancelled"):
    who: str
    reason: str


class DamageTaken(Event, frozen=True, tag="modular.damage-taken"):
    who: str
    amount: Derivation
    health_left: int


class HealthHealed(Event, frozen=True, tag="modular.health-healed"):
    who: str
    amount: Derivation
    health_left: int


class EffectApplied(Event, frozen=True, tag="modular.effect-applied"):
    who: str
    kind: str
    rounds: int


class EffectEnded(Event, frozen=True, tag="modular.effect-ended"):
    who: str
    kind: str
    reason: str


class UpkeepTick(Event, frozen=True, tag="modular.upkeep-tick"):
    """One timed effect loses a round at the end of the round."""

    who: str
    effect: str
    rounds_left: int
    removed: bool


class RoundEnded(Event, frozen=True, tag="modular.round-ended"):
    round: int
    combat_over: bool = False
