"""`skirmish play` end to end: the installed console script on a real pseudo-terminal (80x24),
its screen read back through a terminal emulator (pyte) as the GM would see it."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from skirmish.cli.main import run_cli
from skirmish.eventlog.store import Store

from support.terminal import SCRIPT, Terminal

pytestmark = pytest.mark.slow  # the console on a real pseudo-terminal: `pytest -m "not slow"` leaves it out


@pytest.fixture
def fight(tmp_path: Path) -> str:
    db = str(tmp_path / "fight.db")
    for line in ('new "Bridge ambush" --rules ap-countdown --seed 1', "add Hauser --side players --stat qu=1 --stat hits=40",
                 "add Orc --side foes --stat qu=0 --stat hits=30", "round --roll Hauser=6,8 --roll Orc=5,5"):
        assert run_cli(["--db", db, *shlex.split(line)]) == 0
    return db


@pytest.fixture
def terminal(fight: str) -> Iterator[Terminal]:
    assert SCRIPT, "the `skirmish` console script is not installed beside this Python"
    term = Terminal([SCRIPT, "--db", fight, "play"])
    yield term
    term.close()


def test_the_installed_console_on_a_real_terminal(terminal: Terminal, fight: str) -> None:
    terminal.wait_for("round 1, count 35; now: Hauser; next: Orc")
    screen = terminal.wait_for("###### 30/30")  # a loaded machine may paint the board a frame later
    assert "Bridge ambush (ap-countdown), branch main, at #4" in screen

    # Tab completes the command and the name; Enter records it; the board shows 30 - 5.
    terminal.type("dam\t")
    terminal.wait_for("damage ")
    terminal.type("O\t5\r")
    terminal.wait_for("#####. 25/30")
    terminal.wait_for("#5 Orc takes 5 hits (25 left)")

    # A second terminal's command shows within a second or so.
    assert run_cli(["--db", fight, "damage", "Hauser", "4"]) == 0
    terminal.wait_for("#####. 36/40", seconds=10)

    # PgUp: the board as it was before the co-GM's blow, marked as the past.
    terminal.type("\x1b[5~")
    terminal.wait_for("PAST #5")
    terminal.wait_for("###### 40/40")

    terminal.type("\x11")  # Ctrl+Q
    assert terminal.process.wait(10) == 0
    store = Store(fight, create=False)
    try:
        texts = store.command_texts(store.current_encounter().id, 10)
    finally:
        store.close()
    assert texts[-2:] == ["damage Orc 5", "damage Hauser 4"]
