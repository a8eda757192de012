"""ap-countdown's events: tags and field names are stored, forever."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from typing import Any, ClassVar, Literal

import msgspec

from skirmish.eventlog.events import Derivation, Event
from skirmish.projections.rulesets.ap_countdown.vocabulary import R_UPKEEP, Step


class Initiative(msgspec.Struct, frozen=True):
    who: str
    base: Derivation
    ap: int
    actual: Derivation


class RoundStarted(Event, frozen=True, tag="ap.round-started", omit_defaults=True):
    """A round's initiatives. (Defaults are omitted: an older round start reads and prints
    exactly as it was stored, before ``idle`` and ``budgets`` existed.)"""

    round: int
    count: int
    initiatives: tuple[Initiative, ...]
    # Down or away when the round began: not rolled, no AP (Initiative: every *combatant*
    # rolls; the down and the departed are not in the fight). Older logs rolled them.
    idle: tuple[str, ...] = ()
    # The budget's "of" is the AP each had this round (Initiative.ap), kept past the
    # round's end; older logs showed AP left + spent, and still do.
    budgets: bool = False


class ActionContinued(Event, frozen=True, tag="ap.action-continued"):
    who: str
    action: str
    step: Step
    at: Derivation


class ClockAdvanced(Event, frozen=True, tag="ap.clock-advanced"):
    count: int
    declaring: tuple[str, ...] = ()
    resolving: tuple[str, ...] = ()


class ActionDeclared(Event, frozen=True, tag="ap.action-declared"):
    who: str
    action: str
    cost: Derivation
    count: int
    step: Step
    at: Derivation
    penalty: Derivation
    target: str | None = None
    trigger: str | None = None
    instant: bool = False  # an instantaneous action: counts toward "each further one costs 1 AP"


class ActionProgressed(Event, frozen=True, tag="ap.action-progressed"):
    who: str
    action: str
    paid: int
    progress: int
    cost: int


class ActionReadied(Event, frozen=True, tag="ap.action-readied"):
    who: str
    action: str
    paid: int
    trigger: str


class ActionResolved(Event, frozen=True, tag="ap.action-resolved"):
    who: str
    action: str
    paid: int
    count: int | None
    outcome: str | None = None
    target: str | None = None
    charge: Derivation | None = None
    critical_bonus: int = 0
    penalty: Derivation | None = None  # worked out again: a harder pace since declaration (Movement)


class ActionCancelled(Event, frozen=True, tag="ap.action-cancelled"):
    who: str
    action: str
    reason: str
    orientation: str | None = None
    delay: int = 0
    out: bool = False


class PaceChanged(Event, frozen=True, tag="ap.pace-changed"):
    who: str
    pace: str
    penalty: int
    count: int


class ParryDeclared(Event, frozen=True, tag="ap.parry-declared"):
    who: str
    amount: int
    against: str | None = None


class ParryUsed(Event, frozen=True, tag="ap.parry-used"):
    who: str
    against: str
    paid: int
    owes_melee: bool = False  # no melee attack under way: the next action must be one (Parry)


class DamageTaken(Event, frozen=True, tag="ap.damage-taken"):
    """Hits taken (ap-countdown.md counts damage in hits), and the hits left after them."""

    version: ClassVar[int] = 2  # 1 called ``hits`` ``amount``
    who: str
    hits: Derivation
    hits_left: int

    @staticmethod
    def upcast_v1_v2(body: dict[str, Any]) -> dict[str, Any]:
        # Version 1 named the hits taken ``amount``, the word of the `damage` command; the
        # event speaks the rules' word, as ``hits_left`` beside it always did.
        out = {k: v for k, v in body.items() if k != "amount"}
        out["hits"] = body["amount"]
        return out


class HitsHealed(Event, frozen=True, tag="ap.hits-healed"):
    """Hits given back by the GM (the text has no healing rule), and the hits left after."""

    who: str
    hits: Derivation
    hits_left: int


class EffectApplied(Event, frozen=True, tag="ap.effect-applied"):
    who: str
    kind: str
    per_round: int = 0
    rounds: int | None = None
    spent_before: Derivation | None = None
    custom: bool = False  # a kind the ruleset does not know, the GM's own


class EffectEnded(Event, frozen=True, tag="ap.effect-ended"):
    who: str
    kind: str
    reason: str


class BleedingStaunched(Event, frozen=True, tag="ap.bleeding-staunched"):
    who: str
    by: str
    per_round: int


class CounterSet(Event, frozen=True, tag="ap.counter-set"):
    name: str
    value: int
    per_round: int
    ended: bool = False


class UpkeepTick(Event, frozen=True, tag="ap.upkeep-tick"):
    """One line of the upkeep list: who, which step, what changed and why."""

    step: Literal["bleeding", "timed", "stun", "stagger", "environment"]
    who: str
    effect: str
    change: int = 0
    serial: int = 0  # which of the combatant's effects (see Effect.serial)
    rounds_left: int | None = None
    removed: bool = False
    reason: str = ""
    rule: str = R_UPKEEP


class RoundEnded(Event, frozen=True, tag="ap.round-ended"):
    round: int
    ap_lost: dict[str, int] = {}
