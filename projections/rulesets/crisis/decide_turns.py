"""crisis's decisions of the turn: its start (the turn order rolled, AP gained), passing it
on and its end, and what the GM does between moves (heal, cancel, leave)."""

from collections.abc import Iterable
from shlex import quote

from skirmish.eventlog.commands import Cancel, Heal, Leave, Next, StartRound, Upkeep
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Derivation, Event, Roll, Term
from skirmish.projections.ruleset import Dice, Rules, decides, find_name
from skirmish.projections.rulesets.crisis.events import (
    ActionCancelled,
    ConditionEnded,
    Gain,
    Healed,
    OrderRoll,
    TurnEnded,
    TurnPassed,
    TurnStarted,
)
from skirmish.projections.rulesets.crisis.state import CrisisState, Fighter
from skirmish.projections.rulesets.crisis.vocabulary import (
    AP_MAX,
    AP_PER_TURN,
    AP_PER_TURN_EXHAUSTED,
    R_ACTIONS,
    R_CONDITIONS,
    R_DAMAGE,
    R_ORDER,
    R_SURPRISE,
)


class CrisisTurns(Rules[CrisisState]):
    """The decisions of the turn: round, next, upkeep; and heal, cancel, leave between moves."""

    @decides(Upkeep)
    def _upkeep(self, state: CrisisState, command: Upkeep, dice: Dice) -> list[Event]:
        need_turn(state)
        no_hit_waiting(state.fighters.values())
        return self._end_turn(state)

    @decides(Cancel)
    def _cancel(self, state: CrisisState, command: Cancel, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), command.who))
        if f.action is None:
            raise RuleViolation(f"{f.name} has no action under way to cancel", R_ACTIONS)
        return [ActionCancelled(who=f.name, action=f.action.name, reason="cancelled by the GM")]

    @decides(Heal)
    def _heal(self, state: CrisisState, command: Heal, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), command.who))
        if command.amount < 1:
            raise BadInput(f"heal takes at least 1, not {command.amount}")
        if f.dead:
            raise RuleViolation(f"{f.name} is dead: nothing in the text brings the dead back", R_DAMAGE)
        to_health = min(command.amount, f.stats["health"] - f.health)
        to_endurance = min(command.amount - to_health, f.stats["endurance"] - f.endurance)
        if to_health + to_endurance == 0:
            raise RuleViolation(f"{f.name} has all its Health and Endurance: nothing to heal")
        given = Derivation(to_health + to_endurance, "Health first, then Endurance, each up to its stat",
                           (Term("healed", command.amount), Term("Health taken", f.stats["health"] - f.health),
                            Term("Endurance taken", f.stats["endurance"] - f.endurance)))
        return [Healed(who=f.name, amount=given, to_health=to_health, to_endurance=to_endurance)]

    @decides(Leave)
    def _leave(self, state: CrisisState, command: Leave, dice: Dice) -> list[Event]:
        events = self._decide_leave(state, command, dice)
        f = state.fighter(find_name(state.names(), command.who))
        if f.action is not None:
            events.append(ActionCancelled(who=f.name, action=f.action.name, reason=f"{f.name} leaves the fight"))
        return events

    @decides(StartRound)
    def _start_turn(self, state: CrisisState, command: StartRound, dice: Dice) -> list[Event]:
        if state.in_turn:
            raise RuleViolation(
                f"turn {state.turn} is still under way: `skirmish next` through it or `skirmish upkeep`", R_ORDER
            )
        if not state.fighters:
            raise RuleViolation("no combatants yet: add some with `skirmish add NAME --stat ...`")
        turn = state.turn + 1
        surprise = self._surprisers(state, command)
        each_turn = state.options["turn-order"] == "each-turn"
        # Turn Order: every *involved* character rolls: the dead and those who left do not
        # (a dead one keeps its place; one who left and never rolled rolls on its return).
        to_roll = [f for f in state.fighters.values() if (f.order is None or each_turn) and not (f.dead or f.left)]
        rolled_names = {f.name.lower() for f in to_roll}
        for key in command.rolls:
            name = key.lower()
            if name not in rolled_names and name in {n.lower() for n in state.names()}:
                f = state.fighter(find_name(state.names(), name))
                if f.dead or f.left:
                    why = "is dead" if f.dead else "has left the fight"
                    raise RuleViolation(f"{f.name} {why}: it rolls no turn order", R_ORDER)
                raise RuleViolation(
                    f"{find_name(state.names(), name)}'s turn order was rolled when the crisis began "
                    "(option turn-order=once)", R_ORDER,
                )
        totals = {f.name: _order_total(f, dice.roll(f.name, 3, 6)) for f in to_roll}
        orders = {f.name: totals[f.name].value if f.name in totals else f.order for f in state.fighters.values()}
        sequence, rerolls = _settle_order(state, orders, dice)
        rolls = tuple(OrderRoll(name, total, rerolls.get(name, ())) for name, total in totals.items())
        # A re-roll between combatants who were not rolled this turn is recorded too.
        rolls += tuple(
            OrderRoll(name, Derivation(orders[name] or 0, "turn order rolled earlier", rule=R_ORDER), faces)
            for name, faces in rerolls.items() if name not in totals
        )
        # Actions: the dead and those who left gain nothing; listed only when that changes
        # their AP (the dead lose what they had).
        gains = tuple(
            Gain(f.name, gain) for f in state.fighters.values()
            for gain in (_gain(state, f, turn, surprise),) if not ((f.dead or f.left) and gain.value == f.ap)
        )
        acting = state.first_able(sequence, turn, surprise)
        return [TurnStarted(turn=turn, sequence=sequence, rolls=rolls, gains=gains, acting=acting, surprise=surprise,
                            budgets=True)]

    def _surprisers(self, state: CrisisState, command: StartRound) -> tuple[str, ...]:
        raw = command.details.get("surprise")
        if raw is None:
            return ()
        if state.turn > 0:
            raise RuleViolation("a surprise round comes before combat starts: only on the first turn", R_SURPRISE)
        names = tuple(dict.fromkeys(find_name(state.names(), n.strip()) for n in raw.split(",") if n.strip()))
        if not names:
            raise BadInput("--with surprise= takes the attackers' names, e.g. surprise=Jack,Mira")
        if len(names) == len(state.fighters):
            raise RuleViolation("a surprise round needs someone who has not noticed the attackers", R_SURPRISE)
        return names

    @decides(Next)
    def _next(self, state: CrisisState, command: Next, dice: Dice) -> list[Event]:
        need_turn(state)
        if state.acting is None:
            return self._end_turn(state)
        no_hit_waiting([state.fighter(state.acting)])
        to = state.after_acting()
        passed: list[Event] = [TurnPassed(by=state.acting, to=to)]
        return passed if to is not None else passed + self._end_turn(state)

    def _end_turn(self, state: CrisisState) -> list[Event]:
        events: list[Event] = []
        for f in state.fighters.values():
            c = f.conditions.get("stunned")
            if c is not None and c.until is not None and c.until <= state.turn:
                events.append(ConditionEnded(who=f.name, kind="stunned", reason=f"turn {state.turn} is over"))
        return [*events, TurnEnded(turn=state.turn)]


def need_turn(state: CrisisState) -> None:
    if not state.in_turn:
        raise RuleViolation("no turn under way: start one with `skirmish round`", R_ORDER)


def hit_waiting(f: Fighter) -> str:
    assert f.action is not None
    return (f"{f.name}'s hit on {f.action.target} awaits its damage: "
            f"`skirmish resolve {quote(f.name)} --hits N` or `skirmish cancel {quote(f.name)}`")


def no_hit_waiting(fighters: Iterable[Fighter]) -> None:
    for f in fighters:
        if f.action is not None and f.action.kind == "hit":
            raise RuleViolation(hit_waiting(f), R_DAMAGE)


def _order_total(f: Fighter, roll: Roll) -> Derivation:
    # Turn Order: 3d6 + Intelligence + Speed + circumstance (perks, flaws, race).
    terms = (Term("3d6", roll.total), Term("Intelligence", f.figure("int")), Term("Speed", f.figure("speed")),
             Term("circumstance", f.stats["order-bonus"]))
    return Derivation(sum(t.value for t in terms), "3d6 + Intelligence + Speed + circumstance", terms, R_ORDER, roll)


def _settle_order(
    state: CrisisState, orders: dict[str, int | None], dice: Dice
) -> tuple[tuple[str, ...], dict[str, tuple[Roll, ...]]]:
    """Highest first; ties by Intelligence, then Speed, then re-rolls among the still tied."""
    ranked = [state.fighter(n) for n, o in orders.items() if o is not None]

    def key(f: Fighter) -> tuple[int, int, int]:
        return (orders[f.name] or 0, f.figure("int"), f.figure("speed"))

    groups: dict[tuple[int, int, int], list[str]] = {}
    for f in ranked:
        groups.setdefault(key(f), []).append(f.name)
    rerolls: dict[str, list[Roll]] = {}
    sequence: list[str] = []
    placed = {name: i for i, name in enumerate(state.sequence)}
    for k in sorted(groups, reverse=True):
        tied = groups[k]
        if all(name in placed for name in tied) and len(tied) > 1:
            # Settled when their order was rolled (option turn-order=once): not again.
            sequence += sorted(tied, key=placed.__getitem__)
        else:
            # The dead and those who left keep their place but roll no more (Turn Order:
            # every *involved* character rolls): the others settle the tie, before them.
            gone = [n for n in tied if state.fighter(n).dead or state.fighter(n).left]
            sequence += _reroll([n for n in tied if n not in gone], dice, rerolls)
            sequence += sorted(gone, key=lambda n: placed.get(n, len(placed)))
    return tuple(sequence), {n: tuple(r) for n, r in rerolls.items()}


def _reroll(tied: list[str], dice: Dice, rerolls: dict[str, list[Roll]]) -> list[str]:
    """Turn Order: "if there is still a tie, roll again", as often as it takes."""
    if len(tied) == 1:
        return tied
    results: dict[int, list[str]] = {}
    for name in tied:
        done = rerolls.setdefault(name, [])
        roll = dice.roll(f"{name}-reroll" + (str(len(done) + 1) if done else ""), 3, 6)
        done.append(roll)
        results.setdefault(roll.total, []).append(name)
    return [n for total in sorted(results, reverse=True) for n in _reroll(results[total], dice, rerolls)]


def _gain(state: CrisisState, f: Fighter, turn: int, surprise: tuple[str, ...]) -> Derivation:
    # Actions: +4 at the start of each turn, capped at 6; Damage: 2 once Endurance is 0;
    # Conditions: none while stunned; Surprise Round: only the attackers gain in it.
    if f.dead:
        gain, why = -f.ap, "dead: no AP"
    elif f.left:
        gain, why = 0, "has left the fight"
    elif surprise and f.name not in surprise:
        gain, why = 0, "surprised"
    elif f.no_gain_turn == turn:
        gain, why = 0, "stunned: no AP regained"
    elif f.endurance <= 0:
        gain, why = AP_PER_TURN_EXHAUSTED, "Endurance 0"
    else:
        gain, why = AP_PER_TURN, "start of turn"
    over = max(0, f.ap + gain - AP_MAX)
    terms = (Term("AP left", f.ap), Term(why, gain), Term("over 6, lost", -over))
    rule = R_CONDITIONS if why.startswith("stunned") else R_DAMAGE if why.startswith(("Endurance", "dead")) else R_ACTIONS
    return Derivation(f.ap + gain - over, "AP left + turn's gain, at most 6", terms, rule)
