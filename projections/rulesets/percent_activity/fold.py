"""percent-activity's fold: what each event does to a working copy of the state (never rolls,
never fails on a stored event)."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from skirmish.eventlog.events import CombatantAdded, CombatantCarried
from skirmish.projections.ruleset import Rules, applies
from skirmish.projections.rulesets.percent_activity.state import Action, Effect, Fighter, PaState
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


class PaFold(Rules[PaState]):
    """The appliers: each event applied in place to a working copy of the state."""

    @applies(CombatantAdded)
    def _added(self, state: PaState, event: CombatantAdded) -> None:
        stats = event.stats
        state.fighters[event.name] = Fighter(name=event.name, side=event.side, qu=stats["qu"], hits=stats["hits"])

    @applies(CombatantCarried)
    def _carried(self, state: PaState, event: CombatantCarried) -> None:
        f = state.fighters[event.who]
        if event.vital is not None:  # hits taken in an earlier fight (docs/imports.md, the party between fights)
            f.damage = f.hits - event.vital

    @applies(RoundStarted)
    def _round_started(self, state: PaState, event: RoundStarted) -> None:
        fighters = state.fighters
        for init in event.initiatives:
            f = fighters[init.who]
            f.initiative, f.used, f.melee, f.instants = init.value.value, 0, 0, 0
        state.round, state.in_round, state.order, state.turn = event.round, True, event.order, 0

    @applies(ActionContinued)
    def _continued(self, state: PaState, event: ActionContinued) -> None:
        _paid_into(state, event.who, event.paid).step = event.step

    @applies(TurnPassed)
    def _turn_passed(self, state: PaState, event: TurnPassed) -> None:
        state.turn = state.order.index(event.to, state.turn + 1)  # past those who could not act

    @applies(ActionDeclared)
    def _declared(self, state: PaState, event: ActionDeclared) -> None:
        f = state.fighters[event.who]
        f.used += event.paid
        f.melee += event.melee
        f.instants += event.instant
        if event.step != "done":
            f.action = Action(event.action, event.cost.value, event.step, event.penalty.value, event.target, event.trigger)

    @applies(ActionResolved, ActionCancelled)
    def _ended(self, state: PaState, event: ActionResolved | ActionCancelled) -> None:
        state.fighters[event.who].action = None

    @applies(ActionProgressed)
    def _progressed(self, state: PaState, event: ActionProgressed) -> None:
        _paid_into(state, event.who, event.paid).progress = event.progress

    @applies(DamageTaken)
    def _damaged(self, state: PaState, event: DamageTaken) -> None:
        state.fighters[event.who].damage += event.amount.value

    @applies(EffectApplied)
    def _effect_applied(self, state: PaState, event: EffectApplied) -> None:
        f = state.fighters[event.who]
        serial = f.effects_applied
        f.effects[serial] = Effect(event.kind, event.per_round, event.rounds, serial=serial)
        f.effects_applied = serial + 1

    @applies(EffectEnded)
    def _effect_ended(self, state: PaState, event: EffectEnded) -> None:
        f = state.fighters[event.who]
        f.effects = {serial: e for serial, e in f.effects.items() if e.kind != event.kind}

    @applies(UpkeepTick)
    def _ticked(self, state: PaState, tick: UpkeepTick) -> None:
        f = state.fighters[tick.who]
        if tick.step == "bleeding":
            f.damage -= tick.change
        elif tick.removed:
            f.effects.pop(tick.serial, None)
        else:
            f.effects[tick.serial].rounds = tick.rounds_left

    @applies(RoundEnded)
    def _round_ended(self, state: PaState, event: RoundEnded) -> None:
        state.in_round = False

    @applies(HitsHealed)
    def _healed(self, state: PaState, event: HitsHealed) -> None:
        f = state.fighters[event.who]
        f.damage = f.hits - event.hits_left


def _paid_into(state: PaState, who: str, paid: int) -> Action:
    """The combatant's action under way, once the activity it takes this round is counted."""
    f = state.fighters[who]
    assert f.action is not None
    f.used += paid
    return f.action
