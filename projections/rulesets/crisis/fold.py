"""crisis's fold: what each event does to a working copy of the state (never rolls, never
fails on a stored event)."""

from collections.abc import Mapping

from skirmish.eventlog.commands import CarriedEffect
from skirmish.eventlog.events import CombatantAdded, CombatantCarried
from skirmish.projections.ruleset import Rules, applies
from skirmish.projections.rulesets.crisis.events import (
    ActionCancelled,
    ActionProgressed,
    ActionTaken,
    AttackRolled,
    ConditionEnded,
    ConditionSet,
    DamageTaken,
    Healed,
    TurnEnded,
    TurnPassed,
    TurnStarted,
)
from skirmish.projections.rulesets.crisis.state import Condition, CrisisState, Fighter, Under
from skirmish.projections.rulesets.crisis.vocabulary import CONDITIONS


class CrisisFold(Rules[CrisisState]):
    """The appliers: each event applied in place to a working copy of the state."""

    @applies(CombatantAdded)
    def _added(self, state: CrisisState, event: CombatantAdded) -> None:
        full = {key: spec.default for key, spec in self.stats.items()} | dict(event.stats)
        state.fighters[event.name] = Fighter(
            name=event.name, side=event.side, stats=full, endurance=full["endurance"], health=full["health"],
            durability=full["durability"],
        )

    def restat(self, fighter: Fighter, stats: Mapping[str, int], was: Mapping[str, int]) -> Fighter:
        """`set`: Endurance, Health and Durability are pools (Damage): a new size keeps the
        damage taken, so the pool moves by as much as its size, never below 0."""
        after: Fighter = super().restat(fighter, stats, was)
        for pool in ("endurance", "health", "durability"):
            if pool in stats:
                setattr(after, pool, max(0, getattr(after, pool) + stats[pool] - was[pool]))
        return after

    @applies(CombatantCarried)
    def _carried(self, state: CrisisState, event: CombatantCarried) -> None:
        f = state.fighters[event.who]
        if event.vital is not None:  # Health lost in an earlier fight
            f.health = event.vital
        # The text is silent on rest between fights: Endurance and armour Durability come as they were.
        f.endurance = event.figures.get("endurance", f.endurance)
        f.durability = event.figures.get("durability", f.durability)

    def carried_figures(self, state: CrisisState, who: str) -> dict[str, int]:
        f = state.fighters[who]
        return {"endurance": f.endurance, "durability": f.durability}

    def lasting(self, state: CrisisState, who: str) -> list[CarriedEffect]:
        # Stunned runs to a turn of this fight; drunk, prone and the GM's own last until ended.
        return [CarriedEffect(kind=c.kind, custom=c.kind not in CONDITIONS)
                for c in state.fighters[who].conditions.values() if c.until is None and c.kind != "stunned"]

    @applies(TurnStarted)
    def _turn_started(self, state: CrisisState, event: TurnStarted) -> None:
        fighters = state.fighters
        for f in fighters.values():
            f.spent = 0
        for r in event.rolls:
            fighters[r.who].order = r.total.value
        for g in event.gains:
            fighters[g.who].ap = g.ap.value
        state.turn, state.in_turn, state.sequence = event.turn, True, event.sequence
        state.acting, state.surprise = event.acting, event.surprise
        state.budgets = event.budgets is True

    @applies(TurnPassed)
    def _passed(self, state: CrisisState, event: TurnPassed) -> None:
        state.acting = event.to

    @applies(ActionTaken)
    def _taken(self, state: CrisisState, event: ActionTaken) -> None:
        f = state.fighters[event.who]
        f.ap -= event.paid
        f.spent += event.paid
        f.action = Under(event.action, "spanning", event.cost.value, event.paid, event.target) if event.spans else None

    @applies(AttackRolled)
    def _rolled(self, state: CrisisState, event: AttackRolled) -> None:
        state.fighters[event.who].action = Under("attack", "hit", 0, target=event.target) if event.hit else None

    @applies(ActionProgressed)
    def _progressed(self, state: CrisisState, event: ActionProgressed) -> None:
        f = state.fighters[event.who]
        f.ap -= event.paid
        f.spent += event.paid
        if event.done:
            f.action = None
        else:
            assert f.action is not None
            f.action.progress = event.progress

    @applies(ActionCancelled)
    def _cancelled(self, state: CrisisState, event: ActionCancelled) -> None:
        state.fighters[event.who].action = None

    @applies(DamageTaken)
    def _damaged(self, state: CrisisState, event: DamageTaken) -> None:
        f = state.fighters[event.who]
        f.endurance, f.health = event.endurance_left, event.health_left
        f.durability -= event.durability_lost
        if event.by is not None:
            state.fighters[event.by].action = None

    @applies(ConditionSet)
    def _condition_set(self, state: CrisisState, event: ConditionSet) -> None:
        f = state.fighters[event.who]
        f.conditions.pop(event.kind, None)  # set again: it moves to the end
        f.conditions[event.kind] = Condition(event.kind, event.until)
        if event.no_gain_turn is not None:
            f.no_gain_turn = event.no_gain_turn

    @applies(ConditionEnded)
    def _condition_ended(self, state: CrisisState, event: ConditionEnded) -> None:
        state.fighters[event.who].conditions.pop(event.kind, None)

    @applies(TurnEnded)
    def _turn_ended(self, state: CrisisState, event: TurnEnded) -> None:
        state.in_turn, state.acting, state.surprise = False, None, ()

    @applies(Healed)
    def _healed(self, state: CrisisState, event: Healed) -> None:
        f = state.fighters[event.who]
        f.health += event.to_health
        f.endurance += event.to_endurance
