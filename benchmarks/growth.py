"""Each interactive command as a whole process at growing log sizes: wall time and peak memory.

    python -m benchmarks --growth --sizes 10k,100k,1M --dir /tmp/bench-growth
    python -m benchmarks.growth /tmp/bench/skirmish-10k.db /tmp/bench/skirmish-1M.db

A command at the table should cost the same on a 1M-event log as on a 10k one (the
target: within 1.5x, under 100 MB). Each log (a generated ap-countdown fight, see
benchmarks/fight.py) is copied first, so the commands that write (declare, undo, redo,
branch, switch, note) never touch the original. A fighter joins and a round starts
before the clock runs, so that `declare` has someone whose turn it is; a note exists
before anything that shows notes is timed. Each figure is the median of ``runs`` whole
processes (the installed `skirmish` script, from cached bytecode); the peak is the
largest resident set of those processes (GNU time's %M).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import tempfile
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

TIME = "/usr/bin/time"  # GNU time: the child's own peak resident set (%M)
FIGHTER = "Growth"
WATCHED = ("Hauser", "hits left")  # a roster fighter of benchmarks/fight.py and a figure that keeps changing


@dataclass
class Timed:
    """One command's whole-process runs at one size."""

    walls: list[float] = field(default_factory=list)
    peaks_mb: list[float] = field(default_factory=list)
    refused: str = ""  # the error of a run that failed (timed all the same)

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def peak_mb(self) -> float:
        return max(self.peaks_mb)


def skirmish_script() -> str:
    return shutil.which("skirmish", path=str(Path(sys.executable).parent)) or "skirmish"


def _run_measured(args: list[str], env: dict[str, str]) -> tuple[int, str, str, float, float]:
    """One whole process: exit code, stdout, stderr, wall seconds, peak resident MB. Run under
    /usr/bin/time, a small process: a child's maxrss counts what it was before its exec, so a
    child of a large benchmark process would report the benchmark's size, not its own."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as peak:
        started = time.perf_counter()
        pid = os.posix_spawn(TIME, [TIME, "-f", "%M", "-o", peak.name, *args], env, file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
            (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
        ])
        _, status, _ = os.wait4(pid, 0)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        kilobytes = int(peak.read().split()[-1])
        return os.waitstatus_to_exitcode(status), out.read().decode(), err.read().decode(), wall, kilobytes / 1024


class Session:
    """The commands on one log copy, run as the GM would type them, each a whole process."""

    def __init__(self, db: str) -> None:
        self.script = skirmish_script()
        self.last_error = ""
        # As an installed skirmish runs: from cached bytecode.
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"SKIRMISH_DB": db}

    def run(self, *args: str, check: bool = True) -> tuple[int, str, float, float]:
        """Exit code, stdout, wall seconds and peak MB of one command."""
        code, out, err, wall, peak = _run_measured([self.script, *args], self.env)
        self.last_error = err.strip()
        if check and code != 0:
            raise RuntimeError(f"skirmish {' '.join(args)} failed ({code}): {err.strip()}")
        return code, out, wall, peak

    def head(self) -> tuple[str, int]:
        shown = json.loads(self.run("state", "--json")[1])
        return str(shown["branch"]), int(shown["head"])


COMMANDS = ("state", "declare", "undo", "redo", "branch", "switch", "branches", "note", "explain", "why",
            "log", "diff", "state --at")


def measure(source: str, runs: int, workdir: Path, log: Callable[[str], None] = print) -> dict[str, Timed]:
    """Time each interactive command on a copy of ``source``."""
    copy = workdir / f"growth-{Path(source).name}"
    shutil.copyfile(source, copy)
    for suffix in ("-wal", "-shm"):
        if Path(source + suffix).exists():
            shutil.copyfile(source + suffix, str(copy) + suffix)
    s = Session(str(copy))
    timed: dict[str, Timed] = {name: Timed() for name in COMMANDS}

    def clock(name: str, *args: str) -> None:
        code, _, wall, peak = s.run(*args, check=False)
        timed[name].walls.append(wall)
        timed[name].peaks_mb.append(peak)
        if code != 0:
            timed[name].refused = s.last_error

    _between_rounds(str(copy))
    # Untimed: someone whose turn it is, so a declaration holds (the clock run on until then).
    s.run("add", FIGHTER, "--side", "players", "--stat", "qu=3", "--stat", "hits=50")
    for _ in range(60):
        if s.run("declare", FIGHTER, "dodge", check=False)[0] == 0:
            s.run("undo")
            break
        any(s.run(step, check=False)[0] == 0 for step in ("round", "next", "upkeep"))
    else:
        raise RuntimeError(f"{FIGHTER} never had a turn in {source}")
    branch, first = s.head()
    log(f"growth: {source}, {runs} run(s) of each command on branch {branch} at #{first}")
    early = max(1, first // 3)
    for i in range(runs):
        clock("state", "state")
        clock("state --at", "state", "--at", str(early + i))
        clock("declare", "declare", FIGHTER, "dodge")
        _, head = s.head()
        clock("undo", "undo")
        clock("redo", "redo")
        clock("note", "note", str(head), f"growth note {i}")
        clock("explain", "explain", str(head))
        clock("why", "why", *WATCHED)
        clock("log", "log")
        name = f"growth-{i}"
        clock("branch", "branch", name, "--at", str(head))
        clock("switch", "switch", name)
        s.run("damage", WATCHED[0], "1")  # the what-if differs from where it started
        s.run("switch", branch)
        clock("branches", "branches")
        clock("diff", "diff", branch, name)
        s.run("undo")  # the note
        s.run("undo")  # the declaration
    for suffix in ("", "-wal", "-shm"):
        Path(str(copy) + suffix).unlink(missing_ok=True)
    return timed


def _between_rounds(db: str) -> None:
    """Play the generator's GM on from the head until no round is under way (untimed)."""
    from benchmarks.fight import Gm, text_of
    from skirmish.eventlog.errors import SkirmishError
    from skirmish.eventlog.store import Store
    from skirmish.projections.write.engine import Encounter

    store = Store(db, create=False)
    enc, gm = Encounter.open(store), Gm(5)
    for _ in range(2_000):
        state = enc.fold_to(enc.head().event_id)[0]
        if not state.in_round:
            break
        for command in gm.proposals(state):
            try:
                enc.execute(command, text_of(command))
            except SkirmishError:
                continue
            break
    store.close()


def table(labels: Sequence[str], results: Sequence[dict[str, Timed]]) -> str:
    """One row per command: wall time and peak memory at each size, and the largest size's
    time against the smallest's."""
    head = f"{'whole process (median wall, peak RSS)':<40}" + "".join(f"{label:>20}" for label in labels)
    lines = [head + f"{'largest/smallest':>18}"]
    refused = [f"  {name}: {r[name].refused}" for name in COMMANDS for r in results if r[name].refused]
    for name in COMMANDS:
        cells = "".join(f"{f'{r[name].wall * 1000:.0f} ms {r[name].peak_mb:.0f} MB':>20}" for r in results)
        ratio = results[-1][name].wall / results[0][name].wall
        mark = " (refused)" if any(r[name].refused for r in results) else ""
        lines.append(f"{'  skirmish ' + name + mark:<40}{cells}{f'{ratio:.2f}x':>18}")
    if refused:
        lines += ["refused (each timed all the same):", *dict.fromkeys(refused)]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.growth", description=__doc__.splitlines()[0])
    parser.add_argument("dbs", nargs="+", help="generated logs, smallest first (their names label the columns)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", default=None, help="where the copies go (default: beside each log)")
    args = parser.parse_args(argv)
    results = []
    for db in args.dbs:
        workdir = Path(args.dir or Path(db).parent)
        results.append(measure(db, args.runs, workdir, lambda m: print(m, file=sys.stderr, flush=True)))
    labels = [Path(db).stem.removeprefix("skirmish-") for db in args.dbs]
    print(table(labels, results))


if __name__ == "__main__":
    main()
