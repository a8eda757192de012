"""Every error skirmish shows to a user: one class per kind of mistake, one line each.

The CLI turns any SkirmishError into a single ``Error: ...`` line on stderr and a
non-zero exit. Nothing is appended when one is raised: commands decide fully before
the store writes, and the store writes one transaction per command.
"""

from __future__ import annotations


class SkirmishError(Exception):
    """Base of every user-facing error. The message is shown as is, on one line."""

    exit_code = 1


class BadInput(SkirmishError):
    """A command's arguments cannot be read (a malformed stat, dice faces, a number)."""

    exit_code = 2


class DuplicateRow(BadInput):
    """An import's file gives one row of the log twice (one id, or one move of a branch, on two
    lines): it was edited, or put together from others. ``what``: the row, in a few words;
    ``index``: its second place among the rows the store was handed, ``first`` its first when
    that is among them too (None: an earlier batch's), for the caller to name their lines."""

    def __init__(self, what: str, index: int, first: int | None) -> None:
        self.what, self.index, self.first = what, index, first
        super().__init__(f"{what} is given twice: an export holds each row once")


class UnknownEncounter(SkirmishError):
    """No encounter by that name in this database, or none chosen yet."""


class UnknownEvent(SkirmishError):
    """An event id that is not part of the current encounter."""


class UnknownBranch(SkirmishError):
    """A branch name the current encounter does not have."""


class HeadMoved(SkirmishError):
    """The branch moved while the command was being decided (another writer); retry."""

    exit_code = 3


class NothingToDo(SkirmishError):
    """Undo with nothing left to undo, redo with nothing undone, and the like."""


class TamperedLog(SkirmishError):
    """The stored log does not match its hash chain: a row was edited, removed or moved."""

    exit_code = 4


class StoreError(SkirmishError):
    """The database file cannot be used (not SQLite, another program's, newer schema)."""

    exit_code = 5


class LockHeld(StoreError):
    """A `run` script holds the file's write lock (its lines are one transaction): the
    command is answered at once, naming the script, the line it is at and its pid, rather
    than after the busy timeout; nothing was recorded. Exit 3, as a moved head: run it
    again once the script has ended."""

    exit_code = 3


class UnreadableEvent(StoreError):
    """A stored event this skirmish cannot decode: a kind or layout version it does not know
    (written by a newer skirmish or ruleset), or a body that is not its layout (edited?).
    Raised for the row, by the codec, whatever the cause; the message names the row."""

    def __init__(self, event_id: int, kind: str, reason: str) -> None:
        self.event_id, self.kind, self.reason = event_id, kind, reason
        super().__init__(f"event {event_id} ({kind}) cannot be read: {reason}")
