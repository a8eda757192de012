"""The duel ruleset: the smallest whole ruleset, the worked example of docs/adding-a-ruleset.md.

Rules text: tests/toy/duel.md (cited by section, "duel.md, Turns"). It is installed the
way a third-party package installs a ruleset: the entry point in
tests/toy/skirmish_toy_duel-1.0.dist-info/entry_points.txt, found once tests/toy is on
the path (tests/rulesets/test_toy_ruleset.py does that, then plays it through the CLI and every
audit and report command).

The clock is whose turn it is: ``round`` orders everyone by Speed and starts the first
turn, ``next`` passes the turn to the next combatant who is not down (or ends the
round). On its turn a combatant ``declare``s ``strike --target WHO`` (``--feint``: a
feint, a flag of the duel's own) or ``guard``.

Readings chosen where the text is silent (none needs an option):

- A combatant who has left the fight (``leave``) is passed by like one who is down, and
  acts again from the next round after ``return``.
- ``heal WHO N`` gives back HP up to the combatant's starting HP; healed above 0 it acts
  again from its next turn.
"""

from __future__ import annotations

import msgspec

from skirmish.eventlog.commands import Declare, Heal, Next, StartRound
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import CombatantAdded, Derivation, EncounterStarted, Event, Roll, Term
from skirmish.projections.ruleset import (
    ActionInfo,
    Detail,
    Dice,
    Flag,
    Harm,
    Option,
    Rules,
    Ruleset,
    Stat,
    applies,
    decides,
    find_name,
    options_in_force,
)
from skirmish.projections.view import Budget, Clock, Combatant, Effect, Gauge, Own, Status, View

RULES = "duel.md"
R_ROUNDS = f"{RULES}, Rounds"
R_TURNS = f"{RULES}, Turns"
R_GUARD = f"{RULES}, Guard"
R_FEINT = f"{RULES}, Feint"
R_DOWN = f"{RULES}, Combatants"


# --- state: mutable, the fold applies events to a working copy in place ------------------


class Fighter(msgspec.Struct):
    name: str
    side: str
    hp: int
    speed: int
    damage: int = 0
    acted: bool = False
    guarded: bool = False
    left: bool = False  # the shared `leave` / `return` (projections/ruleset.py) set it

    @property
    def down(self) -> bool:
        return self.hp - self.damage <= 0


class DuelState(msgspec.Struct):
    options: dict[str, str]
    round: int = 0
    order: list[str] = []  # this round's turns, in acting order
    turn: int | None = None  # index into order of whose turn it is
    in_round: bool = False
    fighters: dict[str, Fighter] = {}

    def names(self) -> list[str]:
        return list(self.fighters)

    @property
    def current(self) -> str | None:
        return self.order[self.turn] if self.turn is not None else None


# --- events: the ruleset's own, tags prefixed with its id ---------------------------------


class RoundStarted(Event, frozen=True, tag="duel.round-started"):
    round: int
    order: tuple[str, ...]


class TurnStarted(Event, frozen=True, tag="duel.turn-started"):
    who: str


class Struck(Event, frozen=True, tag="duel.struck"):
    who: str
    target: str
    damage: Derivation  # the dice, the Speed bonus and the guard, with the rule
    hp_left: int


class Guarded(Event, frozen=True, tag="duel.guarded"):
    who: str


class Healed(Event, frozen=True, tag="duel.healed"):
    who: str
    amount: int
    hp_left: int


class RoundEnded(Event, frozen=True, tag="duel.round-ended"):
    round: int


# --- the view's own parts -----------------------------------------------------------------


class DuelFigures(Own, frozen=True, kw_only=True):
    speed: int


class Duel(Rules[DuelState]):
    id = "duel"
    state_type = DuelState
    rules_file = RULES
    options: dict[str, Option] = {}  # duel.md leaves nothing open
    stats = {
        "hp": Stat("Hit Points: at 0 or less the combatant is down", minimum=1),
        "speed": Stat("Speed: the order of the round, and +1 damage a point over the target's", minimum=0),
    }
    actions = {
        "strike": ActionInfo("the action", "--target WHO: 1d6 + the Speed by which the striker is faster"),
        "guard": ActionInfo("the action", "strikes against it deal half until its next turn"),
    }
    details: dict[str, Detail] = {}
    flags = {
        "target": Flag("strike: whom", ("declare",)),
        # A flag of its own (no command has a ``feint`` field): `--feint` in a duel's
        # encounters, read from the command's details.
        "feint": Flag("strike: a feint, 1 less damage that a guard does not halve (duel.md, Feint)", ("declare",),
                      bool),
    }
    state_version = 1

    def initial(self, started: EncounterStarted) -> DuelState:
        return DuelState(options=options_in_force(self, started))

    # --- decide: validate at the state, compute every number, never change the state ------

    @decides(StartRound)
    def _start_round(self, state: DuelState, command: StartRound, dice: Dice) -> list[Event]:
        if state.in_round:
            raise RuleViolation(f"round {state.round} is under way (`skirmish next` passes the turn)", R_ROUNDS)
        able = [f for f in state.fighters.values() if not f.down and not f.left]
        if not able:
            raise RuleViolation("nobody can act: every combatant is down or has left", R_DOWN)
        # sorted() is stable: equal Speed keeps the order they joined (duel.md, Rounds).
        order = tuple(f.name for f in sorted(able, key=lambda f: -f.speed))
        return [RoundStarted(round=state.round + 1, order=order), TurnStarted(who=order[0])]

    @decides(Next)
    def _next(self, state: DuelState, command: Next, dice: Dice) -> list[Event]:
        if not state.in_round:
            raise RuleViolation("no round is under way (`skirmish round` starts one)", R_ROUNDS)
        start = -1 if state.turn is None else state.turn
        for name in state.order[start + 1:]:
            f = state.fighters[name]
            if not f.down and not f.left:
                return [TurnStarted(who=name)]
        return [RoundEnded(round=state.round)]

    @decides(Declare)
    def _declare(self, state: DuelState, command: Declare, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), command.who)]
        if state.current != f.name:
            now = f"it is {state.current}'s" if state.current else "no round is under way"
            raise RuleViolation(f"it is not {f.name}'s turn: {now}", R_TURNS)
        if f.left:
            raise RuleViolation(f"{f.name} has left the fight (`skirmish return {f.name}`)", R_TURNS)
        if command.action not in self.actions:
            raise BadInput(f"duel has no action {command.action!r} (actions: strike, guard)")
        if f.acted:
            raise RuleViolation(f"{f.name} has already acted this turn", R_TURNS)
        feint = command.details.get("feint") == "yes"
        if command.action == "guard":
            if feint:
                raise BadInput("--feint goes with strike only")
            return [Guarded(who=f.name)]
        if command.target is None:
            raise BadInput("strike needs --target WHO")
        target = state.fighters[find_name(state.names(), command.target)]
        if target.name == f.name:
            raise RuleViolation(f"{f.name} cannot strike itself", R_TURNS)
        if target.left:
            raise RuleViolation(f"{target.name} has left the fight", R_TURNS)
        roll: Roll = dice.roll(f.name, 1, 6)
        terms = [Term("1d6", roll.total)]
        if f.speed > target.speed:
            terms.append(Term("faster by", f.speed - target.speed))
        if feint:
            terms.append(Term("feint", -1))
        total = max(0, sum(t.value for t in terms))
        formula = " + ".join(t.name for t in terms)
        halved = target.guarded and not feint
        if halved:
            formula = f"floor(({formula}) / 2), guarded"
            total //= 2
        rule = R_FEINT if feint else R_GUARD if halved else R_TURNS
        damage = Derivation(total, formula, terms=tuple(terms), rule=rule, roll=roll)
        return [Struck(who=f.name, target=target.name, damage=damage,
                       hp_left=target.hp - target.damage - total)]

    @decides(Heal)
    def _heal(self, state: DuelState, command: Heal, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), command.who)]
        if command.amount < 1:
            raise BadInput(f"heal takes at least 1 HP, not {command.amount}")
        amount = min(command.amount, f.damage)
        if amount == 0:
            raise RuleViolation(f"{f.name} has all its HP ({f.hp})", R_DOWN)
        return [Healed(who=f.name, amount=amount, hp_left=f.hp - f.damage + amount)]

    # --- apply: one stored event on the working state; never rolls, never fails ----------

    @applies(CombatantAdded)
    def _added(self, state: DuelState, event: CombatantAdded) -> None:
        state.fighters[event.name] = Fighter(name=event.name, side=event.side, hp=event.stats["hp"],
                                             speed=event.stats["speed"])

    @applies(RoundStarted)
    def _round_started(self, state: DuelState, event: RoundStarted) -> None:
        state.round, state.order, state.turn, state.in_round = event.round, list(event.order), None, True
        for f in state.fighters.values():
            f.acted = False

    @applies(TurnStarted)
    def _turn_started(self, state: DuelState, event: TurnStarted) -> None:
        state.turn = state.order.index(event.who)
        state.fighters[event.who].guarded = False

    @applies(Struck)
    def _struck(self, state: DuelState, event: Struck) -> None:
        state.fighters[event.who].acted = True
        target = state.fighters[event.target]
        target.damage = target.hp - event.hp_left

    @applies(Guarded)
    def _guarded(self, state: DuelState, event: Guarded) -> None:
        f = state.fighters[event.who]
        f.acted = f.guarded = True

    @applies(Healed)
    def _healed(self, state: DuelState, event: Healed) -> None:
        f = state.fighters[event.who]
        f.damage = f.hp - event.hp_left

    @applies(RoundEnded)
    def _round_ended(self, state: DuelState, event: RoundEnded) -> None:
        state.turn, state.in_round = None, False

    # --- view and narration ---------------------------------------------------------------

    def view(self, state: DuelState) -> View:
        now = state.current
        in_round = [state.fighters[n] for n in state.order] if state.in_round else []
        rest = [f for f in state.fighters.values() if f not in in_round]
        start = -1 if state.turn is None else state.turn
        upcoming = tuple(f.name for f in in_round[start + 1:] if not f.down and not f.left)[:1]
        combatants = []
        for f in [*in_round, *rest]:
            status: Status = "left" if f.left else "down" if f.down else "fighting"
            combatants.append(Combatant(
                name=f.name, side=f.side, status=status, acting=f.name == now,
                vital=Gauge(name="HP", value=f.hp - f.damage, maximum=f.hp),
                budget=Budget(name="actions", left=0 if f.acted else 1, of=1),
                effects=(Effect(kind="guarded", detail="until its next turn"),) if f.guarded else (),
                own=DuelFigures(speed=f.speed),
            ))
        if now is not None:
            moment = f"{now}'s turn"
        elif state.in_round:
            moment = "before the first turn"
        else:
            moment = "before the first round" if state.round == 0 else f"after round {state.round}"
        clock = Clock(round=state.round, running=state.in_round, moment=moment,
                      now=(now,) if now else (), next=upcoming)
        return View(clock=clock, combatants=tuple(combatants))

    def harm(self, event: Event) -> Harm | None:
        # Damage and healing in hit points (duel.md); the striker is on the event.
        match event:
            case Struck(who=who, target=target, damage=damage):
                return Harm(who=target, amount=damage.value, unit="HP", by=who)
            case Healed(who=who, amount=amount):
                return Harm(who=who, amount=amount, unit="HP", heal=True)
        return None

    def describe(self, event: Event) -> str:
        match event:
            case RoundStarted(round=number, order=order):
                return f"Round {number} begins: order " + ", ".join(order)
            case TurnStarted(who=who):
                return f"{who}'s turn"
            case Struck(who=who, target=target, damage=damage, hp_left=left):
                return f"{who} strikes {target} for {damage.value} ({left} HP left)"
            case Guarded(who=who):
                return f"{who} guards"
            case Healed(who=who, amount=amount, hp_left=left):
                return f"{who} is healed {amount} HP ({left} HP left)"
            case RoundEnded(round=number):
                return f"Round {number} ends"
        return type(event).__name__


RULESET: Ruleset[DuelState] = Duel()
