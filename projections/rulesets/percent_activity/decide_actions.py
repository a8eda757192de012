"""percent-activity's decisions of an action: declared (the activity it takes), resolved,
cancelled."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from skirmish.eventlog.commands import AtTheTable, Cancel, Declare, Resolve
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Derivation, Event, Term
from skirmish.projections.ruleset import Dice, GoesDown, Rules, decides, detail_int, find_name, suggest
from skirmish.projections.rulesets.percent_activity.vocabulary import (
    ACTIONS,
    ACTIVITY,
    INSTANT,
    MELEE,
    MOVE,
    R_ACTIONS,
    R_HELD,
    R_INIT,
    R_INSTANT,
    R_R2R,
    Step,
)
from skirmish.projections.rulesets.percent_activity.state import Fighter, PaState
from skirmish.projections.rulesets.percent_activity.events import (
    ActionCancelled,
    ActionDeclared,
    ActionResolved,
)
from skirmish.projections.rulesets.percent_activity.decide_round import damage_events


def _flag_int(cmd: AtTheTable, key: str) -> int | None:
    """A number flag of this ruleset's own, as it travels in ``details``; None: not given."""
    return detail_int(cmd, key) if key in cmd.details else None


def percent_span(low: int, high: int | None) -> str:
    return f"{low}+ %" if high is None else f"{low} %" if low == high else f"{low}-{high} %"


class PaActions(GoesDown, Rules[PaState]):
    """The decisions of an action: declared (its activity), resolved, cancelled."""

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
            raise RuleViolation(f"{action} takes {percent_span(low, high)}, not {percent} %", R_ACTIONS)
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
            events += damage_events(state, target, amount, self.down(state, target))
        return events

    @decides(Cancel)
    def _cancel(self, state: PaState, cmd: Cancel, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), cmd.who))
        if f.action is None:
            raise RuleViolation(f"{f.name} has no action under way to cancel", R_ACTIONS)
        return [ActionCancelled(who=f.name, action=f.action.name, reason="cancelled: its activity stays spent")]


def _penalty(cost: int, high: int | None) -> Derivation:
    if high is None or cost >= high:
        return Derivation(0, "at the range's maximum or a fixed share: no penalty", rule=R_ACTIONS)
    return Derivation(cost - high, "-1 per % under the maximum",
                      (Term(f"{high - cost} % under the maximum", cost - high),), R_ACTIONS)
