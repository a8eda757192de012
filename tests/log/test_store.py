"""The store's reliability: append-only tables, expected-head checks, verify, foreign files, heads."""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from skirmish.eventlog.commands import (
    AddCombatant,
    ApplyEffect,
    Damage,
    StartRound,
    Upkeep,
    command_encoder,
)
from skirmish.eventlog.errors import (
    BadInput,
    HeadMoved,
    NothingToDo,
    SkirmishError,
    StoreError,
    TamperedLog,
    UnknownBranch,
)
from skirmish.eventlog.schema import SCHEMA_VERSION
from skirmish.eventlog.store import CommandRow, Counts, Head, NewEvent, Store
from skirmish.projections.write.engine import Encounter, new_encounter
from skirmish.projections.ruleset import Dice

from support.cli import start
from support.tamper import TABLES, tamper


def add(enc: Encounter, name: str, hits: int = 30) -> int:
    """Add a combatant; return the event id."""
    (rec,) = enc.execute(AddCombatant(name=name, stats={"qu": "1", "hits": str(hits)}), f"add {name}")
    return rec.id


def hurt(enc: Encounter, name: str, amount: int) -> int:
    (rec,) = enc.execute(Damage(who=name, amount=amount), f"damage {name} {amount}")
    return rec.id


def rows(store: Store) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the append-only tables, to show that nothing changed."""
    return {t: store.conn.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in TABLES}


def fight(store: Store) -> Encounter:
    """An encounter with two combatants and a little damage: events 1 to 4."""
    enc = start(store)
    add(enc, "Hauser")
    add(enc, "Orc")
    hurt(enc, "Orc", 5)
    return enc


def damage_event(enc: Encounter, amount: int) -> NewEvent:
    """A stored-form event for a direct store.append (what Encounter.execute would write)."""
    state = enc.state_at(enc.head().event_id)
    (event,) = enc.ruleset.decide(state, Damage(who="Orc", amount=amount), Dice(1, "unused"))
    return NewEvent("ap.damage-taken", type(event).version, enc.codec.encode(event))


# --- append-only ---------------------------------------------------------------------------


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("statement", [
    "UPDATE {table} SET id = id + 100 WHERE id = 1",
    "UPDATE {table} SET recorded_at = 'yesterday'",
    "DELETE FROM {table} WHERE id = (SELECT max(id) FROM {table})",
    "DELETE FROM {table}",
])
def test_triggers_refuse_update_and_delete(memory_store: Store, table: str, statement: str) -> None:
    fight(memory_store)
    if table == "encounters":
        statement = statement.replace("recorded_at", "created_at")
    before = rows(memory_store)
    with pytest.raises((sqlite3.IntegrityError, sqlite3.OperationalError), match=f"{table} are append-only"):
        memory_store.conn.execute(statement.format(table=table))
    assert rows(memory_store) == before


def test_triggers_hold_for_another_connection_too(file_store: Store) -> None:
    """The refusal lives in the database file, not in the store's code."""
    fight(file_store)
    raw = sqlite3.connect(file_store.file)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="events are append-only"):
            raw.execute("UPDATE events SET body = '{}' WHERE id = 2")
        with pytest.raises(sqlite3.IntegrityError, match="head_moves are append-only"):
            raw.execute("DELETE FROM head_moves")
    finally:
        raw.close()


# --- expected heads ------------------------------------------------------------------------


def test_a_stale_expected_head_raises_head_moved_and_appends_nothing(memory_store: Store) -> None:
    enc = fight(memory_store)
    stale = enc.head()
    hurt(enc, "Orc", 2)
    before = rows(memory_store)
    with pytest.raises(HeadMoved, match="branch 'main' moved to event 5"):
        memory_store.append(enc.row.id, stale, "damage Orc 3", b"{}", [damage_event(enc, 3)])
    assert rows(memory_store) == before


def test_the_same_event_with_an_older_move_count_is_stale_too(memory_store: Store) -> None:
    """Undo then redo brings the head back to the same event; a decision made before is still stale."""
    enc = fight(memory_store)
    stale = enc.head()
    enc.undo(1, "undo")
    enc.redo(1, "redo")
    assert enc.head().event_id == stale.event_id and enc.head().seq == stale.seq + 2
    before = rows(memory_store)
    with pytest.raises(HeadMoved):
        memory_store.append(enc.row.id, stale, "damage Orc 3", b"{}", [damage_event(enc, 3)])
    with pytest.raises(HeadMoved):
        memory_store.move(enc.row.id, stale, "main", [2], "undo", "undo", b"{}")
    assert rows(memory_store) == before


def test_head_moves_of_an_unknown_branch_are_refused(memory_store: Store) -> None:
    enc = fight(memory_store)
    before = rows(memory_store)
    with pytest.raises(UnknownBranch, match="no branch named 'ghost' \\(branches: main\\)"):
        memory_store.append(enc.row.id, Head("ghost", 4, 3), "x", b"{}", [damage_event(enc, 1)])
    assert rows(memory_store) == before


def test_two_stores_on_one_file_the_second_append_from_the_old_head_fails(file_store: Store) -> None:
    first = fight(file_store)
    other = Store(file_store.file, create=False)
    try:
        second = Encounter.open(other)
        seen_by_second = second.head()
        assert seen_by_second == first.head()
        hurt(first, "Orc", 2)  # the first writer wins the race
        before = rows(other)
        with pytest.raises(HeadMoved):
            other.append(second.row.id, seen_by_second, "damage Orc 7", b"{}", [damage_event(second, 7)])
        assert rows(other) == before
        # Deciding again on the new head works, and both stores see the same log.
        hurt(second, "Orc", 7)
        assert rows(other) == rows(file_store)
        assert file_store.verify(first.row.id) == other.verify(second.row.id)
    finally:
        other.close()


def test_the_unique_move_index_catches_what_the_head_check_missed(
    file_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the expected-head check were skipped, UNIQUE (encounter, branch, seq) still refuses the
    second move from one place, and the command's rows inserted before it roll back with it."""
    first = fight(file_store)
    other = Store(file_store.file, create=False)
    try:
        second = Encounter.open(other)
        seen_by_second = second.head()
        hurt(first, "Orc", 2)
        monkeypatch.setattr(other, "_check_head", lambda encounter_id, expected: None)
        before = rows(other)
        with pytest.raises(HeadMoved) as caught:
            other.append(second.row.id, seen_by_second, "damage Orc 7", b"{}", [damage_event(second, 7)])
        assert isinstance(caught.value.__cause__, sqlite3.IntegrityError)
        assert rows(other) == before
        other.verify(second.row.id)
    finally:
        other.close()


def test_a_locked_database_is_a_store_error_and_appends_nothing(file_store: Store) -> None:
    enc = fight(file_store)
    other = Store(file_store.file, create=False)
    try:
        other.conn.execute("PRAGMA busy_timeout = 50")
        file_store.conn.execute("BEGIN IMMEDIATE")  # another writer holds the lock
        try:
            with pytest.raises(StoreError, match="cannot be written: database is locked"):
                other.append(enc.row.id, enc.head(), "damage Orc 1", b"{}", [damage_event(enc, 1)])
        finally:
            file_store.conn.execute("ROLLBACK")
        assert rows(other) == rows(file_store)
        assert len(rows(file_store)["events"]) == 4
    finally:
        other.close()


def test_concurrent_writers_never_lose_or_fork_an_event(tmp_path: Path) -> None:
    """Two writers, each on its own connection, retrying on HeadMoved: every event lands on main."""
    path = str(tmp_path / "race.db")
    setup = Store(path)
    enc = fight(setup)
    setup.close()
    per_writer = 15
    barrier = threading.Barrier(2)
    lost: list[BaseException] = []

    def writer(number: int) -> None:
        store = Store(path, create=False)
        try:
            mine = Encounter.open(store)
            barrier.wait()
            done = 0
            while done < per_writer:
                try:
                    hurt(mine, "Hauser" if number else "Orc", 1)
                    done += 1
                except HeadMoved:
                    continue  # the other writer moved main first: decide again on the new head
        except BaseException as exc:  # reported below: a thread's failure must fail the test
            lost.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=writer, args=(n,)) for n in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not lost, lost
    store = Store(path, create=False)
    try:
        enc = Encounter.open(store)
        events = list(store.all_events(enc.row.id))
        assert len(events) == 4 + 2 * per_writer
        # No silent fork: every event is on main's one line of history.
        assert [r.id for r in enc.path(enc.head().event_id)] == [e.id for e in events]
        view = enc.view()
        damage = {c.name: c.own.damage for c in view.combatants}  # type: ignore[attr-defined]
        assert damage == {"Hauser": per_writer, "Orc": 5 + per_writer}
        store.verify(enc.row.id)
    finally:
        store.close()


# --- verify --------------------------------------------------------------------------------


def test_verify_gives_the_same_digest_twice_and_a_new_one_after_an_append(file_store: Store) -> None:
    enc = fight(file_store)
    digest = file_store.verify(enc.row.id)
    assert len(digest) == 64
    assert file_store.verify(enc.row.id) == digest
    reopened = Store(file_store.file, create=False)
    try:
        assert reopened.verify(enc.row.id) == digest
    finally:
        reopened.close()
    hurt(enc, "Orc", 1)
    assert file_store.verify(enc.row.id) != digest


def test_verify_covers_undo_redo_forks_and_switches(memory_store: Store) -> None:
    enc = fight(memory_store)
    enc.undo(2, "undo 2")
    enc.redo(1, "redo")
    enc.fork("what-if", 2, "branch what-if --at 2")
    enc.switch("what-if", "switch what-if")
    hurt(enc, "Hauser", 3)
    digest = memory_store.verify(enc.row.id)
    assert memory_store.verify(enc.row.id) == digest


def test_verify_names_the_event_whose_body_was_changed(file_store: Store) -> None:
    enc = fight(file_store)
    tamper(file_store, "UPDATE events SET body = replace(body, '\"value\":5', '\"value\":50') WHERE id = 4")
    assert '"value":50' in file_store.event(enc.row.id, 4).body
    with pytest.raises(TamperedLog, match=r"^event 4 \(ap.damage-taken\) was altered"):
        file_store.verify(enc.row.id)


def test_verify_finds_a_deleted_leaf_event(file_store: Store) -> None:
    enc = fight(file_store)
    leaf = enc.head().event_id
    # The sqlite3 shell runs without foreign keys unless told otherwise.
    tamper(file_store, "PRAGMA foreign_keys = OFF", f"DELETE FROM events WHERE id = {leaf}")
    with pytest.raises(TamperedLog, match="points at a missing event"):
        file_store.verify(enc.row.id)


def test_verify_finds_an_undone_leaf_deleted_with_its_command(file_store: Store) -> None:
    """Removing an undone event and its command hides nothing: the append's head move remains."""
    enc = fight(file_store)
    leaf = enc.head().event_id
    enc.undo(1, "undo")
    command = file_store.event(enc.row.id, 2).command_id + 2
    tamper(file_store, "PRAGMA foreign_keys = OFF", f"DELETE FROM events WHERE id = {leaf}",
           f"DELETE FROM commands WHERE id = {command}")
    with pytest.raises(TamperedLog):
        file_store.verify(enc.row.id)


def test_verify_finds_two_events_with_swapped_bodies(file_store: Store) -> None:
    enc = fight(file_store)
    hauser, orc = (file_store.event(enc.row.id, i).body for i in (2, 3))
    tamper(
        file_store,
        f"UPDATE events SET body = '{orc}' WHERE id = 2",
        f"UPDATE events SET body = '{hauser}' WHERE id = 3",
    )
    with pytest.raises(TamperedLog, match=r"^event 2 \(combatant-added\) was altered"):
        file_store.verify(enc.row.id)


def test_verify_finds_an_edited_command(file_store: Store) -> None:
    enc = fight(file_store)
    enc.undo(1, "undo")
    hurt(enc, "Orc", 2)
    tamper(file_store, "UPDATE commands SET text = 'damage Orc 1' WHERE text = 'damage Orc 2'")
    with pytest.raises(TamperedLog, match=r"^command \d+ \('damage Orc 1'\) was altered"):
        file_store.verify(enc.row.id)


def test_verify_finds_a_head_move_removed_from_the_middle(file_store: Store) -> None:
    """The undo is taken out of the audit: the moves after it no longer chain."""
    enc = fight(file_store)
    enc.undo(1, "undo")
    enc.redo(1, "redo")
    tamper(file_store, "DELETE FROM head_moves WHERE reason = 'undo'")
    with pytest.raises(TamperedLog, match=r"head move \d+ \(redo on main\) was altered, removed or re-ordered"):
        file_store.verify(enc.row.id)


def test_verify_finds_the_last_head_move_removed(file_store: Store) -> None:
    """The end of a hash chain has nothing after it to break; the command it recorded remains."""
    enc = fight(file_store)
    enc.undo(1, "undo")
    tamper(file_store, "DELETE FROM head_moves WHERE id = (SELECT max(id) FROM head_moves)")
    with pytest.raises(TamperedLog, match=r"command \d+ \('undo'\) has no head move"):
        file_store.verify(enc.row.id)


def test_verify_is_a_function_of_the_rows_alone(memory_store: Store) -> None:
    """chain.verify needs no connection: rows edited in memory are named as an edited file is."""
    from skirmish.eventlog import chain

    enc = fight(memory_store)
    log = memory_store.log(enc.row.id)
    assert chain.verify(log) == memory_store.verify(enc.row.id)
    edited = [e._replace(body=e.body.replace('"value":5', '"value":50')) if e.id == 4 else e for e in log.events]
    with pytest.raises(TamperedLog, match=r"^event 4 \(ap.damage-taken\) was altered"):
        chain.verify(log._replace(events=edited))


def test_verify_reads_the_log_at_one_moment_while_another_writer_appends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second screen's `verify` or `export` while the table plays: a command committed
    between the reads of its commands and of its events and head moves is not seen at
    all, rather than half seen (events naming a command the log does not hold)."""
    path = str(tmp_path / "shared.db")
    reader, writer = Store(path), Store(path)
    try:
        enc = fight(reader)
        before = reader.verify(enc.row.id)
        table = Encounter.open(writer)
        read_commands = Store.each_command

        def meanwhile(self: Store, encounter_id: int) -> Iterator[CommandRow]:
            yield from read_commands(self, encounter_id)
            if self is reader:
                hurt(table, "Orc", 1)  # committed after the commands were read

        with monkeypatch.context() as patched:
            patched.setattr(Store, "each_command", meanwhile)
            assert reader.verify(enc.row.id) == before
        assert reader.verify(enc.row.id) != before  # the next read sees the new command whole
    finally:
        reader.close()
        writer.close()


def test_counts_and_event_ids(memory_store: Store) -> None:
    enc = fight(memory_store)
    enc.undo(1, "undo")
    assert memory_store.counts(enc.row.id) == Counts(commands=5, events=4, moves=5, undos=1)
    assert memory_store.event_ids(enc.row.id) == [1, 2, 3, 4]
    other = new_encounter(memory_store, "Another", "ap-countdown", {}, "new", seed=1)
    assert memory_store.counts(other.row.id) == Counts(commands=1, events=1, moves=1, undos=0)
    assert memory_store.event_ids(other.row.id) == [5]


# --- files that are not skirmish's -----------------------------------------------------------


def test_a_file_that_is_not_sqlite_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("Hauser 40 hits, Orc 30 hits\n" * 50)
    with pytest.raises(StoreError, match=f"^{re.escape(str(path))} cannot be used as a skirmish database: file is not a database"):
        Store(str(path))
    assert path.read_text().startswith("Hauser 40 hits")


def make_foreign(path: Path, user_version: int, *tables: str) -> list[str]:
    raw = sqlite3.connect(path)
    for table in tables:
        raw.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, name TEXT)")
    raw.execute(f"PRAGMA user_version = {user_version}")
    raw.commit()
    names = sorted(r[0] for r in raw.execute("SELECT name FROM sqlite_master"))
    raw.close()
    return names


def schema_of(path: Path) -> tuple[list[str], int]:
    raw = sqlite3.connect(path)
    try:
        names = sorted(r[0] for r in raw.execute("SELECT name FROM sqlite_master"))
        return names, raw.execute("PRAGMA user_version").fetchone()[0]
    finally:
        raw.close()


@pytest.mark.parametrize(("tables", "user_version"), [
    (("monsters",), 0),
    (("monsters", "treasure"), 0),
    # Another program may use a table name of ours, or set user_version to ours.
    (("encounters", "monsters"), 0),
    (("encounters",), 0),
    (("monsters",), SCHEMA_VERSION),
    (("encounters", "commands", "events", "head_moves"), SCHEMA_VERSION),
])
def test_a_sqlite_file_of_another_program_is_a_store_error_and_left_alone(
    tmp_path: Path, tables: tuple[str, ...], user_version: int
) -> None:
    path = tmp_path / "bestiary.db"
    schema = make_foreign(path, user_version, *tables)
    with pytest.raises(StoreError, match=f"^{re.escape(str(path))} is a SQLite database of another program, not skirmish's$"):
        Store(str(path))
    assert schema_of(path) == (schema, user_version)


def test_a_newer_schema_is_a_store_error_naming_the_version(file_store: Store) -> None:
    path = file_store.file
    fight(file_store)
    file_store.close()
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.commit()
    raw.close()
    with pytest.raises(StoreError, match=f"newer skirmish \\(schema {SCHEMA_VERSION + 1}, this one knows {SCHEMA_VERSION}\\)"):
        Store(path)


def test_a_missing_file_without_create_is_a_store_error_and_stays_missing(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.db"
    with pytest.raises(StoreError, match="no skirmish database at .*nowhere.db"):
        Store(str(path), create=False)
    assert not path.exists()


def test_an_empty_file_becomes_a_skirmish_database(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    store = Store(str(path))
    try:
        assert store.encounters() == []
        start(store)
    finally:
        store.close()
    reopened = Store(str(path), create=False)
    try:
        assert [e.name for e in reopened.encounters()] == ["Test fight"]
    finally:
        reopened.close()


def test_reopening_does_not_migrate_again(file_store: Store) -> None:
    enc = fight(file_store)
    digest = file_store.verify(enc.row.id)
    file_store.close()
    for _ in range(2):
        again = Store(file_store.file, create=False)
        assert again.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert again.conn.execute("SELECT count(*) FROM _sqlite_migrations").fetchone()[0] == SCHEMA_VERSION  # one row per migration, none applied twice
        assert again.verify(enc.row.id) == digest
        again.close()


# --- branches, the current branch and the redo stack --------------------------------------------


def moves(store: Store, enc: Encounter) -> int:
    return len(store.head_moves(enc.row.id))


def test_switch_sets_the_current_branch_and_fork_does_not(memory_store: Store) -> None:
    enc = fight(memory_store)
    assert enc.branch == "main"
    enc.fork("dodge", 3, "branch dodge --at 3")
    assert enc.branch == "main" and enc.head().event_id == 4
    assert list(memory_store.branches(enc.row.id)) == ["main", "dodge"]
    enc.switch("dodge", "switch dodge")
    assert enc.branch == "dodge" and enc.head() == Head("dodge", 3, 2)
    hurt(enc, "Hauser", 6)  # appends on dodge only
    assert memory_store.head(enc.row.id, "main") == Head("main", 4, 4)
    assert memory_store.head(enc.row.id, "dodge") == Head("dodge", 5, 3)
    assert [r.id for r in enc.path(5)] == [1, 2, 3, 5]
    # Another Encounter object reads the current branch from the store, not from memory.
    assert Encounter.open(memory_store).branch == "dodge"
    enc.switch("main", "switch main")
    assert enc.branch == "main" and enc.head().event_id == 4
    assert memory_store.head_moves(enc.row.id, "main")[-1].reason == "switch"


def test_bad_switches_and_forks_record_nothing(memory_store: Store) -> None:
    enc = fight(memory_store)
    enc.fork("dodge", None, "branch dodge")
    before = rows(memory_store)
    with pytest.raises(NothingToDo, match="already on branch 'main'"):
        enc.switch("main", "switch main")
    with pytest.raises(UnknownBranch, match="no branch named 'ghost' \\(branches: main, dodge\\)"):
        enc.switch("ghost", "switch ghost")
    with pytest.raises(BadInput, match="a branch named 'dodge' already exists"):
        enc.fork("dodge", 2, "branch dodge")
    with pytest.raises(SkirmishError, match="no event 99"):
        enc.fork("later", 99, "branch later --at 99")
    assert rows(memory_store) == before


def test_each_encounter_has_its_own_current_branch(memory_store: Store) -> None:
    enc = fight(memory_store)
    other = new_encounter(memory_store, "Second fight", "ap-countdown", {}, "new", seed=2)
    enc.fork("dodge", None, "branch dodge")
    enc.switch("dodge", "switch dodge")
    assert enc.branch == "dodge"
    assert other.branch == "main"
    other.fork("dodge", None, "branch dodge")  # branch names are per encounter
    assert memory_store.head(other.row.id, "dodge").event_id == other.head("main").event_id


def test_undo_and_redo_walk_the_redo_stack(memory_store: Store) -> None:
    enc = fight(memory_store)  # events: 1 start, 2 add Hauser, 3 add Orc, 4 damage Orc

    def stack() -> list[int]:
        return memory_store.redo_stack(enc.row.id, "main")

    assert stack() == []
    assert enc.undo(2, "undo 2") == [3, 2]
    assert enc.head().event_id == 2 and stack() == [4, 3]
    assert enc.redo(1, "redo") == [3]
    assert enc.head().event_id == 3 and stack() == [4]
    assert enc.redo(5, "redo 5") == [4]
    assert enc.head().event_id == 4 and stack() == []
    before = moves(memory_store, enc)
    with pytest.raises(NothingToDo, match="nothing to redo"):
        enc.redo(1, "redo")
    assert moves(memory_store, enc) == before


def test_an_append_after_undo_clears_the_redo_stack(memory_store: Store) -> None:
    enc = fight(memory_store)
    enc.undo(1, "undo")
    assert memory_store.redo_stack(enc.row.id, "main") == [4]
    new = hurt(enc, "Orc", 9)
    assert memory_store.redo_stack(enc.row.id, "main") == []
    with pytest.raises(NothingToDo):
        enc.redo(1, "redo")
    # The undone event stays in the tree, off main's history.
    assert [r.id for r in enc.path(new)] == [1, 2, 3, new]
    assert memory_store.event(enc.row.id, 4).parent_id == 3
    assert enc.reachable()[4] == []


def test_the_redo_stack_is_per_branch_and_survives_switches(memory_store: Store) -> None:
    enc = fight(memory_store)
    enc.undo(1, "undo")
    enc.fork("dodge", None, "branch dodge")
    enc.switch("dodge", "switch dodge")
    assert memory_store.redo_stack(enc.row.id, "dodge") == []
    with pytest.raises(NothingToDo):
        enc.redo(1, "redo")
    enc.switch("main", "switch main")
    assert memory_store.redo_stack(enc.row.id, "main") == [4]
    enc.redo(1, "redo")
    assert enc.head().event_id == 4


def test_undo_steps_over_a_whole_command_and_stops_at_the_start(memory_store: Store) -> None:
    enc = fight(memory_store)  # events 1 to 4
    enc.execute(StartRound(rolls={"Hauser": (6, 8), "Orc": (2, 2)}), "round")  # 5
    enc.execute(ApplyEffect(who="Orc", kind="bleeding", per_round=2), "effect Orc bleeding")  # 6
    upkeep = [r.id for r in enc.execute(Upkeep(), "upkeep")]
    assert upkeep == [7, 8]  # the bleeding tick and the round's end: one command
    assert enc.undo(1, "undo") == [6]
    assert enc.undo(10, "undo 10") == [5, 4, 3, 2, 1]
    before = moves(memory_store, enc)
    with pytest.raises(NothingToDo, match="nothing to undo"):
        enc.undo(1, "undo")
    assert moves(memory_store, enc) == before
    assert enc.redo(7, "redo 7") == [2, 3, 4, 5, 6, 8]
    # A branch forked between two events of one command undoes to before that command.
    enc.fork("mid-upkeep", 7, "branch mid-upkeep --at 7")
    enc.switch("mid-upkeep", "switch mid-upkeep")
    assert enc.undo(1, "undo") == [6]


def test_the_command_is_stored_beside_its_events(memory_store: Store) -> None:
    enc = fight(memory_store)
    cmd = Damage(who="Orc", amount=5)
    row = memory_store.command(memory_store.event(enc.row.id, 4).command_id)
    assert (row.branch, row.text, row.body) == ("main", "damage Orc 5", command_encoder.encode(cmd).decode())


def test_verify_finds_a_forged_event_hung_on_a_real_command(file_store: Store) -> None:
    """INSERT is allowed, so a forger can add a correctly hashed event that reuses a command."""
    from skirmish.eventlog.chain import command_hash, event_hash
    from skirmish.eventlog.rows import EventRow

    enc = fight(file_store)
    cmd = file_store.command(file_store.event(enc.row.id, 4).command_id)
    assert command_hash(enc.row.id, cmd) == cmd.hash
    parent = file_store.event(enc.row.id, 3)
    body = file_store.event(enc.row.id, 4).body.replace('"value":5', '"value":30')
    forged = EventRow(99, 3, cmd.id, "ap.damage-taken", 1, body, "2026-01-01T00:00:00+00:00", "")
    forged = forged._replace(hash=event_hash(enc.row.id, forged, parent.hash, cmd.hash))
    tamper(file_store, f"INSERT INTO events VALUES (99, {enc.row.id}, 3, {cmd.id}, 'ap.damage-taken', 1, "
                       f"'{body}', '{forged.recorded_at}', '{forged.hash}')")
    with pytest.raises(TamperedLog, match=r"the events of command \d+ \('damage Orc 5'\) are not the chain"):
        file_store.verify(enc.row.id)


def test_verify_finds_an_encounter_row_that_names_another_ruleset(file_store: Store) -> None:
    enc = fight(file_store)
    tamper(file_store, f"UPDATE encounters SET ruleset = 'phases' WHERE id = {enc.row.id}")
    with pytest.raises(TamperedLog, match="does not match its first event 1"):
        file_store.verify(enc.row.id)


def test_opening_and_reading_write_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only file can still be read, and writing to it is a clear StoreError: shown on
    a connection SQLite itself opens read-only."""
    path = tmp_path / "ro.db"
    store = Store(str(path))
    enc = fight(store)
    digest = store.verify(enc.row.id)
    store.close()
    real_connect = sqlite3.connect

    def read_only(database: str, **kwargs: object) -> sqlite3.Connection:
        return real_connect(f"file:{database}?mode=ro", uri=True, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite3, "connect", read_only)
    reader = Store(str(path), create=False)
    try:
        assert reader.verify(enc.row.id) == digest
        assert Encounter.open(reader).view().head == 4
        with pytest.raises(StoreError, match="cannot be written"):
            Encounter.open(reader).execute(Damage(who="Orc", amount=1), "damage Orc 1")
        with pytest.raises(StoreError, match="cannot be written"):
            reader.use("Test fight")
    finally:
        reader.close()


def test_an_event_id_too_large_for_sqlite_is_an_unknown_event(memory_store: Store) -> None:
    from skirmish.eventlog.errors import UnknownEvent

    enc = fight(memory_store)
    with pytest.raises(UnknownEvent):
        memory_store.event(enc.row.id, 10**20)
    with pytest.raises(UnknownEvent):
        enc.state_at(-1)
