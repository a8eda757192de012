"""Diff: what differs between two branches or events, and where their histories split."""

from __future__ import annotations

from typing import Any

from skirmish.projections.engine import Encounter
from skirmish.projections.text.board import clock_label, own_figures
from skirmish.projections.text.board import figures as figures_of
from skirmish.projections.view import View


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


def diff(enc: Encounter, a: str, b: str, listed: bool = True) -> dict[str, Any]:
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
        return [{"id": r.id, "description": enc.describe(r)} for r in enc.events_in(runs)]

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
