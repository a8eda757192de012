"""The replay's own cost a row, in one process, as a ladder from the floor to the full
replay, each rung the one before with one more part of the replay's work (issue 27's replay
target, and the profile of what is left of it):

    floor             sqlite3 and one typed msgspec decode of the body column of the head's
                      path, its runs known beforehand (benchmarks/worker.py's floor)
    reading           the store's reading of the same rows (Store.current_rows: the layout
                      check a row, in SQL) and the codec's decode
    fold, no handler  the fold's own loop (Encounter._fold) with every handler a no-op: the
                      reading, a row's count and a handler call
    fold              the fold as a state read runs it: the ruleset's handlers
    replay            Encounter.replay: the fold with a record and a yield a row

then the full replay with every record asked its command (read apart by the block, or read
with the rows: ``replay(commands=True)``, as the page and the report do). Interleaved, each
the median of N runs with its ratio to the floor taken run by run, and each rung's step
over the rung before it (the difference of their median ratios).

    python -m benchmarks.records DB [N]            # times; N runs each, interleaved (default 21)
    python -m benchmarks.records DB --only KIND    # one untimed pass of KIND (or "none"): for
                                                   # callgrind, KIND's count less "none"'s

Every rung that folds checks it ends in the state of the full replay, and every rung counts
the rows it read; a rung that ends elsewhere stops the run. Run it on a copy of a log (it
only reads it).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import msgspec

from benchmarks import worker

LADDER = ("floor", "reading", "fold, no handler", "fold", "replay")


def _no_op(state: Any, event: Any) -> None:
    """A handler that changes nothing (the ladder's rung below the handlers)."""


def kinds(db: str) -> dict[str, Callable[[], Any]]:
    """Each kind's run: the rows it read, or (rows, state) where it folds."""
    from skirmish.eventlog.events import Event
    from skirmish.eventlog.store import Store
    from skirmish.projections.write.engine import Encounter

    store = Store(db, create=False)
    enc = Encounter.open(store)
    enc.started  # noqa: B018 - the ruleset and codec loaded first
    floor = worker.floor(db)  # the race's own floor (an ap-countdown log's, as the benchmarks make)
    # The same engine, its handlers each a no-op: the fold's loop and a call a row, nothing
    # folded (an Encounter's dispatch table is built a fold, from this method).
    class Idle(Encounter):
        def _dispatch(self) -> dict[type[Event], Callable[[Any, Any], None]]:
            return dict.fromkeys(super()._dispatch(), _no_op)

    idle = Idle.open(Store(db, create=False))
    idle.started  # noqa: B018

    def reading() -> int:
        decode_current, count = enc.codec.decode_current, 0
        for _, rows in store.current_rows(store.runs(enc.head().event_id), enc.codec.versions):
            for (body,) in rows:
                decode_current(body)
                count += 1
        return count

    class NoHandler:
        engine = idle  # what the tests check folds nothing

        def __call__(self) -> int:
            return idle._fold(None, store.runs(idle.head().event_id))[1]  # noqa: SLF001 - the engine's own loop

    no_handler = NoHandler()

    def fold() -> tuple[int, Any]:
        state, count = enc._fold(None, store.runs(enc.head().event_id))  # noqa: SLF001 - the engine's own loop
        return count, state

    def replay() -> tuple[int, Any]:
        count, state = 0, None
        for _, state in enc.replay():
            count += 1
        return count, state

    def asked_apart() -> int:
        count = 0
        for rec, _ in enc.replay():
            rec.command_id  # noqa: B018 - read by the block, when asked
            count += 1
        return count

    def asked_along() -> int:
        count = 0
        for rec, _ in enc.replay(commands=True):
            rec.command_id  # noqa: B018 - read with the row
            count += 1
        return count

    return {"floor": floor, "reading": reading, "fold, no handler": no_handler, "fold": fold, "replay": replay,
            "commands apart": asked_apart, "commands along": asked_along, "none": lambda: 0}


def _checked(name: str, got: Any, ends: dict[str, Any]) -> None:
    """Stop the run where a kind read another number of rows, or folded to another state,
    than the full replay did (its first run sets what the others must match)."""
    rows, state = got if isinstance(got, tuple) else (got, None)
    encoded = msgspec.json.encode(state) if state is not None else None
    first = ends.setdefault("rows", rows)
    if rows != first:
        raise SystemExit(f"{name} read {rows} rows where the replay read {first}")
    if encoded is not None and encoded != ends.setdefault("state", encoded):
        raise SystemExit(f"{name} ended in another state than the replay")


def main(argv: list[str]) -> None:
    db = argv[0]
    runs = kinds(db)
    if "--only" in argv:
        runs[argv[argv.index("--only") + 1]]()
        return
    n = int(argv[1]) if len(argv) > 1 else 21
    del runs["none"]
    ends: dict[str, Any] = {}
    _checked("replay", runs["replay"](), ends)  # what every other kind must end in (untimed)
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(n):
        for name, run in runs.items():
            started = time.perf_counter()
            got = run()
            times[name].append(time.perf_counter() - started)
            _checked(name, got, ends)
    below = 0.0
    print(f"{ends['rows']:,} rows; medians of {n} runs, interleaved; a rung's step is its ratio less the rung's below")
    for name, taken in times.items():
        ratios = [t / f for t, f in zip(taken, times["floor"], strict=True)]
        ratio = statistics.median(ratios)
        step = f"  step {ratio - below:+.3f}x" if name in LADDER and name != "floor" else ""
        below = ratio if name in LADDER else below
        print(f"{name:17s} {statistics.median(taken) * 1000:9.2f} ms  over the floor {ratio:.3f}x"
              f" [{min(ratios):.3f}-{max(ratios):.3f}]{step}")


if __name__ == "__main__":
    main(sys.argv[1:])
