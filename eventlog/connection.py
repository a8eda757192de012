"""The SQLite file as the store holds it open: durability, one transaction per command, errors.

Durability: journal_mode WAL (set once, when the schema is made) with synchronous FULL.
- One command is one transaction (BEGIN IMMEDIATE ... COMMIT): a process killed
  mid-command leaves WAL frames with no commit record, which the next opener ignores,
  so a command is wholly in or wholly out (tests/log/test_crashes.py kills writers at
  random to hold this).
- FULL syncs the WAL at every commit: once a command has printed its events it
  survives a power loss too, not just a killed process. NORMAL would keep the file
  consistent but could lose the last commands on power loss; a log that settles
  disputes must not forget a call the table saw recorded, and one fsync per command is
  far below a GM's typing speed.
- WAL rather than a rollback journal: readers (state, log, a second GM's screen) never
  block the one writer, nor it them, and a commit is one sequential append.
- The last connection to close checkpoints the WAL into the file and removes it, so the
  .db file alone, copied between commands, holds every command.

What a write syncs (`strace -e trace=fdatasync skirmish next`): five fdatasyncs. The WAL is
made anew by each command (the close removed the last one): its header is synced as it is
written (at any `synchronous` but OFF), then the folder (the new file's entry), then the
commit (FULL); the close's checkpoint syncs the WAL again before copying its pages into
the file (a no-op after a FULL commit, but SQLite cannot know) and the file after. No setting Python 3.11's sqlite3 reaches syncs less and keeps both promises:
NORMAL drops only the commit's sync, leaving the command to the checkpoint after its
reply is printed (and shown to other readers before it is on disk); OFF drops the
checkpoint's syncs too, so a power loss after the WAL is removed could lose pages the file
never got; keeping the WAL between commands (SQLITE_FCNTL_PERSIST_WAL), which would spare
the new file's header and folder syncs, is a file control Python does not expose.

Appends and reads use the sqlite3 connection directly (sqlite-utils only migrates), to
keep each command's process start short and to control the transaction exactly. Every
SQLite error that blames the file, the disk or another process is translated here, at
the store's boundary, into one StoreError line; the rest are skirmish's own to handle.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from skirmish.eventlog import marker, schema
from skirmish.eventlog.errors import LockHeld, StoreError, TamperedLog

# How long a command waits for another writer's transaction (each lasts milliseconds) before
# giving up with a StoreError: long enough for a queue of writers, short enough for a GM.
BUSY_TIMEOUT_MS = 10_000

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


class Connection(sqlite3.Connection):
    """A connection whose file, disk and lock errors are StoreErrors (translated at the
    store's boundary, raised from the sqlite3 error), never a raw sqlite3 exception."""

    file = ""
    writing = False  # inside a command's write transaction: the message says nothing was recorded
    holding_a_moment = False  # inside reading(): a cache write would take the write lock for the whole read
    after_reading: list[Callable[[], object]]  # what waits for reading() to end: the caches it folded

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        try:
            return super().execute(sql, parameters)
        except sqlite3.Error as exc:
            raise self.translate(exc)  # noqa: B904 - translate chains it

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        try:
            return super().executemany(sql, parameters)
        except sqlite3.Error as exc:
            raise self.translate(exc)  # noqa: B904 - translate chains it

    def translate(self, exc: sqlite3.Error) -> Exception:
        """``exc`` as a StoreError raised from it, when it blames the file, the disk or another
        process; else ``exc`` itself: skirmish's own doing (a constraint, a trigger), the
        caller's to handle."""
        code = getattr(exc, "sqlite_errorcode", None)
        why = _WHY.get(code & 0xFF) if code is not None else None
        if why is None:
            if str(exc).startswith("no such index: "):
                # An index a query names (INDEXED BY) was dropped: the schema was tampered
                # with, not a bug of skirmish's.
                tampered = TamperedLog(schema.tampered(self.file, [f"index {str(exc)[len('no such index: '):]}"])
                                       + ": `skirmish verify` names what else is")
                tampered.__cause__, tampered.__suppress_context__ = exc, True
                return tampered
            return exc
        if self.writing:
            error = StoreError(f"{self.file} cannot be written: {exc} ({why}): nothing was recorded")
        else:
            error = StoreError(f"{self.file} cannot be read: {exc} ({why})")
        error.__cause__, error.__suppress_context__ = exc, True  # as `raise error from exc`
        return error

    def transaction(self) -> Transaction:
        """One command's write transaction (a savepoint inside another one)."""
        return Transaction(self)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Several reads seen at one moment: another writer's commit in between is not seen
        by any of them (WAL keeps the snapshot the first read took)."""
        if self.in_transaction:  # inside a write: it sees one moment already
            yield
            return
        self.execute("BEGIN")
        self.holding_a_moment = True
        self.after_reading = []
        try:
            yield
        finally:
            self.holding_a_moment = False
            if self.in_transaction:
                self.execute("COMMIT")  # nothing was written: ends the read, never fails it
            waiting, self.after_reading = self.after_reading, []
            for then in waiting:
                then()


class Transaction:
    """BEGIN IMMEDIATE ... COMMIT: the write lock is taken before the head is checked, so
    no other writer can move it between the check and the insert, and waiting for the
    lock happens at BEGIN (under the busy timeout), never half-way through a command."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
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
            # A `run` script holds the lock for as long as it runs: its marker names it,
            # and a writer that finds one is answered at once (eventlog/marker.py).
            held = marker.holder(self.conn.file)
            if held is not None:
                self._begin_beside(held)
            else:
                self.conn.execute("BEGIN IMMEDIATE")
        except LockHeld:
            self.conn.writing = False
            raise
        except StoreError as exc:
            self.conn.writing = False
            held = marker.holder(self.conn.file) if is_busy(exc) else None
            if held is not None:  # a script took the lock while this writer waited
                raise LockHeld(held.says(self.conn.file)) from exc.__cause__
            raise
        except BaseException:
            self.conn.writing = False
            raise

    def _begin_beside(self, held: marker.Holder) -> None:
        """BEGIN IMMEDIATE without waiting: taken if the lock is free (the script is ending,
        or the marker's pid is another process now), else LockHeld naming the script."""
        self.conn.execute("PRAGMA busy_timeout = 0")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except StoreError as exc:
            if is_busy(exc):
                raise LockHeld(held.says(self.conn.file)) from exc.__cause__
            raise
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_MS)}")

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
            raise StoreError(f"{self.conn.file} cannot be written: {exc}") from exc

    def _rollback(self) -> None:
        # SQLite may already have rolled back (a full disk, an I/O error): a second
        # ROLLBACK would raise and hide the error that matters.
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")


DEFAULT_DB = "skirmish.db"  # the database a command opens without --db or SKIRMISH_DB

# The files of one database: the file itself and those SQLite keeps beside it, by suffix.
FILES = {
    "": "the database",
    "-wal": "the database's write-ahead log",
    "-shm": "the database's shared-memory index",
    "-journal": "the database's rollback journal",
}


def file_of(database: str, path: str) -> str | None:
    """What ``path`` is to ``database`` (one of FILES' descriptions), however either is
    spelled or linked to (hard links and symlinks alike); None when it is none of its
    files. SQLite names the companions after the database's real path, so both count."""
    if database == ":memory:":
        return None
    for base in dict.fromkeys((database, os.path.realpath(database))):
        for suffix, what in FILES.items():
            if _same_file(path, base + suffix):
                return what
    return None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one is not there (a -wal between sessions): where would it be
        return os.path.realpath(a) == os.path.realpath(b)


def connect(path: str, *, create: bool) -> Connection:
    """Open ``path`` as a skirmish database, made or migrated to the current schema."""
    if not path.strip():
        raise StoreError("the database path is empty: give --db a file name")
    if path != ":memory:" and not os.path.exists(path) and not create:
        raise StoreError(
            f"no skirmish database at {path}: start one with `skirmish new NAME --rules RULESET`"
        )
    how = _read_only(path)
    try:
        try:
            return _open(path, how)
        except StoreError as exc:
            # A WAL file in a folder it cannot write: SQLite can read it read-only only where
            # its -shm is there to share, else as immutable (nothing can change it there).
            if how != "ro" or not _cannot_open(exc) or _has_wal(path):
                raise
            return _open(path, "immutable")
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} cannot be used as a skirmish database: {exc}") from exc


def _open(path: str, how: str | None) -> Connection:
    if how is None:
        conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, factory=Connection)
    else:
        from urllib.parse import quote

        target = f"file:{quote(os.path.abspath(path))}?{'mode=ro' if how == 'ro' else 'immutable=1'}"
        conn = sqlite3.connect(target, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, factory=Connection, uri=True)
    assert isinstance(conn, Connection)
    conn.file = path
    try:
        _configure_when_free(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _read_only(path: str) -> str | None:
    """"ro" when skirmish cannot write the file, or the folder its -wal and -shm go in (an
    archive, a read-only mount, another user's log): it is opened read-only, so it is read,
    never refused as "unable to open". None: opened as usual."""
    if path == ":memory:" or not os.path.exists(path):
        return None
    folder = os.path.dirname(os.path.abspath(path))
    companions = all(os.path.exists(path + suffix) for suffix in ("-wal", "-shm"))
    if not os.access(path, os.W_OK) or (not os.access(folder, os.W_OK) and not companions):
        return "ro"
    return None


def _cannot_open(exc: StoreError) -> bool:
    code = getattr(exc.__cause__, "sqlite_errorcode", 0) or 0
    return code & 0xFF == sqlite3.SQLITE_CANTOPEN


def _has_wal(path: str) -> bool:
    """A -wal with frames in it: what an immutable open would not read."""
    try:
        return os.path.getsize(path + "-wal") > 0
    except OSError:
        return False


def is_busy(exc: StoreError) -> bool:
    """Whether ``exc`` is SQLite's "database is locked": another process holds the lock."""
    cause = exc.__cause__
    return isinstance(cause, sqlite3.OperationalError) and getattr(
        cause, "sqlite_errorcode", 0
    ) & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _configure_when_free(conn: Connection) -> None:
    """Configure, retrying while another process is turning a new file to WAL or
    migrating it: in those moments SQLite answers "database is locked" at once, without
    waiting out the busy timeout, so the wait is done here, up to the same timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            configure(conn)
            return
        except StoreError as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def configure(conn: Connection) -> None:
    """The schema made or migrated, and the durability settings (module docstring). The busy
    timeout is set by sqlite3.connect's ``timeout`` (sqlite3_busy_timeout, no statement); the
    WAL journal mode is kept in the file (set once, by the first migration)."""
    schema.prepare(conn)
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
