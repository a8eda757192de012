"""A replay's records read their command from the store when asked (Recorded.command_id), a
block of the path at a time, or with their rows when the caller asks for every one
(``replay(commands=True)``: the page, the report): checked on the committed old log (its main branch three runs
of ids, after an undo and a branch switch; a what-if branch beside it) against ``path``,
which reads each row's command column. Blocks are made small here so that a path of 77
events crosses many of their edges and every run's end."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from skirmish.eventlog.errors import UnknownEvent
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter, Recorded, _CommandIds

OLD_DB = Path(__file__).resolve().parent.parent / "fixtures" / "bridge-ambush.db"

COMMAND_READS = "SELECT command_id FROM events WHERE id BETWEEN"


@pytest.fixture
def opened(tmp_path: Path) -> Iterator[tuple[Store, Encounter]]:
    path = tmp_path / "old.db"
    shutil.copy(OLD_DB, path)
    store = Store(str(path), create=False)
    try:
        yield store, Encounter.open(store)
    finally:
        store.close()


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(_CommandIds, "BLOCK", 8)
    return 8


def stored_commands(store: Store, head: int) -> dict[int, int]:
    """Each event of the path to ``head`` and its command, as its row holds them."""
    return {row.id: row.command_id for row in store.path(head)}


def reads(store: Store) -> list[str]:
    seen: list[str] = []
    store.conn.set_trace_callback(seen.append)
    return seen


def test_the_fixture_path_is_three_runs_whose_commands_are_not_their_event_ids(opened: tuple[Store, Encounter]) -> None:
    """What the tests below rely on: a command id that is an event's id, or a neighbour's,
    would show."""
    store, enc = opened
    head = enc.head().event_id
    assert store.runs(head) == [(1, 28), (30, 52), (58, 83)]
    stored = stored_commands(store, head)
    assert sum(1 for event_id, command in stored.items() if command != event_id) > 50
    assert len(set(stored.values())) < len(stored)  # commands of several events each


def test_every_record_asked_in_order_reads_one_statement_a_block_of_each_run(
    opened: tuple[Store, Encounter], small_blocks: int
) -> None:
    store, enc = opened
    head = enc.head().event_id
    stored = stored_commands(store, head)
    seen = reads(store)
    commands = {rec.id: rec.command_id for rec, _ in enc.replay()}
    store.conn.set_trace_callback(None)
    assert commands == stored
    # Runs of 28, 23 and 26 events, blocks of 8 from each run's start: 4 + 3 + 4.
    assert len([s for s in seen if s.startswith(COMMAND_READS)]) == 11


def test_records_asked_backwards_after_the_replay_ended_read_the_same_blocks(
    opened: tuple[Store, Encounter], small_blocks: int
) -> None:
    """Blocks fall at the same places whatever the order asked: a block read for its last
    id serves the seven before it (a block started at the id asked would read one a record)."""
    store, enc = opened
    head = enc.head().event_id
    records = [rec for rec, _ in enc.replay()]
    seen = reads(store)
    backwards = [(rec.id, rec.command_id) for rec in reversed(records)]
    store.conn.set_trace_callback(None)
    assert dict(backwards) == stored_commands(store, head)
    assert len([s for s in seen if s.startswith(COMMAND_READS)]) == 11


def test_a_record_asked_after_the_next_was_taken_and_out_of_order(
    opened: tuple[Store, Encounter], small_blocks: int
) -> None:
    store, enc = opened
    head = enc.head().event_id
    stored = stored_commands(store, head)
    replay = enc.replay()
    first, _ = next(replay)
    second, _ = next(replay)
    taken = [first, second, *(rec for rec, _ in replay)]
    # Across a run's end (28 -> 30), a block's edge (8 -> 9), back to the start, then the end.
    for event_id in (30, 28, 9, 8, 1, 83, 58, 52, 2):
        rec = next(r for r in taken if r.id == event_id)
        assert rec.command_id == stored[event_id], event_id
    assert first.command_id == stored[1]


def test_a_replay_from_the_middle_of_a_run_reads_its_blocks_from_there(
    opened: tuple[Store, Encounter], small_blocks: int
) -> None:
    store, enc = opened
    head = enc.head().event_id
    stored = stored_commands(store, head)
    seen = reads(store)
    commands = {rec.id: rec.command_id for rec, _ in enc.replay(start=40)}
    store.conn.set_trace_callback(None)
    assert commands == {i: c for i, c in stored.items() if i >= 40}
    # 40-52 (13 events: 8 + 5) and 58-83 (26: 8 + 8 + 8 + 2).
    assert len([s for s in seen if s.startswith(COMMAND_READS)]) == 6


def test_the_what_if_branch_records_name_their_own_commands(opened: tuple[Store, Encounter], small_blocks: int) -> None:
    store, enc = opened
    other = enc.head("what-if").event_id
    assert store.runs(other) != store.runs(enc.head().event_id)
    commands = {rec.id: rec.command_id for rec, _ in enc.replay(other)}
    assert commands == stored_commands(store, other)


def test_records_made_by_a_replay_equal_those_made_by_path(opened: tuple[Store, Encounter]) -> None:
    store, enc = opened
    head = enc.head().event_id
    replayed = [rec for rec, _ in enc.replay()]
    whole = enc.path(head)
    assert replayed == whole
    assert [r.command_id for r in replayed] == [r.command_id for r in whole]
    assert [r.to_json() for r in replayed] == [r.to_json() for r in whole]
    # A record made elsewhere holds its command as a plain number.
    made = Recorded(whole[5].id, whole[5].parent, whole[5].command_id + 1, whole[5].event, whole[5].recorded_at)
    assert made.command_id == whole[5].command_id + 1
    assert made != replayed[5]


def test_records_hash_as_they_compare_whatever_their_event_holds(opened: tuple[Store, Encounter]) -> None:
    # A combatant's arrival holds its stats as a dict, which has no hash: its record still
    # goes in a set, and a replay's record (its command read when asked) and the same
    # record read by path are one member of it.
    store, enc = opened
    replayed = [rec for rec, _ in enc.replay()]
    whole = enc.path(enc.head().event_id)
    added = [rec for rec in replayed if rec.kind == "combatant-added"]
    assert added
    assert len({*replayed, *whole}) == len(whole)
    assert {*added} <= {*whole}


def test_a_replay_whose_caller_asks_no_command_reads_none(opened: tuple[Store, Encounter]) -> None:
    store, enc = opened
    seen = reads(store)
    for _ in enc.replay():
        pass
    store.conn.set_trace_callback(None)
    assert not [s for s in seen if s.startswith(COMMAND_READS)]


def test_an_event_off_the_replayed_path_is_refused_by_its_id(opened: tuple[Store, Encounter]) -> None:
    store, _ = opened
    commands = _CommandIds(store.command_ids, [(1, 28), (30, 52)]).of
    assert commands(30) == stored_commands(store, 52)[30]
    for off in (29, 53, 0):
        with pytest.raises(UnknownEvent, match=f"event {off} is not on the path"):
            commands(off)


def test_the_store_refuses_a_stretch_with_an_id_that_is_no_event(opened: tuple[Store, Encounter]) -> None:
    """The fixture's events are 1 to 83: a stretch past them would put each command it
    read against another event."""
    store, _ = opened
    assert store.command_ids(1, 28) == [c for i, c in stored_commands(store, 83).items() if i <= 28]
    with pytest.raises(UnknownEvent, match="events 80 to 90 are not all in this file"):
        store.command_ids(80, 90)


# The first event of a path starts the state before the fold's loop (Encounter._started_by):
# it is read, refused and replayed as any other row.


@pytest.mark.parametrize(("edit", "why"), [
    ("body = '{\"type\":\"encounter-started\",,}'", "cannot be read"),
    ("version = 2", "it has layout version 2, this skirmish knows 1"),  # read again whole, refused
])
def test_the_first_event_unreadable_is_refused_by_its_id_by_every_read(
    opened: tuple[Store, Encounter], edit: str, why: str
) -> None:
    from skirmish.eventlog.errors import StoreError

    from support.tamper import tamper

    store, enc = opened
    store.drop_snapshots()
    head = enc.head().event_id
    tamper(store, f"UPDATE events SET {edit} WHERE id = 1")
    for read in (lambda: list(enc.replay()), lambda: enc.fold_to(head), lambda: list(enc.replay(start=1))):
        with pytest.raises(StoreError) as raised:
            read()
        assert str(raised.value).startswith("event 1 (encounter-started) cannot be read"), raised.value
        assert why in str(raised.value)


def test_a_replay_from_the_first_event_is_the_replay_from_the_root(opened: tuple[Store, Encounter]) -> None:
    store, enc = opened
    whole = [(rec, enc.ruleset.view(state)) for rec, state in enc.replay()]
    assert [(rec, enc.ruleset.view(state)) for rec, state in enc.replay(start=1)] == whole
    assert whole[0][0].id == 1 and whole[0][0].parent is None and len(whole) == 77
    store.drop_snapshots()
    assert enc.fold_to(enc.head().event_id)[0] == enc.fold([rec for rec, _ in whole])


@pytest.mark.parametrize("start", [None, 1, 40])
def test_a_replay_asked_for_commands_reads_them_with_its_rows(opened: tuple[Store, Encounter], start: int | None) -> None:
    """``commands=True`` (the page, the report: they ask every record's): each run's one
    statement reads the command column too, no block is read apart, and the records are
    those the replay makes without it, from the root or from the middle of a run."""
    store, enc = opened
    head = enc.head().event_id
    seen = reads(store)
    along = [(rec, enc.ruleset.view(state)) for rec, state in enc.replay(start=start, commands=True)]
    store.conn.set_trace_callback(None)
    runs = store.runs(head, since=start)
    # The fold up to ``start`` reads bodies alone; the replay's runs, the command with each.
    assert len([s for s in seen if s.startswith("SELECT command_id, CASE")]) == len(runs)
    assert not [s for s in seen if s.startswith(COMMAND_READS)]
    assert along == [(rec, enc.ruleset.view(state)) for rec, state in enc.replay(start=start)]
    assert {rec.id: rec.command_id for rec, _ in along} == {
        i: c for i, c in stored_commands(store, head).items() if start is None or i >= start}
    assert all(type(rec._command) is int for rec, _ in along)  # noqa: SLF001 - held, not looked up


def test_the_first_event_read_with_its_command_is_refused_as_without(opened: tuple[Store, Encounter]) -> None:
    from skirmish.eventlog.errors import StoreError

    from support.tamper import tamper

    store, enc = opened
    tamper(store, "UPDATE events SET version = 2 WHERE id = 1")
    with pytest.raises(StoreError, match="^event 1 \\(encounter-started\\) cannot be read"):
        list(enc.replay(commands=True))
