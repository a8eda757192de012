"""SIGTERM (`kill`) and SIGHUP (the terminal closed) stop a command as Ctrl-C does.

Python turns Ctrl-C into KeyboardInterrupt, which unwinds through every ``finally``: the
write transaction rolls back, a file an `import` or `new` made at a free path is removed,
amend's copy of the file and an export's temporary file are deleted. SIGTERM and SIGHUP
would end the process past all of that; here they raise SystemExit(128 + the signal)
instead, so every command cleans up the same way whichever of the three stops it. Only
SIGKILL, which nothing can catch, still ends a command on the spot (a crash mid-command
loses that command and nothing else: eventlog/connection.py).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

# The C module `signal` wraps: the same numbers and handlers, without the enums `signal`
# builds on import (1% of a command at the table, docs/performance.md). It has no stubs: mypy
# checks the calls against `signal`'s, whose functions and numbers these are.
if TYPE_CHECKING:
    import signal
else:
    import _signal as signal

STOPPING: tuple[int, int] = (signal.SIGTERM, signal.SIGHUP)


@contextmanager
def stopped_like_ctrl_c() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise SystemExit(128 + signal) where the process
    is, as Ctrl-C raises KeyboardInterrupt; the handlers before it are put back after."""
    threading = sys.modules.get("threading")  # not imported: no other thread was started by it
    if threading is not None and threading.current_thread() is not threading.main_thread():  # only it may set handlers
        yield
        return

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    before = {sig: signal.signal(sig, stop) for sig in STOPPING}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
