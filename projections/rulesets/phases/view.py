"""phases's view (projections/view.py) and the words of its events."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

import msgspec

from skirmish.eventlog.events import Event
from skirmish.projections.ruleset import Harm
from skirmish.projections.rulesets.phases.calls import PhasesCalls
from skirmish.projections.rulesets.phases.events import (
    ActionResolved,
    ActionTaken,
    ClockAdvanced,
    EffectApplied,
    EffectEnded,
    RepetitionInterrupted,
    TurnEnded,
    TurnStarted,
)
from skirmish.projections.rulesets.phases.state import Fighter, PhaseState
from skirmish.projections.rulesets.phases.vocabulary import PANIC, PHASES, WOUNDS
from skirmish.projections.view import Budget, Clock, Combatant, Effect, Gauge, Own, Pending, View


# --- view parts ----------------------------------------------------------------------------


class PhasesClock(Own, frozen=True, kw_only=True):
    """The clock's place in the turn: ``call`` is the initiative value called (0: the start
    of the phase, where repetitive actions are conducted); both None between turns."""

    phase: int | None = None
    call: int | None = None


class PhasesFigures(Own, frozen=True, kw_only=True):
    agility_less_bulk: int  # who goes first at equal initiative (Agility and Weapon Bulks)
    actions: int  # taken this turn
    acts_in: tuple[int, ...]  # the phases still to come this turn (the next, between turns)
    moved_m: float
    prone: bool
    mounted: bool
    aiming: str | None  # the target or area
    repeating: str | None  # the action repeated every phase this turn
    restricted: bool  # after an interrupted repetition: the next action is limited
    reload: str | None  # reload actions done/needed, while a slow reload is under way


class PhasesPending(Own, frozen=True, kw_only=True):
    repeat: bool = False
    area: str | None = None
    progress: str | None = None  # of a reload: done/needed


class PhasesView(PhasesCalls):
    """The view every surface reads, the harm each event does, and its words."""

    def view(self, state: PhaseState) -> View:
        inits = {name: self._init(state, f) for name, f in state.fighters.items()}
        now = self._now(state)
        upcoming = self._upcoming(state, state.phase, state.call) if state.in_turn and state.phase else (
            self._upcoming(state, PHASES, 0)  # between turns: the first call of the turn to come
        )
        clock = Clock(
            round=state.turn, unit="turn", running=state.in_turn, moment=_moment(state),
            now=tuple(f.name for f in now), next=tuple(f.name for f in upcoming[2]) if upcoming else (),
            phase=str(state.phase) if state.phase is not None else None,
            own=PhasesClock(phase=state.phase, call=state.call if state.in_turn else None),
        )
        acting = {f.name for f in now}
        return View(
            clock=clock,
            combatants=tuple(
                self._combatant(state, f, inits[f.name], f.name in acting) for f in self._acting_order(state, inits)
            ),
            pending=tuple(p for f in state.fighters.values() for p in _pending(f)),
        )

    def _acting_order(self, state: PhaseState, inits: dict[str, int]) -> list[Fighter]:
        """The phase's order (phase 6 of the coming turn, between turns): repetitive actions at its
        start (Repetition), then initiative equal to the phase, then each higher value (Turn
        Sequence), equal ones by Agility less bulk (Agility and Weapon Bulks); the rest after,
        in the order added."""
        phase = state.phase if state.in_turn and state.phase is not None else PHASES
        fighters = list(state.fighters.values())
        ordered = [f for f in fighters if f.repeat is not None and inits[f.name] > 0]
        ordered += sorted(
            (f for f in fighters if f.repeat is None and inits[f.name] >= phase),
            key=lambda f: (inits[f.name], -(f.agility - f.bulk)),
        )
        ordered = [f for f in ordered if not f.left]
        placed = {f.name for f in ordered}
        return ordered + sorted((f for f in fighters if f.name not in placed), key=lambda f: f.left)

    def _combatant(self, state: PhaseState, f: Fighter, init: int, acting: bool) -> Combatant:
        acts_in = self._phases_left(state, f, init)
        effects = [Effect(kind="slight-wound")] * f.slight + [Effect(kind="serious-wound")] * f.serious
        effects += [Effect(kind=PANIC, detail=f"-{f.panic} initiative")] if f.panic else []
        return Combatant(
            name=f.name,
            side=f.side,
            # Initiative 0: "may not act at all", though not necessarily unconscious (Initiative).
            status="left" if f.left else "out" if init == 0 else "fighting",
            acting=acting,
            vital=Gauge(name="Initiative", value=init, maximum=f.base),
            budget=self._budget(state, f, acts_in),
            effects=tuple(effects),
            own=PhasesFigures(
                agility_less_bulk=f.agility - f.bulk,
                actions=len(f.acted),
                acts_in=tuple(acts_in),
                moved_m=f.moved_m,
                prone=f.prone,
                mounted=f.mounted,
                aiming=(f.aim.target or f.aim.area) if f.aim else None,
                repeating=f.repeat.action if f.repeat else None,
                restricted=f.restricted,
                reload=_progress(f.reload) if f.reload else None,
            ),
        )

    def _budget(self, state: PhaseState, f: Fighter, acts_in: list[int]) -> Budget:
        """The actions left of those the character had this turn (Turn Sequence): as many as
        its initiative when the turn began, or more (a repetitive action acts in every phase:
        Repetition). Phases it let pass are lost, not spent. Between turns: the coming turn's.
        (Older logs, before TurnStarted.budgets: of those taken or still to take.)"""
        taken_or_left = len(f.acted) + len(acts_in)
        if not state.in_turn or f.had is None:
            return Budget(name="actions", left=len(acts_in), of=taken_or_left)
        had = max(f.had, taken_or_left)
        lost = had - taken_or_left
        return Budget(name="actions", left=len(acts_in), of=had, lost=lost if lost else msgspec.UNSET)

    def _phases_left(self, state: PhaseState, f: Fighter, init: int) -> list[int]:
        """The phases of this turn (of the next, between turns) in which the character may still act."""
        if init == 0:
            return []
        if not state.in_turn or state.phase is None:
            return list(range(min(init, PHASES), 0, -1))
        later = [p for p in range(state.phase - 1, 0, -1) if f.repeat is not None or init >= p]
        now = state.phase not in f.acted and f.repeat is None and init >= state.phase and state.call <= init
        return ([state.phase] if now else []) + later

    def harm(self, event: Event) -> Harm | None:
        # phases.md counts wounds, not hits (Initiative): a wound is the damage, whatever
        # initiative it costs; taking one off (`--end`) gives it back.
        match event:
            case EffectApplied(who=who, kind=kind) if kind in WOUNDS:
                return Harm(who=who, amount=1, unit="wounds")
            case EffectEnded(who=who, kind=kind) if kind in WOUNDS:
                return Harm(who=who, amount=1, unit="wounds", heal=True)
        return None

    def describe(self, event: Event) -> str:
        match event:
            case TurnStarted(turn=turn, initiatives=inits, ambush=ambush):
                order = ", ".join(f"{i.who} {i.initiative.value}" for i in inits)
                tail = f"; ambush: the {ambush} side is caught moving" if ambush else ""
                return f"Turn {turn} begins: initiative {order}; phase 6 first{tail}"
            case ClockAdvanced(phase=phase, call=call, acting=acting):
                if call == 0:
                    return f"Phase {phase} begins: repetitive actions first ({', '.join(acting)})"
                return f"Phase {phase}, initiative {call} acts: {', '.join(acting)}"
            case ActionTaken():
                return _narrate(event)
            case ActionResolved(who=who, action=action, outcome=outcome):
                return f"{who}'s {action}: {outcome}"
            case RepetitionInterrupted(who=who, action=action, phase=phase):
                return (f"{who} stops repeating {action} in phase {phase}: the next action, at {who}'s "
                        "next regular call, is limited")
            case EffectApplied(who=who, kind=kind, by=by, initiative=init):
                return f"{who}: {kind} (-{by}), initiative now {init.value}"
            case EffectEnded(who=who, kind=kind, initiative=init):
                return f"{who} is rid of a {kind}, initiative now {init.value}"
            case TurnEnded(turn=turn, actions=actions):
                done = ", ".join(f"{k} {v}" for k, v in actions.items()) or "nobody acted"
                return f"Turn {turn} ends; actions taken: {done}"
        return type(event).__name__


def _moment(state: PhaseState) -> str:
    if state.in_turn:
        return f"phase {state.phase}, start" if state.call == 0 else f"phase {state.phase}, call {state.call}"
    return "before the first turn" if state.turn == 0 else "between turns"


def _progress(reload: tuple[int, int]) -> str:
    return f"{reload[0]}/{reload[1]}"


def _pending(f: Fighter) -> list[Pending]:
    """What the character has under way: a repetition, an aim, a slow reload."""
    out = []
    if f.repeat is not None:
        out.append(Pending(
            who=f.name, action=f.repeat.action, target=f.repeat.target, resolves="start of each phase, this turn",
            own=PhasesPending(repeat=True, area=f.repeat.area),
        ))
    if f.aim is not None:
        out.append(Pending(
            who=f.name, action="aim", target=f.aim.target,
            resolves="at a later call, or on trigger: a target crosses the line of sight",
            own=PhasesPending(area=f.aim.area),
        ))
    if f.reload is not None:
        left = f.reload[1] - f.reload[0]
        out.append(Pending(
            who=f.name, action="reload", resolves=f"after {left} more reload action{'s' if left > 1 else ''}",
            own=PhasesPending(progress=_progress(f.reload)),
        ))
    return out


def _narrate(e: ActionTaken) -> str:
    what = f"melee ({e.melee})" if e.melee and e.melee != "armed" else e.action
    what += f" at {e.target or e.area}" if e.target or e.area else ""
    notes = []
    if e.move:
        notes.append(f"on the {e.move}")
    if e.distance is not None:
        halved = e.distance.per == 2 or len(e.distance.terms) > 1  # older events: a halving term
        notes.append(f"{e.distance.shown()} m" + (" (stands up: halved)" if halved else ""))
    if e.cover:
        notes.append("to cover")
    if e.reload is not None:
        notes.append(f"{e.reload[0]} of {e.reload[1]}" + (": done" if e.reload[0] >= e.reload[1] else ""))
    if e.bulk is not None:
        notes.append(f"bulk {e.bulk}")
    if e.aimed is not None:
        notes.append("first shot aimed" if e.aimed.value else "quick shots")
    if e.talk:
        notes.append(f'saying "{e.talk}"')
    what += f", {', '.join(notes)}" if notes else ""
    if e.how == "opportunity":
        return f"Phase {e.phase}: {e.who} fires opportunity fire {what.removeprefix('fire ')}; {e.reason}"
    when = "before the fight" if e.phase > PHASES else f"phase {e.phase}"
    verb = "repeats" if e.how == "repeated" and not e.repeat else "acts:"
    line = f"{e.who} {verb} {what} ({when})"
    if e.repeat:
        line += ", every phase this turn" + (f": {e.reason}" if e.reason else "")
    if e.order is not None:
        line += f"; {e.first} goes first" if e.first else "; equal Agility - bulk: at the same time"
        line += f" (Agility - bulk {e.order.terms[0].value} vs {-e.order.terms[1].value})"
    return line
