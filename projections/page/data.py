"""The data of the interactive replay page: every branch's events with the view at each moment.

What the page needs, for any ruleset, read off the typed view, ``describe``, the events'
derivations and ``Ruleset.harm``: each event of every branch once (branches share the
events before they split), its narration, its explanation (its numbers as `explain`
prints them), the damage it did with the attacker, and the view after it as a *delta*
from the view after its parent (only what changed), so a long fight stays small and the
page folds the views back as it is scrubbed.

Two audiences: the GM's data is everything; the players' data is what the players' policy
(projections/policy.py, written once for every players' screen) lets through.

Its shape is written once, as the Structs of projections/page/wire.py (the data is
:class:`~skirmish.projections.page.wire.PageData`'s fields, a served page's change
:class:`~skirmish.projections.page.wire.Change`'s): docs/wire-schema.json is generated from them.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

from skirmish.eventlog.events import (
    CombatantRenamed, EncounterEnded, NoteAdded,
)
from skirmish.projections.audit.explain import Number, number_entries
from skirmish.projections.write.engine import PathRuns
from skirmish.projections.notes import Note, notes_shown
from skirmish.projections.damage import Attribution
from skirmish.projections.write.engine import CommandsAlong, Encounter, Recorded
from skirmish.projections.text.narration import number_parts
from skirmish.projections.text.board import cell, clock_label, effect_text, label
from skirmish.projections.ruleset import Harm
from skirmish.projections.policy import Audience, Bands, Players, Sight, Told, audience, bands, names_any
from skirmish.projections.text.narration import explanation_lines
from skirmish.projections.view import Combatant, Gauge, Own, View
from skirmish.projections.text.words import event_line
from skirmish.projections.page.wire import (
    FORMAT, WITHHELD, Board, Branch, Change, Entry, Harming, Healing, Hit, HitBy, PageData, PageNote, Summarised, Totals,
    Waiting, fields,
)

__all__ = ["Audience", "Bands", "GMLive", "PlayersLive", "audience", "bands", "build", "event_count"]  # cli/ reads these here


# A page past this many events summarises: the earliest events of each branch are folded
# into the board it starts from, their damage into the totals, and only the last ones are
# stepped through (the jsonl export keeps the whole log). About 200 bytes an event in
# the page (benchmarks/page.py): 100,000 events is about 20 MB, which opens in about 2 s.
MOST_EVENTS = 100_000

_T = TypeVar("_T")


@dataclass
class _Branch:
    name: str
    head: int
    path: PathRuns  # its events from the root, as runs of ids (a long log's paths are not listed)
    split: int | None = None  # the last event it shares with a branch listed before it
    start: int = 0  # the first event it holds that no branch before it does (its depth)
    source: str | None = None  # the first branch listed that holds ``split``

    @property
    def length(self) -> int:
        return self.path.deepest + 1


@dataclass
class _PageFold:
    """What the next event of a path needs from the events before it."""

    attribution: Attribution
    view: Board | None  # the board after the event before (None: none yet)
    sight: Sight  # what the players' policy knows at this event (who is hidden, the bands)
    first_vital: dict[str, int] = field(default_factory=dict)
    dealt: dict[str, int] = field(default_factory=dict)  # damage so far, while it is summarised
    taken: dict[str, int] = field(default_factory=dict)
    noted: dict[str, tuple[str, ...]] = field(default_factory=dict)  # the notes on each combatant the audience sees
    keys: dict[str, str] = field(default_factory=dict)  # each combatant's key on this path (_Names.path)
    last: int | None = None  # the last event the page holds on this path
    round: int | None = None  # the round (or turn) after the event before


def _branches(enc: Encounter) -> list[_Branch]:
    """Every branch (the current one first), each with where it leaves the ones before it.
    Paths from the root share their start and never meet again once apart, so what a
    branch shares with those before it is its longest common start with any of them."""
    heads = enc.branches()
    current = enc.branch
    order = [current, *(n for n in heads if n != current)]
    branches = [_Branch(n, heads[n].event_id, enc.runs(heads[n].event_id)) for n in order]
    for i, b in enumerate(branches[1:], start=1):
        b.start = max(_common(a.path.runs, b.path.runs) for a in branches[:i])
        if b.start:
            b.split = b.path.at(b.start - 1)
            b.source = next(a.name for a in branches if a.path.depth_of(b.split) is not None)
    return branches


def _nth_id(runs: list[tuple[int, int]], n: int) -> int:
    """The id with ``n`` ids of these (disjoint) runs below it."""
    for low, high in sorted(runs):
        if n <= high - low:
            return low + n
        n -= high - low + 1
    raise ValueError("fewer ids than that")


def _common(one: list[tuple[int, int]], other: list[tuple[int, int]]) -> int:
    """How many events two paths (as runs of ids) share from the root."""
    shared = 0
    for (low, high), (low_b, high_b) in zip(one, other, strict=False):
        if low != low_b:
            break
        shared += min(high, high_b) - low + 1
        if high != high_b:
            break
    return shared


class _Names:
    """Short keys for what a view repeats in every delta: combatants by the order they
    joined ("0", "1", ...), a ruleset's own figures by the order first seen ("o0", "o1")."""

    def __init__(self) -> None:
        self.combatants: dict[str, str] = {}  # the key each name was first given, on any path
        self.path: dict[str, str] = {}  # name -> key on the path being read (each fold keeps its own)
        self._count = 0
        self.figures: dict[str, str] = {}
        # Each combatant's fields as last made, with the view they were made from: a view
        # an event left alone gives the same dict, which the delta passes over at once.
        self._rows: dict[str, tuple[Combatant, dict[str, Any]]] = {}
        self._owns: dict[type[Own], tuple[Own, dict[str, Any]]] = {}
        self._registered: set[type[Own]] = set()

    def combatant(self, name: str) -> str:
        """The combatant's key on this path: the one its name has on other paths where that
        is free here (a combatant on two branches keeps one key), else a new one (a name a
        `rename` freed, taken by a newcomer)."""
        key = self.path.get(name)
        if key is None:
            key = self.combatants.get(name)
            if key is None or key in self.path.values():
                key, self._count = str(self._count), self._count + 1
                self.combatants.setdefault(name, key)
            self.path[name] = key
        return key

    def rename(self, old: str, new: str) -> None:
        """`rename` on this path: the new name keeps the combatant's key, so its row, its
        chart line and its damage totals go on; the old name is free for a newcomer."""
        if old in self.path:
            self.path[new] = self.path.pop(old)

    def figure(self, name: str) -> str:
        key = self.figures.get(name)
        if key is None:
            key = self.figures[name] = f"o{len(self.figures)}"
        return key

    def register(self, view: View) -> None:
        """Give the view's combatants and figures their keys, in the order :meth:`view`
        would, without making its data (an event the page summarises)."""
        for part in (view.clock.own, *(c.own for c in view.combatants), view.own):
            if type(part) not in self._registered:  # a kind of part gives out its keys once
                self._registered.add(type(part))
                for name in _shown(part):
                    self.figure(name)
        for c in view.combatants:
            self.combatant(c.name)

    def fields(self, c: Combatant) -> dict[str, Any]:
        """The combatant's data (the page's reader never changes it: a players' page copies
        it before it hides figures)."""
        made = self._rows.get(c.name)
        if made is not None and (made[0] is c or made[0] == c):
            return made[1]
        fields = self._fields(c)
        self._rows[c.name] = (c, fields)
        return fields

    def _fields(self, c: Combatant) -> dict[str, Any]:
        # A second gauge (crisis's Endurance) only where there is one: other pages keep their keys.
        second = {"v2n": c.vital2.name, "v2": c.vital2.value, "v2m": c.vital2.maximum} if isinstance(
            c.vital2, Gauge) else {}
        return {
            "n": c.name, "s": c.side, "st": c.status, "a": int(c.acting),
            "vn": c.vital.name, "v": c.vital.value, "vm": c.vital.maximum, **second,
            "bn": c.budget.name, "bl": c.budget.left, "bo": c.budget.of,
            "e": [effect_text(e) for e in c.effects],
            **self._own(c.own),
        }

    def own(self, part: Own) -> dict[str, Any]:
        """A ruleset's own figures, each its own key, so a delta carries only those that changed."""
        made = self._owns.get(type(part))
        if made is not None and (made[0] is part or made[0] == part):
            return made[1]
        own = self._own(part)
        self._owns[type(part)] = (part, own)
        return own

    def _own(self, part: Own) -> dict[str, Any]:
        return {self.figure(name): cell(getattr(part, name)) for name in _shown(part)}

    def view(self, view: View) -> Board:
        """A view as the page holds it (wire.py's Board, whole): flat parts with short keys
        (page.js names them), the combatants by key, their acting order apart."""
        k = view.clock
        return Board(
            k={"r": k.round, "l": clock_label(k), "now": list(k.now), "next": list(k.next),
               "end": f"the end of the {k.unit}" if k.running else "", **self.own(k.own)},
            o=[self.combatant(c.name) for c in view.combatants],
            c={self.combatant(c.name): self.fields(c) for c in view.combatants},
            p=[Waiting(p.who, p.action, p.target, p.resolves) for p in view.pending],
            w=self.own(view.own),
        )


def _shown(part: Own) -> tuple[str, ...]:
    """The fields of a ruleset's own part the page shows: not those repeating the core's."""
    return _shown_fields(type(part))


@cache
def _shown_fields(kind: type[Own]) -> tuple[str, ...]:
    return tuple(name for name in kind.__struct_fields__ if name not in kind.repeats)


def _changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    if before is after:  # the same data (a combatant the event left alone)
        return {}
    return {key: value for key, value in after.items() if key not in before or before[key] != value}


def _whole(part: _T | UnsetType) -> _T:
    """A part of a whole board (:meth:`_Names.view` sets them all)."""
    assert not isinstance(part, UnsetType)
    return part


def delta(before: Board | None, after: Board) -> Board:
    """What changed from one view's data to the next: the order and the pending list
    whole, the clock, the scene and each combatant key by key (a new combatant whole)."""
    was = before or Board()
    out = Board()
    if was.o != after.o:
        out.o = after.o
    if was.p != after.p:
        out.p = after.p
    out.k = _changed(_whole(was.k) if before else {}, _whole(after.k)) or UNSET
    out.w = _changed(_whole(was.w) if before else {}, _whole(after.w)) or UNSET
    changed: dict[str, Any] = {}
    old_all = _whole(was.c) if before else {}
    for name, row in _whole(after.c).items():
        diff = _changed(old_all.get(name, {}), row)
        if diff:
            changed[name] = diff
    out.c = changed or UNSET
    return out


def event_count(enc: Encounter) -> int:
    """How many events the page's branches hold (a progress bar's total)."""
    return sum(b.length - b.start for b in _branches(enc))


def build(enc: Encounter, audience: Audience = "gm", bands: Bands | None = None,
          advance: Callable[[int], None] = lambda _: None, most: int = MOST_EVENTS) -> dict[str, Any]:
    """The page's data: the encounter, its branches (the current one first) and every
    event on them, with what the audience may see (wire.PageData's fields, a dict the live
    data edits in place)."""
    # The GM's page carries the verify digest: a long log's chain is verified on the other
    # core while the page is built (eventlog/verifying.py).
    with enc.verifying(aside=audience == "gm") as chain_digest:
        return _build(enc, audience, bands, advance, most, chain_digest)


class _Pass:
    """One pass down the branches' events: what every path's fold shares (the strings,
    the keys, the entries made), and the step that turns one event into the page's entry."""

    def __init__(self, enc: Encounter, players: Players | None, cut: int, forks: set[int], every: int = 0) -> None:
        self.players, self.cut, self.forks = players, cut, forks
        self.kept: dict[int, _PageFold] = {}
        # Past each multiple of ``every`` ids down a path, its fold is kept too (0: none): the
        # GM's live data folds an event off a past one (an amend) from the nearest (GMLive).
        self.every = every
        self.texts: dict[int, str] = {}  # the commands of the events the page steps through (the GM's page shows them)
        # Each entry's view delta encoded as it is made: a long fight's deltas as Python dicts
        # took ten times the page's size.
        self.entries: list[Entry] = []
        self.unit = ""
        self.strings, self.names = _Strings(), _Names()
        self.bases: dict[str, Totals] = {}  # event -> the damage totals before it, where the page starts a path
        self.reading(enc)

    def reading(self, enc: Encounter) -> None:
        """Read the events of this encounter (a connection's, opened again at each change)."""
        self.enc, self.commands, self.view_of = enc, CommandsAlong(enc), enc.ruleset.view

    def step(self, rec: Recorded, state: Any, fold: _PageFold) -> None:
        players, names, cut, forks, kept = self.players, self.names, self.cut, self.forks, self.kept
        if self.every and rec.id // self.every != (fold.last or 0) // self.every:
            forks = {*forks, rec.id}  # a checkpoint: kept below as a fork is
        command = rec.command_id  # a replay's record reads it when asked: asked once
        text_cmd, body = self.commands.of(command)
        tag, who = str(body.get("type", "")), body.get("who")
        who = who if isinstance(who, str) else None
        harm = fold.attribution.step(rec.event, command, tag, who)
        if isinstance(rec.event, CombatantRenamed):
            names.rename(rec.event.who, rec.event.to)
            if rec.event.who in fold.first_vital:  # the old name is free for a newcomer
                fold.first_vital[rec.event.to] = fold.first_vital.pop(rec.event.who)
            if rec.event.who in fold.noted:
                fold.noted[rec.event.to] = fold.noted.pop(rec.event.who)
        elif isinstance(rec.event, NoteAdded) and rec.event.on is not None and (
                players is None or not rec.event.private):
            text_ = ("private: " if rec.event.private else "") + rec.event.text
            fold.noted[rec.event.on] = (*fold.noted.get(rec.event.on, ()), text_)
        self.unit = self.unit or (harm.unit if harm is not None else "")
        sight_before, fold.sight = fold.sight, fold.sight.after(rec.event)
        full_view = self.view_of(state)
        view = full_view if players is None else players.view(full_view, fold.sight)
        for c in full_view.combatants:
            if c.name not in fold.first_vital:
                fold.first_vital[c.name] = c.vital.value
        if rec.id < cut:  # summarised: only the damage totals and the board at a fork count
            if harm is not None and not harm.heal and (players is None or _theirs(players, harm, view, fold.sight)):
                _add(fold.taken, harm.who, harm.amount)
                if harm.by:
                    _add(fold.dealt, harm.by, harm.amount)
            if rec.id in forks:
                fold.view = _board(names, view, fold, players)
                kept[rec.id] = _copy(fold)
            else:  # the board is not shown before the cut: only its keys are given out
                names.register(view)
            fold.last = rec.id
            return
        shown = _board(names, view, fold, players)
        if fold.noted:
            shown = _with_notes(shown, fold.noted, names, fold.sight.hidden if players is not None else frozenset())
        parent = rec.parent if players is None else fold.last
        if parent is not None and parent < cut:  # the page starts this path here, whole
            self.bases[str(rec.id)] = Totals(dealt=fold.dealt, taken=fold.taken)
            fold.view = None
        text = event_line(self.enc, rec)
        numbers = number_entries(rec.event)
        told: Told | None = Told(text, True, True)
        if players is not None:
            told = players.told(rec.event, text, harm, body, sight_before, fold.sight, view,
                                lambda: explanation_lines(numbers), fold.round, full_view.clock.now)
        fold.round = view.clock.round
        if told is None:  # the players get no step for it: what it changed comes with the next
            if rec.id in forks:
                kept[rec.id] = _copy(fold)
            return
        entry = Entry(
            id=rec.id,
            back=rec.id - parent if parent is not None else None,
            command=command if players is None else 0,
            narration=self.strings.index(told.text),
            view=msgspec.Raw(_encode(delta(fold.view, shown))),
            explanation=self.strings.explanation(numbers) if told.explain else WITHHELD,
        )
        self.entries.append(entry if harm is None or not told.harm else Harming.of(entry, _hit(harm, names)))
        if players is None:
            self.texts[command] = text_cmd
        fold.view, fold.last = shown, rec.id
        if rec.id in forks:
            kept[rec.id] = _copy(fold)


def _build(enc: Encounter, audience: Audience, bands: Bands | None, advance: Callable[[int], None], most: int,
           chain_digest: Callable[[], str],
           keep: Callable[[_Pass, _PageFold, _Branch, set[int]], None] | None = None, every: int = 0) -> dict[str, Any]:
    bands = bands or Bands()
    players = Players(bands.party) if audience == "players" else None
    branches = _branches(enc)
    if players is not None:  # the players' policy: the current branch alone, no what-if
        branches = branches[:1]
    current = branches[0].name
    # Past the limit, each branch's earliest events are folded into the board it starts from.
    total = sum(b.length - b.start for b in branches)
    cut = 0
    if total > most:  # the page steps through the last ``most`` of them, whatever branch holds them
        cut = _nth_id([run for b in branches for run in b.path.between(b.start, b.path.deepest)], total - most)
    forks = {b.split for b in branches if b.split is not None}
    if every:  # the GM's live data: the fold at each branch's head kept too, to go on from
        forks |= {b.head for b in branches}
    run = _Pass(enc, players, cut, forks, every)
    heads: dict[str, int] = {}  # a players' branch ends at the last event they are told of
    fold = _PageFold(Attribution(enc.ruleset), None, Sight(bands))
    for b in branches:
        if b.start >= b.length:
            continue
        if b.split is None:
            fold = _PageFold(Attribution(enc.ruleset), None, Sight(bands))
            since = None
        else:
            fold = _copy(run.kept[b.split])
            since = b.path.at(b.start)
        run.names.path = fold.keys  # this path's keys, as they stood where it split off
        for rec, state in enc.replay(b.head, start=since, commands=True):
            run.step(rec, state, fold)
            advance(1)
        heads[b.name] = fold.last if fold.last is not None else b.head
    entries = run.entries
    entries.sort(key=lambda e: e.id)
    told_ids = {e.id for e in entries}
    if keep is not None:  # the players' live page goes on from here (PlayersLive)
        keep(run, fold, branches[0], told_ids)
    _as_steps(entries)
    notes = _notes(notes_shown(enc), audience)
    if players is not None:  # a note they are told of, about an event they are told of
        notes = {about: heard for about, listed in notes.items() if int(about) in told_ids
                 if (heard := [n for n in listed if n.id in told_ids])}
    started = enc.started
    ended = _ended(enc)
    gm = audience == "gm"
    page = PageData(
        format=FORMAT,
        audience=audience,
        encounter=enc.row.name,
        ruleset=enc.row.ruleset,
        rules_file=enc.ruleset.rules_file,
        options=dict(started.options),
        current=current,
        branches=[Branch(name=b.name, head=b.head if players is None else heads.get(b.name, b.head),
                         split=b.split, source=b.source) for b in branches],
        strings=run.strings.table,
        figures=[label(name) for name in run.names.figures],  # the ruleset's own figures, in the order of their keys
        events=entries,
        notes=notes,
        summarised=Summarised(before=cut, bases=run.bases) if cut else None,
        unit=run.unit,
        # `end`: the board says ENDED from that event on (page.js); absent in a log without one
        ended=ended or UNSET,
        seed=(started.key or started.seed) if gm else UNSET,
        digest=chain_digest() if gm else UNSET,
        commands={str(cid): run.texts[cid] for cid in sorted(run.texts)} if gm else UNSET,
        bands=UNSET if gm else (fold.sight if branches[0].start < branches[0].length else Sight(bands)).bands.data(),
    )
    # The live data (PlayersLive, GMLive) keeps it as a dict of its fields, edited in place.
    data = fields(page)
    return data


def _ended(enc: Encounter) -> dict[str, str]:
    return {str(r.id): r.event.reason for r in enc.events_of_kind(EncounterEnded) if isinstance(r.event, EncounterEnded)}


class PlayersLive:
    """The players' page data kept between changes, for `serve`: when the branch's head
    moved on down the path the data holds (a command recorded, a redo), only the events
    after it are folded, on the fold kept from the last time, and :meth:`extend` gives
    what a page adds to its data; when it moved back to a head the data held before (an
    undo), the fold kept at that head is taken up again and the page drops the events
    after it (``back``: how many it keeps); anything else (another encounter or branch, an
    amend, an undo past what is kept: the path changed under the page) is built whole
    again. The policy is the one :func:`build` applies: the increment is made by the same
    step, from the same fold. After an undo the data may hold strings and keys no event
    uses any more (a page ignores them); a page built whole again holds none.

    A head elsewhere on the encounter's tree (an undo past the heads kept, a `switch` tapped
    on the GM's page, to an amend's branch say) is a change too: the page keeps its events
    up to where the two paths meet (``back``), and the new path's events after it are folded
    from the fold kept nearest above that point (one past each multiple of :attr:`EVERY` ids,
    or a head's), so the work is bounded by what changed, not by the log. Whole again only
    for another encounter, paths that meet before the summarised part ends, or more than
    :attr:`WALK` events to fold."""

    WALK = 2_000  # events walked back from the new head looking for the old one; past it, whole again
    MARKS = 256  # heads kept to step back to
    EVERY = 512  # a fold kept past each multiple of this many ids down the path

    def __init__(self, enc: Encounter, bands: Bands) -> None:
        self.bands = bands
        self._whole(enc)

    def _whole(self, enc: Encounter) -> None:
        kept: list[tuple[_Pass, _PageFold, _Branch, set[int]]] = []
        with enc.verifying(aside=False) as chain_digest:
            self.data = _build(enc, "players", self.bands, lambda _: None, MOST_EVENTS, chain_digest,
                               keep=lambda *held: kept.append(held), every=self.EVERY)
        self.run, self.fold, branch, self.told = kept[0]
        self.ids = sorted(self.told)  # each entry's id, in the page's order
        self.encounter, self.branch = enc.row.name, branch.name
        self.head = branch.head  # the last event folded, told to the players or not
        self.last_id = max(self.told, default=0)  # the last entry the page holds (its steps go on from it)
        # Each head the data stood at: the fold then, how many entries the page held, its last.
        self._marks: dict[int, tuple[_PageFold, int, int]] = {}
        self._mark()

    def _mark(self) -> None:
        self._marks[self.head] = (_copy(self.fold), len(self.data["events"]), self.last_id)
        while len(self._marks) > self.MARKS:
            del self._marks[next(iter(self._marks))]

    def extend(self, enc: Encounter) -> dict[str, Any] | None:
        """What a page adds to its data for the events recorded since (empty: nothing
        new the players are told), or None: the path changed, the data was built whole
        again (:attr:`data`) and the page is sent that."""
        first = self._after(enc)
        if first is None:
            head = enc.head().event_id
            if self._same_table(enc) and head < self.head and head in self._marks:
                return self._back(enc, head)
            moved = self._elsewhere(enc) if enc.row.name == self.encounter else None
            if moved is not None:
                return moved
            self._whole(enc)
            return None
        if first == 0:
            return {}
        run, fold, data = self.run, self.fold, self.data
        run.reading(enc)
        run.names.path = fold.keys
        run.entries = []
        strings_before = len(run.strings.table)
        head = enc.head().event_id
        for rec, state in enc.replay(head, start=first, commands=True):
            run.step(rec, state, fold)
        self.head = head
        new = run.entries
        self.told.update(e.id for e in new)
        self.ids.extend(e.id for e in new)
        for entry in new:  # as steps from the entry the page holds last (the players' carry no command)
            entry.id, self.last_id = entry.id - self.last_id, entry.id
        change = Change()
        if new:
            data["events"].extend(new)
            data["branches"][0].head = self.last_id
            data["figures"] = [label(name) for name in run.names.figures]
            data["unit"] = data["unit"] or run.unit
            change = Change(events=new, strings=run.strings.table[strings_before:], branches=data["branches"],
                            figures=data["figures"], unit=data["unit"])
        self._mark()
        return self._moved(enc, change)

    def _moved(self, enc: Encounter, change: Change) -> dict[str, Any]:
        """The change with what else moved: the notes, the end, the bands."""
        data, told = self.data, self.told
        notes = {about: heard for about, listed in _notes(notes_shown(enc), "players").items() if int(about) in told
                 if (heard := [n for n in listed if n.id in told])}
        if notes != data["notes"]:
            change.notes = data["notes"] = notes
        ended = _ended(enc)
        if ended != data.get("ended", {}):
            change.ended = data["ended"] = ended
        bands = self.fold.sight.bands.data()
        if bands != data["bands"]:
            change.bands = data["bands"] = bands
        return fields(change)

    def _back(self, enc: Encounter, head: int) -> dict[str, Any]:
        """Back to a head the data stood at (an undo): its fold again, the entries after it dropped."""
        fold, count, self.last_id = self._marks[head]
        self.fold, self.head = _copy(fold), head
        for later in [h for h in self._marks if h > head]:  # no longer on the path
            del self._marks[later]
        del self.data["events"][count:]
        del self.ids[count:]
        self.told = {i for i in self.told if i <= head}  # ids grow down a path
        self.data["branches"][0].head = self.fold.last if self.fold.last is not None else head
        return self._moved(enc, Change(back=count, branches=self.data["branches"]))

    def _elsewhere(self, enc: Encounter) -> dict[str, Any] | None:
        """To a head off the path the data holds (see the class): the entries up to where
        the paths meet kept, the new path's after it folded; None where it cannot."""
        head = enc.head().event_id
        run = self.run
        old, path = enc.runs(self.head), enc.runs(head)
        shared = _common(old.runs, path.runs)
        meet = path.at(shared - 1) if shared else None
        if meet is None or meet < run.cut or path.deepest - shared >= self.WALK:
            return None
        depth = shared - 1  # the fold nearest above the meeting point, or the root's
        fold: _PageFold | None = None
        while fold is None:
            at = path.at(depth)
            if at in self._marks:
                fold = _copy(self._marks[at][0])
            elif at in run.kept:
                fold = _copy(run.kept[at])
            elif depth == 0:
                depth = -1  # from the root
                fold = _PageFold(Attribution(enc.ruleset), None, Sight(self.bands))
            elif shared - depth > self.WALK:
                return None
            else:
                depth -= 1
        count = bisect.bisect_right(self.ids, meet)
        data = self.data
        del data["events"][count:]
        del self.ids[count:]
        self.last_id = self.ids[-1] if self.ids else 0
        self.told = {i for i in self.told if i <= meet}
        for later in [h for h in self._marks if h > meet]:  # on the old path only
            del self._marks[later]
        run.reading(enc)
        run.names.path = fold.keys
        run.entries = []
        strings_before = len(run.strings.table)
        if depth < path.deepest:
            for rec, state in enc.replay(head, start=path.at(depth + 1), commands=True):
                run.step(rec, state, fold)
        new = [e for e in run.entries if e.id > meet]  # those up to it the page holds
        self.fold, self.head, self.encounter, self.branch = fold, head, enc.row.name, enc.branch
        self.told.update(e.id for e in new)
        self.ids.extend(e.id for e in new)
        for entry in new:
            entry.id, self.last_id = entry.id - self.last_id, entry.id
        data["events"].extend(new)
        data["current"] = enc.branch
        data["branches"] = [Branch(name=enc.branch, head=fold.last if fold.last is not None else head,
                                   split=None, source=None)]
        data["figures"] = [label(name) for name in run.names.figures]
        data["unit"] = data["unit"] or run.unit
        self._mark()
        return self._moved(enc, Change(back=count, events=new, strings=run.strings.table[strings_before:],
                                       branches=data["branches"], current=data["current"],
                                       figures=data["figures"], unit=data["unit"]))

    def _same_table(self, enc: Encounter) -> bool:
        return enc.row.name == self.encounter and enc.branch == self.branch

    def _after(self, enc: Encounter) -> int | None:
        """The first event after the one held, on the path to the head now; 0: the head is
        where it was; None: another table, or a path that does not go through it."""
        if not self._same_table(enc):
            return None
        head = enc.head().event_id
        if head == self.head:
            return 0
        at: int | None = head
        below = head
        for _ in range(self.WALK):
            if at is None or at < self.head:
                return None  # ids grow down a path: past the old head without meeting it
            if at == self.head:
                return below
            below = at
            at = enc.event(at).parent
        return None


class GMLive:
    """The GM's page data (every branch) kept between changes, for `serve --for gm`. The
    data holds events, never loses one: a command, a note, a rename, a new branch or an
    amend (events made off a past one) folds only the new events, each from the fold at
    its parent, and :meth:`extend` gives what a page adds to its data (the new entries, as
    steps from the last one it holds, the strings and commands they add) with what else
    moved (the branches and their heads, the current one, the notes, the end, the
    figures); an undo, a redo or a switch moves heads only, and the change is the branch
    list. The fold at a past event is the one kept at each branch's head, at each fork, or
    past each multiple of :attr:`EVERY` ids down a path, carried on to it: an amend at the
    first event of a long fight folds at most that many events again. Built whole again
    (None) for another encounter, a log read afresh, or a change it cannot place: a path
    that meets no event the data holds within :attr:`WALK` events, or new events older
    than its last (a redo of events undone before the data was built). Events an undo
    left on no branch stay in the data (the page walks from the heads and never reaches
    them). The verify digest is the whole log's: made with the data, then set anew by the
    caller (:meth:`digested`), which works it out apart (cli/live.py)."""

    WALK = 2_000  # new events folded in one change; past it, whole again
    EVERY = 512  # a fold kept past each multiple of this many ids down a path
    HEADS = 64  # folds kept at the heads branches stood at (an undo then a command goes on from one)

    def __init__(self, enc: Encounter, bands: Bands) -> None:
        self.bands = bands
        self._whole(enc)

    def _whole(self, enc: Encounter) -> None:
        kept: list[tuple[_Pass, int, int, set[int]]] = []

        def keep(run: _Pass, _fold: _PageFold, _branch: _Branch, held: set[int]) -> None:
            last = run.entries[-1] if run.entries else None  # before its id becomes a step
            kept.append((run, last.id if last else 0, last.command if last else 0, held))

        with enc.verifying(aside=True) as chain_digest:  # as build: the chain verified on the other core
            self.data = _build(enc, "gm", self.bands, lambda _: None, MOST_EVENTS, chain_digest, keep=keep,
                               every=self.EVERY)
        self.run, self.last_id, self.last_command, self.held = kept[0]
        self.encounter = enc.row.name
        self.heads: dict[int, _PageFold] = {}

    def extend(self, enc: Encounter) -> dict[str, Any] | None:
        """What a page adds to its data for what changed since (empty: nothing it shows),
        or None: the data was built whole again (:attr:`data`), the page is sent that."""
        if enc.row.name != self.encounter:
            self._whole(enc)
            return None
        run, data = self.run, self.data
        run.reading(enc)
        strings_before = len(run.strings.table)
        new: list[Entry] = []
        for head in sorted({h.event_id for h in enc.branches().values()} | {enc.head().event_id}):
            if head in self.held:
                continue
            made = self._fold_to(enc, head)
            if made is None:
                self._whole(enc)
                return None
            new.extend(made)
        change = Change()
        if new:
            new.sort(key=lambda e: e.id)
            commands = {}
            for entry in new:
                commands[str(entry.command)] = run.texts[entry.command]
                entry.id, self.last_id = entry.id - self.last_id, entry.id
                entry.command, self.last_command = entry.command - self.last_command, entry.command
            data["events"].extend(new)
            data["commands"].update(commands)
            data["figures"] = [label(name) for name in run.names.figures]
            data["unit"] = data["unit"] or run.unit
            change = Change(events=new, strings=run.strings.table[strings_before:], commands=commands,
                            figures=data["figures"], unit=data["unit"])
            if data["summarised"] is not None:  # a path begun anew past the cut (an amend before it)
                change.summarised = data["summarised"]
        branches = _branches(enc)
        listed = [Branch(name=b.name, head=b.head, split=b.split, source=b.source) for b in branches]
        if listed != data["branches"] or branches[0].name != data["current"]:
            change.branches = data["branches"] = listed
            change.current = data["current"] = branches[0].name
        notes = _notes(notes_shown(enc), "gm")
        if notes != data["notes"]:
            change.notes = data["notes"] = notes
        ended = _ended(enc)
        if ended != data.get("ended", {}):
            change.ended = data["ended"] = ended
        return fields(change)

    def digested(self, digest: str) -> dict[str, Any]:
        """The change a page is sent for the log's verify digest worked out anew (empty: the same)."""
        if digest == self.data["digest"]:
            return {}
        self.data["digest"] = digest
        return fields(Change(digest=digest))

    def _fold_to(self, enc: Encounter, head: int) -> list[Entry] | None:
        """The entries of the events down to ``head`` the data does not hold, folded from
        the nearest fold kept on its path; None where that cannot be placed (see the class)."""
        run, kept = self.run, self.run.kept
        path: list[int] = []  # from ``head`` up to the event after the fold it goes on from
        at: int | None = head
        while at is not None and at not in self.held and at >= run.cut:  # an event summarised: held, in its way
            if len(path) >= self.WALK:
                return None
            path.append(at)
            at = enc.event(at).parent
        if at is None or path[-1] < self.last_id:
            return None  # a path from the root the data never held, or events older than its last
        # Where the path meets the data: the nearest fold kept at or above it.
        start = at
        while at is not None and at not in kept and at not in self.heads:
            if len(path) >= self.WALK + 2 * self.EVERY:
                return None
            path.append(at)
            at = enc.event(at).parent
        if at is None:
            fold = _PageFold(Attribution(enc.ruleset), None, Sight(self.bands))
        else:
            fold = _copy(self.heads.get(at) or kept[at])
        run.names.path = fold.keys
        run.entries = []
        for rec, state in enc.replay(head, start=path[-1], commands=True):
            run.step(rec, state, fold)
        made = [e for e in run.entries if e.id > start]  # the events between held already
        self.held.update(e.id for e in made)
        self.heads[head] = _copy(fold)
        while len(self.heads) > self.HEADS:
            del self.heads[next(iter(self.heads))]
        return made


def _board(names: _Names, view: View, fold: _PageFold, players: Players | None) -> Board:
    """The view as the page holds it: the GM's marks the hidden; the players' bands each foe."""
    shown = names.view(view)
    rows = _whole(shown.c)
    if players is None:
        for name in fold.sight.hidden & {c.name for c in view.combatants}:
            key = names.combatant(name)
            rows[key] = {**rows[key], "h": 1}  # the GM's data is shared: marked on a copy
        return shown
    own_keys = set(names.figures.values())
    for c in view.combatants:
        key = names.combatant(c.name)
        rows[key] = players.row(c, rows[key], fold.first_vital.get(c.name), fold.sight, own_keys)
    return shown


def _theirs(players: Players, harm: Harm, view: View, sight: Sight) -> bool:
    """Whether the players' totals count this damage: to one of the party, by no one hidden."""
    sides = {c.name: c.side for c in view.combatants}
    return (harm.who in sides and not players.foe(sides[harm.who]) and harm.who not in sight.hidden
            and (harm.by is None or harm.by not in sight.hidden))


class _Strings:
    """Narrations and explanation lines once each, referred to by index: a long fight says
    "Upkeep: Troll bleeds 2 hits" and "rule: ap-countdown.md, Initiative" thousands of times."""

    def __init__(self) -> None:
        self.table: list[str] = []
        self._index: dict[str, int] = {}
        self._explanations: dict[bytes, msgspec.Raw] = {}

    def index(self, text: str) -> int:
        found = self._index.get(text)
        if found is None:
            found = self._index[text] = len(self.table)
            self.table.append(text)
        return found

    def explanation(self, numbers: Sequence[Number]) -> msgspec.Raw:
        """An event's explanation, encoded: a line each (its index), the numbers stored as
        they are as [rules, item, item, ...] (page.js joins them as `explain` prints them)."""
        lines, recorded = number_parts(numbers)
        out: list[int | list[int]] = [self.index(line.strip()) for line in lines]
        if recorded is not None:
            items, tail = recorded
            out.append([self.index(tail), *(self.index(item) for item in items)])
        encoded = _encode(out)
        # Most events explain alike: their entries share one (a list each, the export of a
        # page of 100,000 events took 20 MB more).
        found = self._explanations.get(encoded)
        if found is None:
            found = self._explanations[encoded] = msgspec.Raw(encoded)
        return found


def _hit(harm: Harm, names: _Names) -> Hit:
    victim = names.combatant(harm.who)
    by = names.combatant(harm.by) if harm.by else None
    if harm.heal:
        return Healing(victim, harm.amount, by)
    return HitBy(victim, harm.amount, by) if by is not None else Hit(victim, harm.amount)


def _as_steps(entries: list[Entry]) -> None:
    """Each entry's id and command as the step from the entry before's (in id order)."""
    last_id = last_command = 0
    for entry in entries:
        entry.id, last_id = entry.id - last_id, entry.id
        entry.command, last_command = entry.command - last_command, entry.command


def _add(totals: dict[str, int], who: str, amount: int) -> None:
    totals[who] = totals.get(who, 0) + amount


def _copy(fold: _PageFold) -> _PageFold:
    # Views are built anew for each event and never changed after: shared, not copied.
    return _PageFold(fold.attribution.copy(), fold.view, fold.sight, dict(fold.first_vital), dict(fold.dealt),
                     dict(fold.taken), dict(fold.noted), dict(fold.keys), fold.last, fold.round)


def _with_notes(shown: Board, noted: Mapping[str, tuple[str, ...]], names: _Names,
                hidden: frozenset[str] = frozenset()) -> Board:
    """The board with the notes on its combatants (`note --on`), each on a copy of the
    combatant's data (it is shared with other views); ``hidden``: the players' page leaves
    out a note that names a combatant hidden from them."""
    rows = shown.c = dict(_whole(shown.c))
    for name, texts in noted.items():
        key = names.path.get(name)
        shown_texts = [t for t in texts if not names_any(t, hidden)] if hidden else list(texts)
        if key in rows and shown_texts:
            rows[key] = {**rows[key], "nt": shown_texts}
    return shown


def _notes(shown: dict[int, list[Note]], audience: Audience) -> dict[str, list[PageNote]]:
    out: dict[str, list[PageNote]] = {}
    for about, notes in shown.items():
        kept = [PageNote(n.id, n.text, int(n.private)) for n in notes if audience == "gm" or not n.private]
        if kept:
            out[str(about)] = kept
    return out


_encode = msgspec.json.Encoder().encode
