"""The console takes what GMs expect as the command line does: `rename`, `set`, `roll`,
`note --on` and `end` typed, completed, and shown on the board (a note's mark, ENDED)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from skirmish.cli.main import run_cli

pytest.importorskip("textual")
from skirmish.cli.console import Console, board, pending_text, where_lines  # noqa: E402
from skirmish.cli.session import Completer, Session  # noqa: E402

SETUP = ('new "Bridge" --rules ap-countdown --seed 2', "add Kara --side players --stat qu=1 --stat hits=40",
         "add Goblin --side foes --stat qu=0 --stat hits=9 --count 2")


def start(db: str) -> None:
    import shlex

    for line in SETUP:
        assert run_cli(["--db", db, *shlex.split(line)]) == 0


def test_the_new_commands_complete_with_names(tmp_path: Path) -> None:
    db = str(tmp_path / "fight.db")
    start(db)
    session = Session(db)
    try:
        complete = Completer(session).candidates
        assert complete("ren") == ["rename"]
        assert complete("rename K") == ["rename Kara"]
        assert complete("set Gob") == ["set 'Goblin 1'", "set 'Goblin 2'"]
        assert complete("roll 2d6 --fo") == ["roll 2d6 --for"]
        assert complete("roll 2d6 --for K") == ["roll 2d6 --for Kara"]
        assert complete("note --on K") == ["note --on Kara"]
        assert complete("en") == ["encounters", "end"]
    finally:
        session.close()


def test_the_board_marks_notes_and_the_end(tmp_path: Path) -> None:
    db = str(tmp_path / "fight.db")
    start(db)
    session = Session(db)
    try:
        assert session.run("note --on 'Goblin 2' 'has the key'").code == 0
        assert session.run("rename 'Goblin 2' Snik").code == 0
        assert session.run("end --reason fled").code == 0
        refused = session.run("damage Snik 2")
        assert refused.code != 0 and "`skirmish undo` reopens it" in refused.err
        shown = session.look()
    finally:
        session.close()
    assert where_lines(shown, past=False).plain.startswith(f" ENDED #{shown.ended.event if shown.ended else 0} ")
    assert pending_text(shown).plain == "pending: - | * Snik: has the key"
    from rich.console import Console as RichConsole

    out = RichConsole(width=80, record=True)
    out.print(board(shown, None))
    assert "Snik *" in out.export_text()


def test_an_encounter_ended_in_the_console_at_80_by_24(tmp_path: Path) -> None:
    db = str(tmp_path / "fight.db")
    start(db)
    session = Session(db)

    async def play() -> None:
        app = Console(session)
        async with app.run_test(size=(80, 24)) as pilot:
            app.action_command("end --reason 'the goblins flee'")
            await pilot.pause()
            where = app.query_one("#where").render()
            assert "ENDED" in str(where)

    try:
        asyncio.run(play())
    finally:
        session.close()
