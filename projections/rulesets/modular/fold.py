"""modular's fold: what each event does to a working copy of the state (never rolls, never
fails on a stored event)."""

from skirmish.eventlog.commands import CarriedEffect
from skirmish.eventlog.events import CombatantAdded, CombatantCarried
from skirmish.projections.ruleset import Rules, applies
from skirmish.projections.rulesets.modular.events import (
    ActionTaken,
    DamageTaken,
    EffectApplied,
    EffectEnded,
    EvadeEnded,
    HealthHealed,
    Moved,
    ReadyCancelled,
    ReadyDeclared,
    ReadyResolved,
    RoundEnded,
    RoundStarted,
    TurnStarted,
    UpkeepTick,
)
from skirmish.projections.rulesets.modular.state import Effect, Fighter, Held, ModularState
from skirmish.projections.rulesets.modular.vocabulary import DASH, READY


class ModularFold(Rules[ModularState]):
    """The appliers: each event applied in place to a working copy of the state."""

    @applies(CombatantAdded)
    def _added(self, state: ModularState, event: CombatantAdded) -> None:
        stats = event.stats
        state.fighters[event.name] = Fighter(
            name=event.name, side=event.side, agility=stats["agility"], dodge=stats["dodge"],
            health=stats["health"], speed_override=stats.get("speed", 0), init_bonus=stats.get("init-bonus", 0),
        )

    @applies(CombatantCarried)
    def _carried(self, state: ModularState, event: CombatantCarried) -> None:
        f = state.fighter(event.who)
        if event.vital is not None:  # damage taken in an earlier fight (docs/imports.md, the party between fights)
            f.damage = f.health - event.vital

    def lasting(self, state: ModularState, who: str) -> list[CarriedEffect]:
        return []  # every effect here counts rounds, and Evade ends with its turn: none outlasts a fight

    @applies(RoundStarted)
    def _round_started(self, state: ModularState, event: RoundStarted) -> None:
        by_name = {i.who: i.value.value for i in event.initiatives}
        for f in state.fighters.values():
            f.initiative = by_name.get(f.name)
            f.feet_moved = f.held_feet = 0
            f.dashed = False
            f.primary = f.secondary = f.tertiary = None
        state.round, state.in_round, state.order, state.turn = event.round, True, event.order, None

    @applies(TurnStarted)
    def _turn_started(self, state: ModularState, event: TurnStarted) -> None:
        state.turn = event.index

    @applies(EvadeEnded)
    def _evade_ended(self, state: ModularState, event: EvadeEnded) -> None:
        state.fighters[event.who].evade = None

    @applies(Moved)
    def _moved(self, state: ModularState, event: Moved) -> None:
        state.fighters[event.who].feet_moved += event.cost.value

    @applies(ActionTaken)
    def _action_taken(self, state: ModularState, event: ActionTaken) -> None:
        f = state.fighters[event.who]
        setattr(f, event.slot, event.action)
        if event.action == DASH:
            f.dashed = True
        if event.dodge is not None:
            f.evade = event.dodge.value

    @applies(ReadyDeclared)
    def _ready_declared(self, state: ModularState, event: ReadyDeclared) -> None:
        f = state.fighters[event.who]
        courses = (event.then, event.otherwise)
        f.primary, f.held_feet = READY, event.feet
        f.ready = Held(event.trigger, event.then, event.otherwise, event.feet, state.round)
        f.secondary = f.secondary or (READY if any(c.secondary for c in courses) else None)
        f.tertiary = f.tertiary or (READY if any(c.tertiary for c in courses) else None)

    @applies(ReadyResolved)
    def _ready_resolved(self, state: ModularState, event: ReadyResolved) -> None:
        f = state.fighters[event.who]
        f.ready = None
        if event.dodge is not None:
            f.evade = event.dodge.value

    @applies(ReadyCancelled)
    def _ready_cancelled(self, state: ModularState, event: ReadyCancelled) -> None:
        state.fighters[event.who].ready = None

    @applies(DamageTaken)
    def _damage_taken(self, state: ModularState, event: DamageTaken) -> None:
        state.fighters[event.who].damage += event.amount.value

    @applies(HealthHealed)
    def _health_healed(self, state: ModularState, event: HealthHealed) -> None:
        f = state.fighters[event.who]
        f.damage = f.health - event.health_left

    @applies(EffectApplied)
    def _effect_applied(self, state: ModularState, event: EffectApplied) -> None:
        f = state.fighters[event.who]
        f.effects = [*(e for e in f.effects if e.kind != event.kind), Effect(event.kind, event.rounds)]

    @applies(EffectEnded)
    def _effect_ended(self, state: ModularState, event: EffectEnded) -> None:
        f = state.fighters[event.who]
        f.effects = [e for e in f.effects if e.kind != event.kind]

    @applies(UpkeepTick)
    def _upkeep_tick(self, state: ModularState, event: UpkeepTick) -> None:
        f = state.fighters[event.who]
        if event.removed:
            f.effects = [e for e in f.effects if e.kind != event.effect]
            return
        for e in f.effects:
            if e.kind == event.effect:
                e.rounds = event.rounds_left

    @applies(RoundEnded)
    def _round_ended(self, state: ModularState, event: RoundEnded) -> None:
        state.in_round, state.turn, state.over = False, None, state.over or event.combat_over
