"""An import's hash chain walked over its rows as they go in: ``verify``'s digest without reading them back.

An import inserts the rows of an export in the file's order, table by table (commands,
events, head moves), each in id order, in one transaction, and must verify them before it
commits. Reading them back to walk the chain (chain.verify_streamed) costs a second pass
over every column, bodies and all, joined to the hashes each row links to. This walk
checks the rows in hand instead, as each chunk is inserted, every check
``verify_streamed`` makes, in the same order of the same rows, so the digest it gives is
``verify``'s. What a later table links back to (the commands' hashes, for the events and
the head moves; the hash of each command's last event, for its head move; every event's
id and hash, for the digest, which takes the head moves first) it keeps from the rows in
hand while their table has at most KEEP rows (a few MB), and reads back from the rows
inserted past that: the commands' or the events' ids and hashes by a cursor in id order,
narrowly. An event a jump links back to (an undo's, a branch's) is read by its id. Beyond
what it keeps, memory holds three integers a command, as ``verify_streamed`` does.

It is the import's inner loop (three rows an event, each hashed): each row's hashed bytes
are written in one format, as chain.py's ASCII fast path writes them, the whole text
checked ASCII once (then every field is, and a length is its bytes'); a row with other
text takes chain.py's general functions. The rows are an export's typed records (ids and
numbers ints, text str: projections/write/transfer.py decodes them so), and a hash a row
links to is one this walk has already proved, so 64 hex digits.

At anything out of place (a row out of order, a hash that does not match, a link it
cannot follow) it gives up, and the import verifies the inserted rows the usual way
(Store.verify), which names the fault or finds the rows whole after all.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from operator import itemgetter
from typing import Any

from skirmish.eventlog.chain import command_hash, event_hash, move_hash
from skirmish.eventlog.rows import CommandRow, EncounterRow, EventRow, HeadMove

TABLES = ("commands", "events", "head_moves")  # the order an export writes them in

_first = itemgetter(0)  # a row's id
_hash_of_move = itemgetter(8)  # a head move row's hash (rows.MOVE_COLUMNS)
_id_and_hash = "{}:{}".format  # what the digest takes of each event
# The hashes of at most this many rows of a table are kept for the tables after it (about
# 8 MB of text); a longer table's are read back from the file, so memory stays flat. Kept,
# the race's 20,000-event import skips three passes over the rows it inserted (a tenth of it).
KEEP = 65_536


class _GiveUp(Exception):
    pass


class InHand:
    """The walk; ``take`` each chunk once it is inserted, then ``digest``.

    ``hashes(table)``: (id, hash) of the encounter's rows of ``table`` in id order, read
    from the file; ``event_hash(id)``: the hash of the encounter's event ``id``, None if
    it has no such event; ``event_digest_parts()``: the encounter's events' ids and hashes,
    each as ``"id:hash"``, in id order, a few thousand joined in each text, read from the
    file (what the digest takes of each event, after the head moves)."""

    def __init__(
        self,
        encounter: EncounterRow,
        hashes: Callable[[str], Iterator[tuple[int, str]]],
        event_hash_of: Callable[[int], str | None],
        event_digest_parts: Callable[[], Iterator[str]],
    ) -> None:
        import hashlib  # an import's, not every command's start (docs/performance.md; store.py imports this module)

        self.sha256 = hashlib.sha256  # OpenSSL's: the walk hashes thousands of rows
        self.encounter, self.hashes, self.event_hash_of = encounter, hashes, event_hash_of
        self.event_digest_parts = event_digest_parts
        enc = str(encounter.id)
        self.enc = f"{len(enc)}:{enc}"  # the encounter's id as every row's hash writes it
        self.gave_up: str | None = None  # why, once given up
        self.stage = -1  # the index in TABLES of the table being taken
        self.last_id = 0  # the last row's id in that table: ids go up
        # the events: the one before (its id, as text, and hash), each command's run of
        # events as (command, the run's first parent or 0, its last event)
        self.previous: tuple[int, str, str] = (0, "", "")
        self.runs = (array("q"), array("q"), array("q"))
        self.kinds: dict[str, tuple[int, str]] = {}  # each kind's (version, its text as hashed)
        # What the next table needs of the rows in hand, kept while a table has at most KEEP
        # rows (else read back from the file): the commands' ids and hashes; the events'
        # ids and hashes (for the digest) and the hash of each run's last event.
        self.kept_commands: tuple[array[int], list[str]] | None = (array("q"), [])
        self.kept_events: tuple[array[int], list[str]] | None = (array("q"), [])
        self.run_end_hashes: list[str] | None = []
        self.event_commands: Iterator[tuple[int, str]] | None = None
        self.event_command: tuple[int, str] = (0, "")
        # the head moves: the move before's hash, the command moving, the runs matched so far
        self.move_commands: Iterator[tuple[int, str]] | None = None
        self.move_command: tuple[int, str] = (0, "")
        self.previous_move: str | None = None
        self.previous_to: tuple[int | None, str] = (None, "~")  # where the move before went, as hashed
        self.matched = 0
        self.appended_ends: Iterator[tuple[int, str]] | None = None
        self.appended_end: tuple[int, str] = (0, "")
        self.digest_so_far: Any = None

    def take(self, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
        if self.gave_up is not None:
            return
        try:
            stage = TABLES.index(table)
            if stage < self.stage:
                raise _GiveUp(f"{table} after {TABLES[self.stage]}")
            while self.stage < stage:
                self.stage += 1
                self.last_id = 0
                self._begin(TABLES[self.stage])
            if table == "commands":
                self._commands(rows)
            elif table == "events":
                self._events(rows)
            else:
                self._moves(rows)
        except _GiveUp as exc:
            self.gave_up = str(exc)
        except (TypeError, ValueError) as exc:  # a row not of its record's types: verify names it
            self.gave_up = f"{table}: {exc}"

    def digest(self) -> str | None:
        """``verify``'s digest of the rows taken, or None: the walk gave up (``gave_up``)."""
        if self.gave_up is None:
            try:
                return self._digest()
            except _GiveUp as exc:
                self.gave_up = str(exc)
        return None

    # --- each table ------------------------------------------------------------------------------

    def _begin(self, table: str) -> None:
        if table == "events":
            self.event_commands = self._commands_again()
        elif table == "head_moves":
            self.move_commands = self._commands_again()
            if self.run_end_hashes is None:
                self.appended_ends = self.hashes("events")
            self.digest_so_far = self.sha256()

    def _commands_again(self) -> Iterator[tuple[int, str]]:
        """The commands' ids and hashes in id order: kept, or read back."""
        if self.kept_commands is None:
            return self.hashes("commands")
        return zip(*self.kept_commands)

    def _commands(self, rows: Sequence[tuple[Any, ...]]) -> None:
        encounter_id, enc, last = self.encounter.id, self.enc, self.last_id
        sha256 = self.sha256
        for row in rows:
            command_id, branch, text, body, recorded_at, hash_ = row
            if type(command_id) is not int or command_id <= last:
                raise _GiveUp(f"command {command_id} out of order")
            last = command_id
            i = str(command_id)
            hashed = (f"7:command{len(i)}:{i}{enc}{len(branch)}:{branch}{len(text)}:{text}"
                      f"{len(body)}:{body}{len(recorded_at)}:{recorded_at}")
            if not hashed.isascii():  # lengths in characters are not bytes: the general format
                if command_hash(encounter_id, CommandRow(*row)) != hash_:
                    raise _GiveUp(f"command {command_id}")
            elif sha256(hashed.encode()).hexdigest() != hash_:
                raise _GiveUp(f"command {command_id}")
        self.last_id = last
        self.kept_commands = _kept(self.kept_commands, rows, 5)

    def _events(self, rows: Sequence[tuple[Any, ...]]) -> None:
        encounter_id, enc, last = self.encounter.id, self.enc, self.last_id
        sha256 = self.sha256
        previous_id, previous_text, previous_hash = self.previous
        command, command_hash_ = self.event_command
        commands, first_parents, ends = self.runs
        run, run_end = (commands[-1], ends[-1]) if commands else (0, 0)
        end_hashes, kinds = self.run_end_hashes, self.kinds
        p: str | None
        parent_hash: str | None
        for row in rows:
            event_id, parent_id, command_id, kind, version, body, recorded_at, hash_ = row
            if type(event_id) is not int or event_id <= last:
                raise _GiveUp(f"event {event_id} out of order")
            last = event_id
            if parent_id == previous_id:  # the event before: most events follow it
                p, parent_hash = previous_text, previous_hash
            elif parent_id is None:  # the encounter's first event
                p = parent_hash = None
            elif type(parent_id) is not int or parent_id >= event_id:
                raise _GiveUp(f"event {event_id}")
            else:  # a jump back (an undo, a branch): the parent was inserted before
                parent_hash = self.event_hash_of(parent_id)
                if parent_hash is None:
                    raise _GiveUp(f"event {event_id}")
                p = str(parent_id)
            if command_id != command:
                command, command_hash_ = self._command_of_event(command_id)
            i = str(event_id)
            kind_version = kinds.get(kind)
            if kind_version is None or kind_version[0] != version:
                kind_version = self._kind_version(kind, version)
            if p is None:
                self._first(row)
                expected = event_hash(encounter_id, EventRow(*row), None, command_hash_)
            else:
                hashed = (f"5:event{len(i)}:{i}{enc}{len(p)}:{p}64:{parent_hash}64:{command_hash_}{kind_version[1]}"
                          f"{len(recorded_at)}:{recorded_at}{len(body)}:{body}")
                if hashed.isascii():
                    expected = sha256(hashed.encode()).hexdigest()
                else:  # lengths in characters are not bytes: the general format
                    expected = event_hash(encounter_id, EventRow(*row), parent_hash, command_hash_)
            if expected != hash_:
                raise _GiveUp(f"event {event_id}")
            previous_id, previous_text, previous_hash = event_id, i, hash_
            # Each command's events are one run, chained one to the next (chain._command_runs).
            if commands and command_id == run:
                if parent_id != run_end:
                    raise _GiveUp(f"event {event_id}")
                run_end = ends[-1] = event_id
                if end_hashes is not None:
                    end_hashes[-1] = hash_
            else:
                commands.append(command_id)
                first_parents.append(parent_id or 0)
                ends.append(event_id)
                run, run_end = command_id, event_id
                if end_hashes is not None:
                    end_hashes.append(hash_)
        self.last_id = last
        self.previous = (previous_id, previous_text, previous_hash)
        self.event_command = (command, command_hash_)
        self.kept_events = _kept(self.kept_events, rows, 7)
        if self.kept_events is None:
            self.run_end_hashes = None

    def _kind_version(self, kind: str, version: int) -> tuple[int, str]:
        """An event's kind and layout version as its hash writes them (a few kinds: kept)."""
        if len(self.kinds) > 256:  # a ruleset has a few dozen kinds: a file naming more is not kept
            self.kinds.clear()
        v = str(version)
        found = self.kinds[kind] = (version, f"{len(kind)}:{kind}{len(v)}:{v}")
        return found

    def _first(self, row: tuple[Any, ...]) -> None:
        """The encounter's first event: the encounters row is not chained, so it must agree."""
        import json  # here, not at the top: every command imports this module (docs/performance.md)

        try:
            first = json.loads(row[5])
            named = (first.get("name"), first.get("ruleset"))
        except (ValueError, TypeError, AttributeError):
            raise _GiveUp(f"event {row[0]}") from None
        if named != (self.encounter.name, self.encounter.ruleset):
            raise _GiveUp(f"event {row[0]}")

    def _command_of_event(self, command_id: Any) -> tuple[int, str]:
        """The hash of an event's command: the events' commands go up, so one cursor serves."""
        assert self.event_commands is not None
        found = self.event_command
        while found[0] != command_id:
            if type(command_id) is not int or command_id < found[0]:
                raise _GiveUp(f"command {command_id} out of order")
            following = next(self.event_commands, None)
            if following is None:
                raise _GiveUp(f"command {command_id} missing")
            found = following
        self.event_command = found
        return found

    def _moves(self, rows: Sequence[tuple[Any, ...]]) -> None:
        assert self.move_commands is not None and self.digest_so_far is not None
        encounter_id, enc, last = self.encounter.id, self.enc, self.last_id
        end_hashes = self.run_end_hashes
        sha256 = self.sha256
        command, command_hash_ = self.move_command
        previous = self.previous_move
        before = "~" if previous is None else f"64:{previous}"
        previous_to, previous_to_piece = self.previous_to
        commands, first_parents, ends = self.runs
        matched, end, end_hash = self.matched, *self.appended_end
        for row in rows:
            move_id, branch, seq, from_event, to_event, reason, command_id, recorded_at, hash_ = row
            if type(move_id) is not int or move_id <= last:
                raise _GiveUp(f"head move {move_id} out of order")
            last = move_id
            if command_id != command:  # every command moves a head, in command order
                found = next(self.move_commands, None)
                if found is None or found[0] != command_id:
                    raise _GiveUp(f"head move {move_id}")
                command, command_hash_ = found
            if reason == "append" or reason == "start":
                # The run of events its command appended: from where the head was to here.
                if matched >= len(commands) or commands[matched] != command_id or (
                    first_parents[matched] != (from_event or 0) or ends[matched] != to_event
                ):
                    raise _GiveUp(f"head move {move_id}")
                if end_hashes is not None:  # the hash of the run's last event, kept
                    to_hash = end_hashes[matched]
                else:  # read back: the runs go up, so one cursor serves
                    assert self.appended_ends is not None
                    while end < to_event:
                        end, end_hash = next(self.appended_ends, (to_event + 1, ""))
                    if end != to_event:
                        raise _GiveUp(f"event {to_event}")
                    to_hash = end_hash
                matched += 1
            else:
                found_hash = self.event_hash_of(to_event) if type(to_event) is int else None
                if found_hash is None or (from_event is not None and (
                    type(from_event) is not int or self.event_hash_of(from_event) is None
                )):
                    raise _GiveUp(f"head move {move_id}")
                to_hash = found_hash
            i, n, to = str(move_id), str(seq), str(to_event)
            if from_event == previous_to:  # most moves start where the one before ended
                start = previous_to_piece
            else:
                start = "~" if from_event is None else f"{len(f := str(from_event))}:{f}"
            previous_to, previous_to_piece = to_event, f"{len(to)}:{to}"
            hashed = (f"4:move{len(i)}:{i}{enc}{len(branch)}:{branch}{len(n)}:{n}{start}{previous_to_piece}"
                      f"{len(reason)}:{reason}{len(recorded_at)}:{recorded_at}{before}64:{command_hash_}"
                      f"64:{to_hash}")
            if not hashed.isascii():
                if move_hash(encounter_id, HeadMove(*row), previous, command_hash_, to_hash) != hash_:
                    raise _GiveUp(f"head move {move_id}")
            elif sha256(hashed.encode()).hexdigest() != hash_:
                raise _GiveUp(f"head move {move_id}")
            previous, before = hash_, f"64:{hash_}"
        # every move of the chunk holds: the digest takes their hashes, in order
        self.digest_so_far.update("".join(map(_hash_of_move, rows)).encode())
        self.last_id, self.previous_move, self.matched = last, previous, matched
        self.move_command, self.appended_end = (command, command_hash_), (end, end_hash)
        self.previous_to = (previous_to, previous_to_piece)

    def _digest(self) -> str:
        if self.stage != len(TABLES) - 1:
            raise _GiveUp("a table without rows")
        assert self.move_commands is not None
        if next(self.move_commands, None) is not None:
            raise _GiveUp("a command without a head move")
        if self.matched != len(self.runs[0]):
            raise _GiveUp("a run of events without its append")
        if not self.matched:  # an encounter is created with its first event
            raise _GiveUp("no events")
        digest = self.digest_so_far
        if self.kept_events is None:
            for parts in self.event_digest_parts():
                digest.update(parts.encode())
        else:
            digest.update("".join(map(_id_and_hash, *self.kept_events)).encode())
        return str(digest.hexdigest())


def _kept(kept: tuple[array[int], list[str]] | None, rows: Sequence[tuple[Any, ...]], column: int) -> (
    tuple[array[int], list[str]] | None
):
    """``kept`` with the ids and hashes (``column``) of ``rows``, or None past KEEP rows."""
    if kept is None or len(kept[0]) + len(rows) > KEEP:
        return None
    kept[0].extend(map(_first, rows))
    kept[1].extend(map(itemgetter(column), rows))
    return kept
