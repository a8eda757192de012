"""modular's view (projections/view.py) and the words of its events."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

import msgspec

from skirmish.eventlog.events import Event
from skirmish.projections.ruleset import GoesDown, Harm, Rules
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
from skirmish.projections.rulesets.modular.state import Fighter, ModularState
from skirmish.projections.rulesets.modular.vocabulary import READY, SLOTS
from skirmish.projections.view import Budget, Clock, Combatant
from skirmish.projections.view import Effect as Effect_
from skirmish.projections.view import Gauge, Own, Pending, Status, View


class ModularFigures(Own, frozen=True, kw_only=True):
    """A combatant's figures under modular beside the view's core (health left is its
    vital figure, slots left its budget)."""

    initiative: int | None
    speed: int
    movement: int
    feet_moved: int
    feet_left: int
    primary: str | None
    secondary: str | None
    tertiary: str | None
    may_still: str
    dodge_class: int
    health: int
    damage: int


class ReadyFigures(Own, frozen=True, kw_only=True):
    """A pending Ready's two courses of play and the movement held for them."""

    then: str
    otherwise: str = msgspec.field(name="else")
    feet_held: int
    declared_round: int


class ModularClock(Own, frozen=True, kw_only=True):
    order: str | None  # this round's initiative order with each figure
    combat_over: bool


class ModularView(GoesDown, Rules[ModularState]):
    """The view every surface reads, the harm each event does, and its words."""

    def view(self, state: ModularState) -> View:
        now = state.current
        following = self.next_turn(state) if state.in_round else None
        upcoming = state.order[following] if following is not None else None
        in_order = [state.fighters[n] for n in state.order] if state.in_round else []
        rest = [f for f in state.fighters.values() if f.name not in set(state.order) or not state.in_round]
        # Those who cannot act go last (the view's acting order).
        in_order, rest = [f for f in in_order if self.able(state, f)], [
            *(f for f in in_order if not self.able(state, f)), *rest]
        rest.sort(key=lambda f: not self.able(state, f))
        position = {name: i for i, name in enumerate(state.order)}
        combatants = []
        pending = []
        for f in [*in_order, *rest]:
            acting = state.in_round and f.initiative is not None
            done = acting and state.turn is not None and position.get(f.name, -1) < state.turn
            used = sum(1 for s in SLOTS if f.slot(s) is not None)
            effects = [Effect_(kind="evading", detail=f"dodge class {f.evade} until its next turn")] if (
                f.evade is not None) else []
            # The text names no conditions: every kind on a combatant is the GM's own.
            effects += [Effect_(kind=e.kind, left=e.rounds, custom=e.kind not in self.effects) for e in f.effects]
            status: Status = "left" if f.left else "down" if self.down(state, f) else "fighting"
            combatants.append(Combatant(
                name=f.name, side=f.side, status=status, acting=f.name == now,
                vital=Gauge(name="health left", value=f.health - f.damage, maximum=f.health),
                budget=Budget(name="slots", left=len(SLOTS) - used, of=len(SLOTS)),
                effects=tuple(effects),
                own=ModularFigures(
                    initiative=f.initiative, speed=f.speed, movement=f.movement, feet_moved=f.feet_moved,
                    feet_left=f.feet_left, primary=f.primary, secondary=f.secondary, tertiary=f.tertiary,
                    may_still=_may_still(f) if acting and not done else "-",
                    dodge_class=f.evade if f.evade is not None else f.dodge, health=f.health, damage=f.damage,
                ),
            ))
            if f.ready is not None:
                r = f.ready
                pending.append(Pending(
                    who=f.name, action=READY, resolves=f"on trigger: {r.trigger}",
                    own=ReadyFigures(then=r.then.words(), otherwise=r.otherwise.words(), feet_held=r.feet,
                                     declared_round=r.round),
                ))
        if state.over:
            moment = "the combat is over"
        elif now is not None:
            moment = f"{now}'s turn"
        elif state.in_round:
            moment = "before the first turn"
        else:
            moment = "before the first round" if state.round == 0 else f"after round {state.round}"
        clock = Clock(
            round=state.round, running=state.in_round, moment=moment,
            now=(now,) if now is not None else (), next=(upcoming,) if upcoming is not None else (),
            own=ModularClock(
                order=", ".join(f"{n} {state.fighters[n].initiative}" for n in state.order) if state.in_round
                else None,
                combat_over=state.over,
            ),
        )
        return View(clock=clock, combatants=tuple(combatants), pending=tuple(pending))

    def harm(self, event: Event) -> Harm | None:
        # modular.md gives no damage rules; the ruleset keeps the table's health (module
        # docstring), and the GM's `damage` is what an attack did.
        match event:
            case DamageTaken(who=who, amount=amount):
                return Harm(who=who, amount=amount.value, unit="health")
            case HealthHealed(who=who, amount=amount):
                return Harm(who=who, amount=amount.value, unit="health", heal=True)
        return None

    def describe(self, event: Event) -> str:
        match event:
            case HealthHealed(who=who, amount=amount, health_left=left):
                return f"{who} is healed {amount.value} ({left} health left)"
            case RoundStarted(round=number, initiatives=inits, order=order, ties=ties, tie_rule=tie_rule):
                value = {i.who: i.value.value for i in inits}
                tail = f"; {tie_rule}" if tie_rule else ""
                if ties:
                    tail += ", roll-off: " + ", ".join(f"{t.who} {t.roll.total}" for t in ties)
                return f"Round {number} begins: initiative " + ", ".join(f"{n} {value[n]}" for n in order) + tail
            case TurnStarted(who=who):
                return f"{who}'s turn"
            case EvadeEnded(who=who, reason=reason):
                return f"{who}'s Evade ends ({reason})"
            case Moved(who=who, feet=feet, cost=cost, left=left):
                extra = f" through difficult terrain ({cost.value} ft of movement)" if cost.value != feet else ""
                return f"{who} moves {feet} ft{extra}, {left.value} ft left"
            case ActionTaken(who=who, action=action, slot=slot, target=target, skill=skill, movement=movement,
                             dodge=dodge):
                what = f"{action} ({skill})" if skill else action
                on = f" on {target}" if target else ""
                extra = f": movement {movement.value} ft this round" if movement else ""
                extra += f": dodge class {dodge.value} until the next turn" if dodge else ""
                return f"{who} takes {what}{on} as the {slot} action{extra}"
            case ReadyDeclared(who=who, trigger=trigger, then=then, otherwise=otherwise, feet=feet):
                held = f", {feet} ft held" if feet else ""
                return f"{who} readies: if {trigger}: {then.words()}; else: {otherwise.words()}{held}"
            case ReadyResolved(who=who, course=course, played=played, feet=feet, dodge=dodge, outcome=outcome):
                moved = f", moves {feet.value} ft" if feet else ""
                evade = f", dodge class {dodge.value}" if dodge else ""
                res = f": {outcome}" if outcome else ""
                return f"{who}'s Ready plays its {course} course: {played.words()}{moved}{evade}{res}"
            case ReadyCancelled(who=who, reason=reason):
                return f"{who}'s Ready is dropped ({reason})"
            case DamageTaken(who=who, amount=amount, health_left=left):
                return f"{who} takes {amount.value} damage ({left} health left)"
            case EffectApplied(who=who, kind=kind, rounds=rounds):
                return f"{who} is {kind} ({rounds} round{'' if rounds == 1 else 's'})"
            case EffectEnded(who=who, kind=kind, reason=reason):
                return f"{who} is no longer {kind} ({reason})"
            case UpkeepTick(who=who, effect=kind, rounds_left=left, removed=removed):
                if removed:
                    return f"Upkeep: {who}'s {kind} ends"
                return f"Upkeep: {who}'s {kind} has {left} round{'' if left == 1 else 's'} left"
            case RoundEnded(round=number, combat_over=over):
                return f"Round {number} ends" + (": the combat is over" if over else "")
        return type(event).__name__


def _may_still(f: Fighter) -> str:
    parts = [f"move {f.feet_left} ft"] if f.feet_left else []
    parts += [s for s in SLOTS if f.slot(s) is None]
    return ", ".join(parts) or "nothing"
