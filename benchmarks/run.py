"""skirmish's benchmarks: the race against the floor and the eventsourcing peer, then the growth
and whole-log tables.

    python -m benchmarks                       # 10k, 100k and 1M events
    python -m benchmarks --race --sizes 10k,100k --dir /tmp/bench --before /tmp/old/.venv/bin/python
    python -m benchmarks --quick               # small logs, in well under a minute: the CI smoke test
    python -m benchmarks --whole --sizes 10k,1M --dir /tmp/bench   # only the whole-log commands

The race (benchmarks/race.py) runs its contenders in interleaved rounds, each in a fresh
process, and prints medians with their range, wall and CPU, the ratios taken round by
round, after checking that the two sides end in the same state. The fight it generates
(benchmarks/fight.py) replaces the fallen so it goes on as a fight; an upkeep-heavy one
(everyone down, the clock ticking) is replayed beside it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks import growth, race, whole
from benchmarks.fight import Generator
from skirmish.eventlog.store import Store

ROOT = Path(__file__).resolve().parent.parent
SIZES = {"10k": 10_000, "100k": 100_000, "1M": 1_000_000}
QUICK = {"1k": 1_000, "5k": 5_000}
def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def import_times(env: dict[str, str]) -> list[tuple[str, float]]:
    """What `import skirmish.cli.main` costs, summed per package (each module's own time,
    from `python -X importtime`), largest first."""
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import skirmish.cli.main"],
        check=True, capture_output=True, text=True, env=env,
    ).stderr
    totals: dict[str, float] = {}
    for line in err.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        own, _cumulative, name = line.removeprefix("import time:").split("|", 2)
        parts = name.strip().split(".")
        package = ".".join(parts[:2]) if parts[0] == "skirmish" else parts[0]
        totals[package] = totals.get(package, 0.0) + int(own) / 1000
    return sorted(totals.items(), key=lambda item: -item[1])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small logs: a smoke test, in well under a minute")
    parser.add_argument("--sizes", help="comma-separated, e.g. 10k,100k (default: 10k,100k,1M)")
    parser.add_argument("--dir", help="where the databases go (default: a temporary directory)")
    parser.add_argument("--keep", action="store_true", help="keep the databases")
    parser.add_argument("--growth", action="store_true",
                        help="only the growth table: each interactive command as a whole process at each size "
                             "(reuses skirmish-SIZE.db in --dir when there, else generates it)")
    parser.add_argument("--whole", action="store_true",
                        help="only the whole-log table: replay, log --all, verify, exports and import at each "
                             "size (reuses skirmish-SIZE.db in --dir when there, else generates it)")
    parser.add_argument("--race", action="store_true", help="only the race (no growth or whole-log table)")
    parser.add_argument("--rounds", type=int, help="interleaved rounds of the race (default 5)")
    parser.add_argument("--groups", help="the race's groups to run, comma-separated, of "
                                         f"{', '.join(race.GROUPS)} (default: all), e.g. --groups replay at 1M")
    parser.add_argument("--before", help="a python with another skirmish installed (e.g. a wheel of an earlier "
                                         "commit in its own venv), raced in the same rounds as 'skirmish before'")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else SIZES
    if args.sizes:
        sizes = {label: _count(label) for label in args.sizes.split(",")}
    settings = race.QUICK if args.quick else race.Settings()
    if args.rounds:
        settings.rounds = args.rounds
    if args.groups:
        settings.groups = tuple(g.strip() for g in args.groups.split(","))
        unknown = [g for g in settings.groups if g not in race.GROUPS]
        if unknown:
            parser.error(f"--groups: no group {unknown[0]!r} in the race (its groups: {', '.join(race.GROUPS)})")
    workdir = Path(args.dir or tempfile.mkdtemp(prefix="skirmish-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:6.0f} s] {message}", file=sys.stderr, flush=True)

    runs = 1 if args.quick else 3
    try:
        log(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; databases in {workdir}")
        if args.growth or args.whole:
            dbs = []
            for label, n in sizes.items():
                db = workdir / f"skirmish-{label}.db"
                if not db.exists():
                    log(f"{label}: generating a fight of {n:,} events")
                    Generator(Store(str(db)), seed=7, fight=True).run(n)
                dbs.append(db)
            if args.growth:
                print(growth.table(list(sizes), [growth.measure(str(db), runs, workdir, log) for db in dbs]))
            if args.whole:
                print(whole.table(list(sizes), [whole.measure(str(db), workdir, log) for db in dbs]))
            return
        measured = []
        for label, n in sizes.items():
            measured.append(race.race(label, n, workdir, settings, log, args.before))
        imports = import_times({k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
        log(f"load average {os.getloadavg()[0]:.1f}")
        print(race.table(list(sizes), [rows for rows, _ in measured], [n for _, notes in measured for n in notes]))
        print("import time of `skirmish.cli.main`, by top-level module (python -X importtime):")
        print("  " + ", ".join(f"{name} {ms:.1f} ms" for name, ms in imports[:10]))
        if args.race:
            return
        print()
        print(growth.table(list(sizes), [growth.measure(str(workdir / f"skirmish-{label}.db"), runs, workdir, log)
                                         for label in sizes]))
        print()
        print(whole.table(list(sizes), [whole.measure(str(workdir / f"skirmish-{label}.db"), workdir, log)
                                        for label in sizes]))
    finally:
        if not args.keep and not args.dir:
            shutil.rmtree(workdir, ignore_errors=True)


def _count(label: str) -> int:
    text = label.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1], 1)
    return int(float(text.rstrip("km")) * scale)


if __name__ == "__main__":
    main()
