"""The SQLite store: an append-only tree of events per encounter, named branch heads, a hash chain.

Three append-only tables hold the truth: ``commands`` (the GM's intent as parsed),
``events`` (each a child of its parent event) and ``head_moves`` (every append, undo,
redo, fork and switch, as a move of one branch's head). Triggers refuse UPDATE and
DELETE on all three. A branch's head is the ``to_event`` of its latest head move; the
UNIQUE (encounter, branch, seq) index means two writers can never both move one head
from the same place, so a branch never forks silently.

Every row carries a SHA-256 hash chained to what it follows (an event to its parent,
a head move to the encounter's previous head move), so ``verify`` finds any edited,
removed or re-ordered row.

A fourth table, ``snapshots``, is a cache and nothing more: the folded state after one
event (a node of the tree, so one snapshot serves every branch through it), per
projection and projection version. It has no triggers and no hashes, ``verify`` never
reads it, and deleting any or all of its rows only makes the next read fold further.

The schema is made by named, ordered migrations (sqlite-utils' Migrations). sqlite-utils
is imported only when a database needs migrating: appends and reads at the table use
the sqlite3 connection directly, to keep each command's process start short and to
control the transaction (BEGIN IMMEDIATE, one per command) exactly.
"""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from skirmish.eventlog.errors import (
    BadInput,
    HeadMoved,
    TamperedLog,
    NothingToDo,
    StoreError,
    UnknownBranch,
    UnknownEncounter,
    UnknownEvent,
)

if TYPE_CHECKING:
    import sqlite_utils

DEFAULT_DB = "skirmish.db"
# How long a command waits for another writer's transaction (each lasts milliseconds) before
# giving up with a StoreError: long enough for a queue of writers, short enough for a GM.
BUSY_TIMEOUT_MS = 10_000
IMMUTABLE_TABLES = ("encounters", "commands", "events", "head_moves")
EVENT_COLUMNS = "id, parent_id, command_id, kind, version, body, recorded_at, hash"  # EventRow's fields
REPLAY_COLUMNS = "id, parent_id, command_id, kind, version, body, recorded_at"  # ReplayRow's
# (id, parent_id, command_id, kind, version, body, recorded_at): an event row without its hash
ReplayRow = tuple[int, "int | None", int, str, int, str, str]


class EncounterRow(NamedTuple):
    id: int
    name: str
    ruleset: str
    created_at: str


class EventRow(NamedTuple):
    id: int
    parent_id: int | None
    command_id: int
    kind: str
    version: int
    body: str
    recorded_at: str
    hash: str


class CommandRow(NamedTuple):
    id: int
    branch: str
    text: str
    body: str
    recorded_at: str
    hash: str


class HeadMove(NamedTuple):
    id: int
    branch: str
    seq: int
    from_event: int | None
    to_event: int
    reason: str
    command_id: int
    recorded_at: str
    hash: str


class Head(NamedTuple):
    """Where a branch points, and how many times it has moved (the expected-head token)."""

    branch: str
    event_id: int
    seq: int


class Snapshot(NamedTuple):
    """A cached state: after event ``event_id``, ``depth`` events below the root."""

    event_id: int
    depth: int
    state: bytes


class NewEvent(NamedTuple):
    kind: str
    version: int
    body: bytes


# --- schema -----------------------------------------------------------------------------


def _migration_set() -> sqlite_utils.Migrations:
    from sqlite_utils import Migrations

    migrations = Migrations("skirmish")

    @migrations(name="0001_event_tree")
    def event_tree(db: sqlite_utils.Database) -> None:
        db.execute("""
            CREATE TABLE encounters (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                ruleset TEXT NOT NULL,
                created_at TEXT NOT NULL
            )""")
        db.execute("""
            CREATE TABLE commands (
                id INTEGER PRIMARY KEY,
                encounter_id INTEGER NOT NULL REFERENCES encounters(id),
                branch TEXT NOT NULL,
                text TEXT NOT NULL,
                body TEXT NOT NULL,
                recorded_at TEXT NOT NULL,
                hash TEXT NOT NULL
            )""")
        db.execute("""
            CREATE TABLE events (
                id INTEGER PRIMARY KEY,
                encounter_id INTEGER NOT NULL REFERENCES encounters(id),
                parent_id INTEGER REFERENCES events(id),
                command_id INTEGER NOT NULL REFERENCES commands(id),
                kind TEXT NOT NULL,
                version INTEGER NOT NULL,
                body TEXT NOT NULL,
                recorded_at TEXT NOT NULL,
                hash TEXT NOT NULL
            )""")
        db.execute("CREATE INDEX events_by_parent ON events(parent_id)")
        db.execute("CREATE INDEX events_by_encounter ON events(encounter_id, id)")
        db.execute("""
            CREATE TABLE head_moves (
                id INTEGER PRIMARY KEY,
                encounter_id INTEGER NOT NULL REFERENCES encounters(id),
                branch TEXT NOT NULL,
                seq INTEGER NOT NULL,
                from_event INTEGER REFERENCES events(id),
                to_event INTEGER NOT NULL REFERENCES events(id),
                reason TEXT NOT NULL,
                command_id INTEGER NOT NULL REFERENCES commands(id),
                recorded_at TEXT NOT NULL,
                hash TEXT NOT NULL,
                UNIQUE (encounter_id, branch, seq)
            )""")
        db.execute("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        for table in IMMUTABLE_TABLES:
            for verb in ("UPDATE", "DELETE"):
                db.execute(f"""
                    CREATE TRIGGER {table}_refuse_{verb.lower()}
                    BEFORE {verb} ON {table}
                    BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END""")
        # Readable views for sqlite-utils, Datasette and the sqlite3 shell.
        db.execute("""
            CREATE VIEW branches AS
            SELECT e.name AS encounter, m.branch, m.to_event AS head, m.seq AS moves
            FROM head_moves m JOIN encounters e ON e.id = m.encounter_id
            WHERE m.seq = (SELECT max(seq) FROM head_moves
                           WHERE encounter_id = m.encounter_id AND branch = m.branch)""")
        db.execute("""
            CREATE VIEW timeline AS
            SELECT ev.id, e.name AS encounter, ev.parent_id AS parent, ev.kind,
                   c.text AS command, ev.body, ev.recorded_at
            FROM events ev JOIN encounters e ON e.id = ev.encounter_id
            JOIN commands c ON c.id = ev.command_id""")

    @migrations(name="0002_readable_views")
    def readable_views(db: sqlite_utils.Database) -> None:
        # `timeline` decodes the fields most events share (who, action, target, the
        # outcome or a note's text) and names the branches whose history holds each
        # event (NULL: undone, on no branch). `combatants` lists who joined each
        # encounter, with the declarations made in their name.
        db.execute("DROP VIEW timeline")
        db.execute("""
            CREATE VIEW timeline AS
            WITH RECURSIVE tip(branch, event_id) AS (
                SELECT m.branch, m.to_event FROM head_moves m
                WHERE m.seq = (SELECT max(seq) FROM head_moves
                               WHERE encounter_id = m.encounter_id AND branch = m.branch)
                UNION ALL
                SELECT tip.branch, e.parent_id FROM tip JOIN events e ON e.id = tip.event_id
                WHERE e.parent_id IS NOT NULL
            ),
            held AS (SELECT event_id, group_concat(branch, ', ') AS branches FROM tip GROUP BY event_id)
            SELECT ev.id, e.name AS encounter, held.branches, ev.parent_id AS parent, ev.kind,
                   coalesce(json_extract(ev.body, '$.who'),
                            CASE ev.kind WHEN 'combatant-added' THEN json_extract(ev.body, '$.name') END) AS who,
                   json_extract(ev.body, '$.action') AS action,
                   json_extract(ev.body, '$.target') AS target,
                   coalesce(json_extract(ev.body, '$.outcome'),
                            CASE ev.kind WHEN 'note-added' THEN json_extract(ev.body, '$.text') END) AS text,
                   c.text AS command, ev.body, ev.recorded_at
            FROM events ev JOIN encounters e ON e.id = ev.encounter_id
            JOIN commands c ON c.id = ev.command_id
            LEFT JOIN held ON held.event_id = ev.id""")
        db.execute("""
            CREATE VIEW combatants AS
            SELECT e.name AS encounter, json_extract(ev.body, '$.name') AS name,
                   json_extract(ev.body, '$.side') AS side, json_extract(ev.body, '$.stats') AS stats,
                   ev.id AS added_at,
                   (SELECT count(*) FROM commands c
                    WHERE c.encounter_id = ev.encounter_id AND json_extract(c.body, '$.type') = 'declare'
                      AND lower(json_extract(c.body, '$.who')) = lower(json_extract(ev.body, '$.name'))
                   ) AS declarations,
                   (SELECT count(*) FROM events x
                    WHERE x.encounter_id = ev.encounter_id
                      AND json_extract(x.body, '$.who') = json_extract(ev.body, '$.name')) AS events
            FROM events ev JOIN encounters e ON e.id = ev.encounter_id
            WHERE ev.kind = 'combatant-added'""")

    @migrations(name="0003_snapshots")
    def snapshots(db: sqlite_utils.Database) -> None:
        # A cache of folded states, not part of the log: no append-only triggers, no hash
        # chain. ``depth`` is the event's distance from the root, which decides where the
        # next snapshot falls on a path whatever branch the path belongs to.
        db.execute("""
            CREATE TABLE snapshots (
                event_id INTEGER NOT NULL REFERENCES events(id),
                projection TEXT NOT NULL,
                version INTEGER NOT NULL,
                depth INTEGER NOT NULL,
                state BLOB NOT NULL,
                PRIMARY KEY (event_id, projection, version)
            ) WITHOUT ROWID""")

    @migrations(name="0004_lookups_that_stay_flat")
    def lookups(db: sqlite_utils.Database) -> None:
        # Without these, every append (the encounter's latest head move, which its hash
        # chains to), undo (a command's first event) and every command (the current branch:
        # the latest start or switch) scan the log, and slow down as it grows.
        db.execute("CREATE INDEX head_moves_by_encounter ON head_moves(encounter_id, id)")
        db.execute("CREATE INDEX events_by_command ON events(command_id, id)")
        # An event whose parent is not the event just before it starts a new run of the
        # path it is on (the root, the first append after an undo or on a branch). Only
        # those are indexed: a path is read as a few runs of ids (see `path`).
        db.execute("CREATE INDEX events_jumps ON events(id) WHERE parent_id IS NOT id - 1")
        db.execute(
            "CREATE INDEX head_moves_switches ON head_moves(encounter_id, id) "
            "WHERE reason IN ('start', 'switch')"
        )

    return migrations


SCHEMA_VERSION = 4  # the number of migrations above; stored as PRAGMA user_version


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _sha(*parts: object) -> str:
    # Each field is prefixed by its length (None by a mark of its own), so no text a GM
    # types can make two different rows hash alike. The pieces are joined and hashed in
    # one call: the same digest as feeding them one by one, at a third of the cost.
    import hashlib  # here: reads never hash, and OpenSSL's load is felt at start-up

    pieces: list[bytes] = []
    for part in parts:
        if part is None:
            pieces.append(b"~")
            continue
        data = str(part).encode()
        pieces.append(b"%d:" % len(data))
        pieces.append(data)
    return hashlib.sha256(b"".join(pieces)).hexdigest()


def command_hash(encounter_id: int, c: CommandRow) -> str:
    return _sha("command", c.id, encounter_id, c.branch, c.text, c.body, c.recorded_at)


def event_hash(encounter_id: int, e: EventRow, parent_hash: str | None, cmd_hash: str) -> str:
    return _sha(
        "event", e.id, encounter_id, e.parent_id, parent_hash, cmd_hash, e.kind, e.version,
        e.recorded_at, e.body,
    )


def move_hash(
    encounter_id: int, m: HeadMove, previous_hash: str | None, cmd_hash: str, to_hash: str
) -> str:
    return _sha(
        "move", m.id, encounter_id, m.branch, m.seq, m.from_event, m.to_event, m.reason,
        m.recorded_at, previous_hash, cmd_hash, to_hash,
    )


# --- the store --------------------------------------------------------------------------

# SQLite result codes (primary, the low byte) that blame the file, the disk or another
# process rather than skirmish: each becomes a one-line StoreError saying what to do.
_WHY = {
    sqlite3.SQLITE_BUSY: "another skirmish kept it busy longer than the busy timeout",
    sqlite3.SQLITE_LOCKED: "another skirmish kept it busy longer than the busy timeout",
    sqlite3.SQLITE_FULL: "the disk (or the file's size limit) is full",
    sqlite3.SQLITE_READONLY: "the file (or its folder) is read-only",
    sqlite3.SQLITE_IOERR: "the disk refused a read or a write: is it full, or failing?",
    sqlite3.SQLITE_CANTOPEN: "the file cannot be opened",
    sqlite3.SQLITE_CORRUPT: "the file is damaged",
}


class _Connection(sqlite3.Connection):
    """A connection whose file, disk and lock errors are StoreErrors (translated at the
    store's boundary, raised from the sqlite3 error), never a raw sqlite3 exception."""

    file = ""
    writing = False  # inside a command's write transaction: the message says nothing was recorded

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        try:
            return super().execute(sql, parameters)
        except sqlite3.Error as exc:
            error = self.translate(exc)
            if error is None:
                raise
            raise error from exc

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        try:
            return super().executemany(sql, parameters)
        except sqlite3.Error as exc:
            error = self.translate(exc)
            if error is None:
                raise
            raise error from exc

    def translate(self, exc: sqlite3.Error) -> StoreError | None:
        code = getattr(exc, "sqlite_errorcode", None)
        why = _WHY.get(code & 0xFF) if code is not None else None
        if why is None:
            return None  # skirmish's own doing (a constraint, a trigger): the caller's to handle
        if self.writing:
            return StoreError(f"{self.file} cannot be written: {exc} ({why}): nothing was recorded")
        return StoreError(f"{self.file} cannot be read: {exc} ({why})")


class Store:
    """One SQLite file holding any number of encounters."""

    conn: _Connection

    def __init__(self, path: str = DEFAULT_DB, *, create: bool = True) -> None:
        self.file = path
        if not path.strip():
            raise StoreError("the database path is empty: give --db a file name")
        if path != ":memory:" and not os.path.exists(path) and not create:
            raise StoreError(
                f"no skirmish database at {path}: start one with `skirmish new NAME --rules RULESET`"
            )
        try:
            conn = sqlite3.connect(
                path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, factory=_Connection
            )
            assert isinstance(conn, _Connection)
            conn.file = path
            self.conn = conn
            self._configure_when_free()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} cannot be used as a skirmish database: {exc}") from exc

    def _configure_when_free(self) -> None:
        """Configure, retrying while another process is turning a new file to WAL or
        migrating it: in those moments SQLite answers "database is locked" at once, without
        waiting out the busy timeout, so the wait is done here, up to the same timeout."""
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                self._configure()
                return
            except StoreError as exc:
                cause = exc.__cause__
                busy = isinstance(cause, sqlite3.OperationalError) and getattr(
                    cause, "sqlite_errorcode", 0
                ) & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
                if not busy or time.monotonic() >= deadline:
                    raise
                time.sleep(0.02)

    def _configure(self) -> None:
        conn = self.conn
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        # Our files are known by skirmish's migration record: another program's may share a
        # table name (encounters) or a user_version, and must be refused before migrating
        # writes anything into them. An empty file, or one whose first migration was cut
        # short, has nothing but an empty _sqlite_migrations: it becomes ours.
        ours = "_sqlite_migrations" in tables and conn.execute(
            "SELECT 1 FROM _sqlite_migrations WHERE migration_set = 'skirmish' LIMIT 1"
        ).fetchone() is not None
        if not ours and (version or tables - {"_sqlite_migrations"}):
            raise StoreError(f"{self.file} is a SQLite database of another program, not skirmish's")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.file} was written by a newer skirmish (schema {version}, this one "
                f"knows {SCHEMA_VERSION}): upgrade skirmish to read it"
            )
        if version < SCHEMA_VERSION:
            self._migrate()
        # Durability: journal_mode WAL (set once, in _migrate) with synchronous FULL.
        # - One command is one transaction (BEGIN IMMEDIATE ... COMMIT): a process killed
        #   mid-command leaves WAL frames with no commit record, which the next opener
        #   ignores, so a command is wholly in or wholly out (tests/test_crashes.py kills
        #   writers at random to hold this).
        # - FULL syncs the WAL at every commit: once a command has printed its events it
        #   survives a power loss too, not just a killed process. NORMAL would keep the
        #   file consistent but could lose the last commands on power loss; a log that
        #   settles disputes must not forget a call the table saw recorded, and one fsync
        #   per command is far below a GM's typing speed.
        # - WAL rather than a rollback journal: readers (state, log, a second GM's screen)
        #   never block the one writer, nor it them, and a commit is one sequential append.
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")

    def _migrate(self) -> None:
        import sqlite_utils

        if self.file != ":memory:":
            # WAL lets readers run beside the one writer. The mode is kept in the file, so
            # it is set once, here, and a read-only file can still be read later.
            self.conn.execute("PRAGMA journal_mode = WAL")
        # Under the write lock, so that two processes creating one file at once do not
        # both migrate it: the second waits, then finds the schema made.
        with self._transaction():
            if self.conn.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
                return
            try:
                _migration_set().apply(sqlite_utils.Database(self.conn))
            except sqlite3.OperationalError as exc:
                raise StoreError(f"{self.file} cannot be migrated: {exc}") from exc
            self.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        self.conn.close()

    # --- encounters ---------------------------------------------------------------------

    def encounters(self) -> list[EncounterRow]:
        rows = self.conn.execute("SELECT id, name, ruleset, created_at FROM encounters ORDER BY id")
        return [EncounterRow(*r) for r in rows]

    def encounter(self, name: str) -> EncounterRow:
        row = self.conn.execute(
            "SELECT id, name, ruleset, created_at FROM encounters WHERE name = ?", (name,)
        ).fetchone()
        if row is None:
            known = ", ".join(e.name for e in self.encounters()) or "none yet"
            raise UnknownEncounter(f"no encounter named {name!r} (encounters: {known})")
        return EncounterRow(*row)

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

    def use(self, name: str) -> EncounterRow:
        enc = self.encounter(name)
        with self._transaction():
            self.conn.execute(
                "INSERT INTO settings(key, value) VALUES ('encounter', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (name,),
            )
        return enc

    def create_encounter(
        self, name: str, ruleset: str, command_text: str, command_body: bytes, first: NewEvent
    ) -> tuple[EncounterRow, int]:
        """Create the encounter, its first event and branch ``main`` in one transaction."""
        now = _now()
        with self._transaction():
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
            (event_id,) = self._insert_events(enc_id, None, None, cmd, [first], now)
            self._insert_move(enc_id, "main", 1, None, event_id, "start", cmd, now)
            self.conn.execute(
                "INSERT INTO settings(key, value) VALUES ('encounter', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (name,),
            )
        return EncounterRow(enc_id, name, ruleset, now), event_id

    # --- branches and heads ---------------------------------------------------------------

    def head(self, encounter_id: int, branch: str) -> Head:
        row = self.conn.execute(
            "SELECT to_event, seq FROM head_moves WHERE encounter_id = ? AND branch = ? "
            "ORDER BY seq DESC LIMIT 1",
            (encounter_id, branch),
        ).fetchone()
        if row is None:
            known = ", ".join(self.branches(encounter_id))
            raise UnknownBranch(f"no branch named {branch!r} (branches: {known})")
        return Head(branch, row[0], row[1])

    def branches(self, encounter_id: int) -> dict[str, Head]:
        rows = self.conn.execute(
            "SELECT m.branch, m.to_event, m.seq FROM head_moves m "
            "WHERE m.encounter_id = ?1 AND m.seq = (SELECT max(seq) FROM head_moves "
            "  WHERE encounter_id = ?1 AND branch = m.branch) "
            "ORDER BY (SELECT min(id) FROM head_moves WHERE encounter_id = ?1 AND branch = m.branch)",
            (encounter_id,),
        )
        return {r[0]: Head(r[0], r[1], r[2]) for r in rows}

    def current_branch(self, encounter_id: int) -> str:
        row = self.conn.execute(
            "SELECT branch FROM head_moves WHERE encounter_id = ? AND reason IN ('start', 'switch') "
            "ORDER BY id DESC LIMIT 1",
            (encounter_id,),
        ).fetchone()
        assert row is not None, "every encounter starts with a 'start' head move"
        return str(row[0])

    def head_moves(self, encounter_id: int, branch: str | None = None) -> list[HeadMove]:
        sql = (
            "SELECT id, branch, seq, from_event, to_event, reason, command_id, recorded_at, hash "
            "FROM head_moves WHERE encounter_id = ?"
        )
        args: tuple[object, ...] = (encounter_id,)
        if branch is not None:
            sql += " AND branch = ?"
            args += (branch,)
        return [HeadMove(*r) for r in self.conn.execute(sql + " ORDER BY id", args)]

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

    def path(self, event_id: int, since: int | None = None) -> Iterator[EventRow]:
        """The events from the root (or from ``since``, if it is on the way) to ``event_id``,
        in order (ids grow from parent to child), streamed: a replay of a long log holds
        one row at a time, not the whole path, and reads it as fast as a plain scan."""
        return (EventRow(*r) for r in self._path_rows(EVENT_COLUMNS, event_id, since))

    def replay_rows(self, event_id: int, since: int | None = None) -> Iterator[ReplayRow]:
        """The path as ``path`` reads it, each row as a plain tuple without its hash: what a
        replay needs, at the least cost per row."""
        return self._path_rows(REPLAY_COLUMNS, event_id, since)

    def _path_rows(self, columns: str, event_id: int, since: int | None) -> Iterator[Any]:
        return self._rows(columns, self.runs(event_id, since))

    def _rows(self, columns: str, runs: Iterable[tuple[int, int]]) -> Iterator[Any]:
        for low, high in runs:
            yield from self.conn.execute(
                f"SELECT {columns} FROM events WHERE id BETWEEN ? AND ? ORDER BY id", (low, high)
            )

    def runs(self, event_id: int, since: int | None = None) -> list[tuple[int, int]]:
        """The path to ``event_id`` (from ``since``, if it is on the way) as runs of
        consecutive ids, oldest first."""
        runs: list[tuple[int, int]] = []
        for low, high in self._runs_back(event_id):
            if since is not None and low <= since <= high:
                runs.append((since, high))
                break
            runs.append((low, high))
        runs.reverse()
        return runs

    def path_length(self, event_id: int) -> int:
        """How many events the path from the root to ``event_id`` holds (a progress bar's
        total), counted from its runs without reading the rows."""
        return sum(high - low + 1 for low, high in self._runs_back(event_id))

    def _runs_back(self, event_id: int) -> Iterator[tuple[int, int]]:
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

    def path_since_snapshot(
        self, event_id: int, projection: str, version: int
    ) -> tuple[Snapshot | None, list[EventRow]]:
        """The nearest snapshot on the path to ``event_id`` (``event_id`` itself included) and
        the events after it, in order; no snapshot: the whole path from the root."""
        runs: list[tuple[int, int]] = []
        snapshot: Snapshot | None = None
        for low, high in self._runs_back(event_id):
            found = self.conn.execute(
                "SELECT event_id, depth, state FROM snapshots WHERE event_id BETWEEN ? AND ? "
                "AND projection = ? AND version = ? ORDER BY event_id DESC LIMIT 1",
                (low, high, projection, version),
            ).fetchone()
            if found is not None:
                snapshot = Snapshot(found[0], found[1], bytes(found[2]))
                runs.append((found[0] + 1, high))
                break
            runs.append((low, high))
        rows = [EventRow(*r) for r in self._rows(EVENT_COLUMNS, reversed(runs))]
        return snapshot, rows

    def save_snapshots(self, projection: str, version: int, snapshots: Sequence[Snapshot]) -> bool:
        """Cache folded states; False (and nothing raised) when the file cannot take them now
        (read-only, or locked past the busy timeout): a cache must never fail a command."""
        try:
            with self._transaction():
                self.conn.executemany(
                    "INSERT OR REPLACE INTO snapshots(event_id, projection, version, depth, state) "
                    "VALUES (?, ?, ?, ?, ?)",
                    [(s.event_id, projection, version, s.depth, s.state) for s in snapshots],
                )
        except (StoreError, sqlite3.DatabaseError):
            return False
        return True

    def drop_snapshots(self) -> int:
        """Delete every cached state (they are rebuilt as commands read and append)."""
        with self._transaction():
            return self.conn.execute("DELETE FROM snapshots").rowcount

    def all_events(self, encounter_id: int) -> Iterator[EventRow]:
        rows = self.conn.execute(
            f"SELECT {EVENT_COLUMNS} "
            "FROM events WHERE encounter_id = ? ORDER BY id",
            (encounter_id,),
        )
        return (EventRow(*r) for r in rows)

    def events_of_kind(self, encounter_id: int, kind: str) -> list[EventRow]:
        """The encounter's events of one kind (its notes, say), in order."""
        rows = self.conn.execute(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE encounter_id = ? AND kind = ? ORDER BY id",
            (encounter_id, kind),
        )
        return [EventRow(*r) for r in rows]

    def commands(self, encounter_id: int) -> dict[int, CommandRow]:
        rows = self.conn.execute(
            "SELECT id, branch, text, body, recorded_at, hash FROM commands WHERE encounter_id = ?",
            (encounter_id,),
        )
        return {r[0]: CommandRow(*r) for r in rows}

    def command(self, command_id: int) -> CommandRow:
        row = self.conn.execute(
            "SELECT id, branch, text, body, recorded_at, hash FROM commands WHERE id = ?", (command_id,)
        ).fetchone()
        return CommandRow(*row)

    def first_event(self, encounter_id: int) -> EventRow:
        """The encounter's root: the first event appended, by ``create_encounter``."""
        row = self.conn.execute(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE encounter_id = ? ORDER BY id LIMIT 1",
            (encounter_id,),
        ).fetchone()
        return EventRow(*row)

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
    ) -> list[int]:
        """Append one command's events on ``expected.branch``, if its head is still ``expected``."""
        now = _now()
        with self._transaction():
            self._check_head(encounter_id, expected)
            parent = self.conn.execute(
                "SELECT hash FROM events WHERE id = ?", (expected.event_id,)
            ).fetchone()[0]
            cmd = self._insert_command(encounter_id, expected.branch, command_text, command_body, now)
            ids = self._insert_events(encounter_id, expected.event_id, parent, cmd, events, now)
            self._insert_move(
                encounter_id, expected.branch, expected.seq + 1, expected.event_id, ids[-1],
                "append", cmd, now,
            )
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
        with self._transaction():
            if expected is None:
                taken = self.conn.execute(
                    "SELECT 1 FROM head_moves WHERE encounter_id = ? AND branch = ? LIMIT 1", (encounter_id, branch)
                ).fetchone()
                if taken:
                    raise BadInput(f"a branch named {branch!r} already exists")
                seq, current = 0, None
            else:
                self._check_head(encounter_id, expected)
                seq, current = expected.seq, expected.event_id
            cmd = self._insert_command(encounter_id, branch, command_text, command_body, now)
            for target in targets:
                seq += 1
                self._insert_move(encounter_id, branch, seq, current, target, reason, cmd, now)
                current = target

    def _check_head(self, encounter_id: int, expected: Head) -> None:
        now_at = self.head(encounter_id, expected.branch)
        if now_at != expected:
            raise HeadMoved(
                f"branch {expected.branch!r} moved to event {now_at.event_id} while this command "
                "was decided (another writer): nothing was recorded, run the command again"
            )

    def _insert_command(
        self, encounter_id: int, branch: str, text: str, body: bytes, now: str
    ) -> CommandRow:
        next_id = self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM commands").fetchone()[0]
        row = CommandRow(next_id, branch, text, body.decode(), now, "")
        row = row._replace(hash=command_hash(encounter_id, row))
        self.conn.execute(
            "INSERT INTO commands(id, encounter_id, branch, text, body, recorded_at, hash) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row.id, encounter_id, *row[1:]),
        )
        return row

    def _insert_events(
        self,
        encounter_id: int,
        parent_id: int | None,
        parent_hash: str | None,
        cmd: CommandRow,
        events: Sequence[NewEvent],
        now: str,
    ) -> list[int]:
        next_id = self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM events").fetchone()[0]
        rows = []
        for offset, ev in enumerate(events):
            row = EventRow(next_id + offset, parent_id, cmd.id, ev.kind, ev.version, ev.body.decode(), now, "")
            row = row._replace(hash=event_hash(encounter_id, row, parent_hash, cmd.hash))
            rows.append((row.id, encounter_id, *row[1:]))
            parent_id, parent_hash = row.id, row.hash
        self.conn.executemany(
            "INSERT INTO events(id, encounter_id, parent_id, command_id, kind, version, body, "
            "recorded_at, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        return [r[0] for r in rows]

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
    ) -> None:
        prev = self.conn.execute(
            "SELECT hash FROM head_moves WHERE encounter_id = ? ORDER BY id DESC LIMIT 1",
            (encounter_id,),
        ).fetchone()
        to_hash = self.conn.execute("SELECT hash FROM events WHERE id = ?", (to_event,)).fetchone()[0]
        next_id = self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM head_moves").fetchone()[0]
        move = HeadMove(next_id, branch, seq, from_event, to_event, reason, cmd.id, now, "")
        move = move._replace(hash=move_hash(encounter_id, move, prev[0] if prev else None, cmd.hash, to_hash))
        try:
            self.conn.execute(
                "INSERT INTO head_moves(id, encounter_id, branch, seq, from_event, to_event, reason, "
                "command_id, recorded_at, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (move.id, encounter_id, *move[1:]),
            )
        except sqlite3.IntegrityError as exc:
            raise HeadMoved(
                f"branch {branch!r} moved while this command was decided (another writer): "
                "nothing was recorded, run the command again"
            ) from exc

    class _Txn:
        """BEGIN IMMEDIATE ... COMMIT: the write lock is taken before the head is checked, so
        no other writer can move it between the check and the insert, and waiting for the
        lock happens at BEGIN (under the busy timeout), never half-way through a command."""

        def __init__(self, conn: _Connection, path: str) -> None:
            self.conn, self.file = conn, path
            self.nested = False

        def __enter__(self) -> None:
            if self.conn.in_transaction:
                # Inside batch(): a savepoint, so a refused command rolls back alone and the
                # batch goes on.
                self.nested = True
                self.conn.execute("SAVEPOINT command")
                return
            self.conn.writing = True
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except BaseException:
                self.conn.writing = False
                raise

        def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
            if self.nested:
                if exc_type is not None and self.conn.in_transaction:
                    self.conn.execute("ROLLBACK TO command")
                if self.conn.in_transaction:
                    self.conn.execute("RELEASE command")
                return
            try:
                if exc_type is None:
                    self.conn.execute("COMMIT")
                    return
                self._rollback()
            except BaseException:
                self._rollback()
                raise
            finally:
                self.conn.writing = False
            if isinstance(exc, sqlite3.OperationalError):
                raise StoreError(f"{self.file} cannot be written: {exc}") from exc

        def _rollback(self) -> None:
            # SQLite may already have rolled back (a full disk, an I/O error): a second
            # ROLLBACK would raise and hide the error that matters.
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")

    def _transaction(self) -> Store._Txn:
        return Store._Txn(self.conn, self.file)

    def restore(
        self,
        encounter: EncounterRow,
        commands: Sequence[CommandRow],
        events: Sequence[EventRow],
        moves: Sequence[HeadMove],
        expect: str | None = None,
    ) -> str:
        """Insert an exported encounter's rows exactly as they were, in one transaction;
        verify them before committing and make the encounter current. Return its digest.

        Ids and hashes are kept as they are (every hash covers its row's id), so none
        may be taken in this database already: the rows are refused, nothing written.
        """
        with self._transaction():
            if self.conn.execute("SELECT 1 FROM encounters WHERE name = ?", (encounter.name,)).fetchone():
                raise BadInput(f"an encounter named {encounter.name!r} already exists in {self.file}")
            for table, ids in (
                ("encounters", [encounter.id]),
                ("commands", [c.id for c in commands]),
                ("events", [e.id for e in events]),
                ("head_moves", [m.id for m in moves]),
            ):
                taken = self.conn.execute(
                    f"SELECT min(id) FROM {table} WHERE id IN (SELECT value FROM json_each(?))",
                    (json.dumps(ids),),
                ).fetchone()[0]
                if taken is not None:
                    raise BadInput(
                        f"{table} id {taken} is taken in {self.file} by another encounter: ids are "
                        "part of the hash chain, import into a new database (--db)"
                    )
            enc = encounter.id
            # Links are checked by verify below, which names the row at fault; the foreign
            # keys still hold at commit.
            self.conn.execute("PRAGMA defer_foreign_keys = ON")
            try:
                self.conn.execute(
                    "INSERT INTO encounters(id, name, ruleset, created_at) VALUES (?, ?, ?, ?)", encounter
                )
                self.conn.executemany(
                    "INSERT INTO commands(id, encounter_id, branch, text, body, recorded_at, hash) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(c.id, enc, *c[1:]) for c in commands],
                )
                self.conn.executemany(
                    f"INSERT INTO events(encounter_id, {EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(enc, *e) for e in sorted(events)],
                )
                self.conn.executemany(
                    "INSERT INTO head_moves(id, encounter_id, branch, seq, from_event, to_event, reason, "
                    "command_id, recorded_at, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(m.id, enc, *m[1:]) for m in moves],
                )
            except sqlite3.IntegrityError as exc:
                raise TamperedLog(f"the rows do not hold together: {exc}") from exc
            digest = self.verify(enc)
            if expect is not None and digest != expect:
                raise TamperedLog(f"the rows verify to digest {digest}, not the {expect} they were exported with")
            self.conn.execute(
                "INSERT INTO settings(key, value) VALUES ('encounter', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (encounter.name,),
            )
        return digest

    def batch(self) -> Store._Txn:
        """Many commands in one transaction, as an import appends them: one sync to disk for
        all of them; each command inside is still checked, and refused alone."""
        return self._transaction()

    # --- audit --------------------------------------------------------------------------------

    def verify(self, encounter_id: int) -> str:
        """Recompute every hash of the encounter; return a digest of the whole log.

        Raises TamperedLog naming the first event (in the order events were recorded)
        that was altered, removed or re-ordered, or the first other row that does not
        match its hash: every row is checked, and the earliest fault is the one named.
        """
        faults: list[tuple[float, str]] = []  # (position in the event order, message)

        def fault(at: float, message: str) -> None:
            faults.append((at, message))

        cmds = self.commands(encounter_id)
        events = list(self.all_events(encounter_id))
        present = {e.id: e for e in events}
        first_of: dict[int, int] = {}
        for e in events:
            first_of.setdefault(e.command_id, e.id)
        moves = self.head_moves(encounter_id)
        for m in moves:
            first_of.setdefault(m.command_id, m.to_event)
        for c in cmds.values():
            if command_hash(encounter_id, c) != c.hash:
                fault(first_of.get(c.id, 0), f"command {c.id} ({c.text!r}) was altered after it was recorded")
        enc = self.conn.execute(
            "SELECT name, ruleset FROM encounters WHERE id = ?", (encounter_id,)
        ).fetchone()
        hashes: dict[int, str] = {}
        by_command: dict[int, list[EventRow]] = {}
        for e in events:
            if e.parent_id is None:
                # The encounter's row is not chained: its first event is, and must agree.
                first = json.loads(e.body)
                if [first.get("name"), first.get("ruleset")] != list(enc):
                    fault(e.id, f"the encounters row ({enc[0]!r}, {enc[1]}) does not match its first event {e.id}")
            elif e.parent_id not in present:
                fault(e.parent_id, f"event {e.parent_id} was removed: event {e.id} follows it")
            elif e.parent_id >= e.id:
                fault(e.id, f"event {e.id} ({e.kind}) was re-ordered: it follows event {e.parent_id}, "
                           "which is not recorded before it")
            by_command.setdefault(e.command_id, []).append(e)
            cmd = cmds.get(e.command_id)
            if cmd is None:
                fault(e.id, f"event {e.id} names command {e.command_id}, which is missing")
                continue
            parent_hash = present[e.parent_id].hash if e.parent_id in present else None
            if event_hash(encounter_id, e, parent_hash, cmd.hash) != e.hash:
                fault(e.id, f"event {e.id} ({e.kind}) was altered or re-ordered after it was recorded")
            hashes[e.id] = e.hash
        previous: str | None = None
        import hashlib

        digest = hashlib.sha256()
        moved: set[int] = set()
        for m in moves:
            moved.add(m.command_id)
            cmd = cmds.get(m.command_id)
            for end in (m.from_event, m.to_event):
                if end is not None and end not in present:
                    fault(end, f"event {end} was removed: head move {m.id} ({m.reason} on {m.branch}) "
                               "points at a missing event")
            if cmd is None:
                fault(m.to_event, f"head move {m.id} ({m.reason} on {m.branch}) points at a missing command")
            elif m.to_event in present and move_hash(
                encounter_id, m, previous, cmd.hash, present[m.to_event].hash
            ) != m.hash:
                fault(m.to_event + 0.5, f"head move {m.id} ({m.reason} on {m.branch}) was altered, removed or "
                                       f"re-ordered: it moves the head to event {m.to_event}")
            previous = m.hash
            digest.update(m.hash.encode())
            if m.reason in ("append", "start") and cmd is not None:
                # A command's events are exactly one chain from where the head was to
                # where it moved: an event slipped in beside them, reusing the command's
                # hash, breaks this.
                chain = by_command.pop(m.command_id, [])
                links = [e.parent_id for e in chain]
                ids = [m.from_event, *(e.id for e in chain[:-1])]
                if not chain or links != ids or chain[-1].id != m.to_event:
                    odd = next((e.id for e, want in zip(chain, ids, strict=False) if e.parent_id != want), m.to_event)
                    fault(odd, f"the events of command {m.command_id} ({cmd.text!r}) are not the chain "
                               f"from #{m.from_event} to #{m.to_event}: one was added, removed or moved")
        for command_id, chain in by_command.items():
            fault(chain[0].id, f"event {chain[0].id} was never appended by a head move (command {command_id})")
        # Every command moves a head; the chain's last move has no successor to break, so
        # its removal shows only as a command left without one.
        for c in cmds.values():
            if c.id not in moved:
                fault(first_of.get(c.id, float("inf")), f"command {c.id} ({c.text!r}) has no head move: one was removed")
        if faults:
            raise TamperedLog(min(faults, key=lambda f: f[0])[1])
        # Leaves no head move points at (never happens by append) would escape the move chain.
        for event_id, h in hashes.items():
            digest.update(f"{event_id}:{h}".encode())
        return digest.hexdigest()
