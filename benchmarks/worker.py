"""One contender's run in a fresh process, so its peak memory is its own: prints one JSON line
of events, wall and CPU seconds, peak memory and, where the contender folds, a digest of
the state it ends in (so the race checks both sides end alike).

    python -m benchmarks.worker skirmish|fold|reading|eventsourcing|floor DB
    python -m benchmarks.worker skirmish-state|eventsourcing-state DB SAMPLES
    python -m benchmarks.worker skirmish-append|eventsourcing-append|eventsourcing-decide DB PLAYED
    python -m benchmarks.worker skirmish-bulk DB EVENTS fight|upkeep
    python -m benchmarks.worker eventsourcing-bulk DB SOURCE PER_SAVE
    python -m benchmarks.worker skirmish-import DB EXPORT EVENTS

A contender that writes is given its own copy of the log (DB) by the race.
"""

from __future__ import annotations

import hashlib
import json
import resource
import sqlite3
import sys
import time
from pathlib import Path
from collections.abc import Callable
from typing import Any, Union

import msgspec


# Each kind opens what it needs, then returns the replay to time: imports and opening the
# database are not the replay's cost.


DIGEST: dict[str, str] = {}  # the digest of the state a contender ended in, set by its run
EXTRA: dict[str, float] = {}  # further figures of a run (a latency's p50 and p99)


def digest(state: Any) -> str:
    """A short hash of a state's JSON: equal states, equal digests (fighters in the order added).
    Its imports are the worker's own, made before any clock starts: a contender that checks
    its state is not charged for loading hashlib."""
    return hashlib.sha256(msgspec.json.encode(state)).hexdigest()[:16]


def skirmish(db: str) -> Callable[[], int]:
    """Full replay: the head's path streamed, decoded and folded, as `skirmish replay` does."""
    from skirmish.eventlog.store import Store
    from skirmish.projections.write.engine import Encounter

    enc = Encounter.open(Store(db, create=False))
    enc.started  # noqa: B018 - the ruleset and codec loaded before the clock starts

    def run() -> int:
        count, state = 0, None
        for _, state in enc.replay():
            count += 1
        DIGEST["state"] = digest(state)
        return count

    return run


def reading(db: str) -> Callable[[], int]:
    """The replay's reading alone: the head's path streamed and decoded, no fold."""
    from skirmish.eventlog.store import Store
    from skirmish.projections.write.engine import Encounter

    store = Store(db, create=False)
    enc = Encounter.open(store)
    decode, versions = enc.codec.decode_current, enc.codec.versions
    enc.started  # noqa: B018

    def run() -> int:
        # As Encounter.replay reads: the body where its layout is current (a record's command
        # and time are read when asked for, Recorded.command_id and recorded_at).
        runs = store.runs(enc.head().event_id)
        return sum(1 for _, rows in store.current_rows(runs, versions)
                   for (body,) in rows if decode(body) is not None)

    return run


def fold(db: str) -> Callable[[], int]:
    """The fold alone: the head's path read and folded to its state from the root, no record
    a row (what a state read costs without a snapshot); the same state as the full replay."""
    from skirmish.eventlog.store import Store
    from skirmish.projections.write.engine import Encounter

    store = Store(db, create=False)
    enc = Encounter.open(store)
    enc.started  # noqa: B018

    def run() -> int:
        state, count = enc._fold(None, store.runs(enc.head().event_id))  # noqa: SLF001 - the engine's own loop
        DIGEST["state"] = digest(state)
        return count

    return run


def eventsourcing(db: str) -> Callable[[], int]:
    """The aggregate rebuilt from all its stored events by the library's repository."""
    from benchmarks import es

    app = es.open_app(db)
    fight_id = es.fight_id(db)

    def run() -> int:
        fight = es.replay(app, fight_id)
        DIGEST["state"] = digest(fight.state)
        return int(fight.version)

    return run


def _quantiles(timings: list[float]) -> None:
    ordered = sorted(timings)
    EXTRA["p50 ms"] = ordered[len(ordered) // 2] * 1000
    EXTRA["p99 ms"] = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000


def skirmish_state(db: str, samples: str) -> Callable[[], int]:
    """The state at random past events of any branch, each folded from the nearest snapshot."""
    import random

    from skirmish.eventlog.store import Store
    from skirmish.projections.write.engine import Encounter

    store = Store(db, create=False)
    enc = Encounter.open(store)
    ids = random.Random(3).sample(store.event_ids(enc.row.id), int(samples))

    def run() -> int:
        timings = []
        for event_id in ids:
            started = time.perf_counter()
            enc.state_at(event_id)
            timings.append(time.perf_counter() - started)
        _quantiles(timings)
        return len(ids)

    return run


def eventsourcing_state(db: str, samples: str) -> Callable[[], int]:
    """The aggregate at random past versions through the library's repository and snapshots."""
    import random

    from benchmarks import es

    app = es.open_app(db)
    fight_id = es.fight_id(db)
    last = es.replay(app, fight_id).version
    versions = random.Random(3).sample(range(1, last + 1), int(samples))

    def run() -> int:
        timings = []
        for version in versions:
            started = time.perf_counter()
            es.state_at(app, fight_id, version)
            timings.append(time.perf_counter() - started)
        _quantiles(timings)
        return len(versions)

    return run


def _played(path: str) -> list[dict[str, Any]]:
    """The commands the race plays at the table (benchmarks/race.py writes them): each a
    command, its text, the event it was decided on and the events skirmish recorded."""
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def skirmish_append(db: str, played: str) -> Callable[[], int]:
    """Commands at the table, one transaction each, as `skirmish declare` and the rest do:
    read the head, fold from a snapshot, decide, hash and append."""
    from skirmish.eventlog.commands import command_decoder
    from skirmish.eventlog.store import Store
    from skirmish.projections.write.engine import Encounter

    store = Store(db, create=False)
    enc = Encounter.open(store)
    commands = [(command_decoder.decode(p["command"]), p["text"]) for p in _played(played)]

    def run() -> int:
        timings, events = [], 0
        for command, text in commands:
            started = time.perf_counter()
            events += len(enc.execute(command, text))
            timings.append(time.perf_counter() - started)
        _quantiles(timings)
        DIGEST["state"] = digest(enc.state_at(enc.head().event_id))
        return events

    return run


def _peer_commands(played: str) -> tuple[Any, list[dict[str, Any]]]:
    from benchmarks import es

    rows = _played(played)
    for row in rows:
        row["events"] = [es.decode_event(kind, version, body) for kind, version, body in row["events"]]
    return es, rows


def eventsourcing_append(db: str, played: str) -> Callable[[], int]:
    """The peer appends the events skirmish decided, one save each: no read, no decision."""
    es, rows = _peer_commands(played)
    app = es.open_app(db)
    fight = es.replay(app, es.fight_id(db))

    def run() -> int:
        timings, events = [], 0
        for row in rows:
            started = time.perf_counter()
            events += es.append_commands(app, fight, [row["events"]])
            timings.append(time.perf_counter() - started)
        _quantiles(timings)
        DIGEST["state"] = digest(es.replay(app, fight.id).state)
        return events

    return run


def eventsourcing_decide(db: str, played: str) -> Callable[[], int]:
    """The peer doing skirmish's work: get the aggregate from its snapshot, decide the
    command with the same ruleset and dice, save what it produced."""
    from skirmish.eventlog.commands import command_decoder

    es, rows = _peer_commands(played)
    app = es.open_app(db)
    fight_id = es.fight_id(db)
    seed = es.replay(app, fight_id).state.seed
    commands = [(command_decoder.decode(row["command"]), row["at"]) for row in rows]

    def run() -> int:
        timings, events = [], 0
        for command, at in commands:
            started = time.perf_counter()
            events += es.decide_and_save(app, fight_id, command, seed, at)
            timings.append(time.perf_counter() - started)
        _quantiles(timings)
        DIGEST["state"] = digest(es.replay(app, fight_id).state)
        return events

    return run


def skirmish_bulk(db: str, events: str, fight: str) -> Callable[[], int]:
    """The generator's fight written in bulk (2,000 commands a transaction): the append's
    time only (evolve, encode, hash, insert, snapshots, commit), not the GM's deciding."""
    from benchmarks.fight import Generator
    from skirmish.eventlog.store import Store

    def run() -> int:
        store = Store(db)
        gen = Generator(store, seed=7, fight=fight == "fight")
        enc = gen.run(int(events))
        EXTRA["seconds"] = gen.appending
        DIGEST["state"] = digest(enc.state_at(enc.head().event_id))
        count = store.counts(enc.row.id).events - 1
        store.close()
        return count

    return run


def skirmish_import(db: str, export: str, events: str) -> Callable[[], int]:
    """`skirmish import` of an export (every row inserted as it was, then the chain verified
    before the commit), in this process: EVENTS is how many events the export holds. Timed
    as the command's whole job: the new file made (its schema) and the lazy imports the
    command makes, the export read and decoded, the rows inserted, indexed and verified."""
    from skirmish.cli.main import run_cli

    def run() -> int:
        code = run_cli(["--db", db, "import", export])
        if code != 0:
            raise RuntimeError(f"skirmish import {export} failed ({code})")
        return int(events)

    return run


def eventsourcing_bulk(db: str, source: str, per_save: str) -> Callable[[], int]:
    """The same fight's path (SOURCE: a skirmish log) saved by the peer, PER_SAVE commands a
    save, as its whole job into a new store, like `skirmish import` into a new file: the
    timing starts before the peer makes its store (its application, tables and the lazy
    imports these need) and ends after its last save. Reading the source is not timed (the
    peer is handed its events decoded, where the import reads and decodes its file), nor
    the replay that checks the state it ended in."""
    import itertools

    from benchmarks import es
    from skirmish.eventlog.store import Store
    from skirmish.projections.write.engine import Encounter

    store = Store(source, create=False)
    enc = Encounter.open(store)
    first = enc.started
    rows = itertools.islice(store.path(enc.head().event_id), 1, None)
    commands = [[enc.decode(r).event for r in group] for _, group in itertools.groupby(rows, key=lambda r: r.command_id)]
    store.close()

    def run() -> int:
        started = time.perf_counter()
        app = es.open_app(db)
        fight = es.start(app, first)
        count = 0
        for low in range(0, len(commands), int(per_save)):
            chunk = commands[low:low + int(per_save)]
            count += es.append_commands(app, fight, chunk, per_save=len(chunk))
        EXTRA["seconds"] = time.perf_counter() - started
        es.remember_fight(db, fight)
        DIGEST["state"] = digest(es.replay(app, fight.id).state)
        app.close()
        return count

    return run


def floor(db: str) -> Callable[[], int]:
    """The floor: raw sqlite3 reads of the same rows (the head's path, its id ranges known
    beforehand) and msgspec decoding of their bodies, nothing else."""
    import msgspec

    from skirmish.eventlog.events import CORE_EVENTS
    from skirmish.eventlog.store import Store
    from skirmish.projections.rulesets.ap_countdown import RULESET

    union: Any = Union[(*CORE_EVENTS, *RULESET.event_types)]  # noqa: UP007 - a runtime union
    decode = msgspec.json.Decoder(union).decode
    store = Store(db, create=False)
    head = store.head(1, store.current_branch(1)).event_id
    runs = store.runs(head)
    store.close()
    conn = sqlite3.connect(db)

    def run() -> int:
        count = 0
        for low, high in runs:
            for (body,) in conn.execute("SELECT body FROM events WHERE id BETWEEN ? AND ?", (low, high)):
                decode(body)
                count += 1
        return count

    return run


def peak_mb() -> float:
    """This process's peak resident memory (VmHWM: getrusage's maxrss would include the
    parent's, carried over at fork and exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


KINDS: dict[str, Callable[..., Callable[[], int]]] = {
    "skirmish": skirmish, "fold": fold, "reading": reading, "eventsourcing": eventsourcing, "floor": floor,
    "skirmish-state": skirmish_state, "eventsourcing-state": eventsourcing_state,
    "skirmish-append": skirmish_append, "eventsourcing-append": eventsourcing_append,
    "eventsourcing-decide": eventsourcing_decide,
    "skirmish-bulk": skirmish_bulk, "eventsourcing-bulk": eventsourcing_bulk, "skirmish-import": skirmish_import,
}


def main() -> None:
    kind, db, *rest = sys.argv[1:]
    run = KINDS[kind](db, *rest)
    cpu, started = time.process_time(), time.perf_counter()
    events = run()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    # A bulk run times its appending alone (the generator's deciding and the source's
    # reading left out): its CPU is scaled by the same share.
    if "seconds" in EXTRA:
        cpu, seconds = cpu * EXTRA["seconds"] / seconds, EXTRA.pop("seconds")
    print(json.dumps({"events": events, "seconds": seconds, "cpu": cpu, "peak_mb": peak_mb(), **EXTRA,
                      **({"digest": DIGEST["state"]} if DIGEST else {})}))


if __name__ == "__main__":
    main()
