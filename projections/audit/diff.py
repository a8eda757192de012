"""Diff: what differs between two branches or events, and where their histories split."""

from __future__ import annotations

from typing import Any

import msgspec

from skirmish.projections.write.engine import Encounter
from skirmish.projections.text.board import clock_label, own_figures
from skirmish.projections.text.board import figures as figures_of
from skirmish.projections.view import View
from skirmish.projections.text.words import event_line


class Moment(msgspec.Struct, frozen=True):
    name: str  # as given: a branch's name, or "#ID"
    at: int  # the event it stands for


class EventLine(msgspec.Struct, frozen=True):
    id: int
    description: str


class Span(msgspec.Struct, frozen=True):
    """The events of one side after the split: how many, the first and last id (None: none)."""

    count: int
    first: int | None
    last: int | None


class Spans(msgspec.Struct, frozen=True):
    a: Span
    b: Span


class FigureDiff(msgspec.Struct, frozen=True):
    figure: str
    a: Any  # None where that side has no such figure
    b: Any


class CombatantDiff(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    name: str
    only_in: str | None = None  # the one side (a or b, by its name) it is on, if only one: no figures then
    figures: list[FigureDiff]


class Diff(msgspec.Struct, frozen=True):
    """`diff`'s answer: `diff` prints it, `diff --json` writes it as it is."""

    a: Moment
    b: Moment
    split: EventLine  # the last event both histories share
    only_a: list[EventLine] | None  # None: not listed (``after_split`` counts them)
    only_b: list[EventLine] | None
    after_split: Spans
    scene: list[FigureDiff]  # what is not any one combatant's: the clock, the pending actions
    combatants: list[CombatantDiff]  # those with a figure that differs


def _moment(enc: Encounter, spec: str) -> tuple[str, int]:
    """A branch name or an event id: the label to show and the event it stands for."""
    text = spec.strip().lstrip("#")
    if text.isdigit():
        return f"#{int(text)}", enc.event(int(text)).id
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


def diff(enc: Encounter, a: str, b: str, listed: bool = True) -> Diff:
    """What differs between two branches or events, combatant by combatant and figure by
    figure, and where their histories split (the last event both share). ``listed``: each
    event after the split with its description (``after_split`` counts them either way,
    from the paths' runs of ids, without reading them)."""
    (label_a, at_a), (label_b, at_b) = _moment(enc, a), _moment(enc, b)
    runs_a, runs_b = enc.runs(at_a).runs, enc.runs(at_b).runs
    split = enc.event(_split(runs_a, runs_b))
    view_a, view_b = enc.ruleset.view(enc.fold_to(at_a)[0]), enc.ruleset.view(enc.fold_to(at_b)[0])
    rows_a = {c.name: figures_of(c) for c in view_a.combatants}
    rows_b = {c.name: figures_of(c) for c in view_b.combatants}
    combatants: list[CombatantDiff] = []
    for name in [*rows_a, *(n for n in rows_b if n not in rows_a)]:
        ra, rb = rows_a.get(name), rows_b.get(name)
        if ra is None or rb is None:
            combatants.append(CombatantDiff(name=name, only_in=label_a if rb is None else label_b, figures=[]))
            continue
        changed = _differing(ra, rb)
        if changed:
            combatants.append(CombatantDiff(name=name, figures=changed))

    def after_split(runs: list[tuple[int, int]]) -> list[EventLine] | None:
        if not listed:
            return None
        return [EventLine(r.id, event_line(enc, r)) for r in enc.events_in(runs)]

    def span(runs: list[tuple[int, int]]) -> Span:
        return Span(sum(high - low + 1 for low, high in runs), runs[0][0] if runs else None,
                    runs[-1][1] if runs else None)

    only_a, only_b = _after(runs_a, split.id), _after(runs_b, split.id)
    return Diff(
        a=Moment(label_a, at_a),
        b=Moment(label_b, at_b),
        split=EventLine(split.id, event_line(enc, split)),
        only_a=after_split(only_a),
        only_b=after_split(only_b),
        after_split=Spans(span(only_a), span(only_b)),
        scene=_differing(_scene(view_a), _scene(view_b)),
        combatants=combatants,
    )


def _differing(a: dict[str, Any], b: dict[str, Any]) -> list[FigureDiff]:
    """The figures that differ between two sides' label -> value, in the order first seen."""
    return [FigureDiff(k, a.get(k), b.get(k)) for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)]
