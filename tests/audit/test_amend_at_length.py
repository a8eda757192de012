"""amend on a long branch: each later command is decided on the state the one before it left,
not folded again from the store (about 64 events a command) nor with the set of every
replaced event rebuilt a command, nor with what the engine read of each kind at every head
copied to the next: time linear in what it decides again. The branch it writes is the one a
fold before every command writes, event for event."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import msgspec
import pytest

import skirmish.eventlog
import skirmish.projections
from benchmarks.fight import Generator
from skirmish.eventlog.commands import Damage, command_decoder
from skirmish.eventlog.events import NoteAdded, tag_of
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter, Recorded, _HeldOfKind
from skirmish.projections.write.amend import amend


def long_fight(path: str, events: int = 2_000) -> tuple[Store, Encounter, int, Damage]:
    """A generated fight of about ``events`` events and its first damage on the current branch."""
    store = Store(path)
    enc = Generator(store, seed=7).run(events)
    for rec in enc.path(enc.head().event_id, checked=True)[1:]:
        command = command_decoder.decode(enc.command(rec.command_id).body)
        if isinstance(command, Damage):
            return store, enc, rec.id, command
    raise AssertionError("the generated fight has no damage")


def amended_events(enc: Encounter, branch: str) -> list[tuple[str, bytes]]:
    return [(r.kind, msgspec.json.encode(r.event)) for r in enc.path(enc.head(branch).event_id, checked=True)]


@pytest.mark.slow
def test_amend_folds_the_state_once_not_once_a_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, every command decided again folded its state from the nearest snapshot: as many
    folds as commands (over six hundred here). Now one fold for the replacement's check and
    one on the copy to start the branch, plus one after each skipped command."""
    store, enc, event, command = long_fight(str(tmp_path / "long.db"))
    folds: list[int] = []
    fold_to = Encounter.fold_to

    def counted(self: Encounter, event_id: int) -> tuple[Any, int]:
        folds.append(event_id)
        return fold_to(self, event_id)

    monkeypatch.setattr(Encounter, "fold_to", counted)
    done = amend(enc, event, Damage(who=command.who, amount=command.amount + 1), "damage", None, "amend")
    skipped = sum(step.skipped is not None for step in done.steps)
    assert len(done.steps) > 600
    assert len(folds) <= 2 + skipped, (len(folds), skipped)
    store.close()


@pytest.mark.slow
def test_the_state_carried_from_command_to_command_writes_the_branch_a_fold_each_time_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same amend twice: once carrying the state, once folding it from the store before
    every command (the carried state dropped). Event for event, the two branches agree."""
    store, enc, event, command = long_fight(str(tmp_path / "long.db"))
    replacement = Damage(who=command.who, amount=command.amount + 3)
    carried = amend(enc, event, replacement, "damage", "carried", "amend")
    execute_from = Encounter.execute_from

    def folding(self: Encounter, folded: Any, *args: Any, **kwargs: Any) -> Any:
        return execute_from(self, None, *args, **kwargs)

    monkeypatch.setattr(Encounter, "execute_from", folding)
    refolded = amend(enc, event, replacement, "damage", "refolded", "amend")
    assert [s.skipped for s in carried.steps] == [s.skipped for s in refolded.steps]
    assert amended_events(enc, "carried") == amended_events(enc, "refolded")
    assert len(carried.steps) > 600
    store.close()


# The library's own code: what it does a command, counted in lines run (not timed, so a busy
# machine counts the same).
LIBRARY = tuple(os.path.dirname(m.__file__ or "") + os.sep for m in (skirmish.eventlog, skirmish.projections))


def lines_a_command(path: str, events: int) -> float:
    """The lines of the library an amend of the first damage of a fight of about ``events``
    events runs, a command decided again."""
    store, enc, event, command = long_fight(path, events)
    lines = 0

    def count(frame: FrameType, what: str, arg: Any) -> Any:
        nonlocal lines
        lines += what == "line"
        return count

    def library(frame: FrameType, what: str, arg: Any) -> Any:
        return count if frame.f_code.co_filename.startswith(LIBRARY) else None

    sys.settrace(library)
    try:
        done = amend(enc, event, Damage(who=command.who, amount=command.amount + 1), "damage", None, "amend")
    finally:
        sys.settrace(None)
    store.close()
    return lines / len(done.steps)


@pytest.mark.slow
def test_an_amend_s_work_a_command_does_not_grow_with_the_branch(tmp_path: Path) -> None:
    """Amends of 442 and 1,485 commands (fights of 600 and 2,400 events) run as many lines
    of the library a command, within a quarter: about 610 and 640. Before, the engine carried
    what it had read of each kind (the encounter's ends) from every head to the next by
    looking through every head held so far, one more a command: 1,045 and 2,115 lines a
    command, twice as many at a little over three times the length, and the CPU of an amend
    of 8,817 commands (20k events) 3.2 ms a command against 0.65 ms for 1,537 (docs/performance.md)."""
    short = lines_a_command(str(tmp_path / "short.db"), 600)
    long = lines_a_command(str(tmp_path / "long.db"), 2_400)
    assert long <= 1.25 * short, (short, long)


def _notes(count: int, start: int = 100) -> list[Recorded]:
    return [Recorded(i, i - 1, i, NoteAdded(about=1, text="x", on="Hauser"), "") for i in range(start, start + count)]


def test_what_was_read_of_a_kind_is_carried_to_each_new_head_without_a_copy() -> None:
    """A head's reads by kind carried over thousands of appends (an amend's copy, a long
    console session): the new head shares the old head's list and adds what it appended,
    each older head still reads its own prefix, and no more than HEADS heads are held."""
    held, tag = _HeldOfKind(), tag_of(NoteAdded)
    first = _notes(3, start=10)
    held.put(tag, 12, "on", first)
    head = 12
    for note in _notes(3 * _HeldOfKind.HEADS):
        held.carry(head, note.id, [note])
        assert held.get(tag, note.id, "on") is first  # the same list, lengthened: nothing copied
        before = held.get(tag, head, "on")  # None once dropped (past HEADS heads)
        assert before is None or [r.id for r in before] == [r.id for r in first[:-1]]
        assert len(held._at) <= _HeldOfKind.HEADS
        head = note.id
    assert len(first) == 3 + 3 * _HeldOfKind.HEADS


def test_a_head_appended_to_again_after_an_undo_reads_its_own_path() -> None:
    """From a head whose list another path lengthened since (appended, then undone), the
    next append starts a list of its own: neither path reads the other's events."""
    held, tag = _HeldOfKind(), tag_of(NoteAdded)
    held.put(tag, 12, "on", _notes(1, start=12))
    one, other = _notes(1, start=20), _notes(1, start=30)
    held.carry(12, 20, one)
    held.carry(12, 30, other)  # undone back to 12, then another note
    assert [r.id for r in held.get(tag, 20, "on") or []] == [12, 20]
    assert [r.id for r in held.get(tag, 30, "on") or []] == [12, 30]
    assert [r.id for r in held.get(tag, 12, "on") or []] == [12]
    held.carry(30, 31, [Recorded(31, 30, 31, NoteAdded(about=1, text="x"), "")])  # not on anyone: not kept
    assert [r.id for r in held.get(tag, 31, "on") or []] == [12, 30]
