"""Shared fixtures: an in-memory store, a file store in tmp_path, and an isolated environment."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import pytest

# The example third-party ruleset (docs/adding-a-ruleset.md), installed for the whole
# suite as a package would be: its dist-info in tests/toy registers it under the entry
# points, so every test parametrized over the registry (the shared invariants, the view
# contract, the flag refusals) runs it too.
TOY = str(Path(__file__).resolve().parent / "toy")
if TOY not in sys.path:
    sys.path.append(TOY)

from skirmish.eventlog.store import Store

import support.examples  # noqa: F401  (loads hypothesis's profile: ci or dev)
from support.cli import Cli


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's SKIRMISH_DB or writes ./skirmish.db."""
    monkeypatch.delenv("SKIRMISH_DB", raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def memory_store() -> Iterator[Store]:
    store = Store(":memory:")
    yield store
    store.close()


@pytest.fixture
def file_store(tmp_path: Path) -> Iterator[Store]:
    store = Store(str(tmp_path / "fight.db"))
    yield store
    store.close()


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A database path for CLI tests."""
    return str(tmp_path / "cli.db")


@pytest.fixture
def cli(db: str, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(db, capsys)


# --- the quick loop stays quick ------------------------------------------------------------
# `pytest -m "not slow"` is the loop a developer runs between edits. A test that starts a
# process (a subprocess, bash, `skirmish serve`, Chromium, the console on a pty, a forked
# writer) or listens on a port is slow by nature: unmarked, it fails here at the start,
# during its fixtures' setup and teardown as in its body, and says to mark it.


# Taken now: a test may put its own subprocess.Popen in place (monkeypatch), and the guard
# must still find the class to patch, and leave its fixtures to be torn down.
_POPEN = subprocess.Popen


@contextmanager
def no_process_started(item: pytest.Item) -> Iterator[None]:
    def refuse(what: str) -> Callable[..., NoReturn]:
        def refused(*args: Any, **kwargs: Any) -> NoReturn:
            pytest.fail(f"{item.nodeid} {what}, which a quick test may not: mark it slow "
                        "(@pytest.mark.slow, or `pytestmark = pytest.mark.slow` for its module) "
                        "so `pytest -m \"not slow\"` stays a quick loop", pytrace=False)
        return refused

    with pytest.MonkeyPatch.context() as patch:
        # subprocess.run, check_output, asyncio's subprocesses and Playwright's browser all
        # start theirs through Popen._execute_child.
        patch.setattr(_POPEN, "_execute_child", refuse("starts a process (subprocess)"))
        for start in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system"):
            patch.setattr(os, start, refuse(f"starts a process (os.{start})"))
        patch.setattr(socket.socket, "listen", refuse("listens on a socket (a server)"))
        yield


def quick(item: pytest.Item) -> Generator[None, object, object]:
    if item.get_closest_marker("slow") is not None:
        return (yield)
    with no_process_started(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from quick(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from quick(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    return (yield from quick(item))
