"""The whole-log commands as whole processes: wall time, events a second and peak memory.

    python -m benchmarks.whole /tmp/bench/skirmish-10k.db /tmp/bench/skirmish-1M.db
    python -m benchmarks --whole --sizes 10k,100k,1M --dir /tmp/bench

The target (a command that reads or writes the whole log): at least 100k events a second
at 1M events and a peak resident set under 150 MB at every size. Each command runs once
on each log (the installed `skirmish`, output to a file or /dev/null); the events counted
are the ones it goes through: the head's path for replay and the Markdown report, every
event of the encounter for the others. verify and the exports use a second core for the
chain when the log is long (eventlog/verifying.py): the load average is printed first.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from benchmarks.growth import Timed, _run_measured, skirmish_script

COMMANDS = ("replay", "log --all", "verify", "export jsonl", "export md", "export html", "import")


def events_of(db: str) -> tuple[int, int]:
    """Every event of the current encounter, and how many the head's path holds."""
    from skirmish.eventlog.store import Store

    store = Store(db, create=False)
    try:
        row = store.current_encounter()
        head = store.head(row.id, store.current_branch(row.id)).event_id
        return store.counts(row.id).events, store.path_length(head)
    finally:
        store.close()


def measure(db: str, workdir: Path, log: Callable[[str], None] = print) -> dict[str, tuple[Timed, int]]:
    """Each whole-log command once on ``db`` (never written to: an import goes to a new file)."""
    script = skirmish_script()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"SKIRMISH_DB": db}
    everything, path = events_of(db)
    jsonl = workdir / f"whole-{Path(db).stem}.jsonl"
    imported = workdir / f"whole-{Path(db).stem}-imported.db"
    runs: dict[str, tuple[list[str], int]] = {
        "replay": (["replay"], path),
        "log --all": (["log", "--all"], everything),
        "verify": (["verify"], everything),
        "export jsonl": (["export", "--out", str(jsonl)], everything),
        "export md": (["export", "--format", "md", "--out", str(workdir / "whole.md")], path),
        "export html": (["export", "--format", "html", "--out", str(workdir / "whole.html")], everything),
        "import": (["--db", str(imported), "import", str(jsonl)], everything),
    }
    done: dict[str, tuple[Timed, int]] = {}
    for name in COMMANDS:
        args, events = runs[name]
        for suffix in ("", "-wal", "-shm"):
            Path(str(imported) + suffix).unlink(missing_ok=True)
        code, _, err, wall, peak = _run_measured([script, *args], env)
        timed = Timed([wall], [peak], "" if code == 0 else err.strip().splitlines()[-1][:120])
        done[name] = (timed, events)
        log(f"whole: {Path(db).name} {name}: {wall:.1f} s, {peak:.0f} MB ({events:,} events)")
    for leftover in (jsonl, workdir / "whole.md", workdir / "whole.html", imported):
        for suffix in ("", "-wal", "-shm"):
            Path(str(leftover) + suffix).unlink(missing_ok=True)
    return done


def table(labels: Sequence[str], results: Sequence[dict[str, tuple[Timed, int]]]) -> str:
    head = f"{'whole-log command (wall, events/s, peak)':<42}" + "".join(f"{label:>28}" for label in labels)
    lines = [head]
    for name in COMMANDS:
        cells = ""
        for r in results:
            timed, events = r[name]
            rate = events / timed.wall if timed.wall else 0
            cells += f"{f'{timed.wall:.1f} s {rate / 1000:.0f}k/s {timed.peak_mb:.0f} MB':>28}"
        mark = " (refused)" if any(r[name][0].refused for r in results) else ""
        lines.append(f"{'  skirmish ' + name + mark:<42}{cells}")
    refused = [f"  {name}: {r[name][0].refused}" for name in COMMANDS for r in results if r[name][0].refused]
    if refused:
        lines += ["refused:", *dict.fromkeys(refused)]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.whole", description=__doc__.splitlines()[0])
    parser.add_argument("dbs", nargs="+", help="generated logs, smallest first (their names label the columns)")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="skirmish-whole-") as workdir:
        results = [measure(db, Path(workdir), lambda m: print(m, file=sys.stderr, flush=True)) for db in args.dbs]
    print(table([Path(db).stem.removeprefix("skirmish-") for db in args.dbs], results))


if __name__ == "__main__":
    main()
