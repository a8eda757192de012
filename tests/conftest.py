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

from skirmish.cli.main import run_cli
from skirmish.eventlog.store import Store
from skirmish.projections.engine import Encounter, new_encounter


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


class Cli:
    """Runs `skirmish` in-process against one database; keeps stdout, stderr and exit code."""

    def __init__(self, db: str, capsys: pytest.CaptureFixture[str]) -> None:
        self.db, self.capsys = db, capsys
        self.out = self.err = ""
        self.code = 0

    def __call__(self, *args: str) -> str:
        self.capsys.readouterr()
        self.code = run_cli(["--db", self.db, *args])
        captured = self.capsys.readouterr()
        self.out, self.err = captured.out, captured.err
        return self.out

    def ok(self, *args: str) -> str:
        out = self(*args)
        assert self.code == 0, f"skirmish {' '.join(args)} failed: {self.err}"
        return out

    def fails(self, *args: str) -> str:
        """Run a command that must fail: one `Error:` line, non-zero exit; return that line."""
        self(*args)
        assert self.code != 0, f"skirmish {' '.join(args)} should have failed: {self.out}"
        lines = self.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), self.err
        return lines[0]


@pytest.fixture
def cli(db: str, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(db, capsys)


def start(store: Store, ruleset: str = "ap-countdown", seed: int = 1, **options: str) -> Encounter:
    return new_encounter(store, "Test fight", ruleset, options, "new", seed=seed)
