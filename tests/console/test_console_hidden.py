"""The GM's board in the console marks a combatant hidden from the players (`add --hidden`,
`hide`; docs/browser.md, "What each audience sees"), as `state` lists them ("hidden from the
players: ..."): on the board now, after a `reveal` or a `hide` typed in the console, and on
the board of an earlier moment stepped back to."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path

import pytest

from skirmish.cli.main import run_cli

pytest.importorskip("textual")
from test_console import row, screen, type_line  # noqa: E402

from skirmish.cli.console import HIDDEN, Console, board  # noqa: E402
from skirmish.cli.session import Session  # noqa: E402

SETUP = [
    "new Bridge --rules ap-countdown",
    "add Hauser --side players --stat qu=1 --stat hits=40",
    "add Orc --side foes --stat qu=0 --stat hits=30",
    "add Lurker --side foes --stat qu=0 --stat hits=20 --hidden",
]


def state_says(db: str, capsys: pytest.CaptureFixture[str]) -> str:
    """The line `skirmish state` prints of the hidden ones ("" when it prints none)."""
    capsys.readouterr()
    assert run_cli(["--db", db, "state"]) == 0
    return next((line for line in capsys.readouterr().out.splitlines() if line.startswith("hidden from")), "")


def marked(app: Console) -> set[str]:
    """The combatants whose board row carries the mark."""
    return {name for name in ("Hauser", "Orc", "Lurker") if f"{name}{HIDDEN}" in row(app, name)}


@pytest.mark.slow
def test_the_console_marks_who_the_players_do_not_see(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "fight.db")
    for line in SETUP:
        assert run_cli(["--db", db, *shlex.split(line)]) == 0, line
    assert state_says(db, capsys) == "hidden from the players: Lurker"
    session = Session(db)

    async def play() -> None:
        app = Console(session)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert marked(app) == {"Lurker"}, screen(app)
            await type_line(pilot, app, "reveal Lurker")
            assert marked(app) == set(), screen(app)
            await type_line(pilot, app, "hide Orc")
            assert marked(app) == {"Orc"}, screen(app)
            # Back one event, before the Orc was hidden and after Lurker was revealed: neither.
            await pilot.press("pageup")
            await pilot.pause()
            assert "PAST" in screen(app) and marked(app) == set(), screen(app)
            # Back one more, before the reveal: Lurker hidden as it was then.
            await pilot.press("pageup")
            await pilot.pause()
            assert marked(app) == {"Lurker"}, screen(app)

    try:
        asyncio.run(play())
    finally:
        session.close()
    assert state_says(db, capsys) == "hidden from the players: Orc"  # and the console agrees with state


def test_a_long_hidden_name_keeps_its_mark_whole(tmp_path: Path) -> None:
    """The name is cut in its middle to fit (console.middle_cut), never the mark."""
    from rich.console import Console as RichConsole

    db = str(tmp_path / "fight.db")
    for line in (*SETUP[:3], "add 'Lurker under the old stone bridge' --side foes --stat qu=0 --stat hits=20 --hidden"):
        assert run_cli(["--db", db, *shlex.split(line)]) == 0, line
    session = Session(db)
    try:
        shown = session.look()
    finally:
        session.close()
    out = RichConsole(width=80, record=True)
    out.print(board(shown, None, 80, frozenset({"Lurker under the old stone bridge"})))
    text = out.export_text()
    long_row = next(line for line in text.splitlines() if "Lurker" in line)
    assert "…" in long_row and f"{HIDDEN} " in long_row, text  # cut, and marked
    assert HIDDEN not in next(line for line in text.splitlines() if "Orc" in line)
