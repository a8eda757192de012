"""`skirmish serve` as a process of its own, as from the GM's terminal: started on a free
port of 127.0.0.1, its terminal kept in a file, its memory readable, stopped at the end."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SCRIPT = shutil.which("skirmish", path=str(Path(sys.executable).parent)) or shutil.which("skirmish")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Served:
    port: int
    process: subprocess.Popen[bytes]
    said: Path  # what the command printed to its terminal

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def rss_kb(self) -> int:
        """The server's resident memory now, in kB (/proc)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
        assert found, status
        return int(found.group(1))

    def gm_link(self) -> str:
        """The GM's link `serve` printed (with its secret), waiting for it to be printed."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            found = re.search(r"GM's page: (http://\S+)", self.said.read_text())
            if found:
                return found.group(1)
            time.sleep(0.05)
        raise AssertionError(f"no GM link: {self.said.read_text()}")


@contextmanager
def serving(db: str, *pins: str, env: dict[str, str] | None = None, options: tuple[str, ...] = ()) -> Iterator[Served]:
    """`skirmish [PINS] serve` on a free port of 127.0.0.1 with its own environment."""
    assert SCRIPT
    port = free_port()
    said = Path(db).with_suffix(f".serve-{port}.txt")
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SKIRMISH_")}
    with said.open("w") as err:
        process = subprocess.Popen([SCRIPT, "--db", db, *pins, "serve", "--port", str(port), *options],
                                   stdout=subprocess.DEVNULL, stderr=err, env={**environ, **(env or {})})
    served = Served(port, process, said)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, f"serve stopped: {said.read_text()}"
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert time.monotonic() < deadline, "serve did not listen within 30 s"
                time.sleep(0.05)
        yield served
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
