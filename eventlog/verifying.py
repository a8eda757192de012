"""A long log's verify on the machine's other core, while the command goes on with its work.

``verify`` (eventlog/chain.py) recomputes a SHA-256 a row: about 7 seconds for a
1M-event log, on one core. The commands that need a digest and have other work of their
own (an export writing its rows, ``verify`` checking the cached states against the fold,
a report folding the fight) start it here: above ``AT_LEAST`` events, with a second core,
another process reads the log and verifies it while this one works; otherwise it runs
here, when the digest is asked for.

The other process reads the file at its own moment. The log only grows (its tables
refuse updates and deletes), so when its row counts are the caller's, it read the very
rows the caller did; when they are not (a command was recorded in between), or it did not
finish, the digest is worked out here after all. A fault it finds is the fault: the same
message as here.

    python -m skirmish.eventlog.verifying DB ENCOUNTER_ID   # prints {"counts": [...], "digest": ...}
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from skirmish.eventlog.errors import TamperedLog
from skirmish.eventlog.store import Store

AT_LEAST = 100_000  # events: below this a log verifies in about a second, here
TAMPERED = 4  # the other process's exit code for a log that does not verify


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@contextmanager
def verifying(store: Store, encounter_id: int, aside: bool = True) -> Iterator[Callable[[], str]]:
    """The encounter's verify digest, to be asked for later in the same read transaction
    (the caller's ``store.reading()``): begun at once in another process when ``aside``,
    the log is long and a second core is free; otherwise worked out when asked for. The
    other process is stopped if the caller leaves without asking."""
    counts = store.counts(encounter_id)
    if not aside or counts.events < AT_LEAST or cores() < 2 or not os.path.exists(store.file):
        yield lambda: store.verify(encounter_id)
        return
    process = subprocess.Popen(
        [sys.executable, "-m", "skirmish.eventlog.verifying", store.file, str(encounter_id)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )

    def digest() -> str:
        out, err = process.communicate()
        if process.returncode == TAMPERED:
            raise TamperedLog(err.decode(errors="replace").strip())
        if process.returncode == 0:
            answer = json.loads(out)
            if tuple(answer["counts"]) == tuple(counts):
                return str(answer["digest"])
        return store.verify(encounter_id)  # it read another moment, or failed: here, then

    try:
        yield digest
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def main(argv: list[str]) -> int:
    path, encounter_id = argv[0], int(argv[1])
    store = Store(path, create=False)
    try:
        with store.reading():
            counts = store.counts(encounter_id)
            try:
                digest = store.verify(encounter_id)
            except TamperedLog as exc:
                print(exc, file=sys.stderr)
                return TAMPERED
        print(json.dumps({"counts": list(counts), "digest": digest}))
        return 0
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
