"""The data of the interactive replay page: every branch's events with the view at each moment.

What the page needs, for any ruleset, read off the typed view, ``describe``, the events'
derivations and ``Ruleset.harm``: each event of every branch once (branches share the
events before they split), its narration, its explanation (its numbers as `explain`
prints them), the damage it did with the attacker, and the view after it as a *delta*
from the view after its parent (only what changed), so a long fight stays small and the
page folds the views back as it is scrubbed.

Two audiences. The GM's data is everything. The players' data hides what the GM keeps
secret: the dice seed, the verify digest, the commands as typed, private notes, and the
exact vital figure of every combatant not on a party side (a *band* instead: unhurt,
hurt, badly hurt, down, per :class:`Bands`), with the narration and explanation of any
event that would give such a figure away replaced by a line that does not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from skirmish.eventlog.errors import BadInput
from skirmish.eventlog.events import CombatantAdded, EncounterStarted, NoteAdded
from skirmish.projections.audit import Note, notes_shown, number_entries
from skirmish.projections.damage import Attribution
from skirmish.projections.engine import Encounter, Recorded
from skirmish.projections.narrate import number_parts
from skirmish.projections.render import cell, clock_label, effect_text, label
from skirmish.projections.ruleset import Harm
from skirmish.projections.view import Combatant, Own, View, figures

Audience = Literal["gm", "players"]
FORMAT = 1  # the shape of the page's data (replay.js reads it)
DOWN = frozenset({"down", "dead"})

# A page past this many events summarises: the earliest events of each branch are folded
# into the board it starts from, their damage into the totals, and only the last ones are
# stepped through (the jsonl export keeps the whole log). About 200 bytes an event in
# the page (benchmarks/page.py): 100,000 events is about 20 MB, which opens in about 2 s.
MOST_EVENTS = 100_000


@dataclass(frozen=True)
class Bands:
    """How the players' page shows a foe's vital figure: *down* by its status (down or
    dead); else *unhurt* at its maximum (or its first value, where it has no maximum);
    *badly hurt* at or below ``badly`` percent of it; *hurt* between. ``party``: the
    sides whose figures the players see exactly."""

    party: tuple[str, ...] = ("players",)
    badly: int = 50

    def band(self, c: Combatant, reference: int | None) -> str:
        if c.status in DOWN:
            return "down"
        full = c.vital.maximum if c.vital.maximum is not None else reference
        if full is None or full <= 0 or c.vital.value >= full:
            return "unhurt"
        return "badly hurt" if c.vital.value * 100 <= full * self.badly else "hurt"


@dataclass
class _Branch:
    name: str
    head: int
    ids: list[int]
    split: int | None = None  # the last event it shares with a branch listed before it
    start: int = 0  # the first event it holds that no branch before it does (its index)


@dataclass
class _Fold:
    """What the next event of a path needs from the events before it."""

    attribution: Attribution
    view: dict[str, Any]
    first_vital: dict[str, int] = field(default_factory=dict)
    dealt: dict[str, int] = field(default_factory=dict)  # damage so far, while it is summarised
    taken: dict[str, int] = field(default_factory=dict)


def _ids(enc: Encounter, head: int) -> list[int]:
    return [i for low, high in enc.store.runs(head) for i in range(low, high + 1)]


class _Names:
    """Short keys for what a view repeats in every delta: combatants by the order they
    joined ("0", "1", ...), a ruleset's own figures by the order first seen ("o0", "o1")."""

    def __init__(self) -> None:
        self.combatants: dict[str, str] = {}
        self.figures: dict[str, str] = {}

    def combatant(self, name: str) -> str:
        return self.combatants.setdefault(name, str(len(self.combatants)))

    def figure(self, name: str) -> str:
        return self.figures.setdefault(name, f"o{len(self.figures)}")

    def fields(self, c: Combatant) -> dict[str, Any]:
        return {
            "n": c.name, "s": c.side, "st": c.status, "a": int(c.acting),
            "vn": c.vital.name, "v": c.vital.value, "vm": c.vital.maximum,
            "bn": c.budget.name, "bl": c.budget.left, "bo": c.budget.of,
            "e": [effect_text(e) for e in c.effects],
            **self.own(c.own),
        }

    def own(self, part: Own) -> dict[str, Any]:
        """A ruleset's own figures, each its own key, so a delta carries only those that changed."""
        return {self.figure(name): cell(value) for name, value in figures(part).items()}

    def view(self, view: View) -> dict[str, Any]:
        """A view as the page holds it: flat parts with short keys (replay.js names them),
        the combatants by key, their acting order apart."""
        k = view.clock
        return {
            "k": {"r": k.round, "l": clock_label(k), "now": list(k.now), "next": list(k.next),
                  "end": f"the end of the {k.unit}" if k.running else "", **self.own(k.own)},
            "o": [self.combatant(c.name) for c in view.combatants],
            "c": {self.combatant(c.name): self.fields(c) for c in view.combatants},
            "p": [[p.who, p.action, p.target, p.resolves] for p in view.pending],
            "w": self.own(view.own),
        }


def _changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in after.items() if key not in before or before[key] != value}


def delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What changed from one view's data to the next: the order and the pending list
    whole, the clock, the scene and each combatant key by key (a new combatant whole)."""
    out: dict[str, Any] = {key: after[key] for key in ("o", "p") if before.get(key) != after[key]}
    for key in ("k", "w"):
        diff = _changed(before.get(key, {}), after[key])
        if diff:
            out[key] = diff
    changed: dict[str, Any] = {}
    old_all = before.get("c", {})
    for name, fields in after["c"].items():
        diff = _changed(old_all.get(name, {}), fields)
        if diff:
            changed[name] = diff
    if changed:
        out["c"] = changed
    return out


class _Players:
    """Hides what the GM keeps secret from one view's data and one event's lines."""

    def __init__(self, bands: Bands) -> None:
        self.bands = bands

    def foe(self, side: str) -> bool:
        return side not in self.bands.party

    def view(self, view: View, data: dict[str, Any], first: dict[str, int], names: _Names) -> dict[str, Any]:
        for c in view.combatants:
            if self.foe(c.side):
                row = data["c"][names.combatant(c.name)]
                row["v"], row["vm"] = self.bands.band(c, first.get(c.name)), None
                for key in set(names.figures.values()) & set(row):
                    del row[key]
        return data

    def line(self, rec: Recorded, text: str, harm: Harm | None, before: dict[str, Any],
             after: dict[str, Any]) -> tuple[str, bool]:
        """The narration players see, and whether the explanation may go with it."""
        event = rec.event
        match event:
            case EncounterStarted(name=name, ruleset=ruleset):
                return f"Encounter {name!r} begins under {ruleset}", False
            case CombatantAdded(name=name, side=side) if self.foe(side):
                return f"{name} joins the {side} side", False
            case NoteAdded(private=True):
                return "The GM made a note", False
        rows = {row["n"]: row for row in after["c"].values()}
        if harm is not None and harm.who in rows and self.foe(rows[harm.who]["s"]):
            if harm.heal:
                return f"{harm.who} is healed", False
            by = f" from {harm.by}" if harm.by else ""
            return f"{harm.who} takes {harm.amount} {harm.unit}{by}", False
        for key, row in after["c"].items():
            old = before.get("c", {}).get(key)
            if self.foe(row["s"]) and old is not None and old["v"] != row["v"]:
                return f"{row['n']} is {row['v']}", False
        return text, True


def audience(text: str) -> Audience:
    if text == "gm":
        return "gm"
    if text == "players":
        return "players"
    raise BadInput(f"--for takes gm or players, not {text!r}")


def bands(party: Sequence[str] | None, badly: int) -> Bands:
    if not 0 < badly < 100:
        raise BadInput(f"--badly-hurt takes a percentage between 1 and 99, not {badly}")
    return Bands(tuple(party) if party else Bands.party, badly)


def event_count(enc: Encounter) -> int:
    """How many events the page's branches hold (a progress bar's total)."""
    return len({i for head in enc.store.branches(enc.row.id).values() for i in _ids(enc, head.event_id)})


def build(enc: Encounter, audience: Audience = "gm", bands: Bands | None = None,
          advance: Callable[[int], None] = lambda _: None, most: int = MOST_EVENTS) -> dict[str, Any]:
    """The page's data: the encounter, its branches (the current one first) and every
    event on them, with what the audience may see."""
    bands = bands or Bands()
    players = _Players(bands) if audience == "players" else None
    heads = enc.store.branches(enc.row.id)
    current = enc.branch
    order = [current, *(n for n in heads if n != current)]
    branches = [_Branch(n, heads[n].event_id, _ids(enc, heads[n].event_id)) for n in order]
    seen: dict[int, str] = {}
    for b in branches:
        b.start = next((i for i, e in enumerate(b.ids) if e not in seen), len(b.ids))
        b.split = b.ids[b.start - 1] if b.start and b is not branches[0] else None
        for e in b.ids[b.start:]:
            seen[e] = b.name
    # Past the limit, each branch's earliest events are folded into the board it starts from.
    total = len(seen)
    cut = 0
    if total > most:
        cut = branches[0].ids[min(len(branches[0].ids) - 1, total - most)]
    forks = {b.split for b in branches if b.split is not None}
    kept: dict[int, _Fold] = {}
    commands = {cid: (row.text, _tag(row.body), _who(row.body)) for cid, row in enc.store.commands(enc.row.id).items()}
    events: list[list[Any]] = []
    unit = ""
    strings, names = _Strings(), _Names()
    bases: dict[str, Any] = {}  # event -> the damage totals before it, where the page starts a path
    for b in branches:
        if b.start >= len(b.ids):
            continue
        first_id = b.ids[b.start]
        if b.split is None:
            fold = _Fold(Attribution(enc.ruleset), {})
            since = None
        else:
            fold = _copy(kept[b.split])
            since = first_id
        for rec, state in enc.replay(b.head, start=since):
            text_cmd, tag, who = commands.get(rec.command_id, ("", "", None))
            harm = fold.attribution.step(rec.event, rec.command_id, tag, who)
            unit = unit or (harm.unit if harm is not None else "")
            view = enc.ruleset.view(state)
            for c in view.combatants:
                fold.first_vital.setdefault(c.name, c.vital.value)
            shown = names.view(view)
            if players is not None:
                shown = players.view(view, shown, fold.first_vital, names)
            if rec.id < cut:  # summarised: only the damage totals and the board at the cut count
                if harm is not None and not harm.heal:
                    _add(fold.taken, harm.who, harm.amount)
                    if harm.by:
                        _add(fold.dealt, harm.by, harm.amount)
                fold.view = shown
                if rec.id in forks:
                    kept[rec.id] = _copy(fold)
                advance(1)
                continue
            if rec.parent is not None and rec.parent < cut:  # the page starts this path here, whole
                bases[str(rec.id)] = {"dealt": fold.dealt, "taken": fold.taken}
                fold.view = {}
            text = enc.describe(rec)
            explain = True
            if players is not None:
                text, explain = players.line(rec, text, harm, fold.view, shown)
            # [id, how far back its parent is, command, narration, view delta, explanation,
            # damage]; ids and commands become steps from the entry before, below.
            entry: list[Any] = [
                rec.id, rec.id - rec.parent if rec.parent is not None else None,
                rec.command_id if players is None else 0, strings.index(text), delta(fold.view, shown),
                strings.explanation(number_entries(rec.event)) if explain else 0,
            ]
            if harm is not None:
                # [victim, amount, attacker, healed], the last two left off when none and no
                damage = [names.combatant(harm.who), harm.amount, names.combatant(harm.by) if harm.by else None, 1]
                entry.append(damage if harm.heal else damage[:3] if harm.by else damage[:2])
            events.append(entry)
            fold.view = shown
            if rec.id in forks:
                kept[rec.id] = _copy(fold)
            advance(1)
    events.sort(key=lambda e: e[0])
    # Ids and commands as steps from the event before (mostly 1 and 0): a long fight's page
    # is a tenth smaller.
    last_id = last_command = 0
    for step in events:
        step[0], last_id = step[0] - last_id, step[0]
        if players is None:
            step[2], last_command = step[2] - last_command, step[2]
    notes = _notes(notes_shown(enc), audience)
    started = enc.started
    data: dict[str, Any] = {
        "format": FORMAT,
        "audience": audience,
        "encounter": enc.row.name,
        "ruleset": enc.row.ruleset,
        "rules_file": enc.ruleset.rules_file,
        "options": dict(started.options),
        "current": current,
        "branches": [{"name": b.name, "head": b.head, "split": b.split,
                      "from": seen.get(b.split) if b.split is not None else None} for b in branches],
        "strings": strings.table,
        "figures": [label(name) for name in names.figures],  # the ruleset's own figures, in the order of their keys
        "events": events,
        "notes": notes,
        "summarised": {"before": cut, "bases": bases} if cut else None,
        "unit": unit,
    }
    if audience == "gm":
        data["seed"] = started.seed
        data["digest"] = enc.store.verify(enc.row.id)
        data["commands"] = {str(cid): text for cid, (text, _, _) in commands.items()}
    else:
        data["bands"] = {"party": list(bands.party), "badly": bands.badly}
    return data


class _Strings:
    """Narrations and explanation lines once each, referred to by index: a long fight says
    "Upkeep: Troll bleeds 2 hits" and "rule: ap-countdown.md, Initiative" thousands of times."""

    def __init__(self) -> None:
        self.table: list[str] = []
        self._index: dict[str, int] = {}

    def index(self, text: str) -> int:
        found = self._index.get(text)
        if found is None:
            found = self._index[text] = len(self.table)
            self.table.append(text)
        return found

    def explanation(self, numbers: list[dict[str, Any]]) -> list[int | list[int]]:
        """An event's explanation: a line each (its index), the numbers stored as they are
        as [rules, item, item, ...] (replay.js joins them as `explain` prints them)."""
        lines, recorded = number_parts(numbers)
        out: list[int | list[int]] = [self.index(line.strip()) for line in lines]
        if recorded is not None:
            items, tail = recorded
            out.append([self.index(tail), *(self.index(item) for item in items)])
        return out


def _add(totals: dict[str, int], who: str, amount: int) -> None:
    totals[who] = totals.get(who, 0) + amount


def _copy(fold: _Fold) -> _Fold:
    # Views are built anew for each event and never changed after: shared, not copied.
    return _Fold(fold.attribution.copy(), fold.view, dict(fold.first_vital), dict(fold.dealt), dict(fold.taken))


def _notes(shown: dict[int, list[Note]], audience: Audience) -> dict[str, list[list[Any]]]:
    out: dict[str, list[list[Any]]] = {}
    for about, notes in shown.items():
        kept = [[n.id, n.text, int(n.private)] for n in notes if audience == "gm" or not n.private]
        if kept:
            out[str(about)] = kept
    return out


_body = msgspec.json.Decoder(dict[str, Any])


def _tag(body: bytes | str) -> str:
    return str(_body.decode(body).get("type", ""))


def _who(body: bytes | str) -> str | None:
    who = _body.decode(body).get("who")
    return who if isinstance(who, str) else None

