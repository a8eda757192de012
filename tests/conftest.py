"""Shared fixtures: an in-memory store, a file store in tmp_path, and an isolated environment."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

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
