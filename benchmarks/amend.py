"""`python -m benchmarks.amend`: how long `amend` takes on a long branch, and how long it holds
the file's write lock.

For each size a fight is generated (benchmarks/fight.py; reused from --dir when there), then
the first damage of the current branch is amended (one more point of damage) on a copy of
the log, so every later command of the branch is decided again. Printed for each size: the
events and the commands of the branch decided again; amend's CPU time (the amend alone,
`run_cli` in its own process, any process it starts included), its time a command decided
again and its CPU over the first size's; its wall time as a whole process (`skirmish
amend`); and the write lock's time: from the BEGIN IMMEDIATE that takes it to the COMMIT
that frees it, as the store's transaction measures it in the same process (python -c,
timed around ``Transaction``), with the CPU time the process spent in it (on a busy
machine the wall time is mostly waiting for a core, so the CPU columns are the ones to
compare).

    python -m benchmarks.amend --sizes 2.5k,10k,20k,40k --dir /tmp/bench
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from benchmarks.fight import Generator
from skirmish.eventlog.commands import Damage, command_decoder
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import LogFile

# Run as its own process: the write lock's time is measured around the store's own
# transaction (BEGIN IMMEDIATE to COMMIT), the rest as the wall time of the whole amend.
TIMED = """
import json, resource, sys, time
from skirmish.eventlog import connection
from skirmish.cli.main import run_cli

held = []
enter, leave = connection.Transaction.__enter__, connection.Transaction.__exit__

def timed_enter(self):
    enter(self)
    if not self.nested:
        self.began = time.perf_counter(), time.process_time()

def timed_leave(self, *exc):
    try:
        return leave(self, *exc)
    finally:
        if not self.nested:
            wall, cpu = self.began
            held.append((self.conn.file, time.perf_counter() - wall, time.process_time() - cpu))

connection.Transaction.__enter__, connection.Transaction.__exit__ = timed_enter, timed_leave


def cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


before = cpu()
code = run_cli(sys.argv[1:])
print(json.dumps({"code": code, "held": held, "cpu": cpu() - before}), file=sys.stderr)
"""


class FirstDamage(NamedTuple):
    """The first damage of the current branch, and what amending it decides again."""

    event: int  # its first event
    amount: int
    events: int  # the branch's events from it on
    commands: int  # the commands behind them


class Measured(NamedTuple):
    events: int  # decided again
    commands: int
    cpu: float  # the amend's CPU seconds (its run_cli, and any process it started)
    wall: float  # the whole process's wall seconds
    lock: float  # the write lock held, wall seconds
    lock_cpu: float  # the process's CPU seconds meanwhile


def first_damage(db: str) -> FirstDamage:
    with LogFile(db) as log:
        enc = log.open()
        path = enc.path(enc.head().event_id, checked=True)
        for index, rec in enumerate(path):
            body = enc.command(rec.command_id).body
            if json.loads(body).get("type") == "damage":
                command = command_decoder.decode(body)
                assert isinstance(command, Damage)
                # A command's events follow one another down a path.
                commands = 1 + sum(a.command_id != b.command_id for a, b in zip(path[index:], path[index + 1:]))
                return FirstDamage(rec.id, command.amount, len(path) - index, commands)
    raise SystemExit(f"no damage on the current branch of {db}")


def measure(generated: str) -> Measured:
    # On a copy: each amend adds a branch as long as the log, which the next run would carry.
    db = generated.replace(".db", "-amended.db")
    shutil.copyfile(generated, db)
    first = first_damage(db)
    with LogFile(db) as log:
        enc = log.open()
        who = command_decoder.decode(enc.command(enc.event(first.event).command_id).body)
    assert isinstance(who, Damage)
    branch = f"bench-{time.time_ns()}"
    args = ["--db", db, "amend", str(first.event), "--branch", branch, "--", "damage", who.who, str(first.amount + 1)]
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", TIMED, *args], capture_output=True, text=True)
    wall = time.perf_counter() - started
    report = json.loads(done.stderr.strip().splitlines()[-1])
    if report["code"] != 0:
        raise SystemExit(f"amend failed: {done.stderr}")
    os.unlink(db)
    # Only the file's own transactions: amend's copy has its own lock, which holds no one up.
    _, lock, lock_cpu = max((h for h in report["held"] if h[0] == db), key=lambda h: h[1])
    return Measured(first.events, first.commands, report["cpu"], wall, lock, lock_cpu)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.amend", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10k,100k", help="comma-separated, e.g. 2.5k,10k,20k,40k")
    parser.add_argument("--dir", help="where the databases go (default: a temporary directory)")
    args = parser.parse_args(argv)
    workdir = Path(args.dir or tempfile.mkdtemp(prefix="skirmish-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    # The lock's CPU time beside its wall time: on a busy machine the wall time is mostly waiting.
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", file=sys.stderr)
    print(f"{'log':>6} {'decided again':>14} {'commands':>9} {'amend (CPU)':>12} {'a command':>10} "
          f"{'over the first':>15} {'amend (wall)':>13} {'write lock':>11} {'(its CPU)':>10}")
    first: Measured | None = None
    for label in args.sizes.split(","):
        n = int(float(label.lower().rstrip("km")) * {"k": 1_000, "m": 1_000_000}.get(label.lower()[-1], 1))
        db = workdir / f"skirmish-{label}.db"
        if not db.exists():
            print(f"{label}: generating a fight of {n:,} events", file=sys.stderr, flush=True)
            store = Store(str(db))
            Generator(store, seed=7).run(n)
            store.close()
        got = measure(str(db))
        first = first or got
        print(f"{label:>6} {got.events:>14,} {got.commands:>9,} {got.cpu:>10.2f} s "
              f"{got.cpu / got.commands * 1000:>7.2f} ms {got.cpu / first.cpu:>14.1f}x "
              f"{got.wall:>11.2f} s {got.lock * 1000:>8.0f} ms {got.lock_cpu * 1000:>7.0f} ms", flush=True)
    if not args.dir:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
