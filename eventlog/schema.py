"""The schema: three append-only tables of the log, a snapshot cache, made by named, ordered migrations.

Three append-only tables hold the truth: ``commands`` (the GM's intent as parsed),
``events`` (each a child of its parent event) and ``head_moves`` (every append, undo,
redo, fork and switch, as a move of one branch's head). Triggers refuse UPDATE and
DELETE on all three (and on ``encounters``). A branch's head is the ``to_event`` of its
latest head move; the UNIQUE (encounter, branch, seq) index means two writers can never
both move one head from the same place, so a branch never forks silently.

A fourth table, ``snapshots``, is a cache and nothing more (eventlog/snapshots.py).

The schema is made by named, ordered migrations (sqlite-utils' Migrations), recorded in
the file (``_sqlite_migrations``, and their number as PRAGMA user_version). sqlite-utils
is imported only when a database needs migrating: every other command opens the file
with nothing but sqlite3.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, cast

from skirmish.eventlog.errors import StoreError

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    import sqlite_utils

    from contextlib import AbstractContextManager

    # Only for the type checker: every command imports this module, none needs the class.
    class _Executes(Protocol):
        """What a migration uses of its database: sqlite-utils' Database, or a plain sqlite3
        connection where a new file is made without sqlite-utils (`_make_new`)."""

        def execute(self, sql: str, parameters: Any = (), /) -> Any: ...

    class Connection(_Executes, Protocol):
        """What the schema uses of skirmish's connection (eventlog/connection.py, which
        imports this module): its file's name, statements, and a write transaction."""

        file: str

        def transaction(self) -> AbstractContextManager[Any]: ...


IMMUTABLE_TABLES = ("encounters", "commands", "events", "head_moves")


def _event_tree(db: _Executes) -> None:
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

def _readable_views(db: _Executes) -> None:
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

def _snapshots(db: _Executes) -> None:
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

def _lookups(db: _Executes) -> None:
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

def _flat(db: _Executes) -> None:
    # The notes (and any one kind of event) without a scan of the log; the branches in
    # the order they were made (each one's first head move is its seq 1) without a
    # scan of every head move.
    db.execute("CREATE INDEX events_by_kind ON events(encounter_id, kind, id)")
    db.execute("CREATE INDEX head_moves_branch_starts ON head_moves(encounter_id, id) WHERE seq = 1")
    # The views, read as the store reads: a branch's head is one lookup, and which
    # branches hold an event comes from their paths' runs of ids (eventlog/shape.py),
    # walked over the jumps, never event by event from every head to the root.
    db.execute("DROP VIEW branches")
    db.execute(f"CREATE VIEW branches AS {_BRANCHES}")
    # A migration is history: the view's columns are stated again, as 0002 left them.
    db.execute("DROP VIEW timeline")
    db.execute(f"""
            CREATE VIEW timeline AS
            WITH RECURSIVE heads AS ({_BRANCHES}),
            runs(encounter_id, branch, low, high) AS (
                SELECT e.id, heads.branch, (SELECT max(j.id) FROM events j INDEXED BY events_jumps
                                            WHERE j.parent_id IS NOT j.id - 1 AND j.id <= heads.head), heads.head
                FROM heads JOIN encounters e ON e.name = heads.encounter
                UNION ALL
                SELECT runs.encounter_id, runs.branch,
                       (SELECT max(j.id) FROM events j INDEXED BY events_jumps
                        WHERE j.parent_id IS NOT j.id - 1 AND j.id <= p.parent_id), p.parent_id
                FROM runs JOIN events p ON p.id = runs.low WHERE p.parent_id IS NOT NULL
            )
            SELECT ev.id, e.name AS encounter,
                   (SELECT group_concat(runs.branch, ', ') FROM runs
                    WHERE runs.low = (SELECT max(j.id) FROM events j INDEXED BY events_jumps
                                      WHERE j.parent_id IS NOT j.id - 1 AND j.id <= ev.id)
                      AND runs.high >= ev.id AND runs.encounter_id = ev.encounter_id) AS branches,
                   ev.parent_id AS parent, ev.kind,
                   coalesce(json_extract(ev.body, '$.who'),
                            CASE ev.kind WHEN 'combatant-added' THEN json_extract(ev.body, '$.name') END) AS who,
                   json_extract(ev.body, '$.action') AS action,
                   json_extract(ev.body, '$.target') AS target,
                   coalesce(json_extract(ev.body, '$.outcome'),
                            CASE ev.kind WHEN 'note-added' THEN json_extract(ev.body, '$.text') END) AS text,
                   c.text AS command, ev.body, ev.recorded_at
            FROM events ev JOIN encounters e ON e.id = ev.encounter_id
            JOIN commands c ON c.id = ev.command_id""")
    # Each count in one pass over the log, not one pass a combatant.
    db.execute("DROP VIEW combatants")
    db.execute("""
            CREATE VIEW combatants AS
            WITH declared AS (
                SELECT encounter_id, lower(json_extract(body, '$.who')) AS who, count(*) AS n FROM commands
                WHERE json_extract(body, '$.type') = 'declare' GROUP BY 1, 2
            ),
            named AS (
                SELECT encounter_id, json_extract(body, '$.who') AS who, count(*) AS n FROM events GROUP BY 1, 2
            )
            SELECT e.name AS encounter, json_extract(ev.body, '$.name') AS name,
                   json_extract(ev.body, '$.side') AS side, json_extract(ev.body, '$.stats') AS stats,
                   ev.id AS added_at, coalesce(d.n, 0) AS declarations, coalesce(x.n, 0) AS events
            FROM events ev INDEXED BY events_by_kind JOIN encounters e ON e.id = ev.encounter_id
            LEFT JOIN declared d ON d.encounter_id = ev.encounter_id AND d.who = lower(json_extract(ev.body, '$.name'))
            LEFT JOIN named x ON x.encounter_id = ev.encounter_id AND x.who = json_extract(ev.body, '$.name')
            WHERE ev.kind = 'combatant-added'""")


# The migrations in order, by the names recorded in the file.
_MIGRATIONS: tuple[tuple[str, Callable[[_Executes], None]], ...] = (
    ("0001_event_tree", _event_tree),
    ("0002_readable_views", _readable_views),
    ("0003_snapshots", _snapshots),
    ("0004_lookups_that_stay_flat", _lookups),
    ("0005_flat_at_a_million", _flat),
)


def _migration_set() -> sqlite_utils.Migrations:
    from sqlite_utils import Migrations

    migrations = Migrations("skirmish")
    for name, fn in _MIGRATIONS:
        migrations(name=name)(fn)
    return migrations


# Each branch's head: its latest head move, found from its first (seq 1) in one lookup.
_BRANCHES = """
    SELECT e.name AS encounter, s.branch, m.to_event AS head, m.seq AS moves
    FROM head_moves s INDEXED BY head_moves_branch_starts JOIN encounters e ON e.id = s.encounter_id
    JOIN head_moves m ON m.encounter_id = s.encounter_id AND m.branch = s.branch
     AND m.seq = (SELECT max(seq) FROM head_moves WHERE encounter_id = s.encounter_id AND branch = s.branch)
    WHERE s.seq = 1"""

SCHEMA_VERSION = 5  # the number of migrations above; stored as PRAGMA user_version

# What the migrations above make that guards the log or that queries name (INDEXED BY):
# `verify` reports any of them missing as tampering with the schema.
TRIGGERS = tuple(f"{table}_refuse_{verb}" for table in IMMUTABLE_TABLES for verb in ("update", "delete"))
INDEXES = (
    "events_by_parent", "events_by_encounter", "head_moves_by_encounter", "events_by_command", "events_jumps",
    "head_moves_switches", "events_by_kind", "head_moves_branch_starts",
)


def missing(conn: Connection) -> list[str]:
    """The append-only triggers and the indexes the migrations made that are not in the file
    (dropped: tampering, or another program's doing), as "trigger NAME" / "index NAME"."""
    there = {(kind, name) for kind, name in conn.execute(
        "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'index')")}
    return [f"trigger {name}" for name in TRIGGERS if ("trigger", name) not in there] + [
        f"index {name}" for name in INDEXES if ("index", name) not in there
    ]


def tampered(file: str, gone: list[str]) -> str:
    """The one line that says the schema was tampered with: what is missing."""
    return (f"the schema of {file} was tampered with: {', '.join(gone)} missing (the log's guards "
            "and lookups as skirmish made them are not all there)")


def prepare(conn: Connection) -> None:
    """Make or migrate the schema of a new or older file; refuse another program's file, or
    a newer skirmish's."""
    try:
        # A file of ours at this schema in two reads (what nearly every opening finds): its
        # version, and skirmish's migration record. Any other version, or no record (no such
        # table: another program's file, a new one), is looked at the long way below.
        if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION and conn.execute(
            "SELECT EXISTS (SELECT 1 FROM _sqlite_migrations WHERE migration_set = 'skirmish')"
        ).fetchone()[0]:
            return
    except sqlite3.OperationalError as exc:
        if not str(exc).startswith("no such table"):
            raise
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
        raise StoreError(f"{conn.file} is a SQLite database of another program, not skirmish's")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{conn.file} was written by a newer skirmish (schema {version}, this one "
            f"knows {SCHEMA_VERSION}): upgrade skirmish to read it"
        )
    if version < SCHEMA_VERSION:
        _migrate(conn)


def _migrate(conn: Connection) -> None:
    if conn.file != ":memory:":
        # WAL lets readers run beside the one writer. The mode is kept in the file, so
        # it is set once, here, and a read-only file can still be read later.
        conn.execute("PRAGMA journal_mode = WAL")
    # Under the write lock, so that two processes creating one file at once do not
    # both migrate it: the second waits, then finds the schema made.
    with conn.transaction():
        if conn.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
            return
        try:
            if conn.execute("SELECT EXISTS (SELECT 1 FROM sqlite_master)").fetchone()[0]:
                import sqlite_utils

                # skirmish's Connection is a sqlite3.Connection (eventlog/connection.py)
                _migration_set().apply(sqlite_utils.Database(cast(sqlite3.Connection, conn)))
            else:
                _make_new(conn)
        except sqlite3.OperationalError as exc:
            raise StoreError(f"{conn.file} cannot be migrated: {exc}") from exc
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


# The migration record as sqlite-utils' Migrations makes it (its table and unique index,
# word for word), so a file made by `_make_new` is one sqlite-utils migrates on.
_RECORD_TABLE = (
    'CREATE TABLE "_sqlite_migrations" (\n   "id" INTEGER PRIMARY KEY,\n   "migration_set" TEXT,\n'
    '   "name" TEXT,\n   "applied_at" TEXT\n)'
)
_RECORD_INDEX = (
    'CREATE UNIQUE INDEX "idx__sqlite_migrations_migration_set_name"\n'
    '    ON "_sqlite_migrations" ("migration_set", "name")'
)


def _make_new(conn: Connection) -> None:
    """A new, empty file's schema without importing sqlite-utils: the migrations' own DDL run
    in their order on the plain connection, with the same record of each, in the same order,
    that sqlite-utils would write (tests/eventlog/test_schema_new_file.py compares the two)."""
    import datetime

    conn.execute(_RECORD_TABLE)
    conn.execute(_RECORD_INDEX)
    for name, fn in _MIGRATIONS:
        fn(conn)
        conn.execute(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('skirmish', ?, ?)",
            (name, str(datetime.datetime.now(datetime.timezone.utc))),
        )
