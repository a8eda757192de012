"""The store's rows as Python sees them: one NamedTuple per table, fields in column order.

Plain tuples, not Structs: sqlite3 hands rows over as tuples, and a replay reads
millions of them. The export format (projections/write/transfer.py) is derived from these
fields, so a column added here is a column exported.
"""

# No `from __future__ import annotations`: NamedTuple turns each annotation written as a
# string into a ForwardRef and compiles it, 2 ms of every command (docs/performance.md).

from typing import NamedTuple

ENCOUNTER_COLUMNS = "id, name, ruleset, created_at"  # EncounterRow's fields
EVENT_COLUMNS = "id, parent_id, command_id, kind, version, body, recorded_at, hash"  # EventRow's fields
COMMAND_COLUMNS = "id, branch, text, body, recorded_at, hash"  # CommandRow's
MOVE_COLUMNS = "id, branch, seq, from_event, to_event, reason, command_id, recorded_at, hash"  # HeadMove's


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


# An event row, then the hash of its parent and of its command, each None where the row
# linked to is not this encounter's: what a streamed verify reads (eventlog/chain.py).
LinkedEvent = tuple[int, "int | None", int, str, int, str, str, str, "str | None", "str | None"]
# A head move's row, then the hash of the event it moves to (None: not this encounter's),
# whether the event it moves from is (or it moves from none), and its command's hash.
LinkedMove = tuple[int, str, int, "int | None", int, str, int, str, str, "str | None", bool, "str | None"]


class Log(NamedTuple):
    """One encounter's whole log as it stood at one moment, each list in id order: what
    ``verify`` checks and an export writes."""

    encounter: EncounterRow
    commands: list[CommandRow]
    events: list[EventRow]
    moves: list[HeadMove]


class Counts(NamedTuple):
    """How many rows one encounter's log holds, and how many of its head moves are undos."""

    commands: int
    events: int
    moves: int
    undos: int


class Head(NamedTuple):
    """Where a branch points, and how many times it has moved (the expected-head token)."""

    branch: str
    event_id: int
    seq: int


class NewEvent(NamedTuple):
    kind: str
    version: int
    body: bytes
