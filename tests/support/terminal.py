"""The installed console script on a real pseudo-terminal, its screen read through pyte."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pyte

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
