"""`skirmish play` end to end: the installed console script on a real pseudo-terminal (80x24),
its screen read back through a terminal emulator (pyte) as the GM would see it."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shlex
import shutil
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pyte
import pytest

from skirmish.cli.main import run_cli
from skirmish.eventlog.store import Store

SCRIPT = shutil.which("skirmish", path=str(Path(sys.executable).parent)) or shutil.which("skirmish")


class Terminal:
    """A program on a pty of ``columns`` x ``lines``, and the screen it draws."""

    def __init__(self, argv: list[str], columns: int = 80, lines: int = 24) -> None:
        self.screen = pyte.Screen(columns, lines)
        self.stream = pyte.ByteStream(self.screen)
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(lines)}
        env.pop("NO_COLOR", None)
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def read(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    self.stream.feed(os.read(self.master, 1 << 16))
                except OSError:  # the program ended
                    return

    def wait_for(self, text: str, seconds: float = 20.0) -> str:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.read(0.1)
            if text in self.text():
                return self.text()
        raise AssertionError(f"{text!r} never appeared on the screen:\n{self.text()}")

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
        os.close(self.master)


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
