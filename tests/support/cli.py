"""Running skirmish in a test: the command line in-process against one database, and a new
encounter on a store."""

from __future__ import annotations

import pytest

from skirmish.cli.main import run_cli
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter, new_encounter


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


def start(store: Store, ruleset: str = "ap-countdown", seed: int = 1, **options: str) -> Encounter:
    return new_encounter(store, "Test fight", ruleset, options, "new", seed=seed)
