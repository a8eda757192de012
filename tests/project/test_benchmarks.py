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
    assert lines[0].split() == ["1k", "5k"]
    for row in ("full replay: skirmish", "full replay: eventsourcing", "floor: sqlite3 + msgspec decode",
                "replay vs eventsourcing", "state at a past event, p99", "peak memory, replay: skirmish",
                "append, 1 txn/command: skirmish", "bulk append (import): eventsourcing",
                "replay vs tuned eventsourcing", "state-at vs tuned eventsourcing, p99", "bulk vs tuned eventsourcing"):
        (line,) = [line for line in lines if line.startswith(row)]
        figures = line.split()[-2:]  # one for each size
        assert all(float(f.replace(",", "").rstrip("x")) >= 0 for f in figures), line
    assert any(line.strip().startswith("skirmish state") and line.endswith(" ms") for line in lines)
    assert any(line.strip().startswith("skirmish declare") and line.endswith(" ms") for line in lines)
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
