"""phases's fold: what each event does to a working copy of the state (never rolls, never
fails on a stored event)."""


from skirmish.eventlog.commands import CarriedEffect
from skirmish.eventlog.events import CombatantAdded
from skirmish.projections.ruleset import Rules, applies
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
from skirmish.projections.rulesets.phases.state import Aim, Fighter, Last, PhaseState, Repeat, wounds_after
from skirmish.projections.rulesets.phases.vocabulary import PANIC, PHASES


class PhasesFold(Rules[PhaseState]):
    """The appliers: each event applied in place to a working copy of the state."""

    @applies(CombatantAdded)
    def _added(self, state: PhaseState, e: CombatantAdded) -> None:
        state.fighters[e.name] = Fighter(
            name=e.name, side=e.side, base=e.stats["initiative"],
            agility=e.stats.get("agility", 0), bulk=e.stats.get("bulk", 0),
        )

    def lasting(self, state: PhaseState, who: str) -> list[CarriedEffect]:
        # Wounds and panic last until ended; they are the vital figure's drop (Wounds), so a
        # carried combatant's Initiative follows from them and needs no combatant-carried applier.
        f = state.fighters[who]
        return ([CarriedEffect(kind="slight-wound")] * f.slight + [CarriedEffect(kind="serious-wound")] * f.serious
                + ([CarriedEffect(kind=PANIC, details={"by": str(f.panic)})] if f.panic else []))

    @applies(TurnStarted)
    def _turn_started(self, state: PhaseState, e: TurnStarted) -> None:
        state.turn, state.in_turn, state.phase, state.call = e.turn, True, PHASES, 0
        # Turn Sequence: an initiative of N acts in phases N to 1, N actions (at most 6).
        had = {i.who: min(i.initiative.value, PHASES) for i in e.initiatives} if e.budgets is True else {}
        for f in state.fighters.values():
            f.had = had.get(f.name)

    @applies(ClockAdvanced)
    def _clock_advanced(self, state: PhaseState, e: ClockAdvanced) -> None:
        state.phase, state.call = e.phase, e.call

    @applies(ActionTaken)
    def _action_taken(self, state: PhaseState, e: ActionTaken) -> None:
        f = state.fighters[e.who]
        if e.action == "aim":
            f.aim = Aim(turn=state.turn, phase=e.phase, target=e.target, area=e.area)
        elif not e.keeps_aim:
            f.aim = None  # any other action ends the aim (Opportunity Fire)
        if e.reload is not None:
            f.reload = e.reload if e.reload[0] < e.reload[1] else None
        if e.repeat:
            f.repeat = Repeat(action=e.action, target=e.target, area=e.area, move=e.move, melee=e.melee)
        if e.phase > PHASES:  # before the fight
            f.last = None
        else:
            f.acted.append(e.phase)
            f.last = Last(e.action, e.phase, e.call, e.how, e.distance is not None)
        if e.distance is not None:
            f.moved_m += e.distance.amount
        if e.prone is not None:
            f.prone = e.prone
        if e.mounted is not None:
            f.mounted = e.mounted
        if e.bulk is not None:
            f.bulk = e.bulk
        f.restricted = False  # the limited next action is taken (or none was owed)

    @applies(ActionResolved)
    def _action_resolved(self, state: PhaseState, e: ActionResolved) -> None:
        last = state.fighters[e.who].last
        assert last is not None
        last.resolved = True

    @applies(RepetitionInterrupted)
    def _repetition_interrupted(self, state: PhaseState, e: RepetitionInterrupted) -> None:
        f = state.fighters[e.who]
        f.repeat, f.restricted = None, True

    @applies(EffectApplied)
    def _effect_applied(self, state: PhaseState, e: EffectApplied) -> None:
        f = state.fighters[e.who]
        f.slight, f.serious, f.panic = wounds_after(f, e.kind, e.by)

    @applies(EffectEnded)
    def _effect_ended(self, state: PhaseState, e: EffectEnded) -> None:
        f = state.fighters[e.who]
        f.slight, f.serious, f.panic = wounds_after(f, e.kind, -1)

    @applies(TurnEnded)
    def _turn_ended(self, state: PhaseState, e: TurnEnded) -> None:
        state.in_turn, state.phase, state.call = False, None, 0
        for f in state.fighters.values():
            f.acted.clear()
            f.moved_m, f.repeat, f.last = 0, None, None
