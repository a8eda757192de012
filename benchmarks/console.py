"""How fast the GM's console answers: a command typed in `skirmish play` to the board
redrawn, on generated fights (benchmarks/fight.py) of each size.

    python -m benchmarks.console --sizes 10k,1M --dir /tmp/bench

For each size it opens the console headless (Textual's pilot, 80x24) on the generated log
and types a round of table commands, again and again: damage, heal, undo, redo, a note on
the head, and state. Two figures per command, median and 95th percentile:
- in the console: Enter handled, the command decided and recorded, the board's new view
  folded and the widgets updated (what the console itself spends);
- to the screen: that, and the whole 80x24 screen rendered from the new widgets (what
  Textual then writes to the terminal).
(The pilot's press also waits for the process to go idle, some 100 ms that a terminal
does not wait: the second figure is therefore the first plus a full render of the new
screen, measured on its own, not the pilot's round trip.)
The targets (issue "The GM's console"): under 20 ms median at 10k, under 50 ms at 1M.
A log already in --dir (skirmish-LABEL.db) is reused, not generated again, and never
written: the commands are typed on a copy of it (skirmish-LABEL.console.db, removed after),
so the other benchmarks sharing --dir measure the log they generated.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.fight import generate
from benchmarks.run import _count

ROUND = ("damage {a} 1", "heal {a} 1", "undo", "redo", "note {head} {text}", "state")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def _type(db: str, rounds: int) -> tuple[list[float], list[float], list[str]]:
    from skirmish.cli.console import CommandLine, Console
    from skirmish.cli.session import Session

    session = Session(db)
    app = Console(session)
    app.watching = False  # nobody else writes: the watcher's polls stay out of the figures
    screen: list[float] = []
    refused: list[str] = []
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            names = [c.name for c in session.look().combatants]
            line = app.query_one(CommandLine)
            for n in range(rounds):
                for template in ROUND:
                    head = session.encounter().head().event_id
                    line.value = template.format(a=_quoted(names[n % len(names)]), head=head, text=f"mark-{n}")
                    await pilot.press("enter")
                    await pilot.pause()
                    started = time.perf_counter()
                    app.screen._compositor.render_strips()
                    screen.append(app.latencies[-1] + time.perf_counter() - started)
                    if line.value:  # refused: the line stays
                        refused.append(line.value)
                        line.value = ""
    finally:
        session.close()
    return app.latencies, screen, refused


def _quoted(name: str) -> str:
    import shlex

    return shlex.quote(name)


def _copy(db: Path, to: Path) -> None:
    """A copy of the log, whole (its write-ahead log included), by SQLite's backup."""
    import sqlite3

    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as source, sqlite3.connect(to) as target:
        source.backup(target)
    source.close()
    target.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.console", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10k,1M", help="comma-separated, e.g. 10k,100k,1M")
    parser.add_argument("--dir", help="where the logs are (or go); default: a temporary directory")
    parser.add_argument("--rounds", type=int, default=40, help="rounds of the six commands per size")
    args = parser.parse_args(argv)
    workdir = Path(args.dir or tempfile.mkdtemp(prefix="skirmish-console-"))
    workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    for label in args.sizes.split(","):
        db = workdir / f"skirmish-{label}.db"
        if not db.exists():
            print(f"{label}: generating {db}", file=sys.stderr, flush=True)
            store, _ = generate(str(db), _count(label))
            store.close()
        copy = workdir / f"skirmish-{label}.console.db"
        _copy(db, copy)
        try:
            inside, screen, refused = asyncio.run(_type(str(copy), args.rounds))
        finally:
            for leftover in (copy, copy.with_name(copy.name + "-wal"), copy.with_name(copy.name + "-shm")):
                leftover.unlink(missing_ok=True)
        if refused:
            print(f"{label}: {len(refused)} refused, e.g. {refused[0]!r}", file=sys.stderr)
        rows.append((label, len(inside), inside, screen))
    print(f"{'log':>6} {'commands':>9} {'in console p50':>15} {'p95':>8} {'to screen p50':>14} {'p95':>8}")
    for label, count, inside, screen in rows:
        print(f"{label:>6} {count:>9} {statistics.median(inside) * 1e3:>12.1f} ms {_percentile(inside, 0.95) * 1e3:>5.1f} ms"
              f" {statistics.median(screen) * 1e3:>11.1f} ms {_percentile(screen, 0.95) * 1e3:>5.1f} ms")
    print("targets: in the console, under 20 ms median at 10k and under 50 ms at 1M")


if __name__ == "__main__":
    main()
