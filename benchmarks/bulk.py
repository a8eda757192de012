"""The race's bulk group alone: `skirmish import` of the bulk fight's export beside the tuned peer.

    python -m benchmarks.bulk --dir D [--before OLD/.venv/bin/python] [--rounds 7]

D holds the race's bulk source (bulk-20000.db) and its export (bulk-20000.db.jsonl), as
`python -m benchmarks --race --dir D` leaves them. The contenders are the race's own
(benchmarks/race.py): the same workers, interleaved rounds, a fresh file a run, ratios taken
round by round. For working on the import without the whole race's minutes.

    python -m benchmarks.bulk --dir D --instructions [--before OLD/.venv/bin/python]

counts instead, with valgrind's callgrind (repeatable whatever the machine's load), the
instructions of a process importing the export into a new file, less those of the same
process loading the same modules and importing nothing.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchmarks.race import BULK_EVENTS, PER_SAVE, Contender, Group, _events, rows_of, run_rounds, table, worker


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bulk")
    parser.add_argument("--dir", required=True, type=Path)
    parser.add_argument("--before", help="an interpreter with an earlier skirmish installed")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--instructions", action="store_true", help="count instructions (callgrind) instead")
    args = parser.parse_args()
    source = str(args.dir / f"bulk-{BULK_EVENTS}.db")
    export = source + ".jsonl"
    if not Path(export).exists():
        sys.exit(f"no {export}: run `python -m benchmarks --race --dir {args.dir}` once to make it")
    if args.instructions:
        for name, python in (("skirmish import", sys.executable), ("skirmish import before", args.before)):
            if python:
                print(f"{name}: {instructions(python, export):,} instructions")
        return
    events = str(_events(source))
    scratch = str(args.dir / "bulk-race")

    def fresh(python: list[str], kind: str, *rest: str) -> Callable[[int], list[str]]:
        def argv(r: int) -> list[str]:
            target = f"{scratch}-{kind}-{python[0].replace('/', '_')}-{r}.db"
            for suffix in ("", "-wal", "-shm", ".fight"):
                Path(target + suffix).unlink(missing_ok=True)
            return worker(python, kind, target, *rest)
        return argv

    py, tuned = [sys.executable], [sys.executable, "-O"]
    group = Group(f"bulk, {int(events):,} events", [
        Contender("skirmish import", fresh(py, "skirmish-import", export, events), checked=False),
        Contender("eventsourcing -O", fresh(tuned, "eventsourcing-bulk", source, str(PER_SAVE))),
        *([Contender("skirmish import before", fresh([args.before], "skirmish-import", export, events),
                     checked=False)] if args.before else []),
    ])
    run_rounds(group, args.rounds, lambda line: print(line, file=sys.stderr))
    measured = rows_of(group, [
        ("import over tuned peer, wall (target >= 1x)", "skirmish import", "eventsourcing -O", "wall", False),
        ("import over tuned peer, cpu", "skirmish import", "eventsourcing -O", "cpu", False),
        ("import over import before, wall", "skirmish import", "skirmish import before", "wall", False),
    ])
    print(table([f"{args.rounds} rounds"], [measured], []))
    for path in args.dir.glob("bulk-race-*"):
        path.unlink()


# A process importing EXPORT into a new file at DB ("import"), or loading what it loads and
# importing nothing ("nothing"): the modules, the ruleset's codec and the command line's.
_IMPORTING = """
import sys
from skirmish.cli.main import run_cli
import skirmish.projections.write.transfer
from skirmish.projections.write.engine import codec_for
codec_for("ap-countdown")
if sys.argv[1] == "import":
    assert run_cli(["--db", sys.argv[2], "import", sys.argv[3]]) == 0
"""


def instructions(python: str, export: str) -> int:
    """Instructions of `skirmish import` of ``export`` into a new file, in ``python``, less a
    process doing all but the import (valgrind --tool=callgrind, each in a new folder)."""
    counts = []
    for mode in ("nothing", "import"):
        with tempfile.TemporaryDirectory() as folder:
            ran = subprocess.run(
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", python, "-c", _IMPORTING,
                 mode, str(Path(folder) / "imported.db"), export],
                capture_output=True, text=True, check=True,
            )
        collected = re.search(r"Collected : (\d+)", ran.stderr)
        if collected is None:
            sys.exit(f"valgrind said no count: {ran.stderr[-500:]}")
        counts.append(int(collected.group(1)))
    return counts[1] - counts[0]


if __name__ == "__main__":
    main()
