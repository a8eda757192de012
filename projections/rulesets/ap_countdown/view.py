"""ap-countdown's view (projections/view.py), the glance a replay reads an event at a time,
and the words of its events."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from collections.abc import Callable, Set as AbstractSet
from operator import attrgetter, is_
from typing import Any, ClassVar

from msgspec.structs import replace

from skirmish.eventlog.events import Event
from skirmish.projections.ruleset import GOES_DOWN, GoesDown, Harm, Rules
from skirmish.projections.view import (
    Budget,
    Clock,
    Combatant,
    Effect as Shown,
    Gauge,
    Glance,
    Own,
    Pending,
    Status,
    View,
)
from skirmish.projections.rulesets.ap_countdown.state import (
    Action,
    ApState,
    Counter,
    Fighter,
    may_declare,
    next_count,
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


class ApFigures(Own, frozen=True, kw_only=True):
    """A combatant's figures under ap-countdown beside the view's core (hits left is its
    vital figure, AP its budget). ``ap`` is the budget's AP left again: kept for scripts
    reading ``state --json``, shown once, as the budget."""

    repeats: ClassVar[frozenset[str]] = frozenset({"ap"})

    initiative: int | None
    base_initiative: int | None
    ap: int
    ap_spent: int
    hits: int
    damage: int
    pace: str
    delay: int
    out_of_round: bool
    parry: int | None


class ApPending(Own, frozen=True, kw_only=True):
    ap: int
    resolves_at: int | None
    step: str
    trigger: str | None
    progress: int
    penalty: int


class ApClock(Own, frozen=True, kw_only=True):
    count: int | None


class ApScene(Own, frozen=True, kw_only=True):
    environment: tuple[Counter, ...] = ()


# The fields read straight off the event: a class pattern would look each one up by name.
def _say_upkeep(event: UpkeepTick) -> str:
    tick, who, effect = event.step, event.who, event.effect
    if tick == "bleeding":
        return f"Upkeep: {who} bleeds {-event.change} hits"
    if tick == "environment":
        return f"Upkeep: {event.reason}"
    if event.removed:
        return f"Upkeep: {who}'s {effect} ends"
    if event.reason:
        return f"Upkeep: {who}'s {effect} {event.reason}"
    left = event.rounds_left
    return f"Upkeep: {who}'s {effect} has {left} round{'' if left == 1 else 's'} left"


def _say_round_started(event: RoundStarted) -> str:
    order = ", ".join(f"{i.who} {i.actual.value}" for i in sorted(event.initiatives, key=lambda i: -i.actual.value))
    sitting = f"; sitting it out: {', '.join(event.idle)}" if event.idle else ""
    return f"Round {event.round} begins: initiative {order}; the count starts at {event.count}{sitting}"


def _say_continued(event: ActionContinued) -> str:
    verb = "resolves at" if event.step == "resolves" else "carries on to"
    return f"{event.who}'s {event.action} goes on: {verb} count {event.at.value}"


def _say_count(event: ClockAdvanced) -> str:
    d, r = event.declaring, event.resolving
    if d and not r:  # the commonest: someone to declare
        return f"Count {event.count}: {', '.join(d)} to declare"
    parts = [f"{', '.join(d)} to declare"] if d else []
    parts += [f"{', '.join(r)} to resolve"] if r else []
    return f"Count {event.count}" + (f": {'; '.join(parts)}" if parts else "")


def _say_declared(event: ActionDeclared) -> str:
    step, at, penalty, target = event.step, event.at, event.penalty, event.target
    on = f" on {target}" if target else ""
    pen = f", penalty {penalty.value}" if penalty.value else ""
    if step == "readies":
        tail = f"ready at {at.value}, then held until: {event.trigger}"
    elif step == "progresses":
        tail = f"round-to-round, this round's share ends at {at.value}"
    else:
        tail = f"resolves at {at.value}"
    return f"{event.who} declares {event.action}{on} ({event.cost.value} AP{pen}) at {event.count}: {tail}"


def _say_progressed(event: ActionProgressed) -> str:
    return f"{event.who} puts {event.paid} AP into {event.action} ({event.progress} of {event.cost})"


def _say_readied(event: ActionReadied) -> str:
    return f"{event.who}'s {event.action} is ready ({event.paid} AP), held until: {event.trigger}"


def _say_resolved(event: ActionResolved) -> str:
    outcome, target, charge, at_count = event.outcome, event.target, event.charge, event.count
    on = f" on {target}" if target else ""
    when = f" at {at_count}" if at_count is not None else ""
    res = f": {outcome}" if outcome else ""
    ch = f" (charge x{charge.value}, critical +{event.critical_bonus})" if charge else ""
    pen = f", penalty now {event.penalty.value} (pace)" if event.penalty else ""
    return f"{event.who} resolves {event.action}{on}{when}{ch}, {event.paid} AP{pen}{res}"


def _say_cancelled(event: ActionCancelled) -> str:
    extra = ""
    if event.orientation:
        extra = " (Orientation Maneuver failed: no more actions this round)" if event.out else (
            f" (Orientation Maneuver {event.orientation}: delay {event.delay})")
    return f"{event.who}'s {event.action} {event.reason}{extra}"


def _say_pace(event: PaceChanged) -> str:
    return f"{event.who} moves at {event.pace} pace from count {event.count} (penalty {event.penalty})"


def _say_parry(event: ParryDeclared) -> str:
    return f"{event.who} parries {event.amount}" + (f" against {event.against}" if event.against else "")


def _say_parry_used(event: ParryUsed) -> str:
    return f"{event.who} parries {event.against}'s attack" + (
        f": {event.paid} AP spent on the melee attack" if event.paid else "")


def _say_damage(event: DamageTaken) -> str:
    return f"{event.who} takes {event.hits.value} hits ({event.hits_left} left)"


def _say_healed(event: HitsHealed) -> str:
    return f"{event.who} is healed {event.hits.value} hits ({event.hits_left} left)"


def _say_effect(event: EffectApplied) -> str:
    per_round, rounds = event.per_round, event.rounds
    detail = f"{per_round} a round" if per_round else (
        f"{rounds} round{'' if rounds == 1 else 's'}" if rounds else "until upkeep")
    return f"{event.who} is {event.kind} ({detail})"


def _say_effect_ended(event: EffectEnded) -> str:
    return f"{event.who} is no longer {event.kind} ({event.reason})"


def _say_staunched(event: BleedingStaunched) -> str:
    return f"{event.by} staunches {event.who}'s bleeding to {event.per_round} a round"


def _say_counter(event: CounterSet) -> str:
    if event.ended:
        return f"The scene's {event.name} stops"
    return f"The scene's {event.name} stands at {event.value}, {event.per_round:+d} each upkeep"


def _say_round_ended(event: RoundEnded) -> str:
    lost = event.ap_lost
    tail = "; unspent AP lost: " + ", ".join(f"{k} {v}" for k, v in lost.items()) if lost else ""
    return f"Round {event.round} ends{tail}"


# In the order the kinds were told before (a subclass of one is told as the first it is).
_SAYS: dict[type[Event], Callable[[Any], str]] = {
    UpkeepTick: _say_upkeep, RoundStarted: _say_round_started, ActionContinued: _say_continued,
    ClockAdvanced: _say_count, ActionDeclared: _say_declared, ActionProgressed: _say_progressed,
    ActionReadied: _say_readied, ActionResolved: _say_resolved, ActionCancelled: _say_cancelled,
    PaceChanged: _say_pace, ParryDeclared: _say_parry, ParryUsed: _say_parry_used, DamageTaken: _say_damage,
    HitsHealed: _say_healed, EffectApplied: _say_effect, EffectEnded: _say_effect_ended,
    BleedingStaunched: _say_staunched, CounterSet: _say_counter, RoundEnded: _say_round_ended,
}


class ApView(GoesDown, Rules[ApState]):
    """The view, the glance a replay reads, and the words of the events."""

    def __init__(self) -> None:
        # The view's row of each combatant as last built, by name: (a copy of the fighter
        # it was built from, its action included; its status, whether it acts, the row,
        # its pending action). The fold changes a fighter in place, so the row is kept
        # with a copy, compared field by field, not with the object (ApState): while the
        # fighter equals it, and the status and turn to act are as they were, the row is
        # the same, and a replay builds the rows of the one or two fighters an event
        # changed, not of all of them.
        self._rows: dict[str, tuple[Fighter, Status, bool, Combatant, Pending | None]] = {}
        # The glance's row of each combatant, by name, with the goes-down reading and the
        # figures of the row it was built from: a row follows from those alone, so a
        # fighter whose row's figures are as they were (a declaration, a pace) keeps its
        # row (the same object).
        self._glanced: dict[str, tuple[str | None, tuple[Any, ...], Combatant]] = {}
        # The last glance: the state it read (the replay's working copy, changed in place
        # by the next event), the goes-down reading, its rows, each fighter's place among
        # them, its clock and the figures it was built from, and the glance itself.
        self._last_glance: tuple[
            ApState, str | None, tuple[Combatant, ...], dict[str, int], Clock, tuple[int, bool, int | None], Glance,
        ] | None = None

    def view(self, state: ApState) -> View:
        count = state.count
        fighters = list(state.fighters.values())
        down = {f.name: self.down(state, f) for f in fighters}
        ranked = _ranked(fighters, down)
        may = {f.name for f in fighters if may_declare(f, down[f.name])} if state.in_round else set()
        now = _acting_at(state, count, waiting=True, may=may) if state.in_round and count is not None else ()
        upcoming = next_count(state, may) if state.in_round else None
        following = _acting_at(state, upcoming, waiting=False, may=may) if upcoming is not None else ()
        combatants = []
        pending = []
        rows = self._rows
        for f in ranked:
            status: Status = "left" if f.left else "down" if down[f.name] else "out" if f.out else "fighting"
            acting = f.name in now
            row = rows.get(f.name)
            if row is None or row[0] != f or row[1] != status or row[2] != acting:
                row = rows[f.name] = (replace(f), status, acting, _combatant(f, status, acting), _pending(f))
            combatants.append(row[3])
            if row[4] is not None:
                pending.append(row[4])
        clock = Clock(round=state.round, running=state.in_round, moment=_moment(state), now=now, next=following,
                      own=ApClock(count=count))
        return View(
            clock=clock, combatants=tuple(combatants), pending=tuple(pending),
            own=ApScene(environment=state.counters),
        )

    def glance(self, state: ApState, event: Event | None = None) -> Glance:
        # The view's rows without its acting order, who acts now and next. After an event
        # that changes the one fighter it names, or none (most of a fight: _CHANGES), of the
        # same state as the last glance, that fighter's row alone is read again, the others
        # kept; else every fighter's. A row whose figures are as they were stays the same
        # object (_glance_row), and so does the tuple of rows: the replay skips them.
        rule = state.options.get(GOES_DOWN)
        fighters = state.fighters
        last = self._last_glance
        combatants: tuple[Combatant, ...] | None = None
        places: dict[str, int] = {}
        if last is not None and last[0] is state and last[1] == rule and event is not None:
            # The last glance's rows after the one event since: the fighter it names read
            # again, or none; a kind of event not in _CHANGES may change any.
            field = _CHANGES.get(type(event))
            places = last[3]
            if field is not None and len(fighters) == len(places):
                if not field:
                    combatants = last[2]
                else:
                    name = getattr(event, field)
                    place, f = places.get(name), fighters.get(name)
                    if place is not None and f is not None:
                        combatants = last[2]
                        row = self._glance_row(state, f, rule)
                        if row is not combatants[place]:  # else its figures are as they were
                            rows = list(combatants)
                            rows[place] = row
                            combatants = tuple(rows)
                    elif place is None and f is None:  # no fighter of that name (an environment tick's "scene")
                        combatants = last[2]
        if combatants is None:
            combatants = tuple([self._glance_row(state, f, rule) for f in fighters.values()])
            if last is not None and len(combatants) == len(last[2]) and all(map(is_, combatants, last[2])):
                combatants, places = last[2], last[3]  # the same rows, the same fighters in the same places
            else:
                places = {name: i for i, name in enumerate(fighters)}
        when = (state.round, state.in_round, state.count)  # all the clock's figures follow from
        if last is not None and last[5] == when:
            clock = last[4]
        else:
            clock = Clock(round=state.round, running=state.in_round, moment=_moment(state),
                          own=ApClock(count=state.count))
        if last is not None and combatants is last[2] and clock is last[4]:
            glance = last[6]  # the same glance: the replay takes it as the one before, all of it
        else:
            glance = Glance(clock=clock, combatants=combatants, ordered=False)
        self._last_glance = (state, rule, combatants, places, clock, when, glance)
        return glance

    def acting_order(self, state: ApState) -> tuple[str, ...]:
        fighters = list(state.fighters.values())
        return tuple(f.name for f in _ranked(fighters, {f.name: self.down(state, f) for f in fighters}))

    def _glance_row(self, state: ApState, f: Fighter, rule: str | None) -> Combatant:
        row = self._glanced.get(f.name)
        figures = _ROW_FIGURES(f)
        if row is not None and row[1] == figures and row[0] == rule:  # a declaration, a pace: the same row
            return row[2]
        status: Status = "left" if f.left else "down" if self.down(state, f) else "out" if f.out else "fighting"
        row = self._glanced[f.name] = (rule, figures, _combatant(f, status, False))
        return row[2]

    def harm(self, event: Event) -> Harm | None:
        # Damage is counted in hits (ap-countdown.md, Resolution); bleeding loses hits at
        # the Upkeep, dealt by no one at that moment.
        match event:
            case DamageTaken(who=who, hits=hits):
                return Harm(who=who, amount=hits.value, unit="hits")
            case HitsHealed(who=who, hits=hits):
                return Harm(who=who, amount=hits.value, unit="hits", heal=True)
            case UpkeepTick(step="bleeding", who=who, change=change) if change < 0:
                return Harm(who=who, amount=-change, unit="hits")
        return None

    def describe(self, event: Event) -> str:
        # Each kind of event told by its own function, found by its type (a long fight's
        # events are most of all count steps, declarations, resolutions, damage and upkeep
        # ticks: a match would try its cases one by one).
        say = _SAYS.get(type(event))
        if say is not None:
            return say(event)
        for kind, told in _SAYS.items():  # a kind of one of these events: told as that one
            if kind is not UpkeepTick and isinstance(event, kind):
                return told(event)
        return type(event).__name__


def _ranked(fighters: list[Fighter], down: dict[str, bool]) -> list[Fighter]:
    """The view's acting order (Initiative): highest actual initiative first; those without
    one (joined since the round's roll) after, in the order they were added; those who
    cannot act (down, left) last. ``down``: whether each is down, by name."""
    return sorted(fighters, key=lambda f: (f.left or down[f.name], f.initiative is None, -(f.initiative or 0)))


def _moment(state: ApState) -> str:
    if state.in_round:
        return f"count {state.count}"
    return "before the first round" if state.round == 0 else f"after round {state.round}"


def _acting_at(state: ApState, count: int, waiting: bool, may: AbstractSet[str]) -> tuple[str, ...]:
    """Who acts at ``count``: actions resolving or arriving there, and those who may
    declare there (with ``waiting``, also those whose initiative passed and who have not
    declared: waiting is allowed). ``may`` as for :func:`next_count`."""
    names = []
    for f in state.fighters.values():
        a = f.action
        if a is not None and a.step != "ready":
            if a.resolves_at == count:
                names.append(f.name)
        elif f.name in may and f.initiative is not None and (
            f.initiative == count or (waiting and f.initiative > count)
        ):
            names.append(f.name)
    return tuple(names)


# The fighter each kind of event may change, by the field of the event naming it, or ""
# for none: each applier above changes ``state.fighters[event.who]`` alone, or no fighter
# (the count, the scene's counters); an upkeep tick changes its ``who``, an environment
# tick (who "scene") none. A kind not here may change any fighter and the glance reads
# them all: a round's start and end (every fighter), and the core events (a combatant
# added, carried, leaving, back, renamed, its stats set). tests/rulesets/test_ap_countdown_fold.py
# holds every fighter an event does not name here to what it was before, event by event.
_CHANGES: dict[type[Event], str] = {
    ClockAdvanced: "", CounterSet: "",
    ActionDeclared: "who", ActionProgressed: "who", ActionReadied: "who", ActionResolved: "who",
    ActionCancelled: "who", ActionContinued: "who", PaceChanged: "who", ParryDeclared: "who", ParryUsed: "who",
    DamageTaken: "who", HitsHealed: "who", EffectApplied: "who", EffectEnded: "who", BleedingStaunched: "who",
    UpkeepTick: "who",
}


# Every field of a fighter that its row reads (_combatant, and its status: left, out and
# the goes-down reading of hits - damage): two fighters alike in these have the same row.
_ROW_FIGURES = attrgetter(
    "name", "side", "hits", "damage", "ap", "had", "spent", "effects", "base", "delay", "pace", "out", "parry", "left")


def _combatant(f: Fighter, status: Status, acting: bool) -> Combatant:
    """A fighter's row of the view: all of it read off the fighter but its status and turn."""
    return Combatant(
        name=f.name, side=f.side, status=status, acting=acting,
        vital=Gauge(name="hits left", value=f.hits - f.damage, maximum=f.hits),
        budget=Budget(name="AP", left=f.ap, of=f.had if f.had is not None else f.ap + f.spent),
        effects=tuple(
            Shown(kind=e.kind, left=e.rounds, detail=f"{e.per_round} a round" if e.per_round else "", custom=e.custom)
            for e in f.effects
        ) if f.effects else (),
        own=ApFigures(
            initiative=f.initiative, base_initiative=f.base, ap=f.ap, ap_spent=f.spent, hits=f.hits,
            damage=f.damage, pace=f.pace, delay=f.delay, out_of_round=f.out, parry=f.parry,
        ),
    )


def _pending(f: Fighter) -> Pending | None:
    a = f.action
    if a is None:
        return None
    return Pending(
        who=f.name, action=a.name, target=a.target, resolves=_resolves(a),
        own=ApPending(ap=a.cost, resolves_at=a.resolves_at, step=a.step, trigger=a.trigger, progress=a.progress,
                      penalty=a.penalty),
    )


def _resolves(a: Action) -> str:
    if a.step == "resolves":
        return f"count {a.resolves_at}"
    if a.step == "readies":
        return f"ready at count {a.resolves_at}, then held until: {a.trigger}"
    if a.step == "ready":
        return f"held until: {a.trigger}"
    share = f"this round's share at count {a.resolves_at}" if a.resolves_at is not None else "a later round"
    return f"{a.progress} of {a.cost} AP; {share}"
