"""The srd-5.2 sample on the console's board at 80 columns: the names and sides take their own
width, so the effects column has the rest of the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from skirmish.cli.main import run_cli

pytest.importorskip("textual")
from skirmish.cli.console import board  # noqa: E402
from skirmish.cli.session import Session  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "chapel-drake.skirmish"


def test_the_sample_board_at_80_columns_shows_death_saves_whole(tmp_path: Path) -> None:
    from rich.console import Console as RichConsole

    db = str(tmp_path / "fight.db")
    assert run_cli(["--db", db, "run", str(SAMPLE)]) == 0
    session = Session(db)
    try:
        shown = session.look()
    finally:
        session.close()
    out = RichConsole(width=80, record=True)
    out.print(board(shown, None))
    text = out.export_text()
    assert all(len(line) <= 80 for line in text.splitlines())
    # The sample ends with Hauser at 0 HP after one death save of 11, a success (§9).
    hauser = next(line for line in text.splitlines() if "Hauser" in line)
    assert "death saves (1S 0F)," in hauser
    assert "Goblin 1  foes" in text  # the name column as wide as the longest name, not a share of the line
