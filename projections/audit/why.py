"""Why a figure is what it is: the events of the branch that changed it, and what caused those.

It works on the events as stored and on the ruleset's ``view``, never on a ruleset's
internals.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

import msgspec

from skirmish.eventlog.errors import BadInput
from skirmish.eventlog.events import CombatantAdded
from skirmish.projections.write.engine import SNAPSHOT_EVERY, Encounter, PathRuns, Recorded
from skirmish.projections.ruleset import find_name, suggest
from skirmish.projections.text.board import figures as figures_of
from skirmish.projections.view import Effect, View
from skirmish.projections.text.words import event_line


def _row(view: View, name: str) -> dict[str, Any] | None:
    """The combatant's figures, label -> value (the labels `state --wide` prints)."""
    for c in view.combatants:
        if c.name == name:
            return figures_of(c)
    return None


def _kinds(row: dict[str, Any] | None) -> set[str]:
    return {e.kind for e in row.get("effects", ()) if isinstance(e, Effect)} if row else set()


def _figure(name: str, wanted: str, known: Sequence[str]) -> str:
    """The figure a GM typed, as `state` prints it ("hits left") or as a field ("hits_left")."""
    key = " ".join(wanted.replace("_", " ").split()).lower()
    for k in known:
        if k.lower() == key:
            return k
    raise BadInput(f"{name} has no figure {wanted!r} ({suggest(wanted, list(known))})")


def _mentions(rec: Recorded, words: set[str]) -> set[str]:
    """The effect kinds an event names in one of its text fields (an upkeep tick's effect)."""
    values = (getattr(rec.event, f) for f in rec.event.__struct_fields__)
    return {v for v in values if isinstance(v, str) and v in words}


WHY_LIMIT = 20  # changes of a figure `why` shows by default: the latest ones


class Link(msgspec.Struct, frozen=True):
    """An event of a figure's chain: what caused a change (a :class:`ChangeLink` is a change)."""

    id: int
    kind: str
    role: Literal["cause", "change"]
    description: str
    command: str  # the command line that recorded it


class ChangeLink(Link, frozen=True):
    """An event that changed the figure, from ``before`` to ``after``."""

    before: Any
    after: Any


class FigureHistory(msgspec.Struct, frozen=True):
    """One figure of the combatant: where it started, where it is, and the events between."""

    figure: str  # as `state --wide` labels it
    start: Any
    now: Any
    chain: list[Link]  # the changes shown and their causes, oldest first
    earlier: bool  # changes before those shown were left out (``limit``)


class Why(msgspec.Struct, frozen=True):
    """`why`'s answer: `why` prints it, `why --json` writes it as it is."""

    who: str
    branch: str
    at: int  # the branch's head
    figures: list[FigureHistory]


class _Change(NamedTuple):
    rec: Recorded
    old: Any
    new: Any
    kinds_before: frozenset[str]  # the effects on the combatant just before it


class _NamesAlong:
    """The combatant's name at each event of the path: a `rename` changes it from its event
    on, so the views before it hold the name it had then."""

    def __init__(self, enc: Encounter, name: str, head: int) -> None:
        starts: list[tuple[int, str]] = []
        for event_id, old, new in reversed(enc.renames(head)):
            if new == name:
                starts.append((event_id, name))
                name = old
        self.first = name
        self.starts = [(0, name), *reversed(starts)]
        # It joined before its first rename: a later combatant may have taken its first name.
        self.joined_before = starts[-1][0] if starts else None

    def at(self, event_id: int) -> str:
        found = self.first
        for start, name in self.starts:
            if start > event_id:
                break
            found = name
        return found


def _added_at(enc: Encounter, name: str, path: PathRuns, before: int | None = None) -> int:
    """The depth at which the combatant joined the path (its row first shows): the latest
    `add` of that name on the path (before ``before``: a name a rename freed may be added
    again)."""
    found: int | None = None
    for added in enc.events_of_kind(CombatantAdded):
        event = added.event
        if isinstance(event, CombatantAdded) and event.name == name and (before is None or added.id < before):
            depth = path.depth_of(added.id)
            if depth is not None:
                found = depth
    if found is not None:
        return found
    for rec, after in enc.replay(path.at(path.deepest)):  # a ruleset that adds in its own events
        if _row(enc.ruleset.view(after), name) is not None:
            depth = path.depth_of(rec.id)
            assert depth is not None
            return depth
    raise AssertionError(f"{name} is in the view but joined nowhere on the path")


def why(enc: Encounter, who: str, figure: str | None = None, limit: int | None = WHY_LIMIT) -> Why:
    """The events of the current branch that made WHO's figure what it is now: each event
    that changed it, and the events that caused those (the resolution that dealt the
    damage, the effect an upkeep tick ticks). Without a figure: every figure no longer at
    its starting value. ``limit``: the latest so many changes of each figure (None: all).

    The path is read backwards from the head a snapshot's stretch at a time (each folded
    from its cached state), only as far back as the changes shown lie: the cost grows with
    how far back those are, not with the length of the log.
    """
    head = enc.head()
    now = enc.view()
    name = find_name([c.name for c in now.combatants], who)
    path = enc.runs(head.event_id)
    names = _NamesAlong(enc, name, head.event_id)
    added = _added_at(enc, names.first, path, names.joined_before)
    start = _row(enc.ruleset.view(enc.fold_to(path.at(added))[0]), names.at(path.at(added)))
    latest = _row(now, name)
    assert start is not None and latest is not None
    known = list(latest)
    if figure is not None:
        wanted = [_figure(name, figure, known)]
    else:
        wanted = [k for k in known if latest[k] != start.get(k)]
    changes: dict[str, list[_Change]] = {}
    appeared: list[tuple[Recorded, set[str]]] = []  # effects as they came onto the combatant, in order
    every, apply, view = SNAPSHOT_EVERY, enc.ruleset.apply, enc.ruleset.view
    high = path.deepest
    while high > added and not (limit and all(len(changes.get(k, ())) >= limit for k in wanted)):
        low = max(added, (high - 1) // every * every)  # a snapshot's depth, or where it joined
        state = enc.fold_to(path.at(low))[0]
        before = _row(view(state), names.at(path.at(low)))
        assert before is not None
        stretch: dict[str, list[_Change]] = {}
        came: list[tuple[Recorded, set[str]]] = []
        for rec in enc.events_in(path.between(low + 1, high)):
            apply(state, rec.event)
            now_row = _row(view(state), names.at(rec.id))
            if now_row is None:
                continue
            kinds = frozenset(_kinds(before))
            for key, value in now_row.items():
                if before.get(key) != value:
                    stretch.setdefault(key, []).append(_Change(rec, before.get(key), value, kinds))
            if new_kinds := _kinds(now_row) - kinds:
                came.append((rec, new_kinds))
            before = now_row
        for key, found in stretch.items():
            changes[key] = found + changes.get(key, [])
        appeared[:0] = came
        high = low
    read_from = high  # every event deeper than this was read

    origins: dict[tuple[str, int], Recorded | None] = {}

    def origin(kind: str, rec: Recorded) -> Recorded | None:
        """Where ``kind`` last came onto the combatant before ``rec``."""
        for earlier, kinds in reversed(appeared):
            if earlier.id < rec.id and kind in kinds:
                return earlier
        if (kind, read_from) not in origins:
            origins[kind, read_from] = _came_before(enc, names, kind, path, added, read_from)
        return origins[kind, read_from]

    texts: dict[int, str] = {}

    def text(command_id: int) -> str:
        if command_id not in texts:
            texts[command_id] = enc.command(command_id).text
        return texts[command_id]

    out: list[FigureHistory] = []
    for key in wanted:
        found = changes.get(key, [])
        shown = found[-limit:] if limit else found
        chain: dict[int, Link] = {}
        for change in shown:
            rec = change.rec
            linked = [o for k in sorted(_mentions(rec, set(change.kinds_before))) if (o := origin(k, rec))]
            for cause in linked or _decided_with(rec, _siblings(enc, rec), names.at(rec.id),
                                                 {rec.command_id: text(rec.command_id)}):
                chain.setdefault(cause.id, Link(cause.id, cause.kind, "cause", event_line(enc, cause), text(cause.command_id)))
            chain[rec.id] = ChangeLink(rec.id, rec.kind, "change", event_line(enc, rec), text(rec.command_id),
                                       change.old, change.new)
        out.append(FigureHistory(key, start[key], latest[key], [chain[i] for i in sorted(chain)],
                                 len(found) > len(shown) or read_from > added))
    return Why(name, head.branch, head.event_id, out)


def _came_before(enc: Encounter, names: _NamesAlong, kind: str, path: PathRuns, added: int, depth: int) -> Recorded | None:
    """Where the effect ``kind``, on the combatant at ``depth``, came onto it (None: it was
    there when the combatant joined), looked for beyond what `why` read: over the cached
    states a snapshot's stretch apart, doubling the step back until it is off, then
    halving, then event by event in the one stretch where it came. An effect that went
    and came back between two of those states is found where it first came."""

    def on(at: int) -> bool:
        return kind in _kinds(_row(enc.ruleset.view(enc.fold_to(path.at(at))[0]), names.at(path.at(at))))

    every = SNAPSHOT_EVERY
    present, step = depth, every
    while True:
        probe = max(added, (present - step) // every * every)
        if not on(probe):
            absent = probe
            break
        if probe == added:
            return None
        present, step = probe, step * 2
    while present - absent > every:
        middle = max(absent + 1, (absent + present) // 2 // every * every)
        if middle in (absent, present):
            break
        if on(middle):
            present = middle
        else:
            absent = middle
    state = enc.fold_to(path.at(absent))[0]
    came: Recorded | None = None
    was = False
    for rec in enc.events_in(path.between(absent + 1, present)):
        enc.ruleset.apply(state, rec.event)
        now = kind in _kinds(_row(enc.ruleset.view(state), names.at(rec.id)))
        if now and not was:
            came = rec
        was = now
    return came


def _siblings(enc: Encounter, rec: Recorded) -> list[Recorded]:
    """The events of ``rec``'s command up to ``rec`` itself."""
    return [r for r in enc.events_of_command(rec.command_id) if r.id <= rec.id]


def _decided_with(rec: Recorded, siblings: list[Recorded], name: str, texts: dict[int, str]) -> list[Recorded]:
    """When a command about someone else changed this combatant (a resolution dealing
    damage), the cause is the nearest earlier event of that command that names it."""
    try:
        words = {w.lower() for w in shlex.split(texts.get(rec.command_id, ""))}
    except ValueError:
        words = set()
    if name.lower() in words:
        return []
    for earlier in reversed(siblings[:-1]):
        if name in _mentions(earlier, {name}):
            return [earlier]
    return []
