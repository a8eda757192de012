"""`import` into a new file builds the secondary indexes after the rows (issue 27): the file
ends with exactly the indexes a file made by skirmish has, the chain is verified with them
in place, and a refused import leaves the file's indexes as they were."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from skirmish.eventlog import connection
from support.cli import Cli


def indexes(db: str) -> list[tuple[str, str, str | None]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").fetchall()
    finally:
        conn.close()


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    statements: list[str] = []
    real = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real(*args, **kwargs)
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(connection.sqlite3, "connect", connect)
    return statements


@pytest.fixture
def exported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Cli, Path]:
    cli = Cli(str(tmp_path / "fight.db"), capsys)
    cli.ok("new", "Bridge ambush", "--rules", "ap-countdown", "--seed", "5")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")
    cli.ok("damage", "Orc", "4")
    cli.ok("undo")
    cli.ok("branch", "what-if", "--at", "3")
    out = tmp_path / "fight.jsonl"
    cli.ok("export", "--out", str(out))
    return cli, out


def test_an_import_into_a_new_file_builds_its_indexes_after_the_rows(
    exported: tuple[Cli, Path], tmp_path: Path, traced: list[str]
) -> None:
    cli, out = exported
    made_by_skirmish = indexes(cli.db)
    target = Cli(str(tmp_path / "new.db"), cli.capsys)
    traced.clear()
    target.ok("import", str(out))
    dropped = [s for s in traced if s.startswith("DROP INDEX")]
    first_drop = next(i for i, s in enumerate(traced) if s.startswith("DROP INDEX"))
    built = [i for i, s in enumerate(traced) if s.startswith("CREATE INDEX") and i > first_drop]
    rows = [i for i, s in enumerate(traced) if s.startswith("INSERT INTO events")]
    # The eight secondary indexes of events and head_moves (schema.py): none unique.
    assert len(dropped) == len(built) == 8, "\n".join(dropped)
    assert rows and min(built) > max(rows)  # built over all the rows, after the last insert
    assert indexes(target.db) == made_by_skirmish
    assert target.ok("verify").startswith("intact: ")


def test_a_refused_import_into_an_empty_file_leaves_its_indexes(exported: tuple[Cli, Path], tmp_path: Path) -> None:
    """The file holds skirmish's schema and no events: a tampered export is refused after its
    rows went in, and the indexes' drop rolls back with them."""
    cli, out = exported
    lines = out.read_bytes().splitlines()
    tampered = tmp_path / "tampered.jsonl"
    # The last line's hash no longer covers it: verify refuses it after the rows went in.
    tampered.write_bytes(b"\n".join([*lines[:-1], lines[-1].replace(b"what-if", b"what-of")]) + b"\n")
    empty = tmp_path / "empty.db"
    target = Cli(str(empty), cli.capsys)
    from skirmish.eventlog.store import Store

    Store(str(empty)).close()  # a file with skirmish's schema and no events
    before = indexes(str(empty))
    assert len(before) > 8
    target.fails("import", str(tampered))
    assert indexes(str(empty)) == before
