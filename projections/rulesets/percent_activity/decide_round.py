"""percent-activity's decisions of the round: initiative, the turns, the upkeep, and what the
GM does to a combatant between actions (damage, healing, effects, leaving)."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from shlex import quote
from typing import Literal

from skirmish.eventlog.commands import ApplyEffect, Damage, Heal, Leave, Next, StartRound, Upkeep
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Derivation, Event, Term
from skirmish.projections.ruleset import Dice, GoesDown, Rules, decides, find_name, is_down, why_down
from skirmish.projections.rulesets.percent_activity.vocabulary import (
    ACTIVITY,
    BLEEDING,
    CONDITION,
    ENCUMBERED,
    ROUND_CONDITIONS,
    R_ACTIONS,
    R_HELD,
    R_INIT,
    R_R2R,
    R_ROUND,
    R_UPKEEP,
    STAGGER,
    STUNS,
)
from skirmish.projections.rulesets.percent_activity.state import Effect, Fighter, PaState
from skirmish.projections.rulesets.percent_activity.events import (
    ActionCancelled,
    ActionContinued,
    ActionProgressed,
    DamageTaken,
    EffectApplied,
    EffectEnded,
    HitsHealed,
    Initiative,
    RoundEnded,
    RoundStarted,
    TurnPassed,
    UpkeepTick,
)


class PaRound(GoesDown, Rules[PaState]):
    """The decisions of the round: initiative, the turns, the upkeep; damage, healing, effects, leaving."""

    @decides(Damage)
    def _decide_damage(self, state: PaState, command: Damage, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), command.who)]
        if command.amount < 1:
            raise BadInput(f"damage must be at least 1 hit, not {command.amount}")
        amount = Derivation(command.amount, "hits read off the tables by the GM", rule=R_ACTIONS)
        return damage_events(state, f, amount, self.down(state, f))

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


def damage_events(state: PaState, f: Fighter, amount: Derivation, was_down: bool) -> list[Event]:
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
