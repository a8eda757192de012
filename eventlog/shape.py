"""Which branches hold an event, worked out from the tree's jumps, never by loading the tree.

Ids grow from parent to child, and most events are the child of the event just before
them. The others, the *jumps* (the root, the first append after an undo or on a new
branch), start a run of consecutive ids; the ``events_jumps`` index holds only them, a
few hundred in a million-event log. With the jumps in hand, the path from the root to
any event is a handful of (low, high) runs worked out in memory: from the event down
to the latest jump at or below it, then from that jump's parent, and so on. A branch
holds an event when one of its head's runs passes over it, and only the run that starts
at the event's own jump can.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Mapping


class Shape:
    """One encounter's jumps (id -> parent) and its branches' heads, in creation order."""

    def __init__(self, jumps: Iterable[tuple[int, int | None]], heads: Mapping[str, int]) -> None:
        pairs = sorted(jumps)
        self._ids = [i for i, _ in pairs]
        self._parent = dict(pairs)
        self.heads = dict(heads)
        self._reach: dict[int, int] | None = None  # jump -> the highest id any branch reaches from it
        self._holders: dict[int, list[tuple[int, str]]] | None = None  # jump -> (high, branch) of each run

    def jump_of(self, event_id: int) -> int:
        """The jump that starts the run ``event_id`` is in: the latest jump at or below it."""
        at = bisect.bisect_right(self._ids, event_id) - 1
        if at < 0:
            raise KeyError(event_id)
        return self._ids[at]

    def runs_back(self, event_id: int) -> Iterator[tuple[int, int]]:
        """The path to ``event_id`` as runs of consecutive ids, newest first."""
        at: int | None = event_id
        while at is not None:
            jump = self.jump_of(at)
            yield jump, at
            at = self._parent[jump]

    def holds(self, head: int, event_id: int) -> bool:
        """Whether the path to ``head`` passes over ``event_id``."""
        for low, high in self.runs_back(head):
            if high < event_id:
                return False
            if low <= event_id:
                return True
        return False

    def holding(self, event_id: int) -> list[str]:
        """The branches whose history holds the event, in creation order (none: undone)."""
        return [name for name, head in self.heads.items() if self.holds(head, event_id)]

    def held(self, event_id: int) -> bool:
        """Whether any branch holds the event (False: it was undone everywhere)."""
        if self._reach is None:
            # Every head's runs, walked once: two branches share their path below where
            # one forked from the other, so a walk stops where an earlier one reached as high.
            reach: dict[int, int] = {}
            for head in self.heads.values():
                for low, high in self.runs_back(head):
                    if reach.get(low, -1) >= high:
                        break
                    reach[low] = high
            self._reach = reach
        return self._reach.get(self.jump_of(event_id), -1) >= event_id

    def holders(self, event_id: int) -> list[str]:
        """``holding``, from every head's runs worked out once: for asking about many events."""
        if self._holders is None:
            self._holders = {}
            for name, head in self.heads.items():
                for low, high in self.runs_back(head):
                    self._holders.setdefault(low, []).append((high, name))
        return [name for high, name in self._holders.get(self.jump_of(event_id), ()) if high >= event_id]
