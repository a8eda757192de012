"""The eventsourcing peer's appends and states at past versions in a process of their own, so
that it runs plainly or tuned (``python -O``) as asked: prints one JSON line of figures.

    python [-O] -m benchmarks.peer SKIRMISH_DB HEAD PEER_DB PLAYED SAMPLES PER_SAVE

The path to HEAD in SKIRMISH_DB (its head before the commands played at the table) is appended to a new PEER_DB in bulk (PER_SAVE commands a
transaction, as the generator writes skirmish's), then the commands of PLAYED (one JSON
list of encoded events a line: what skirmish appended at the table) one transaction
each, then the state at SAMPLES random past versions is read through the repository,
from the library's snapshots.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from benchmarks import es
from skirmish.eventlog.events import Event
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def path_commands(store: Store, enc: Encounter, head: int) -> Iterator[list[Event]]:
    """The path to ``head`` after the root, one list of events per command, streamed."""
    rows = itertools.islice(store.path(head), 1, None)
    for _, group in itertools.groupby(rows, key=lambda r: r.command_id):
        yield [enc.decode(r).event for r in group]


def main() -> None:
    source, head, target, played_file, samples, per_save = sys.argv[1:7]
    for suffix in ("", "-wal", "-shm", ".fight"):
        Path(target + suffix).unlink(missing_ok=True)
    store = Store(source, create=False)
    enc = Encounter.open(store)
    app = es.open_app(target)
    fight = es.start(app, enc.started)
    es.remember_fight(target, fight)
    figures: dict[str, float] = {}

    spent, count = 0.0, 0
    commands = path_commands(store, enc, int(head))
    while chunk := list(itertools.islice(commands, int(per_save))):
        started = time.perf_counter()
        count += es.append_commands(app, fight, chunk, per_save=len(chunk))
        spent += time.perf_counter() - started
    figures["bulk"] = count / spent

    played = [[enc.codec.decode(body, kind, version, 0) for kind, version, body in command]
              for command in map(json.loads, Path(played_file).read_text().splitlines())]
    timings = []
    for command in played:
        started = time.perf_counter()
        es.append_commands(app, fight, [command])
        timings.append(time.perf_counter() - started)
    figures["append"] = sum(map(len, played)) / sum(timings)
    figures["append ms"] = sorted(timings)[len(timings) // 2] * 1000

    timings = []
    for version in random.Random(3).sample(range(1, fight.version + 1), min(int(samples), fight.version)):
        started = time.perf_counter()
        es.state_at(app, fight.id, version)
        timings.append(time.perf_counter() - started)
    figures["state p50"] = quantile(timings, 0.5) * 1000
    figures["state p99"] = quantile(timings, 0.99) * 1000
    app.close()
    store.close()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
