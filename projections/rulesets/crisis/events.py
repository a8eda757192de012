"""crisis's events: tags and field names are stored forever."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

import msgspec

from skirmish.eventlog.events import Derivation, Event, Roll


class OrderRoll(msgspec.Struct, frozen=True):
    who: str
    total: Derivation
    rerolls: tuple[Roll, ...] = ()  # Turn Order: "roll again" while still tied


class Gain(msgspec.Struct, frozen=True):
    who: str
    ap: Derivation  # the AP after the turn's gain, capped at 6


class TurnStarted(Event, frozen=True, tag="crisis.turn-started"):
    """A turn's start: the order, its rolls and the AP gained. (``budgets`` is UNSET, so
    left out, in an older turn start: it reads and prints exactly as it was stored.)"""

    turn: int
    sequence: tuple[str, ...]
    rolls: tuple[OrderRoll, ...] = ()
    gains: tuple[Gain, ...] = ()
    acting: str | None = None
    surprise: tuple[str, ...] = ()
    # The AP budget reads against the AP each had this turn (left + spent), not the cap of
    # 6; older logs showed the cap, and still do.
    budgets: bool | msgspec.UnsetType = msgspec.UNSET


class TurnPassed(Event, frozen=True, tag="crisis.turn-passed"):
    by: str | None
    to: str | None


class ActionTaken(Event, frozen=True, tag="crisis.action-taken"):
    who: str
    action: str
    cost: Derivation
    paid: int
    spans: bool = False  # over 6 AP: carried on over later turns (Actions)
    target: str | None = None
    distance: Derivation | None = None
    what: str | None = None


class AttackRolled(Event, frozen=True, tag="crisis.attack-rolled"):
    who: str
    target: str
    attack: Derivation
    defence: Derivation
    hit: bool


class ActionProgressed(Event, frozen=True, tag="crisis.action-progressed"):
    who: str
    action: str
    paid: int
    progress: int
    cost: int

    @property
    def done(self) -> bool:
        return self.progress >= self.cost


class ActionCancelled(Event, frozen=True, tag="crisis.action-cancelled"):
    who: str
    action: str
    reason: str


class Healed(Event, frozen=True, tag="crisis.healed"):
    """The GM's healing (the text has none): Health first, then Endurance, each up to its stat."""

    who: str
    amount: Derivation
    to_health: int
    to_endurance: int


class DamageTaken(Event, frozen=True, tag="crisis.damage-taken"):
    who: str
    amount: Derivation  # Damage: weapon damage + ability + circumstance
    taken: Derivation  # after armour's DR
    to_endurance: int
    to_health: int
    durability_lost: int
    endurance_left: int
    health_left: int
    critical: bool = False
    by: str | None = None  # the attacker whose hit this damage resolves


class ConditionSet(Event, frozen=True, tag="crisis.condition-set"):
    who: str
    kind: str
    until: int | None = None
    no_gain_turn: int | None = None


class ConditionEnded(Event, frozen=True, tag="crisis.condition-ended"):
    who: str
    kind: str
    reason: str


class TurnEnded(Event, frozen=True, tag="crisis.turn-ended"):
    turn: int
