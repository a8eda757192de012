"""The race's bulk group alone: `skirmish import` of the bulk fight's export beside the tuned peer.

    python -m benchmarks.bulk --dir D [--before OLD/.venv/bin/python] [--rounds 7]

D holds the race's bulk source (bulk-20000.db) and its export (bulk-20000.db.jsonl), as
`python -m benchmarks --race --dir D` leaves them. The contenders are the race's own
(benchmarks/race.py): the same workers, interleaved rounds, a fresh file a run, ratios taken
round by round. For working on the import without the whole race's minutes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from benchmarks.race import BULK_EVENTS, PER_SAVE, Contender, Group, _events, rows_of, run_rounds, table, worker


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bulk")
    parser.add_argument("--dir", required=True, type=Path)
    parser.add_argument("--before", help="an interpreter with an earlier skirmish installed")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    source = str(args.dir / f"bulk-{BULK_EVENTS}.db")
    export = source + ".jsonl"
    if not Path(export).exists():
        sys.exit(f"no {export}: run `python -m benchmarks --race --dir {args.dir}` once to make it")
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


if __name__ == "__main__":
    main()
