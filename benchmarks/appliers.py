"""The cost of applying events, in one process: the floor, the appliers alone, the fold alone
and the full replay, interleaved, each the median of N runs (issue 27's replay target).

    python -m benchmarks.appliers DB [N]        # times; N runs each, interleaved (default 21)
    python -m benchmarks.appliers DB --passes K # K passes of the appliers alone, untimed:
                                                # for callgrind (K and 0, the difference / K)

The appliers alone run over the path's events decoded beforehand, from the first event's
initial state, through the fold's table (Encounter._dispatch); "no-op" is the same loop with
handlers that do nothing, so appliers - no-op is what the handlers themselves cost. Run it
on a copy of a log (it only reads it).
"""

from __future__ import annotations

import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any


def main(argv: list[str]) -> None:
    from skirmish.eventlog.store import Store
    from skirmish.projections.write.engine import Encounter

    db = argv[0]
    store = Store(db, create=False)
    enc = Encounter.open(store)
    enc.started  # noqa: B018 - the ruleset and codec loaded first
    runs = store.runs(enc.head().event_id)
    decode = enc.codec.decode_current
    conn = sqlite3.connect(db)
    query = "SELECT body FROM events WHERE id BETWEEN ? AND ?"
    events = [decode(body) for run in runs for (body,) in conn.execute(query, run)]
    first, rest = events[0], events[1:]
    dispatch = enc._dispatch()  # noqa: SLF001 - the fold's own table
    noop: dict[type[Any], Callable[[Any, Any], None]] = {t: (lambda state, event: None) for t in dispatch}
    initial: Callable[[Any], Any] = enc.ruleset.initial

    def passes(k: int, table: dict[type[Any], Callable[[Any, Any], None]]) -> None:
        for _ in range(k):
            state = initial(first)
            for event in rest:
                table[type(event)](state, event)

    if len(argv) > 2 and argv[1] == "--passes":
        passes(int(argv[2]), dispatch)
        return

    def floor() -> None:
        for run in runs:
            for (body,) in conn.execute(query, run):
                decode(body)

    def appliers() -> None:
        passes(1, dispatch)

    def no_op() -> None:
        passes(1, noop)

    def fold() -> None:
        enc._fold(None, store.runs(enc.head().event_id))  # noqa: SLF001 - the engine's own loop

    def replay() -> None:
        for _ in enc.replay():
            pass

    contenders = {"floor": floor, "appliers": appliers, "no-op": no_op, "fold": fold, "replay": replay}
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for run_once in contenders.values():
        run_once()  # warm
    for _ in range(int(argv[1]) if len(argv) > 1 else 21):
        for name, run_once in contenders.items():
            started = time.perf_counter()
            run_once()
            times[name].append(time.perf_counter() - started)
    base = statistics.median(times["floor"])
    print(f"{db}: {len(events)} events, median of {len(times['floor'])} interleaved runs")
    for name, taken in times.items():
        median = statistics.median(taken)
        print(f"{name:9s} {median * 1000:8.2f} ms {median / base:6.3f}x floor  "
              f"(range {min(taken) * 1000:.2f}-{max(taken) * 1000:.2f})")


if __name__ == "__main__":
    main(sys.argv[1:])
