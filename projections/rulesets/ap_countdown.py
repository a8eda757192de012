"""The ap-countdown ruleset: five-second rounds counted down by initiative, 4 action points.

Rules text: shared/rules/ap-countdown.md (cited below by section). The clock is the
GM's initiative count. Actual initiative = base initiative + 5 x AP left (Initiative);
an action is declared at the current count and resolves, paid, 5 x AP lower
(Resolution). ``next`` moves the count to the next value at which someone declares or
an action completes, and runs the upkeep when the countdown is over.

Open points of the text, each an option recorded in the encounter's first event:

- ``initiative`` (default ``each-round``): the text says initiative "is rolled anew every
  round" and that base initiative "is rolled once at the start". The section opens with
  the per-round roll and the table in rules/README.md keeps it, so 2d10 is rolled every
  round by default; ``once`` rolls the base in round 1 and keeps it.
- ``carry-ap`` (default ``no``): "Combatants receive 4 Action Points every round"; the
  only carry-over the text names is a round-to-round action, so unspent AP are lost at
  the end of the round. ``yes`` adds them to the next round's 4, at most 4 of them.
- ``goes-down`` (default ``at-0``): the text counts hits but never says when a combatant
  is down. At 0 hits left or less (``below-0``: below 0; ``never``: the GM takes
  combatants out with ``leave``) the combatant is down: the countdown passes it by, its
  declarations are refused, and the hit that downs it cancels its action under way
  (a held action or a round-to-round one included). ``heal`` brings it back; it declares
  again from the next count its initiative allows. Down, or gone (``leave``), when a round
  begins, it is no combatant of that round (Initiative: "every combatant" rolls): no
  initiative, no AP, nothing lost at the upkeep; healed or back, it waits for the next.
- ``pace-penalty`` (default ``worst``): Movement's pace penalty "applies to all other
  actions performed in the round". An action declared before the combatant changed to a
  harder pace and resolved (performed) after it takes the harder pace's penalty: its
  penalty at resolution is its own (range) penalty plus the worse of the two paces',
  recorded on the resolution. ``declared`` keeps the penalty worked out at declaration.

Statuses (the view's): ``left`` after ``leave``; ``down`` as ``goes-down`` says; ``out``
after a failed Orientation Maneuver, for the rest of the round (Canceling action); else
``fighting``.

Readings chosen where the text is silent, documented here and in the README:

- Stun and stagger ask whether the combatant "had spent less than 2 AP before being
  stunned". The AP spent that round is captured when the effect is applied; the check
  governs the first upkeep after it (a stun that landed late in a round does not count
  that round). Later upkeeps reduce it normally, also a milder stun that only becomes
  the most severe after some upkeeps. An effect applied between rounds (after an upkeep,
  before the next round) counts 0 AP spent: the upkeep it meets first is the next
  round's. Only the most severe stun effect loses a round per upkeep (Stunned/Unable to
  Parry, then Stunned, then Dazed).
- "1 pace change allowed per tick": a tick is one initiative count.
- A round-to-round action is one costing more than 4 AP and more than the AP held when
  it is declared. Its AP are paid round by round as each round's share completes;
  interrupting it loses the progress. With carried AP (option carry-ap) a fighter may
  hold an action's whole cost: it is paid and resolves when its AP are spent
  (Resolution), 6 AP declared at 45 resolving at 15.
- A held (conditional) action must fit in the AP left; it readies (AP paid) at the
  count where it would resolve and stays held across rounds until the GM resolves it
  when the trigger happens, or it is cancelled. Declaring any other action except
  movement breaks the concentration and cancels it, as it does a round-to-round action.
  A held instantaneous action would resolve on the count it is declared on: it is ready
  at once.
- A combatant may declare at any count at or below its actual initiative (waiting is
  allowed), never above it: that is declaring out of turn.
- Cancelling is not itself a declared action; the Orientation Maneuver's result, if the
  GM calls for one, is a delay subtracted from initiative for the rest of the round. A
  failure allows no action at all for the rest of the round, a pace change included
  (movement is an action: Actions).
- Parry is declared "at the beginning of the round, or as soon as melee ensues" (Parry):
  before the combatant's first action of the round, or at any count once a melee attack
  involving it is under way (its own, or one declared against it), even after it has
  acted; the parry is then against that attacker unless ``--target`` names another. Once
  a round. When a melee attack against the parrying combatant resolves, the parry is used: the AP of its
  pending melee attack are paid at once and that attack can no longer be cancelled; with
  no melee attack pending, the next action it declares this round must be one. AP left
  over after that melee attack are free for other actions.
- The charging table's speeds are thresholds: 3 to 5 m/s x2 (+1), 6 to 11 x3 (+2), 12 or
  more x4 (+3); below 3 m/s there is no charge bonus.
- First aid (8 AP, "per hit/round") reduces the target's bleeding by 1 hit a round each
  time it resolves.
- The text has no healing: ``heal WHO N`` records hits given back by the GM (a potion, a
  spell), never above the combatant's hits.
- Effects: bleeding, the stuns (stunned-unable-to-parry, stunned, dazed) and staggered
  are the Upkeep's; any other timed effect (a spell) is the GM's own: ``effect WHO KIND
  --rounds N --custom``.
"""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (README: Speed).

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from operator import attrgetter, is_
from shlex import quote
from typing import Any, ClassVar, Literal

import msgspec
from msgspec.structs import replace

from skirmish.eventlog.commands import (
    AtTheTable,
    CarriedEffect,
    ApplyEffect,
    Heal,
    Leave,
    Cancel,
    Damage,
    Declare,
    Next,
    Resolve,
    StartRound,
    Upkeep,
)
from skirmish.eventlog.errors import BadInput, RuleViolation
from skirmish.eventlog.events import (
    CombatantCarried,
    CombatantAdded,
    Derivation,
    EncounterStarted,
    Event,
    Roll,
    Term,
)
from skirmish.projections.ruleset import (
    GOES_DOWN,
    GOES_DOWN_OPTION,
    ActionInfo,
    Detail,
    Dice,
    Flag,
    GoesDown,
    Harm,
    Option,
    Rules,
    Ruleset,
    Stat,
    applies,
    decides,
    detail_int,
    find_name,
    is_down,
    options_in_force,
    suggest,
)
from skirmish.projections.view import Budget, Clock, Combatant, Gauge, Glance, Own, Pending, Status, View
from skirmish.projections.view import Effect as Shown

RULES = "ap-countdown.md"
R_AP = f"{RULES}, Action Points"
R_INIT = f"{RULES}, Initiative"
R_RES = f"{RULES}, Resolution"
R_UPKEEP = f"{RULES}, Upkeep"
R_ACTIONS = f"{RULES}, Actions"
R_INSTANT = f"{RULES}, Instantaneous actions"
R_R2R = f"{RULES}, Round to Round Actions"
R_HELD = f"{RULES}, Conditional Actions"
R_CANCEL = f"{RULES}, Canceling action"
R_MOVE = f"{RULES}, Movement"
R_CHARGE = f"{RULES}, Charging"
R_PARRY = f"{RULES}, Parry"

AP_PER_ROUND = 4
COUNT_PER_AP = 5
RANGE_PENALTY_PER_AP = -25

# Action table (ap-countdown.md, Actions): name -> (least AP, most AP; None = no upper bound).
ACTIONS: dict[str, tuple[int, int | None]] = {
    "ranged-attack": (1, 3),
    "melee-attack": (2, 4),
    "thrown-attack": (2, 4),
    "dodge": (4, 4),
    "ammo-reload": (6, 6),
    "use-shield": (0, 0),
    "mount": (4, 4),
    "dismount": (4, 4),
    "rapid-dismount": (2, 2),
    "prone": (1, 1),
    "stand": (1, 1),
    "perception": (1, 2),
    "orientation-maneuver": (0, 0),
    "draw": (1, 1),
    "sheath": (2, 2),
    "get-item": (3, 3),
    "drop-item": (0, 0),
    "shift-item": (1, 1),
    "eat-drink": (2, 2),
    "power-reload": (8, 8),
    "first-aid": (8, 8),
    "pick-lock": (20, 20),
    "disarm-trap": (20, 20),
    "static-action": (8, None),
}
SPECIAL_ACTIONS = ("move", "parry")
MELEE = "melee-attack"

# Stun effects from most to least severe (ap-countdown.md, Upkeep).
STUNS = {"stunned-unable-to-parry": 3, "stunned": 2, "dazed": 1}
STAGGER = "staggered"
BLEEDING = "bleeding"
ORIENTATION = {"failure": None, "partial": -20, "near": -10, "success": 0}
# Charging (ap-countdown.md, Charging): least relative speed in m/s -> (hits x, critical +).
CHARGE = ((12, 4, 3), (6, 3, 2), (3, 2, 1))
LATE_EFFECT_AP = 2  # "spent less than 2 AP before being stunned/staggered"

Step = Literal["resolves", "progresses", "readies", "ready"]


# --- state -------------------------------------------------------------------------------


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


# --- the view's own parts ---------------------------------------------------------------------


class ApFigures(Own, frozen=True, kw_only=True):
    """A combatant's figures under ap-countdown beside the view's core (hits left is its
    vital figure, AP its budget). ``ap`` is the budget's AP left again: kept for scripts
    reading ``state --json``, shown once, as the budget."""

    repeats: ClassVar[frozenset[str]] = frozenset({"ap"})

    initiative: int | None
    base_initiative: int | None
    ap: int
    ap_spent: int
    hits: int
    damage: int
    pace: str
    delay: int
    out_of_round: bool
    parry: int | None


class ApPending(Own, frozen=True, kw_only=True):
    ap: int
    resolves_at: int | None
    step: str
    trigger: str | None
    progress: int
    penalty: int


class ApClock(Own, frozen=True, kw_only=True):
    count: int | None


class ApScene(Own, frozen=True, kw_only=True):
    environment: tuple[Counter, ...] = ()


# --- events ------------------------------------------------------------------------------


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


# --- how each event reads (ApCountdown.describe) ---------------------------------------
# The fields read straight off the event: a class pattern would look each one up by name.


def _say_upkeep(event: UpkeepTick) -> str:
    tick, who, effect = event.step, event.who, event.effect
    if tick == "bleeding":
        return f"Upkeep: {who} bleeds {-event.change} hits"
    if tick == "environment":
        return f"Upkeep: {event.reason}"
    if event.removed:
        return f"Upkeep: {who}'s {effect} ends"
    if event.reason:
        return f"Upkeep: {who}'s {effect} {event.reason}"
    left = event.rounds_left
    return f"Upkeep: {who}'s {effect} has {left} round{'' if left == 1 else 's'} left"


def _say_round_started(event: RoundStarted) -> str:
    order = ", ".join(f"{i.who} {i.actual.value}" for i in sorted(event.initiatives, key=lambda i: -i.actual.value))
    sitting = f"; sitting it out: {', '.join(event.idle)}" if event.idle else ""
    return f"Round {event.round} begins: initiative {order}; the count starts at {event.count}{sitting}"


def _say_continued(event: ActionContinued) -> str:
    verb = "resolves at" if event.step == "resolves" else "carries on to"
    return f"{event.who}'s {event.action} goes on: {verb} count {event.at.value}"


def _say_count(event: ClockAdvanced) -> str:
    d, r = event.declaring, event.resolving
    if d and not r:  # the commonest: someone to declare
        return f"Count {event.count}: {', '.join(d)} to declare"
    parts = [f"{', '.join(d)} to declare"] if d else []
    parts += [f"{', '.join(r)} to resolve"] if r else []
    return f"Count {event.count}" + (f": {'; '.join(parts)}" if parts else "")


def _say_declared(event: ActionDeclared) -> str:
    step, at, penalty, target = event.step, event.at, event.penalty, event.target
    on = f" on {target}" if target else ""
    pen = f", penalty {penalty.value}" if penalty.value else ""
    if step == "readies":
        tail = f"ready at {at.value}, then held until: {event.trigger}"
    elif step == "progresses":
        tail = f"round-to-round, this round's share ends at {at.value}"
    else:
        tail = f"resolves at {at.value}"
    return f"{event.who} declares {event.action}{on} ({event.cost.value} AP{pen}) at {event.count}: {tail}"


def _say_progressed(event: ActionProgressed) -> str:
    return f"{event.who} puts {event.paid} AP into {event.action} ({event.progress} of {event.cost})"


def _say_readied(event: ActionReadied) -> str:
    return f"{event.who}'s {event.action} is ready ({event.paid} AP), held until: {event.trigger}"


def _say_resolved(event: ActionResolved) -> str:
    outcome, target, charge, at_count = event.outcome, event.target, event.charge, event.count
    on = f" on {target}" if target else ""
    when = f" at {at_count}" if at_count is not None else ""
    res = f": {outcome}" if outcome else ""
    ch = f" (charge x{charge.value}, critical +{event.critical_bonus})" if charge else ""
    pen = f", penalty now {event.penalty.value} (pace)" if event.penalty else ""
    return f"{event.who} resolves {event.action}{on}{when}{ch}, {event.paid} AP{pen}{res}"


def _say_cancelled(event: ActionCancelled) -> str:
    extra = ""
    if event.orientation:
        extra = " (Orientation Maneuver failed: no more actions this round)" if event.out else (
            f" (Orientation Maneuver {event.orientation}: delay {event.delay})")
    return f"{event.who}'s {event.action} {event.reason}{extra}"


def _say_pace(event: PaceChanged) -> str:
    return f"{event.who} moves at {event.pace} pace from count {event.count} (penalty {event.penalty})"


def _say_parry(event: ParryDeclared) -> str:
    return f"{event.who} parries {event.amount}" + (f" against {event.against}" if event.against else "")


def _say_parry_used(event: ParryUsed) -> str:
    return f"{event.who} parries {event.against}'s attack" + (
        f": {event.paid} AP spent on the melee attack" if event.paid else "")


def _say_damage(event: DamageTaken) -> str:
    return f"{event.who} takes {event.hits.value} hits ({event.hits_left} left)"


def _say_healed(event: HitsHealed) -> str:
    return f"{event.who} is healed {event.hits.value} hits ({event.hits_left} left)"


def _say_effect(event: EffectApplied) -> str:
    per_round, rounds = event.per_round, event.rounds
    detail = f"{per_round} a round" if per_round else (
        f"{rounds} round{'' if rounds == 1 else 's'}" if rounds else "until upkeep")
    return f"{event.who} is {event.kind} ({detail})"


def _say_effect_ended(event: EffectEnded) -> str:
    return f"{event.who} is no longer {event.kind} ({event.reason})"


def _say_staunched(event: BleedingStaunched) -> str:
    return f"{event.by} staunches {event.who}'s bleeding to {event.per_round} a round"


def _say_counter(event: CounterSet) -> str:
    if event.ended:
        return f"The scene's {event.name} stops"
    return f"The scene's {event.name} stands at {event.value}, {event.per_round:+d} each upkeep"


def _say_round_ended(event: RoundEnded) -> str:
    lost = event.ap_lost
    tail = "; unspent AP lost: " + ", ".join(f"{k} {v}" for k, v in lost.items()) if lost else ""
    return f"Round {event.round} ends{tail}"


# In the order the kinds were told before (a subclass of one is told as the first it is).
_SAYS: dict[type[Event], Callable[[Any], str]] = {
    UpkeepTick: _say_upkeep, RoundStarted: _say_round_started, ActionContinued: _say_continued,
    ClockAdvanced: _say_count, ActionDeclared: _say_declared, ActionProgressed: _say_progressed,
    ActionReadied: _say_readied, ActionResolved: _say_resolved, ActionCancelled: _say_cancelled,
    PaceChanged: _say_pace, ParryDeclared: _say_parry, ParryUsed: _say_parry_used, DamageTaken: _say_damage,
    HitsHealed: _say_healed, EffectApplied: _say_effect, EffectEnded: _say_effect_ended,
    BleedingStaunched: _say_staunched, CounterSet: _say_counter, RoundEnded: _say_round_ended,
}


# --- the ruleset ---------------------------------------------------------------------------


class ApCountdown(GoesDown, Rules[ApState]):
    id = "ap-countdown"
    rules_file = RULES
    vital = "hits"
    round_rule = R_INIT
    options = {
        "initiative": Option(
            "each-round", ("each-round", "once"),
            "roll 2d10 base initiative every round, or once at the start (Initiative)",
        ),
        "carry-ap": Option(
            "no", ("no", "yes"), "unspent AP carry into the next round (Action Points)"
        ),
        GOES_DOWN: GOES_DOWN_OPTION,
        "pace-penalty": Option(
            "worst", ("worst", "declared"),
            "an action resolved at a harder pace than it was declared at takes that pace's "
            "penalty (Movement: it applies to all other actions performed in the round), or keeps its own",
        ),
    }
    effects = {
        BLEEDING: "--per-round N hits lost at each upkeep, until staunched (Upkeep)",
        "stunned-unable-to-parry": "--rounds N, the most severe stun (Upkeep)",
        "stunned": "--rounds N (Upkeep)",
        "dazed": "--rounds N, the mildest stun (Upkeep)",
        STAGGER: "removed at the upkeep unless 2 AP were spent before it (Upkeep)",
    }
    stats = {
        "qu": Stat("Quickness bonus, added to initiative"),
        "hits": Stat("hits the combatant can take", minimum=1),
        "penalty": Stat(
            "current action penalty, e.g. -20: -1 initiative per full -10",
            required=False, maximum=0,
        ),
    }
    actions = {
        **{
            name: ActionInfo(
                f"{low} AP" if low == high else f"{low}+ AP" if high is None else f"{low}-{high} AP",
                "faster than its maximum at -25 per AP" if high is not None and high > low else "the table's cost",
                ("ap", "target", "trigger"),  # _declare: the cost, the aim, a held action's trigger
            )
            for name, (low, high) in ACTIONS.items()
        },
        "move": ActionInfo("no AP", "change pace: --pace walk|run|... --penalty N (1 pace change a count)",
                           ("pace", "penalty")),  # _move
        "parry": ActionInfo("no AP", "--amount N before the first action of the round; binds a melee attack",
                            ("amount", "target")),  # _parry: the bonus, and the attacker it binds
    }
    details: dict[str, Detail] = {}  # every input has its own flag
    flags = {
        "ap": Flag("AP to spend: fewer than the action's most resolve sooner, at -25 per AP (Actions)", ("declare",)),
        "target": Flag("whom the action is aimed at", ("declare",)),
        "trigger": Flag("hold the action, ready at its count, until this happens (Conditional Actions)", ("declare",)),
        "pace": Flag("move: the new pace, e.g. walk or run (Movement)", ("declare",), str),
        "penalty": Flag("move: the pace's penalty off the movement table, 0 or less (Movement)", ("declare",), int),
        "amount": Flag("parry: the bonus moved from attack to defence (Parry)", ("declare",)),
        "outcome": Flag("what the roll gave, in the GM's words", ("resolve",)),
        "hits": Flag("hits dealt to the action's target (Resolution)", ("resolve",)),
        "charge": Flag("a melee attack's charge: the relative speed in m/s (Charging)", ("resolve",), int),
        "orientation": Flag("the Orientation Maneuver's result: failure, partial, near or success (Canceling action)",
                            ("cancel",), str),
        "per_round": Flag("bleeding: hits lost at each upkeep; a scene counter: its step (Upkeep)", ("effect",)),
        "rounds": Flag("how many rounds a stun or the GM's own effect lasts (Upkeep)", ("effect",)),
        "start": Flag("a scene counter's starting value", ("effect",), int),
        "end": Flag("end the effect, or the scene counter, now", ("effect",)),
    }
    state_type = ApState
    # ApState's shape: raise it when ApState, Fighter, Action, Effect or Counter change
    # (2: fighters by name, and ``left``).
    state_version = 4  # 3: Action.pace_penalty, Effect.custom; 4: Fighter.had

    def vital_left(self, f: Fighter) -> int:
        return f.hits - f.damage

    def _declaring(self, state: ApState) -> set[str]:
        """The names of those who may declare an action now."""
        return {f.name for f in state.fighters.values() if _may_declare(f, self.down(state, f))}

    # --- initial / apply ------------------------------------------------------------------
    # A replay applies hundreds of thousands of these: each changes the fighter in place
    # (ApState), read off the fighters' table directly. An action or effect is a frozen
    # value: set anew, never changed in place (the view's and glance's rows rely on it).
    # The appliers are static: the fold's table (Rules.appliers) holds them as plain
    # functions, called without a bound method's step. A field of a struct is read at
    # the cost of a local's, but written at many times that (msgspec's own __setattr__,
    # which CPython does not specialise): a field that usually holds the value already
    # (a round start's resets) is tested, and written only when it differs.

    def initial(self, started: EncounterStarted) -> ApState:
        options = options_in_force(self, started)
        return ApState(options=options, seed=started.seed)

    @applies(CombatantAdded)
    @staticmethod
    def _added(state: ApState, event: CombatantAdded) -> None:
        stats = event.stats
        state.fighters[event.name] = Fighter(name=event.name, side=event.side, qu=stats["qu"], hits=stats["hits"],
                                             penalty=stats.get("penalty", 0))

    @applies(CombatantCarried)
    @staticmethod
    def _carried(state: ApState, event: CombatantCarried) -> None:
        if event.vital is not None:  # hits taken in an earlier fight (README, the party between fights)
            f = state.fighters[event.who]
            f.damage = f.hits - event.vital

    def lasting(self, state: ApState, who: str) -> list[CarriedEffect]:
        # Bleeding runs until staunched; stuns count rounds and staggered ends at the upkeep.
        bleed = _bleeding(state.fighter(who))
        return [CarriedEffect(kind=BLEEDING, per_round=bleed)] if bleed > 0 else []

    # Leaving and coming back: the shared handlers (Rules), setting ``left`` in place.

    @applies(RoundStarted)
    @staticmethod
    def _round_started(state: ApState, event: RoundStarted) -> None:
        # Every fighter of the round: its initiative and AP, and this round's figures back
        # to nothing (spent, instants, delay, out, the parry, declared). Most of those are
        # nothing already (an idle fighter's all of them): each is written only where it
        # is not. Written out, not a call a fighter a round.
        fighters = state.fighters
        budgets = event.budgets
        for init in event.initiatives:
            f = fighters[init.who]
            base = init.base
            f.base = base.value
            f.base_derivation = base
            ap = init.ap
            if f.ap != ap:
                f.ap = ap
            had = ap if budgets else None
            if f.had != had:
                f.had = had
            _new_round(f)
        for name in event.idle:
            # No initiative and no AP this round (back up or back, it waits for the next);
            # its base derivation is kept for option initiative=once.
            f = fighters[name]
            if f.base is not None:
                f.base = None
            if f.ap:
                f.ap = 0
            had = 0 if budgets else None
            if f.had != had:
                f.had = had
            _new_round(f)
        state.round = event.round
        state.in_round = True
        state.count = event.count

    @applies(ActionContinued)
    @staticmethod
    def _continued(state: ApState, event: ActionContinued) -> None:
        f = state.fighters[event.who]
        assert f.action is not None
        f.action = replace(f.action, step=event.step, resolves_at=event.at.value)

    @applies(ClockAdvanced)
    @staticmethod
    def _clock_advanced(state: ApState, event: ClockAdvanced) -> None:
        state.count = event.count

    @applies(ActionDeclared)
    @staticmethod
    def _declared(state: ApState, event: ActionDeclared) -> None:
        f = state.fighters[event.who]
        f.action = Action(
            event.action, event.cost.value, event.count, state.round, event.step, event.at.value, event.target,
            event.trigger, event.penalty.value, 0, False, f.pace_penalty,
        )
        if event.instant:
            f.instants += 1
        if not f.declared_this_round:  # a second declaration this round: set already
            f.declared_this_round = True
        if f.parry_owes_melee:
            f.parry_owes_melee = event.action != MELEE

    @applies(ActionProgressed)
    @staticmethod
    def _progressed(state: ApState, event: ActionProgressed) -> None:
        f = state.fighters[event.who]
        assert f.action is not None
        f.action = replace(f.action, progress=event.progress, resolves_at=None)
        paid = event.paid
        if paid:
            f.ap -= paid
            f.spent += paid

    @applies(ActionReadied)
    @staticmethod
    def _readied(state: ApState, event: ActionReadied) -> None:
        f = state.fighters[event.who]
        assert f.action is not None
        f.action = replace(f.action, step="ready", resolves_at=None, paid=True, progress=f.action.cost)
        paid = event.paid
        if paid:
            f.ap -= paid
            f.spent += paid

    @applies(ActionResolved)
    @staticmethod
    def _resolved(state: ApState, event: ActionResolved) -> None:
        f = state.fighters[event.who]
        paid = event.paid
        if paid:  # else nothing left to pay: a free instantaneous action, or paid before (readied, parried)
            f.ap -= paid
            f.spent += paid
        f.action = None

    @applies(ActionCancelled)
    @staticmethod
    def _cancelled(state: ApState, event: ActionCancelled) -> None:
        f = state.fighters[event.who]
        f.action = None
        if event.delay:
            f.delay += event.delay
        if event.out:
            f.out = True

    @applies(PaceChanged)
    @staticmethod
    def _pace_changed(state: ApState, event: PaceChanged) -> None:
        f = state.fighters[event.who]
        f.pace = event.pace
        f.pace_penalty = event.penalty
        f.pace_count = (state.round, event.count)

    @applies(ParryDeclared)
    @staticmethod
    def _parry_declared(state: ApState, event: ParryDeclared) -> None:
        f = state.fighters[event.who]
        f.parry = event.amount
        f.parry_against = event.against

    @applies(ParryUsed)
    @staticmethod
    def _parry_used(state: ApState, event: ParryUsed) -> None:
        f = state.fighters[event.who]
        under_way = f.action
        if under_way is not None and event.paid:
            f.action = replace(under_way, paid=True, progress=under_way.cost)
        f.parry_used, f.parry_owes_melee = True, event.owes_melee
        f.ap -= event.paid
        f.spent += event.paid

    @applies(DamageTaken)
    @staticmethod
    def _damage_taken(state: ApState, event: DamageTaken) -> None:
        state.fighters[event.who].damage += event.hits.value

    @applies(HitsHealed)
    @staticmethod
    def _hits_healed(state: ApState, event: HitsHealed) -> None:
        state.fighters[event.who].damage -= event.hits.value

    @applies(EffectApplied)
    @staticmethod
    def _effect_applied(state: ApState, event: EffectApplied) -> None:
        f = state.fighters[event.who]
        if event.kind == BLEEDING:
            _bleed(f, event.per_round)
            return
        spent = event.spent_before
        serial = f.effects_applied
        f.effects = (*f.effects, Effect(event.kind, event.per_round, event.rounds, spent.value if spent else 0, True,
                                        serial, event.custom))
        f.effects_applied = serial + 1

    @applies(EffectEnded)
    @staticmethod
    def _effect_ended(state: ApState, event: EffectEnded) -> None:
        f = state.fighters[event.who]
        f.effects = _without(f.effects, event.kind)

    @applies(BleedingStaunched)
    @staticmethod
    def _staunched(state: ApState, event: BleedingStaunched) -> None:
        f = state.fighters[event.who]
        _bleed(f, event.per_round - _bleeding(f))

    @applies(CounterSet)
    @staticmethod
    def _counter_set(state: ApState, event: CounterSet) -> None:
        counters = tuple(c for c in state.counters if c.name != event.name)
        if not event.ended:
            counters += (Counter(event.name, event.value, event.per_round),)
        state.counters = counters

    @applies(UpkeepTick)
    @staticmethod
    def _upkeep_tick(state: ApState, tick: UpkeepTick) -> None:
        # The most frequent event of a long fight, bleeding the most frequent tick: the
        # fighters' table read directly.
        step = tick.step
        if step == "bleeding":
            state.fighters[tick.who].damage -= tick.change
            return
        if step == "environment":
            state.counters = tuple(
                replace(c, value=c.value + tick.change) if c.name == tick.effect else c for c in state.counters
            )
            return
        f = state.fighters[tick.who]
        effects = f.effects
        serial = tick.serial
        for i, e in enumerate(effects):  # the tick's effect is there: its upkeep was decided on this state
            if e.serial == serial:
                break
        if len(effects) == 1:  # the commonest: the fighter's one effect
            f.effects = () if tick.removed else (replace(e, rounds=tick.rounds_left, fresh=False),)
        elif tick.removed:
            f.effects = effects[:i] + effects[i + 1:]
        else:
            f.effects = (*effects[:i], replace(e, rounds=tick.rounds_left, fresh=False), *effects[i + 1:])

    @applies(RoundEnded)
    @staticmethod
    def _round_ended(state: ApState, event: RoundEnded) -> None:
        # Every effect still on has now been through an upkeep, ticked or not: the
        # "spent 2 AP before" check governs only the first one (Upkeep).
        carry = state.options["carry-ap"] == "yes"
        for f in state.fighters.values():
            if not carry and f.ap:
                f.ap = 0
            # Most fighters have no effect fresh. (Loops, not generators: this runs for
            # every fighter at every round's end.)
            for e in f.effects:
                if e.fresh:
                    f.effects = tuple([replace(e, fresh=False) if e.fresh else e for e in f.effects])
                    break
        state.in_round = False
        state.count = None

    # --- decide --------------------------------------------------------------------------

    @decides(Damage)
    def _damage(self, state: ApState, command: Damage, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), command.who))
        if command.amount < 1:
            raise BadInput(f"damage must be at least 1 hit, not {command.amount}")
        amount = Derivation(command.amount, "hits read off the tables by the GM", rule=R_RES)
        return _damage(state, f, amount, self.down(state, f))

    @decides(Heal)
    def _heal(self, state: ApState, command: Heal, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), command.who))
        if command.amount < 1:
            raise BadInput(f"heal takes at least 1 hit, not {command.amount}")
        if f.damage <= 0:
            raise RuleViolation(f"{f.name} has all its {f.hits} hits: nothing to heal")
        hits = min(command.amount, f.damage)
        given = Derivation(hits, "hits given back by the GM, at most the hits taken (the text has no healing rule)",
                           (Term("healed", command.amount), Term("hits taken", f.damage)))
        return [HitsHealed(who=f.name, hits=given, hits_left=f.hits - f.damage + hits)]

    @decides(Leave)
    def _leave(self, state: ApState, command: Leave, dice: Dice) -> list[Event]:
        events = self._decide_leave(state, command, dice)
        f = state.fighter(find_name(state.names(), command.who))
        if f.action is not None:
            events.append(ActionCancelled(who=f.name, action=f.action.name, reason=f"ends: {f.name} leaves the fight"))
        return events

    @decides(Upkeep)
    def _upkeep_command(self, state: ApState, command: Upkeep, dice: Dice) -> list[Event]:
        self.need_round(state)
        return self._upkeep(state)

    @decides(StartRound)
    def _start_round(self, state: ApState, command: StartRound, dice: Dice) -> list[Event]:
        if state.in_round:
            raise RuleViolation(
                f"round {state.round} is still under way: finish it with `skirmish upkeep`", R_UPKEEP
            )
        if not state.fighters:
            raise RuleViolation("no combatants yet: add some with `skirmish add NAME --stat ...`")
        for name in command.rolls:
            find_name(state.names(), name)
        number = state.round + 1
        once = state.options["initiative"] == "once"
        inits = []
        continued: list[Event] = []
        idle = tuple(f.name for f in state.fighters.values() if f.left or self.down(state, f))
        for name in command.rolls:
            sitting = find_name(state.names(), name)
            if sitting in idle:
                why = "has left the fight" if state.fighter(sitting).left else "is down"
                raise RuleViolation(f"{sitting} {why}: it rolls no initiative this round", R_INIT)
        if len(idle) == len(state.fighters):
            raise RuleViolation("nobody can act: every combatant is down or has left", R_INIT)
        for f in state.fighters.values():
            if f.name in idle:
                continue
            if once and f.base_derivation is not None:
                if f.name.lower() in {n.lower() for n in command.rolls}:
                    raise RuleViolation(
                        f"{f.name}'s base initiative was rolled once, at the start (option initiative=once)",
                        R_INIT,
                    )
                base = f.base_derivation
            else:
                base = _base_initiative(f, dice.roll(f.name, 2, 10))
            # Carried AP are capped at one round's worth, so AP cannot pile up round after
            # round (the text gives 4 a round and names no hoard).
            carried = min(f.ap, AP_PER_ROUND) if state.options["carry-ap"] == "yes" else 0
            ap = AP_PER_ROUND + carried
            terms = (Term("base initiative", base.value), Term("5 x AP left", COUNT_PER_AP * ap))
            actual = Derivation(base.value + COUNT_PER_AP * ap, "base + 5 x AP left", terms, R_INIT)
            inits.append(Initiative(f.name, base, ap, actual))
            if f.action is not None and f.action.step in ("progresses", "resolves"):
                continued.append(_continue(f.action, f.name, actual.value, ap))
        count = max(i.actual.value for i in inits)
        return [RoundStarted(round=number, count=count, initiatives=tuple(inits), idle=idle, budgets=True), *continued]

    @decides(Next)
    def _next(self, state: ApState, command: Next, dice: Dice) -> list[Event]:
        self.need_round(state)
        count = state.count
        assert count is not None
        for f in state.fighters.values():
            a = f.action
            if a is not None and a.step == "resolves" and a.resolves_at is not None and a.resolves_at >= count:
                raise RuleViolation(
                    f"{f.name}'s {a.name} resolves at {a.resolves_at}: `skirmish resolve {quote(f.name)}` "
                    f"or `skirmish cancel {quote(f.name)}` first", R_RES,
                )
        may = self._declaring(state)
        new = _next_count(state, may)
        if new is None:
            return self._upkeep(state)
        events: list[Event] = []
        declaring, resolving = [], []
        for f in state.fighters.values():
            a = f.action
            if a is not None and a.resolves_at == new and a.step != "ready":
                if a.step == "resolves":
                    resolving.append(f.name)
                else:
                    events.append(_arrive(f, a))
            elif (a is None or a.step == "ready") and f.name in may and f.initiative == new:
                declaring.append(f.name)
        return [ClockAdvanced(count=new, declaring=tuple(declaring), resolving=tuple(resolving)), *events]

    @decides(Declare)
    def _declare(self, state: ApState, cmd: Declare, dice: Dice) -> list[Event]:
        self.need_round(state)
        f = state.fighter(find_name(state.names(), cmd.who))
        count = state.count
        assert count is not None
        action = cmd.action.lower()
        self.check_able(state, f)
        if action == "move":
            return self._move(state, f, cmd, count)
        if "pace" in cmd.details:
            raise BadInput("--pace goes with the move action only")
        if action == "parry":
            return self._parry(state, f, cmd)
        if cmd.amount is not None:
            raise BadInput("--amount goes with parry only")
        if action not in ACTIONS:
            raise BadInput(f"no action {cmd.action!r} in the ap-countdown table ({suggest(action, [*ACTIONS, *SPECIAL_ACTIONS])})")
        if f.out:
            raise RuleViolation(f"{f.name} failed an Orientation Maneuver: no more actions this round", R_CANCEL)
        if f.initiative is None:
            raise RuleViolation(
                f"{f.name} has no initiative this round (it joined, or was down or away, when it began): "
                "wait for the next round", R_INIT,
            )
        if f.initiative < count:
            raise RuleViolation(
                f"not {f.name}'s turn: initiative {f.initiative}, the count is {count}", R_RES
            )
        if f.parry_owes_melee and action != MELEE:
            raise RuleViolation(
                f"{f.name} used a parry this round: the AP are spent on a melee attack", R_PARRY
            )
        events: list[Event] = []
        if f.action is not None:
            a = f.action
            spanning = _round_to_round(a)
            if spanning or a.step == "ready" or a.trigger is not None:
                what = "round-to-round action" if spanning else "held action"
                rule = R_R2R if spanning else R_HELD
                events.append(ActionCancelled(
                    who=f.name, action=a.name, reason=f"interrupted by {action}: a {what} ends when another action is taken ({rule})",
                ))
                f = replace(f, action=None)
            else:
                raise RuleViolation(
                    f"{f.name}'s {a.name} is still under way (resolves at {a.resolves_at}): "
                    f"resolve or cancel it first", R_RES,
                )
        low, high = ACTIONS[action]
        cost = _cost(f, action, cmd.ap, low, high)
        if cmd.trigger is not None and cost.value > f.ap:
            raise RuleViolation(
                f"{f.name} has {f.ap} AP left; a held {action} must be ready this round and needs {cost.value}",
                R_HELD,
            )
        if cost.value <= AP_PER_ROUND and cost.value > f.ap:
            raise RuleViolation(f"{f.name} has {f.ap} AP left, {action} needs {cost.value}", R_AP)
        if cost.value > AP_PER_ROUND and f.ap < 1:
            raise RuleViolation(f"{f.name} has no AP left to start {action} this round", R_R2R)
        penalty = _penalty(f, action, cost.value, high)
        if cmd.trigger is not None:
            step: Step = "readies"
            at = Derivation(count - COUNT_PER_AP * cost.value, "count - 5 x AP (ready, then held)",
                            (Term("count", count), Term("5 x AP", -COUNT_PER_AP * cost.value)), R_HELD)
        elif cost.value > f.ap:
            # Round to Round Actions: more than the AP held (so more than 4, checked above)
            # takes this round's AP now and the rest in later rounds. One the fighter holds
            # the AP for (carried AP, option carry-ap) is paid and resolves when its AP are
            # spent, as any action (Resolution).
            step = "progresses"
            at = Derivation(count - COUNT_PER_AP * f.ap, "count - 5 x AP left (this round's share)",
                            (Term("count", count), Term("5 x AP left", -COUNT_PER_AP * f.ap)), R_R2R)
        else:
            step = "resolves"
            at = Derivation(count - COUNT_PER_AP * cost.value, "count - 5 x AP",
                            (Term("count", count), Term("5 x AP", -COUNT_PER_AP * cost.value)), R_RES)
        target = find_name(state.names(), cmd.target) if cmd.target is not None else None
        events.append(ActionDeclared(
            who=f.name, action=action, cost=cost, count=count, step=step, at=at,
            penalty=penalty, target=target, trigger=cmd.trigger, instant=low == high == 0,
        ))
        if step == "readies" and at.value == count:
            # A held instantaneous action would resolve on this very count: it is ready now
            # (Conditional Actions; Instantaneous actions), not at a later `next`.
            assert cmd.trigger is not None
            events.append(ActionReadied(who=f.name, action=action, paid=cost.value, trigger=cmd.trigger))
        return events

    def _move(self, state: ApState, f: Fighter, cmd: Declare, count: int) -> list[Event]:
        pace = cmd.details.get("pace")
        if pace is None:
            raise BadInput("move needs --pace PACE (e.g. walk, run), with --penalty N from the movement table")
        if cmd.ap is not None:
            raise BadInput("movement costs no AP here: its pace penalty applies to the round's other actions")
        if f.out:
            raise RuleViolation(f"{f.name} failed an Orientation Maneuver: no more actions this round", R_CANCEL)
        if f.pace_count == (state.round, count):
            raise RuleViolation(f"{f.name} already changed pace at count {count}: 1 pace change per tick", R_ACTIONS)
        penalty = detail_int(cmd, "penalty")  # none given: 0
        if penalty > 0:
            raise BadInput(f"a pace penalty is 0 or less, not {penalty}")
        return [PaceChanged(who=f.name, pace=pace.lower(), penalty=penalty, count=count)]

    def _parry(self, state: ApState, f: Fighter, cmd: Declare) -> list[Event]:
        if cmd.amount is None or cmd.amount < 1:
            raise BadInput("parry needs --amount N, the bonus moved from attack to defence")
        if f.parry is not None:
            raise RuleViolation(f"{f.name} has announced a parry this round already", R_PARRY)
        # "at the beginning of the round, or as soon as melee ensues" (Parry): before its
        # first action, or once a melee attack involving it is under way.
        attackers = [o.name for o in state.fighters.values()
                     if o.action is not None and o.action.name == MELEE and o.action.target == f.name]
        in_melee = bool(attackers) or (f.action is not None and f.action.name == MELEE)
        if f.declared_this_round and not in_melee:
            raise RuleViolation(
                f"{f.name}'s parry had to be announced at the beginning of the round, or as soon as melee "
                f"ensues: no melee attack involves {f.name} now", R_PARRY,
            )
        if cmd.target is not None:
            against: str | None = find_name(state.names(), cmd.target)
        else:
            against = attackers[0] if f.declared_this_round and len(attackers) == 1 else None
        return [ParryDeclared(who=f.name, amount=cmd.amount, against=against)]

    @decides(Resolve)
    def _resolve(self, state: ApState, cmd: Resolve, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), cmd.who))
        a = f.action
        if a is None:
            raise RuleViolation(f"{f.name} has no action under way to resolve", R_RES)
        self.check_able(state, f)
        if a.step == "ready":
            count = state.count  # the trigger happened now, on anyone's count, any round
        else:
            self.need_round(state)
            count = state.count
            assert count is not None
            if a.step == "readies":
                raise RuleViolation(
                    f"{f.name}'s held {a.name} is ready at count {a.resolves_at}, not yet", R_HELD
                )
            if a.step == "progresses":
                raise RuleViolation(
                    f"{f.name}'s {a.name} has {a.cost - a.progress} AP to go: it completes in a later round",
                    R_R2R,
                )
            if a.resolves_at is not None and count > a.resolves_at:
                raise RuleViolation(
                    f"{f.name}'s {a.name} resolves at {a.resolves_at}; the count is {count}", R_RES
                )
        events: list[Event] = []
        target = state.fighter(a.target) if a.target else None
        if cmd.hits is not None and target is None:
            raise BadInput(f"--hits needs a target: {f.name}'s {a.name} was declared without --target")
        charge_speed = _flag_int(cmd, "charge")
        if charge_speed is not None and a.name != MELEE:
            raise RuleViolation(f"only a melee attack can be a charge, not {a.name}", R_CHARGE)
        if a.name == MELEE and target is not None and target.parry is not None and not target.parry_used:
            if target.parry_against in (None, f.name):
                ta = target.action
                paid = ta.cost if ta is not None and ta.name == MELEE and not ta.paid else 0
                owes = ta is None or ta.name != MELEE
                events.append(ParryUsed(who=target.name, against=f.name, paid=paid, owes_melee=owes))
        charge = _charge(charge_speed) if charge_speed is not None else None
        paid = 0 if a.paid else a.cost - a.progress
        events.append(ActionResolved(
            who=f.name, action=a.name, paid=paid, count=count, outcome=cmd.outcome,
            target=a.target, charge=charge, critical_bonus=_charge_critical(charge_speed),
            penalty=_penalty_now(state, f, a),
        ))
        if cmd.hits is not None and target is not None:
            if cmd.hits < 0:
                raise BadInput(f"--hits must be 0 or more, not {cmd.hits}")
            if charge is not None:
                amount = Derivation(cmd.hits * charge.value, "hits x charge multiplier",
                                    (Term("hits", cmd.hits), Term("multiplier", charge.value)), R_CHARGE)
            else:
                amount = Derivation(cmd.hits, f"hits of {f.name}'s {a.name}", rule=R_RES)
            events += _damage(state, target, amount, self.down(state, target))
        if a.name == "first-aid" and target is not None and _bleeding(target) > 0:
            events.append(BleedingStaunched(who=target.name, by=f.name, per_round=_bleeding(target) - 1))
        return events

    @decides(Cancel)
    def _cancel(self, state: ApState, cmd: Cancel, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), cmd.who))
        a = f.action
        if a is None:
            raise RuleViolation(f"{f.name} has no action under way to cancel", R_CANCEL)
        if a.paid and a.name == MELEE and f.parry_used:
            raise RuleViolation(f"{f.name} used a parry: the melee attack's AP are spent", R_PARRY)
        delay, out = 0, False
        orientation = cmd.details.get("orientation")
        if orientation is not None:
            result = orientation.lower()
            if result not in ORIENTATION:
                raise BadInput(f"an Orientation Maneuver is {', '.join(ORIENTATION)}, not {orientation!r}")
            value = ORIENTATION[result]
            out = value is None
            delay = value or 0
        return [ActionCancelled(
            who=f.name, action=a.name, reason="cancelled", orientation=orientation, delay=delay, out=out,
        )]

    @decides(ApplyEffect)
    def _effect(self, state: ApState, cmd: ApplyEffect, dice: Dice) -> list[Event]:
        kind = cmd.kind.lower()
        if cmd.who.lower() == "scene":
            existing = next((c for c in state.counters if c.name == kind), None)
            if cmd.end:
                if existing is None:
                    raise RuleViolation(f"the scene has no counter {kind!r}")
                return [CounterSet(name=kind, value=existing.value, per_round=existing.per_round, ended=True)]
            if cmd.per_round is None:
                raise BadInput(f"an environmental counter needs --per-round N (how much {kind} advances each upkeep)")
            given = _flag_int(cmd, "start")
            start = given if given is not None else (existing.value if existing else 0)
            return [CounterSet(name=kind, value=start, per_round=cmd.per_round)]
        f = state.fighter(find_name(state.names(), cmd.who))
        if cmd.end:
            if kind == BLEEDING and _bleeding(f) > 0:
                return [BleedingStaunched(who=f.name, by="the GM", per_round=0)]
            if not any(e.kind == kind for e in f.effects):
                raise RuleViolation(f"{f.name} has no {kind} effect to end")
            return [EffectEnded(who=f.name, kind=kind, reason="ended by the GM")]
        if "start" in cmd.details:
            raise BadInput("--start goes with scene counters only")
        if kind == BLEEDING:
            if cmd.per_round is None or cmd.per_round < 1:
                raise BadInput("bleeding needs --per-round N, the hits lost each upkeep")
            if cmd.rounds is not None:
                raise BadInput("bleeding lasts until staunched: no --rounds")
            return [EffectApplied(who=f.name, kind=kind, per_round=cmd.per_round)]
        if cmd.per_round is not None:
            raise BadInput(f"--per-round goes with bleeding and scene counters, not {kind}")
        if state.in_round:
            spent = Derivation(f.spent, "AP spent this round before the effect", rule=R_UPKEEP)
        else:
            # Between rounds the last round's upkeep is done: the next upkeep is the new
            # round's, before which nothing has been spent yet (Upkeep).
            spent = Derivation(0, "applied between rounds: no AP spent yet this round", rule=R_UPKEEP)
        if kind == STAGGER:
            if cmd.rounds is not None:
                raise BadInput("staggered has no duration: upkeep removes it")
            return [EffectApplied(who=f.name, kind=kind, spent_before=spent)]
        if cmd.rounds is None or cmd.rounds < 1:
            raise BadInput(f"{kind} needs --rounds N (1 or more)")
        return [EffectApplied(
            who=f.name, kind=kind, rounds=cmd.rounds, spent_before=spent if kind in STUNS else None,
            custom=cmd.custom,
        )]

    def _upkeep(self, state: ApState) -> list[Event]:
        events: list[Event] = []
        for f in state.fighters.values():
            a = f.action
            if a is not None and a.step == "resolves":
                raise RuleViolation(
                    f"{f.name}'s {a.name} is still to resolve at {a.resolves_at}: resolve or cancel it before the upkeep",
                    R_UPKEEP,
                )
            if a is not None and a.step in ("progresses", "readies") and a.resolves_at is not None:
                events.append(_arrive(f, a))
        ticks: list[Event] = []
        for f in state.fighters.values():
            bleed = _bleeding(f)
            if bleed:
                ticks.append(UpkeepTick(step="bleeding", who=f.name, effect=BLEEDING, change=-bleed,
                                        reason=f"bleeding {bleed} a round"))
        for f in state.fighters.values():
            for e in f.effects:
                if e.kind in STUNS or e.kind == STAGGER or e.rounds is None:
                    continue
                left = e.rounds - 1
                ticks.append(UpkeepTick(step="timed", who=f.name, effect=e.kind, change=-1, serial=e.serial,
                                        rounds_left=left, removed=left <= 0))
        for f in state.fighters.values():
            stuns = [e for e in f.effects if e.kind in STUNS]
            if not stuns:
                continue
            worst = f.effects[_worst_stun(f.effects)]
            assert worst.rounds is not None
            if worst.fresh and worst.spent_before >= LATE_EFFECT_AP:
                ticks.append(UpkeepTick(
                    step="stun", who=f.name, effect=worst.kind, rounds_left=worst.rounds, serial=worst.serial,
                    reason=f"not reduced: {f.name} had spent {worst.spent_before} AP before being stunned",
                ))
            else:
                left = worst.rounds - 1
                ticks.append(UpkeepTick(step="stun", who=f.name, effect=worst.kind, change=-1,
                                        serial=worst.serial, rounds_left=left, removed=left <= 0))
        for f in state.fighters.values():
            for e in f.effects:
                if e.kind != STAGGER:
                    continue
                if e.fresh and e.spent_before >= LATE_EFFECT_AP:
                    ticks.append(UpkeepTick(
                        step="stagger", who=f.name, effect=STAGGER, serial=e.serial,
                        reason=f"stays: {f.name} had spent {e.spent_before} AP before being staggered",
                    ))
                else:
                    ticks.append(UpkeepTick(step="stagger", who=f.name, effect=STAGGER, serial=e.serial, removed=True))
        for c in state.counters:
            ticks.append(UpkeepTick(step="environment", who="scene", effect=c.name, change=c.per_round,
                                    reason=f"{c.name} {c.value} -> {c.value + c.per_round}"))
        # AP paid by arriving shares and readied holds are spent, not lost; the rest are.
        paid_now = {e.who: e.paid for e in events if isinstance(e, (ActionProgressed, ActionReadied))}
        lost = {
            f.name: f.ap - paid_now.get(f.name, 0) for f in state.fighters.values()
            if f.ap - paid_now.get(f.name, 0) > 0 and f.base is not None and state.options["carry-ap"] == "no"
        }
        return [*events, *ticks, RoundEnded(round=state.round, ap_lost=lost)]

    # --- view and narration ----------------------------------------------------------------

    def __init__(self) -> None:
        # The view's row of each combatant as last built, by name: (a copy of the fighter
        # it was built from, its action included; its status, whether it acts, the row,
        # its pending action). The fold changes a fighter in place, so the row is kept
        # with a copy, compared field by field, not with the object (ApState): while the
        # fighter equals it, and the status and turn to act are as they were, the row is
        # the same, and a replay builds the rows of the one or two fighters an event
        # changed, not of all of them.
        self._rows: dict[str, tuple[Fighter, Status, bool, Combatant, Pending | None]] = {}
        # The glance's row of each combatant, by name, with the goes-down reading and the
        # figures of the row it was built from: a row follows from those alone, so a
        # fighter whose row's figures are as they were (a declaration, a pace) keeps its
        # row (the same object).
        self._glanced: dict[str, tuple[str | None, tuple[Any, ...], Combatant]] = {}
        # The last glance: the state it read (the replay's working copy, changed in place
        # by the next event), the goes-down reading, its rows, each fighter's place among
        # them, its clock and the figures it was built from, and the glance itself.
        self._last_glance: tuple[
            ApState, str | None, tuple[Combatant, ...], dict[str, int], Clock, tuple[int, bool, int | None], Glance,
        ] | None = None

    def view(self, state: ApState) -> View:
        count = state.count
        fighters = list(state.fighters.values())
        down = {f.name: self.down(state, f) for f in fighters}
        ranked = _ranked(fighters, down)
        may = {f.name for f in fighters if _may_declare(f, down[f.name])} if state.in_round else set()
        now = _acting_at(state, count, waiting=True, may=may) if state.in_round and count is not None else ()
        upcoming = _next_count(state, may) if state.in_round else None
        following = _acting_at(state, upcoming, waiting=False, may=may) if upcoming is not None else ()
        combatants = []
        pending = []
        rows = self._rows
        for f in ranked:
            status: Status = "left" if f.left else "down" if down[f.name] else "out" if f.out else "fighting"
            acting = f.name in now
            row = rows.get(f.name)
            if row is None or row[0] != f or row[1] != status or row[2] != acting:
                row = rows[f.name] = (replace(f), status, acting, _combatant(f, status, acting), _pending(f))
            combatants.append(row[3])
            if row[4] is not None:
                pending.append(row[4])
        clock = Clock(round=state.round, running=state.in_round, moment=_moment(state), now=now, next=following,
                      own=ApClock(count=count))
        return View(
            clock=clock, combatants=tuple(combatants), pending=tuple(pending),
            own=ApScene(environment=state.counters),
        )

    def glance(self, state: ApState, event: Event | None = None) -> Glance:
        # The view's rows without its acting order, who acts now and next. After an event
        # that changes the one fighter it names, or none (most of a fight: _CHANGES), of the
        # same state as the last glance, that fighter's row alone is read again, the others
        # kept; else every fighter's. A row whose figures are as they were stays the same
        # object (_glance_row), and so does the tuple of rows: the replay skips them.
        rule = state.options.get(GOES_DOWN)
        fighters = state.fighters
        last = self._last_glance
        combatants: tuple[Combatant, ...] | None = None
        places: dict[str, int] = {}
        if last is not None and last[0] is state and last[1] == rule and event is not None:
            # The last glance's rows after the one event since: the fighter it names read
            # again, or none; a kind of event not in _CHANGES may change any.
            field = _CHANGES.get(type(event))
            places = last[3]
            if field is not None and len(fighters) == len(places):
                if not field:
                    combatants = last[2]
                else:
                    name = getattr(event, field)
                    place, f = places.get(name), fighters.get(name)
                    if place is not None and f is not None:
                        combatants = last[2]
                        row = self._glance_row(state, f, rule)
                        if row is not combatants[place]:  # else its figures are as they were
                            rows = list(combatants)
                            rows[place] = row
                            combatants = tuple(rows)
                    elif place is None and f is None:  # no fighter of that name (an environment tick's "scene")
                        combatants = last[2]
        if combatants is None:
            combatants = tuple([self._glance_row(state, f, rule) for f in fighters.values()])
            if last is not None and len(combatants) == len(last[2]) and all(map(is_, combatants, last[2])):
                combatants, places = last[2], last[3]  # the same rows, the same fighters in the same places
            else:
                places = {name: i for i, name in enumerate(fighters)}
        when = (state.round, state.in_round, state.count)  # all the clock's figures follow from
        if last is not None and last[5] == when:
            clock = last[4]
        else:
            clock = Clock(round=state.round, running=state.in_round, moment=_moment(state),
                          own=ApClock(count=state.count))
        if last is not None and combatants is last[2] and clock is last[4]:
            glance = last[6]  # the same glance: the replay takes it as the one before, all of it
        else:
            glance = Glance(clock=clock, combatants=combatants, ordered=False)
        self._last_glance = (state, rule, combatants, places, clock, when, glance)
        return glance

    def acting_order(self, state: ApState) -> tuple[str, ...]:
        fighters = list(state.fighters.values())
        return tuple(f.name for f in _ranked(fighters, {f.name: self.down(state, f) for f in fighters}))

    def _glance_row(self, state: ApState, f: Fighter, rule: str | None) -> Combatant:
        row = self._glanced.get(f.name)
        figures = _ROW_FIGURES(f)
        if row is not None and row[1] == figures and row[0] == rule:  # a declaration, a pace: the same row
            return row[2]
        status: Status = "left" if f.left else "down" if self.down(state, f) else "out" if f.out else "fighting"
        row = self._glanced[f.name] = (rule, figures, _combatant(f, status, False))
        return row[2]

    def harm(self, event: Event) -> Harm | None:
        # Damage is counted in hits (ap-countdown.md, Resolution); bleeding loses hits at
        # the Upkeep, dealt by no one at that moment.
        match event:
            case DamageTaken(who=who, hits=hits):
                return Harm(who=who, amount=hits.value, unit="hits")
            case HitsHealed(who=who, hits=hits):
                return Harm(who=who, amount=hits.value, unit="hits", heal=True)
            case UpkeepTick(step="bleeding", who=who, change=change) if change < 0:
                return Harm(who=who, amount=-change, unit="hits")
        return None

    def describe(self, event: Event) -> str:
        # Each kind of event told by its own function, found by its type (a long fight's
        # events are most of all count steps, declarations, resolutions, damage and upkeep
        # ticks: a match would try its cases one by one).
        say = _SAYS.get(type(event))
        if say is not None:
            return say(event)
        for kind, told in _SAYS.items():  # a kind of one of these events: told as that one
            if kind is not UpkeepTick and isinstance(event, kind):
                return told(event)
        return type(event).__name__


# --- helpers -------------------------------------------------------------------------------


def _ranked(fighters: list[Fighter], down: dict[str, bool]) -> list[Fighter]:
    """The view's acting order (Initiative): highest actual initiative first; those without
    one (joined since the round's roll) after, in the order they were added; those who
    cannot act (down, left) last. ``down``: whether each is down, by name."""
    return sorted(fighters, key=lambda f: (f.left or down[f.name], f.initiative is None, -(f.initiative or 0)))


def _moment(state: ApState) -> str:
    if state.in_round:
        return f"count {state.count}"
    return "before the first round" if state.round == 0 else f"after round {state.round}"


def _may_declare(f: Fighter, down: bool) -> bool:
    """Whether the fighter may declare an action this round; ``down``: whether it is down."""
    return not (f.out or f.left or f.ap <= 0 or f.base is None or down)


def _next_count(state: ApState, may: AbstractSet[str]) -> int | None:
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


def _acting_at(state: ApState, count: int, waiting: bool, may: AbstractSet[str]) -> tuple[str, ...]:
    """Who acts at ``count``: actions resolving or arriving there, and those who may
    declare there (with ``waiting``, also those whose initiative passed and who have not
    declared: waiting is allowed). ``may`` as for :func:`_next_count`."""
    names = []
    for f in state.fighters.values():
        a = f.action
        if a is not None and a.step != "ready":
            if a.resolves_at == count:
                names.append(f.name)
        elif f.name in may and f.initiative is not None and (
            f.initiative == count or (waiting and f.initiative > count)
        ):
            names.append(f.name)
    return tuple(names)


# The fighter each kind of event may change, by the field of the event naming it, or ""
# for none: each applier above changes ``state.fighters[event.who]`` alone, or no fighter
# (the count, the scene's counters); an upkeep tick changes its ``who``, an environment
# tick (who "scene") none. A kind not here may change any fighter and the glance reads
# them all: a round's start and end (every fighter), and the core events (a combatant
# added, carried, leaving, back, renamed, its stats set). tests/rulesets/test_ap_countdown_fold.py
# holds every fighter an event does not name here to what it was before, event by event.
_CHANGES: dict[type[Event], str] = {
    ClockAdvanced: "", CounterSet: "",
    ActionDeclared: "who", ActionProgressed: "who", ActionReadied: "who", ActionResolved: "who",
    ActionCancelled: "who", ActionContinued: "who", PaceChanged: "who", ParryDeclared: "who", ParryUsed: "who",
    DamageTaken: "who", HitsHealed: "who", EffectApplied: "who", EffectEnded: "who", BleedingStaunched: "who",
    UpkeepTick: "who",
}


# Every field of a fighter that its row reads (_combatant, and its status: left, out and
# the goes-down reading of hits - damage): two fighters alike in these have the same row.
_ROW_FIGURES = attrgetter(
    "name", "side", "hits", "damage", "ap", "had", "spent", "effects", "base", "delay", "pace", "out", "parry", "left")


def _combatant(f: Fighter, status: Status, acting: bool) -> Combatant:
    """A fighter's row of the view: all of it read off the fighter but its status and turn."""
    return Combatant(
        name=f.name, side=f.side, status=status, acting=acting,
        vital=Gauge(name="hits left", value=f.hits - f.damage, maximum=f.hits),
        budget=Budget(name="AP", left=f.ap, of=f.had if f.had is not None else f.ap + f.spent),
        effects=tuple(
            Shown(kind=e.kind, left=e.rounds, detail=f"{e.per_round} a round" if e.per_round else "", custom=e.custom)
            for e in f.effects
        ) if f.effects else (),
        own=ApFigures(
            initiative=f.initiative, base_initiative=f.base, ap=f.ap, ap_spent=f.spent, hits=f.hits,
            damage=f.damage, pace=f.pace, delay=f.delay, out_of_round=f.out, parry=f.parry,
        ),
    )


def _pending(f: Fighter) -> Pending | None:
    a = f.action
    if a is None:
        return None
    return Pending(
        who=f.name, action=a.name, target=a.target, resolves=_resolves(a),
        own=ApPending(ap=a.cost, resolves_at=a.resolves_at, step=a.step, trigger=a.trigger, progress=a.progress,
                      penalty=a.penalty),
    )


def _resolves(a: Action) -> str:
    if a.step == "resolves":
        return f"count {a.resolves_at}"
    if a.step == "readies":
        return f"ready at count {a.resolves_at}, then held until: {a.trigger}"
    if a.step == "ready":
        return f"held until: {a.trigger}"
    share = f"this round's share at count {a.resolves_at}" if a.resolves_at is not None else "a later round"
    return f"{a.progress} of {a.cost} AP; {share}"


def _base_initiative(f: Fighter, roll: Roll) -> Derivation:
    penalty_steps = -((-f.penalty) // 10)
    terms = (Term("2d10", roll.total), Term("Qu", f.qu), Term("1 per -10 penalty", penalty_steps))
    value = roll.total + f.qu + penalty_steps
    return Derivation(value, "2d10 + Qu - 1 per -10 penalty", terms, R_INIT, roll)


def _cost(f: Fighter, action: str, ap: int | None, low: int, high: int | None) -> Derivation:
    if low == high == 0:
        if ap is not None:
            raise BadInput(f"{action} is instantaneous: no --ap")
        cost = 0 if f.instants == 0 else 1
        why = "first instantaneous action of the round is free" if cost == 0 else "each further instantaneous action costs 1 AP"
        return Derivation(cost, why, (Term("instantaneous actions before", f.instants),), R_INSTANT)
    if ap is None:
        ap = high if high is not None else low
    if ap < low or (high is not None and ap > high):
        span = f"{low}-{high}" if high != low else str(low)
        span = f"{low}+" if high is None else span
        raise RuleViolation(f"{action} costs {span} AP, not {ap}", R_ACTIONS)
    return Derivation(ap, f"{action} at {ap} AP", rule=R_ACTIONS)


def _penalty(f: Fighter, action: str, cost: int, high: int | None) -> Derivation:
    terms = []
    if high is not None and cost < high:
        terms.append(Term(f"{high - cost} AP under the maximum", RANGE_PENALTY_PER_AP * (high - cost)))
    if f.pace_penalty:
        terms.append(Term(f"{f.pace} pace", f.pace_penalty))
    value = sum(t.value for t in terms)
    return Derivation(value, "-25 per AP under the maximum + pace penalty", tuple(terms), R_ACTIONS)


def _penalty_now(state: ApState, f: Fighter, a: Action) -> Derivation | None:
    """The action's penalty worked out again when it resolves at a harder pace than it was
    declared at (Movement: the pace's penalty "applies to all other actions performed in
    the round"); None when it stands as declared."""
    if state.options.get("pace-penalty", "worst") != "worst" or f.pace_penalty >= a.pace_penalty:
        return None
    own = a.penalty - a.pace_penalty
    terms = (Term("declared without its pace", own), Term(f"{f.pace} pace at resolution", f.pace_penalty))
    return Derivation(own + f.pace_penalty, "declared penalty, with the harder pace it is performed at",
                      terms, R_MOVE)


def _continue(a: Action, who: str, top: int, ap: int) -> ActionContinued:
    remaining = a.cost - a.progress
    if remaining <= ap:
        at = Derivation(top - COUNT_PER_AP * remaining, "initiative - 5 x AP still to pay",
                        (Term("initiative", top), Term("5 x AP to go", -COUNT_PER_AP * remaining)), R_R2R)
        return ActionContinued(who=who, action=a.name, step="resolves", at=at)
    at = Derivation(top - COUNT_PER_AP * ap, "initiative - 5 x AP (the whole round)",
                    (Term("initiative", top), Term("5 x AP", -COUNT_PER_AP * ap)), R_R2R)
    return ActionContinued(who=who, action=a.name, step="progresses", at=at)


def _round_to_round(a: Action) -> bool:
    """An action spanning rounds (Round to Round Actions): more than 4 AP, and more than
    the AP held when it was declared (its first share still to come, or some paid)."""
    return a.cost > AP_PER_ROUND and (a.step == "progresses" or a.progress > 0)


def _arrive(f: Fighter, a: Action) -> Event:
    """A share of a round-to-round action, or a held action's readying, reaches its count."""
    if a.step == "readies":
        assert a.trigger is not None
        # A held melee attack whose AP a used parry already spent is not paid twice (Parry).
        return ActionReadied(who=f.name, action=a.name, paid=0 if a.paid else a.cost, trigger=a.trigger)
    paid = min(f.ap, a.cost - a.progress)  # never more than it still needs
    return ActionProgressed(who=f.name, action=a.name, paid=paid, progress=a.progress + paid, cost=a.cost)


def _damage(state: ApState, f: Fighter, amount: Derivation, was_down: bool) -> list[Event]:
    """The hits taken; a hit that puts the combatant down (``was_down``: it already was)
    ends its action under way."""
    left = f.hits - f.damage - amount.value
    events: list[Event] = [DamageTaken(who=f.name, hits=amount, hits_left=left)]
    if f.action is not None and is_down(left, state.options) and not was_down:
        rule = state.options.get(GOES_DOWN, GOES_DOWN_OPTION.default)
        events.append(ActionCancelled(
            who=f.name, action=f.action.name, reason=f"ends: {f.name} is down ({left} hits left, option {GOES_DOWN}={rule})",
        ))
    return events


def _flag_int(cmd: AtTheTable, key: str) -> int | None:
    """A number flag of this ruleset's own, as it travels in ``details``; None: not given."""
    return detail_int(cmd, key) if key in cmd.details else None


def _charge(speed: int | None) -> Derivation:
    assert speed is not None
    if speed < 0:
        raise BadInput(f"a relative speed is 0 m/s or more, not {speed}")
    for least, times, _ in CHARGE:
        if speed >= least:
            return Derivation(times, f"charge at {speed} m/s (at least {least} m/s)",
                              (Term("relative speed m/s", speed),), R_CHARGE)
    return Derivation(1, f"charge at {speed} m/s: under 3 m/s, no bonus", (Term("relative speed m/s", speed),), R_CHARGE)


def _charge_critical(speed: int | None) -> int:
    if speed is None:
        return 0
    return next((crit for least, _, crit in CHARGE if speed >= least), 0)



def _new_round(f: Fighter) -> None:
    """A fighter's figures of the round back to a round's start: each written only where it
    is not already reset (writing a Struct's field costs about ten times reading it, and a
    round start comes to every fighter)."""
    if f.spent:
        f.spent = 0
    if f.instants:
        f.instants = 0
    if f.delay:
        f.delay = 0
    if f.out:
        f.out = False
    if f.parry is not None:
        f.parry = None
    if f.parry_against is not None:
        f.parry_against = None
    if f.parry_used:
        f.parry_used = False
    if f.parry_owes_melee:
        f.parry_owes_melee = False
    if f.declared_this_round:
        f.declared_this_round = False

def _bleeding(f: Fighter) -> int:
    return sum(e.per_round for e in f.effects if e.kind == BLEEDING)


def _bleed(f: Fighter, change: int) -> None:
    """Change the fighter's bleeding by ``change`` hits a round, in place (an applier's)."""
    total = _bleeding(f) + change
    others = tuple(e for e in f.effects if e.kind != BLEEDING)
    # Bleeding is one running total, never ticked by serial: it keeps serial -1.
    f.effects = others + ((Effect(BLEEDING, per_round=total, serial=-1),) if total > 0 else ())


def _without(effects: tuple[Effect, ...], kind: str) -> tuple[Effect, ...]:
    for i, e in enumerate(effects):
        if e.kind == kind:
            return effects[:i] + effects[i + 1:]
    return effects


def _worst_stun(effects: tuple[Effect, ...]) -> int:
    """Index of the stun upkeep reduces: the most severe, the earliest applied among equals."""
    stuns = [i for i, e in enumerate(effects) if e.kind in STUNS]
    return max(stuns, key=lambda i: (STUNS[effects[i].kind], -i))


RULESET: Ruleset[ApState] = ApCountdown()
