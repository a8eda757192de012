"""skirmish's benchmarks, side by side with the eventsourcing library and the floor, in one table.

    python -m benchmarks            # 10k, 100k and 1M events (about half an hour on 2 cores)
    python -m benchmarks --quick    # small logs, in well under a minute: the CI smoke test
    python -m benchmarks --sizes 10k,100k --dir /tmp/bench --keep
    python -m benchmarks --whole --sizes 10k,1M --dir /tmp/bench   # only the whole-log commands

For each size a long ap-countdown fight is generated (benchmarks/fight.py) and measured:
appends one transaction per command (as at the table) and in bulk (as an import), the
full replay, the state at random past events of any branch, the peak memory of a full
replay, the same events appended to and replayed by the eventsourcing library, and the
floor: raw sqlite3 reads plus msgspec decoding. Then whole-process latency of `skirmish
state` and `skirmish declare` against the interpreter's own start, with import times.
Replays run in fresh processes (benchmarks/worker.py) so each peak memory is its own.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import growth, whole
from benchmarks.fight import Generator, Gm, text_of
from skirmish.eventlog.commands import Declare
from skirmish.eventlog.errors import SkirmishError
from skirmish.eventlog.events import Event, tag_of
from skirmish.eventlog.store import Store
from skirmish.projections.engine import Encounter
from skirmish.projections.ruleset import Dice

ROOT = Path(__file__).resolve().parent.parent
SIZES = {"10k": 10_000, "100k": 100_000, "1M": 1_000_000}
QUICK = {"1k": 1_000, "5k": 5_000}
TARGETS = ("against the tuned peer (eventsourcing, msgspec, snapshots, python -O): replay >= 5x, state-at >= 5x (p50, p99), "
           "append >= 1x, bulk >= 2x; replay peak < 150 MB; each interactive command within 1.5x of 10k at 1M, < 100 MB")


@dataclass
class Settings:
    at_table: int = 100  # commands appended one transaction each
    state_samples: int = 300
    replay_repeats: int = 3  # best of, below 1M events
    cli_runs: int = 15
    per_save: int = 2_000  # commands per eventsourcing save in bulk, as the generator's batches


QUICK_SETTINGS = Settings(at_table=20, state_samples=50, replay_repeats=1, cli_runs=3)


@dataclass
class Size:
    label: str
    events: int = 0
    path_events: int = 0
    branches: int = 0
    undos: int = 0
    generate_s: float = 0.0
    verify_s: float = 0.0
    figures: dict[str, float] = field(default_factory=dict)


def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def worker(kind: str, db: str, repeats: int, tuned: bool = False) -> dict[str, float]:
    """The best of ``repeats`` replays in fresh processes; the peak memory is the largest.
    ``tuned``: under ``python -O``."""
    runs = []
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, *(["-O"] if tuned else []), "-m", "benchmarks.worker", kind, db], cwd=ROOT, check=True,
            capture_output=True, text=True,
        ).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
    best = min(runs, key=lambda r: r["seconds"])
    return {"events": best["events"], "rate": best["events"] / best["seconds"], "peak_mb": max(r["peak_mb"] for r in runs)}


def accepted(enc: Encounter, gm: Gm) -> tuple[Any, list[Event]]:
    """The GM's first proposal at the head that the ruleset accepts, decided dry with the
    dice `execute` will use (a fresh Dice each time: a refused decision may have rolled)."""
    head = enc.head()
    state = enc.fold_to(head.event_id)[0]
    for command in gm.proposals(state):
        try:
            return command, enc.ruleset.decide(state, command, Dice.of(enc.started, str(head.event_id)))
        except SkirmishError:
            continue
    raise AssertionError(f"the GM has nothing to play at event {head.event_id}")


def measure(label: str, events: int, workdir: Path, settings: Settings, log: Any) -> Size:
    size = Size(label)
    db = str(workdir / f"skirmish-{label}.db")
    log(f"{label}: generating a fight of {events:,} events")
    store = Store(db)
    gen = Generator(store, seed=7)
    enc = gen.run(events)
    size.generate_s = gen.seconds
    counts = store.counts(enc.row.id)
    size.events, size.undos = counts.events, counts.undos
    size.branches = len(store.branches(enc.row.id))
    size.figures["skirmish bulk"] = (size.events - 1) / gen.appending
    started = time.perf_counter()
    store.verify(enc.row.id)
    size.verify_s = time.perf_counter() - started

    log(f"{label}: replays")
    repeats = settings.replay_repeats if events < 1_000_000 else 1
    for kind in ("skirmish", "reading", "floor"):
        result = worker(kind, db, repeats)
        size.figures[f"{kind} replay"] = result["rate"]
        size.figures[f"{kind} peak"] = result["peak_mb"]
        if kind == "skirmish":
            size.path_events = int(result["events"])

    log(f"{label}: state at random past events")
    ids = store.event_ids(enc.row.id)
    reader_store = Store(db, create=False)
    reader = Encounter.open(reader_store)
    timings = []
    for event_id in random.Random(3).sample(ids, min(settings.state_samples, len(ids))):
        started = time.perf_counter()
        reader.state_at(event_id)
        timings.append(time.perf_counter() - started)
    reader_store.close()
    size.figures["state p50"] = quantile(timings, 0.5) * 1000
    size.figures["state p99"] = quantile(timings, 0.99) * 1000

    log(f"{label}: at the table, one transaction per command")
    gm = Gm(11)
    table = Encounter.open(store)
    before_table = table.head().event_id  # the peer is given the path to here, then what is played
    played: list[list[Event]] = []
    timings = []
    for _ in range(settings.at_table):
        command, _events = accepted(table, gm)
        started = time.perf_counter()
        recorded = table.execute(command, text_of(command))
        timings.append(time.perf_counter() - started)
        played.append([r.event for r in recorded])
    size.figures["skirmish append"] = sum(map(len, played)) / sum(timings)
    size.figures["skirmish append ms"] = statistics.median(timings) * 1000
    played_file = workdir / f"played-{label}.jsonl"
    played_file.write_text("".join(
        json.dumps([[tag_of(type(e)), type(e).version, enc.codec.encode(e).decode()] for e in events]) + "\n"
        for events in played
    ))
    store.close()
    for peer, tuned in (("eventsourcing", False), ("eventsourcing -O", True)):
        log(f"{label}: {peer}: bulk, at the table, state at past versions, replay")
        es_db = str(workdir / f"eventsourcing-{label}.db")
        out = subprocess.run(
            [sys.executable, *(["-O"] if tuned else []), "-m", "benchmarks.peer", db, str(before_table), es_db,
             str(played_file),
             str(settings.state_samples), str(settings.per_save)],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout
        for key, value in json.loads(out.strip().splitlines()[-1]).items():
            size.figures[f"{peer} {key}"] = value
        result = worker("eventsourcing", es_db, repeats, tuned)
        size.figures[f"{peer} replay"] = result["rate"]
        size.figures[f"{peer} peak"] = result["peak_mb"]
    return size


# --- one command at the table, as a whole process ---------------------------------------------


def cli_latency(db: str, runs: int, log: Any) -> dict[str, Any]:
    """Median wall time of whole processes: the interpreter's floor, `state`, `declare`."""
    script = shutil.which("skirmish", path=str(Path(sys.executable).parent)) or "skirmish"
    # As an installed skirmish runs: from cached bytecode (PYTHONDONTWRITEBYTECODE would
    # make every run compile skirmish's sources again), after one warm-up run.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"SKIRMISH_DB": db}
    declare = _declare_args(db)
    log(f"whole-process latency on {db}: skirmish {' '.join(declare or ['state'])} (declare: see the growth table)")

    def timed(args: Sequence[str], environment: dict[str, str] = env) -> tuple[float, float]:
        """Wall time and CPU time (user + system) of one whole process."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True, env=environment)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime

    def medians(samples: list[tuple[float, float]]) -> tuple[float, float]:
        return statistics.median(w for w, _ in samples), statistics.median(c for _, c in samples)

    results: dict[str, Any] = {}
    floor = [sys.executable, "-c", "import msgspec, sqlite3"]
    for warm_up in (floor, [script, "state"]):
        timed(warm_up)
    results["python -c 'import msgspec, sqlite3'"] = medians([timed(floor) for _ in range(runs)])
    results["skirmish state"] = medians([timed([script, "state"]) for _ in range(runs)])
    if declare:
        samples = []
        for _ in range(runs):
            samples.append(timed([script, *declare]))
            subprocess.run([script, "undo"], check=True, capture_output=True, env=env)
        results[f"skirmish {' '.join(declare)}"] = medians(samples)
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        compiling = {**os.environ, "SKIRMISH_DB": db}
        results["skirmish state, compiling its sources (PYTHONDONTWRITEBYTECODE)"] = medians(
            [timed([script, "state"], compiling) for _ in range(runs)]
        )
    results["imports"] = import_times(env)
    results["runs"] = runs
    return results


def _declare_args(db: str) -> list[str] | None:
    """A declaration the ruleset accepts at the head (playing on until there is one)."""
    store = Store(db, create=False)
    enc = Encounter.open(store)
    gm = Gm(5)
    for _ in range(500):
        command, _events = accepted(enc, gm)
        if isinstance(command, Declare) and command.action in ("melee-attack", "ranged-attack", "dodge"):
            store.close()
            args = ["declare", command.who, command.action]
            if command.ap is not None:
                args += ["--ap", str(command.ap)]
            if command.target is not None:
                args += ["--target", command.target]
            return args
        enc.execute(command, text_of(command))
    store.close()
    return None  # a fight where nobody can act any more (the generated ones end so, everyone down)


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


# --- the table --------------------------------------------------------------------------------


ROWS: tuple[tuple[str, str, str], ...] = (
    # (row label, figure key, unit); "tuned": the eventsourcing peer under `python -O`
    ("append, 1 txn/command: skirmish", "skirmish append", "ev/s"),
    ("  median per command", "skirmish append ms", "ms"),
    ("append, 1 txn/command: eventsourcing", "eventsourcing append", "ev/s"),
    ("  median per command", "eventsourcing append ms", "ms"),
    ("  tuned (-O), median per command", "eventsourcing -O append ms", "ms"),
    ("bulk append (import): skirmish", "skirmish bulk", "ev/s"),
    ("bulk append (import): eventsourcing", "eventsourcing bulk", "ev/s"),
    ("  tuned (-O)", "eventsourcing -O bulk", "ev/s"),
    ("full replay: skirmish", "skirmish replay", "ev/s"),
    ("  its reading only (path + decode)", "reading replay", "ev/s"),
    ("full replay: eventsourcing", "eventsourcing replay", "ev/s"),
    ("  tuned (-O)", "eventsourcing -O replay", "ev/s"),
    ("floor: sqlite3 + msgspec decode", "floor replay", "ev/s"),
    ("replay vs eventsourcing", "x es", "x faster"),
    ("replay vs tuned eventsourcing", "x es -O", "x faster"),
    ("replay vs floor", "x floor", "x slower"),
    ("  reading vs floor", "x floor reading", "x slower"),
    ("state at a past event, p50", "state p50", "ms"),
    ("state at a past event, p99", "state p99", "ms"),
    ("  eventsourcing, snapshots, p50", "eventsourcing state p50", "ms"),
    ("  eventsourcing, snapshots, p99", "eventsourcing state p99", "ms"),
    ("  tuned (-O), p50", "eventsourcing -O state p50", "ms"),
    ("  tuned (-O), p99", "eventsourcing -O state p99", "ms"),
    ("state-at vs tuned eventsourcing, p50", "x state p50", "x faster"),
    ("state-at vs tuned eventsourcing, p99", "x state p99", "x faster"),
    ("append vs tuned eventsourcing", "x append", "x faster"),
    ("bulk vs tuned eventsourcing", "x bulk", "x faster"),
    ("peak memory, replay: skirmish", "skirmish peak", "MB"),
    ("peak memory, replay: eventsourcing", "eventsourcing peak", "MB"),
    ("  tuned (-O)", "eventsourcing -O peak", "MB"),
    ("peak memory, floor", "floor peak", "MB"),
)


def _number(value: float, unit: str) -> str:
    if unit == "ev/s":
        return f"{value:,.0f}"
    if unit.startswith("x"):
        return f"{value:.1f}x"
    return f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def table(sizes: list[Size], cli: dict[str, Any]) -> str:
    for s in sizes:
        f = s.figures
        f["x es"] = f["skirmish replay"] / f["eventsourcing replay"]
        f["x es -O"] = f["skirmish replay"] / f["eventsourcing -O replay"]
        f["x state p50"] = f["eventsourcing -O state p50"] / f["state p50"]
        f["x state p99"] = f["eventsourcing -O state p99"] / f["state p99"]
        f["x append"] = f["eventsourcing -O append ms"] / f["skirmish append ms"]
        f["x bulk"] = f["skirmish bulk"] / f["eventsourcing -O bulk"]
        f["x floor"] = f["floor replay"] / f["skirmish replay"]
        f["x floor reading"] = f["floor replay"] / f["reading replay"]
    width = 46
    head = f"{'':{width}}" + "".join(f"{s.label:>14}" for s in sizes)
    lines = [head]
    lines.append(f"{'events in the tree':{width}}" + "".join(f"{s.events:>14,}" for s in sizes))
    lines.append(f"{'  on the replayed path':{width}}" + "".join(f"{s.path_events:>14,}" for s in sizes))
    lines.append(f"{'  branches / undos':{width}}" + "".join(f"{f'{s.branches} / {s.undos}':>14}" for s in sizes))
    for label, key, unit in ROWS:
        cells = "".join(f"{_number(s.figures[key], unit):>14}" for s in sizes)
        lines.append(f"{label + ' (' + unit + ')':{width}}{cells}")
    lines.append(f"{'generate (s), verify (s)':{width}}" + "".join(f"{f'{s.generate_s:.0f}, {s.verify_s:.1f}':>14}" for s in sizes))
    lines.append("")
    lines.append(f"{'whole process, median of ' + str(cli['runs']) + ' runs:':<68}{'wall':>6}{'cpu':>10}")
    for name, figures in cli.items():
        if name not in ("imports", "runs"):
            wall, cpu = figures
            lines.append(f"  {name:<66}{wall * 1000:>6.0f} ms{cpu * 1000:>7.0f} ms")
    lines.append("import time of `skirmish.cli.main`, by top-level module (python -X importtime):")
    lines.append("  " + ", ".join(f"{name} {ms:.1f} ms" for name, ms in cli["imports"][:10]))
    lines.append(f"targets: {TARGETS}")
    return "\n".join(lines)


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
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else SIZES
    if args.sizes:
        sizes = {label: _count(label) for label in args.sizes.split(",")}
    settings = QUICK_SETTINGS if args.quick else Settings()
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
                    Generator(Store(str(db)), seed=7).run(n)
                dbs.append(db)
            if args.growth:
                print(growth.table(list(sizes), [growth.measure(str(db), runs, workdir, log) for db in dbs]))
            if args.whole:
                print(whole.table(list(sizes), [whole.measure(str(db), workdir, log) for db in dbs]))
            return
        measured = [measure(label, n, workdir, settings, log) for label, n in sizes.items()]
        grown = [growth.measure(str(workdir / f"skirmish-{s.label}.db"), runs, workdir, log) for s in measured]
        wholes = [whole.measure(str(workdir / f"skirmish-{s.label}.db"), workdir, log) for s in measured]
        cli_db = next((workdir / f"skirmish-{s.label}.db" for s in measured if s.label == "10k"), None)
        cli = cli_latency(str(cli_db or workdir / f"skirmish-{measured[0].label}.db"), settings.cli_runs, log)
        log(f"load average {os.getloadavg()[0]:.1f}")
        print(table(measured, cli))
        print()
        print(growth.table([s.label for s in measured], grown))
        print()
        print(whole.table([s.label for s in measured], wholes))
    finally:
        if not args.keep and not args.dir:
            shutil.rmtree(workdir, ignore_errors=True)


def _count(label: str) -> int:
    text = label.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1], 1)
    return int(float(text.rstrip("km")) * scale)


if __name__ == "__main__":
    main()
