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
"""

from __future__ import annotations

from shlex import quote
from typing import Any, Literal

import msgspec
from msgspec.structs import replace

from skirmish.eventlog.commands import (
    AddCombatant,
    ApplyEffect,
    Cancel,
    Command,
    Damage,
    Declare,
    Next,
    Resolve,
    StartRound,
    Upkeep,
)
from skirmish.eventlog.errors import BadInput, RuleViolation
from skirmish.eventlog.events import CombatantAdded, Derivation, EncounterStarted, Event, NoteAdded, Term
from skirmish.projections.ruleset import (
    ActionInfo,
    Detail,
    Dice,
    Option,
    Stat,
    by_name,
    decide_add,
    find_name,
    names_of,
    options_in_force,
    replaced,
    suggest,
)

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


class Effect(msgspec.Struct, frozen=True):
    kind: str
    per_round: int = 0
    rounds: int | None = None
    serial: int = 0  # which of the combatant's effects this is, in order of application


class Action(msgspec.Struct, frozen=True):
    name: str
    cost: int
    step: Step
    penalty: int = 0
    target: str | None = None
    trigger: str | None = None
    progress: int = 0  # % put into a round-to-round action at past upkeeps


class Fighter(msgspec.Struct, frozen=True):
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
    effects: tuple[Effect, ...] = ()
    effects_applied: int = 0

    @property
    def wounded(self) -> bool:
        # "taken more than 50% of hits" (Initiative Step)
        return 2 * self.damage > self.hits


class PaState(msgspec.Struct, frozen=True):
    options: dict[str, str]
    seed: int
    round: int = 0
    in_round: bool = False
    order: tuple[str, ...] = ()
    turn: int = 0
    fighters: tuple[Fighter, ...] = ()

    def names(self) -> list[str]:
        return names_of(self.fighters)

    def fighter(self, name: str) -> Fighter:
        return by_name(self.fighters, name)

    def acting(self) -> str | None:
        return self.order[self.turn] if self.in_round and self.turn < len(self.order) else None


def _put(state: PaState, fighter: Fighter) -> PaState:
    return replace(state, fighters=replaced(state.fighters, fighter))


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


EVENT_TYPES: tuple[type[Event], ...] = (
    RoundStarted, ActionContinued, TurnPassed, ActionDeclared, ActionResolved, ActionCancelled,
    ActionProgressed, DamageTaken, EffectApplied, EffectEnded, UpkeepTick, RoundEnded,
)


def _span(low: int, high: int | None) -> str:
    return f"{low}+ %" if high is None else f"{low} %" if low == high else f"{low}-{high} %"


# --- the ruleset ---------------------------------------------------------------------------


class PercentActivity:
    id = "percent-activity"
    rules_file = RULES
    options = {
        "instant-cost": Option(
            "10", ("1", "10", "25"),
            "activity % each instantaneous action after the round's first takes (Instantaneous actions)",
        ),
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
    vital = "hits_left"
    budget = "activity_used"
    state_version = 1  # the shape of this ruleset's state: raise it when the state structs change (it keys cached snapshots)
    event_types = EVENT_TYPES

    # --- initial / evolve ---------------------------------------------------------------

    def initial(self, started: EncounterStarted) -> PaState:
        options = options_in_force(self, started)
        return PaState(options=options, seed=started.seed)

    def evolve(self, state: PaState, event: Event) -> PaState:
        match event:
            case CombatantAdded(name=name, side=side, stats=stats):
                fighter = Fighter(name=name, side=side, qu=stats["qu"], hits=stats["hits"])
                return replace(state, fighters=(*state.fighters, fighter))
            case RoundStarted(round=number, initiatives=inits, order=order):
                rolled = {i.who: i.value.value for i in inits}
                fighters = tuple(
                    replace(f, initiative=rolled[f.name], used=0, melee=0, instants=0) if f.name in rolled else f
                    for f in state.fighters
                )
                return replace(state, round=number, in_round=True, order=order, turn=0, fighters=fighters)
            case ActionContinued(who=who, step=step, paid=paid):
                f = state.fighter(who)
                assert f.action is not None
                return _put(state, replace(f, used=f.used + paid, action=replace(f.action, step=step)))
            case TurnPassed():
                return replace(state, turn=state.turn + 1)
            case ActionDeclared(who=who, action=name, cost=cost, penalty=penalty, step=step, paid=paid,
                                target=target, trigger=trigger, melee=melee, instant=instant):
                f = state.fighter(who)
                action = f.action
                if step != "done":
                    action = Action(name, cost.value, step, penalty.value, target, trigger)
                return _put(state, replace(
                    f, used=f.used + paid, melee=f.melee + melee, instants=f.instants + instant, action=action,
                ))
            case ActionResolved(who=who) | ActionCancelled(who=who):
                return _put(state, replace(state.fighter(who), action=None))
            case ActionProgressed(who=who, paid=paid, progress=progress):
                f = state.fighter(who)
                assert f.action is not None
                return _put(state, replace(f, used=f.used + paid, action=replace(f.action, progress=progress)))
            case DamageTaken(who=who, amount=amount):
                f = state.fighter(who)
                return _put(state, replace(f, damage=f.damage + amount.value))
            case EffectApplied(who=who, kind=kind, per_round=per_round, rounds=rounds):
                f = state.fighter(who)
                effect = Effect(kind, per_round, rounds, serial=f.effects_applied)
                return _put(state, replace(f, effects=(*f.effects, effect), effects_applied=f.effects_applied + 1))
            case EffectEnded(who=who, kind=kind):
                f = state.fighter(who)
                return _put(state, replace(f, effects=tuple(e for e in f.effects if e.kind != kind)))
            case UpkeepTick():
                return _tick(state, event)
            case RoundEnded():
                return replace(state, in_round=False)
            case NoteAdded() | EncounterStarted():
                return state
        return state

    # --- decide --------------------------------------------------------------------------

    def decide(self, state: PaState, command: Command, dice: Dice) -> list[Event]:
        match command:
            case AddCombatant():
                return decide_add(self, state.names(), command)
            case StartRound():
                return self._start_round(state, command, dice)
            case Next():
                return self._next(state)
            case Declare():
                return self._declare(state, command)
            case Resolve():
                return self._resolve(state, command)
            case Cancel():
                return self._cancel(state, command)
            case Damage(who=who, amount=amount):
                f = state.fighter(find_name(state.names(), who))
                if amount < 1:
                    raise BadInput(f"damage must be at least 1 hit, not {amount}")
                return [_damage(f, Derivation(amount, "hits read off the tables by the GM", rule=R_ACTIONS))]
            case ApplyEffect():
                return self._effect(state, command)
            case Upkeep():
                _need_round(state)
                return self._upkeep(state)
        raise RuleViolation(f"{self.id} has no use for `{type(command).__struct_config__.tag}`")

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
        inits = []
        for f in state.fighters:
            roll = dice.roll(f.name, 2, 10)
            terms = [Term("2d10", roll.total), Term("Quickness bonus", f.qu)]
            if f.name in given["ready"]:
                terms.append(Term("weapon ready", CONDITION))
            if f.name in given["surprised"]:
                terms.append(Term("surprised", -CONDITION))
            if any(e.kind == ENCUMBERED for e in f.effects):
                terms.append(Term("encumbered", -CONDITION))
            if f.wounded:
                terms.append(Term(f"wounded ({f.damage} of {f.hits} hits taken)", -CONDITION))
            value = sum(t.value for t in terms)
            inits.append(Initiative(f.name, Derivation(value, "2d10 + Qu + modifiers", tuple(terms), R_INIT, roll)))
        # High to low (Round); ties: the higher Quickness bonus, then the combatant added first.
        place = {f.name: (-f.qu, i) for i, f in enumerate(state.fighters)}
        order = tuple(i.who for i in sorted(inits, key=lambda i: (-i.value.value, place[i.who])))
        events: list[Event] = [RoundStarted(round=state.round + 1, initiatives=tuple(inits), order=order)]
        for f in state.fighters:
            a = f.action
            if a is not None and a.step == "progresses":
                left = a.cost - a.progress
                remaining = Derivation(left, "cost - activity put in", (Term("cost", a.cost), Term("put in", -a.progress)), R_R2R)
                due = left <= ACTIVITY
                events.append(ActionContinued(who=f.name, action=a.name, step="resolves" if due else "progresses",
                                              remaining=remaining, paid=left if due else 0))
        return events

    def _next(self, state: PaState) -> list[Event]:
        _need_round(state)
        acting = state.acting()
        if acting is not None:
            _settled(state.fighter(acting), "pass the turn", R_ACTIONS)
        if state.turn + 1 < len(state.order):
            assert acting is not None
            return [TurnPassed(who=acting, to=state.order[state.turn + 1])]
        return self._upkeep(state)

    def _declare(self, state: PaState, cmd: Declare) -> list[Event]:
        _need_round(state)
        f = state.fighter(find_name(state.names(), cmd.who))
        if cmd.ap is not None:
            raise BadInput("percent-activity counts activity: use --percent, not --ap")
        for flag, value in (("pace", cmd.pace), ("penalty", cmd.penalty), ("amount", cmd.amount)):
            if value is not None:
                why = ": the penalty follows from --percent" if flag == "penalty" else ""
                raise BadInput(f"percent-activity has no use for --{flag}{why}")
        action = cmd.action.lower()
        if action not in ACTIONS and action != INSTANT:
            raise BadInput(f"no action {cmd.action!r} in the activity table ({suggest(action, [*ACTIONS, INSTANT])})")
        if f.initiative is None:
            raise RuleViolation(f"{f.name} joined after this round's initiative: wait for the next round", R_INIT)
        acting = state.acting()
        if acting != f.name:
            raise RuleViolation(f"not {f.name}'s turn: it is {acting}'s turn", R_ACTIONS)
        melee = action == MELEE
        if melee and f.melee:
            raise RuleViolation(f"{f.name} has declared a melee attack this round already: one a round", R_ACTIONS)
        cost, high = self._cost(state, f, action, cmd.percent)
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

    def _resolve(self, state: PaState, cmd: Resolve) -> list[Event]:
        f = state.fighter(find_name(state.names(), cmd.who))
        a = f.action
        if a is None:
            raise RuleViolation(f"{f.name} has no action under way to resolve", R_ACTIONS)
        if cmd.charge_speed is not None:
            raise BadInput("percent-activity has no charge rule: no --charge")
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
            events.append(_damage(target, Derivation(cmd.hits, f"hits of {f.name}'s {a.name}", rule=R_ACTIONS)))
        return events

    def _cancel(self, state: PaState, cmd: Cancel) -> list[Event]:
        f = state.fighter(find_name(state.names(), cmd.who))
        if cmd.orientation is not None:
            raise BadInput("percent-activity has no Orientation Maneuver: no --orientation")
        if f.action is None:
            raise RuleViolation(f"{f.name} has no action under way to cancel", R_ACTIONS)
        return [ActionCancelled(who=f.name, action=f.action.name, reason="cancelled: its activity stays spent")]

    def _effect(self, state: PaState, cmd: ApplyEffect) -> list[Event]:
        f = state.fighter(find_name(state.names(), cmd.who))
        kind = cmd.kind.lower()
        if kind in ROUND_CONDITIONS or kind in ("weapon-ready", "wounded"):
            how = "derived from the damage recorded" if kind == "wounded" else (
                f"given when the round starts: `skirmish round --with {'ready' if 'ready' in kind else kind}=NAME`")
            raise BadInput(f"{kind} is not an effect here: it is {how}")
        if cmd.start is not None:
            raise BadInput("percent-activity has no scene counters: no --start")
        if cmd.end:
            if not any(e.kind == kind for e in f.effects):
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
        for f in state.fighters:
            _settled(f, "run the upkeep", R_UPKEEP)
            a = f.action
            if a is not None and a.step == "held":
                events.append(ActionCancelled(who=f.name, action=a.name, reason=f"lost: never triggered this round ({R_HELD})"))
            elif a is not None and a.step == "progresses":
                paid = max(ACTIVITY - f.used, 0)
                events.append(ActionProgressed(who=f.name, action=a.name, paid=paid, progress=a.progress + paid, cost=a.cost))
        for f in state.fighters:
            events += [UpkeepTick(step="bleeding", who=f.name, effect=BLEEDING, serial=e.serial, change=-e.per_round)
                       for e in f.effects if e.kind == BLEEDING]
        for f in state.fighters:
            stuns = [e for e in f.effects if e.kind in STUNS]
            if stuns:
                worst = max(stuns, key=lambda e: (STUNS[e.kind], -e.serial))
                events.append(_count_down("stun", f, worst))
            events += [UpkeepTick(step="stagger", who=f.name, effect=STAGGER, serial=e.serial, removed=True)
                       for e in f.effects if e.kind == STAGGER]
            events += [_count_down("timed", f, e) for e in f.effects
                       if e.rounds is not None and e.kind not in STUNS]
        return [*events, RoundEnded(round=state.round)]

    # --- view and narration ----------------------------------------------------------------

    def view(self, state: PaState) -> dict[str, Any]:
        combatants = []
        pending = []
        for f in state.fighters:
            combatants.append({
                "name": f.name,
                "side": f.side,
                "initiative": f.initiative,
                "activity_used": f.used,
                "activity_left": ACTIVITY - f.used,
                "melee_attacks": f.melee,
                "instantaneous_actions": f.instants,
                "hits": f.hits,
                "damage": f.damage,
                "hits_left": f.hits - f.damage,
                "wounded": f.wounded,
                "effects": [{"kind": e.kind, "per_round": e.per_round or None, "rounds": e.rounds} for e in f.effects],
            })
            if f.action is not None:
                a = f.action
                pending.append({
                    "who": f.name, "action": a.name, "percent": a.cost, "step": a.step, "penalty": a.penalty,
                    "target": a.target, "trigger": a.trigger, "progress": a.progress,
                })
        return {
            "round": state.round,
            # The order as one line of names: a clock holds figures and words, not lists.
            "clock": {"in_round": state.in_round, "turn": state.acting(), "order": ", ".join(state.order)},
            "combatants": combatants,
            "pending": pending,
            "environment": [],
        }

    def describe(self, event: Event) -> str:
        match event:
            case RoundStarted(round=number, initiatives=inits, order=order):
                value = {i.who: i.value.value for i in inits}
                return f"Round {number} begins: " + ", ".join(f"{who} {value[who]}" for who in order)
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


def _need_round(state: PaState) -> None:
    if not state.in_round:
        raise RuleViolation("no round under way: start one with `skirmish round`", R_ROUND)


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


def _damage(f: Fighter, amount: Derivation) -> DamageTaken:
    damage = f.damage + amount.value
    return DamageTaken(who=f.name, amount=amount, hits_left=f.hits - damage, wounded=2 * damage > f.hits)


def _count_down(step: Literal["stun", "timed"], f: Fighter, e: Effect) -> UpkeepTick:
    assert e.rounds is not None
    left = e.rounds - 1
    return UpkeepTick(step=step, who=f.name, effect=e.kind, serial=e.serial, change=-1,
                      rounds_left=left, removed=left <= 0)


def _tick(state: PaState, tick: UpkeepTick) -> PaState:
    f = state.fighter(tick.who)
    if tick.step == "bleeding":
        return _put(state, replace(f, damage=f.damage - tick.change))
    if tick.removed:
        effects = tuple(e for e in f.effects if e.serial != tick.serial)
    else:
        effects = tuple(replace(e, rounds=tick.rounds_left) if e.serial == tick.serial else e for e in f.effects)
    return _put(state, replace(f, effects=effects))


RULESET = PercentActivity()
