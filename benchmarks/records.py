"""The replay's own cost a row, in one process: the floor, the fold alone, the full replay,
and the full replay with every record asked its command (read apart by the block, or read
with the rows: ``replay(commands=True)``, as the page and the report do), interleaved, each
the median of N runs with its ratio to the floor taken run by run (issue 27's replay target).

    python -m benchmarks.records DB [N]            # times; N runs each, interleaved (default 21)
    python -m benchmarks.records DB --only KIND    # one untimed pass of KIND (or "none"): for
                                                   # callgrind, KIND's count less "none"'s

The floor is benchmarks/worker.py's: sqlite3 and one typed msgspec decode of the body column
of the head's path, its runs known beforehand. Run it on a copy of a log (it only reads it).
"""

from __future__ import annotations

import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any, Union

import msgspec


def kinds(db: str) -> dict[str, Callable[[], None]]:
    from skirmish.eventlog.events import CORE_EVENTS
    from skirmish.eventlog.store import Store
    from skirmish.projections.engine import Encounter

    store = Store(db, create=False)
    enc = Encounter.open(store)
    enc.started  # noqa: B018 - the ruleset and codec loaded first
    union: Any = Union[(*CORE_EVENTS, *enc.ruleset.event_types)]  # noqa: UP007 - a runtime union
    decode = msgspec.json.Decoder(union).decode
    runs = store.runs(enc.head().event_id)
    conn = sqlite3.connect(db)

    def floor() -> None:
        for low, high in runs:
            for (body,) in conn.execute("SELECT body FROM events WHERE id BETWEEN ? AND ?", (low, high)):
                decode(body)

    def fold() -> None:
        enc._fold(None, store.runs(enc.head().event_id))  # noqa: SLF001 - the engine's own loop

    def replay() -> None:
        for _ in enc.replay():
            pass

    def asked_apart() -> None:
        for rec, _ in enc.replay():
            rec.command_id  # noqa: B018 - read by the block, when asked

    def asked_along() -> None:
        for rec, _ in enc.replay(commands=True):
            rec.command_id  # noqa: B018 - read with the row

    return {"floor": floor, "fold": fold, "replay": replay, "commands apart": asked_apart,
            "commands along": asked_along, "none": lambda: None}


def main(argv: list[str]) -> None:
    db = argv[0]
    runs = kinds(db)
    if "--only" in argv:
        runs[argv[argv.index("--only") + 1]]()
        return
    n = int(argv[1]) if len(argv) > 1 else 21
    del runs["none"]
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(n):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
    for name, taken in times.items():
        ratios = [t / f for t, f in zip(taken, times["floor"], strict=True)]
        print(f"{name:15s} {statistics.median(taken) * 1000:9.2f} ms  over the floor {statistics.median(ratios):.3f}x"
              f" [{min(ratios):.3f}-{max(ratios):.3f}]")


if __name__ == "__main__":
    main(sys.argv[1:])
