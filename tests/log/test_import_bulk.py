"""`import` at the speed of a bulk load (issue 27): what each shortcut it takes must not lose.

Every row of an export goes in as it was and the chain is still verified before the commit;
these tests hold the shortcuts to that: the rows handed to the store table by table, and a
file whose links or hashes are broken still refused, one line naming the row at fault."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.main import run_cli
from skirmish.eventlog.store import Restoring
from skirmish.projections.engine import LogFile
from skirmish.projections.write import transfer


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fight with an undo, a branch and a note: every kind of row, links that jump."""
    db = str(tmp_path_factory.mktemp("export") / "fight.db")
    for line in (
        ["new", "Bridge ambush", "--rules", "ap-countdown", "--seed", "5"],
        ["add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40"],
        ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30"],
        ["round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5"],
        ["damage", "Orc", "4"], ["undo"], ["damage", "Orc", "5"], ["branch", "what-if", "--at", "3"],
        ["switch", "what-if"], ["damage", "Hauser", "3"], ["switch", "main"],
        ["note", "3", "the Orc hesitated"],
    ):
        assert run_cli(["--db", db, *line]) == 0, line
    out = Path(db).with_name("fight.jsonl")
    assert run_cli(["--db", db, "export", "--out", str(out)]) == 0
    return out


def test_rows_are_handed_over_a_table_at_a_time(
    export: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks of 3 rows, so each table ends with a part chunk: that part goes in before the
    next table's first row. (A command's part chunk held back until the end left events
    naming commands not yet there: SQLite's deferred foreign keys then looked up the
    children of every row inserted after, four times the import's insert time.)"""
    monkeypatch.setattr(transfer, "CHUNK", 3)
    handed: list[tuple[str, list[int]]] = []
    add = Restoring.add

    def spy(self: Restoring, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
        handed.append((table, [r[0] for r in rows]))
        add(self, table, rows)

    monkeypatch.setattr(Restoring, "add", spy)
    log_file = LogFile(str(tmp_path / "copy.db"), create=True)
    try:
        with export.open("rb") as lines:
            transfer.import_jsonl(log_file, lines, "fight.jsonl")
    finally:
        log_file.close()
    order = ["commands", "events", "head_moves"]
    tables = [table for table, _ in handed]
    assert tables == sorted(tables, key=order.index), tables
    for table in order:  # each table's ids, every one once, in the file's order
        ids = [i for t, chunk in handed if t == table for i in chunk]
        assert ids == sorted(set(ids)) and len(ids) > 3
