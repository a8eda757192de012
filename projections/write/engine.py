"""Running an encounter: decide commands on a branch's head, fold events into state, move heads.

This is the one library call behind every CLI command. It joins the store (where events
and heads live) and the encounter's ruleset (what they mean); it knows nothing of any
particular ruleset.

The store is the engine's own: every other caller reads an encounter's log through its
:class:`Encounter` (events, commands, branches, the runs of a path, verify's digest), and
what belongs to the whole file (its encounters, the current one, whether it changed)
through a :class:`LogFile` opened by path. So the store's tables and methods can change
behind these two without touching the audit, the page, the report or the command line.

States are folded from the nearest snapshot on the event's path (the store's
``snapshots`` table: the state after one event, keyed by that event and the ruleset's
``state_version``, so one snapshot serves every branch through it). A snapshot falls on
every SNAPSHOT_EVERY-th event down a path, counted from the root. They are written when a
command appends the event they belong to, in the command's own transaction (the state is
in hand then, so it costs an encoding and one row), and by any read that folds past a
place where one is missing (a log imported, migrated or with its snapshots deleted heals
as it is read; a file that cannot be written is read without them). Deleting them changes
nothing but speed; ``verify`` never reads them.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from functools import cache
from typing import Any, NamedTuple

import msgspec

from skirmish.eventlog.commands import AddHidden, AddNote, ApplyEffect, Carry, Command, MoveHead, RollDice, command_encoder
from skirmish.eventlog.errors import BadInput, NothingToDo, UnknownEvent, UnreadableEvent
from skirmish.projections.refusals import RuleViolation, UnknownRuleset
from skirmish.eventlog.events import (
    CORE_EVENTS,
    Codec,
    CombatantAdded,
    CombatantRenamed,
    EncounterEnded,
    EncounterStarted,
    Event,
    NoteAdded,
    tag_of,
)
from skirmish.eventlog.connection import DEFAULT_DB
from skirmish.eventlog.rows import CommandRow, Counts, HeadMove
from skirmish.eventlog.shape import Shape
from skirmish.eventlog.store import (
    EncounterRow,
    EventRow,
    Head,
    NewEvent,
    Page,
    Restoring,
    Snapshot,
    Store,
    Table,
)
from skirmish.projections.write.carry import decide_carry
from skirmish.projections.write.shared import POLICY_COMMANDS, decide_note, decide_policy, joining_hidden
from skirmish.projections.view import Ended, NoteOn, Shown
from skirmish.projections.ruleset import (
    Dice,
    Rules,
    Ruleset,
    check_details,
    check_effect,
    check_flags,
    check_name,
    check_numbers,
    check_texts,
    get_ruleset,
    not_installed,
    settle_options,
)


# A snapshot every this many events down any path: the state at any event, and each command
# at the table, folds at most this many events from the snapshot above it (about a
# millisecond), and a 1M-event log keeps ~8,000 of them (3 % of the file).
SNAPSHOT_EVERY = 128

_state_encoder = msgspec.msgpack.Encoder()


@cache
def codec_for(ruleset_id: str) -> Codec:
    return Codec((*CORE_EVENTS, *get_ruleset(ruleset_id).event_types))


def _unchanged(state: Any, event: Any) -> None:
    """The fold's handler of an event that changes nothing in a Rules ruleset's state."""


class Recorded(msgspec.Struct, frozen=True, gc=False, eq=False):
    """An event as stored and decoded: its id, its parent and the event itself.

    A Struct, not a dataclass: a replay makes one per event, and a frozen dataclass costs
    as much to build as decoding the event does. Not tracked by the garbage collector
    (``gc=False``): it holds ids, text, an event and the store's look-ups, never a cycle.

    ``command_id`` and ``recorded_at`` are the row's as stored, or, in a replay's records,
    read from the store when asked for: few surfaces that replay a path show them, and
    reading them with every row cost a replay about 6% (the time) and 4% (the command) of
    its instructions (docs/performance.md). A replay's commands are read a block of the path at a time (``_CommandIds``),
    so a surface that asks every record for its command pays one statement a block, not
    one an event. Records are equal when their id, parent, command, event and time are."""

    id: int
    parent: int | None
    _command: int | Callable[[int], int]  # the command as stored, or the look-up that reads it
    event: Event
    _at: str | Callable[[int], str]  # the time as stored, or the look-up that reads it

    @property
    def command_id(self) -> int:
        """The command that appended the event (Encounter.command reads it)."""
        command = self._command
        return command if isinstance(command, int) else command(self.id)

    @property
    def recorded_at(self) -> str:
        at = self._at
        return at if isinstance(at, str) else at(self.id)

    def _key(self) -> tuple[int, int | None, int, Event, str]:
        return self.id, self.parent, self.command_id, self.event, self.recorded_at

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, Recorded) else NotImplemented

    def __hash__(self) -> int:
        # The id and parent alone: equal records have them equal, and an event may hold a
        # dict (a combatant's stats), which has no hash.
        return hash((self.id, self.parent))

    @property
    def kind(self) -> str:
        return tag_of(type(self.event))

    def to_json(self) -> dict[str, Any]:
        """The event as ``log --json`` prints it: id, parent, kind, its fields, recorded_at."""
        body = msgspec.to_builtins(self.event)
        body.pop("type", None)
        return {"id": self.id, "parent": self.parent, "kind": self.kind, **body, "recorded_at": self.recorded_at}


class _CommandIds:
    """The command of each event of one replay's path, read from the store when a record is
    asked for it: the ids of the block of the path around it (BLOCK events of one run, from
    a multiple of BLOCK down the run) in one statement, the latest block held. A caller that
    asks every record, in any order, pays one statement a block it visits; one that asks
    none pays nothing."""

    BLOCK = 4096
    __slots__ = ("_read", "_runs", "_lows", "_low", "_ids")

    def __init__(self, read: Callable[[int, int], list[int]], runs: Sequence[tuple[int, int]]) -> None:
        self._read, self._runs = read, runs
        self._lows = [low for low, _ in runs]
        self._low = 0
        self._ids: list[int] = []

    def of(self, event_id: int) -> int:
        """The command of ``event_id`` (a record holds this bound method: a call of it costs
        less than a call through ``__call__``)."""
        at = event_id - self._low
        if 0 <= at < len(self._ids):
            return self._ids[at]
        i = bisect.bisect_right(self._lows, event_id) - 1
        if i < 0 or event_id > self._runs[i][1]:
            raise UnknownEvent(f"event {event_id} is not on the path this replay read")
        low, high = self._runs[i]
        first = event_id - (event_id - low) % self.BLOCK
        self._ids, self._low = self._read(first, min(high, first + self.BLOCK - 1)), first
        return self._ids[event_id - first]


class CommandsAlong:
    """The command behind each event of a replay, as its text and its body (the command as
    parsed). A command's events follow one another down a path, so each command is read
    when its first event comes and only the latest is held: a long log's commands are
    never all loaded at once."""

    _body = msgspec.json.Decoder(dict[str, Any])

    def __init__(self, enc: Encounter) -> None:
        self._enc = enc
        self._id: int | None = None
        self._text = ""
        self._parsed: dict[str, Any] = {}

    def of(self, command_id: int) -> tuple[str, dict[str, Any]]:
        if command_id != self._id:
            row = self._enc.command(command_id)
            self._id, self._text, self._parsed = command_id, row.text, self._body.decode(row.body)
        return self._text, self._parsed


class Link(NamedTuple):
    """An event's place in the tree: its id, its parent's, and the command that recorded it."""

    id: int
    parent: int | None
    command_id: int


class Folded(NamedTuple):
    """The state after event ``at`` (a working copy) and that event's depth below the root:
    what a caller deciding many commands in a row carries from one to the next."""

    at: int
    state: Any
    depth: int


class PathRuns:
    """A path from the root as its runs of ids (oldest first), addressed by depth (the root: 0)."""

    def __init__(self, runs: list[tuple[int, int]]) -> None:
        self.runs = runs
        self.starts = [0, *itertools.accumulate(high - low + 1 for low, high in runs)]

    @property
    def deepest(self) -> int:
        return self.starts[-1] - 1

    def at(self, depth: int) -> int:
        i = bisect.bisect_right(self.starts, depth) - 1
        return self.runs[i][0] + depth - self.starts[i]

    def depth_of(self, event_id: int) -> int | None:
        for (low, high), start in zip(self.runs, self.starts, strict=False):
            if low <= event_id <= high:
                return start + event_id - low
        return None

    def between(self, first: int, last: int) -> list[tuple[int, int]]:
        """The runs of ids at depths ``first`` to ``last``."""
        out = []
        for (low, high), start in zip(self.runs, self.starts, strict=False):
            lo, hi = max(first, start), min(last, start + high - low)
            if lo <= hi:
                out.append((low + lo - start, low + hi - start))
        return out


_Kinds = dict[tuple[str, str | None], tuple[list[Recorded], int]]  # (tag, having) -> (events, how many on the path)


class _HeldOfKind:
    """The events of one kind (a tag, and the field they must have, if any) on the paths to
    a few events, as ``Encounter._held_of_kind`` read them. The path to a new head is the
    old head's and the events appended, so an append carries what was read at the old head
    over in time of what it appended: the two heads share one list, the old head holding a
    prefix of it (a list only ever grows at its end, so every prefix held stays true). An
    amend moves its copy's head once a command: copying each head's lists, and looking
    through every head held, made it grow with the square of the commands (docs/performance.md).
    A list handed out is read at once, not kept: a later append may lengthen it."""

    HEADS = 64  # past this many events held, all are dropped (read again when asked)
    __slots__ = ("_at",)

    def __init__(self) -> None:
        self._at: dict[int, _Kinds] = {}  # event id -> what was read on the path to it

    def get(self, tag: str, at: int, having: str | None) -> list[Recorded] | None:
        kinds = self._at.get(at)
        held = kinds.get((tag, having)) if kinds is not None else None
        if held is None:
            return None
        events, n = held
        return events if n == len(events) else events[:n]

    def holds(self, tag: str, at: int, having: str | None) -> bool:
        kinds = self._at.get(at)
        return kinds is not None and (tag, having) in kinds

    def put(self, tag: str, at: int, having: str | None, events: list[Recorded]) -> None:
        kinds = self._at.get(at)
        if kinds is None:
            kinds = self._hold(at, {})
        kinds[(tag, having)] = (events, len(events))

    def carry(self, old: int, new: int, appended: Sequence[Recorded]) -> None:
        """The head moved from ``old`` to ``new`` by appending ``appended``: what was read
        at ``old`` is held at ``new`` too, with the appended events of each kind."""
        kinds = self._at.get(old)
        if not kinds:
            return
        carried: _Kinds = {}
        for (tag, having), (events, n) in kinds.items():
            if n < len(events):  # lengthened past ``old`` on another path (since undone): its own
                events = events[:n]
            events.extend(r for r in appended if tag_of(type(r.event)) == tag
                          and (having is None or getattr(r.event, having, None) is not None))
            carried[(tag, having)] = (events, len(events))
        self._hold(new, carried)

    def _hold(self, at: int, kinds: _Kinds) -> _Kinds:
        if len(self._at) >= self.HEADS:
            self._at.clear()
        self._at[at] = kinds
        return kinds


@contextmanager
def _verifying(store: Store, encounter_id: int, aside: bool) -> Iterator[Callable[[], str]]:
    # Imported here: it starts a process (for a long log), which a command at the table never needs.
    from skirmish.eventlog.verifying import verifying

    with store.reading(), verifying(store, encounter_id, aside=aside) as digest:
        yield digest


def new_encounter(
    store: Store,
    name: str,
    ruleset_id: str,
    options: Mapping[str, str],
    text: str,
    seed: int | None = None,
) -> Encounter:
    """Start an encounter: its first event fixes the ruleset, every option and the dice seed."""
    ruleset = get_ruleset(ruleset_id)
    name = check_name("an encounter", name)
    _name_free(store, name)
    settled = settle_options(ruleset, options)
    from skirmish.projections.dice import first_event_dice

    dice, seed, key = first_event_dice(seed)
    started = EncounterStarted(name=name, ruleset=ruleset.id, options=settled, seed=seed, dice=dice, key=key)
    codec = codec_for(ruleset.id)
    body = codec.encode(started)
    first = NewEvent(tag_of(EncounterStarted), EncounterStarted.version, body)
    row, _ = store.create_encounter(name, ruleset.id, text, body, first)
    return Encounter(store, row)


def _name_free(store: Store, name: str) -> None:
    """Refuse an encounter name that only looks like one in the file (projections/names.py);
    the very same name is the store's to refuse, as it always was."""
    from skirmish.projections import names

    others = [e.name for e in store.encounters()]
    other = names.look_alike(name, others)
    if other is not None and other != name:
        raise BadInput(names.refusal("an encounter", name, other))


class Encounter:
    """One encounter of a store, seen through its ruleset."""

    def __init__(self, store: Store, row: EncounterRow, table: Table | None = None) -> None:
        self._store = store
        self.row = row
        # One command's table (LogFile.open(one_command=True)): the current branch's head as
        # its first read found it, moved by this encounter's own appends and undos, and read
        # again after any other move; None: read each time (a console follows other writers).
        self._table_head: Head | None = table.head if table is not None else None
        self._first_row: EventRow | None = table.first if table is not None else None
        self._others: bool | None = table.others if table is not None else None
        self._link = table.link if table is not None else None  # the table head's link in the chain
        try:
            self.ruleset: Ruleset[Any] = get_ruleset(row.ruleset)
        except UnknownRuleset:
            raise not_installed(row.name, row.ruleset) from None
        self.codec = codec_for(row.ruleset)
        self._started: EncounterStarted | None = None
        self._state_decoder: msgspec.msgpack.Decoder[Any] | None = None
        # (event id, the state after it, its depth): the head's state as a command reads it for
        # its view and then its decision, folded once, then the state that decision advanced
        # (held by execute) for the view after. An event's state never changes (events
        # are never rewritten), so it holds for as long as the head stays there (a console
        # keeps it between reads). Read, never handed out to be changed: a decision takes it
        # over (and a refused one leaves it held).
        self._held: tuple[int, Any, int] | None = None
        self._of_kind = _HeldOfKind()  # _held_of_kind's, by path end
        self.pinned: str | None = None  # the branch this reader is held on (`--on`), else None

    @classmethod
    def open(cls, store: Store, name: str | None = None) -> Encounter:
        row = store.encounter(name) if name else store.current_encounter()
        return cls(store, row)

    # --- reading -------------------------------------------------------------------------

    @property
    def branch(self) -> str:
        """The branch commands act on: the pinned one, else the encounter's current one."""
        if self.pinned:
            return self.pinned
        if self._table_head is not None:
            return self._table_head.branch
        return self._store.current_branch(self.row.id)

    def others_here(self) -> bool:
        """Whether the file holds another encounter, or this encounter another branch."""
        if self._others is not None:  # one command's, read with its table
            return self._others
        return len(self._store.encounters()) > 1 or len(self._store.branches(self.row.id)) > 1

    def pin(self, branch: str) -> None:
        """Hold this reader on ``branch`` (as stored) whatever another process switches to."""
        self.pinned = self._store.head(self.row.id, branch).branch  # UnknownBranch names the branches

    def head(self, branch: str | None = None) -> Head:
        if branch is None and self.pinned is None:
            if self._table_head is not None:
                return self._table_head
            return self._store.current_head(self.row.id)
        return self._store.head(self.row.id, branch or self.branch)

    def failed_checks(self) -> list[str]:
        """What the cheap checks (eventlog/checks.py: the schema's guards, the head's own
        link in the chain) find wrong with this log at the head read now, each in a few
        words; empty: it passes. A write on a log that fails them is refused by the store."""
        head = self.head()
        return self._store.failed_checks(self.row.id, head, self._link if head == self._table_head else None)

    def decode(self, row: EventRow) -> Recorded:
        event = self.codec.decode(row.body, row.kind, row.version, row.id)
        return Recorded(row.id, row.parent_id, row.command_id, event, row.recorded_at)

    def path(self, event_id: int, *, checked: bool = False) -> list[Recorded]:
        """The events from the root to ``event_id``; ``checked`` when it is known to be ours
        (a branch head), else it is looked up first and an UnknownEvent if it is not."""
        if not checked:
            self._store.event(self.row.id, event_id)
        return [self.decode(r) for r in self._store.path(event_id)]

    def links(self, event_id: int) -> list[Link]:
        """The path from the root to ``event_id`` (a branch head: known to be ours) as each
        event's id, parent and command: its shape, the bodies left unread and undecoded."""
        return [Link(*r) for r in self._store.path_links(event_id)]

    def fold(self, events: Iterable[Recorded]) -> Any:
        state: Any = None
        apply = self.ruleset.apply
        for rec in events:
            if state is None:
                assert isinstance(rec.event, EncounterStarted)
                state = self.ruleset.initial(rec.event)
            else:
                apply(state, rec.event)
        return state

    def state_at(self, event_id: int) -> Any:
        self._store.event(self.row.id, event_id)
        return self.fold_to(event_id)[0]

    @property
    def started(self) -> EncounterStarted:
        """The encounter's first event: its ruleset, options and dice seed."""
        if self._started is None:
            first = self._first_row if self._first_row is not None else self._store.first_event(self.row.id)
            event = self.decode(first).event
            assert isinstance(event, EncounterStarted)
            self._started = event
        return self._started

    def fold_to(self, event_id: int) -> tuple[Any, int]:
        """The state after ``event_id`` (an event of this encounter) and its depth below the
        root, folded from the nearest snapshot on its path; the snapshots due on the way
        are cached for the next read. The state is the caller's own (a working copy)."""
        version = self.ruleset.state_version
        snapshot, runs = self._store.runs_since_snapshot(event_id, self.row.ruleset, version)
        state: Any = None
        depth = -1
        if snapshot is not None:
            try:
                state, depth = self._snapshot_decoder().decode(snapshot.state), snapshot.depth
            except msgspec.DecodeError:
                # A cache that cannot be read is a cache miss: fold from the root (and the
                # snapshots due on the way replace the unreadable one).
                _, runs = self._store.runs_since_snapshot(event_id, self.row.ruleset, -1)  # no such version
        due: list[Snapshot] = []
        state, folded = self._fold(state, runs, depth, due)
        if due:
            self._store.save_snapshots(self.row.ruleset, version, due)
        return state, depth + folded

    def _snapshot_decoder(self) -> msgspec.msgpack.Decoder[Any]:
        if self._state_decoder is None:
            self._state_decoder = msgspec.msgpack.Decoder(type(self.ruleset.initial(self.started)))
        return self._state_decoder

    def held_at(self, event_id: int) -> Any:
        """The state after ``event_id``, to read and never change: the one the last view
        folded, held (a surface reading more than the view, the GM's page, does not fold twice)."""
        return self._held_at(event_id)

    def _held_at(self, event_id: int) -> Any:
        """The state after ``event_id`` to read, not to change: the one held (the last one
        viewed), else folded and held."""
        held = self._held
        if held is None or held[0] != event_id:
            state, depth = self.fold_to(event_id)
            held = self._held = (event_id, state, depth)
        return held[1]

    def check_snapshots(self) -> list[str]:
        """Every cached state of this encounter, checked: its digest, and the state and depth
        the events fold to after its event. One line per bad one (none: all good)."""
        return self.checked_snapshots()[1]

    def checked_snapshots(self) -> tuple[int, list[str]]:
        """How many cached states there are, and one line per bad one, as ``check_snapshots``.
        Each is folded from the nearest snapshot before it already found good, so the whole
        check folds each event about once."""
        version, projection = self.ruleset.state_version, self.row.ruleset
        decoder = msgspec.msgpack.Decoder(type(self.ruleset.initial(self.started)))
        good: dict[int, Snapshot] = {}
        good_ids: list[int] = []  # ascending: an event's ancestors have smaller ids
        problems: list[str] = []
        checked = 0
        for event_id, snapshot in self._store.stored_snapshots(self.row.id, projection, version):
            checked += 1
            if snapshot is None:
                problems.append(f"the cached state after #{event_id} does not match its digest "
                                "(edited, or copied from another event): it is never used")
                continue
            after: Snapshot | None = None
            runs: list[tuple[int, int]] = []
            # Walked back from the event only as far as the nearest good snapshot.
            for low, high in self._store.runs_back(event_id):
                i = bisect.bisect_right(good_ids, high) - 1
                if i >= 0 and good_ids[i] >= low:
                    after = good[good_ids[i]]
                    runs.append((after.event_id + 1, high))
                    break
                runs.append((low, high))
            state: Any = decoder.decode(after.state) if after is not None else None
            state, folded_rows = self._fold(state, reversed(runs))
            depth = (after.depth if after is not None else -1) + folded_rows
            folded = _state_encoder.encode(state)
            if folded != snapshot.state or depth != snapshot.depth:
                problems.append(f"the cached state after #{event_id} is not what the events fold to "
                                "(its digest was made again over other figures): reads from it show wrong figures")
                continue
            good[event_id] = Snapshot(event_id, depth, folded)
            good_ids.append(event_id)
        return checked, problems

    def remember(self, ids: Sequence[int], due: Mapping[int, tuple[int, bytes]]) -> None:
        """Cache the states (encoded) after newly appended events: ``due`` maps an index
        into ``ids`` to the state after that event, where the snapshot spacing falls."""
        if due:
            snapshots = [Snapshot(ids[index], depth, state) for index, (depth, state) in due.items()]
            self._store.save_snapshots(self.row.ruleset, self.ruleset.state_version, snapshots)

    def view(self, event_id: int | None = None) -> Shown:
        """The state as every surface reads it, and ``state --json`` prints it."""
        head = self.head()
        at = head.event_id if event_id is None else self._store.event(self.row.id, event_id).id
        branch, head_id = head.branch, head.event_id
        if at != head_id and not self._store.holds(head_id, at):
            # An event of another branch is shown as that branch's; an undone one, on none.
            shape = self._store.shape(self.row.id)
            holding = sorted(shape.holding(at))
            branch, head_id = (holding[0], shape.heads[holding[0]]) if holding else ("", at)
        seen = self.ruleset.view(self._held_at(at))
        # ended_at's, notes_on's and, where the ruleset has an xp stat, xp_at's, one read (a
        # ruleset without one reads no combatant's event here: a command's bound of statements)
        counts_xp = "xp" in self.ruleset.stats
        self._read_kinds(at, ((EncounterEnded, None), (NoteAdded, "on"), *(((CombatantAdded, None),) if counts_xp else ())))
        xp = self.xp_at(at) if counts_xp else 0
        return Shown(
            encounter=self.row.name, ruleset=self.row.ruleset, branch=branch, head=head_id, at=at,
            clock=seen.clock, combatants=seen.combatants, pending=seen.pending, own=seen.own,
            ended=self.ended_at(at), notes=self.notes_on(at), xp=xp if xp else msgspec.UNSET,
        )

    def xp_at(self, at: int) -> int:
        """The experience points of the creatures added on the path to ``at`` that carry an
        ``xp`` stat (the bundled bestiary's foes: projections/write/imports/bestiary.py)."""
        return sum(rec.event.stats.get("xp", 0) for rec in self._held_of_kind(CombatantAdded, at)
                   if isinstance(rec.event, CombatantAdded))

    def _held_of_kind(self, kind: type[Event], at: int, having: str | None = None) -> list[Recorded]:
        """The events of one kind on the path to ``at``, in order (read by kind: a log
        without any costs one indexed look-up; ``having``: only those with that field).
        The path to an event never changes (the log is append-only), so what it holds is
        remembered: the view before a command and its decision read it once."""
        found = self._of_kind.get(tag_of(kind), at, having)
        if found is None:
            found = self._path_of_kind(kind, at, having)
            self._of_kind.put(tag_of(kind), at, having, found)
        return found

    def _read_kinds(self, at: int, kinds: Sequence[tuple[type[Event], str | None]]) -> None:
        """What ``_held_of_kind`` would read of each (kind, having) at ``at``, those it has not
        yet, in one read of the store."""
        wanted = [(tag_of(kind), having) for kind, having in kinds if not self._of_kind.holds(tag_of(kind), at, having)]
        if len(wanted) < 2:
            return  # one or none: _held_of_kind reads it
        rows = [r for r in self._store.events_of_kinds(self.row.id, wanted) if r.id <= at]
        found = self._on_path(rows, at)
        for tag, having in wanted:
            self._of_kind.put(tag, at, having, [rec for rec in found if tag_of(type(rec.event)) == tag])

    def _path_of_kind(self, kind: type[Event], at: int, having: str | None) -> list[Recorded]:
        return self._on_path([r for r in self._store.events_of_kind(self.row.id, tag_of(kind), having) if r.id <= at], at)

    def _on_path(self, rows: list[EventRow], at: int) -> list[Recorded]:
        """Those of ``rows`` (in id order, none after ``at``) on the path to ``at``, decoded."""
        if not rows:
            return []
        # The path's runs of ids, read once, each row looked up among them (not a walk back a row).
        runs = self._store.runs(at)
        lows = [low for low, _ in runs]
        held = []
        for r in rows:
            i = bisect.bisect_right(lows, r.id) - 1
            if i >= 0 and runs[i][1] >= r.id:
                held.append(self.decode(r))
        return held

    def ended_at(self, at: int) -> Ended | None:
        """Whether the encounter has ended (`end`) on the path to ``at``, and where."""
        ends = self._held_of_kind(EncounterEnded, at)
        if not ends:
            return None
        event = ends[-1].event
        assert isinstance(event, EncounterEnded)
        return Ended(event=ends[-1].id, reason=event.reason)

    def renames(self, at: int) -> list[tuple[int, str, str]]:
        """The renames (`rename`) on the path to ``at``, oldest first: (event, old name, new name)."""
        out = []
        for rec in self._held_of_kind(CombatantRenamed, at):
            assert isinstance(rec.event, CombatantRenamed)
            out.append((rec.id, rec.event.who, rec.event.to))
        return out

    def notes_on(self, at: int) -> dict[str, tuple[NoteOn, ...]]:
        """The notes on combatants written on the path to ``at``, by the combatant's name at
        ``at`` (a rename after a note carries it over)."""
        found: list[tuple[str, NoteOn]] = []
        for rec in self._held_of_kind(NoteAdded, at, having="on"):
            event = rec.event
            assert isinstance(event, NoteAdded)
            if event.on is not None:
                found.append((event.on, NoteOn(id=rec.id, at=event.about, text=event.text, private=event.private)))
        if not found:
            return {}
        renames = self.renames(at)
        by: dict[str, list[NoteOn]] = {}
        for name, note in found:
            for rid, old, new in renames:
                if rid > note.id and old == name:
                    name = new
            by.setdefault(name, []).append(note)
        return {name: tuple(notes) for name, notes in by.items()}

    def _dispatch(self) -> dict[type[Event], Callable[[Any, Any], None]]:
        """The fold's handler for every event type of the codec, looked up once a row with no
        test around it: a Rules ruleset's own handlers (``Rules.appliers``, a type without
        one left as it is, as ``Rules.apply`` leaves it), else the ruleset's ``apply``."""
        types = (*CORE_EVENTS, *self.ruleset.event_types)
        own = self.ruleset.appliers() if isinstance(self.ruleset, Rules) else None
        if own is None:
            return dict.fromkeys(types, self.ruleset.apply)
        return {t: own.get(t, _unchanged) for t in types}

    def _fold(
        self, state: Any, runs: Iterable[tuple[int, int]], depth: int = -1, due: list[Snapshot] | None = None
    ) -> tuple[Any, int]:
        """``state`` (None: before the first event) with the events of ``runs`` (runs of
        consecutive ids, oldest first) applied in place, and how many there were: the
        replay's loop without a record a row, reading the body alone. ``due``: the states
        where the snapshot spacing falls (``state`` at ``depth`` below the root) added to it."""
        decode_current, whole, dispatch = self.codec.decode_current, self._decoded_whole, self._dispatch()
        count = 0
        chunks: Iterator[tuple[int, Iterator[Any]]] = self._store.current_rows(runs, self.codec.versions)
        if state is None:  # from the root: its event starts the state, before the loop
            low, rows = next(chunks)
            state, count = self._started_by(next(rows)[0], low)[1], 1
            chunks = itertools.chain(((low + 1, rows),), chunks)
        for low, rows in chunks:
            first = count
            for (body,) in rows:
                count += 1
                try:
                    event = decode_current(body)
                except (msgspec.DecodeError, TypeError):  # NULL: an older layout (or unreadable)
                    event = whole(low + count - 1 - first)
                dispatch[type(event)](state, event)
                if due is not None and (depth + count) % SNAPSHOT_EVERY == 0 and depth + count:
                    due.append(Snapshot(low + count - 1 - first, depth + count, _state_encoder.encode(state)))
        return state, count

    def _started_by(self, body: Any, event_id: int) -> tuple[Event, Any]:
        """The first event of a path (its row's body as the fold reads it: text, or NULL where its
        layout is not current) and the state it starts."""
        try:
            event = self.codec.decode_current(body)
        except (msgspec.DecodeError, TypeError):  # NULL: an older layout (or unreadable)
            event = self._decoded_whole(event_id)
        if not isinstance(event, EncounterStarted):
            raise UnreadableEvent(event_id, tag_of(type(event)), "it starts the encounter's path, which only an "
                                  "encounter-started may (the file was edited?)")
        return event, self.ruleset.initial(event)

    def _decoded_whole(self, event_id: int) -> Event:
        """The event of a row the fold's reading left out (its layout is not the current
        one): read whole and upcast, or refused naming the row (UnreadableEvent)."""
        row = self._store.event(self.row.id, event_id)
        return self.codec.decode(row.body, row.kind, row.version, row.id)

    def replay(
        self, to: int | None = None, start: int | None = None, *, commands: bool = False
    ) -> Iterator[tuple[Recorded, Any]]:
        """Each event of the path to ``to`` (default: the head) with the state after it,
        from ``start`` on (an event of that path) or from the beginning. Rows are streamed,
        so memory does not grow with the log; a replay from ``start`` folds up to it from
        the nearest snapshot.

        The state is the fold's one working copy, changed in place by the next event: read
        it (``view``) before taking the next, or ``ruleset.copy`` it to keep it. A record's
        ``recorded_at`` is read from the store when asked for, while it is open, and so is its
        ``command_id``, a block of the path at a time, unless ``commands``: then it is read
        with its row. A caller that asks every record's command (the page, the report) says
        ``commands``: read with the rows, the column costs a replay about 4% of its
        instructions; read apart, the rows' pages are read a second time (docs/performance.md)."""
        end = to if to is not None else self.head().event_id
        if to is not None:
            self._store.event(self.row.id, to)
        state: Any = None
        parent: int | None = None  # on a path, each event's parent is the one before it
        runs = self._store.runs(end, since=start)
        if start is not None:
            if runs[0][0] != start:
                where = f"#{to}" if to is not None else f"the head of branch {self.branch!r}"
                raise UnknownEvent(f"event {start} is not in the history leading to {where}")
            parent = self._store.event(self.row.id, start).parent_id
            if parent is not None:
                state = self.fold_to(parent)[0]
        # _fold's loop, yielding a record and the state at each row: written out again, as
        # a generator a row would cost a long replay a fair part of its time. The first event
        # of a replay from the root starts the state, before the loop: no test a row for it.
        dispatch, decode_current, whole = self._dispatch(), self.codec.decode_current, self._decoded_whole
        at, record = self._store.recorded_at, Recorded
        command = _CommandIds(self._store.command_ids, runs).of
        chunks: Iterator[tuple[int, Iterator[Any]]] = self._store.current_rows(
            runs, self.codec.versions, "command_id, " if commands else "")
        if state is None:
            low, rows = next(chunks)
            row = next(rows)
            event, state = self._started_by(row[-1], low)
            yield record(low, None, row[0] if commands else command, event, at), state
            parent = low
            chunks = itertools.chain(((low + 1, rows),), chunks)
        if not commands:
            for low, rows in chunks:
                for event_id, (body,) in enumerate(rows, low):
                    try:
                        event = decode_current(body)
                    except (msgspec.DecodeError, TypeError):  # NULL: an older layout (or unreadable)
                        event = whole(event_id)
                    dispatch[type(event)](state, event)
                    yield record(event_id, parent, command, event, at), state
                    parent = event_id
            return
        for low, rows in chunks:  # the same loop, each row's command read with it
            for event_id, (command_id, body) in enumerate(rows, low):
                try:
                    event = decode_current(body)
                except (msgspec.DecodeError, TypeError):  # NULL: an older layout (or unreadable)
                    event = whole(event_id)
                dispatch[type(event)](state, event)
                yield record(event_id, parent, command_id, event, at), state
                parent = event_id

    def log(self, everything: bool = False) -> list[tuple[Recorded, list[str]]]:
        """The current branch's events, or every event of the tree, each with the branches
        whose history holds it (an empty list: undone, on no branch)."""
        if not everything:
            current = [self.branch]
            return [(rec, current) for rec in self.path(self.head().event_id)]
        return list(self.every_event())

    def log_page(self, limit: int | None, start: int | None = None) -> tuple[Page, list[Recorded]]:
        """A page of the current branch's events: the last ``limit`` (None: all), or
        ``limit`` from ``start`` on (an event of the branch); only the page's rows are read."""
        if start is not None:
            self._store.event(self.row.id, start)
        page = self._store.page(self.head().event_id, limit, start)
        return page, [self.decode(r) for r in self._store.events_in(page.runs)]

    def every_event(self) -> Iterator[tuple[Recorded, list[str]]]:
        """Every event of the tree in order, streamed, each with the branches whose history
        holds it (worked out from the branches' runs of ids, not by walking the tree)."""
        shape = self._store.shape(self.row.id)
        for row in self._store.all_events(self.row.id):
            yield self.decode(row), shape.holders(row.id)

    def all_events(self) -> list[Recorded]:
        return [self.decode(r) for r in self._store.all_events(self.row.id)]

    def reachable(self) -> dict[int, list[str]]:
        """For every event, the branches whose history contains it (none: undone)."""
        shape = self._store.shape(self.row.id)
        return {i: shape.holders(i) for i in self._store.event_ids(self.row.id)}

    # --- the log as recorded: what the audit, the page, the report and the console read ---

    def event(self, event_id: int) -> Recorded:
        """One event of this encounter, decoded; UnknownEvent if it is not one of its."""
        return self.decode(self._store.event(self.row.id, event_id))

    def event_hash(self, event_id: int) -> str:
        """The hash chaining event ``event_id`` of this encounter to its parent (what `verify` checks)."""
        return self._store.event(self.row.id, event_id).hash

    def command(self, command_id: int) -> CommandRow:
        """The command behind an event (its ``command_id``): as typed, as parsed, on which branch."""
        return self._store.command(command_id)

    def command_size(self, command_id: int) -> int:
        """How many events one command recorded (on any branch: they follow one another)."""
        return self._store.command_size(command_id)

    def events_of_command(self, command_id: int) -> list[Recorded]:
        """The events one command recorded, in order."""
        return [self.decode(r) for r in self._store.events_of_command(command_id)]

    def events_of_kind(self, kind: type[Event]) -> list[Recorded]:
        """The encounter's events of one kind (its notes, say), on any branch or none, in order."""
        return [self.decode(r) for r in self._store.events_of_kind(self.row.id, tag_of(kind))]

    def runs(self, event_id: int) -> PathRuns:
        """The path from the root to ``event_id`` as its runs of ids, worked out without
        reading the events (one lookup per undo or fork on the way)."""
        return PathRuns(self._store.runs(event_id))

    def events_in(self, runs: Iterable[tuple[int, int]]) -> Iterator[Recorded]:
        """The events of these runs of ids (a path's, or a stretch of one), in order, streamed."""
        return (self.decode(r) for r in self._store.events_in(runs))

    def path_length(self, event_id: int) -> int:
        """How many events the path to ``event_id`` holds (a progress bar's total), unread."""
        return self._store.path_length(event_id)

    def holds(self, head: int, event_id: int) -> bool:
        """Whether the path to ``head`` passes through ``event_id``."""
        return self._store.holds(head, event_id)

    def branches(self) -> dict[str, Head]:
        """Every branch's head, in the order the branches were made."""
        return self._store.branches(self.row.id)

    def branches_holding(self, event_id: int) -> list[str]:
        """The branches whose history holds the event (none: it was undone), by name."""
        return self._store.branches_holding(self.row.id, event_id)

    def shape(self) -> Shape:
        """Which branches hold which events, worked out once for many questions (eventlog/shape.py)."""
        return self._store.shape(self.row.id)

    def head_moves(self) -> Iterator[HeadMove]:
        """Every move of every branch's head (appends, undos, forks, switches), in order, streamed."""
        return self._store.each_head_move(self.row.id)

    def command_texts(self, limit: int) -> list[str]:
        """The newest ``limit`` command lines typed on this encounter, oldest first."""
        return self._store.command_texts(self.row.id, limit)

    def counts(self) -> Counts:
        """How many commands, events and head moves the log holds, and how many undos."""
        return self._store.counts(self.row.id)

    def command_rows(self) -> Iterator[CommandRow]:
        """Every command as stored (with its hash), in id order, streamed: what an export writes."""
        return self._store.each_command(self.row.id)

    def event_rows(self) -> Iterator[EventRow]:
        """Every event as stored (body undecoded, with its hash), on any branch or none, in id
        order, streamed: what an export writes, at the cost of a plain scan."""
        return self._store.all_events(self.row.id)

    def reading(self) -> AbstractContextManager[None]:
        """Reads that must agree with one another, seen at one moment (one read transaction):
        another process's commit in between is seen by none of them."""
        return self._store.reading()

    def verifying(self, aside: bool = True) -> AbstractContextManager[Callable[[], str]]:
        """Reads at one moment, and the log's verify digest as it stood then, to be asked for
        inside them (TamperedLog if the chain does not hold): worked out on the machine's
        other core while the reads go on, when ``aside`` and the log is long."""
        return _verifying(self._store, self.row.id, aside)

    def batch(self) -> AbstractContextManager[None]:
        """Many commands in one transaction: all of them recorded, or, if one raises, none."""
        return self._store.batch()

    @contextmanager
    def aside(self) -> Iterator[Encounter]:
        """This encounter on a private copy of the file, to decide a long change on (an amend
        decides a whole branch again) without holding the write lock: the table plays on
        meanwhile. What the copy appended is written back as the block ends, exactly and
        in one short transaction; HeadMoved (nothing written) when anything was recorded in
        the file since the copy was taken, and nothing at all when the block raises.

        Inside a write transaction (a `run` script's) the change is decided in it, on this
        file: a copy would not see the script's lines before it, and the script holds the
        write lock already, so there is no table to keep playing meanwhile."""
        if self._store.writing():
            with self._store.batch():
                yield self
            return
        aside = self._store.aside()
        try:
            copy = Encounter(aside.store, self.row)
            if self.pinned:
                copy.pin(self.pinned)
            yield copy
            self._moved_elsewhere()
            self._store.bring_back(aside)
        finally:
            aside.discard()

    # --- writing -------------------------------------------------------------------------

    def execute(
        self,
        command: Command,
        text: str,
        branch: str | None = None,
        dice_from: int | None = None,
        keep: int | None = None,
    ) -> list[Recorded]:
        """Decide ``command`` on the head of ``branch`` (default: the current one) and append
        what it produced. Deciding an earlier command again (amending the past):
        ``dice_from`` is the event it was first decided on, so the tool rolls the same dice;
        ``keep`` appends only the first so many events (a branch forked inside a command
        holds only those)."""
        recorded, after = self.execute_from(None, command, text, branch, dice_from, keep)
        if after is not None:
            # The state the decision advanced is the new head's: the view after reads it, not
            # a fold again (execute_from's caller gets it as its own to change, so only here).
            self._held = (after.at, after.state, after.depth)
        return recorded

    def execute_from(
        self,
        folded: Folded | None,
        command: Command,
        text: str,
        branch: str | None = None,
        dice_from: int | None = None,
        keep: int | None = None,
    ) -> tuple[list[Recorded], Folded | None]:
        """:meth:`execute`, on ``folded`` (the state at the branch's head, a working copy
        this call may change) when it is the head's, else folded from the store; and the
        state after what was appended, to decide the next command on without folding again
        (None when it cannot be had: only part of the command's events were kept)."""
        head = self.head(branch)
        start = (folded.state, folded.depth) if folded is not None and folded.at == head.event_id else None
        events, due, state, depth = self._decided(command, head.event_id, dice_from, start)
        everything = len(events)
        events = events[:keep]
        due = {index: snapshot for index, snapshot in due.items() if index < len(events)}
        new = [NewEvent(tag_of(type(e)), type(e).version, self.codec.encode(e)) for e in events]
        # The snapshots due ride in the command's transaction.
        ids = self._store.append(self.row.id, head, text, command_encoder.encode(command), new,
                                 lambda ids: self.remember(ids, due))
        parents = [head.event_id, *ids[:-1]]
        after = Folded(ids[-1], state, depth + len(ids)) if len(events) == everything else None
        recorded = [Recorded(i, p, 0, e, "") for i, p, e in zip(ids, parents, events, strict=True)]
        self._moved(head, Head(head.branch, ids[-1], head.seq + 1), recorded)
        return recorded, after

    def _moved(self, head: Head, now: Head, recorded: Sequence[Recorded] = ()) -> None:
        """This encounter moved ``head`` to ``now``: the table head held follows it, and what
        the path to the old head held of each kind read (its ends, its notes) carries over to
        the new one with the new events of that kind (an append's); an undo's holds nothing
        new, so it is read again."""
        if self._table_head is not None:
            self._table_head = now if self._table_head == head else None
        if recorded:
            self._of_kind.carry(head.event_id, now.event_id, recorded)

    def _moved_elsewhere(self) -> None:
        """A move this encounter does not follow (a fork, a switch, an amend's): read again."""
        self._table_head = None
        self._others = None

    def decide(self, command: Command, at: int, dice_from: int | None = None) -> list[Event]:
        """The events ``command`` produces when decided at event ``at`` (an event of this
        encounter); nothing is written. The tool's dice are seeded from ``dice_from``
        (default: ``at``)."""
        return self._decided(command, at, dice_from)[0]

    def _decided(
        self, command: Command, at: int, dice_from: int | None, start: tuple[Any, int] | None = None
    ) -> tuple[list[Event], dict[int, tuple[int, bytes]], Any, int]:
        """The events, the snapshots due among them (event index -> (its depth below the
        root, the state after it, encoded)), and the state after them with the depth it was
        decided at. ``start``: the state at ``at`` and its depth, when the caller holds them."""
        check_numbers(command)
        check_texts(command)
        held = self._held
        taken = start is None and held is not None and held[0] == at
        # The held state (the last one viewed) is taken over: decide leaves it as it was (a
        # refusal keeps it held), then it is advanced in place. ``start``: the caller's own.
        if start is not None:
            state, depth = start
        elif held is not None and taken:
            state, depth = held[1], held[2]
        else:
            state, depth = self.fold_to(at)
        if isinstance(command, POLICY_COMMANDS):  # the players' screens: the same in every ruleset
            events: list[Event] = decide_policy(self, state.names(), command, at)
        elif isinstance(command, AddNote):
            events = decide_note(command, state.names(), at, lambda event_id: self._store.event(self.row.id, event_id))
        else:
            if not isinstance(command, RollDice) and (ended := self.ended_at(at)) is not None:
                why = f" ({ended.reason})" if ended.reason else ""
                raise RuleViolation(f"the encounter ended at #{ended.event}{why}: nothing plays on after it; "
                                    "`skirmish undo` reopens it")
            check_details(self.ruleset, command)
            check_flags(self.ruleset, command)
            if isinstance(command, ApplyEffect):
                on_table = [e.kind for c in self.ruleset.view(state).combatants for e in c.effects]
                check_effect(self.ruleset, command, on_table)
            # Seeded by the event decided on: the same script rolls the same dice, and two
            # what-if branches from one moment share their next rolls.
            place = at if dice_from is None else dice_from
            by = getattr(command, "typed_by", None)
            dice = Dice.of(self.started, str(place), getattr(command, "rolls", None), by or None)
            if isinstance(command, AddHidden):
                events = joining_hidden(command, self.ruleset.decide(state, command.added(), dice))
            elif isinstance(command, Carry):  # the party between fights: the same in every ruleset
                events = decide_carry(self.ruleset, state, command, dice)
            else:
                events = self.ruleset.decide(state, command, dice)
            if not events:
                raise RuleViolation("that command changes nothing")
            unused = dice.unused()
            if unused:
                raise BadInput(f"no roll of this command uses the dice typed for {', '.join(unused)}")
        # Every stored event must fold: it is applied once here, before anything is written
        # (decide has left the state as it was, so it is applied to in place).
        if taken:
            self._held = None
        # The state advanced here is held for the view after by execute(): it encodes byte for
        # byte as the same events folded from a snapshot (the snapshots taken from it are
        # checked so), as long as a ruleset's state holds what its fields are typed (phases
        # held an int in a float field, which a snapshot gave back as a float).
        return events, self.advance(state, depth, events), state, depth

    def advance(self, state: Any, depth: int, events: Sequence[Event]) -> dict[int, tuple[int, bytes]]:
        """Apply newly decided ``events`` to ``state`` (a working copy at ``depth``) in place,
        and return the snapshots due among them for :meth:`remember`: event index -> (its
        depth, the state after it, encoded)."""
        due: dict[int, tuple[int, bytes]] = {}
        apply = self.ruleset.apply
        for index, event in enumerate(events):
            apply(state, event)
            if (depth + 1 + index) % SNAPSHOT_EVERY == 0:
                due[index] = (depth + 1 + index, _state_encoder.encode(state))
        return due

    def undo(self, steps: int, text: str) -> list[int]:
        """Move the branch's head back over ``steps`` commands; their events stay in the tree."""
        if steps < 1:
            raise BadInput(f"undo takes 1 or more steps, not {steps}")
        head = self.head()
        targets: list[int] = []
        at = head.event_id
        for _ in range(steps):
            target = self._store.decided_on(self.row.id, at)
            if target is None:
                break
            targets.append(target)
            at = target
        if not targets:
            raise NothingToDo("nothing to undo: this is where the encounter begins")
        self._move(head, targets, "undo", MoveHead(verb="undo", steps=steps), text)
        return targets

    def redo(self, steps: int, text: str) -> list[int]:
        if steps < 1:
            raise BadInput(f"redo takes 1 or more steps, not {steps}")
        head = self.head()
        stack = self._store.redo_stack(self.row.id, head.branch)
        if not stack:
            raise NothingToDo("nothing to redo on this branch")
        targets = list(reversed(stack))[:steps]
        self._move(head, targets, "redo", MoveHead(verb="redo", steps=steps), text)
        return targets

    def redo_target(self) -> int | None:
        """The event `redo` would bring the head to; None when nothing is undone."""
        stack = self._store.redo_stack(self.row.id, self.head().branch)
        return stack[-1] if stack else None

    def fork(self, name: str, at: int | None, text: str) -> Head:
        name = check_name("a branch", name)
        target = self.head().event_id if at is None else self._store.event(self.row.id, at).id
        command = MoveHead(verb="branch", branch=name, at=target)
        self._store.move(self.row.id, None, name, [target], "fork", text, command_encoder.encode(command))
        self._moved_elsewhere()
        return self.head(name)

    def fork_before(self, name: str, event_id: int, text: str) -> Head:
        """Fork a branch just before the command that recorded ``event_id``: where that
        command was decided, so the branch can play it another way."""
        at = self._decided_on(self._store.event(self.row.id, event_id))
        if at is None:
            raise BadInput(f"#{event_id} is where the encounter begins: there is nothing before it")
        return self.fork(name, at, text)

    def _decided_on(self, row: EventRow) -> int | None:
        """The event the command that recorded ``row`` was decided on (None: the encounter's
        first command). A command's events are a chain: the first one's parent."""
        return self._store.first_event_of_command(row.command_id).parent_id

    def switch(self, name: str, text: str) -> Head:
        target = self.head(name)
        name = target.branch  # as stored
        if name == self._store.current_branch(self.row.id):
            raise NothingToDo(f"already on branch {name!r}")
        command = MoveHead(verb="switch", branch=name)
        self._store.move(self.row.id, target, name, [target.event_id], "switch", text, command_encoder.encode(command))
        self._moved_elsewhere()
        return self.head(name)

    def _move(self, head: Head, targets: list[int], reason: str, command: MoveHead, text: str) -> None:
        self._store.move(self.row.id, head, head.branch, targets, reason, text, command_encoder.encode(command))
        self._moved(head, Head(head.branch, targets[-1], head.seq + len(targets)))


class LogFile:
    """One skirmish file, opened by path: the encounters it holds, which one is current, and
    whether anything was recorded in it. What the command line, the console and the live
    page hold open; everything about one encounter is read through the Encounter it opens."""

    def __init__(self, path: str = DEFAULT_DB, *, create: bool = False) -> None:
        self._store = Store(path, create=create)
        # A caller's mark: it has said that a log of this file failed the cheap checks
        # (eventlog/checks.py), so the lines that share the file (a `run` script's) say it once.
        self.failing_said = False

    @property
    def path(self) -> str:
        return self._store.file

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> LogFile:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- its encounters ------------------------------------------------------------------

    def encounters(self) -> list[EncounterRow]:
        """Every encounter of the file, oldest first."""
        return self._store.encounters()

    def encounter(self, name: str | None = None) -> EncounterRow:
        """The encounter named ``name`` (as typed: spaces around it are ignored), None: the
        current one; UnknownEncounter says which there are. Its ruleset is not looked up."""
        return self._store.current_encounter() if name is None else self._store.encounter(name)

    def open(self, name: str | None = None, branch: str | None = None, *, one_command: bool = False) -> Encounter:
        """The encounter named ``name`` (default: the current one) through its ruleset, held
        on ``branch`` if one is given (else it follows the encounter's current branch).
        ``one_command``: opened for one command and closed after it (not a console's), so
        its current head is read once, with the encounter, and followed through its own
        writes (an append, an undo, a redo: a move by another writer meanwhile is refused
        as HeadMoved, as it is between the decision and the append)."""
        if one_command and not branch:
            table = self._store.table(name)
            if table is not None:
                return Encounter(self._store, table.encounter, table)
        enc = Encounter(self._store, self.encounter(name))
        if branch:
            enc.pin(branch)
        return enc

    def new(self, name: str, ruleset_id: str, options: Mapping[str, str], text: str, seed: int | None = None) -> Encounter:
        """Start an encounter (:func:`new_encounter`); it becomes the current one."""
        return new_encounter(self._store, name, ruleset_id, options, text, seed)

    def use(self, name: str) -> EncounterRow:
        """Make the encounter named ``name`` the current one."""
        return self._store.use(name)

    # --- reading and writing it whole -------------------------------------------------------

    def reading(self) -> AbstractContextManager[None]:
        """Reads seen at one moment (one read transaction), whichever encounters they read."""
        return self._store.reading()

    def batch(self) -> AbstractContextManager[None]:
        """Many commands in one transaction (a `run` script's, an import's): all or none."""
        return self._store.batch()

    @contextmanager
    def running(self, script: str, lines: int | None) -> Iterator[Callable[[int], None]]:
        """A `run` script's lines in one transaction, as :meth:`batch`, with its marker beside
        the file for as long as it holds the write lock: another writer is answered at once,
        naming the script and the line it is at, not after the busy timeout. The block is
        handed ``reached(line)`` to say that line (eventlog/marker.py)."""
        from skirmish.eventlog import marker

        with self._store.batch(), marker.holding(self.path, script, lines) as reached:
            yield reached

    def verifying(self, encounter: EncounterRow, aside: bool = True) -> AbstractContextManager[Callable[[], str]]:
        """:meth:`Encounter.verifying` for an encounter not opened through its ruleset: an
        edited ruleset name is a tampered row, not a ruleset to look for."""
        return _verifying(self._store, encounter.id, aside)

    def verify(self, encounter: EncounterRow) -> str:
        """The encounter's verify digest, or TamperedLog naming the first row at fault."""
        return self._store.verify(encounter.id)

    def drop_snapshots(self) -> int:
        """Delete every cached state of every encounter (they are folded again as commands
        read); how many there were."""
        return self._store.drop_snapshots()

    def restoring(self, encounter: EncounterRow) -> AbstractContextManager[Restoring]:
        """Insert an exported encounter's rows as they were, ids and hashes kept, in one
        transaction, then verify them (eventlog/store.py: ``Store.restoring``). An encounter
        whose name only looks like one in the file is refused, as `new` refuses it."""
        _name_free(self._store, encounter.name)
        return self._store.restoring(encounter)

    # --- what a watcher polls ----------------------------------------------------------------

    def data_version(self) -> int:
        """A number that changes when another connection commits to the file: a watcher
        polls it to follow other writers cheaply."""
        return self._store.data_version()

    def last_ids(self) -> tuple[int, ...]:
        """The newest command's, event's and head move's ids in the file: they grow when
        anything is recorded (a refusal leaves them as they were)."""
        return self._store.last_ids()
