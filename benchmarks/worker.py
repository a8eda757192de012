"""One replay in a fresh process, so its peak memory is its own: prints one JSON line.

    python -m benchmarks.worker skirmish|reading|eventsourcing|floor DB
"""

from __future__ import annotations

import json
import resource
import sqlite3
import sys
import time
from pathlib import Path
from collections.abc import Callable
from typing import Any, Union


# Each kind opens what it needs, then returns the replay to time: imports and opening the
# database are not the replay's cost.


def skirmish(db: str) -> Callable[[], int]:
    """Full replay: the head's path streamed, decoded and folded, as `skirmish replay` does."""
    from skirmish.eventlog.store import Store
    from skirmish.projections.engine import Encounter

    enc = Encounter.open(Store(db, create=False))
    enc.started  # noqa: B018 - the ruleset and codec loaded before the clock starts
    return lambda: sum(1 for _ in enc.replay())


def reading(db: str) -> Callable[[], int]:
    """The replay's reading alone: the head's path streamed and decoded, no fold."""
    from skirmish.eventlog.store import Store
    from skirmish.projections.engine import Encounter

    store = Store(db, create=False)
    enc = Encounter.open(store)
    decode = enc.codec.decode
    enc.started  # noqa: B018
    return lambda: sum(1 for r in store.replay_rows(enc.head().event_id) if decode(r[4], r[2], r[3], r[0]) is not None)


def eventsourcing(db: str) -> Callable[[], int]:
    """The aggregate rebuilt from all its stored events by the library's repository."""
    from benchmarks import es

    app = es.open_app(db)
    fight_id = es.fight_id(db)
    return lambda: int(es.replay(app, fight_id).version)


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


KINDS = {"skirmish": skirmish, "reading": reading, "eventsourcing": eventsourcing, "floor": floor}


def main() -> None:
    kind, db = sys.argv[1], sys.argv[2]
    assert Path(db).exists(), db
    replay = KINDS[kind](db)
    started = time.perf_counter()
    events = replay()
    seconds = time.perf_counter() - started
    print(json.dumps({"events": events, "seconds": seconds, "peak_mb": peak_mb()}))


if __name__ == "__main__":
    main()
