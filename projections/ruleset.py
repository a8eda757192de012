"""The ruleset interface (a decider), its registry, and the helpers every ruleset shares.

A ruleset is a decider: ``initial`` builds the state from the encounter's first event,
``decide`` validates a command against the state and computes every number (dice,
derived figures, each with the rule that produced it), ``apply`` applies one event to a
working copy of the state in place and never rolls, reads the clock or fails on a stored
event. ``view`` returns the typed :class:`~skirmish.projections.view.View` every surface
reads (the same core for every ruleset, ``state --json`` prints it); ``describe``
narrates one event for the log, the replay and the command output. :class:`Rules` gives
a ruleset its dispatch (``@decides``, ``@applies``) and the decisions every ruleset
shares (``add``, ``leave``, ``return``).

Rulesets register under the ``skirmish.rulesets`` entry-point group: the built-in ones
exactly as a third-party package would (docs/adding-a-ruleset.md).
"""

from __future__ import annotations

from shlex import quote
from collections.abc import Callable, Mapping, Sequence
from functools import cache, cached_property
from typing import Any, Generic, Literal, Protocol, TypeVar

import msgspec

from skirmish.eventlog.commands import (
    AddCombatant,
    AddNote,
    ApplyEffect,
    AtTheTable,
    CarriedEffect,
    Command,
    EndEncounter,
    Leave,
    Rename,
    Return,
    RollDice,
    SetStats,
)
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation, UnknownCombatant, UnknownRuleset
from skirmish.eventlog.events import (
    CORE_EVENTS,
    CombatantAdded,
    CombatantLeft,
    CombatantRenamed,
    CombatantReturned,
    DiceRolled,
    EncounterEnded,
    EncounterStarted,
    Event,
    Roll,
    StatsSet,
    TraitsSet,
)
from skirmish.eventlog.text import check_label, check_note, quoted
from skirmish.projections import gm
from skirmish.projections.view import Glance, View


class Fighter(Protocol):
    """A combatant of a ruleset's state, as the decisions every ruleset shares read it (its
    fighter struct holds the rest)."""

    @property
    def name(self) -> str: ...

    @property
    def left(self) -> bool:
        """It has left the fight (`leave`); back with `return`."""
        ...


class Fighters(Protocol):
    """What every ruleset's state holds: its fighters by name, in the order they were added
    (``State`` is bound to it, so mypy checks each ruleset's state type against it)."""

    @property
    def fighters(self) -> Mapping[str, Fighter]: ...

    def names(self) -> Sequence[str]: ...


class MutableFighter(Protocol):
    """A fighter the fold changes in place (a mutable struct)."""

    left: bool


class MutableFighters(Protocol):
    """A state whose fighters the fold changes in place, as :class:`Rules` marks one that
    leaves or returns. A ruleset whose fighters are frozen values (ap-countdown) marks its
    own handlers for CombatantLeft and CombatantReturned (one that does not fails the
    shared property tests, tests/rulesets/test_invariants.py, which leave and return in every ruleset)."""

    @property
    def fighters(self) -> Mapping[str, MutableFighter]: ...


State = TypeVar("State", bound=Fighters)
ENTRY_POINT_GROUP = "skirmish.rulesets"
DISTRIBUTION = "skirmish-log"  # whose entry points BUILT_IN mirrors


class Harm(msgspec.Struct, frozen=True, kw_only=True):
    """What one event did to a combatant in the rules' own count of damage (``unit``: hits,
    Endurance and Health, wounds), or gave back (``heal``); ``by``: the attacker, where
    the event itself records one. Summaries add these up, never the vital figure's drops:
    a figure can fall for reasons that are not damage (phases: initiative lost to wounds)."""

    who: str
    amount: int
    unit: str
    by: str | None = None
    heal: bool = False


class Aim(msgspec.Struct, frozen=True, kw_only=True):
    """An action of ``who`` aimed at ``target`` (an attack declared, resolved or rolled)."""

    who: str
    target: str


# The five below are frozen Structs, not frozen dataclasses: the same fields, equality and
# hash, made at import in a fiftieth of the time (docs/performance.md).
class Option(msgspec.Struct, frozen=True):
    """An open point of a rules text, settled per encounter and recorded in its first event."""

    default: str
    choices: tuple[str, ...]
    doc: str


class Stat(msgspec.Struct, frozen=True):
    """A number a combatant must (or may) have under a ruleset, or with ``kind=str`` a text
    (a list of damage types, say): a text stat is never required, is one line of printable
    text, and is recorded in the combatant's ``traits`` (CombatantAdded), only when given;
    ``default``, ``minimum`` and ``maximum`` are for numbers."""

    doc: str
    required: bool = True
    default: int = 0
    minimum: int | None = None
    maximum: int | None = None
    kind: type[int] | type[str] = int


class ActionInfo(msgspec.Struct, frozen=True):
    """One action of a ruleset's table, as `skirmish rules RULESET` lists it.

    ``takes``: the flags and details of `declare` (by name, as ``flags`` and ``details``
    key them) this action reads, so a surface asks for those alone (the GM's page shows an
    attack's target and bonus, not a move's pace); None: it may read any of them, as an
    action declared before rulesets said so does."""

    cost: str  # what it costs in the ruleset's budget, in its own words: "2-4 AP", "30-50 %"
    doc: str
    takes: tuple[str, ...] | None = None


class Detail(msgspec.Struct, frozen=True):
    """A KEY=VALUE word (`--with KEY=VALUE`) a ruleset accepts on some of its commands."""

    doc: str
    commands: tuple[str, ...]  # command tags: "declare", "resolve", "round", ...
    choices: tuple[str, ...] = ()  # empty: any value the ruleset checks itself


class Flag(msgspec.Struct, frozen=True):
    """A `--NAME` a ruleset reads on some of its commands (`skirmish rules RULESET` lists it).

    A NAME that is a field of the command (eventlog/commands.py: ``target``, ``amount``,
    ``hits``, ...) is that shared flag, which the command line parses whatever the ruleset
    and the engine refuses where the ruleset does not declare it. Any other NAME is the
    ruleset's own: the command line takes it only in the ruleset's encounters (`--NAME N`,
    `--NAME TEXT`, or `--NAME` alone for a ``kind`` of bool), and it travels in the
    command's ``details`` as `--with NAME=VALUE` would (a bool as ``yes``)."""

    doc: str
    commands: tuple[str, ...]  # command tags: "declare", "resolve", "round", ...
    kind: type[int] | type[str] | type[bool] = str  # a flag of its own; a shared one has its field's


class DiceKey(msgspec.Struct, frozen=True, kw_only=True):
    """One key of a declaration's dice (`--roll KEY=FACES`) and what is rolled under it."""

    key: str  # "Goblin 1", "dmg:Goblin 1"; for a target's roll, the prefix its name follows: "save:"
    what: str  # "d20 to hit", "1d6+2 slashing"


class Move(msgspec.Struct, frozen=True, kw_only=True):
    """An action a combatant's own sheet gives it (srd-5.2: its stat block's), as a surface
    offers it by name: `declare WHO NAME`, aimed at ``aim`` targets (several joined by +).

    ``label``: what it does, short ("+4, 1d6+2 slashing", "DC 15 Dex"); ``spent``: why it
    cannot be taken now ("recharge 5: spent", "1/day: 0 left"), "" while it can;
    ``rolls``: the actor's dice keys; ``each``: the keys each target rolls (a save), its
    name after the prefix."""

    name: str
    use: str = "action"  # the ruleset's word for how it is taken: action, bonus, reaction, legendary
    label: str = ""
    spent: str = ""
    aim: Literal["none", "one", "several"] = "none"
    rolls: tuple[DiceKey, ...] = ()
    each: tuple[DiceKey, ...] = ()


class Ruleset(Protocol[State]):
    """What a ruleset provides (docs/adding-a-ruleset.md walks through it).

    Most rulesets subclass :class:`Rules`, which implements ``decide``, ``apply``,
    ``copy`` and ``evolve`` from handlers marked with :func:`decides` and :func:`applies`.
    """

    @property
    def id(self) -> str:
        """The name `new --rules` takes and the entry point is registered under."""
        ...

    @property
    def rules_file(self) -> str:
        """The rules text it implements, cited by file and section beside each rule."""
        ...

    @property
    def options(self) -> Mapping[str, Option]:
        """The open points of the rules text, settled per encounter (first event)."""
        ...

    @property
    def stats(self) -> Mapping[str, Stat]: ...

    @property
    def actions(self) -> Mapping[str, ActionInfo]: ...

    @property
    def details(self) -> Mapping[str, Detail]:
        """The `--with KEY=VALUE` words it takes, and on which commands."""
        ...

    @property
    def flags(self) -> Mapping[str, Flag]:
        """The `--NAME` flags it reads, by NAME (a command's field name for a shared one:
        "target", "hits"), each with the commands it is read on. The engine refuses a
        command that sets a shared flag not declared here, naming them all in one message."""
        ...

    @property
    def effects(self) -> Mapping[str, str]:
        """The effect kinds its rules text gives (kind -> what it does). `effect` refuses
        any other kind not already on the table as a likely typo (with its did-you-mean)
        unless the GM marks it ``--custom``; the view shows such kinds ``custom``."""
        ...

    @property
    def event_types(self) -> tuple[type[Event], ...]: ...

    @property
    def state_version(self) -> int:
        """The version of the state's shape (``initial``'s type, a msgspec-encodable value):
        raise it whenever that shape or the meaning of a field changes, so states cached
        (snapshots) by an older version are not read back."""
        ...

    def initial(self, started: EncounterStarted) -> State: ...

    def decide(self, state: State, command: Command, dice: Dice) -> list[Event]:
        """The events ``command`` produces at ``state``, or a SkirmishError; ``state`` is
        left as it was."""
        ...

    def apply(self, state: State, event: Event) -> None:
        """Apply one stored event to a working copy of the state, in place. Never rolls,
        reads the clock or fails on a stored event."""
        ...

    def copy(self, state: State) -> State:
        """A copy of a state that later ``apply`` calls on either leave the other alone."""
        ...

    def evolve(self, state: State, event: Event) -> State:
        """The state after ``event``: a new state, ``state`` left as it was."""
        ...

    def view(self, state: State) -> View:
        """The typed view every surface reads (projections/view.py)."""
        ...

    def glance(self, state: State, event: Event | None = None) -> Glance:
        """What the narrated replay reads of ``view(state)``, an event at a time: the
        moment and each combatant's figures (projections/view.py ``Glance``). ``Rules``
        builds the whole view; a ruleset whose view is costly (an acting order, who acts
        now and next) may build less, figure for figure the same as its view's.

        ``event``: the one event applied to ``state`` (the same object) since this
        ruleset's last glance, which was of it; None when the caller does not know (another
        state, several events, none). A glance may then read again only the combatants that
        event can change, keeping the other rows of the last glance, so it must know which
        combatants each kind of event changes, those it does not name included (a round's
        start changes every one): a kind it is not sure of, it reads whole."""
        ...

    def acting_order(self, state: State) -> tuple[str, ...]:
        """The combatants' names in ``view(state)``'s acting order (the replay orders by it
        what one event changed in several rows, when its glance is not ordered)."""
        ...

    def describe(self, event: Event) -> str:
        """One line of narration of one of its events, for the log and the replay."""
        ...

    def harm(self, event: Event) -> Harm | None:
        """The damage (or healing) the event records, in the rules' unit; None if none."""
        ...

    def aim(self, event: Event) -> Aim | None:
        """The combatant the event's action is aimed at, if it is aimed at one."""
        ...

    def moves(self, state: State, who: str) -> tuple[Move, ...]:
        """The actions ``who``'s own sheet gives it, as a surface offers them by name
        (none where the ruleset keeps no sheets: every action is its table's)."""
        ...


Decider = Callable[[Any, Any, Any, "Dice"], list[Event]]


def decides(*commands: type[Command]) -> Callable[[F], F]:
    """Mark a method ``(self, state, command, dice) -> events`` of a :class:`Rules` as the
    decision for these command types."""

    def mark(method: F) -> F:
        method.__dict__["_decides"] = commands
        return method

    return mark


def applies(*events: type[Event]) -> Callable[[F], F]:
    """Mark a method ``(self, state, event) -> None`` of a :class:`Rules` as what these
    event types do to a working copy of the state; or a static one ``(state, event) ->
    None``, marked over its ``@staticmethod`` (``@applies(E)`` then ``@staticmethod``): the
    fold's table (:meth:`Rules.appliers`) then holds the plain function."""

    def mark(method: F) -> F:
        method.__dict__["_applies"] = events
        return method

    return mark


F = TypeVar("F", bound=Callable[..., Any])


class Rules(Generic[State]):
    """The shared machinery of a ruleset: one dispatch for decisions and one for the fold.

    A subclass sets ``state_type`` (a msgspec Struct, mutable: the fold works on a copy
    in place, STYLE 7) and marks its handlers with :func:`decides` and :func:`applies`.
    ``add`` is decided here for every ruleset (a unique name and the declared stats);
    events a ruleset has no handler for (notes, the encounter's start) change nothing.

    ``event_types`` (what the encounter's codec reads back) is derived: every event type
    an ``@applies`` handler takes, then ``records_only``.
    """

    # What a subclass declares (the Ruleset protocol's, docs/adding-a-ruleset.md): set by
    # the ruleset's own class, declared here so its mixins (decisions, fold, view in files
    # of their own) and the shared decisions below read them typed.
    id: str
    rules_file: str
    options: Mapping[str, Option]
    stats: Mapping[str, Stat]
    actions: Mapping[str, ActionInfo]
    details: Mapping[str, Detail]
    flags: Mapping[str, Flag]
    state_version: int
    state_type: type[State]
    # Events ``decide`` records that change nothing in the state (no ``@applies`` handler):
    # listed so the codec reads them back. Every other event type comes from the handlers.
    records_only: tuple[type[Event], ...] = ()
    event_types: tuple[type[Event], ...]
    _deciders: dict[type[Command], Decider]
    _applier_names: dict[type[Event], str]  # event type -> the name of the method applying it

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "event_types" in vars(cls):
            raise TypeError(f"{cls.__name__}.event_types is derived from its @applies handlers "
                            "(and records_only): do not list them")
        deciders: dict[type[Command], Decider] = {}
        applies: dict[type[Event], str] = {}
        for klass in reversed(cls.__mro__):
            for name, member in vars(klass).items():
                for command in getattr(member, "_decides", ()):
                    deciders[command] = member
                for event in getattr(member, "_applies", ()):
                    applies[event] = name
        cls._deciders, cls._applier_names = deciders, applies
        own = [t for t in applies if t not in CORE_EVENTS]
        cls.event_types = (*own, *(t for t in cls.records_only if t not in own))

    @cached_property
    def _codec(self) -> tuple[msgspec.msgpack.Encoder, msgspec.msgpack.Decoder[State]]:
        return msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(self.state_type)

    @cached_property
    def _appliers(self) -> dict[type[Event], Callable[[State, Any], None]]:
        return {event: getattr(self, name) for event, name in self._applier_names.items()}

    def appliers(self) -> Mapping[type[Event], Callable[[State, Any], None]] | None:
        """The fold's dispatch: event type -> the handler ``apply`` calls for it, bound (a
        static one as it is). A loop over many events (the engine's replay) reads it once and
        calls the handlers itself rather than ``apply`` an event. None when a subclass
        overrides ``apply``: its own fold must run."""
        return self._appliers if type(self).apply is Rules.apply else None

    def decide(self, state: State, command: Command, dice: Dice) -> list[Event]:
        decider = self._deciders.get(type(command))
        if decider is None:
            raise RuleViolation(f"{getattr(self, 'id', '?')} has no use for `{tag_of_command(command)}`")
        return decider(self, state, command, dice)

    def apply(self, state: State, event: Event) -> None:
        applier = self._appliers.get(type(event))
        if applier is not None:
            applier(state, event)

    def copy(self, state: State) -> State:
        encoder, decoder = self._codec
        return decoder.decode(encoder.encode(state))

    def evolve(self, state: State, event: Event) -> State:
        after = self.copy(state)
        self.apply(after, event)
        return after

    def initial(self, started: EncounterStarted) -> State:
        """The state at the encounter's first event: each ruleset builds its own."""
        raise NotImplementedError(f"{type(self).__name__} builds no initial state")

    def view(self, state: State) -> View:
        """The typed view every surface reads: each ruleset builds its own."""
        raise NotImplementedError(f"{type(self).__name__} has no view")

    def describe(self, event: Event) -> str:
        """One line of narration of one of its events: each ruleset words its own."""
        raise NotImplementedError(f"{type(self).__name__} words no events")

    def glance(self, state: State, event: Event | None = None) -> Glance:
        # Right for any ruleset, since it is the view: a ruleset overrides it for speed.
        view = self.view(state)
        return Glance(clock=view.clock, combatants=view.combatants)

    def acting_order(self, state: State) -> tuple[str, ...]:
        return tuple(c.name for c in self.view(state).combatants)

    effects: Mapping[str, str] = {}

    def harm(self, event: Event) -> Harm | None:
        return None

    def aim(self, event: Event) -> Aim | None:
        who, target = getattr(event, "who", None), getattr(event, "target", None)
        # The shared reading: an event with a ``who`` and a ``target`` is an action aimed at
        # that combatant. A ruleset whose events mean otherwise overrides this.
        return Aim(who=who, target=target) if isinstance(who, str) and isinstance(target, str) else None

    def moves(self, state: State, who: str) -> tuple[Move, ...]:
        return ()

    @decides(AddCombatant)
    def _decide_add(self, state: State, command: AddCombatant, dice: Dice) -> list[Event]:
        return [*decide_add(self, state.names(), command)]

    def lasting(self, state: State, who: str) -> list[CarriedEffect]:
        """The conditions on ``who`` that outlast the fight (`new --carry`), as the `effect`
        commands that put them on again. Default: the view's effects with no rounds left to
        run that are the ruleset's kinds or the GM's own; a ruleset whose effects need more (a bleed's hits a round) or whose view shows
        what is not an effect overrides it."""
        return lasting_from_view(self, self.view(state), who)

    def carried_figures(self, state: State, who: str) -> dict[str, int]:
        """The figures of ``who`` besides its vital figure that outlast the fight (`new
        --carry`), by name: what its ``combatant-carried`` applier sets again. Default: none."""
        return {}

    # Leaving and coming back are the same in every ruleset: a combatant's ``left`` flag
    # (a field of its fighter struct), which the ruleset's clock and refusals read. A
    # ruleset that must do more when someone leaves (drop a pending action) marks its own
    # handler for CombatantLeft, which replaces this one.

    @decides(Leave)
    def _decide_leave(self, state: State, command: Leave, dice: Dice) -> list[Event]:
        fighter = self._fighter(state, command.who)
        if fighter.left:
            raise RuleViolation(f"{fighter.name} has already left the fight (`skirmish return {fighter.name}`)")
        reason = " ".join(command.reason.split()) or "leaves the fight"
        return [CombatantLeft(who=fighter.name, reason=reason)]

    @decides(Return)
    def _decide_return(self, state: State, command: Return, dice: Dice) -> list[Event]:
        fighter = self._fighter(state, command.who)
        if not fighter.left:
            raise RuleViolation(f"{fighter.name} has not left the fight: nothing to return from")
        return [CombatantReturned(who=fighter.name)]

    @applies(CombatantLeft)
    def _marks_left(self, state: MutableFighters, event: CombatantLeft) -> None:
        state.fighters[event.who].left = True

    @applies(CombatantReturned)
    def _marks_returned(self, state: MutableFighters, event: CombatantReturned) -> None:
        state.fighters[event.who].left = False

    def _fighter(self, state: State, who: str) -> Fighter:
        return state.fighters[find_name(state.names(), who)]

    # What GMs expect of a tracker, the same in every ruleset (projections/gm.py): end the
    # encounter (the engine refuses what plays on after it), change a combatant's stats or
    # name, roll for the table. A ruleset whose state holds a stat or a name where the
    # shared readings do not look overrides ``restat`` or ``rename_in``.

    stat_fields: Mapping[str, str] = {}  # stat -> the fighter's field holding it, where not its own name

    @decides(EndEncounter)
    def _decide_end(self, state: State, command: EndEncounter, dice: Dice) -> list[Event]:
        return [EncounterEnded(reason=" ".join(command.reason.split()))]

    @decides(SetStats)
    def _decide_set(self, state: State, command: SetStats, dice: Dice) -> list[Event]:
        fighter = self._fighter(state, command.who)
        if not command.stats:
            raise BadInput(f"set {fighter.name} takes one or more KEY=N (stats: {', '.join(self.stats)})")
        stats = check_stats(self, fighter.name, command.stats, partial=True)
        try:
            was = {key: gm.stat_now(fighter, key, self.stat_fields) for key in stats}
        except TypeError as exc:  # a ruleset that keeps a stat where the shared reading does not look
            raise RuleViolation(f"{getattr(self, 'id', '?')} cannot `set` this: {exc}") from None
        # Text stats (resistances, immunities) change as the numbers do, in an event of their own.
        given = {k: v for k, v in command.stats.items() if self.stats[k].kind is str}
        for key, text in given.items():
            check_label(f"{key}=", text)
        traits = {key: self.trait_words(key, text) for key, text in given.items()}
        traits_was = {key: trait_now(fighter, key) for key in traits}
        events: list[Event] = []
        if stats and was != stats:
            events.append(StatsSet(who=fighter.name, stats=stats, was=was))
        if traits and traits_was != traits:
            events.append(TraitsSet(who=fighter.name, traits=traits, was={k: v for k, v in traits_was.items() if v}))
        if not events:
            shown = ", ".join([*(f"{k}={v}" for k, v in stats.items()), *(f"{k}={v}" for k, v in traits.items())])
            raise RuleViolation(f"{fighter.name} has {shown} already: nothing to set")
        return events

    def trait_words(self, key: str, text: str) -> str:
        """Text stat ``key`` as `set` records it: its words, spaces collapsed. A ruleset that
        reads the words (srd-5.2's damage types) checks them here."""
        return " ".join(text.split())

    @applies(TraitsSet)
    def _traits_set(self, state: State, event: TraitsSet) -> None:
        fighters: Any = state.fighters
        fighter = fighters[event.who]
        changed = {key: ([w.strip().lower() for w in text.split(",") if w.strip()]
                         if isinstance(getattr(fighter, key, ""), list) else text)
                   for key, text in event.traits.items()}
        fighters[event.who] = msgspec.structs.replace(fighter, **changed)

    @applies(StatsSet)
    def _stats_set(self, state: State, event: StatsSet) -> None:
        fighters: Any = state.fighters
        fighters[event.who] = self.restat(fighters[event.who], event.stats, event.was)

    def restat(self, fighter: Any, stats: Mapping[str, int], was: Mapping[str, int]) -> Any:
        """The fighter with new stats (``was``: the values before). The shared reading: each
        stat is the field of its name (``stat_fields``), and a figure kept apart from it,
        such as the damage taken, is kept, so raising a maximum raises what is left by as
        much. A ruleset whose current figures are pools of their own overrides this."""
        return gm.restat_fields(fighter, stats, self.stat_fields)

    @decides(Rename)
    def _decide_rename(self, state: State, command: Rename, dice: Dice) -> list[Event]:
        fighter = self._fighter(state, command.who)
        to = check_name("a combatant", command.to)
        if to == fighter.name:
            raise RuleViolation(f"{fighter.name} is named {to} already: nothing to rename")
        from skirmish.projections import names as policy

        if policy.fold(to) in RESERVED_NAMES:
            raise BadInput(f"{to!r} is reserved (it names the scene's own counters)")
        # The same name, or one that only looks like it (projections/names.py), as at `add`.
        other = policy.look_alike(to, [n for n in state.names() if n != fighter.name])
        if other is not None:
            raise RuleViolation(policy.refusal("a combatant", to, other))
        return [CombatantRenamed(who=fighter.name, to=to)]

    @applies(CombatantRenamed)
    def _renamed(self, state: State, event: CombatantRenamed) -> None:
        self.rename_in(state, event.who, event.to)

    def rename_in(self, state: State, old: str, new: str) -> None:
        """Call the combatant ``old`` ``new`` everywhere the state holds its name, in place
        (the shared reading: projections/gm.py, ``renamed``)."""
        gm.rename_in_place(state, old, new)

    @decides(RollDice)
    def _decide_roll(self, state: State, command: RollDice, dice: Dice) -> list[Event]:
        spec = gm.parse_dice(command.dice)
        who = self._fighter(state, command.who).name if command.who is not None and command.who.strip() else ""
        gm.check_faces(spec, command.rolls.get(gm.DICE_KEY))
        roll = dice.roll(gm.DICE_KEY, spec.count, spec.sides)
        return [DiceRolled(total=gm.total(spec, roll), who=who, why=" ".join(command.why.split()))]


def tag_of_command(command: Command) -> str:
    return str(type(command).__struct_config__.tag)


def has_decision(ruleset: Ruleset[Any], command_type: type[Command]) -> bool:
    """Whether ``ruleset`` decides commands of ``command_type``, as its ``@decides`` handlers
    say: what a caller asks before recording a command a ruleset may not take (`resume`). A
    ruleset not built on :class:`Rules` has no such handlers, and is taken to decide none."""
    deciders = getattr(type(ruleset), "_deciders", None)
    return isinstance(deciders, dict) and command_type in deciders


@cache
def registry() -> dict[str, Any]:
    """Ruleset id -> entry point (loaded on demand, so a command imports one ruleset only)."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _built_in() -> dict[str, str]:
    """The rulesets shipped with skirmish: each module or package of projections/rulesets/ is the ruleset
    its name says (``ap_countdown`` is ``ap-countdown``), registered in pyproject.toml under
    the entry points as ``skirmish.projections.rulesets.<module>:RULESET`` like any other
    (tests/rulesets/test_registry.py holds the two equal). Looking a built-in one up here spares a
    command at the table importlib.metadata and the scan of installed distributions (about
    20 ms a run); any other id is looked up through the entry points."""
    import os

    from skirmish.projections import rulesets

    # A ruleset is a module (``name.py``) or a package (``name/__init__.py``); a name
    # starting with ``_`` is a part the rulesets share, not a ruleset.
    folder = rulesets.__path__[0]
    modules = sorted(name.removesuffix(".py") for name in os.listdir(folder)
                     if not name.startswith("_")
                     and (name.endswith(".py") or os.path.isfile(os.path.join(folder, name, "__init__.py"))))
    return {ruleset_id_of(name): f"{rulesets.__name__}.{name}:RULESET" for name in modules}


def module_of(ruleset_id: str) -> str:
    """The module name a ruleset's id is written under: ``-`` as ``_``, ``.`` as ``__``
    (``ap-countdown`` is ``ap_countdown``, ``srd-5.2`` is ``srd_5__2``)."""
    return ruleset_id.replace(".", "__").replace("-", "_")


def ruleset_id_of(module: str) -> str:
    """The ruleset id a module of projections/rulesets/ (or tests/support/) is named for."""
    return module.replace("__", ".").replace("_", "-")


BUILT_IN = _built_in()


@cache
def get_ruleset(ruleset_id: str) -> Ruleset[Any]:
    built_in = BUILT_IN.get(ruleset_id)
    if built_in is not None:
        from importlib import import_module

        module, _, attribute = built_in.partition(":")
        found: Ruleset[Any] = getattr(import_module(module), attribute)
        return found
    entry = registry().get(ruleset_id)
    if entry is None:
        raise UnknownRuleset(f"no ruleset {ruleset_id!r} (rulesets: {installed()})")
    ruleset: Ruleset[Any] = entry.load()
    return ruleset


def installed() -> str:
    return ", ".join(sorted(registry())) or "none installed"


def not_installed(encounter: str, ruleset_id: str) -> UnknownRuleset:
    """The refusal of an encounter recorded under a ruleset this skirmish does not have (it
    was uninstalled, or the file comes from a table that has it): named, never taken for
    a newer skirmish's."""
    return UnknownRuleset(
        f"encounter {quoted(encounter)} was played under ruleset {quoted(ruleset_id)}, which is not "
        f"installed here (installed: {installed()})"
    )


def settle_options(ruleset: Ruleset[Any], given: Mapping[str, str]) -> dict[str, str]:
    """Every option of the ruleset, given values checked, the rest at their defaults."""
    settled = {name: opt.default for name, opt in ruleset.options.items()}
    for key, value in given.items():
        opt = ruleset.options.get(key)
        if opt is None:
            known = ", ".join(ruleset.options) or "none"
            raise BadInput(f"{ruleset.id} has no option {key!r} (options: {known})")
        if value not in opt.choices:
            raise BadInput(f"option {key} takes {' or '.join(opt.choices)}, not {value!r}")
        settled[key] = value
    return settled


def check_stats(ruleset: Ruleset[Any], name: str, raw: Mapping[str, str], *, partial: bool = False) -> dict[str, int]:
    """The combatant's stats as numbers, each checked against what the ruleset asks for;
    ``partial`` (`set`): only those given, none asked for."""
    stats: dict[str, int] = {}
    for key, text in raw.items():
        spec = ruleset.stats.get(key)
        if spec is None:
            known = ", ".join(ruleset.stats)
            raise BadInput(f"{ruleset.id} has no stat {key!r} for {name} (stats: {known})")
        if spec.kind is str:
            continue  # a text stat: check_traits reads it
        if key in stats:
            raise BadInput(f"stat {key} of {name} is given twice")
        try:
            value = int(text)
        except ValueError:
            raise BadInput(f"stat {key} of {name} must be a whole number, not {text!r}") from None
        if abs(value) > LARGEST:
            raise BadInput(f"stat {key} of {name} is out of range (at most {LARGEST:,} either way)")
        if spec.minimum is not None and value < spec.minimum:
            raise BadInput(f"stat {key} of {name} must be at least {spec.minimum}, not {value}")
        if spec.maximum is not None and value > spec.maximum:
            raise BadInput(f"stat {key} of {name} must be at most {spec.maximum}, not {value}")
        stats[key] = value
    if partial:
        return stats
    missing = [k for k, spec in ruleset.stats.items() if spec.required and spec.kind is int and k not in stats]
    if missing:
        asks = ", ".join(f"--stat {k}=N ({ruleset.stats[k].doc})" for k in missing)
        raise BadInput(f"{name} needs {asks}")
    for key, spec in ruleset.stats.items():
        if spec.kind is int:
            stats.setdefault(key, spec.default)
    return stats


def trait_now(fighter: Any, key: str) -> str:
    """A fighter's text stat as it stands, in the words `set` records (a list: commas between)."""
    value = getattr(fighter, key, "")
    return ", ".join(value) if isinstance(value, list) else str(value)


def check_traits(ruleset: Ruleset[Any], name: str, raw: Mapping[str, str]) -> dict[str, str]:
    """The combatant's text stats (``Stat(kind=str)``), each one line of printable text with
    its spaces collapsed; those not given are left out. The ruleset reads the words itself."""
    traits: dict[str, str] = {}
    for key, text in raw.items():
        spec = ruleset.stats.get(key)
        if spec is None or spec.kind is not str:
            continue  # check_stats refuses an unknown one, and reads the numbers
        check_label(f"--stat {key}=", text)
        words = " ".join(text.split())
        if words:
            traits[key] = words
    return traits


def options_in_force(ruleset: Ruleset[Any], started: EncounterStarted) -> dict[str, str]:
    """The options recorded in the first event; an option added to the ruleset after the
    encounter was recorded takes its default on replay."""
    return {key: opt.default for key, opt in ruleset.options.items()} | dict(started.options)


def check_details(ruleset: Ruleset[Any], command: Command) -> None:
    """Refuse any `--with KEY=VALUE` the ruleset does not declare for this command (a flag
    of its own declared there travels as one, and is checked against its kind)."""
    given: Mapping[str, str] = getattr(command, "details", {})
    tag = tag_of_command(command)
    own = own_flags(ruleset, type(command))
    for key, value in given.items():
        if key in own:
            if own[key].kind is bool and value != "yes":
                raise BadInput(f"--with {key}= takes yes, not {value!r} (or --{key})")
            if own[key].kind is int:
                detail_int(command, key)  # refuses what is not a whole number a table could mean
            continue
        spec = ruleset.details.get(key)
        if spec is None or tag not in spec.commands:
            known = [k for k, d in ruleset.details.items() if tag in d.commands]
            takes = f"it takes: {', '.join(known)}" if known else "it takes none"
            raise BadInput(f"{ruleset.id} `{tag}` has no detail {key!r} ({takes})")
        if spec.choices and value not in spec.choices:
            raise BadInput(f"--with {key}= takes {' or '.join(spec.choices)}, not {value!r}")


# The CLI's spelling of a command field where it is not the field's own name.
FLAG_NAMES: dict[str, str] = {}  # none today (ap-countdown's --charge, once the field charge_speed, is its own flag)
_NOT_FLAGS = frozenset({"rolls", "details", "typed_by", "custom", "reason", "who", "why"})  # the engine's own, for every ruleset


def flag_name(field: str) -> str:
    return FLAG_NAMES.get(field, "--" + field.replace("_", "-"))


@cache
def optional_fields(command_type: type[Command]) -> tuple[tuple[str, Any], ...]:
    """A command type's shared optional fields (those with a default), with the default."""
    info = msgspec.structs.fields(command_type)
    return tuple(
        (f.name, f.default) for f in info
        if f.name not in _NOT_FLAGS and f.default is not msgspec.NODEFAULT
    )


def flags_on(ruleset: Ruleset[Any], tag: str) -> list[str]:
    """The names of the flags the ruleset reads on the command ``tag``, as it declares them."""
    return [name for name, flag in ruleset.flags.items() if tag in flag.commands]


def own_flags(ruleset: Ruleset[Any], command_type: type[Command]) -> dict[str, Flag]:
    """The flags of the ruleset's own it reads on this command: those not its fields."""
    tag = str(command_type.__struct_config__.tag)
    fields = command_type.__struct_fields__
    return {name: flag for name, flag in ruleset.flags.items() if tag in flag.commands and name not in fields}


def own_value(value: int | str | bool | None) -> str | None:
    """A flag of a ruleset's own as it travels in ``details`` (`--NAME` alone: ``yes``); None
    when it was not given."""
    if value is None or value is False:
        return None
    return "yes" if value is True else str(value)


def check_flags(ruleset: Ruleset[Any], command: Command) -> None:
    """Refuse, in one message naming them all, the shared flags the ruleset does not read
    on this command (``Ruleset.flags``)."""
    if not isinstance(command, AtTheTable):
        return
    tag = tag_of_command(command)
    takes = flags_on(ruleset, tag)
    unused = [
        flag_name(name) for name, default in optional_fields(type(command))
        if name not in takes and getattr(command, name) != default
    ]
    if unused:
        known = ", ".join(flag_name(n) for n in takes) or "none of the shared flags"
        raise BadInput(f"{ruleset.id} `{tag}` takes no {', '.join(unused)} (it takes: {known})")


def check_effect(ruleset: Ruleset[Any], command: Command, in_use: Sequence[str] = ()) -> None:
    """An effect kind that is neither the ruleset's (``Ruleset.effects``) nor already on
    the table (``in_use``: kinds on combatants now) is a typo, refused with its
    did-you-mean, unless the GM says it is their own (``--custom``); a ruleset's own kind
    marked custom is refused too."""
    if not isinstance(command, ApplyEffect) or command.who.strip().lower() in RESERVED_NAMES:
        return
    own: Mapping[str, str] = ruleset.effects
    kind = command.kind.strip().lower()
    if kind in own:
        if command.custom:
            raise BadInput(f"{kind} is one of {ruleset.id}'s own effects: no --custom")
        return
    if command.custom or command.end or kind in {k.lower() for k in in_use}:
        return
    known = [*own, *(k for k in dict.fromkeys(in_use) if k.lower() not in own)]
    import difflib  # a refusal's hint: not imported by every command (docs/performance.md)

    close = difflib.get_close_matches(kind, known, n=1, cutoff=0.75)
    if close:
        raise BadInput(f"no effect {kind!r} in {ruleset.id}: did you mean {close[0]}? "
                       f"(--custom records it as your own)")
    listed = f" (known: {', '.join(own)})" if own else ""
    raise BadInput(f"no effect {kind!r} in {ruleset.id}{listed}; --custom records it as your own")


def detail_int(command: Command, key: str, default: int = 0) -> int:
    """A numeric `--with KEY=N`, checked like every other number a command carries."""
    raw = getattr(command, "details", {}).get(key)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadInput(f"--with {key}= takes a whole number, not {raw!r}") from None
    if abs(value) > LARGEST:
        raise BadInput(f"--with {key}={value} is out of range (at most {LARGEST:,} either way)")
    return value


def decide_add(
    ruleset: Ruleset[Any], names: Sequence[str], command: AddCombatant
) -> list[CombatantAdded]:
    """The shared decision for ``add``: unique names and the ruleset's stats; ``count``
    above 1 adds NAME 1 to NAME count."""
    name = check_name("a combatant", command.name)
    side = check_name("a side", command.side)
    if not 1 <= command.count <= MOST_AT_ONCE:
        raise BadInput(f"--count takes 1 to {MOST_AT_ONCE}, not {command.count}")
    stats = check_stats(ruleset, name, command.stats)
    traits = check_traits(ruleset, name, command.stats)
    from skirmish.projections import names as policy

    added = [name] if command.count == 1 else [f"{name} {i}" for i in range(1, command.count + 1)]
    for each in added:
        # The same name, or one that only looks like it (projections/names.py).
        other = policy.look_alike(each, names)
        if other is not None:
            raise RuleViolation(policy.refusal("a combatant", each, other))
        if policy.fold(each) in RESERVED_NAMES:
            raise BadInput(f"{each!r} is reserved (it names the scene's own counters)")
    return [CombatantAdded(name=each, side=side, stats=stats, traits=traits) for each in added]


MOST_AT_ONCE = 100  # `add NAME --count N`: a horde, not a typo


# Where a rules text does not say when a combatant goes down, the table rule is this
# option, recorded in the encounter's first event like any other (docs/tutorial.md, "Down, out,
# dead, left"). Rulesets whose text is silent declare it under this name.
GOES_DOWN = "goes-down"
GOES_DOWN_OPTION = Option(
    "at-0", ("at-0", "below-0", "never"),
    "the rules text is silent on going down: at 0 or less of the vital figure (at-0), "
    "only below 0 (below-0), or never (the GM takes combatants out with `leave`)",
)


def unable(name: str, status: str, why: str, rule: str = "") -> RuleViolation:
    """The one-line refusal of an action by a combatant the clock passes by: "Bob is down
    (health -3, option goes-down=at-0): it cannot act"."""
    return RuleViolation(f"{name} is {status} ({why}): it cannot act", rule)


def has_left(name: str) -> RuleViolation:
    """The refusal of an action by a combatant who left the fight, with the way back."""
    return RuleViolation(f"{name} has left the fight: it cannot act until `skirmish return {quote(name)}`")


def why_down(value: int, vital: str, options: Mapping[str, str]) -> str:
    """Why the goes-down option counts a combatant down: "-3 health left, option goes-down=at-0"."""
    return f"{value} {vital} left, option {GOES_DOWN}={options.get(GOES_DOWN, GOES_DOWN_OPTION.default)}"


def is_down(value: int, options: Mapping[str, str]) -> bool:
    """Whether a vital figure at ``value`` puts a combatant down under the goes-down option."""
    rule = options.get(GOES_DOWN, GOES_DOWN_OPTION.default)
    if rule == "never":
        return False
    return value <= 0 if rule == "at-0" else value < 0


class GoesDown:
    """The readings shared by the rulesets whose combatants go down under the goes-down
    option and take their turns in a round (ap-countdown, modular, percent-activity), mixed
    into their :class:`Rules` class: who is down or able, the one-line refusals, whose turn
    comes next. The ruleset names its vital figure and the rule a round is cited by."""

    vital: str  # the vital figure as a refusal names it: "hits", "health"
    round_rule: str  # the rule cited when a command needs a round under way

    def vital_left(self, f: Any) -> int:
        """The combatant's vital figure now (hits left, health left)."""
        raise NotImplementedError

    def down(self, state: Any, f: Any) -> bool:
        return is_down(self.vital_left(f), state.options)

    def able(self, state: Any, f: Any) -> bool:
        """Whether the combatant can act: it has not left and is not down."""
        return not f.left and not self.down(state, f)

    def check_able(self, state: Any, f: Any) -> None:
        """Refuse, in one line, an action of a combatant the clock passes by: it left, or
        its vital figure puts it down under the goes-down option."""
        if f.left:
            raise has_left(f.name)
        value = self.vital_left(f)
        if is_down(value, state.options):
            raise unable(f.name, "down", why_down(value, self.vital, state.options))

    def need_round(self, state: Any) -> None:
        if not state.in_round:
            raise RuleViolation("no round under way: start one with `skirmish round`", self.round_rule)

    def next_turn(self, state: Any) -> int | None:
        """The index in this round's order of the next combatant who can act, after the one
        whose turn it is (``state.turn``); None: the round's turns are over."""
        start = (state.turn if state.turn is not None else -1) + 1
        for index in range(start, len(state.order)):
            if self.able(state, state.fighters[state.order[index]]):
                return index
        return None


RESERVED_NAMES = {"scene"}
LARGEST = 1_000_000  # no figure at a table comes near it; larger is a typo


def check_name(what: str, raw: str) -> str:
    """A name a GM can type back: no control characters, no `=` (it splits --roll NAME=...)."""
    name = raw.strip()
    if (
        not name or name.startswith("-") or name.isdigit() or "=" in name
        or any(not c.isprintable() for c in name)
    ):
        raise BadInput(f"{raw!r} cannot be {what}'s name (printable, not a number, no '=' or leading '-')")
    return name


# Event ids are not figures: they are shared by every encounter of a file, so a campaign's
# later fights pass 1,000,000; one that is not there is refused where it is looked up.
_EVENT_IDS = frozenset({"event", "at"})


def check_numbers(command: Command) -> None:
    """Every number a command carries (event ids aside) is within what a table could mean."""
    for field in command.__struct_fields__:
        if field in _EVENT_IDS:
            continue
        value = getattr(command, field)
        # An event id is not a figure: a long log passes a million; SQLite's integers are the bound.
        largest = 2**63 - 1 if field == "event" else LARGEST
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > largest:
            flag = field.replace("_", "-")
            raise BadInput(f"{flag} {value} is out of range (at most {largest:,} either way)")


# A command's text fields as the CLI names them in a refusal: arguments by their metavar,
# options by flag_name, KEY=VALUE words by their flag.
_ARGUMENTS = {"action": "ACTION", "kind": "KIND", "text": "TEXT", "dice": "DICE", "to": "NEW"}
_PAIRS = {"details": "--with", "stats": "--stat"}
# Names looked up, not stored: an unknown one is refused where it is looked up (find_name),
# and an imported name a GM could not type stays reachable. A combatant's own name has
# check_name, stricter still.
_LOOKED_UP = frozenset({"who", "target", "rolls", "name"})


def check_texts(command: Command) -> None:
    """Every text a command brings under eventlog/text.py's policy: a kind, label or detail is
    one line of printable text, a note may break lines; refused in one line naming the field."""
    for field in command.__struct_fields__:
        value = getattr(command, field)
        if field in _LOOKED_UP or not value:
            continue
        if isinstance(command, AddNote) and field == "text":
            check_note("TEXT", value)
        elif isinstance(value, str):
            check_label(_ARGUMENTS.get(field) or flag_name(field), value)
        elif field in _PAIRS:
            for key, word in value.items():
                check_label(_PAIRS[field], key)
                check_label(f"{_PAIRS[field]} {key}=", word)


def lasting_from_view(ruleset: Ruleset[Any], view: View, who: str) -> list[CarriedEffect]:
    """The default of ``Rules.lasting``: the effects on ``who`` with no rounds to run that the
    `effect` command put on (the ruleset's kinds, or the GM's own); a view's other entries
    (a guard, an evade) are its clock's, not conditions."""
    return [CarriedEffect(kind=e.kind, custom=e.custom) for e in view.combatant(who).effects
            if e.left is None and (e.custom or e.kind in ruleset.effects)]


def find_name(names: Sequence[str], wanted: str) -> str:
    """The combatant's exact name, matched without regard to case or the spaces around it
    (names are stored stripped); a clear error otherwise."""
    typed = wanted.strip().lower()
    for name in names:
        if name.lower() == typed:
            return name
    # Then as the name policy compares them (NFKC, case folded: projections/names.py): "José"
    # however the keyboard composed it. The match above first, so a log holding two names
    # that fold alike (made before the policy) decides as it always did.
    from skirmish.projections.names import fold

    folded = fold(wanted)
    for name in names:
        if fold(name) == folded:
            return name
    import difflib

    close = difflib.get_close_matches(wanted, list(names), n=1)
    hint = f" (did you mean {close[0]}?)" if close else f" (combatants: {', '.join(names) or 'none yet'})"
    raise UnknownCombatant(f"no combatant named {wanted!r}{hint}")


def suggest(word: str, known: Sequence[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, list(known), n=1)
    return f"did you mean {close[0]}?" if close else f"known: {', '.join(known)}"


class Dice:
    """Dice for one decision: the GM's typed faces where given, else seeded tool rolls.

    The tool's rolls are drawn from the encounter's seed and the event the command is
    decided on, by the encounter's ``derivation`` (projections/dice.py), so deciding the
    same command at the same place rolls the same faces. Replays never roll: the faces
    are in the events.
    """

    def __init__(self, seed: int | str, place: str, typed: Mapping[str, Sequence[int]] | None = None,
                 derivation: int = 1, typed_by: Mapping[str, str] | None = None) -> None:
        # Imported here: only a command that decides rolls dice (OpenSSL's load is felt in
        # every read-only command's start-up).
        from skirmish.projections.dice import draws

        self._rng = draws(seed, place, derivation)
        self._typed = {k.lower(): tuple(v) for k, v in (typed or {}).items()}
        self._names = {k.lower(): k for k in typed or {}}
        self._used: set[str] = set()
        # Whose the faces typed under a key are (a command's ``typed_by``); a key not in it: the GM's.
        self._by = {k.lower(): v for k, v in (typed_by or {}).items()}

    @classmethod
    def of(cls, started: EncounterStarted, place: str, typed: Mapping[str, Sequence[int]] | None = None,
           typed_by: Mapping[str, str] | None = None) -> Dice:
        """The dice of a decision at ``place`` in the encounter ``started`` begins."""
        return cls(started.key if started.dice >= 2 else started.seed, place, typed, started.dice, typed_by)

    def unused(self) -> list[str]:
        """Typed dice no roll of the decision asked for (the engine refuses them)."""
        return [self._names[k] for k in self._typed if k not in self._used]

    def roll(self, who: str, count: int, sides: int, why: str = "") -> Roll:
        """``count`` dice of ``sides`` for ``who``, the GM's typed faces if given; ``why``: what
        makes the count what it is (Advantage: two d20s), said when the faces typed do not fit."""
        spec = f"{count}d{sides}"
        typed = self._typed.get(who.lower())
        self._used.add(who.lower())
        if typed is None:
            faces = tuple(self._rng.randint(1, sides) for _ in range(count))
            return Roll(dice=spec, faces=faces, source="tool")
        if len(typed) != count or any(not 1 <= f <= sides for f in typed):
            shown = ",".join(str(f) for f in typed)
            because = f": {why}" if why and len(typed) != count else ""
            raise BadInput(f"{spec} for {who} takes {count} faces from 1 to {sides}, not {shown}{because}")
        return Roll(dice=spec, faces=typed, source=self._by.get(who.lower(), "gm"))
