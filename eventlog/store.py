"""The recorder: the Store, an append-only tree of events per encounter in one SQLite file.

Each command is recorded in one transaction: the GM's command as parsed, the events it
produced (each a child of the one before, the first a child of the branch's head) and
the head's move, with their hashes. An append checks, under the write lock, that the
branch's head is still the one the command was decided on; otherwise it is refused
(HeadMoved), never re-decided nor forked silently. A path from the root is read as a few
runs of consecutive ids, not one lookup per event, so a replay streams at the speed of
a plain scan.

Beside it, each small enough to hold in mind: the tables and their migrations
(eventlog/schema.py), the hash chain and ``verify`` (eventlog/chain.py), the snapshot
cache (eventlog/snapshots.py), the file held open, its durability and transactions
(eventlog/connection.py), and the rows as tuples (eventlog/rows.py). Nothing outside
eventlog/ touches the connection: every read the engine needs is a method here. Nothing
but the engine (projections/write/engine.py) uses the Store: every other caller goes through
its Encounter and LogFile, so this class can change shape without touching them.
"""

from __future__ import annotations

import itertools
from contextlib import AbstractContextManager, contextmanager

import shlex
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any, NamedTuple

from skirmish.eventlog import chain, checks, connection, restored, schema, snapshots
from skirmish.eventlog.connection import DEFAULT_DB, Connection, Transaction, connect
from skirmish.eventlog.errors import (
    BadInput,
    DuplicateRow,
    HeadMoved,
    SkirmishError,
    StoreError,
    TamperedLog,
    UnknownBranch,
    UnknownEncounter,
    UnknownEvent,
)
from skirmish.eventlog.rows import (
    COMMAND_COLUMNS,
    ENCOUNTER_COLUMNS,
    EVENT_COLUMNS,
    MOVE_COLUMNS,
    CommandRow,
    Counts,
    EncounterRow,
    EventRow,
    Head,
    HeadMove,
    Log,
    NewEvent,
)
from skirmish.eventlog.shape import Shape
from skirmish.eventlog.text import quoted
from skirmish.eventlog.snapshots import Snapshot

__all__ = [
    "DEFAULT_DB", "CommandRow", "Counts", "EncounterRow", "EventRow", "Head", "HeadMove", "Log", "Restoring",
    "NewEvent", "Page", "Shape", "Snapshot", "Store", "Table",
]


# Each event with the hashes of its parent and its command, each only if it is this
# encounter's (chain.LinkedEvent); each head move with the hash of the event it moves to,
# whether the one it moves from is there, and its command's hash (chain.LinkedMove).
_LINKED_EVENTS = (
    "SELECT e.id, e.parent_id, e.command_id, e.kind, e.version, e.body, e.recorded_at, e.hash, p.hash, c.hash "
    "FROM events e "
    "LEFT JOIN events p ON p.id = e.parent_id AND p.encounter_id = e.encounter_id "
    "LEFT JOIN commands c ON c.id = e.command_id AND c.encounter_id = e.encounter_id "
    "WHERE e.encounter_id = ? ORDER BY e.id"
)
_LINKED_MOVES = (
    "SELECT m.id, m.branch, m.seq, m.from_event, m.to_event, m.reason, m.command_id, m.recorded_at, m.hash, "
    "t.hash, m.from_event IS NULL OR f.id IS NOT NULL, c.hash "
    "FROM head_moves m "
    "LEFT JOIN events t ON t.id = m.to_event AND t.encounter_id = m.encounter_id "
    "LEFT JOIN events f ON f.id = m.from_event AND f.encounter_id = m.encounter_id "
    "LEFT JOIN commands c ON c.id = m.command_id AND c.encounter_id = m.encounter_id "
    "WHERE m.encounter_id = ? ORDER BY m.id"
)


def _insert(table: str, columns: str) -> str:
    """The INSERT of one row of ``table``: the encounter's id, then a row tuple's fields."""
    marks = ", ".join("?" * (columns.count(",") + 2))
    return f"INSERT INTO {table}(encounter_id, {columns}) VALUES ({marks})"


_INSERT_COMMAND = _insert("commands", COMMAND_COLUMNS)
_INSERT_EVENT = _insert("events", EVENT_COLUMNS)
_INSERT_MOVE = _insert("head_moves", MOVE_COLUMNS)
# An append's one read in its transaction (?1 the encounter, ?2 the branch): the branch's head
# and seq (the expected-head check), the head event's hash (the new events chain to it),
# the next ids of commands, events and head moves, the encounter's last move's hash, then the
# head's link in the chain (eventlog/checks.py: the cheap checks before any write).
_APPEND_PLACE = (
    "SELECT m.to_event, m.seq, h.hash, "
    "(SELECT coalesce(max(id), 0) + 1 FROM commands), "
    "(SELECT coalesce(max(id), 0) + 1 FROM events), "
    "(SELECT coalesce(max(id), 0) + 1 FROM head_moves), "
    "(SELECT hash FROM head_moves WHERE encounter_id = ?1 ORDER BY id DESC LIMIT 1), "
    f"{checks.LINK_COLUMNS} "
    f"FROM head_moves m JOIN events h ON h.id = m.to_event {checks.LINK_JOINS} "
    "WHERE m.encounter_id = ?1 AND m.branch = ?2 ORDER BY m.seq DESC LIMIT 1"
)
_PLACE_COLUMNS = 7  # _APPEND_PLACE's before the head's link


# Where one command finds its table, in one read (?1 the encounter's name, NULL: the current
# one): the encounter, its current branch's head, its first event (its ruleset's options and
# dice seed), and whether the file holds another encounter or the encounter another branch
# (a reply then names where it landed).
_TABLE = (
    "SELECT e.id, e.name, e.ruleset, e.created_at, m.branch, m.to_event, m.seq, "
    "(SELECT count(*) FROM encounters) > 1 OR (SELECT count(*) FROM head_moves INDEXED BY "
    "  head_moves_branch_starts WHERE encounter_id = e.id AND seq = 1) > 1, "
    + ", ".join(f"f.{column}" for column in EVENT_COLUMNS.split(", ")) + ", "
    f"{checks.LINK_COLUMNS} "
    "FROM encounters e "
    "JOIN events f ON f.id = (SELECT min(id) FROM events WHERE encounter_id = e.id) "
    "JOIN head_moves m ON m.id = (SELECT id FROM head_moves WHERE encounter_id = e.id AND branch = "
    "  (SELECT branch FROM head_moves WHERE encounter_id = e.id AND reason IN ('start', 'switch') "
    "   ORDER BY id DESC LIMIT 1) ORDER BY seq DESC LIMIT 1) "
    f"LEFT JOIN events h ON h.id = m.to_event {checks.LINK_JOINS} "
    "WHERE e.name = coalesce(?1, (SELECT value FROM settings WHERE key = 'encounter'))"
)
_FIRST = slice(8, 8 + len(EVENT_COLUMNS.split(", ")))  # _TABLE's columns of the first event, then the head's link


def _current_body(layouts: Mapping[str, int]) -> str:
    """The SQL expression of a row's body where its version is its kind's in ``layouts``,
    else NULL: a replay evaluates it on every row, so it is kept to a version test and a
    short comparison. Most kinds are at layout 1, so a row at version 1 gives its body unless
    its kind is one of the few whose layout has moved on (it is then an older layout, to be
    upcast); a row at any other version gives it only if its kind is at that version (else
    it is older, or written by a newer skirmish). A row of a kind the ruleset does not know,
    at version 1, gives its body too: the decoder then refuses the body's unknown tag, the
    row is read whole and refused naming its kind, as any row read whole is
    (Codec.decode). Kinds are stored tags, quoted as SQL literals."""
    by_version: dict[int, list[str]] = {}
    for kind, version in layouts.items():
        by_version.setdefault(int(version), []).append("'" + kind.replace("'", "''") + "'")
    moved = [kind for version, kinds in by_version.items() if version != 1 for kind in kinds]
    first = f"CASE WHEN kind IN ({', '.join(moved)}) THEN NULL ELSE body END" if moved else "body"
    parts = [f"WHEN 1 THEN {first}"] + [
        f"WHEN {version} THEN CASE WHEN kind IN ({', '.join(kinds)}) THEN body END"
        for version, kinds in sorted(by_version.items()) if version != 1
    ]
    return f"CASE version {' '.join(parts)} END"


class Table(NamedTuple):
    """What one command reads first (Store.table)."""

    encounter: EncounterRow
    head: Head  # the current branch's
    first: EventRow  # the encounter's first event
    others: bool  # the file holds another encounter, or the encounter another branch
    link: tuple[Any, ...]  # the head's link in the chain, as eventlog/checks.py reads it


def _as_typed(name: str) -> tuple[str, ...]:
    """A name to look up as typed, then without the spaces around it: names are stored
    stripped (check_name), so a stray space typed back still finds its name."""
    return (name,) if name == name.strip() else (name, name.strip())


class Aside(NamedTuple):
    """A private copy of the file (Store.aside) and the newest ids of its log when taken."""

    store: Store
    folder: str
    marks: tuple[int, ...]

    @property
    def path(self) -> str:
        return self.store.file

    def discard(self) -> None:
        import shutil

        self.store.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class Page(NamedTuple):
    """A page of a path: its runs of ids, oldest first, and how many of the path's events
    come before and after it."""

    runs: list[tuple[int, int]]
    before: int
    after: int


def _busy_until(file: str, began: float) -> Callable[[int, int, int], None]:
    """A backup's progress callback that gives up, one StoreError line, once the source has
    stayed busy past the busy timeout (another process holding it exclusively, or a write
    transaction open on the very connection copied)."""

    def progress(status: int, remaining: int, total: int) -> None:
        if status in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) and time.monotonic() - began > connection.BUSY_TIMEOUT_MS / 1000:
            raise StoreError(f"{file} cannot be copied aside: it stayed busy longer than the busy timeout: nothing was recorded")

    return progress


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


IMPORT_CACHE_KIB = -65536  # negative: KiB, as PRAGMA cache_size takes it


def _taken(table: str, row_id: int, file: str) -> str:
    return (f"{table} id {row_id} is taken in {file} by another encounter: ids are part of the "
            "hash chain, import into a new database (--db)")


_first = itemgetter(0)  # a row's id, or a one-column row's value
_LINKED_TABLES = {"commands": "command", "events": "event", "head_moves": "head move"}  # a row's name in a message


class Restoring:
    """An import under way (Store.restoring): rows added a chunk at a time, then checked."""

    _INSERTS = {"commands": _INSERT_COMMAND, "events": _INSERT_EVENT, "head_moves": _INSERT_MOVE}

    def __init__(self, store: Store, encounter: EncounterRow, dropped: Sequence[str] = ()) -> None:
        self.store, self.encounter = store, encounter
        self.dropped = dropped  # the indexes to build once the rows are in (a new file)
        self.walk = restored.InHand(encounter, self._hashes, self._event_hash, self._event_digest_parts)
        # The encounter's id written into each INSERT (an int, checked): a row goes to
        # executemany as it is, not copied into a new tuple behind the id.
        given = f"VALUES ({int(encounter.id)}, "
        self.inserts = {table: sql.replace("VALUES (?, ", given, 1) for table, sql in self._INSERTS.items()}

    def _hashes(self, table: str) -> Iterator[tuple[int, str]]:
        assert table in restored.TABLES
        return iter(self.store.conn.execute(
            f"SELECT id, hash FROM {table} WHERE encounter_id = ? ORDER BY id", (self.encounter.id,)))

    def _event_hash(self, event_id: int) -> str | None:
        row = self.store.conn.execute(
            "SELECT hash FROM events WHERE id = ? AND encounter_id = ?", (event_id, self.encounter.id)).fetchone()
        return None if row is None else str(row[0])

    def _event_digest_parts(self) -> Iterator[str]:
        # SQLite writes each "id:hash"; Python joins a page of them: no loop a row here
        cursor = self.store.conn.execute(
            "SELECT id || ':' || hash FROM events WHERE encounter_id = ? ORDER BY id", (self.encounter.id,))
        while page := cursor.fetchmany(4096):
            yield "".join(map(_first, page))

    def add(self, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert rows of ``table`` (commands, events or head_moves) as they were, ids kept:
        an id another encounter holds is refused, and so are rows that do not fit. Each row
        is a tuple of its row type's fields (eventlog/rows.py) of their declared types, as an
        export's typed records give them (projections/write/transfer.py): the chain walked
        over them in hand (eventlog/restored.py) relies on it."""
        import json  # an import's ids: not at every command's start (docs/performance.md)

        conn, enc = self.store.conn, self.encounter.id
        ids = list(map(_first, rows))
        # One range lookup on the key (in a new database: nothing there); only when another
        # encounter's rows fall in the range are the ids looked up one by one.
        if conn.execute(
            f"SELECT 1 FROM {table} WHERE id BETWEEN ? AND ? AND encounter_id != ? LIMIT 1",
            (min(ids), max(ids), enc),
        ).fetchone():
            taken = conn.execute(
                f"SELECT min(id) FROM {table} WHERE id IN (SELECT value FROM json_each(?)) AND encounter_id != ?",
                (json.dumps(ids), enc),
            ).fetchone()[0]
            if taken is not None:
                raise BadInput(_taken(table, taken, self.store.file))
        inserted = conn.total_changes
        try:
            conn.executemany(self.inserts[table], rows)
        except sqlite3.IntegrityError as exc:
            # The rows before the one refused went in (one statement a row): it is the next.
            raise self._refused(table, rows, conn.total_changes - inserted, exc) from exc
        self.walk.take(table, rows)

    @staticmethod
    def _refused(table: str, rows: Sequence[tuple[Any, ...]], at: int, exc: sqlite3.IntegrityError) -> SkirmishError:
        """The row ``rows[at]`` that SQLite refused, said as what it is: a row given twice (its
        id, or a branch's move, taken already), else the constraint as SQLite names it."""
        row = rows[at] if at < len(rows) else None
        if row is not None and str(exc) == f"UNIQUE constraint failed: {table}.id":
            first = next((i for i in range(at) if rows[i][0] == row[0]), None)
            return DuplicateRow(f"{_LINKED_TABLES[table]} {row[0]}", at, first)
        if row is not None and table == "head_moves" and str(exc).endswith("head_moves.seq"):
            # HeadMove's branch and seq: a branch's moves are numbered once each
            first = next((i for i in range(at) if rows[i][1:3] == row[1:3]), None)
            return DuplicateRow(f"move {row[2]} of branch {quoted(str(row[1]))}", at, first)
        return TamperedLog(f"the rows do not hold together: {exc}")

    def finish(self, expect: str | None = None) -> str:
        """Verify the rows added (streamed, as ``verify`` does) and make the encounter
        current; the digest, or TamperedLog naming the row at fault."""
        conn = self.store.conn
        for sql in self.dropped:  # one sort a table beats keeping every index in order row by row
            conn.execute(sql)
        self.dropped = ()
        # The chain walked over the rows as they went in (eventlog/restored.py); where that
        # walk gave up, the rows inserted are read back and verified, which names the fault.
        digest = self.walk.digest()
        if digest is None:
            digest = self.store.verify(self.encounter.id)
        else:
            gone = schema.missing(conn)
            if gone:
                raise TamperedLog(schema.tampered(self.store.file, gone))
        if expect is not None and digest != expect:
            raise TamperedLog(f"the rows verify to digest {digest}, not the {expect} they were exported with")
        # Verify has checked every link of the encounter's rows; the foreign keys, not
        # enforced row by row during the insert (Store.restoring), are checked once here
        # all the same, so the file holds no row the schema would have refused.
        # (Only this encounter's rows: what another program left broken in the file before is
        # not the import's to refuse, as the deferred check at commit never counted it.)
        for table, row_id, parent, _ in conn.execute("PRAGMA foreign_key_check").fetchall():
            if table in _LINKED_TABLES and conn.execute(
                f"SELECT 1 FROM {table} WHERE id = ? AND encounter_id = ?", (row_id, self.encounter.id)
            ).fetchone():
                raise TamperedLog(f"{_LINKED_TABLES[table]} {row_id} points at a row of {parent} that is not there")
        self.store._make_current(self.encounter.name)
        return digest


class Store:
    """One SQLite file holding any number of encounters."""

    conn: Connection  # eventlog's own; tests plant tampering through it, callers use the methods

    def __init__(self, path: str = DEFAULT_DB, *, create: bool = True) -> None:
        self.file = path
        self.conn = connect(path, create=create)

    def close(self) -> None:
        self.conn.close()

    def last_ids(self) -> tuple[int, ...]:
        """The newest command's, event's and head move's ids in the file: they grow when
        anything is recorded (a refusal leaves them as they were)."""
        return self._marks(self.conn)

    def command_texts(self, encounter_id: int, limit: int) -> list[str]:
        """The newest ``limit`` command lines typed on an encounter, oldest first."""
        rows = self.conn.execute(
            "SELECT text FROM commands WHERE encounter_id = ? ORDER BY id DESC LIMIT ?", (encounter_id, limit)
        ).fetchall()
        return [str(r[0]) for r in reversed(rows)]

    # --- a long change decided aside (amend) ----------------------------------------------

    LOG_TABLES = ("commands", "events", "head_moves")  # in the order their rows refer to one another

    def aside(self) -> Aside:
        """A private copy of the file, to decide a long change on (an amend re-decides a
        whole branch) without holding the write lock: the table plays on meanwhile.
        ``bring_back`` then writes what the copy appended in one short transaction."""
        import os
        import shutil
        import tempfile

        folder = tempfile.mkdtemp(prefix="skirmish-aside-")
        path = os.path.join(folder, "aside.db")
        try:
            target = sqlite3.connect(path)
            try:
                # A consistent copy, read under a read lock only. CPython's backup retries for
                # ever while the file is busy: the deadline below makes it a bounded wait.
                self.conn.backup(target, progress=_busy_until(self.file, time.monotonic()))
            finally:
                target.close()
            copy = Store(path, create=False)
            return Aside(copy, folder, self._marks(copy.conn))
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise

    def writing(self) -> bool:
        """Whether a write transaction is open on the file (a `run` script's batch): a change
        decided inside it must be decided in it, not on a copy that cannot see it."""
        return self.conn.in_transaction

    @staticmethod
    def _marks(conn: Connection) -> tuple[int, ...]:
        return tuple(int(conn.execute(f"SELECT coalesce(max(id), 0) FROM {t}").fetchone()[0]) for t in Store.LOG_TABLES)

    def bring_back(self, aside: Aside) -> None:
        """Append the rows the copy gained, exactly (ids and hashes as the copy chained them),
        in one short transaction; HeadMoved (nothing written) when anything was recorded in
        the file since the copy was taken: the copy's chain would not follow it."""
        aside.store.close()
        self.conn.execute("ATTACH DATABASE ? AS aside", (aside.path,))
        inserts = [
            (f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM aside.{table} WHERE id > ? ORDER BY id", mark)
            for table, mark in zip(self.LOG_TABLES, aside.marks, strict=True)
            for columns in [", ".join(r[1] for r in self.conn.execute(f"PRAGMA main.table_info({table})"))]
        ]
        # The write lock is what the table waits on, so only the copying is done under it: the
        # copy's rows met the same foreign keys when the copy took them, over the same rows
        # (the marks below prove the file's log is the copy's up to them), so they are not
        # checked twice; and a page cache as large as an import's keeps the indexes' pages
        # in memory until the commit writes them once.
        self.conn.execute("PRAGMA foreign_keys = OFF")
        before = self.conn.execute("PRAGMA cache_size").fetchone()[0]
        self.conn.execute(f"PRAGMA cache_size = {IMPORT_CACHE_KIB}")
        try:
            with self.conn.transaction():
                if self._marks(self.conn) != aside.marks:
                    raise HeadMoved(
                        "the log moved while this was decided (another writer): nothing was recorded, run it again"
                    )
                for sql, mark in inserts:
                    self.conn.execute(sql, (mark,))
        finally:
            self.conn.execute(f"PRAGMA cache_size = {int(before)}")
            self.conn.execute("PRAGMA foreign_keys = ON")
            self.conn.execute("DETACH DATABASE aside")

    def data_version(self) -> int:
        """A number that changes when another connection commits to the file (SQLite's
        ``PRAGMA data_version``): a watcher polls it to follow other writers cheaply."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    # --- encounters ---------------------------------------------------------------------

    def encounters(self) -> list[EncounterRow]:
        rows = self.conn.execute(f"SELECT {ENCOUNTER_COLUMNS} FROM encounters ORDER BY id")
        return [EncounterRow(*r) for r in rows]

    def encounter(self, name: str) -> EncounterRow:
        for wanted in _as_typed(name):
            row = self.conn.execute(
                f"SELECT {ENCOUNTER_COLUMNS} FROM encounters WHERE name = ?", (wanted,)
            ).fetchone()
            if row is not None:
                return EncounterRow(*row)
        known = ", ".join(e.name for e in self.encounters()) or "none yet"
        raise UnknownEncounter(f"no encounter named {name!r} (encounters: {known})")

    def current_encounter(self) -> EncounterRow:
        row = self.conn.execute("SELECT value FROM settings WHERE key = 'encounter'").fetchone()
        if row is not None:
            return self.encounter(row[0])
        all_ = self.encounters()
        if len(all_) == 1:
            return all_[0]
        if not all_:
            raise UnknownEncounter("no encounter yet: start one with `skirmish new NAME --rules RULESET`")
        raise UnknownEncounter("several encounters here: pick one with `skirmish use NAME`")

    def table(self, name: str | None = None) -> Table | None:
        """The encounter named ``name`` exactly (None: the current one) with its current
        branch's head and first event, in one read; None when it is not found so (a name
        typed with spaces around it, no current encounter set): ask ``encounter`` and
        ``current_encounter``, which say why."""
        row = self.conn.execute(_TABLE, (name,)).fetchone()
        if row is None:
            return None
        return Table(EncounterRow(*row[:4]), Head(*row[4:7]), EventRow(*row[_FIRST]), bool(row[7]), row[_FIRST.stop:])

    def use(self, name: str) -> EncounterRow:
        enc = self.encounter(name)
        with self.conn.transaction():
            self._make_current(enc.name)
        return enc

    def _make_current(self, name: str) -> None:
        self.conn.execute(
            "INSERT INTO settings(key, value) VALUES ('encounter', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (name,),
        )

    def create_encounter(
        self, name: str, ruleset: str, command_text: str, command_body: bytes, first: NewEvent
    ) -> tuple[EncounterRow, int]:
        """Create the encounter, its first event and branch ``main`` in one transaction."""
        now = _now()
        with self.conn.transaction():
            self._refuse_failing(0, None)  # no encounter to check yet: the file's guards
            try:
                cur = self.conn.execute(
                    "INSERT INTO encounters(name, ruleset, created_at) VALUES (?, ?, ?)",
                    (name, ruleset, now),
                )
            except sqlite3.IntegrityError as exc:
                raise BadInput(
                    f"an encounter named {name!r} already exists: `skirmish use {shlex.quote(name)}`"
                ) from exc
            enc_id = cur.lastrowid
            assert enc_id is not None
            cmd = self._insert_command(enc_id, "main", command_text, command_body, now)
            (event_id,), _ = self._insert_events(enc_id, None, None, cmd, [first], now)
            self._insert_move(enc_id, "main", 1, None, event_id, "start", cmd, now)
            self._make_current(name)
        return EncounterRow(enc_id, name, ruleset, now), event_id

    # --- branches and heads ---------------------------------------------------------------

    def head(self, encounter_id: int, branch: str) -> Head:
        for wanted in _as_typed(branch):
            row = self.conn.execute(
                "SELECT to_event, seq FROM head_moves WHERE encounter_id = ? AND branch = ? "
                "ORDER BY seq DESC LIMIT 1",
                (encounter_id, wanted),
            ).fetchone()
            if row is not None:
                return Head(wanted, row[0], row[1])
        known = ", ".join(self.branches(encounter_id))
        raise UnknownBranch(f"no branch named {branch!r} (branches: {known})")

    def branches(self, encounter_id: int) -> dict[str, Head]:
        """Every branch's head, in the order the branches were made (each one's first head
        move, its seq 1: the ``head_moves_branch_starts`` index), one lookup a branch."""
        rows = self.conn.execute(
            "SELECT s.branch, m.to_event, m.seq FROM head_moves s INDEXED BY head_moves_branch_starts "
            "JOIN head_moves m ON m.encounter_id = s.encounter_id AND m.branch = s.branch AND m.seq = "
            "  (SELECT max(seq) FROM head_moves WHERE encounter_id = s.encounter_id AND branch = s.branch) "
            "WHERE s.encounter_id = ? AND s.seq = 1 ORDER BY s.id",
            (encounter_id,),
        )
        return {r[0]: Head(r[0], r[1], r[2]) for r in rows}

    def shape(self, encounter_id: int) -> Shape:
        """The encounter's jumps and branch heads: which branches hold which events, worked
        out in memory from a few hundred rows (eventlog/shape.py)."""
        jumps = self.conn.execute(
            "SELECT id, parent_id FROM events INDEXED BY events_jumps "
            "WHERE parent_id IS NOT id - 1 AND encounter_id = ?",
            (encounter_id,),
        )
        heads = {name: head.event_id for name, head in self.branches(encounter_id).items()}
        return Shape(jumps, heads)

    def current_branch(self, encounter_id: int) -> str:
        row = self.conn.execute(
            "SELECT branch FROM head_moves WHERE encounter_id = ? AND reason IN ('start', 'switch') "
            "ORDER BY id DESC LIMIT 1",
            (encounter_id,),
        ).fetchone()
        assert row is not None, "every encounter starts with a 'start' head move"
        return str(row[0])

    def current_head(self, encounter_id: int) -> Head:
        """The current branch's head: ``head(current_branch())`` in one read."""
        row = self.conn.execute(
            "SELECT m.branch, m.to_event, m.seq FROM head_moves m WHERE m.encounter_id = ?1 AND m.branch = "
            "  (SELECT branch FROM head_moves WHERE encounter_id = ?1 AND reason IN ('start', 'switch') "
            "   ORDER BY id DESC LIMIT 1) "
            "ORDER BY m.seq DESC LIMIT 1",
            (encounter_id,),
        ).fetchone()
        assert row is not None, "every encounter starts with a 'start' head move"
        return Head(row[0], row[1], row[2])

    def head_moves(self, encounter_id: int, branch: str | None = None) -> list[HeadMove]:
        return list(self.each_head_move(encounter_id, branch))

    def each_head_move(self, encounter_id: int, branch: str | None = None) -> Iterator[HeadMove]:
        """The head moves in order, streamed."""
        sql = f"SELECT {MOVE_COLUMNS} FROM head_moves WHERE encounter_id = ?"
        args: tuple[object, ...] = (encounter_id,)
        if branch is not None:
            sql += " AND branch = ?"
            args += (branch,)
        return (HeadMove(*r) for r in self.conn.execute(sql + " ORDER BY id", args))

    def redo_stack(self, encounter_id: int, branch: str) -> list[int]:
        """Events undone on this branch and not yet redone or overwritten by an append."""
        # Any other move (append, start, fork) empties the stack: only the undos, redos and
        # switches since the latest one matter, read from the newest back.
        tail: list[tuple[str, int | None]] = []
        for reason, from_event in self.conn.execute(
            "SELECT reason, from_event FROM head_moves WHERE encounter_id = ? AND branch = ? ORDER BY seq DESC",
            (encounter_id, branch),
        ):
            if reason not in ("undo", "redo", "switch"):
                break
            tail.append((reason, from_event))
        stack: list[int] = []
        for reason, from_event in reversed(tail):
            if reason == "undo" and from_event is not None:
                stack.append(from_event)
            elif reason == "redo":
                stack.pop()
        return stack

    # --- events ---------------------------------------------------------------------------

    def event(self, encounter_id: int, event_id: int) -> EventRow:
        if not 0 < event_id < 2**63:
            raise UnknownEvent(f"no event {event_id} in this encounter (see `skirmish log --all`)")
        row = self.conn.execute(
            f"SELECT {EVENT_COLUMNS} "
            "FROM events WHERE id = ? AND encounter_id = ?",
            (event_id, encounter_id),
        ).fetchone()
        if row is None:
            raise UnknownEvent(f"no event {event_id} in this encounter (see `skirmish log --all`)")
        return EventRow(*row)

    def recorded_at(self, event_id: int) -> str:
        """When the event was recorded, as stored (a replay's record reads it when asked)."""
        row = self.conn.execute("SELECT recorded_at FROM events WHERE id = ?", (event_id,)).fetchone()
        if row is None:
            raise UnknownEvent(f"no event {event_id} in this file")
        return str(row[0])

    def command_ids(self, low: int, high: int) -> list[int]:
        """The command of each event from ``low`` to ``high`` (a stretch of one run of a path:
        every id in it is an event's), in order of id, in one statement: a replay's records
        read them a block at a time, when asked (Recorded.command_id)."""
        ids = [c for (c,) in self.conn.execute(
            "SELECT command_id FROM events WHERE id BETWEEN ? AND ? ORDER BY id", (low, high))]
        if len(ids) != high - low + 1:  # an id missing: a place in the list would not be an id's
            raise UnknownEvent(f"events {low} to {high} are not all in this file")
        return ids

    def path(self, event_id: int, since: int | None = None) -> Iterator[EventRow]:
        """The events from the root (or from ``since``, if it is on the way) to ``event_id``,
        in order (ids grow from parent to child), streamed: a replay of a long log holds
        one row at a time, not the whole path, and reads it as fast as a plain scan."""
        return (EventRow(*r) for r in self._path_rows(EVENT_COLUMNS, event_id, since))

    def path_links(self, event_id: int) -> Iterator[tuple[int, int | None, int]]:
        """The path as ``path`` reads it, each event as its id, its parent's and its command's
        only: the path's shape, without reading the bodies."""
        return self._path_rows("id, parent_id, command_id", event_id, None)

    def current_rows(
        self, runs: Iterable[tuple[int, int]], layouts: Mapping[str, int], columns: str = ""
    ) -> Iterator[tuple[int, Iterator[Any]]]:
        """Each run of consecutive ids (as ``runs`` gives them) as its first id and its rows
        in order: ``columns`` (none, or names each followed by a comma) then the body, or
        NULL where the row is not at the layout version ``layouts`` gives its kind (read
        that row whole with ``event`` to upcast or refuse it). A run holds every id from its
        first to its last (``runs_back``), so a row's id is its first id plus its place:
        the fold reads the one column it needs, and SQL checks each row's version
        (``_current_body``)."""
        query = f"SELECT {columns}{_current_body(layouts)} FROM events WHERE id BETWEEN ? AND ? ORDER BY id"
        execute = self.conn.execute
        return ((run[0], execute(query, run)) for run in runs)

    def _path_rows(self, columns: str, event_id: int, since: int | None) -> Iterator[Any]:
        return self._rows(columns, self.runs(event_id, since))

    def _rows(self, columns: str, runs: Iterable[tuple[int, int]]) -> Iterator[Any]:
        query = f"SELECT {columns} FROM events WHERE id BETWEEN ? AND ? ORDER BY id"
        execute = self.conn.execute
        # The cursors chained, not re-yielded: a generator frame a row is a fair part of a replay.
        return itertools.chain.from_iterable(execute(query, run) for run in runs)

    def runs(self, event_id: int, since: int | None = None) -> list[tuple[int, int]]:
        """The path to ``event_id`` (from ``since``, if it is on the way) as runs of
        consecutive ids, oldest first."""
        runs: list[tuple[int, int]] = []
        for low, high in self.runs_back(event_id):
            if since is not None and low <= since <= high:
                runs.append((since, high))
                break
            runs.append((low, high))
        runs.reverse()
        return runs

    def path_length(self, event_id: int) -> int:
        """How many events the path from the root to ``event_id`` holds (a progress bar's
        total), counted from its runs without reading the rows."""
        return sum(high - low + 1 for low, high in self.runs_back(event_id))

    def runs_back(self, event_id: int) -> Iterator[tuple[int, int]]:
        """The path to ``event_id`` as runs of consecutive ids, newest first.

        Between two events that start a run (events_jumps), every event's parent is the
        one just before it, so the path walks down that run in one step: the walk costs
        one lookup per undo or fork on the way, not one per event.
        """
        at: int | None = event_id
        while at is not None:
            jump, parent = self.conn.execute(
                "SELECT id, parent_id FROM events INDEXED BY events_jumps "
                "WHERE parent_id IS NOT id - 1 AND id <= ? ORDER BY id DESC LIMIT 1",
                (at,),
            ).fetchone()
            yield jump, at
            at = parent

    def holds(self, head: int, event_id: int) -> bool:
        """Whether the path to ``head`` passes through ``event_id``: its runs are walked
        back only until they pass below the event, one lookup per undo or fork on the way."""
        for low, high in self.runs_back(head):
            if low <= event_id <= high:
                return True
            if high < event_id:
                return False
        return False

    def branches_holding(self, encounter_id: int, event_id: int) -> list[str]:
        """The branches whose history holds the event (none: it was undone), by name."""
        return sorted(self.shape(encounter_id).holding(event_id))

    def page(self, event_id: int, limit: int | None, start: int | None = None) -> Page:
        """A page of the path to ``event_id``: ``limit`` events (None: all of them) from
        ``start`` (an event of the path), or else the last ``limit``; worked out from the
        path's runs, so only the page's rows are read."""
        runs = self.runs(event_id)
        total = sum(high - low + 1 for low, high in runs)
        if start is None:
            first = 0 if limit is None else max(0, total - limit)
        else:
            first = 0
            for low, high in runs:
                if low <= start <= high:
                    first += start - low
                    break
                first += high - low + 1
            else:
                raise UnknownEvent(f"event {start} is not in the history leading to #{event_id}")
        last = total if limit is None else min(total, first + limit)
        page: list[tuple[int, int]] = []
        seen = 0
        for low, high in runs:
            size = high - low + 1
            lo, hi = max(first - seen, 0), min(last - seen, size)
            if lo < hi:
                page.append((low + lo, low + hi - 1))
            seen += size
        return Page(page, first, total - last)

    def events_in(self, runs: Iterable[tuple[int, int]]) -> Iterator[EventRow]:
        """The events of these runs of ids, in order, streamed."""
        return (EventRow(*r) for r in self._rows(EVENT_COLUMNS, runs))

    def runs_since_snapshot(
        self, event_id: int, projection: str, version: int
    ) -> tuple[Snapshot | None, list[tuple[int, int]]]:
        """The nearest snapshot on the path to ``event_id`` (``event_id`` itself included) and
        the runs of the events after it, oldest first (``current_rows`` reads them); no
        snapshot: the whole path from the root."""
        return snapshots.nearest(self.conn, self.runs_back(event_id), projection, version)

    def stored_snapshots(self, encounter_id: int, projection: str, version: int) -> Iterator[tuple[int, Snapshot | None]]:
        """Every cached state of the encounter for one projection version, oldest first;
        None for one whose digest does not match (snapshots.stored)."""
        return snapshots.stored(self.conn, encounter_id, projection, version)

    def save_snapshots(self, projection: str, version: int, due: Sequence[Snapshot]) -> bool:
        """Cache folded states; False when the file cannot take them now (snapshots.save)."""
        return snapshots.save(self.conn, projection, version, due)

    def drop_snapshots(self) -> int:
        """Delete every cached state (they are rebuilt as commands read and append)."""
        return snapshots.drop(self.conn)

    def all_events(self, encounter_id: int) -> Iterator[EventRow]:
        rows = self.conn.execute(
            f"SELECT {EVENT_COLUMNS} "
            "FROM events WHERE encounter_id = ? ORDER BY id",
            (encounter_id,),
        )
        return (EventRow(*r) for r in rows)

    def event_ids(self, encounter_id: int) -> list[int]:
        """The ids of every event of the encounter, on any branch or none, in order."""
        rows = self.conn.execute("SELECT id FROM events WHERE encounter_id = ? ORDER BY id", (encounter_id,))
        return [r[0] for r in rows]

    def events_of_kind(self, encounter_id: int, kind: str, having: str | None = None) -> list[EventRow]:
        """The encounter's events of one kind (its notes, say), in order; ``having``: only
        those whose body holds that field (the notes on a combatant, among every note)."""
        if having is None:
            rows = self.conn.execute(
                f"SELECT {EVENT_COLUMNS} FROM events WHERE encounter_id = ? AND kind = ? ORDER BY id",
                (encounter_id, kind),
            )
        else:
            rows = self.conn.execute(
                f"SELECT {EVENT_COLUMNS} FROM events WHERE encounter_id = ? AND kind = ? "
                "AND json_extract(body, ?) IS NOT NULL ORDER BY id",
                (encounter_id, kind, f"$.{having}"),
            )
        return [EventRow(*r) for r in rows]

    def events_of_kinds(self, encounter_id: int, kinds: Sequence[tuple[str, str | None]]) -> list[EventRow]:
        """``events_of_kind`` of several (kind, having) pairs in one read, in id order: one
        part a kind, each looked up on events_by_kind (an IN over kinds read every event)."""
        parts, marks = [], []
        for kind, having in kinds:
            part = f"SELECT {EVENT_COLUMNS} FROM events INDEXED BY events_by_kind WHERE encounter_id = ? AND kind = ?"
            marks += [encounter_id, kind]
            if having is not None:
                part += " AND json_extract(body, ?) IS NOT NULL"
                marks.append(f"$.{having}")
            parts.append(part)
        rows = self.conn.execute(" UNION ALL ".join(parts) + " ORDER BY id", marks)
        return [EventRow(*r) for r in rows]

    def commands(self, encounter_id: int) -> dict[int, CommandRow]:
        return {c.id: c for c in self.each_command(encounter_id)}

    def each_command(self, encounter_id: int) -> Iterator[CommandRow]:
        """The encounter's commands in order, streamed."""
        rows = self.conn.execute(
            f"SELECT {COMMAND_COLUMNS} FROM commands WHERE encounter_id = ? ORDER BY id", (encounter_id,)
        )
        return (CommandRow(*r) for r in rows)

    def command(self, command_id: int) -> CommandRow:
        row = self.conn.execute(f"SELECT {COMMAND_COLUMNS} FROM commands WHERE id = ?", (command_id,)).fetchone()
        return CommandRow(*row)

    def first_event(self, encounter_id: int) -> EventRow:
        """The encounter's root: the first event appended, by ``create_encounter``."""
        row = self.conn.execute(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE encounter_id = ? ORDER BY id LIMIT 1",
            (encounter_id,),
        ).fetchone()
        return EventRow(*row)

    def events_of_command(self, command_id: int) -> list[EventRow]:
        """The events one command recorded, in order."""
        rows = self.conn.execute(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE command_id = ? ORDER BY id", (command_id,)
        )
        return [EventRow(*r) for r in rows]

    def command_size(self, command_id: int) -> int:
        """How many events one command recorded, counted on the events_by_command index."""
        return int(self.conn.execute("SELECT count(*) FROM events WHERE command_id = ?", (command_id,)).fetchone()[0])

    def decided_on(self, encounter_id: int, event_id: int) -> int | None:
        """The event the command that recorded ``event_id`` (this encounter's) was decided on,
        in one read: its first event's parent (None: the encounter's first command)."""
        row = self.conn.execute(
            "SELECT f.parent_id FROM events h JOIN events f ON f.id = "
            "  (SELECT min(id) FROM events WHERE command_id = h.command_id) "
            "WHERE h.id = ? AND h.encounter_id = ?",
            (event_id, encounter_id),
        ).fetchone()
        if row is None:
            raise UnknownEvent(f"no event #{event_id} in this encounter")
        return None if row[0] is None else int(row[0])

    def first_event_of_command(self, command_id: int) -> EventRow:
        row = self.conn.execute(
            f"SELECT {EVENT_COLUMNS} "
            "FROM events WHERE command_id = ? ORDER BY id LIMIT 1",
            (command_id,),
        ).fetchone()
        return EventRow(*row)

    # --- writing ------------------------------------------------------------------------------

    def append(
        self,
        encounter_id: int,
        expected: Head,
        command_text: str,
        command_body: bytes,
        events: Sequence[NewEvent],
        then: Callable[[list[int]], object] | None = None,
    ) -> list[int]:
        """Append one command's events on ``expected.branch``, if its head is still ``expected``;
        ``then``, given the new ids, runs in the same transaction (the snapshots that fell due)."""
        now = _now()
        with self.conn.transaction():
            # The head's check, the hashes the new rows chain to and the next ids, in one read.
            _, _, parent, next_command, next_event, next_move, last_move = self._place(encounter_id, expected)
            cmd = self._insert_command(encounter_id, expected.branch, command_text, command_body, now, next_command)
            ids, last_hash = self._insert_events(encounter_id, expected.event_id, parent, cmd, events, now, next_event)
            self._insert_move(
                encounter_id, expected.branch, expected.seq + 1, expected.event_id, ids[-1],
                "append", cmd, now, known=(next_move, last_move, last_hash),
            )
            if then is not None:
                then(ids)
        return ids

    def move(
        self,
        encounter_id: int,
        expected: Head | None,
        branch: str,
        targets: Sequence[int],
        reason: str,
        command_text: str,
        command_body: bytes,
    ) -> None:
        """Record head moves (undo, redo, fork, switch) as one command, one row per step.

        ``expected`` is the head the caller decided on; None creates ``branch``.
        """
        now = _now()
        with self.conn.transaction():
            if expected is None:
                taken = self.conn.execute(
                    "SELECT 1 FROM head_moves WHERE encounter_id = ? AND branch = ? LIMIT 1", (encounter_id, branch)
                ).fetchone()
                if taken:
                    raise BadInput(f"a branch named {branch!r} already exists")
                self._refuse_failing(encounter_id, targets[0], f"where branch {branch!r} would start")
                seq, current = 0, None
            else:
                # The head's check, the next ids and the hash the moves chain to in one read (as
                # an append's), then the hashes of the events they move to in another.
                place = self._place(encounter_id, expected)
                _, _, _, next_command, _, next_move, last_move = place
                hashes = dict(self.conn.execute(
                    f"SELECT id, hash FROM events WHERE id IN ({', '.join('?' * len(set(targets)))})",
                    tuple(set(targets)),
                ).fetchall())
                cmd = self._insert_command(encounter_id, branch, command_text, command_body, now, next_command)
                seq, current = expected.seq, expected.event_id
                for target in targets:
                    seq += 1
                    last_move = self._insert_move(encounter_id, branch, seq, current, target, reason, cmd, now,
                                                  known=(next_move, last_move, hashes[target]))
                    next_move += 1
                    current = target
                return
            cmd = self._insert_command(encounter_id, branch, command_text, command_body, now)
            for target in targets:
                seq += 1
                self._insert_move(encounter_id, branch, seq, current, target, reason, cmd, now)
                current = target

    def _place(self, encounter_id: int, expected: Head) -> tuple[Any, ...]:
        """``_APPEND_PLACE`` read inside the write transaction, without the head's link:
        HeadMoved when the branch's head is not ``expected`` any more, TamperedLog when the
        log fails the cheap checks (eventlog/checks.py)."""
        place = self.conn.execute(_APPEND_PLACE, (encounter_id, expected.branch)).fetchone()
        if place is None or (place[0], place[1]) != (expected.event_id, expected.seq):
            self._check_head(encounter_id, expected)  # names the branch or where it moved
            if place is None:
                raise HeadMoved(f"branch {expected.branch!r} moved while this command was decided (another "
                                "writer): nothing was recorded, run the command again")
            # Past the check only if it were skipped: the rows chain to the head expected,
            # and the unique move index refuses them (tests/log/test_store.py).
            parent = self.conn.execute("SELECT hash FROM events WHERE id = ?", (expected.event_id,)).fetchone()[0]
            place = (*place[:2], parent, *place[3:_PLACE_COLUMNS])
        self._refuse_failing(encounter_id, expected.event_id, f"the head of branch {expected.branch!r}",
                             place[_PLACE_COLUMNS:] or None)
        return tuple(place[:_PLACE_COLUMNS])

    def _refuse_failing(self, encounter_id: int, event_id: int | None, what: str = "",
                        link: Sequence[Any] | None = None) -> None:
        """TamperedLog, before anything is written, when the log fails the cheap checks."""
        found = checks.failed(self.conn, encounter_id, event_id, what, link)
        if found:
            raise checks.refusal(found)

    def failed_checks(self, encounter_id: int, head: Head, link: Sequence[Any] | None = None) -> list[str]:
        """What the cheap checks (eventlog/checks.py) find wrong with the encounter's log at
        ``head``, each in a few words; empty: it passes. ``link``: the head's, as
        ``table`` read it."""
        return checks.failed(self.conn, encounter_id, head.event_id, f"the head of branch {head.branch!r}", link)

    def _check_head(self, encounter_id: int, expected: Head) -> None:
        now_at = self.head(encounter_id, expected.branch)
        if now_at != expected:
            raise HeadMoved(
                f"branch {expected.branch!r} moved to event {now_at.event_id} while this command "
                "was decided (another writer): nothing was recorded, run the command again"
            )

    def _insert_command(
        self, encounter_id: int, branch: str, text: str, body: bytes, now: str, next_id: int | None = None
    ) -> CommandRow:
        if next_id is None:
            next_id = self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM commands").fetchone()[0]
        row = CommandRow(next_id, branch, text, body.decode(), now, "")
        row = row._replace(hash=chain.command_hash(encounter_id, row))
        self.conn.execute(_INSERT_COMMAND, (encounter_id, *row))
        return row

    def _insert_events(
        self,
        encounter_id: int,
        parent_id: int | None,
        parent_hash: str | None,
        cmd: CommandRow,
        events: Sequence[NewEvent],
        now: str,
        next_id: int | None = None,
    ) -> tuple[list[int], str]:
        """The new events' ids and the last one's hash."""
        if next_id is None:
            next_id = self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM events").fetchone()[0]
        rows = []
        for offset, ev in enumerate(events):
            row = EventRow(next_id + offset, parent_id, cmd.id, ev.kind, ev.version, ev.body.decode(), now, "")
            row = row._replace(hash=chain.event_hash(encounter_id, row, parent_hash, cmd.hash))
            rows.append((encounter_id, *row))
            parent_id, parent_hash = row.id, row.hash
        self.conn.executemany(_INSERT_EVENT, rows)
        return [r[1] for r in rows], str(parent_hash)

    def _insert_move(
        self,
        encounter_id: int,
        branch: str,
        seq: int,
        from_event: int | None,
        to_event: int,
        reason: str,
        cmd: CommandRow,
        now: str,
        known: tuple[int, str | None, str] | None = None,
    ) -> str:
        """``known``: the next id, the encounter's last move's hash and ``to_event``'s hash,
        when the caller has read them already."""
        if known is None:
            prev = self.conn.execute(
                "SELECT hash FROM head_moves WHERE encounter_id = ? ORDER BY id DESC LIMIT 1",
                (encounter_id,),
            ).fetchone()
            to_hash = self.conn.execute("SELECT hash FROM events WHERE id = ?", (to_event,)).fetchone()[0]
            next_id = self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM head_moves").fetchone()[0]
            known = (next_id, prev[0] if prev else None, to_hash)
        next_id, prev_hash, to_hash = known
        move = HeadMove(next_id, branch, seq, from_event, to_event, reason, cmd.id, now, "")
        move = move._replace(hash=chain.move_hash(encounter_id, move, prev_hash, cmd.hash, to_hash))
        try:
            self.conn.execute(_INSERT_MOVE, (encounter_id, *move))
        except sqlite3.IntegrityError as exc:
            raise HeadMoved(
                f"branch {branch!r} moved while this command was decided (another writer): "
                "nothing was recorded, run the command again"
            ) from exc
        return move.hash

    @contextmanager
    def restoring(self, encounter: EncounterRow) -> Iterator[Restoring]:
        """Insert an exported encounter's rows exactly as they were, in one transaction:
        the rows go in a chunk at a time (``Restoring.add``), then ``Restoring.finish``
        verifies them and makes the encounter current; any error rolls all of it back.

        Ids and hashes are kept as they are (every hash covers its row's id), so none
        may be taken in this database already: the rows are refused, nothing written.
        """
        # Links are checked by verify at the end, which names the row at fault, then the
        # foreign keys once, by a query (Restoring.finish): not a lookup of each row's parents
        # as it goes in. The pragma holds only outside a transaction: inside a `run` script's
        # they stay on, deferred to its commit.
        unchecked = not self.conn.in_transaction and self.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        if unchecked:
            self.conn.execute("PRAGMA foreign_keys = OFF")
        try:
            with self.conn.transaction():
                if self.conn.execute("SELECT 1 FROM encounters WHERE name = ?", (encounter.name,)).fetchone():
                    raise BadInput(f"an encounter named {encounter.name!r} already exists in {self.file}")
                if self.conn.execute("SELECT 1 FROM encounters WHERE id = ?", (encounter.id,)).fetchone():
                    raise BadInput(_taken("encounters", encounter.id, self.file))
                self.conn.execute("PRAGMA defer_foreign_keys = ON")
                # Into a file without an encounter the log's indexes are built after its rows
                # (Restoring.finish), in this transaction: a failed import rolls them back as they were.
                new = self.conn.execute("SELECT 1 FROM encounters LIMIT 1").fetchone() is None
                self.conn.execute("INSERT INTO encounters(id, name, ruleset, created_at) VALUES (?, ?, ?, ?)", encounter)
                dropped = self._drop_log_indexes() if new else []
                # A larger page cache while the rows go in: the indexes' pages stay in memory
                # (about a seventh less time for a bounded 64 MB).
                before = self.conn.execute("PRAGMA cache_size").fetchone()[0]
                self.conn.execute(f"PRAGMA cache_size = {IMPORT_CACHE_KIB}")
                try:
                    yield Restoring(self, encounter, dropped)
                finally:
                    self.conn.execute(f"PRAGMA cache_size = {int(before)}")
        finally:
            if unchecked:
                self.conn.execute("PRAGMA foreign_keys = ON")

    def _drop_log_indexes(self) -> list[str]:
        """Drop the secondary indexes of the log's tables; the statements that make them again."""
        made = self.conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
            "AND tbl_name IN ('commands', 'events', 'head_moves') ORDER BY rowid"
        ).fetchall()
        for name, _ in made:
            self.conn.execute(f'DROP INDEX "{name}"')
        return [sql for _, sql in made]

    def batch(self) -> Transaction:
        """Many commands in one transaction, as an import appends them: one sync to disk for
        all of them; each command inside is still checked, and refused alone."""
        return self.conn.transaction()

    # --- audit --------------------------------------------------------------------------------

    def reading(self) -> AbstractContextManager[None]:
        """Reads that must agree with one another, seen at one moment (one read transaction):
        another process's commit in between is not seen by any of them."""
        return self.conn.reading()

    def log(self, encounter_id: int) -> Log:
        """The encounter's whole log as it stood at one moment (one read transaction): what
        ``verify`` checks and an export writes, never a row appended half-way through."""
        with self.conn.reading():
            return Log(
                self._encounter_row(encounter_id),
                list(self.commands(encounter_id).values()),
                list(self.all_events(encounter_id)),
                self.head_moves(encounter_id),
            )

    def _encounter_row(self, encounter_id: int) -> EncounterRow:
        row = self.conn.execute(f"SELECT {ENCOUNTER_COLUMNS} FROM encounters WHERE id = ?", (encounter_id,)).fetchone()
        if row is None:
            raise UnknownEncounter(f"no encounter {encounter_id} in {self.file}")
        return EncounterRow(*row)

    def verify(self, encounter_id: int) -> str:
        """Check the encounter's hash chain: its digest, or TamperedLog naming the first row
        at fault. The rows are streamed, one pass a table (chain.verify_streamed), so memory
        stays flat however long the log; only a log found out of place is read whole, for
        chain.verify to name its earliest fault."""
        with self.conn.reading():
            row = self._encounter_row(encounter_id)
            try:
                digest = chain.verify_streamed(
                    row,
                    self.each_command(encounter_id),
                    self.conn.execute(_LINKED_MOVES, (encounter_id,)),
                    self.conn.execute(_LINKED_EVENTS, (encounter_id,)),
                )
            except chain.Suspect:
                digest = chain.verify(self.log(encounter_id))
            # Rows first: an edited row is the fault to name, and dropping the guards is how
            # it was edited. Rows intact with a guard gone: the schema is the fault.
            gone = schema.missing(self.conn)
            if gone:
                raise TamperedLog(schema.tampered(self.file, gone))
            return digest

    def counts(self, encounter_id: int) -> Counts:
        """How many commands, events and head moves the encounter holds, and how many undos."""
        row = self.conn.execute(
            "SELECT (SELECT count(*) FROM commands WHERE encounter_id = ?1), "
            "(SELECT count(*) FROM events WHERE encounter_id = ?1), "
            "(SELECT count(*) FROM head_moves WHERE encounter_id = ?1), "
            "(SELECT count(*) FROM head_moves WHERE encounter_id = ?1 AND reason = 'undo')",
            (encounter_id,),
        ).fetchone()
        return Counts(*row)
