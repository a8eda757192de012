"""Who holds a file's write lock for long: the marker a `run` script keeps beside the database.

A script's lines are one write transaction (all or nothing), so it holds the file's write
lock for as long as it runs: minutes for a long one. Another writer would wait out the busy
timeout and fail with SQLite's "database is locked", knowing neither why nor for how long.
So while it holds the lock the script keeps a small file beside the database, DB-script
(JSON: its pid, the script, when it started, the line it is at of how many), rewritten
as it goes (at most every :data:`EVERY` seconds: the line it names may be a little behind).
A writer that finds a marker of a live process and the lock taken answers at once, naming
the script (eventlog/connection.py ``Transaction``).

The marker is written only under the write lock, after BEGIN IMMEDIATE, and removed
before the transaction ends, so two scripts never write one at once and a script never
removes another's. One left behind by a process that is gone (SIGKILL, a power loss) is
stale: no writer heeds it and the next script replaces it. A live pid is one
`os.kill(pid, 0)` finds; were a stale marker's pid reused, a writer still takes a lock
that is free (it tries before it answers), so a stale marker never blocks anyone.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import datetime

import msgspec

SUFFIX = "-script"  # beside the database, as SQLite keeps -wal and -shm
EVERY = 0.25  # seconds between rewrites of the line reached: a script's lines take a millisecond or two


class Holder(msgspec.Struct, frozen=True):
    """A live process holding the file's write lock for a script, as its marker says."""

    pid: int
    script: str
    started: str  # ISO 8601, local time
    line: int  # the line it is at (1 is the first)
    lines: int | None  # the script's lines, counted as it started (None: not a plain file, e.g. a pipe)

    def says(self, database: str) -> str:
        """The one line another writer is answered with (the error's message)."""
        of = f" of {max(self.lines, self.line):,}" if self.lines is not None else ""
        since = self.started[11:19]
        return (f"a script ({self.script}, line {self.line:,}{of}, pid {self.pid}, started {since}) holds "
                f"{database}'s write lock until it ends: nothing was recorded; try again then")


def path_of(database: str) -> str:
    """The marker's path: beside the database's real path, whichever way it is spelled."""
    return os.path.realpath(database) + SUFFIX


def holder(database: str) -> Holder | None:
    """The live process, other than this one, that the marker beside ``database`` names; None
    where there is no marker, it cannot be read, or its process is gone (stale)."""
    if database == ":memory:":
        return None
    try:
        with open(path_of(database), "rb") as file:
            raw = file.read(64 * 1024)
    except OSError:  # none (what nearly every write finds), or not ours to read
        return None
    try:
        found = msgspec.json.decode(raw, type=Holder)
    except msgspec.DecodeError:
        return None  # not a marker of ours: the writer waits as it always did
    if found.pid == os.getpid() or not _alive(found.pid):
        return None
    return found


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process is there
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # there, another user's
    except OSError:
        return False
    return True


class _Marker:
    """The marker this process keeps, and when it last wrote it."""

    def __init__(self, path: str, script: str, lines: int | None) -> None:
        self.path, self.aside = path, f"{path}.{os.getpid()}"
        self.script, self.lines = script, lines
        self.started = datetime.now().isoformat(timespec="seconds")
        self.line = 1
        self.written = 0.0

    def write(self) -> None:
        body = msgspec.json.encode(Holder(os.getpid(), self.script, self.started, self.line, self.lines))
        with suppress(OSError):
            with open(self.aside, "wb") as file:
                file.write(body)
            os.replace(self.aside, self.path)  # whole or not at all: a reader never sees half of one
        self.written = time.monotonic()

    def reached(self, line: int) -> None:
        self.line = line
        if time.monotonic() - self.written >= EVERY:
            self.write()

    def remove(self) -> None:
        for path in (self.path, self.aside):
            with suppress(OSError):
                os.unlink(path)


@contextmanager
def holding(database: str, script: str, lines: int | None) -> Iterator[Callable[[int], None]]:
    """Keep the marker beside ``database`` for the block (the caller holds the write lock);
    the block is handed ``reached(line)`` to say the line it is at. Removed as the block
    ends, however it ends. A marker that cannot be written is left out: the script runs
    all the same, and a writer waits as it did before markers."""
    if database == ":memory:":
        yield lambda line: None
        return
    marker = _Marker(path_of(database), script, lines)
    marker.write()
    try:
        yield marker.reached
    finally:
        marker.remove()
