"""A progress bar for long work (export, import, replay), drawn on a terminal only.

rich is imported only when a bar is drawn: ordinary commands at the table, and any
command whose stderr is piped, never pay its import time and print nothing extra.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# Below this many rows the work takes well under a second: no bar.
PROGRESS_FROM = 2000


def is_terminal() -> bool:
    return sys.stderr.isatty()


class Bar:
    """What a command holds while it works: ``advance(n)`` after each n rows done."""

    shown = False

    def advance(self, n: int = 1) -> None:
        return None


class _Drawn(Bar):
    shown = True

    def __init__(self, step: Callable[[int], None]) -> None:
        self._step = step

    def advance(self, n: int = 1) -> None:
        self._step(n)


@contextmanager
def progress(label: str, total: Callable[[], int]) -> Iterator[Bar]:
    """On a terminal, and for at least PROGRESS_FROM rows, a bar on stderr that is wiped
    when the work is done; otherwise nothing. ``total`` is asked only on a terminal."""
    if not is_terminal():
        yield Bar()
        return
    size = total()
    if size < PROGRESS_FROM:
        yield Bar()
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(file=sys.stderr, force_terminal=True)
    # stdout is the command's output (an export, a replay): the bar must not capture it.
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console, transient=True, redirect_stdout=False, redirect_stderr=False,
    ) as drawn:
        task = drawn.add_task(label, total=size)
        yield _Drawn(lambda n: drawn.advance(task, n))
