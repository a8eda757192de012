"""`pytest -m "not slow"` is a quick loop, held by tests/conftest.py: a test not marked slow
that starts a process or listens on a port fails, and says to mark it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

SAYS = r"which a quick test may not: mark it slow"


def test_a_quick_test_starting_a_process_fails_and_says_to_mark_it_slow() -> None:
    with pytest.raises(pytest.fail.Exception, match=r"starts a process \(subprocess\), " + SAYS):
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    with pytest.raises(pytest.fail.Exception, match=r"starts a process \(os.fork\), " + SAYS):
        os.fork()
    with pytest.raises(pytest.fail.Exception, match=r"starts a process \(os.system\), " + SAYS):
        os.system("true")


def test_a_quick_test_listening_on_a_port_fails_and_says_to_mark_it_slow() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        with pytest.raises(pytest.fail.Exception, match=r"listens on a socket \(a server\), " + SAYS):
            s.listen(1)


@pytest.mark.slow
def test_a_slow_test_starts_its_processes() -> None:
    assert subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True).stdout == "42\n"
