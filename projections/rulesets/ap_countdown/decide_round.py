"""ap-countdown's decisions of the round: initiative, the count, the upkeep, and what the GM
does to a combatant between actions (damage, healing, effects, leaving)."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from shlex import quote

from skirmish.eventlog.commands import ApplyEffect, AtTheTable, Damage, Heal, Leave, Next, StartRound, Upkeep
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Derivation, Event, Roll, Term
from skirmish.projections.ruleset import (
    Dice,
    GOES_DOWN,
    GOES_DOWN_OPTION,
    GoesDown,
    Rules,
    decides,
    detail_int,
    find_name,
    is_down,
)
from skirmish.projections.rulesets.ap_countdown.vocabulary import (
    AP_PER_ROUND,
    BLEEDING,
    COUNT_PER_AP,
    LATE_EFFECT_AP,
    R_INIT,
    R_R2R,
    R_RES,
    R_UPKEEP,
    STAGGER,
    STUNS,
)
from skirmish.projections.rulesets.ap_countdown.state import (
    Action,
    ApState,
    Effect,
    Fighter,
    bleeding_per_round,
    may_declare,
    next_count,
)
from skirmish.projections.rulesets.ap_countdown.events import (
    ActionCancelled,
    ActionContinued,
    ActionProgressed,
    ActionReadied,
    BleedingStaunched,
    ClockAdvanced,
    CounterSet,
    DamageTaken,
    EffectApplied,
    EffectEnded,
    HitsHealed,
    Initiative,
    RoundEnded,
    RoundStarted,
    UpkeepTick,
)


class ApRound(GoesDown, Rules[ApState]):
    """The decisions of the round: its start, the count, the upkeep; damage, healing, effects, leaving."""

    def _declaring(self, state: ApState) -> set[str]:
        """The names of those who may declare an action now."""
        return {f.name for f in state.fighters.values() if may_declare(f, self.down(state, f))}

    @decides(Damage)
    def _damage(self, state: ApState, command: Damage, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), command.who))
        if command.amount < 1:
            raise BadInput(f"damage must be at least 1 hit, not {command.amount}")
        amount = Derivation(command.amount, "hits read off the tables by the GM", rule=R_RES)
        return damage_events(state, f, amount, self.down(state, f))

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
        new = next_count(state, may)
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
            given = flag_int(cmd, "start")
            start = given if given is not None else (existing.value if existing else 0)
            return [CounterSet(name=kind, value=start, per_round=cmd.per_round)]
        f = state.fighter(find_name(state.names(), cmd.who))
        if cmd.end:
            if kind == BLEEDING and bleeding_per_round(f) > 0:
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
            bleed = bleeding_per_round(f)
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


def _base_initiative(f: Fighter, roll: Roll) -> Derivation:
    penalty_steps = -((-f.penalty) // 10)
    terms = (Term("2d10", roll.total), Term("Qu", f.qu), Term("1 per -10 penalty", penalty_steps))
    value = roll.total + f.qu + penalty_steps
    return Derivation(value, "2d10 + Qu - 1 per -10 penalty", terms, R_INIT, roll)


def _continue(a: Action, who: str, top: int, ap: int) -> ActionContinued:
    remaining = a.cost - a.progress
    if remaining <= ap:
        at = Derivation(top - COUNT_PER_AP * remaining, "initiative - 5 x AP still to pay",
                        (Term("initiative", top), Term("5 x AP to go", -COUNT_PER_AP * remaining)), R_R2R)
        return ActionContinued(who=who, action=a.name, step="resolves", at=at)
    at = Derivation(top - COUNT_PER_AP * ap, "initiative - 5 x AP (the whole round)",
                    (Term("initiative", top), Term("5 x AP", -COUNT_PER_AP * ap)), R_R2R)
    return ActionContinued(who=who, action=a.name, step="progresses", at=at)


def _arrive(f: Fighter, a: Action) -> Event:
    """A share of a round-to-round action, or a held action's readying, reaches its count."""
    if a.step == "readies":
        assert a.trigger is not None
        # A held melee attack whose AP a used parry already spent is not paid twice (Parry).
        return ActionReadied(who=f.name, action=a.name, paid=0 if a.paid else a.cost, trigger=a.trigger)
    paid = min(f.ap, a.cost - a.progress)  # never more than it still needs
    return ActionProgressed(who=f.name, action=a.name, paid=paid, progress=a.progress + paid, cost=a.cost)


def damage_events(state: ApState, f: Fighter, amount: Derivation, was_down: bool) -> list[Event]:
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


def flag_int(cmd: AtTheTable, key: str) -> int | None:
    """A number flag of this ruleset's own, as it travels in ``details``; None: not given."""
    return detail_int(cmd, key) if key in cmd.details else None


def _worst_stun(effects: tuple[Effect, ...]) -> int:
    """Index of the stun upkeep reduces: the most severe, the earliest applied among equals."""
    stuns = [i for i, e in enumerate(effects) if e.kind in STUNS]
    return max(stuns, key=lambda i: (STUNS[effects[i].kind], -i))
