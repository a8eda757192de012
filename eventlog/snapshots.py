"""The snapshot cache: folded states after single events, to fold from instead of the root.

The ``snapshots`` table is a cache and nothing more: the folded state after one event
(a node of the tree, so one snapshot serves every branch through it), per projection and
projection version. Deleting any or all of its rows only makes the next read fold further.
Which events get one, and what a state is, is the engine's business (projections/write/engine.py);
here they are found, saved, checked and dropped.

A cache must not lie, so each snapshot is bound to what it claims: its stored blob is a
digest followed by the state, the digest taken over the hash of the event it follows (which
chains the whole history before it), the projection, its version, the depth and the state.
A snapshot whose digest does not match (edited, copied to another event, or left by a
skirmish that wrote none) is a miss: never used, folded past, and replaced when the next
one falls due. The digest is not keyed: whoever edits the file can recompute it, so
``verify`` also folds the events and compares every snapshot with the state they give
(projections/write/engine.py, ``check_snapshots``), naming any that differs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from skirmish.eventlog.connection import Connection
from skirmish.eventlog.errors import StoreError


class Snapshot(NamedTuple):
    """A cached state: after event ``event_id``, ``depth`` events below the root."""

    event_id: int
    depth: int
    state: bytes


try:
    # BLAKE2 is CPython's own module: hashlib would load OpenSSL (2 ms) for every read that
    # opens a snapshot, which never needs it.
    from _blake2 import blake2b
except ImportError:  # another interpreter: hashlib's, as ever
    from hashlib import blake2b

DIGEST_SIZE = 32


def digest(event_hash: str, projection: str, version: int, depth: int, state: bytes) -> bytes:
    """What binds a snapshot to its event, its projection and its own state."""
    h = blake2b(digest_size=DIGEST_SIZE)
    h.update(f"{event_hash}\x00{projection}\x00{version}\x00{depth}\x00".encode())
    h.update(state)
    return h.digest()


def opened(row: tuple[int, int, bytes, str], projection: str, version: int) -> Snapshot | None:
    """A stored row (event_id, depth, blob, the event's hash) as the snapshot it claims to
    be, or None when its digest does not match: a miss."""
    event_id, depth, blob, event_hash = row
    blob = bytes(blob)
    state = blob[DIGEST_SIZE:]
    if len(blob) <= DIGEST_SIZE or blob[:DIGEST_SIZE] != digest(event_hash, projection, version, depth, state):
        return None
    return Snapshot(event_id, depth, state)


_FIND = (
    "SELECT s.event_id, s.depth, s.state, e.hash FROM snapshots s JOIN events e ON e.id = s.event_id "
    "WHERE s.event_id BETWEEN ? AND ? AND s.projection = ? AND s.version = ? ORDER BY s.event_id DESC"
)


def nearest(
    conn: Connection, runs_back: Iterable[tuple[int, int]], projection: str, version: int
) -> tuple[Snapshot | None, list[tuple[int, int]]]:
    """The latest snapshot on a path given as runs of consecutive ids, newest run first,
    and the runs (oldest first) left to fold after it: all of them when there is none. A
    snapshot that does not match its digest is passed over for the one before it."""
    runs: list[tuple[int, int]] = []
    snapshot: Snapshot | None = None
    for low, high in runs_back:
        for row in conn.execute(_FIND, (low, high, projection, version)):
            snapshot = opened(row, projection, version)
            if snapshot is not None:
                break
        if snapshot is not None:
            runs.append((snapshot.event_id + 1, high))
            break
        runs.append((low, high))
    runs.reverse()
    return snapshot, runs


def stored(conn: Connection, encounter_id: int, projection: str, version: int) -> Iterator[tuple[int, Snapshot | None]]:
    """Every snapshot of an encounter's events for one projection version, oldest event
    first: (event id, the snapshot, or None where its digest does not match)."""
    rows = conn.execute(
        "SELECT s.event_id, s.depth, s.state, e.hash FROM snapshots s JOIN events e ON e.id = s.event_id "
        "WHERE e.encounter_id = ? AND s.projection = ? AND s.version = ? ORDER BY s.event_id",
        (encounter_id, projection, version),
    )
    for row in rows:
        yield int(row[0]), opened(row, projection, version)


def save(conn: Connection, projection: str, version: int, snapshots: Sequence[Snapshot]) -> bool:
    """Cache folded states; False (and nothing raised) when the file cannot take them now
    (read-only, or locked past the busy timeout): a cache must never fail a command. Inside
    a read of one moment (Connection.reading) they are saved when it ends: written inside,
    they would hold the file's write lock, and every other GM's command, until then."""
    if conn.holding_a_moment:
        conn.after_reading.append(lambda: save(conn, projection, version, snapshots))
        return False
    try:
        with conn.transaction():
            ids = [s.event_id for s in snapshots]
            hashes: dict[int, str] = {}
            for start in range(0, len(ids), 500):  # under SQLite's limit of bound parameters
                chunk = ids[start:start + 500]
                hashes.update(conn.execute(
                    f"SELECT id, hash FROM events WHERE id IN ({', '.join('?' * len(chunk))})", chunk
                ).fetchall())
            conn.executemany(
                "INSERT OR REPLACE INTO snapshots(event_id, projection, version, depth, state) "
                "VALUES (?, ?, ?, ?, ?)",
                [(s.event_id, projection, version, s.depth,
                  digest(hashes[s.event_id], projection, version, s.depth, s.state) + s.state)
                 for s in snapshots if s.event_id in hashes],
            )
    except (StoreError, sqlite3.DatabaseError):
        return False
    return True


def drop(conn: Connection) -> int:
    """Delete every cached state (they are rebuilt as commands read and append)."""
    with conn.transaction():
        return conn.execute("DELETE FROM snapshots").rowcount
