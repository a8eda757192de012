"""The race: skirmish, the floor and the eventsourcing peer in interleaved rounds (A B A B).

Each round runs every contender of a group once, each in a fresh process (benchmarks/worker.py),
in an order rotated from round to round; a figure is the median of the rounds with their
range, and a ratio is taken round by round (the two runs of a pair are seconds apart), so a
machine that is quiet, loaded or drifting gives the same ratios within their range. Every
contender that folds prints a digest of the state it ends in, and the race stops if two
sides of one group end apart. Every contender that writes is given its own copy of the log.

Groups, at each size: the full replay of the generated fight and of the upkeep-heavy one;
the state at past events; commands at the table (skirmish beside the peer appending the
events skirmish decided, and beside the peer doing skirmish's work: get from its snapshot,
decide, save); bulk appends (`skirmish import` and the peer's saves into a new store, each
timed as its whole job from the same point: making the new store, its schema and the lazy
imports that needs included on both sides; the peer's reading of its source, handed to it
decoded, is left out, the import's reading of its file is not); and a table command as a
whole process against the interpreter's own start. ``before``: an interpreter with another skirmish installed (a
wheel of an earlier commit), raced in the same rounds.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BULK_EVENTS = 20_000  # events a bulk round writes: its rate is flat in the log's size
PER_SAVE = 2_000  # commands a save in the peer's bulk, as the generator's transactions
_BULK_RUN: dict[int, dict[str, list[dict[str, Any]]]] = {}  # bulk rounds by events: alike at every size


@dataclass
class Contender:
    """One side of a group: how to run it in a round (a fresh copy when it writes)."""

    name: str
    argv: Callable[[int], list[str]]  # round -> the command line
    checked: bool = True  # prints a digest of the state it ends in


@dataclass
class Group:
    title: str
    contenders: list[Contender]
    results: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    unit: str = "ev/s"  # "ev/s": events over seconds; "ms": a latency (p50, p99); "process": whole process
    before_round: Callable[[int], None] | None = None  # run untimed before each round's first contender


def worker(python: Sequence[str], kind: str, *args: str) -> list[str]:
    return [*python, "-m", "benchmarks.worker", kind, *args]


def copy_log(source: str, target: str) -> str:
    """A copy of a log for a contender that writes, on disk before the clock runs: else the
    first sync a timed write makes (a commit, the checkpoint on close) also writes back the
    whole copy from the page cache (at 100k events, 91 MB: it doubled `declare`'s wall time)."""
    for suffix in ("", "-wal", "-shm", ".fight"):
        Path(target + suffix).unlink(missing_ok=True)
        if Path(source + suffix).exists():
            shutil.copyfile(source + suffix, target + suffix)
            with open(target + suffix, "rb+") as copied:
                os.fsync(copied.fileno())
    return target


def _run(argv: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if "benchmarks.worker" not in argv:
        return {"seconds": wall, "cpu": cpu, "code": done.returncode, "error": done.stderr.strip()[-300:]}
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run_rounds(group: Group, rounds: int, log: Callable[[str], None], env: dict[str, str] | None = None) -> Group:
    log(f"race: {group.title}, {rounds} rounds of {', '.join(c.name for c in group.contenders)}")
    group.results = {c.name: [] for c in group.contenders}
    n = len(group.contenders)
    for r in range(rounds):
        order = group.contenders[r % n:] + group.contenders[:r % n]
        if group.before_round is not None:
            group.before_round(r)
        digests: dict[str, str] = {}
        for c in order:
            result = _run(c.argv(r), env)
            group.results[c.name].append(result)
            if c.checked and "digest" in result:
                digests[c.name] = result["digest"]
        if len(set(digests.values())) > 1:
            raise RuntimeError(f"{group.title}: the contenders end in different states: {digests}")
    return group


# --- the figures --------------------------------------------------------------------------------


def spread(values: Sequence[float], fmt: Callable[[float], str]) -> str:
    return f"{fmt(statistics.median(values))} [{fmt(min(values))}-{fmt(max(values))}]"


def rate(v: float) -> str:
    return f"{v / 1000:,.0f}k" if v >= 10_000 else f"{v:,.0f}"


def ms(v: float) -> str:
    return f"{v:.1f}" if v < 100 else f"{v:,.0f}"


def ratio(v: float) -> str:
    return f"{v:.2f}x"


def figure(group: Group, name: str, what: str) -> list[float]:
    """One figure of one contender, a value a round: events/s (wall or CPU), or ms."""
    runs = group.results[name]
    if what == "wall":
        return [r["events"] / r["seconds"] for r in runs]
    if what == "cpu":
        return [r["events"] / max(r["cpu"], 1e-9) for r in runs]
    if what == "process wall":
        return [r["seconds"] * 1000 for r in runs]
    if what == "process cpu":
        return [r["cpu"] * 1000 for r in runs]
    return [float(r[what]) for r in runs]


def pairwise(group: Group, a: str, b: str, what: str, invert: bool = False) -> list[float]:
    """A's figure over B's, round by round (``invert``: B's over A's)."""
    pairs = zip(figure(group, a, what), figure(group, b, what), strict=True)
    return [(y / x if invert else x / y) for x, y in pairs]


@dataclass
class Row:
    label: str
    cells: list[str] = field(default_factory=list)


def rows_of(group: Group, comparisons: Sequence[tuple[str, str, str, str, bool]]) -> list[tuple[str, str]]:
    """(label, cell) for every contender's figures and the ratios asked for:
    comparisons: (label, A, B, figure, invert)."""
    out: list[tuple[str, str]] = []
    for name in group.results:
        if group.unit == "ev/s":
            out.append((f"{group.title}: {name}, ev/s wall", spread(figure(group, name, "wall"), rate)))
            out.append((f"{group.title}: {name}, ev/s cpu", spread(figure(group, name, "cpu"), rate)))
        elif group.unit == "ms":
            out.append((f"{group.title}: {name}, p50 ms", spread(figure(group, name, "p50 ms"), ms)))
            out.append((f"{group.title}: {name}, p99 ms", spread(figure(group, name, "p99 ms"), ms)))
        else:
            out.append((f"{group.title}: {name}, ms wall", spread(figure(group, name, "process wall"), ms)))
            out.append((f"{group.title}: {name}, ms cpu", spread(figure(group, name, "process cpu"), ms)))
        peaks = [r["peak_mb"] for r in group.results[name] if "peak_mb" in r]
        if peaks and group.unit == "ev/s":
            out.append((f"{group.title}: {name}, peak MB", f"{max(peaks):,.0f}"))
    for label, a, b, what, invert in comparisons:
        if a in group.results and b in group.results:
            out.append((f"{group.title}: {label}", spread(pairwise(group, a, b, what, invert), ratio)))
    return out


def refusals(group: Group) -> list[str]:
    return sorted({f"{name}: {r['error']}" for name, runs in group.results.items() for r in runs if r.get("code")})


def table(labels: Sequence[str], measured: Sequence[list[tuple[str, str]]], notes: Sequence[str]) -> str:
    width = max(len(label) for label, _ in measured[0]) + 2
    cell = max(len(c) for m in measured for _, c in m) + 2
    lines = [f"{'the race: median [min-max] of the rounds':<{width}}" + "".join(f"{x:>{cell}}" for x in labels)]
    for i, (label, _) in enumerate(measured[0]):
        lines.append(f"{label:<{width}}" + "".join(f"{m[i][1]:>{cell}}" for m in measured))
    return "\n".join([*lines, *notes])


# --- one size -----------------------------------------------------------------------------------


@dataclass
class Settings:
    rounds: int = 5
    groups: tuple[str, ...] = ()  # the groups to race (GROUPS); none named: all of them
    at_table: int = 100  # commands played at the table a round
    state_samples: int = 300
    bulk_events: int = BULK_EVENTS


# The race's groups, by the name `--groups` takes: the full replays, the state at past events,
# commands at the table, bulk appends and the table commands as whole processes.
GROUPS = ("replay", "state", "table", "bulk", "process")

QUICK = Settings(rounds=2, at_table=10, state_samples=30, bulk_events=1_000)


def prepare(label: str, events: int, workdir: Path, settings: Settings, log: Callable[[str], None]) -> dict[str, str]:
    """The generated logs of one size (the fight and the upkeep-heavy one), the peer's copy
    of the fight, and the commands the table plays."""
    from benchmarks.fight import Generator
    from skirmish.eventlog.store import Store

    paths = {"fight": str(workdir / f"skirmish-{label}.db"), "upkeep": str(workdir / f"upkeep-{label}.db"),
             "es": str(workdir / f"eventsourcing-{label}.db"), "played": str(workdir / f"played-{label}.jsonl"),
             "bulk source": str(workdir / f"bulk-{settings.bulk_events}.db")}
    for kind, path, fight, n in (("fight", paths["fight"], True, events), ("upkeep", paths["upkeep"], False, events),
                                 ("bulk source", paths["bulk source"], True, settings.bulk_events)):
        if not Path(path).exists():
            log(f"{label}: generating the {kind} log, {n:,} events")
            store = Store(path)
            Generator(store, seed=7, fight=fight).run(n)
            store.close()
    if not Path(paths["es"]).exists():
        log(f"{label}: the peer's copy of the fight")
        _run(worker([sys.executable, "-O"], "eventsourcing-bulk", paths["es"], paths["fight"], str(PER_SAVE)))
    paths["export"] = paths["bulk source"] + ".jsonl"
    if not Path(paths["export"]).exists():
        from skirmish.cli.main import run_cli

        run_cli(["--db", paths["bulk source"], "export", "--out", paths["export"]])
    if not Path(paths["played"]).exists():
        play(paths["fight"], str(workdir / f"scratch-{label}.db"), paths["played"], settings.at_table)
    return paths


def play(source: str, scratch: str, played: str, commands: int) -> None:
    """The commands a GM plays at the head of ``source`` (on a scratch copy), each with the
    event it was decided on and the events it recorded."""
    from benchmarks.fight import Gm, accepted, text_of
    from skirmish.eventlog.commands import command_encoder
    from skirmish.eventlog.events import tag_of
    from skirmish.eventlog.store import Store
    from skirmish.projections.write.engine import Encounter

    store = Store(copy_log(source, scratch), create=False)
    enc, gm = Encounter.open(store), Gm(11, replace_fallen=True)
    lines = []
    for _ in range(commands):
        at = enc.head().event_id
        command, _events = accepted(enc, gm)
        recorded = enc.execute(command, text_of(command))
        lines.append(json.dumps({
            "command": command_encoder.encode(command).decode(), "text": text_of(command), "at": at,
            "events": [[tag_of(type(r.event)), type(r.event).version, enc.codec.encode(r.event).decode()]
                       for r in recorded],
        }))
    store.close()
    Path(played).write_text("\n".join(lines) + "\n")


def race(label: str, events: int, workdir: Path, settings: Settings, log: Callable[[str], None],
         before: str | None = None) -> tuple[list[tuple[str, str]], list[str]]:
    paths = prepare(label, events, workdir, settings, log)
    py, tuned = [sys.executable], [sys.executable, "-O"]
    old = [before] if before else None
    scratch = str(workdir / f"race-{label}")
    measured: list[tuple[str, str]] = []
    notes: list[str] = []

    def fixed(argv: list[str]) -> Callable[[int], list[str]]:
        return lambda _r: argv

    def on_copy(python: list[str], kind: str, source: str, *rest: str) -> Callable[[int], list[str]]:
        return lambda r: worker(python, kind, copy_log(source, f"{scratch}-{kind}-{r}.db"), *rest)

    wanted = set(settings.groups or GROUPS)

    # The full replay, of the fight and of the upkeep-heavy log.
    for log_kind, db in (("fight", paths["fight"]), ("upkeep", paths["upkeep"])) if "replay" in wanted else ():
        contenders = [Contender("skirmish", fixed(worker(py, "skirmish", db)))]
        if log_kind == "fight":
            contenders += [Contender("fold alone", fixed(worker(py, "fold", db))),
                           Contender("reading", fixed(worker(py, "reading", db)), checked=False)]
        contenders += [Contender("floor", fixed(worker(py, "floor", db)), checked=False)]
        if log_kind == "fight":
            contenders += [Contender("eventsourcing", fixed(worker(py, "eventsourcing", paths["es"]))),
                           Contender("eventsourcing -O", fixed(worker(tuned, "eventsourcing", paths["es"])))]
        if old:
            contenders.append(Contender("skirmish before", fixed(worker(old, "skirmish", db))))
        group = run_rounds(Group(f"replay ({log_kind})", contenders), settings.rounds, log)
        measured += rows_of(group, [
            ("floor over skirmish (target <= 1.4x)", "floor", "skirmish", "wall", False),
            ("floor over skirmish, cpu", "floor", "skirmish", "cpu", False),
            ("floor over skirmish's fold alone, cpu", "floor", "fold alone", "cpu", False),
            ("skirmish over tuned peer", "skirmish", "eventsourcing -O", "wall", False),
            ("skirmish over skirmish before", "skirmish", "skirmish before", "wall", False),
        ])

    if "state" in wanted:
        group = Group("state at a past event", [
            Contender("skirmish", fixed(worker(py, "skirmish-state", paths["fight"], str(settings.state_samples)))),
            Contender("eventsourcing -O", fixed(worker(tuned, "eventsourcing-state", paths["es"],
                                                       str(settings.state_samples)))),
            *([Contender("skirmish before", fixed(worker(old, "skirmish-state", paths["fight"],
                                                          str(settings.state_samples))))] if old else []),
        ], unit="ms")
        run_rounds(group, settings.rounds, log)
        measured += rows_of(group, [
            ("tuned peer p50 over skirmish p50", "eventsourcing -O", "skirmish", "p50 ms", False),
            ("tuned peer p99 over skirmish p99", "eventsourcing -O", "skirmish", "p99 ms", False),
        ])

    if "table" in wanted:
        group = Group("at the table, 1 txn/command", [
            Contender("skirmish", on_copy(py, "skirmish-append", paths["fight"], paths["played"])),
            Contender("eventsourcing -O, same work",
                      on_copy(tuned, "eventsourcing-decide", paths["es"], paths["played"])),
            Contender("eventsourcing -O, raw append",
                      on_copy(tuned, "eventsourcing-append", paths["es"], paths["played"])),
            *([Contender("skirmish before", on_copy(old, "skirmish-append", paths["fight"], paths["played"]))]
              if old else []),
        ], unit="ms")
        run_rounds(group, settings.rounds, log)
        measured += rows_of(group, [
            ("same-work peer p50 over skirmish p50", "eventsourcing -O, same work", "skirmish", "p50 ms", False),
            ("raw-append peer p50 over skirmish p50", "eventsourcing -O, raw append", "skirmish", "p50 ms", False),
        ])

    if "bulk" in wanted:
        def fresh(python: list[str], kind: str, *rest: str) -> Callable[[int], list[str]]:
            def argv(r: int) -> list[str]:
                target = f"{scratch}-{kind}-{r}.db"
                for suffix in ("", "-wal", "-shm", ".fight"):
                    Path(target + suffix).unlink(missing_ok=True)
                return worker(python, kind, target, *rest)
            return argv

        n = str(settings.bulk_events)
        group = Group(f"bulk append, {settings.bulk_events:,} events of the fight", [
            Contender("skirmish", fresh(py, "skirmish-bulk", n, "fight")),
            Contender("eventsourcing -O", fresh(tuned, "eventsourcing-bulk", paths["bulk source"], str(PER_SAVE))),
            Contender("skirmish import",
                      fresh(py, "skirmish-import", paths["export"], str(_events(paths["bulk source"]))), checked=False),
            *([Contender("skirmish before", fresh(old, "skirmish-bulk", n, "fight")),
               Contender("skirmish import before", fresh(old, "skirmish-import", paths["export"],
                                                         str(_events(paths["bulk source"]))), checked=False)]
              if old else []),
        ])
        if settings.bulk_events in _BULK_RUN:  # the same 20,000 events at every size: raced once
            group.results = _BULK_RUN[settings.bulk_events]
        else:
            _BULK_RUN[settings.bulk_events] = run_rounds(group, settings.rounds, log).results
        measured += rows_of(group, [("skirmish over tuned peer", "skirmish", "eventsourcing -O", "wall", False),
                                    ("import over tuned peer (target >= 1x)", "skirmish import", "eventsourcing -O",
                                     "wall", False),
                                    ("import over import before", "skirmish import", "skirmish import before", "wall",
                                     False)])

    if "process" in wanted:
        cli, cli_notes = table_commands(paths["fight"], workdir, label, settings, log, before)
        measured += cli
        notes += cli_notes
    for path in workdir.glob(f"race-{label}-*"):
        path.unlink()
    return measured, notes


def _events(db: str) -> int:
    """Every event of the file's encounters (what an export of it holds)."""
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
    finally:
        conn.close()


def table_commands(source: str, workdir: Path, label: str, settings: Settings, log: Callable[[str], None],
                   before: str | None) -> tuple[list[tuple[str, str]], list[str]]:
    """state, declare, next and undo as whole processes (the installed script, from cached
    bytecode), each writing command on its own copy of the log, against `python -c "import
    msgspec, sqlite3"`.

    A round's copies are all made before its first contender runs, and one untimed
    interpreter start follows them: a process started right after a copy of a large log runs
    slower whatever it does (`python -c "import msgspec, sqlite3"` itself about 2 ms more
    CPU after a copy of the 100k log, 91 MB), which charged the writers, and neither the
    floor nor `state`, a cost that grew with the log."""
    from benchmarks.fight import declare_args

    base = copy_log(source, str(workdir / f"race-{label}-table.db"))
    declare = declare_args(base) or ["declare", "Hauser", "dodge"]
    scripts = {"": shutil.which("skirmish", path=str(Path(sys.executable).parent)) or "skirmish"}
    if before:
        scripts[" before"] = str(Path(before).parent / "skirmish")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    floor_argv = [sys.executable, "-c", "import msgspec, sqlite3"]
    writers: list[str] = []  # the contenders that write, each on its own copy a round

    def copy_of(name: str, r: int) -> str:
        return f"{base}-{name.replace(' ', '-')}-{r}.db"

    def make_copies(r: int) -> None:
        """Round ``r``'s copies (the round before's removed), then one interpreter start, untimed."""
        for name in writers:
            for suffix in ("", "-wal", "-shm", ".fight"):
                Path(copy_of(name, r - 1) + suffix).unlink(missing_ok=True)
            copy_log(base, copy_of(name, r))
        subprocess.run(floor_argv, env=env, check=True)

    def command(name: str, script: str, args: list[str], writes: bool) -> Contender:
        if writes:
            writers.append(name)
        return Contender(name, lambda r: [script, "--db", copy_of(name, r) if writes else base, *args], checked=False)

    contenders = [Contender("python -c 'import msgspec, sqlite3'", lambda _r: floor_argv, checked=False)]
    for suffix, script in scripts.items():
        contenders += [command(f"state{suffix}", script, ["state"], False),
                       command(f"{declare[0]}{suffix}", script, declare, True),
                       command(f"next{suffix}", script, ["next"], True),
                       command(f"undo{suffix}", script, ["undo"], True)]
    make_copies(-1)
    for c in contenders:  # one warm-up each: compiled bytecode, the file in the page cache
        _run(c.argv(-1), env)
    rounds = max(settings.rounds, 5)
    group = run_rounds(Group("whole process", contenders, unit="process", before_round=make_copies), rounds, log, env)
    for name in writers:
        for suffix in ("", "-wal", "-shm", ".fight"):
            Path(copy_of(name, rounds - 1) + suffix).unlink(missing_ok=True)
    floor = "python -c 'import msgspec, sqlite3'"
    comparisons = [(f"{c.name} over the interpreter's start (target <= 1.5x)", c.name, floor, "process wall", False)
                   for c in contenders[1:]]
    # CPU beside wall: a write's wall time is its CPU and its syncs to disk, which another
    # process's disk traffic can stretch many times over on a busy machine.
    comparisons += [(f"{c.name}, cpu over the interpreter's start", c.name, floor, "process cpu", False)
                    for c in contenders[1:]]
    rows = rows_of(group, comparisons)
    notes = [f"whole process, refused (timed all the same): {r}" for r in refusals(group)]
    notes.append(f"whole process: declare is `skirmish {' '.join(declare)}`")
    return rows, notes
