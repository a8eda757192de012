"""The cheap checks: what a command asks of the log before it writes on it, in reads it makes anyway.

`verify` walks the whole chain, seconds on a long log: no command at the table can. What a
command can check in the reads it makes anyway is what an edit of the log by hand leaves
behind: the append-only triggers an UPDATE or DELETE must drop first and the indexes
skirmish made (eventlog/schema.py), and the head's own link in the chain: the event the
command chains its new rows to still hashes, from its body, its parent's hash and its
command's, to the hash stored. A log that fails them takes no write (the store refuses it, TamperedLog), so
nothing new is chained onto an altered log; reads go on, and say so (the command line).

What they cannot see: a row below the head edited with the triggers put back after it, and
a chain hashed again by someone who has read this code. `verify` finds the first; only a
digest noted earlier (`verify --expect`) finds the second.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skirmish.eventlog import chain, schema
from skirmish.eventlog.errors import TamperedLog
from skirmish.eventlog.rows import EventRow

if TYPE_CHECKING:
    from collections.abc import Sequence

    from skirmish.eventlog.connection import Connection


def _named(names: Sequence[str]) -> str:
    return ", ".join(f"'{name}'" for name in names)


# How many of the triggers and indexes skirmish made are there (schema.missing names them).
_GUARDS_THERE = (f"(SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN ({_named(schema.TRIGGERS)}) "
                 f"OR type = 'index' AND name IN ({_named(schema.INDEXES)}))")
_GUARDS = len(schema.TRIGGERS) + len(schema.INDEXES)

# The head event ``h`` as a row, then its parent's hash and its command's, each only if the
# row linked to is this encounter's (as chain.LinkedEvent), then how many guards are there:
# a query that joins ``h`` reads what the checks need with these columns and joins, so a
# command's checks add no statement to the reads it makes anyway (tests/log/test_write_statements.py).
LINK_COLUMNS = ("h.id, h.parent_id, h.command_id, h.kind, h.version, h.body, h.recorded_at, h.hash, "
                f"hp.hash, hc.hash, {_GUARDS_THERE}")
LINK_JOINS = ("LEFT JOIN events hp ON hp.id = h.parent_id AND hp.encounter_id = h.encounter_id "
              "LEFT JOIN commands hc ON hc.id = h.command_id AND hc.encounter_id = h.encounter_id")
_LINK = f"SELECT {LINK_COLUMNS} FROM events h {LINK_JOINS} WHERE h.id = ?2 AND h.encounter_id = ?1"


def holds(encounter_id: int, link: Sequence[Any]) -> bool:
    """Whether the event of ``link`` (LINK_COLUMNS' row) hashes to the hash stored with it."""
    row, parent_hash, cmd_hash = EventRow(*link[:8]), link[8], link[9]
    if cmd_hash is None or (row.parent_id is not None and parent_hash is None):
        return False  # its parent or its command is gone, or is another encounter's
    return chain.event_hash(encounter_id, row, parent_hash, cmd_hash) == row.hash


def failed(conn: Connection, encounter_id: int, event_id: int | None, what: str = "the head",
           link: Sequence[Any] | None = None) -> list[str]:
    """What the cheap checks find wrong, each said in a few words: the guards missing, then
    event ``event_id`` (``what`` it is, e.g. "the head of branch 'main'") not matching its
    hash; empty: they pass. ``link``: the event's LINK_COLUMNS, when the caller has read them
    (None: read here); ``event_id`` None: the schema alone (a file before its first event)."""
    if event_id is not None and (link is None or link[0] != event_id):
        link = conn.execute(_LINK, (encounter_id, event_id)).fetchone()
    gone = schema.missing(conn) if link is None or link[10] != _GUARDS else []  # named only when some are not there
    found = [f"{', '.join(gone)} missing"] if gone else []
    if event_id is not None and (link is None or not holds(encounter_id, link)):
        found.append(f"event {event_id}, {what}, does not match its hash")
    return found


def refusal(found: Sequence[str]) -> TamperedLog:
    """The one line a write on a log that failed the checks is refused with (exit 4)."""
    return TamperedLog(f"this log failed its checks ({'; '.join(found)}): nothing is recorded on it; "
                       "`skirmish verify` names what was altered")
