"""ap-countdown's fold: what each event does to a working copy of the state (never rolls,
never fails on a stored event)."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from msgspec.structs import replace

from skirmish.eventlog.events import CombatantAdded, CombatantCarried
from skirmish.projections.ruleset import Rules, applies
from skirmish.projections.rulesets.ap_countdown.vocabulary import BLEEDING, MELEE
from skirmish.projections.rulesets.ap_countdown.state import (
    Action,
    ApState,
    Counter,
    Effect,
    Fighter,
    bleeding_per_round,
)
from skirmish.projections.rulesets.ap_countdown.events import (
    ActionCancelled,
    ActionContinued,
    ActionDeclared,
    ActionProgressed,
    ActionReadied,
    ActionResolved,
    BleedingStaunched,
    ClockAdvanced,
    CounterSet,
    DamageTaken,
    EffectApplied,
    EffectEnded,
    HitsHealed,
    PaceChanged,
    ParryDeclared,
    ParryUsed,
    RoundEnded,
    RoundStarted,
    UpkeepTick,
)


class ApFold(Rules[ApState]):
    """The appliers: each event applied in place to a working copy of the state."""

    # A replay applies hundreds of thousands of these: each changes the fighter in place
    # (ApState), read off the fighters' table directly. An action or effect is a frozen
    # value: set anew, never changed in place (the view's and glance's rows rely on it).
    # The appliers are static: the fold's table (Rules.appliers) holds them as plain
    # functions, called without a bound method's step. A field of a struct is read at
    # the cost of a local's, but written at many times that (msgspec's own __setattr__,
    # which CPython does not specialise): a field that usually holds the value already
    # (a round start's resets) is tested, and written only when it differs.
    # Leaving and coming back: the shared handlers (Rules), setting ``left`` in place.

    @applies(CombatantAdded)
    @staticmethod
    def _added(state: ApState, event: CombatantAdded) -> None:
        stats = event.stats
        state.fighters[event.name] = Fighter(name=event.name, side=event.side, qu=stats["qu"], hits=stats["hits"],
                                             penalty=stats.get("penalty", 0))

    @applies(CombatantCarried)
    @staticmethod
    def _carried(state: ApState, event: CombatantCarried) -> None:
        if event.vital is not None:  # hits taken in an earlier fight (docs/imports.md, the party between fights)
            f = state.fighters[event.who]
            f.damage = f.hits - event.vital

    @applies(RoundStarted)
    @staticmethod
    def _round_started(state: ApState, event: RoundStarted) -> None:
        # Every fighter of the round: its initiative and AP, and this round's figures back
        # to nothing (spent, instants, delay, out, the parry, declared). Most of those are
        # nothing already (an idle fighter's all of them): each is written only where it
        # is not. Written out, not a call a fighter a round.
        fighters = state.fighters
        budgets = event.budgets
        for init in event.initiatives:
            f = fighters[init.who]
            base = init.base
            f.base = base.value
            f.base_derivation = base
            ap = init.ap
            if f.ap != ap:
                f.ap = ap
            had = ap if budgets else None
            if f.had != had:
                f.had = had
            _new_round(f)
        for name in event.idle:
            # No initiative and no AP this round (back up or back, it waits for the next);
            # its base derivation is kept for option initiative=once.
            f = fighters[name]
            if f.base is not None:
                f.base = None
            if f.ap:
                f.ap = 0
            had = 0 if budgets else None
            if f.had != had:
                f.had = had
            _new_round(f)
        state.round = event.round
        state.in_round = True
        state.count = event.count

    @applies(ActionContinued)
    @staticmethod
    def _continued(state: ApState, event: ActionContinued) -> None:
        f = state.fighters[event.who]
        assert f.action is not None
        f.action = replace(f.action, step=event.step, resolves_at=event.at.value)

    @applies(ClockAdvanced)
    @staticmethod
    def _clock_advanced(state: ApState, event: ClockAdvanced) -> None:
        state.count = event.count

    @applies(ActionDeclared)
    @staticmethod
    def _declared(state: ApState, event: ActionDeclared) -> None:
        f = state.fighters[event.who]
        f.action = Action(
            event.action, event.cost.value, event.count, state.round, event.step, event.at.value, event.target,
            event.trigger, event.penalty.value, 0, False, f.pace_penalty,
        )
        if event.instant:
            f.instants += 1
        if not f.declared_this_round:  # a second declaration this round: set already
            f.declared_this_round = True
        if f.parry_owes_melee:
            f.parry_owes_melee = event.action != MELEE

    @applies(ActionProgressed)
    @staticmethod
    def _progressed(state: ApState, event: ActionProgressed) -> None:
        f = state.fighters[event.who]
        assert f.action is not None
        f.action = replace(f.action, progress=event.progress, resolves_at=None)
        paid = event.paid
        if paid:
            f.ap -= paid
            f.spent += paid

    @applies(ActionReadied)
    @staticmethod
    def _readied(state: ApState, event: ActionReadied) -> None:
        f = state.fighters[event.who]
        assert f.action is not None
        f.action = replace(f.action, step="ready", resolves_at=None, paid=True, progress=f.action.cost)
        paid = event.paid
        if paid:
            f.ap -= paid
            f.spent += paid

    @applies(ActionResolved)
    @staticmethod
    def _resolved(state: ApState, event: ActionResolved) -> None:
        f = state.fighters[event.who]
        paid = event.paid
        if paid:  # else nothing left to pay: a free instantaneous action, or paid before (readied, parried)
            f.ap -= paid
            f.spent += paid
        f.action = None

    @applies(ActionCancelled)
    @staticmethod
    def _cancelled(state: ApState, event: ActionCancelled) -> None:
        f = state.fighters[event.who]
        f.action = None
        if event.delay:
            f.delay += event.delay
        if event.out:
            f.out = True

    @applies(PaceChanged)
    @staticmethod
    def _pace_changed(state: ApState, event: PaceChanged) -> None:
        f = state.fighters[event.who]
        f.pace = event.pace
        f.pace_penalty = event.penalty
        f.pace_count = (state.round, event.count)

    @applies(ParryDeclared)
    @staticmethod
    def _parry_declared(state: ApState, event: ParryDeclared) -> None:
        f = state.fighters[event.who]
        f.parry = event.amount
        f.parry_against = event.against

    @applies(ParryUsed)
    @staticmethod
    def _parry_used(state: ApState, event: ParryUsed) -> None:
        f = state.fighters[event.who]
        under_way = f.action
        if under_way is not None and event.paid:
            f.action = replace(under_way, paid=True, progress=under_way.cost)
        f.parry_used, f.parry_owes_melee = True, event.owes_melee
        f.ap -= event.paid
        f.spent += event.paid

    @applies(DamageTaken)
    @staticmethod
    def _damage_taken(state: ApState, event: DamageTaken) -> None:
        state.fighters[event.who].damage += event.hits.value

    @applies(HitsHealed)
    @staticmethod
    def _hits_healed(state: ApState, event: HitsHealed) -> None:
        state.fighters[event.who].damage -= event.hits.value

    @applies(EffectApplied)
    @staticmethod
    def _effect_applied(state: ApState, event: EffectApplied) -> None:
        f = state.fighters[event.who]
        if event.kind == BLEEDING:
            _bleed(f, event.per_round)
            return
        spent = event.spent_before
        serial = f.effects_applied
        f.effects = (*f.effects, Effect(event.kind, event.per_round, event.rounds, spent.value if spent else 0, True,
                                        serial, event.custom))
        f.effects_applied = serial + 1

    @applies(EffectEnded)
    @staticmethod
    def _effect_ended(state: ApState, event: EffectEnded) -> None:
        f = state.fighters[event.who]
        f.effects = _without(f.effects, event.kind)

    @applies(BleedingStaunched)
    @staticmethod
    def _staunched(state: ApState, event: BleedingStaunched) -> None:
        f = state.fighters[event.who]
        _bleed(f, event.per_round - bleeding_per_round(f))

    @applies(CounterSet)
    @staticmethod
    def _counter_set(state: ApState, event: CounterSet) -> None:
        counters = tuple(c for c in state.counters if c.name != event.name)
        if not event.ended:
            counters += (Counter(event.name, event.value, event.per_round),)
        state.counters = counters

    @applies(UpkeepTick)
    @staticmethod
    def _upkeep_tick(state: ApState, tick: UpkeepTick) -> None:
        # The most frequent event of a long fight, bleeding the most frequent tick: the
        # fighters' table read directly.
        step = tick.step
        if step == "bleeding":
            state.fighters[tick.who].damage -= tick.change
            return
        if step == "environment":
            state.counters = tuple(
                replace(c, value=c.value + tick.change) if c.name == tick.effect else c for c in state.counters
            )
            return
        f = state.fighters[tick.who]
        effects = f.effects
        serial = tick.serial
        for i, e in enumerate(effects):  # the tick's effect is there: its upkeep was decided on this state
            if e.serial == serial:
                break
        if len(effects) == 1:  # the commonest: the fighter's one effect
            f.effects = () if tick.removed else (replace(e, rounds=tick.rounds_left, fresh=False),)
        elif tick.removed:
            f.effects = effects[:i] + effects[i + 1:]
        else:
            f.effects = (*effects[:i], replace(e, rounds=tick.rounds_left, fresh=False), *effects[i + 1:])

    @applies(RoundEnded)
    @staticmethod
    def _round_ended(state: ApState, event: RoundEnded) -> None:
        # Every effect still on has now been through an upkeep, ticked or not: the
        # "spent 2 AP before" check governs only the first one (Upkeep).
        carry = state.options["carry-ap"] == "yes"
        for f in state.fighters.values():
            if not carry and f.ap:
                f.ap = 0
            # Most fighters have no effect fresh. (Loops, not generators: this runs for
            # every fighter at every round's end.)
            for e in f.effects:
                if e.fresh:
                    f.effects = tuple([replace(e, fresh=False) if e.fresh else e for e in f.effects])
                    break
        state.in_round = False
        state.count = None


def _new_round(f: Fighter) -> None:
    """A fighter's figures of the round back to a round's start: each written only where it
    is not already reset (writing a Struct's field costs about ten times reading it, and a
    round start comes to every fighter)."""
    if f.spent:
        f.spent = 0
    if f.instants:
        f.instants = 0
    if f.delay:
        f.delay = 0
    if f.out:
        f.out = False
    if f.parry is not None:
        f.parry = None
    if f.parry_against is not None:
        f.parry_against = None
    if f.parry_used:
        f.parry_used = False
    if f.parry_owes_melee:
        f.parry_owes_melee = False
    if f.declared_this_round:
        f.declared_this_round = False


def _bleed(f: Fighter, change: int) -> None:
    """Change the fighter's bleeding by ``change`` hits a round, in place (an applier's)."""
    total = bleeding_per_round(f) + change
    others = tuple(e for e in f.effects if e.kind != BLEEDING)
    # Bleeding is one running total, never ticked by serial: it keeps serial -1.
    f.effects = others + ((Effect(BLEEDING, per_round=total, serial=-1),) if total > 0 else ())


def _without(effects: tuple[Effect, ...], kind: str) -> tuple[Effect, ...]:
    for i, e in enumerate(effects):
        if e.kind == kind:
            return effects[:i] + effects[i + 1:]
    return effects
