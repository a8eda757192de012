"""The percent-activity ruleset: ten-second rounds, 100 % activity a round, turns high to low.

Rules text: shared/rules/percent-activity.md (cited below by section). Each round rolls
initiative anew, 2d10 + Quickness bonus + the table's modifiers (Initiative Step), and
orders the combatants from highest to lowest. The clock is whose turn it is: in its turn
a combatant declares actions, each taking a share of its 100 % activity (Resolve Actions
step), and the GM resolves them; ``next`` passes the turn, and after the last turn runs
the upkeep (Upkeep step).

Open points of the text, each an option recorded in the encounter's first event:

- ``instant-cost`` (default ``10``): Instantaneous actions says the first one of a round
  is free and each further one "takes 1 AP", a unit this system does not have. ``10``
  charges 10 % each: the smallest share any action of the activity table takes
  (Movement, Perception Roll, Simple Actions), and close to the time one AP stands for
  where the text comes from (a quarter of a 5 s round). ``1`` reads "AP" as "%";
  ``25`` reads it as a quarter of the round's activity.

Readings chosen where the text is silent, documented here and in the README:

- One melee attack a round: the table's row "Melee Attack/Parry" leaves open whether a
  parry counts as that one melee action. It never matters: both take at least 60 %, so
  no round holds a parry and a melee attack. Only melee attacks are counted. (For the
  same reason the budget alone forbids a second melee attack; the one-a-round rule is
  checked first, so the refusal names it.)
- "Wounded (taken more than 50% of hits)" needs the combatant's maximum hits: the stat
  ``hits``. The modifier is derived from the damage recorded when initiative is rolled
  (damage x 2 > hits), never typed; damage taken during a round counts from the next.
- Weapon ready (+4) is given as ``round --with ready=NAME,NAME`` and is refused after
  round 1 (first round of combat only); surprised (-4) as ``round --with
  surprised=NAME,...`` for the round being started; encumbered (-4) is a condition,
  ``effect NAME encumbered``, in force until ended with ``--end``.
- Initiative ties: the higher Quickness bonus goes first, then the combatant added first.
- A combatant's turn holds all its actions of the round (up to 100 %); it may declare
  only in its own turn. A held (conditional) action may be resolved at any moment of the
  round, interrupting whoever is acting.
- The activity of an action is spent when it is declared: cancelling it refunds nothing.
  A range action declared without ``--percent`` takes the range's maximum (no penalty);
  an action with only a minimum (Movement, Static Maneuver) takes that minimum.
- Movement is done as it is declared (no resolve) and interrupts nothing: it may be
  combined with a round-to-round or a held action (Round to Round Actions). Any other
  declaration breaks a held action's concentration and a round-to-round action's
  continuity: they are cancelled, their activity lost.
- A round-to-round action is one of more than 100 % (a Static Maneuver over 100 %). It
  takes, at each upkeep, the activity its combatant has left that round (movement
  declared beside it comes off that share); when what remains fits in a round, the next
  round's start sets that much aside and the action is due in its combatant's turn,
  leaving the rest of the 100 % for other actions. An action of 100 % or less must fit
  in the activity left this round.
- A held action must fit in this round's activity; if it is not triggered by the upkeep
  it is lost (Conditional Action), its activity spent.
- Upkeep also ticks any other effect given with ``--rounds`` (one round each upkeep), as
  the Round section's "any ongoing effects" asks; each stun effect level is its own
  effect, and only the most severe one loses a round per upkeep.

- ``goes-down`` (default ``at-0``; an option, as the text never says when a combatant
  is down): at 0 hits left or less (``below-0``: below 0; ``never``: the GM takes
  combatants out with ``leave``) a combatant is down: it rolls no initiative, its turn is
  passed by, its declarations are refused, and the hit that downs it ends its action
  under way. ``heal`` (never above its hits) brings it back, from the next round if this
  one's order was rolled without it, else at its turn.
- ``leave`` ends the leaver's action under way; the one who returns acts from its turn
  (or the next round, if it left before this round's roll).
- Effects: the Upkeep's (bleeding, the stuns, staggered) and encumbered; any other timed
  effect (a spell) is the GM's own (``--custom``).

The view (projections/view.py): the clock's moment is whose turn it is ("Hauser's
turn"), "between rounds", or "before round 1"; ``now`` is the combatant whose turn it
is (a held action may still go off in anyone's turn), ``next`` the next one in this
round's order who can act, none after the last turn. Combatants are listed in this
round's order, those added since after them, those who cannot act (down, left) last.
Status: ``left``, ``down`` (goes-down), else ``fighting``.
"""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (README: Speed).

from shlex import quote
from typing import Literal

import msgspec

from skirmish.eventlog.commands import (
    AtTheTable,
    CarriedEffect,
    ApplyEffect,
    Cancel,
    Damage,
    Declare,
    Heal,
    Leave,
    Next,
    Resolve,
    StartRound,
    Upkeep,
)
from skirmish.eventlog.errors import BadInput, RuleViolation
from skirmish.eventlog.events import CombatantAdded, CombatantCarried, Derivation, EncounterStarted, Event, Term
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
    why_down,
)
from skirmish.projections.view import Budget, Clock, Combatant, Gauge, NoOwn, Own, Pending, View
from skirmish.projections.view import Effect as EffectRow

RULES = "percent-activity.md"
R_ROUND = f"{RULES}, Round"
R_INIT = f"{RULES}, Initiative Step"
R_ACTIONS = f"{RULES}, Resolve Actions step"
R_UPKEEP = f"{RULES}, Upkeep step"
R_HELD = f"{RULES}, Conditional Action"
R_INSTANT = f"{RULES}, Instantaneous actions"
R_R2R = f"{RULES}, Round to Round Actions"

ACTIVITY = 100  # % a round (Resolve Actions step)
CONDITION = 4  # each initiative modifier of the table is 4 either way (Initiative Step)

# Activity table (Resolve Actions step): name -> (least %, most %; None = a minimum only).
ACTIONS: dict[str, tuple[int, int | None]] = {
    "move": (10, None),
    "melee-attack": (60, 100),
    "parry": (60, 100),
    "ranged-attack": (30, 60),
    "dodge": (50, 100),
    "ammo-reload": (60, 60),
    "draw": (20, 20),
    "change-weapons": (50, 50),
    "perception": (10, 30),
    "static-maneuver": (100, None),
    "simple-action": (10, 30),
    "complex-action": (20, 100),
}
INSTANT = "instantaneous"
MOVE = "move"
MELEE = "melee-attack"

# Stun effects from most to least severe (Upkeep step).
STUNS = {"stunned-unable-to-parry": 3, "stunned": 2, "dazed": 1}
STAGGER = "staggered"
BLEEDING = "bleeding"
ENCUMBERED = "encumbered"
# Initiative conditions typed on `round`, not kept as effects (Initiative Step).
ROUND_CONDITIONS = {"ready": "weapon ready", "surprised": "surprised"}

Step = Literal["resolves", "held", "progresses", "done"]


# --- state -------------------------------------------------------------------------------
# Mutable: the fold applies each event in place on a working copy (STYLE 7; the engine
# copies a state before it is changed where the old one is still wanted).


class Effect(msgspec.Struct):
    kind: str
    per_round: int = 0
    rounds: int | None = None
    serial: int = 0  # which of the combatant's effects this is, in order of application


class Action(msgspec.Struct):
    name: str
    cost: int
    step: Step
    penalty: int = 0
    target: str | None = None
    trigger: str | None = None
    progress: int = 0  # % put into a round-to-round action at past upkeeps


class Fighter(msgspec.Struct):
    name: str
    side: str
    qu: int
    hits: int
    damage: int = 0
    initiative: int | None = None
    used: int = 0
    melee: int = 0
    instants: int = 0
    action: Action | None = None
    # Serial -> effect, in order of application: an upkeep tick finds its effect at once.
    effects: dict[int, Effect] = {}
    effects_applied: int = 0
    left: bool = False  # has left the fight (`leave`); back with `return`

    @property
    def wounded(self) -> bool:
        # "taken more than 50% of hits" (Initiative Step)
        return 2 * self.damage > self.hits


class PaState(msgspec.Struct):
    options: dict[str, str]
    seed: int
    round: int = 0
    in_round: bool = False
    order: tuple[str, ...] = ()
    turn: int = 0
    fighters: dict[str, Fighter] = {}  # by name, in the order they were added

    def names(self) -> list[str]:
        return list(self.fighters)

    def fighter(self, name: str) -> Fighter:
        return self.fighters[name]

    def acting(self) -> str | None:
        return self.order[self.turn] if self.in_round and self.turn < len(self.order) else None


# The view's own parts: today's keys that the core of the view (projections/view.py) does
# not hold already (hits and hits left are the vital Gauge, activity left the Budget).


class PaClock(Own, frozen=True, kw_only=True):
    order: tuple[str, ...] = ()  # this round's turns, high to low (Round)


class PaFigures(Own, frozen=True, kw_only=True):
    initiative: int | None = None
    activity_used: int = 0
    melee_attacks: int = 0
    instantaneous_actions: int = 0
    damage: int = 0
    wounded: bool = False


class PaPending(Own, frozen=True, kw_only=True):
    percent: int
    step: Step
    penalty: int = 0
    trigger: str | None = None
    progress: int = 0


# --- events ------------------------------------------------------------------------------


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


def _flag_int(cmd: AtTheTable, key: str) -> int | None:
    """A number flag of this ruleset's own, as it travels in ``details``; None: not given."""
    return detail_int(cmd, key) if key in cmd.details else None


def _span(low: int, high: int | None) -> str:
    return f"{low}+ %" if high is None else f"{low} %" if low == high else f"{low}-{high} %"


# --- the ruleset ---------------------------------------------------------------------------


class PercentActivity(GoesDown, Rules[PaState]):
    state_type = PaState
    id = "percent-activity"
    rules_file = RULES
    vital = "hits"
    round_rule = R_ROUND
    options = {
        "instant-cost": Option(
            "10", ("1", "10", "25"),
            "activity % each instantaneous action after the round's first takes (Instantaneous actions)",
        ),
        GOES_DOWN: GOES_DOWN_OPTION,
    }
    stats = {
        "qu": Stat("Quickness bonus, added to initiative"),
        "hits": Stat("hits the combatant can take (wounded past half of them)", minimum=1),
    }
    actions = {
        **{
            name: ActionInfo(
                _span(low, high),
                "faster than its maximum at -1 per % under it" if high is not None and high > low
                else "done as declared; goes beside a held or round-to-round action" if name == MOVE
                else "any % from its minimum; over 100 % it spans rounds" if high is None
                else "the table's share",
            )
            for name, (low, high) in ACTIONS.items()
        },
        INSTANT: ActionInfo("0 % the first a round", "each further one takes the instant-cost option's %"),
    }
    details = {
        "ready": Detail("NAME,NAME: weapon ready, +4 initiative (round 1 only)", ("round",)),
        "surprised": Detail("NAME,NAME: surprised, -4 initiative this round", ("round",)),
    }
    # `round`, `next`, `damage` and `upkeep` read no flag; the engine refuses any given.
    flags = {
        "percent": Flag("the activity it takes: under its most at -1 per % under it (Actions)", ("declare",), int),
        "target": Flag("whom the action is aimed at", ("declare",)),
        "trigger": Flag("hold the action until this happens, or lose it at the upkeep (Conditional Action)",
                        ("declare",)),
        "outcome": Flag("what the roll gave, in the GM's words", ("resolve",)),
        "hits": Flag("hits dealt to the action's target", ("resolve",)),
        "per_round": Flag("bleeding: hits lost at each upkeep (Upkeep)", ("effect",)),
        "rounds": Flag("how many rounds a stun or the GM's own effect lasts (Upkeep)", ("effect",)),
        "end": Flag("end the effect now", ("effect",)),
    }
    # The Upkeep's effects and the condition the text's table names; any other timed
    # effect (a spell) is the GM's own: `effect WHO KIND --rounds N --custom`.
    effects = {
        BLEEDING: "--per-round N hits lost at each upkeep (Upkeep)",
        "stunned-unable-to-parry": "--rounds N, the most severe stun (Upkeep)",
        "stunned": "--rounds N (Upkeep)",
        "dazed": "--rounds N, the mildest stun (Upkeep)",
        STAGGER: "removed at the upkeep (Upkeep)",
        ENCUMBERED: "until ended: a condition of the initiative table (Initiative)",
    }
    state_version = 3  # the shape of this ruleset's state: raise it when the state structs change (it keys cached snapshots)

    def vital_left(self, f: Fighter) -> int:
        return f.hits - f.damage

    def initial(self, started: EncounterStarted) -> PaState:
        options = options_in_force(self, started)
        return PaState(options=options, seed=started.seed)

    # --- the fold: each event applied in place --------------------------------------------

    @applies(CombatantAdded)
    def _added(self, state: PaState, event: CombatantAdded) -> None:
        stats = event.stats
        state.fighters[event.name] = Fighter(name=event.name, side=event.side, qu=stats["qu"], hits=stats["hits"])

    @applies(CombatantCarried)
    def _carried(self, state: PaState, event: CombatantCarried) -> None:
        f = state.fighters[event.who]
        if event.vital is not None:  # hits taken in an earlier fight (README, the party between fights)
            f.damage = f.hits - event.vital

    def lasting(self, state: PaState, who: str) -> list[CarriedEffect]:
        # Bleeding and encumbered last until ended; the rest count rounds or end at the upkeep.
        return [CarriedEffect(kind=e.kind, per_round=e.per_round or None)
                for e in state.fighters[who].effects.values() if e.kind in (BLEEDING, ENCUMBERED)]

    @applies(RoundStarted)
    def _round_started(self, state: PaState, event: RoundStarted) -> None:
        fighters = state.fighters
        for init in event.initiatives:
            f = fighters[init.who]
            f.initiative, f.used, f.melee, f.instants = init.value.value, 0, 0, 0
        state.round, state.in_round, state.order, state.turn = event.round, True, event.order, 0

    @applies(ActionContinued)
    def _continued(self, state: PaState, event: ActionContinued) -> None:
        _paid_into(state, event.who, event.paid).step = event.step

    @applies(TurnPassed)
    def _turn_passed(self, state: PaState, event: TurnPassed) -> None:
        state.turn = state.order.index(event.to, state.turn + 1)  # past those who could not act

    @applies(ActionDeclared)
    def _declared(self, state: PaState, event: ActionDeclared) -> None:
        f = state.fighters[event.who]
        f.used += event.paid
        f.melee += event.melee
        f.instants += event.instant
        if event.step != "done":
            f.action = Action(event.action, event.cost.value, event.step, event.penalty.value, event.target, event.trigger)

    @applies(ActionResolved, ActionCancelled)
    def _ended(self, state: PaState, event: ActionResolved | ActionCancelled) -> None:
        state.fighters[event.who].action = None

    @applies(ActionProgressed)
    def _progressed(self, state: PaState, event: ActionProgressed) -> None:
        _paid_into(state, event.who, event.paid).progress = event.progress

    @applies(DamageTaken)
    def _damaged(self, state: PaState, event: DamageTaken) -> None:
        state.fighters[event.who].damage += event.amount.value

    @applies(EffectApplied)
    def _effect_applied(self, state: PaState, event: EffectApplied) -> None:
        f = state.fighters[event.who]
        serial = f.effects_applied
        f.effects[serial] = Effect(event.kind, event.per_round, event.rounds, serial=serial)
        f.effects_applied = serial + 1

    @applies(EffectEnded)
    def _effect_ended(self, state: PaState, event: EffectEnded) -> None:
        f = state.fighters[event.who]
        f.effects = {serial: e for serial, e in f.effects.items() if e.kind != event.kind}

    @applies(UpkeepTick)
    def _ticked(self, state: PaState, tick: UpkeepTick) -> None:
        f = state.fighters[tick.who]
        if tick.step == "bleeding":
            f.damage -= tick.change
        elif tick.removed:
            f.effects.pop(tick.serial, None)
        else:
            f.effects[tick.serial].rounds = tick.rounds_left

    @applies(RoundEnded)
    def _round_ended(self, state: PaState, event: RoundEnded) -> None:
        state.in_round = False

    # --- decide: each command's events; the state is only read ------------------------------

    @applies(HitsHealed)
    def _healed(self, state: PaState, event: HitsHealed) -> None:
        f = state.fighters[event.who]
        f.damage = f.hits - event.hits_left

    @decides(Damage)
    def _decide_damage(self, state: PaState, command: Damage, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), command.who)]
        if command.amount < 1:
            raise BadInput(f"damage must be at least 1 hit, not {command.amount}")
        amount = Derivation(command.amount, "hits read off the tables by the GM", rule=R_ACTIONS)
        return _damage(state, f, amount, self.down(state, f))

    @decides(Heal)
    def _decide_heal(self, state: PaState, command: Heal, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), command.who)]
        if command.amount < 1:
            raise BadInput(f"heal takes at least 1 hit, not {command.amount}")
        if f.damage <= 0:
            raise RuleViolation(f"{f.name} has all its {f.hits} hits: nothing to heal")
        given = Derivation(min(command.amount, f.damage), "hits given back by the GM, at most the hits taken",
                           (Term("healed", command.amount), Term("hits taken", f.damage)))
        return [HitsHealed(who=f.name, amount=given, hits_left=f.hits - f.damage + given.value)]

    @decides(Leave)
    def _decide_leave_here(self, state: PaState, command: Leave, dice: Dice) -> list[Event]:
        events = self._decide_leave(state, command, dice)
        f = state.fighters[find_name(state.names(), command.who)]
        if f.action is not None:
            events.append(ActionCancelled(who=f.name, action=f.action.name, reason=f"ends: {f.name} leaves the fight"))
        return events

    @decides(Upkeep)
    def _decide_upkeep(self, state: PaState, command: Upkeep, dice: Dice) -> list[Event]:
        self.need_round(state)
        return self._upkeep(state)

    @decides(StartRound)
    def _start_round(self, state: PaState, command: StartRound, dice: Dice) -> list[Event]:
        if state.in_round:
            raise RuleViolation(f"round {state.round} is still under way: finish it with `skirmish upkeep`", R_ROUND)
        if not state.fighters:
            raise RuleViolation("no combatants yet: add some with `skirmish add NAME --stat ...`")
        for name in command.rolls:
            find_name(state.names(), name)
        given = {key: _named(state, command.details.get(key, "")) for key in ROUND_CONDITIONS}
        if given["ready"] and state.round > 0:
            raise RuleViolation("weapon ready counts in the first round of combat only", R_INIT)
        able = [f for f in state.fighters.values() if self.able(state, f)]
        if not able:
            raise RuleViolation("nobody can act: every combatant is down or has left")
        inits = []
        for f in able:
            roll = dice.roll(f.name, 2, 10)
            terms = [Term("2d10", roll.total), Term("Quickness bonus", f.qu)]
            if f.name in given["ready"]:
                terms.append(Term("weapon ready", CONDITION))
            if f.name in given["surprised"]:
                terms.append(Term("surprised", -CONDITION))
            if any(e.kind == ENCUMBERED for e in f.effects.values()):
                terms.append(Term("encumbered", -CONDITION))
            if f.wounded:
                terms.append(Term(f"wounded ({f.damage} of {f.hits} hits taken)", -CONDITION))
            value = sum(t.value for t in terms)
            inits.append(Initiative(f.name, Derivation(value, "2d10 + Qu + modifiers", tuple(terms), R_INIT, roll)))
        # High to low (Round); ties: the higher Quickness bonus, then the combatant added first.
        place = {f.name: (-f.qu, i) for i, f in enumerate(state.fighters.values())}
        order = tuple(i.who for i in sorted(inits, key=lambda i: (-i.value.value, place[i.who])))
        events: list[Event] = [RoundStarted(round=state.round + 1, initiatives=tuple(inits), order=order)]
        for f in state.fighters.values():
            a = f.action
            if a is not None and a.step == "progresses":
                left = a.cost - a.progress
                remaining = Derivation(left, "cost - activity put in", (Term("cost", a.cost), Term("put in", -a.progress)), R_R2R)
                due = left <= ACTIVITY
                events.append(ActionContinued(who=f.name, action=a.name, step="resolves" if due else "progresses",
                                              remaining=remaining, paid=left if due else 0))
        return events

    @decides(Next)
    def _next(self, state: PaState, command: Next, dice: Dice) -> list[Event]:
        self.need_round(state)
        acting = state.acting()
        if acting is not None:
            _settled(state.fighter(acting), "pass the turn", R_ACTIONS)
        following = self.next_turn(state)
        if following is not None:
            assert acting is not None
            return [TurnPassed(who=acting, to=state.order[following])]
        return self._upkeep(state)

    @decides(Declare)
    def _declare(self, state: PaState, cmd: Declare, dice: Dice) -> list[Event]:
        self.need_round(state)
        f = state.fighter(find_name(state.names(), cmd.who))
        action = cmd.action.lower()
        if action not in ACTIONS and action != INSTANT:
            raise BadInput(f"no action {cmd.action!r} in the activity table ({suggest(action, [*ACTIONS, INSTANT])})")
        self.check_able(state, f)
        if f.initiative is None:
            raise RuleViolation(f"{f.name} joined after this round's initiative: wait for the next round", R_INIT)
        acting = state.acting()
        if acting != f.name:
            raise RuleViolation(f"not {f.name}'s turn: it is {acting}'s turn", R_ACTIONS)
        melee = action == MELEE
        if melee and f.melee:
            raise RuleViolation(f"{f.name} has declared a melee attack this round already: one a round", R_ACTIONS)
        cost, high = self._cost(state, f, action, _flag_int(cmd, "percent"))
        done_at_once = action == MOVE and cmd.trigger is None
        events: list[Event] = []
        a = f.action
        if a is not None and not done_at_once:
            if a.step == "resolves":
                raise RuleViolation(f"{f.name}'s {a.name} is still to resolve: resolve or cancel it first", R_ACTIONS)
            what, rule = ("held action", R_HELD) if a.step == "held" else ("round-to-round action", R_R2R)
            events.append(ActionCancelled(
                who=f.name, action=a.name, reason=f"interrupted by {action}: a {what} ends when another action is taken ({rule})",
            ))
        left = ACTIVITY - f.used
        step: Step = "done" if done_at_once else "held" if cmd.trigger is not None else "resolves"
        if cost.value > ACTIVITY:
            if step != "resolves":
                raise RuleViolation(f"{action} at {cost.value} % spans rounds: it cannot be held or done at once", R_R2R)
            if left < 1:
                raise RuleViolation(f"{f.name} has no activity left to start {action} this round", R_R2R)
            step = "progresses"
        elif cost.value > left:
            rule = R_HELD if step == "held" else R_ACTIONS
            raise RuleViolation(f"{f.name} has {left} % activity left, {action} takes {cost.value} %", rule)
        penalty = _penalty(cost.value, high)
        target = find_name(state.names(), cmd.target) if cmd.target is not None else None
        events.append(ActionDeclared(
            who=f.name, action=action, cost=cost, penalty=penalty, step=step,
            paid=0 if step == "progresses" else cost.value, target=target, trigger=cmd.trigger,
            melee=melee, instant=action == INSTANT,
        ))
        return events

    def _cost(self, state: PaState, f: Fighter, action: str, percent: int | None) -> tuple[Derivation, int | None]:
        """The activity an action takes, and the top of its range (None: no top, no penalty)."""
        if action == INSTANT:
            if percent is not None:
                raise BadInput(f"{INSTANT} actions take what the rules say: no --percent")
            further = int(state.options["instant-cost"])
            cost = 0 if f.instants == 0 else further
            why = "the round's first instantaneous action is free" if cost == 0 else (
                f"each further instantaneous action takes {further} % (option instant-cost)")
            return Derivation(cost, why, (Term("instantaneous actions before", f.instants),), R_INSTANT), None
        low, high = ACTIONS[action]
        if percent is None:
            percent = low if high is None else high
        if percent < low or (high is not None and percent > high):
            raise RuleViolation(f"{action} takes {_span(low, high)}, not {percent} %", R_ACTIONS)
        rule = R_R2R if percent > ACTIVITY else R_ACTIONS
        return Derivation(percent, f"{action} at {percent} %", rule=rule), high

    @decides(Resolve)
    def _resolve(self, state: PaState, cmd: Resolve, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), cmd.who))
        a = f.action
        if a is None:
            raise RuleViolation(f"{f.name} has no action under way to resolve", R_ACTIONS)
        self.check_able(state, f)
        if a.step == "progresses":
            raise RuleViolation(
                f"{f.name}'s {a.name} has {a.cost - a.progress} % to go: it completes in a later round", R_R2R
            )
        events: list[Event] = [ActionResolved(who=f.name, action=a.name, outcome=cmd.outcome, target=a.target)]
        if cmd.hits is not None:
            if a.target is None:
                raise BadInput(f"--hits needs a target: {f.name}'s {a.name} was declared without --target")
            if cmd.hits < 1:
                raise BadInput(f"--hits must be at least 1, not {cmd.hits}")
            target = state.fighter(a.target)
            amount = Derivation(cmd.hits, f"hits of {f.name}'s {a.name}", rule=R_ACTIONS)
            events += _damage(state, target, amount, self.down(state, target))
        return events

    @decides(Cancel)
    def _cancel(self, state: PaState, cmd: Cancel, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), cmd.who))
        if f.action is None:
            raise RuleViolation(f"{f.name} has no action under way to cancel", R_ACTIONS)
        return [ActionCancelled(who=f.name, action=f.action.name, reason="cancelled: its activity stays spent")]

    @decides(ApplyEffect)
    def _effect(self, state: PaState, cmd: ApplyEffect, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), cmd.who))
        kind = cmd.kind.lower()
        if kind in ROUND_CONDITIONS or kind in ("weapon-ready", "wounded"):
            how = "derived from the damage recorded" if kind == "wounded" else (
                f"given when the round starts: `skirmish round --with {'ready' if 'ready' in kind else kind}=NAME`")
            raise BadInput(f"{kind} is not an effect here: it is {how}")
        if cmd.end:
            if not any(e.kind == kind for e in f.effects.values()):
                raise RuleViolation(f"{f.name} has no {kind} effect to end")
            return [EffectEnded(who=f.name, kind=kind, reason="ended by the GM")]
        if kind == BLEEDING:
            if cmd.per_round is None or cmd.per_round < 1:
                raise BadInput("bleeding needs --per-round N, the hits lost each upkeep")
            if cmd.rounds is not None:
                raise BadInput("bleeding lasts until it is stopped (--end): no --rounds")
            return [EffectApplied(who=f.name, kind=kind, per_round=cmd.per_round)]
        if cmd.per_round is not None:
            raise BadInput(f"--per-round goes with bleeding, not {kind}")
        if kind in (STAGGER, ENCUMBERED):
            if cmd.rounds is not None:
                until = "the upkeep removes it" if kind == STAGGER else "it lasts until ended with --end"
                raise BadInput(f"{kind} has no duration: {until}")
            return [EffectApplied(who=f.name, kind=kind)]
        if cmd.rounds is None or cmd.rounds < 1:
            raise BadInput(f"{kind} needs --rounds N (1 or more)")
        return [EffectApplied(who=f.name, kind=kind, rounds=cmd.rounds)]

    def _upkeep(self, state: PaState) -> list[Event]:
        events: list[Event] = []
        fighters = state.fighters.values()
        for f in fighters:
            _settled(f, "run the upkeep", R_UPKEEP)
            a = f.action
            if a is not None and a.step == "held":
                events.append(ActionCancelled(who=f.name, action=a.name, reason=f"lost: never triggered this round ({R_HELD})"))
            elif a is not None and a.step == "progresses":
                paid = max(ACTIVITY - f.used, 0)
                events.append(ActionProgressed(who=f.name, action=a.name, paid=paid, progress=a.progress + paid, cost=a.cost))
        for f in fighters:
            events += [UpkeepTick(step="bleeding", who=f.name, effect=BLEEDING, serial=e.serial, change=-e.per_round)
                       for e in f.effects.values() if e.kind == BLEEDING]
        for f in fighters:
            stuns = [e for e in f.effects.values() if e.kind in STUNS]
            if stuns:
                worst = max(stuns, key=lambda e: (STUNS[e.kind], -e.serial))
                events.append(_count_down("stun", f, worst))
            events += [UpkeepTick(step="stagger", who=f.name, effect=STAGGER, serial=e.serial, removed=True)
                       for e in f.effects.values() if e.kind == STAGGER]
            events += [_count_down("timed", f, e) for e in f.effects.values()
                       if e.rounds is not None and e.kind not in STUNS]
        return [*events, RoundEnded(round=state.round)]

    # --- view and narration ----------------------------------------------------------------

    def view(self, state: PaState) -> View:
        acting = state.acting()
        now = (acting,) if acting is not None else ()
        following = self.next_turn(state) if state.in_round else None
        # The next turn of this round; none after the last one (`next` runs the upkeep), and
        # none between rounds (the next round's order is not rolled yet).
        later = (state.order[following],) if following is not None else ()
        moment = f"{acting}'s turn" if acting is not None else "between rounds" if state.round else "before round 1"
        clock = Clock(
            round=state.round, unit="round", running=state.in_round, moment=moment, now=now, next=later,
            own=PaClock(order=state.order),
        )
        # Acting order: this round's turns high to low (Round), then anyone added since.
        fighters = state.fighters
        in_order = set(state.order)
        ordered = [*(fighters[n] for n in state.order), *(f for f in fighters.values() if f.name not in in_order)]
        ordered.sort(key=lambda f: not self.able(state, f))  # stable: those who cannot act last
        combatants = tuple(
            Combatant(
                name=f.name, side=f.side, acting=f.name == acting,
                status="left" if f.left else "down" if self.down(state, f) else "fighting",
                vital=Gauge(name="hits left", value=f.hits - f.damage, maximum=f.hits),
                budget=Budget(name="activity %", left=ACTIVITY - f.used, of=ACTIVITY),
                effects=tuple(
                    EffectRow(kind=e.kind, left=e.rounds, detail=f"{e.per_round}/round" if e.per_round else "",
                              custom=e.kind not in self.effects)
                    for e in f.effects.values()
                ),
                own=PaFigures(
                    initiative=f.initiative, activity_used=f.used, melee_attacks=f.melee,
                    instantaneous_actions=f.instants, damage=f.damage, wounded=f.wounded,
                ),
            )
            for f in ordered
        )
        pending = tuple(
            Pending(
                who=f.name, action=f.action.name, target=f.action.target, resolves=_resolves(f.name, f.action),
                own=PaPending(percent=f.action.cost, step=f.action.step, penalty=f.action.penalty,
                              trigger=f.action.trigger, progress=f.action.progress),
            )
            for f in ordered if f.action is not None
        )
        return View(clock=clock, combatants=combatants, pending=pending, own=NoOwn())

    def harm(self, event: Event) -> Harm | None:
        # Damage is counted in hits (percent-activity.md); bleeding loses hits at the upkeep.
        match event:
            case DamageTaken(who=who, amount=amount):
                return Harm(who=who, amount=amount.value, unit="hits")
            case HitsHealed(who=who, amount=amount):
                return Harm(who=who, amount=amount.value, unit="hits", heal=True)
            case UpkeepTick(step="bleeding", who=who, change=change) if change < 0:
                return Harm(who=who, amount=-change, unit="hits")
        return None

    def describe(self, event: Event) -> str:
        match event:
            case RoundStarted(round=number, initiatives=inits, order=order):
                value = {i.who: i.value.value for i in inits}
                return f"Round {number} begins: initiative " + ", ".join(f"{who} {value[who]}" for who in order)
            case ActionContinued(who=who, action=action, step=step, remaining=remaining):
                if step == "resolves":
                    return f"{who}'s {action} completes this round: {remaining.value} % set aside"
                return f"{who}'s {action} goes on: {remaining.value} % to go"
            case TurnPassed(who=who, to=to):
                return f"{who} is done: {to}'s turn"
            case ActionDeclared(who=who, action=action, cost=cost, penalty=penalty, step=step, target=target,
                                trigger=trigger):
                on = f" on {target}" if target else ""
                pen = f", penalty {penalty.value}" if penalty.value else ""
                tail = {
                    "resolves": "", "done": " (done)", "held": f", held until: {trigger}",
                    "progresses": ", round to round",
                }[step]
                return f"{who} declares {action}{on} ({cost.value} %{pen}){tail}"
            case ActionResolved(who=who, action=action, outcome=outcome, target=target):
                on = f" on {target}" if target else ""
                return f"{who} resolves {action}{on}" + (f": {outcome}" if outcome else "")
            case ActionCancelled(who=who, action=action, reason=reason):
                return f"{who}'s {action} {reason}"
            case ActionProgressed(who=who, action=action, paid=paid, progress=progress, cost=cost):
                return f"{who} puts {paid} % into {action} ({progress} of {cost})"
            case HitsHealed(who=who, amount=amount, hits_left=left):
                return f"{who} is healed {amount.value} hits ({left} left)"
            case DamageTaken(who=who, amount=amount, hits_left=left, wounded=wounded):
                return f"{who} takes {amount.value} hits ({left} left)" + (", wounded" if wounded else "")
            case EffectApplied(who=who, kind=kind, per_round=per_round, rounds=rounds):
                detail = f"{per_round} a round" if per_round else (
                    f"{rounds} round{'' if rounds == 1 else 's'}" if rounds else "until it ends")
                return f"{who} is {kind} ({detail})"
            case EffectEnded(who=who, kind=kind, reason=reason):
                return f"{who} is no longer {kind} ({reason})"
            case UpkeepTick(step=step, who=who, effect=effect, change=change, rounds_left=left, removed=removed):
                if step == "bleeding":
                    return f"Upkeep: {who} bleeds {-change} hits"
                if removed:
                    return f"Upkeep: {who}'s {effect} ends"
                return f"Upkeep: {who}'s {effect} has {left} round{'' if left == 1 else 's'} left"
            case RoundEnded(round=number):
                return f"Round {number} ends"
        return type(event).__name__


# --- helpers -------------------------------------------------------------------------------


def _settled(f: Fighter, what: str, rule: str) -> None:
    """Refuse to go on while the combatant has an action still to resolve."""
    if f.action is not None and f.action.step == "resolves":
        raise RuleViolation(
            f"{f.name}'s {f.action.name} is still to resolve: `skirmish resolve {quote(f.name)}` "
            f"or `skirmish cancel {quote(f.name)}` before you {what}", rule,
        )


def _named(state: PaState, raw: str) -> set[str]:
    """NAME,NAME as typed after --with KEY=, each a combatant of the encounter."""
    return {find_name(state.names(), n.strip()) for n in raw.split(",") if n.strip()}


def _penalty(cost: int, high: int | None) -> Derivation:
    if high is None or cost >= high:
        return Derivation(0, "at the range's maximum or a fixed share: no penalty", rule=R_ACTIONS)
    return Derivation(cost - high, "-1 per % under the maximum",
                      (Term(f"{high - cost} % under the maximum", cost - high),), R_ACTIONS)


def _damage(state: PaState, f: Fighter, amount: Derivation, was_down: bool) -> list[Event]:
    """The hits taken; a hit that puts the combatant down (``was_down``: it already was)
    ends its action under way."""
    damage = f.damage + amount.value
    left = f.hits - damage
    events: list[Event] = [DamageTaken(who=f.name, amount=amount, hits_left=left, wounded=2 * damage > f.hits)]
    if f.action is not None and is_down(left, state.options) and not was_down:
        events.append(ActionCancelled(who=f.name, action=f.action.name, reason=f"ends: {f.name} is down ({why_down(left, 'hits', state.options)})"))
    return events


def _count_down(step: Literal["stun", "timed"], f: Fighter, e: Effect) -> UpkeepTick:
    assert e.rounds is not None
    left = e.rounds - 1
    return UpkeepTick(step=step, who=f.name, effect=e.kind, serial=e.serial, change=-1,
                      rounds_left=left, removed=left <= 0)


def _paid_into(state: PaState, who: str, paid: int) -> Action:
    """The combatant's action under way, once the activity it takes this round is counted."""
    f = state.fighters[who]
    assert f.action is not None
    f.used += paid
    return f.action


def _resolves(who: str, a: Action) -> str:
    """When a pending action resolves, as the GM reads it."""
    if a.step == "held":
        return f"on trigger: {a.trigger}"  # Conditional Action
    if a.step == "progresses":
        return "spans rounds"  # Round to Round Actions: paid at each upkeep
    return f"in {who}'s turn"  # Resolve Actions step


RULESET: Ruleset[PaState] = PercentActivity()
