"""The benchmarks run (`python -m benchmarks --quick`) and print their table; no figure is judged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the benchmarks' quick run: `pytest -m "not slow"` leaves it out

ROOT = Path(__file__).resolve().parents[2]


def test_quick_benchmarks_print_the_table(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[-2:] == ["1k", "5k"]
    # The race: each figure a median with its range at each size, the ratios round by round.
    for row in ("replay (fight): skirmish, ev/s wall", "replay (fight): floor, ev/s cpu",
                "replay (fight): eventsourcing -O, ev/s wall", "replay (fight): floor over skirmish (target <= 1.4x)",
                "replay (upkeep): skirmish, ev/s wall", "state at a past event: tuned peer p99 over skirmish p99",
                "at the table, 1 txn/command: same-work peer p50 over skirmish p50",
                "at the table, 1 txn/command: raw-append peer p50 over skirmish p50",
                "bulk append, 1,000 events of the fight: skirmish over tuned peer",
                "whole process: state over the interpreter's start", "whole process: undo, ms wall"):
        (line,) = [line for line in lines if line.startswith(row)]
        assert line.count("[") == 2 and line.count("]") == 2, line  # a median [min-max] at each size
    # The growth table: each interactive command as a whole process at each size.
    growth = lines[lines.index(next(line for line in lines if line.startswith("whole process (median wall"))):]
    for command in ("state", "declare", "undo", "redo", "branch", "switch", "branches", "note", "explain", "why",
                    "log", "diff"):
        (line,) = [line for line in growth if line[:40].strip() == f"skirmish {command}"]
        assert line.count(" MB") == 2 and line.endswith("x"), line
    # The whole-log table: each command that reads or writes the whole log, done, at each size.
    wholes = lines[lines.index(next(line for line in lines if line.startswith("whole-log command"))):]
    for command in ("replay", "log --all", "verify", "export jsonl", "export md", "export html", "import"):
        (line,) = [line for line in wholes if line[:42].strip() == f"skirmish {command}"]
        assert line.count("k/s") == 2 and line.count(" MB") == 2, line
    # The generated logs are real skirmish logs: their hash chains verify.
    assert sorted(p.name for p in tmp_path.glob("skirmish-*.db")) == ["skirmish-1k.db", "skirmish-5k.db"]


def test_the_race_runs_only_the_groups_named(tmp_path: Path) -> None:
    # `--groups replay` is how the replay is raced at 1M without the table commands' copies of
    # the log: only the two replay groups run, and only their rows are printed.
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--race", "--sizes", "1k", "--groups", "replay",
         "--dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split(":")[0] for line in done.stdout.splitlines() if line.startswith(("replay", "state", "at the",
                                                                                       "bulk", "whole process"))]
    assert rows and set(rows) == {"replay (fight)", "replay (upkeep)"}, rows
    assert "whole process" not in done.stderr and "bulk append" not in done.stderr


def test_an_unknown_group_is_refused_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--race", "--groups", "replay,replays", "--dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].endswith(
        "--groups: no group 'replays' in the race (its groups: replay, state, table, bulk, process)")
    assert not list(tmp_path.glob("*.db"))  # refused before any log was generated
