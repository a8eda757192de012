"""A long `skirmish run` script: its time, its peak memory and the wait of a writer beside it,
against the same commands typed one by one (each a process). Prints figures; not a test.

    python -m benchmarks.script --lines 50000 --sample 500 --dir /tmp/bench
    python -m benchmarks.script --lines 50000 --dir /tmp/bench --before /tmp/old/bin/python

The script is a fight the ruleset accepts line by line (benchmarks/fight.py's scripted GM,
every proposal decided by ap-countdown with the dice the script's own `new --seed` rolls),
played on a file that already holds another encounter ("Table", with "Watch" in it). Some
seconds in, another writer types `damage Watch 1` on that encounter: how long it waited for
its answer, and what the answer was, are printed. The one-by-one figure is the mean of the
script's first ``--sample`` lines run each as a `skirmish` process on a copy of the same
file, times the script's lines. ``--before``: a python with another skirmish installed (an
earlier commit), whose `run` plays the same script on the same file too.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.fight import Gm
from skirmish.eventlog.commands import AddCombatant
from skirmish.eventlog.errors import SkirmishError
from skirmish.eventlog.store import Store
from skirmish.projections.door.words import as_typed, split_line
from skirmish.projections.write.engine import Encounter, new_encounter
from skirmish.projections.ruleset import Dice

SEED = 7
SKIRMISH = "import sys; sys.argv[0] = 'skirmish'; from skirmish.cli.fast import main; main()"  # the console script's


def prepare(store: Store) -> Encounter:
    """The file the script runs on holds this first: the encounter the other writer writes to."""
    table = new_encounter(store, "Table", "ap-countdown", {}, "new Table --rules ap-countdown")
    table.execute(AddCombatant(name="Watch", side="neutral", stats={"qu": "1", "hits": "100000"}), "add Watch")
    return table


def script_lines(count: int, seed: int = SEED) -> Iterator[str]:
    """A fight of ``count`` lines, each accepted where it stands when played on a file made by
    :func:`prepare`: decided here on a file in memory made the same way, so the event ids,
    and with them the seeded dice, are those the script will meet."""
    store = Store(":memory:")
    prepare(store)
    name = "Script fight"
    enc = new_encounter(store, name, "ap-countdown", {}, "new", seed=seed)
    yield f"new {name!r} --rules ap-countdown --seed {seed}"
    ruleset, started = enc.ruleset, enc.started
    state = ruleset.initial(started)
    head = enc.head().event_id
    gm = Gm(seed, replace_fallen=True)
    for _ in range(count - 1):
        for command in gm.proposals(state):
            try:
                events = ruleset.decide(state, command, Dice.of(started, str(head)))
            except SkirmishError:
                continue
            break
        for event in events:
            ruleset.apply(state, event)
        head += len(events)
        yield as_typed(command)
    store.close()


def run_script(python: str, db: Path, script: Path, out: Path, writer_after: float, skirmish: str) -> dict[str, Any]:
    """`skirmish --db DB run SCRIPT` as a process, and another writer ``writer_after`` seconds in."""
    with out.open("wb") as output:
        started = time.perf_counter()
        proc = subprocess.Popen([python, "-c", SKIRMISH, "--db", str(db), "run", str(script)],
                                stdout=output, stderr=subprocess.STDOUT)
        writer: dict[str, Any] = {}
        # Reaped here, not by Popen: the usage wait4 hands back is the figure.
        ended, status, usage = os.wait4(proc.pid, os.WNOHANG)
        while not ended and time.perf_counter() - started < writer_after:
            time.sleep(0.02)
            ended, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if not ended:
            began = time.perf_counter()
            done = subprocess.run([skirmish, "--db", str(db), "damage", "Watch", "1"],
                                  capture_output=True, text=True, timeout=120)
            writer = {"seconds": time.perf_counter() - began, "code": done.returncode,
                      "said": (done.stderr or done.stdout).strip()}
            _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "maxrss_mb": usage.ru_maxrss / 1024,
            "code": proc.returncode, "writer": writer}


def one_by_one(skirmish: str, db: Path, script: Path, sample: int) -> tuple[int, float]:
    """The script's first ``sample`` command lines, each as its own `skirmish` process: how
    many ran, and their total wall time."""
    ran, seconds = 0, 0.0
    with script.open(encoding="utf-8") as lines:
        for line in lines:
            words = split_line(line)
            if not words:
                continue
            began = time.perf_counter()
            subprocess.run([skirmish, "--db", str(db), *words], check=True, capture_output=True, timeout=120)
            seconds += time.perf_counter() - began
            ran += 1
            if ran == sample:
                break
    return ran, seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--sample", type=int, default=500, help="lines run one process each, for the estimate (0: none)")
    parser.add_argument("--dir", required=True, help="a folder for the script and the files (kept)")
    parser.add_argument("--writer-after", type=float, default=5.0, help="seconds into the script the other writer types")
    parser.add_argument("--before", help="a python with an earlier skirmish installed: its `run` plays the script too")
    args = parser.parse_args(argv)
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    skirmish = str(Path(sys.executable).with_name("skirmish"))

    script = folder / f"fight-{args.lines}.skirmish"
    began = time.perf_counter()
    with script.open("w", encoding="utf-8") as out:
        for line in script_lines(args.lines):
            out.write(line + "\n")
    print(f"script: {args.lines:,} lines, {script.stat().st_size / 1e6:.1f} MB, made in {time.perf_counter() - began:.0f} s")

    prepared = folder / "prepared.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{prepared}{suffix}").unlink(missing_ok=True)
    store = Store(str(prepared))
    prepare(store)
    store.close()

    sides = [("run", sys.executable)] + ([("run before", args.before)] if args.before else [])
    for label, python in sides:
        db = folder / f"{label.replace(' ', '-')}.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        shutil.copy(prepared, db)
        got = run_script(python, db, script, folder / f"{label.replace(' ', '-')}.out", args.writer_after, skirmish)
        writer = got["writer"]
        print(f"{label}: exit {got['code']}, {got['wall']:.1f} s wall ({got['wall'] / args.lines * 1000:.2f} ms a line), "
              f"{got['cpu']:.1f} s CPU, peak memory {got['maxrss_mb']:.0f} MB")
        if writer:
            print(f"  another writer, {args.writer_after:g} s in: answered in {writer['seconds']:.2f} s, "
                  f"exit {writer['code']}: {writer['said'][:300]}")

    if args.sample == 0:
        return
    db = folder / "one-by-one.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    shutil.copy(prepared, db)
    ran, seconds = one_by_one(skirmish, db, script, args.sample)
    each = seconds / ran
    print(f"one by one: {ran} lines as processes in {seconds:.1f} s ({each * 1000:.1f} ms a line); "
          f"{args.lines:,} lines: about {each * args.lines:.0f} s")


if __name__ == "__main__":
    main()
