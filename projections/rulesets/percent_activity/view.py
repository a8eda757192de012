"""percent-activity's view (projections/view.py) and the words of its events."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from skirmish.eventlog.events import Event
from skirmish.projections.ruleset import GoesDown, Harm, Rules
from skirmish.projections.view import (
    Budget,
    Clock,
    Combatant,
    Effect as EffectRow,
    Gauge,
    NoOwn,
    Own,
    Pending,
    View,
)
from skirmish.projections.rulesets.percent_activity.vocabulary import ACTIVITY, Step
from skirmish.projections.rulesets.percent_activity.state import Action, PaState
from skirmish.projections.rulesets.percent_activity.events import (
    ActionCancelled,
    ActionContinued,
    ActionDeclared,
    ActionProgressed,
    ActionResolved,
    DamageTaken,
    EffectApplied,
    EffectEnded,
    HitsHealed,
    RoundEnded,
    RoundStarted,
    TurnPassed,
    UpkeepTick,
)


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


class PaView(GoesDown, Rules[PaState]):
    """The view and the words of the events."""

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


def _resolves(who: str, a: Action) -> str:
    """When a pending action resolves, as the GM reads it."""
    if a.step == "held":
        return f"on trigger: {a.trigger}"  # Conditional Action
    if a.step == "progresses":
        return "spans rounds"  # Round to Round Actions: paid at each upkeep
    return f"in {who}'s turn"  # Resolve Actions step
