"""phases's decisions of the turn: its start (initiative, moves carried on), the phases and
calls passed with `next` (repeated actions played), its end, wounds and effects, and what
the GM does between calls."""

from shlex import quote

from msgspec.structs import replace

from skirmish.eventlog.commands import ApplyEffect, Cancel, Damage, Heal, Next, Resolve, StartRound, Upkeep
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Derivation, Event, Term
from skirmish.projections.ruleset import Dice, decides, detail_int, find_name
from skirmish.projections.rulesets.phases.calls import PhasesCalls, initiative
from skirmish.projections.rulesets.phases.events import (
    ActionResolved,
    ActionTaken,
    ClockAdvanced,
    EffectApplied,
    EffectEnded,
    Initiative,
    RepetitionInterrupted,
    TurnEnded,
    TurnStarted,
)
from skirmish.projections.rulesets.phases.state import Fighter, PhaseState, wounds_after
from skirmish.projections.rulesets.phases.vocabulary import (
    MOVES,
    PANIC,
    PHASES,
    R_ACTIONS,
    R_AMBUSH,
    R_INIT,
    R_REPEAT,
    R_SEQ,
    R_TURN,
    WOUNDS,
)


class PhasesTurns(PhasesCalls):
    """The decisions of the turn: round, next, upkeep; resolve, interrupt, wounds and effects."""

    @decides(Damage)
    def _damage(self, state: PhaseState, cmd: Damage, dice: Dice) -> list[Event]:
        find_name(state.names(), cmd.who)
        raise RuleViolation(
            "phases.md counts wounds, not hits: `skirmish effect WHO slight-wound` or `serious-wound`", R_INIT,
        )

    @decides(Heal)
    def _heal(self, state: PhaseState, cmd: Heal, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), cmd.who)]
        raise RuleViolation(
            f"phases.md counts wounds, not hits: `skirmish effect {quote(f.name)} slight-wound --end` "
            "(or serious-wound) takes a wound off", R_INIT,
        )

    @decides(Upkeep)
    def _upkeep(self, state: PhaseState, cmd: Upkeep, dice: Dice) -> list[Event]:
        _need_turn(state)
        if state.phase != 1:
            raise RuleViolation(
                f"phase {state.phase} is under way: the turn ends after phase 1 (`skirmish next`)", R_SEQ
            )
        return [self._end(state)]

    @decides(StartRound)
    def _start_turn(self, state: PhaseState, cmd: StartRound, dice: Dice) -> list[Event]:
        if state.in_turn:
            raise RuleViolation(
                f"turn {state.turn} is still under way (phase {state.phase}): `skirmish next` walks it to its end",
                R_SEQ,
            )
        if not state.fighters:
            raise RuleViolation("no combatants yet: add some with `skirmish add NAME --stat initiative=N`")
        turn = state.turn + 1
        fighters = list(state.fighters.values())
        inits = tuple(Initiative(f.name, initiative(f, state.options["wounds"])) for f in fighters)
        side = cmd.details.get("ambush")
        move = cmd.details.get("ambush-move", "walk")
        if side is None:
            if "ambush-move" in cmd.details:
                raise BadInput("--with ambush-move= goes with --with ambush=SIDE")
            return [TurnStarted(turn=turn, initiatives=inits, budgets=True)]
        if turn != 1:
            raise RuleViolation("an ambush is sprung on the first combat turn", R_AMBUSH)
        sides = {f.side.lower(): f.side for f in fighters}
        if side.lower() not in sides:
            raise BadInput(f"no side {side!r} to ambush (sides: {', '.join(sorted(set(sides.values())))})")
        side = sides[side.lower()]
        events: list[Event] = [TurnStarted(turn=turn, initiatives=inits, ambush=side, budgets=True)]
        for f, init in zip(fighters, inits, strict=True):
            # The moving force walks on, every phase, except those with initiative 6 (Ambush).
            if f.side != side or init.initiative.value in (0, PHASES):
                continue
            distance = _distance(f, move)
            events.append(ActionTaken(
                who=f.name, action=move, phase=PHASES, call=0, how="repeated", repeat=True,
                distance=distance, prone=move == "crawl",
                reason=f"ambushed with initiative {init.initiative.value}, not 6 ({R_AMBUSH})",
            ))
        return events

    @decides(Next)
    def _next(self, state: PhaseState, cmd: Next, dice: Dice) -> list[Event]:
        _need_turn(state)
        assert state.phase is not None
        upcoming = self._upcoming(state, state.phase, state.call)
        if upcoming is None:
            return [self._end(state)]
        phase, call, acting = upcoming
        events: list[Event] = [ClockAdvanced(phase=phase, call=call, acting=tuple(f.name for f in acting))]
        if call == 0:
            events += [_repeated(f, phase) for f in acting]
        return events

    def _end(self, state: PhaseState) -> TurnEnded:
        return TurnEnded(turn=state.turn, actions={f.name: len(f.acted) for f in state.fighters.values() if f.acted})

    @decides(Resolve)
    def _resolve(self, state: PhaseState, cmd: Resolve, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), cmd.who)]
        if cmd.outcome is None or not cmd.outcome.strip():
            raise BadInput("resolve takes --outcome TEXT: what the action achieved")
        if f.last is None:
            raise RuleViolation(f"{f.name} has taken no action this turn to resolve", R_ACTIONS)
        if f.last.resolved:
            raise RuleViolation(f"{f.name}'s {f.last.action} is already resolved", R_ACTIONS)
        return [ActionResolved(who=f.name, action=f.last.action, outcome=cmd.outcome.strip())]

    @decides(Cancel)
    def _interrupt(self, state: PhaseState, cmd: Cancel, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), cmd.who)]
        if f.repeat is None or state.phase is None:
            raise RuleViolation(f"{f.name} is not repeating an action: nothing to interrupt", R_REPEAT)
        return [RepetitionInterrupted(who=f.name, action=f.repeat.action, phase=state.phase)]

    @decides(ApplyEffect)
    def _effect(self, state: PhaseState, cmd: ApplyEffect, dice: Dice) -> list[Event]:
        if cmd.who.lower() == "scene":
            raise RuleViolation("phases.md keeps no scene counters", R_TURN)
        f = state.fighters[find_name(state.names(), cmd.who)]
        kind = cmd.kind.lower()
        if kind not in (*WOUNDS, PANIC):
            raise BadInput(f"phases effects are slight-wound, serious-wound and panic, not {cmd.kind!r}")
        if cmd.end:
            if "by" in cmd.details:
                raise BadInput("--with by= goes with a new panic, not its end")
            has = {PANIC: f.panic, "slight-wound": f.slight, "serious-wound": f.serious}[kind]
            if not has:
                raise RuleViolation(f"{f.name} has no {kind} to end")
            held = wounds_after(f, kind, -1)
            return [EffectEnded(who=f.name, kind=kind, initiative=initiative(f, state.options["wounds"], held))]
        if kind == PANIC:
            by = detail_int(cmd, "by", 0)
            if by < 1:
                raise BadInput("panic needs --with by=N: the initiative points the GM rules it costs")
        else:
            if "by" in cmd.details:
                raise BadInput(f"a {kind} lowers initiative by the rule, not --with by=")
            by = WOUNDS[kind]
        held = wounds_after(f, kind, by)
        return [EffectApplied(who=f.name, kind=kind, by=by, initiative=initiative(f, state.options["wounds"], held))]


def _need_turn(state: PhaseState) -> None:
    if not state.in_turn:
        raise RuleViolation("no turn under way: start one with `skirmish round`", R_SEQ)


def _distance(f: Fighter, move: str) -> Derivation:
    """Metres moved: the action's distance, halved when it stands the character up (Actions)."""
    metres = MOVES[move]
    if f.prone and move != "crawl":
        # "Standing up cuts the distance moved in an action in half" (Actions): never rounded,
        # kept exact in half metres.
        return Derivation(metres, f"{move} {metres} m, halved: standing up",
                          (Term(f"{move} m", metres),), R_ACTIONS, per=2)
    return Derivation(metres, f"{move} {metres} m", (Term(f"{move} m", metres),), R_ACTIONS)


def _repeated(f: Fighter, phase: int) -> ActionTaken:
    """The same action again, at the start of the phase (Repetition)."""
    r = f.repeat
    assert r is not None
    move = r.action if r.action in MOVES else r.move
    event = ActionTaken(
        who=f.name, action=r.action, phase=phase, call=0, how="repeated", target=r.target, area=r.area,
        move=r.move, melee=r.melee, reason=f"repeated at the start of the phase ({R_REPEAT})",
    )
    if move is not None:
        event = replace(event, distance=_distance(f, move), prone=move == "crawl")
    if r.action == "reload" and f.reload is not None:
        event = replace(event, reload=(f.reload[0] + 1, f.reload[1]))
    return event
