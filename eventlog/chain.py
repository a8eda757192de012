"""The hash chain: each row's SHA-256, and ``verify``, which walks a log and names its first fault.

Every row carries a SHA-256 hash chained to what it follows (an event to its parent,
a head move to the encounter's previous head move, both to their command), so
``verify`` finds any edited, removed or re-ordered row. The encounters row is not
chained: its first event is, and must agree with it.

Pure functions over rows (eventlog/rows.py): no connection here. The store hashes the
rows it inserts with these, and reads a log at one moment for ``verify`` to walk.

Two walks, one verdict. ``verify_streamed`` reads each row once, in id order, holding
the row at hand and a few integers a command: the store joins each event and head move
to the hashes it links to. It proves an intact log intact and gives its
digest; at the first thing out of place it gives up (``Suspect``), and ``verify`` walks
the whole log in memory to name the earliest fault, the one message either way.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Iterator
from typing import Any

from skirmish.eventlog.errors import TamperedLog
from skirmish.eventlog.sha import own_sha256
from skirmish.eventlog.text import clip, quoted
from skirmish.eventlog.rows import CommandRow, EncounterRow, EventRow, HeadMove, LinkedEvent, LinkedMove, Log


def _sha(*parts: object) -> str:
    # Each field is prefixed by its length (None by a mark of its own), so no text a GM
    # types can make two different rows hash alike. The pieces are joined and hashed in
    # one call: the same digest as feeding them one by one, at a third of the cost.
    pieces: list[bytes] = []
    for part in parts:
        if part is None:
            pieces.append(b"~")
        else:
            data = str(part).encode()
            pieces.append(b"%d:%b" % (len(data), data))
    digest: str = _sha256(b"".join(pieces)).hexdigest()
    return digest


def command_hash(encounter_id: int, c: CommandRow) -> str:
    command_id, branch, text, body, recorded_at, _hash = c
    if not (
        type(command_id) is int and type(encounter_id) is int and type(branch) is str and type(text) is str
        and type(body) is str and type(recorded_at) is str
        and branch.isascii() and text.isascii() and body.isascii() and recorded_at.isascii()
    ):
        return _sha("command", command_id, encounter_id, branch, text, body, recorded_at)
    # _sha's bytes in one format, as event_hash writes them (every field ASCII).
    i, enc = str(command_id), str(encounter_id)
    digest: str = _sha256(
        f"7:command{len(i)}:{i}{len(enc)}:{enc}{len(branch)}:{branch}{len(text)}:{text}"
        f"{len(body)}:{body}{len(recorded_at)}:{recorded_at}".encode()
    ).hexdigest()
    return digest


def event_hash(encounter_id: int, e: EventRow, parent_hash: str | None, cmd_hash: str) -> str:
    event_id, parent_id, _command, kind, version, body, recorded_at, _hash = e
    if not (
        type(event_id) is int and type(version) is int and type(encounter_id) is int
        and type(kind) is str and type(body) is str and type(recorded_at) is str and type(cmd_hash) is str
        and (parent_id is None or type(parent_id) is int) and (parent_hash is None or type(parent_hash) is str)
        and body.isascii() and kind.isascii() and recorded_at.isascii() and cmd_hash.isascii()
        and (parent_hash is None or parent_hash.isascii())
    ):
        return _sha(
            "event", event_id, encounter_id, parent_id, parent_hash, cmd_hash, kind, version, recorded_at, body
        )
    # The same bytes as _sha's, written in one format where every field is ASCII (a
    # character a byte, so a length is the text's): the most frequent row, at half the
    # cost. Non-ASCII text, or a value of another type in an edited row, takes _sha.
    i, enc, v = str(event_id), str(encounter_id), str(version)
    parent = "~" if parent_id is None else f"{len(p := str(parent_id))}:{p}"
    after = "~" if parent_hash is None else f"{len(parent_hash)}:{parent_hash}"
    digest: str = _sha256(
        f"5:event{len(i)}:{i}{len(enc)}:{enc}{parent}{after}{len(cmd_hash)}:{cmd_hash}{len(kind)}:{kind}"
        f"{len(v)}:{v}{len(recorded_at)}:{recorded_at}{len(body)}:{body}".encode()
    ).hexdigest()
    return digest


# A command hashes a few rows: CPython's own SHA-256 spares it loading OpenSSL (hashlib's
# import, 11M instructions of a `declare`'s 280M, docs/performance.md). OpenSSL's is three times
# faster a row, so a process that has hashed _FEW rows (verify, an import, bulk appends, a
# long script) or imported hashlib already takes OpenSSL's. The digests are the same.
_FEW = 64
_own_hashed = [0]


def _sha256(data: bytes) -> Any:
    if "hashlib" not in sys.modules and _own_hashed[0] < _FEW:
        _own_hashed[0] += 1
        return own_sha256(data)
    import hashlib

    return hashlib.sha256(data)


def move_hash(
    encounter_id: int, m: HeadMove, previous_hash: str | None, cmd_hash: str, to_hash: str
) -> str:
    move_id, branch, seq, from_event, to_event, reason, _command, recorded_at, _hash = m
    if not (
        type(move_id) is int and type(encounter_id) is int and type(seq) is int and type(to_event) is int
        and (from_event is None or type(from_event) is int) and type(branch) is str and type(reason) is str
        and type(recorded_at) is str and type(cmd_hash) is str and type(to_hash) is str
        and (previous_hash is None or type(previous_hash) is str)
        and branch.isascii() and reason.isascii() and recorded_at.isascii() and cmd_hash.isascii()
        and to_hash.isascii() and (previous_hash is None or previous_hash.isascii())
    ):
        return _sha(
            "move", move_id, encounter_id, branch, seq, from_event, to_event, reason,
            recorded_at, previous_hash, cmd_hash, to_hash,
        )
    # _sha's bytes in one format, as event_hash writes them (every field ASCII).
    i, enc, n, to = str(move_id), str(encounter_id), str(seq), str(to_event)
    start = "~" if from_event is None else f"{len(f := str(from_event))}:{f}"
    before = "~" if previous_hash is None else f"{len(previous_hash)}:{previous_hash}"
    digest: str = _sha256(
        f"4:move{len(i)}:{i}{len(enc)}:{enc}{len(branch)}:{branch}{len(n)}:{n}{start}{len(to)}:{to}"
        f"{len(reason)}:{reason}{len(recorded_at)}:{recorded_at}{before}{len(cmd_hash)}:{cmd_hash}"
        f"{len(to_hash)}:{to_hash}".encode()
    ).hexdigest()
    return digest


def verify(log: Log) -> str:
    """Recompute every hash of the log; return a digest of the whole of it.

    Raises TamperedLog naming the first event (in the order events were recorded)
    that was altered, removed or re-ordered, or the first other row that does not
    match its hash: every row is checked, and the earliest fault is the one named.
    """
    import hashlib
    import json  # only where a first event is read: not at every command's start (docs/performance.md)

    faults: list[tuple[float, str]] = []  # (position in the event order, message)

    def fault(at: float, message: str) -> None:
        faults.append((at, message))

    encounter_id = log.encounter.id
    cmds = {c.id: c for c in log.commands}
    present = {e.id: e for e in log.events}
    first_of: dict[int, int] = {}
    for e in log.events:
        first_of.setdefault(e.command_id, e.id)
    for m in log.moves:
        first_of.setdefault(m.command_id, m.to_event)
    for c in log.commands:
        if command_hash(encounter_id, c) != c.hash:
            fault(first_of.get(c.id, 0), f"command {c.id} ({quoted(c.text)}) was altered after it was recorded")
    enc = (log.encounter.name, log.encounter.ruleset)
    if not log.events:
        # Every encounter is created with its first event: none at all means its rows were
        # moved away (the encounters row's id edited) or removed, not an empty log.
        fault(0, f"the encounters row ({enc[0]!r}, {enc[1]}) has no events: its log was removed "
                 "or moved to another encounter")
    hashes: dict[int, str] = {}
    by_command: dict[int, list[EventRow]] = {}
    for e in log.events:
        if e.parent_id is None:
            # The encounter's row is not chained: its first event is, and must agree.
            first = json.loads(e.body)
            if (first.get("name"), first.get("ruleset")) != enc:
                fault(e.id, f"the encounters row ({quoted(enc[0])}, {clip(enc[1])}) does not match its first event {e.id}")
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
    digest = hashlib.sha256()
    moved: set[int] = set()
    for m in log.moves:
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
                fault(odd, f"the events of command {m.command_id} ({quoted(cmd.text)}) are not the chain "
                           f"from #{m.from_event} to #{m.to_event}: one was added, removed or moved")
    for command_id, chain in by_command.items():
        fault(chain[0].id, f"event {chain[0].id} was never appended by a head move (command {command_id})")
    # Every command moves a head; the chain's last move has no successor to break, so
    # its removal shows only as a command left without one.
    for c in log.commands:
        if c.id not in moved:
            fault(first_of.get(c.id, float("inf")), f"command {c.id} ({quoted(c.text)}) has no head move: one was removed")
    if faults:
        raise TamperedLog(min(faults, key=lambda f: f[0])[1])
    # Leaves no head move points at (never happens by append) would escape the move chain.
    for event_id, h in hashes.items():
        digest.update(f"{event_id}:{h}".encode())
    return digest.hexdigest()


class Suspect(Exception):
    """The streamed walk met a row out of place: ``verify`` names the fault."""


def verify_streamed(
    encounter: EncounterRow,
    commands: Iterable[CommandRow],
    moves: Iterable[LinkedMove],
    events: Iterable[LinkedEvent],
) -> str:
    """``verify``'s digest of an intact log, reading each row once, table by table in id order.

    ``moves`` and ``events`` carry the hashes their links point at (None where the row
    linked to is not this encounter's). Memory holds the row at hand and three integers a
    command. Raises Suspect at anything ``verify`` might fault, so an intact answer here
    is ``verify``'s answer.

    An intact log is laid out as commands are recorded, one transaction each: a
    command's events are consecutive ids chained one to the next, its head moves come
    together, and commands, their append moves and their runs of events are in the same
    order, so one pass over each table checks every link ``verify`` checks.
    """
    import hashlib

    encounter_id = encounter.id
    ids = array("q")
    for c in commands:
        if command_hash(encounter_id, c) != c.hash:
            raise Suspect(f"command {c.id}")
        ids.append(c.id)
    # What each append move says its command's run of events is: command, first parent
    # (0: none, the encounter's first event), last event; the events' pass checks them.
    appended = (array("q"), array("q"), array("q"))
    digest = hashlib.sha256()
    previous: str | None = None
    seen, last_command = 0, None
    for row in moves:
        m, to_hash, from_present, cmd_hash = HeadMove(*row[:9]), row[9], row[10], row[11]
        if to_hash is None or not from_present or cmd_hash is None:
            raise Suspect(f"head move {m.id}")
        if move_hash(encounter_id, m, previous, cmd_hash, to_hash) != m.hash:
            raise Suspect(f"head move {m.id}")
        previous = m.hash
        digest.update(m.hash.encode())
        if m.command_id != last_command:  # every command moves a head, in command order
            if seen >= len(ids) or ids[seen] != m.command_id:
                raise Suspect(f"head move {m.id}")
            seen, last_command = seen + 1, m.command_id
        if m.reason in ("append", "start"):
            for column, value in zip(appended, (m.command_id, m.from_event or 0, m.to_event), strict=True):
                column.append(value)
    if seen != len(ids):
        raise Suspect("a command without a head move")
    runs = 0
    for command_id, first_parent, last in _command_runs(encounter, events, digest):
        if runs >= len(appended[0]) or (appended[0][runs], appended[1][runs], appended[2][runs]) != (
            command_id, first_parent or 0, last
        ):
            raise Suspect(f"the events of command {command_id}")
        runs += 1
    if runs != len(appended[0]):
        raise Suspect("an append without events")
    if not runs:  # an encounter is created with its first event: none is a removed log
        raise Suspect("no events")
    return digest.hexdigest()


def _command_runs(
    encounter: EncounterRow, events: Iterable[LinkedEvent], digest: Any
) -> Iterator[tuple[int, int | None, int]]:
    """Each command's run of events, checked row by row, as (command, the run's first
    parent, its last event): what the command's append move must say. Each event's id
    and hash go into ``digest`` as they pass."""
    import json  # only where a first event is read: not at every command's start (docs/performance.md)

    encounter_id, enc = encounter.id, (encounter.name, encounter.ruleset)
    # The run under way: its command, its first event's parent, its last event (None: no run yet).
    command = 0
    parent: int | None = None
    last: int | None = None
    for row in events:
        e, parent_hash, cmd_hash = EventRow(*row[:8]), row[8], row[9]
        if e.parent_id is None:
            first = json.loads(e.body)
            if (first.get("name"), first.get("ruleset")) != enc:
                raise Suspect(f"event {e.id}")
        elif parent_hash is None or e.parent_id >= e.id:
            raise Suspect(f"event {e.id}")
        if cmd_hash is None or event_hash(encounter_id, e, parent_hash, cmd_hash) != e.hash:
            raise Suspect(f"event {e.id}")
        digest.update(f"{e.id}:{e.hash}".encode())
        if last is not None and command == e.command_id:
            if e.parent_id != last:  # the run's events chain one to the next
                raise Suspect(f"event {e.id}")
            last = e.id
            continue
        if last is not None:
            yield command, parent, last
        command, parent, last = e.command_id, e.parent_id, e.id
    if last is not None:
        yield command, parent, last
