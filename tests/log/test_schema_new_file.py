"""A new file's schema made without sqlite-utils is the one the migrations make through it:
the same sqlite_master, entry by entry, the same migration record, and it migrates on."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import sqlite_utils

from skirmish.eventlog import schema
from skirmish.eventlog.connection import connect


def _old_way(path: Path) -> None:
    """The schema as every file was made before: sqlite-utils' Migrations, all five."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("BEGIN IMMEDIATE")
    schema._migration_set().apply(sqlite_utils.Database(conn))
    conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")
    conn.execute("COMMIT")
    conn.close()


def _fast_way(path: Path) -> None:
    connect(str(path), create=True).close()


def _master(path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return list(conn.execute("SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master ORDER BY rowid"))
    finally:
        conn.close()


def _record(path: Path) -> tuple[list[tuple[object, ...]], int, str]:
    conn = sqlite3.connect(path)
    try:
        rows = list(conn.execute("SELECT id, migration_set, name FROM _sqlite_migrations ORDER BY id"))
        return rows, conn.execute("PRAGMA user_version").fetchone()[0], conn.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        conn.close()


def test_new_file_has_the_entries_the_migrations_make(tmp_path: Path) -> None:
    old, new = tmp_path / "old.db", tmp_path / "new.db"
    _old_way(old)
    _fast_way(new)
    made_old, made_new = _master(old), _master(new)
    # Entry by entry, in order, with the same pages: a statement missing, reordered or
    # worded otherwise (a view, a trigger, the record's unique index) fails here.
    assert len(made_new) == len(made_old)
    for entry_new, entry_old in zip(made_new, made_old, strict=True):
        assert entry_new == entry_old
    # Each name the migrations are known by, in their order, as five rows of skirmish's set.
    names = ["0001_event_tree", "0002_readable_views", "0003_snapshots", "0004_lookups_that_stay_flat",
             "0005_flat_at_a_million"]
    expected = ([(i, "skirmish", name) for i, name in enumerate(names, 1)], 5, "wal")
    assert _record(new) == _record(old) == expected


def test_a_fast_made_file_migrates_on_as_an_old_made_one(tmp_path: Path) -> None:
    """A later migration, added the way a sixth would be, finds only itself pending in both
    files and leaves them alike."""
    for how, path in ((_old_way, tmp_path / "old.db"), (_fast_way, tmp_path / "new.db")):
        how(path)
        migrations = schema._migration_set()

        @migrations(name="0006_a_later_one")
        def later(db: sqlite_utils.Database) -> None:
            db.execute("CREATE INDEX commands_by_branch ON commands(encounter_id, branch, id)")

        conn = sqlite3.connect(path, isolation_level=None)
        database = sqlite_utils.Database(conn)
        assert [m.name for m in migrations.pending(database)] == ["0006_a_later_one"]
        migrations.apply(database)
        assert migrations.pending(database) == []
        conn.close()
    old_master, new_master = _master(tmp_path / "old.db"), _master(tmp_path / "new.db")
    assert old_master == new_master
    assert ("index", "commands_by_branch") in {(t, n) for t, n, *_ in new_master}


@pytest.mark.slow
def test_a_new_file_is_made_without_importing_sqlite_utils(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    code = ("import sys; from skirmish.eventlog.connection import connect; "
            f"connect({str(path)!r}, create=True).close(); print('sqlite_utils' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
    # And it is a file skirmish opens as its own at this schema, its guards all there.
    conn = connect(str(path), create=False)
    try:
        assert schema.missing(conn) == []
    finally:
        conn.close()


def test_an_older_file_is_still_migrated_through_sqlite_utils(tmp_path: Path) -> None:
    """A file with the first two migrations only (not new: it has tables) is brought to
    the current schema, as before, with the same entries as a file made new."""
    path = tmp_path / "older.db"
    conn = sqlite3.connect(path, isolation_level=None)
    migrations = schema._migration_set()
    migrations.apply(sqlite_utils.Database(conn), stop_before="0003_snapshots")
    conn.execute("PRAGMA user_version = 2")
    conn.close()
    connect(str(path), create=False).close()
    new = tmp_path / "new.db"
    _fast_way(new)
    older_kinds = [(t, n, tb, sql) for t, n, tb, _page, sql in _master(path)]
    new_kinds = [(t, n, tb, sql) for t, n, tb, _page, sql in _master(new)]
    assert older_kinds == new_kinds
    assert _record(path)[:2] == _record(new)[:2]


@pytest.mark.slow
def test_import_into_a_new_file_does_not_import_sqlite_utils(tmp_path: Path) -> None:
    """`skirmish import` into a free path: the new file made the fast way, the log imported."""
    export = Path(__file__).parents[1] / "fixtures" / "exports" / "bridge-ambush.jsonl"
    path = tmp_path / "imported.db"
    code = ("import sys; from skirmish.cli.main import run_cli; "
            f"code = run_cli(['--db', {str(path)!r}, 'import', {str(export)!r}]); "
            "print(code, 'sqlite_utils' in sys.modules, file=sys.stderr)")
    err = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stderr
    assert err.strip().splitlines()[-1] == "0 False"
    conn = connect(str(path), create=False)
    try:
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 83
        assert schema.missing(conn) == []
    finally:
        conn.close()


def test_new_file_states_the_first_migration_as_an_earlier_skirmish_wrote_it(tmp_path: Path) -> None:
    """tests/fixtures/bridge-ambush.db was made by an earlier skirmish at schema 1: the tables,
    indexes and triggers of 0001 that no later migration replaced are in a new file word for
    word (a statement reworded or re-indented in the code would show here)."""
    fixture = Path(__file__).parents[1] / "fixtures" / "bridge-ambush.db"
    conn = sqlite3.connect(f"file:{fixture}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        earlier = {(t, n): sql for t, n, sql in conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'index', 'trigger') "
            "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%migrations%'")}
    finally:
        conn.close()
    new = tmp_path / "new.db"
    _fast_way(new)
    made = {(t, n): sql for t, n, _tb, _page, sql in _master(new)}
    assert len(earlier) == 5 + 2 + 4 * 2  # four log tables and settings, two indexes, two triggers a log table
    for key, sql in earlier.items():
        assert made[key] == sql, key
