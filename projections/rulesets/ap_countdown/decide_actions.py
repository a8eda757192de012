"""ap-countdown's decisions of an action: declared (its cost, a move's pace, a parry),
resolved (a charge, the hits), cancelled (an Orientation Maneuver)."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from msgspec.structs import replace

from skirmish.eventlog.commands import Cancel, Declare, Resolve
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Derivation, Event, Term
from skirmish.projections.ruleset import Dice, GoesDown, Rules, decides, detail_int, find_name, suggest
from skirmish.projections.rulesets.ap_countdown.vocabulary import (
    ACTIONS,
    AP_PER_ROUND,
    CHARGE,
    COUNT_PER_AP,
    MELEE,
    ORIENTATION,
    RANGE_PENALTY_PER_AP,
    R_ACTIONS,
    R_AP,
    R_CANCEL,
    R_CHARGE,
    R_HELD,
    R_INIT,
    R_INSTANT,
    R_MOVE,
    R_PARRY,
    R_R2R,
    R_RES,
    SPECIAL_ACTIONS,
    Step,
)
from skirmish.projections.rulesets.ap_countdown.state import Action, ApState, Fighter, bleeding_per_round
from skirmish.projections.rulesets.ap_countdown.events import (
    ActionCancelled,
    ActionDeclared,
    ActionReadied,
    ActionResolved,
    BleedingStaunched,
    PaceChanged,
    ParryDeclared,
    ParryUsed,
)
from skirmish.projections.rulesets.ap_countdown.decide_round import damage_events, flag_int


class ApActions(GoesDown, Rules[ApState]):
    """The decisions of an action: declared (a move, a parry), resolved, cancelled."""

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
        cost = _cost(f, action, flag_int(cmd, "ap"), low, high)
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
        if "ap" in cmd.details:
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
        charge_speed = flag_int(cmd, "charge")
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
            events += damage_events(state, target, amount, self.down(state, target))
        if a.name == "first-aid" and target is not None and bleeding_per_round(target) > 0:
            events.append(BleedingStaunched(who=target.name, by=f.name, per_round=bleeding_per_round(target) - 1))
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


def _round_to_round(a: Action) -> bool:
    """An action spanning rounds (Round to Round Actions): more than 4 AP, and more than
    the AP held when it was declared (its first share still to come, or some paid)."""
    return a.cost > AP_PER_ROUND and (a.step == "progresses" or a.progress > 0)


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
