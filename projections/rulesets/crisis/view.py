"""crisis's view (projections/view.py) and the words of its events."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from skirmish.eventlog.events import Event
from skirmish.projections.ruleset import Harm, Rules
from skirmish.projections.rulesets.crisis.events import (
    ActionCancelled,
    ActionProgressed,
    ActionTaken,
    AttackRolled,
    ConditionEnded,
    ConditionSet,
    DamageTaken,
    Healed,
    TurnEnded,
    TurnPassed,
    TurnStarted,
)
from skirmish.projections.rulesets.crisis.state import Condition, CrisisState
from skirmish.projections.rulesets.crisis.vocabulary import AP_MAX, CONDITIONS
from skirmish.projections.view import Budget, Clock, Combatant, Effect, Gauge, Own, Pending, View


class CrisisClock(Own, frozen=True, kw_only=True):
    surprise_round: bool = False  # Surprise Round: only its attackers act


class CrisisFigures(Own, frozen=True, kw_only=True):
    turn_order: int | None  # None: rolls at the next turn's start (Turn Order)
    ap_spent: int  # this turn
    endurance: int
    durability: int  # the armour's


class CrisisPending(Own, frozen=True, kw_only=True):
    ap: int  # what the action costs in all (an action over 6 AP spans turns); 0 for a hit
    progress: int  # AP put in so far


def _moment(state: CrisisState) -> str:
    if not state.in_turn:
        return "before the first turn" if state.turn == 0 else "between turns"
    who = f"{state.acting}'s turn" if state.acting is not None else "nobody left to act"
    return f"surprise round, {who}" if state.surprise else who


def _effect(state: CrisisState, c: Condition) -> Effect:
    """Drunk and Prone last until ended; a stun covers the turns up to its last, the one
    under way included."""
    if c.until is None:
        return Effect(kind=c.kind, custom=c.kind not in CONDITIONS)
    left = max(0, c.until - state.turn + (1 if state.in_turn else 0))
    return Effect(kind=c.kind, left=left, detail=f"cannot act through turn {c.until}")


class CrisisView(Rules[CrisisState]):
    """The view every surface reads, the harm each event does, and its words."""

    def view(self, state: CrisisState) -> View:
        fighters = state.fighters
        # Acting order: this turn's order (Turn Order), the dead in their places; those who
        # joined since it was rolled after, in the order they were added.
        placed = set(state.sequence)
        ordered = [fighters[n] for n in state.sequence]
        ordered += [f for f in fighters.values() if f.name not in placed]
        now = (state.acting,) if state.acting is not None else ()
        # Between turns the next to act is not known: the next turn's start settles it.
        after = state.after_acting() if state.in_turn else None
        clock = Clock(
            round=state.turn, unit="turn", running=state.in_turn, moment=_moment(state), now=now,
            next=(after,) if after is not None else (), own=CrisisClock(surprise_round=bool(state.surprise)),
        )
        combatants = tuple(
            Combatant(
                name=f.name, side=f.side, status="left" if f.left else "dead" if f.dead else "fighting",
                acting=f.name == state.acting,
                vital=Gauge(name="Health", value=f.health, maximum=f.stats["health"]),
                # Damage: Endurance takes damage first, and at 0 halves the AP gain: shown beside Health.
                vital2=Gauge(name="Endurance", value=f.endurance, maximum=f.stats["endurance"]),
                # What it had this turn: AP carry and only payments lower them within it.
                budget=Budget(name="AP", left=f.ap, of=f.ap + f.spent if state.budgets else AP_MAX),
                effects=tuple(_effect(state, c) for c in f.conditions.values()),
                own=CrisisFigures(turn_order=f.order, ap_spent=f.spent, endurance=f.endurance, durability=f.durability),
            )
            for f in ordered
        )
        pending = tuple(
            Pending(
                who=f.name, action=f.action.name, target=f.action.target,
                resolves="awaits damage" if f.action.kind == "hit" else "spans turns",
                own=CrisisPending(ap=f.action.cost, progress=f.action.progress),
            )
            for f in ordered if f.action is not None
        )
        return View(clock=clock, combatants=combatants, pending=pending)

    def harm(self, event: Event) -> Harm | None:
        # Damage reduces Endurance, then Health (crisis.md, Damage): what was taken is both,
        # after armour's DR; the attacker is recorded on the event.
        match event:
            case DamageTaken(who=who, to_endurance=end, to_health=health, by=by):
                return Harm(who=who, amount=end + health, unit="Endurance and Health", by=by)
            case Healed(who=who, to_endurance=end, to_health=health):
                return Harm(who=who, amount=end + health, unit="Endurance and Health", heal=True)
        return None

    def describe(self, event: Event) -> str:
        match event:
            case TurnStarted(turn=turn, sequence=sequence, rolls=rolls, gains=gains, acting=acting, surprise=surprise):
                kind = f"a surprise round for {', '.join(surprise)}; " if surprise else ""
                order = ", ".join(
                    f"{r.who} {r.total.value}" + (f" (re-roll {', '.join(str(x.total) for x in r.rerolls)})"
                                                  if r.rerolls else "") for r in rolls
                )
                ap = ", ".join(f"{g.who} {g.ap.value}" for g in gains)
                rolled = f"; turn order rolled: {order}" if order else ""
                return (f"Turn {turn} begins: {kind}order {', '.join(sequence)}{rolled}; AP {ap}; "
                        + (f"{acting} acts" if acting else "nobody can act"))
            case TurnPassed(by=by, to=to):
                return f"{by} is done; {to} acts" if to else f"{by} is done: everyone has acted"
            case ActionTaken(who=who, action=action, cost=cost, paid=paid, spans=spans, target=target,
                             distance=distance, what=what):
                on = f" on {target}" if target else ""
                name = f"{action} ({what})" if what else action
                far = f", up to {distance.shown()} m" if distance else ""
                if spans:
                    return f"{who} starts {name}{on}: {cost.value} AP over several turns, {paid} put in now"
                return f"{who} acts: {name}{on} ({paid} AP{far})"
            case AttackRolled(who=who, target=target, attack=attack, defence=defence, hit=hit):
                return (f"{who} attacks {target}: {attack.value} against defence {defence.value}: "
                        + ("hit" if hit else "miss"))
            case ActionProgressed(who=who, action=action, paid=paid, progress=progress, cost=cost):
                tail = ": done" if event.done else ""
                return f"{who} puts {paid} AP into {action} ({progress} of {cost}){tail}"
            case ActionCancelled(who=who, action=action, reason=reason):
                return f"{who}'s {action} is cancelled: {reason}"
            case Healed(who=who, amount=amount, to_health=health, to_endurance=end):
                parts = [f"{n} {what}" for n, what in ((health, "Health"), (end, "Endurance")) if n]
                return f"{who} is healed {amount.value} ({', '.join(parts)})"
            case DamageTaken(who=who, amount=amount, taken=taken, to_endurance=end, to_health=health,
                             endurance_left=end_left, health_left=health_left, durability_lost=lost, critical=critical):
                parts = [f"{end} to Endurance ({end_left} left)"] if end else []
                parts += [f"{health} to Health ({health_left} left)"] if health or critical else []
                off = "".join(f", {t.name} {t.value:+d}" for t in taken.terms[1:])
                armour = f", armour loses {lost} Durability" if lost else ""
                crit = "critical " if critical else ""
                down = "; dead" if health_left <= 0 else "; Endurance spent: 2 AP a turn" if end and end_left == 0 else ""
                return f"{who} takes {amount.value} {crit}damage: {', '.join(parts) or 'none'}{off}{armour}{down}"
            case ConditionSet(who=who, kind=kind, until=until):
                return f"{who} is {kind}" + (f" (cannot act through turn {until})" if until is not None else "")
            case ConditionEnded(who=who, kind=kind, reason=reason):
                return f"{who} is no longer {kind} ({reason})"
            case TurnEnded(turn=turn):
                return f"Turn {turn} ends"
        return type(event).__name__
