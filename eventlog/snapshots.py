"""The snapshot cache: folded states after single events, to fold from instead of the root.

The ``snapshots`` table is a cache and nothing more: the folded state after one event
(a node of the tree, so one snapshot serves every branch through it), per projection and
projection version. It has no triggers and no hashes, ``verify`` never reads it, and
deleting any or all of its rows only makes the next read fold further. Which events get
one, and what a state is, is the engine's business (projections/engine.py); here they
are found, saved and dropped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from skirmish.eventlog.connection import Connection
from skirmish.eventlog.errors import StoreError


class Snapshot(NamedTuple):
    """A cached state: after event ``event_id``, ``depth`` events below the root."""

    event_id: int
    depth: int
    state: bytes


def nearest(
    conn: Connection, runs_back: Iterable[tuple[int, int]], projection: str, version: int
) -> tuple[Snapshot | None, list[tuple[int, int]]]:
    """The latest snapshot on a path given as runs of consecutive ids, newest run first,
    and the runs (oldest first) left to fold after it: all of them when there is none."""
    runs: list[tuple[int, int]] = []
    snapshot: Snapshot | None = None
    for low, high in runs_back:
        found = conn.execute(
            "SELECT event_id, depth, state FROM snapshots WHERE event_id BETWEEN ? AND ? "
            "AND projection = ? AND version = ? ORDER BY event_id DESC LIMIT 1",
            (low, high, projection, version),
        ).fetchone()
        if found is not None:
            snapshot = Snapshot(found[0], found[1], bytes(found[2]))
            runs.append((found[0] + 1, high))
            break
        runs.append((low, high))
    runs.reverse()
    return snapshot, runs


def save(conn: Connection, projection: str, version: int, snapshots: Sequence[Snapshot]) -> bool:
    """Cache folded states; False (and nothing raised) when the file cannot take them now
    (read-only, or locked past the busy timeout): a cache must never fail a command."""
    try:
        with conn.transaction():
            conn.executemany(
                "INSERT OR REPLACE INTO snapshots(event_id, projection, version, depth, state) "
                "VALUES (?, ?, ?, ?, ?)",
                [(s.event_id, projection, version, s.depth, s.state) for s in snapshots],
            )
    except (StoreError, sqlite3.DatabaseError):
        return False
    return True


def drop(conn: Connection) -> int:
    """Delete every cached state (they are rebuilt as commands read and append)."""
    with conn.transaction():
        return conn.execute("DELETE FROM snapshots").rowcount
