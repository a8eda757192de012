"""Settling disputes: explain an event's numbers, why a figure is what it is, diff, amend the past.

Everything here works on the events as stored and on the ruleset's ``view``, never on
a ruleset's internals: an explanation shows the Derivations recorded when the event was
decided (no recomputation), ``why`` and ``diff`` compare views, and ``amend`` decides the
branch's later commands again, as they were recorded, on a new branch.
"""

from __future__ import annotations

import bisect
import itertools
import shlex
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import msgspec

from skirmish.eventlog.commands import AddNote, AnyCommand, Command, command_decoder
from skirmish.eventlog.errors import BadInput, HeadMoved, SkirmishError, StoreError, TamperedLog, UnknownEvent
from skirmish.eventlog.events import CombatantAdded, Derivation, Event, NoteAdded, Roll, tag_of
from skirmish.projections.engine import SNAPSHOT_EVERY, Encounter, Recorded
from skirmish.projections.render import clock_label, own_figures
from skirmish.projections.render import figures as figures_of
from skirmish.projections.ruleset import find_name, suggest
from skirmish.projections.view import Effect, View



# --- explain ---------------------------------------------------------------------------------


def numbers(value: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    """Every number an event holds, with where it sits: Derivations and Rolls whole, plain
    numbers as they are. Items of a list are labelled by their ``who`` or ``name``."""
    if isinstance(value, (Derivation, Roll)):
        yield where, value
    elif isinstance(value, msgspec.Struct):
        for name in value.__struct_fields__:
            yield from numbers(getattr(value, name), f"{where}.{name}" if where else name)
    elif isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            label = getattr(item, "who", None) or getattr(item, "name", None)
            yield from numbers(item, f"{where}[{label if isinstance(label, str) else i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from numbers(item, f"{where}[{key}]")
    elif isinstance(value, int) and not isinstance(value, bool):
        yield where, value


def _roll_json(roll: Roll) -> dict[str, Any]:
    return {"dice": roll.dice, "faces": list(roll.faces), "total": roll.total, "source": roll.source}


def explain(enc: Encounter, event_id: int) -> dict[str, Any]:
    """Every number of one event with its derivation as recorded, the command behind it,
    the options in force and the notes about it."""
    rec = enc.decode(enc.store.event(enc.row.id, event_id))
    started = enc.started
    command = enc.store.command(rec.command_id)
    return {
        "event": rec.id,
        "kind": rec.kind,
        "description": enc.describe(rec),
        "command": command.text,
        "branch": command.branch,
        "on": enc.store.branches_holding(enc.row.id, rec.id),  # the branches whose history holds it
        "recorded_at": rec.recorded_at,
        "ruleset": enc.ruleset.id,
        "rules_file": enc.ruleset.rules_file,
        "options": dict(started.options),
        "numbers": number_entries(rec.event),
        "notes": [{"id": n.id, "text": n.text, **({"private": True} if n.private else {})}
                  for n in notes_shown(enc, [rec.id]).get(rec.id, [])],
    }


def number_entries(event: Event) -> list[dict[str, Any]]:
    """Every number of one event, as recorded: derivations with their terms, dice and rule."""
    # A plain number an event holds beside a ``rule`` of its own is governed by that rule.
    own_rule = getattr(event, "rule", "")
    entries: list[dict[str, Any]] = []
    for where, value in numbers(event):
        if isinstance(value, Derivation):
            entries.append({
                "figure": where, "value": value.amount, "formula": value.formula,
                "terms": [{"name": t.name, "value": t.value} for t in value.terms],
                "roll": _roll_json(value.roll) if value.roll is not None else None,
                "rule": value.rule,
            })
        elif isinstance(value, Roll):
            entries.append({"figure": where, "value": value.total, "roll": _roll_json(value)})
        else:
            entries.append({"figure": where, "value": value, "recorded": True,
                            "rule": own_rule if isinstance(own_rule, str) else ""})
    return entries


@dataclass(frozen=True)
class Note:
    id: int
    about: int
    text: str
    private: bool = False


def notes_shown(enc: Encounter, event_ids: Sequence[int] | None = None) -> dict[int, list[Note]]:
    """The notes about these events (default: every event), keyed by the event they annotate.

    A note annotates what happened wherever the GM wrote it, so notes from every branch
    are shown; an undone note (on no branch's history) was taken back and is not.
    """
    wanted = set(event_ids) if event_ids is not None else None
    rows = enc.store.events_of_kind(enc.row.id, tag_of(NoteAdded))
    if not rows:
        return {}
    shape = enc.store.shape(enc.row.id)  # whether a branch holds a note, from the runs of ids
    by: dict[int, list[Note]] = {}
    for row in rows:
        note = enc.decode(row).event
        assert isinstance(note, NoteAdded)
        if (wanted is None or note.about in wanted) and shape.held(row.id):
            by.setdefault(note.about, []).append(Note(row.id, note.about, note.text, note.private))
    return by


# --- why -------------------------------------------------------------------------------------


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


class PathRuns:
    """A path from the root as its runs of ids (oldest first), addressed by depth (the root: 0)."""

    def __init__(self, runs: list[tuple[int, int]]) -> None:
        self.runs = runs
        self.starts = [0, *itertools.accumulate(high - low + 1 for low, high in runs)]

    @property
    def deepest(self) -> int:
        return self.starts[-1] - 1

    def at(self, depth: int) -> int:
        i = bisect.bisect_right(self.starts, depth) - 1
        return self.runs[i][0] + depth - self.starts[i]

    def depth_of(self, event_id: int) -> int | None:
        for (low, high), start in zip(self.runs, self.starts, strict=False):
            if low <= event_id <= high:
                return start + event_id - low
        return None

    def between(self, first: int, last: int) -> list[tuple[int, int]]:
        """The runs of ids at depths ``first`` to ``last``."""
        out = []
        for (low, high), start in zip(self.runs, self.starts, strict=False):
            lo, hi = max(first, start), min(last, start + high - low)
            if lo <= hi:
                out.append((low + lo - start, low + hi - start))
        return out


class _Change(NamedTuple):
    rec: Recorded
    old: Any
    new: Any
    kinds_before: frozenset[str]  # the effects on the combatant just before it


def _added_at(enc: Encounter, name: str, path: PathRuns) -> int:
    """The depth at which the combatant joined the path (its row first shows)."""
    for row in enc.store.events_of_kind(enc.row.id, tag_of(CombatantAdded)):
        event = enc.decode(row).event
        if isinstance(event, CombatantAdded) and event.name == name:
            depth = path.depth_of(row.id)
            if depth is not None:
                return depth
    for rec, after in enc.replay(path.at(path.deepest)):  # a ruleset that adds in its own events
        if _row(enc.ruleset.view(after), name) is not None:
            depth = path.depth_of(rec.id)
            assert depth is not None
            return depth
    raise AssertionError(f"{name} is in the view but joined nowhere on the path")


def why(enc: Encounter, who: str, figure: str | None = None, limit: int | None = WHY_LIMIT) -> dict[str, Any]:
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
    path = PathRuns(enc.store.runs(head.event_id))
    added = _added_at(enc, name, path)
    start = _row(enc.ruleset.view(enc.fold_to(path.at(added))[0]), name)
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
        before = _row(view(state), name)
        assert before is not None
        stretch: dict[str, list[_Change]] = {}
        came: list[tuple[Recorded, set[str]]] = []
        for row in enc.store.events_in(path.between(low + 1, high)):
            rec = enc.decode(row)
            apply(state, rec.event)
            now_row = _row(view(state), name)
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
            origins[kind, read_from] = _came_before(enc, name, kind, path, added, read_from)
        return origins[kind, read_from]

    texts: dict[int, str] = {}

    def text(command_id: int) -> str:
        if command_id not in texts:
            texts[command_id] = enc.store.command(command_id).text
        return texts[command_id]

    out: list[dict[str, Any]] = []
    for key in wanted:
        found = changes.get(key, [])
        shown = found[-limit:] if limit else found
        chain: dict[int, dict[str, Any]] = {}
        for change in shown:
            rec = change.rec
            linked = [o for k in sorted(_mentions(rec, set(change.kinds_before))) if (o := origin(k, rec))]
            for cause in linked or _decided_with(rec, _siblings(enc, rec), name, {rec.command_id: text(rec.command_id)}):
                chain.setdefault(cause.id, _link(enc, cause, text(cause.command_id), "cause"))
            chain[rec.id] = {**_link(enc, rec, text(rec.command_id), "change"), "before": change.old, "after": change.new}
        out.append({"figure": key, "start": start[key], "now": latest[key],
                    "chain": [chain[i] for i in sorted(chain)],
                    "earlier": len(found) > len(shown) or read_from > added})
    return {"who": name, "branch": head.branch, "at": head.event_id, "figures": out}


def _came_before(enc: Encounter, name: str, kind: str, path: PathRuns, added: int, depth: int) -> Recorded | None:
    """Where the effect ``kind``, on the combatant at ``depth``, came onto it (None: it was
    there when the combatant joined), looked for beyond what `why` read: over the cached
    states a snapshot's stretch apart, doubling the step back until it is off, then
    halving, then event by event in the one stretch where it came. An effect that went
    and came back between two of those states is found where it first came."""

    def on(at: int) -> bool:
        return kind in _kinds(_row(enc.ruleset.view(enc.fold_to(path.at(at))[0]), name))

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
    for row in enc.store.events_in(path.between(absent + 1, present)):
        rec = enc.decode(row)
        enc.ruleset.apply(state, rec.event)
        now = kind in _kinds(_row(enc.ruleset.view(state), name))
        if now and not was:
            came = rec
        was = now
    return came


def _siblings(enc: Encounter, rec: Recorded) -> list[Recorded]:
    """The events of ``rec``'s command up to ``rec`` itself."""
    return [enc.decode(r) for r in enc.store.events_of_command(rec.command_id) if r.id <= rec.id]


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


def _link(enc: Encounter, rec: Recorded, command: str, role: str) -> dict[str, Any]:
    return {"id": rec.id, "kind": rec.kind, "role": role, "description": enc.describe(rec), "command": command}


# --- diff ------------------------------------------------------------------------------------


def _moment(enc: Encounter, spec: str) -> tuple[str, int]:
    """A branch name or an event id: the label to show and the event it stands for."""
    text = spec.strip().lstrip("#")
    if text.isdigit():
        return f"#{int(text)}", enc.store.event(enc.row.id, int(text)).id
    return spec, enc.head(spec).event_id


def _scene(view: View) -> dict[str, Any]:
    """What is not any one combatant's: the clock, the pending actions, the ruleset's own."""
    pending = [f"{p.who} {p.action}" + (f" on {p.target}" if p.target else "") for p in view.pending]
    return {"clock": clock_label(view.clock), "pending": pending, **own_figures(view.clock.own),
            **own_figures(view.own)}


def _split(runs_a: list[tuple[int, int]], runs_b: list[tuple[int, int]]) -> int:
    """The last event two paths share, from their runs of ids (oldest first): a run starts
    at a jump, so two paths through one event both have a run starting where its run does."""
    split = runs_a[0][0]
    for (low_a, high_a), (low_b, high_b) in zip(runs_a, runs_b, strict=False):
        if low_a != low_b:
            break
        split = min(high_a, high_b)
        if high_a != high_b:
            break
    return split


def _after(runs: list[tuple[int, int]], split: int) -> list[tuple[int, int]]:
    """The runs of a path after the event ``split``."""
    return [(max(low, split + 1), high) for low, high in runs if high > split]


def diff(enc: Encounter, a: str, b: str, listed: bool = True) -> dict[str, Any]:
    """What differs between two branches or events, combatant by combatant and figure by
    figure, and where their histories split (the last event both share). ``listed``: each
    event after the split with its description (``after_split`` counts them either way,
    from the paths' runs of ids, without reading them)."""
    (label_a, at_a), (label_b, at_b) = _moment(enc, a), _moment(enc, b)
    runs_a, runs_b = enc.store.runs(at_a), enc.store.runs(at_b)
    split = enc.decode(enc.store.event(enc.row.id, _split(runs_a, runs_b)))
    view_a, view_b = enc.ruleset.view(enc.fold_to(at_a)[0]), enc.ruleset.view(enc.fold_to(at_b)[0])
    rows_a = {c.name: figures_of(c) for c in view_a.combatants}
    rows_b = {c.name: figures_of(c) for c in view_b.combatants}
    combatants: list[dict[str, Any]] = []
    for name in [*rows_a, *(n for n in rows_b if n not in rows_a)]:
        ra, rb = rows_a.get(name), rows_b.get(name)
        if ra is None or rb is None:
            combatants.append({"name": name, "only_in": label_a if rb is None else label_b, "figures": []})
            continue
        changed = [{"figure": k, "a": ra.get(k), "b": rb.get(k)}
                   for k in dict.fromkeys([*ra, *rb]) if ra.get(k) != rb.get(k)]
        if changed:
            combatants.append({"name": name, "figures": changed})
    scene_a, scene_b = _scene(view_a), _scene(view_b)
    scene = [{"figure": k, "a": scene_a.get(k), "b": scene_b.get(k)}
             for k in dict.fromkeys([*scene_a, *scene_b]) if scene_a.get(k) != scene_b.get(k)]

    def after_split(runs: list[tuple[int, int]]) -> list[dict[str, Any]] | None:
        if not listed:
            return None
        return [{"id": r.id, "description": enc.describe(enc.decode(r))} for r in enc.store.events_in(runs)]

    def span(runs: list[tuple[int, int]]) -> dict[str, int | None]:
        return {"count": sum(high - low + 1 for low, high in runs),
                "first": runs[0][0] if runs else None, "last": runs[-1][1] if runs else None}

    only_a, only_b = _after(runs_a, split.id), _after(runs_b, split.id)
    return {
        "a": {"name": label_a, "at": at_a},
        "b": {"name": label_b, "at": at_b},
        "split": {"id": split.id, "description": enc.describe(split)},
        "only_a": after_split(only_a),
        "only_b": after_split(only_b),
        "after_split": {"a": span(only_a), "b": span(only_b)},
        "scene": scene,
        "combatants": combatants,
    }


# --- amend -----------------------------------------------------------------------------------


@dataclass
class Redecided:
    """One command of the original branch and what deciding it again gave."""

    text: str
    old: list[int]
    new: list[Recorded] = field(default_factory=list)
    skipped: str | None = None  # why it no longer holds, if it was skipped


@dataclass
class Amended:
    branch: str
    at: int  # the event the new branch starts from (where the amended command was decided)
    original: str  # the branch whose history was amended
    steps: list[Redecided]  # the amended command first, then every later one

    def to_json(self) -> dict[str, Any]:
        return {
            "branch": self.branch, "from": self.original, "at": self.at,
            "commands": [
                {"command": s.text, "old": s.old, "new": [r.id for r in s.new], "skipped": s.skipped}
                for s in self.steps
            ],
        }


def _commands_on(path: list[Recorded]) -> list[list[Recorded]]:
    """The path's events grouped by the command that produced them, in order: the commands
    whose events are on the branch (undone ones are not, redone ones are, once)."""
    groups: list[list[Recorded]] = []
    for rec in path:
        if groups and groups[-1][0].command_id == rec.command_id:
            groups[-1].append(rec)
        else:
            groups.append([rec])
    return groups


def amend(enc: Encounter, event_id: int, command: Command, text: str, branch: str | None, why: str) -> Amended:
    """Replace the command behind ``event_id`` (on the current branch) with ``command`` and
    decide every later command of the branch again on top of it, on a new branch.

    A later command that no longer holds is skipped with its reason, like a conflict in a
    rebase; the original branch keeps every event. Each command rolls the tool's dice it
    rolled when first decided (they are seeded from where it was decided), so only what
    the correction changes changes. The replacement itself is decided whole, even where
    the branch was forked between the events of the command it replaces. The new branch
    is written in one transaction: it is there whole, or not at all.
    """
    enc.store.event(enc.row.id, event_id)
    head = enc.head()
    groups = _commands_on(enc.path(head.event_id, checked=True))
    k = next((i for i, g in enumerate(groups) if any(r.id == event_id for r in g)), None)
    if k is None:
        raise UnknownEvent(
            f"event {event_id} is not in the history of branch {head.branch!r}: "
            "`skirmish switch` to the branch it is on first"
        )
    if k == 0:
        raise BadInput("the encounter's first event cannot be amended: start a new encounter instead")
    at = groups[k][0].parent
    assert at is not None
    name = branch or _free_name(enc, f"amend-{event_id}")
    # Decided first, so a replacement that does not hold records nothing at all.
    enc.decide(command, at)
    # Decided on a private copy of the file, so the table is not locked out while every
    # later command is decided again (seconds for a long branch); what the copy appended is
    # then written in one short transaction, refused if anything was recorded meanwhile.
    aside = enc.store.aside()
    try:
        copy = Encounter(aside.store, enc.row)
        if enc.pinned:
            copy.pin(enc.pinned)
        steps = _decide_again(copy, groups[k:], command, text, name, at, why)
        enc.store.bring_back(aside)
    finally:
        aside.discard()
    return Amended(name, at, head.branch, steps)


def _decide_again(
    enc: Encounter, groups: list[list[Recorded]], command: Command, text: str, name: str, at: int, why: str
) -> list[Redecided]:
    """Fork ``name`` at ``at`` and decide ``command`` then every later command of ``groups``
    again on it, in one transaction of ``enc``'s store (amend's copy of the file)."""
    with enc.store.batch():
        enc.fork(name, at, why)
        sizes = Counter(row.command_id for row in enc.store.all_events(enc.row.id))
        renumbered: dict[int, int] = {}
        steps: list[Redecided] = []
        for i, group in enumerate(groups):
            old = [r.id for r in group]
            if i == 0:
                step = Redecided(text, old)
                todo: Command = command
            else:
                row = enc.store.command(group[0].command_id)
                step = Redecided(row.text, old)
                todo = command_decoder.decode(row.body)
            steps.append(step)
            try:
                moved = _renumber(todo, renumbered, {r.id for g in groups for r in g})
                if moved is not todo and isinstance(moved, AddNote):
                    # The command line as it would be typed now, about the new event.
                    step.text = shlex.join([str(type(moved).__struct_config__.tag), str(moved.event), moved.text])
                    todo = moved
                # A command the branch holds only in part (it was forked inside the command)
                # is held in the same part again.
                keep = len(group) if i and len(group) < sizes[group[0].command_id] else None
                step.new = enc.execute(todo, step.text, branch=name, dice_from=group[0].parent, keep=keep)
            except (HeadMoved, StoreError, TamperedLog):
                raise  # not the command's fault: the store's; the whole amend is rolled back
            except SkirmishError as exc:
                step.skipped = str(exc)
                continue
            renumbered.update(zip(old, (r.id for r in step.new), strict=False))
    return steps


def _renumber(command: AnyCommand | Command, renumbered: dict[int, int], replaced: set[int]) -> Command:
    """A note about an event that was decided again is about its new counterpart."""
    if not isinstance(command, AddNote) or command.event not in replaced:
        return command
    new = renumbered.get(command.event)
    if new is None:
        raise UnknownEvent(f"the event it annotates (#{command.event}) was not decided again")
    return msgspec.structs.replace(command, event=new)


def _free_name(enc: Encounter, base: str) -> str:
    taken = set(enc.store.branches(enc.row.id))
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name
