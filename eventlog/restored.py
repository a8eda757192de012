"""An import's hash chain walked over its rows as they go in: ``verify``'s digest without reading them back.

An import inserts the rows of an export in the file's order, table by table (commands,
events, head moves), each in id order, in one transaction, and must verify them before it
commits. Reading them back to walk the chain (chain.verify_streamed) costs a second pass
over every column, bodies and all, joined to the hashes each row links to. This walk
checks the rows in hand instead, as each chunk is inserted, every check
``verify_streamed`` makes, in the same order of the same rows, so the digest it gives is
``verify``'s. What it does not hold (a command's hash, an event some row links back to)
it reads from the rows already inserted: a command's by a cursor over the commands in id
order, an event's by its id, and the events' ids and hashes once more, narrowly, for the
digest (which takes the head moves first). Memory holds three integers a command, as
``verify_streamed`` does.

At anything out of place (a row out of order, a hash that does not match, a link it
cannot follow) it gives up, and the import verifies the inserted rows the usual way
(Store.verify), which names the fault or finds the rows whole after all.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from skirmish.eventlog.chain import command_hash, event_hash, move_hash
from skirmish.eventlog.rows import CommandRow, EncounterRow, EventRow, HeadMove

TABLES = ("commands", "events", "head_moves")  # the order an export writes them in


class _GiveUp(Exception):
    pass


class InHand:
    """The walk; ``take`` each chunk once it is inserted, then ``digest``.

    ``hashes(table)``: (id, hash) of the encounter's rows of ``table`` in id order, read
    from the file; ``event_hash(id)``: the hash of the encounter's event ``id``, None if
    it has no such event."""

    def __init__(
        self,
        encounter: EncounterRow,
        hashes: Callable[[str], Iterator[tuple[int, str]]],
        event_hash_of: Callable[[int], str | None],
    ) -> None:
        self.encounter, self.hashes, self.event_hash_of = encounter, hashes, event_hash_of
        self.gave_up: str | None = None  # why, once given up
        self.stage = -1  # the index in TABLES of the table being taken
        self.last_id = 0  # the last row's id in that table: ids go up
        # the events: the one before (its id and hash), each command's run of events
        # as (command, the run's first parent or 0, its last event)
        self.previous: tuple[int, str] | None = None
        self.runs = (array("q"), array("q"), array("q"))
        self.event_commands: Iterator[tuple[int, str]] | None = None
        self.event_command: tuple[int, str] = (0, "")
        # the head moves: the move before's hash, the command moving, the runs matched so far
        self.move_commands: Iterator[tuple[int, str]] | None = None
        self.move_command: tuple[int, str] = (0, "")
        self.previous_move: str | None = None
        self.matched = 0
        self.appended_ends: Iterator[tuple[int, str]] | None = None
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
        import hashlib

        if table == "events":
            self.event_commands = self.hashes("commands")
        elif table == "head_moves":
            self.move_commands = self.hashes("commands")
            self.appended_ends = self.hashes("events")
            self.digest_so_far = hashlib.sha256()

    def _ascending(self, row_id: Any, what: str) -> None:
        if type(row_id) is not int or row_id <= self.last_id:
            raise _GiveUp(f"{what} {row_id} out of order")
        self.last_id = row_id

    def _commands(self, rows: Sequence[tuple[Any, ...]]) -> None:
        encounter_id = self.encounter.id
        for row in rows:
            c = row if type(row) is CommandRow else CommandRow(*row)
            self._ascending(c.id, "command")
            if command_hash(encounter_id, c) != c.hash:
                raise _GiveUp(f"command {c.id}")

    def _events(self, rows: Sequence[tuple[Any, ...]]) -> None:
        encounter_id, enc = self.encounter.id, (self.encounter.name, self.encounter.ruleset)
        runs = self.runs
        for row in rows:
            e = row if type(row) is EventRow else EventRow(*row)
            self._ascending(e.id, "event")
            parent_hash: str | None = None
            if e.parent_id is None:
                import json  # here, not at the top: every command imports this module (README: Speed)

                try:
                    first = json.loads(e.body)
                    named = (first.get("name"), first.get("ruleset"))
                except (ValueError, TypeError, AttributeError):
                    raise _GiveUp(f"event {e.id}") from None
                if named != enc:
                    raise _GiveUp(f"event {e.id}")
            elif type(e.parent_id) is not int or e.parent_id >= e.id:
                raise _GiveUp(f"event {e.id}")
            elif self.previous is not None and self.previous[0] == e.parent_id:
                parent_hash = self.previous[1]
            else:  # a jump back (an undo, a branch): the parent was inserted before
                parent_hash = self.event_hash_of(e.parent_id)
                if parent_hash is None:
                    raise _GiveUp(f"event {e.id}")
            cmd_hash = self._command_of_event(e.command_id)
            if event_hash(encounter_id, e, parent_hash, cmd_hash) != e.hash:
                raise _GiveUp(f"event {e.id}")
            self.previous = (e.id, e.hash)
            # Each command's events are one run, chained one to the next (chain._command_runs).
            if runs[0] and runs[0][-1] == e.command_id:
                if e.parent_id != runs[2][-1]:
                    raise _GiveUp(f"event {e.id}")
                runs[2][-1] = e.id
            else:
                for column, value in zip(runs, (e.command_id, e.parent_id or 0, e.id), strict=True):
                    column.append(value)

    def _command_of_event(self, command_id: Any) -> str:
        """The hash of an event's command: the events' commands go up, so one cursor serves."""
        assert self.event_commands is not None
        while self.event_command[0] != command_id:
            if type(command_id) is not int or command_id < self.event_command[0]:
                raise _GiveUp(f"command {command_id} out of order")
            found = next(self.event_commands, None)
            if found is None:
                raise _GiveUp(f"command {command_id} missing")
            self.event_command = found
        return self.event_command[1]

    def _moves(self, rows: Sequence[tuple[Any, ...]]) -> None:
        assert self.move_commands is not None and self.digest_so_far is not None
        encounter_id, runs = self.encounter.id, self.runs
        for row in rows:
            m = row if type(row) is HeadMove else HeadMove(*row)
            self._ascending(m.id, "head move")
            if m.command_id != self.move_command[0]:  # every command moves a head, in command order
                found = next(self.move_commands, None)
                if found is None or found[0] != m.command_id:
                    raise _GiveUp(f"head move {m.id}")
                self.move_command = found
            if m.reason in ("append", "start"):
                # The run of events its command appended: from where the head was to here.
                k = self.matched
                if k >= len(runs[0]) or (runs[0][k], runs[1][k], runs[2][k]) != (
                    m.command_id, m.from_event or 0, m.to_event
                ):
                    raise _GiveUp(f"head move {m.id}")
                self.matched += 1
                to_hash = self._appended_end(m.to_event)
            else:
                to_event = self.event_hash_of(m.to_event) if type(m.to_event) is int else None
                if to_event is None or (m.from_event is not None and (
                    type(m.from_event) is not int or self.event_hash_of(m.from_event) is None
                )):
                    raise _GiveUp(f"head move {m.id}")
                to_hash = to_event
            if move_hash(encounter_id, m, self.previous_move, self.move_command[1], to_hash) != m.hash:
                raise _GiveUp(f"head move {m.id}")
            self.previous_move = m.hash
            self.digest_so_far.update(m.hash.encode())

    def _appended_end(self, event_id: int) -> str:
        """The hash of the last event of an append's run: the runs go up, so one cursor serves."""
        assert self.appended_ends is not None
        for found_id, found_hash in self.appended_ends:
            if found_id == event_id:
                return found_hash
            if found_id > event_id:
                break
        raise _GiveUp(f"event {event_id}")

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
        for event_id, h in self.hashes("events"):
            digest.update(f"{event_id}:{h}".encode())
        return str(digest.hexdigest())
