"""Plain-text renderings of the typed view, and what changed between two views, for any ruleset.

Everything here reads the view's core by attribute (projections/view.py) and a ruleset's
own parts only as name -> value, so one renderer serves every ruleset. Every line is safe
to print on a terminal: names, sides, kinds and details are shown escaped (eventlog/text.py).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from itertools import compress
from operator import attrgetter, ne
from typing import Any, NamedTuple

import msgspec

from skirmish.eventlog.text import escape_controls
from skirmish.projections.view import Budget, Clock, Combatant, Effect, Gauge, Own, Shown, View, second_gauge

WIDTH = 80  # the default state table fits a terminal this wide


def label(name: str) -> str:
    """A field's name as a GM reads it: ``feet_left`` -> ``feet left``."""
    return name.replace("_", " ")


def effect_text(e: Effect) -> str:
    detail = [d for d in ("GM's own" if e.custom else "", e.detail, f"{e.left} left" if e.left is not None else "") if d]
    return e.kind + (f" ({', '.join(detail)})" if detail else "")


def cell(value: Any) -> str:
    """One figure as table text: None is "-", booleans yes/no, lists joined, Structs by field."""
    if type(value) is int or type(value) is str:  # most figures: a replay shows millions
        return str(value)
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Effect):
        return effect_text(value)
    if isinstance(value, Gauge):
        return f"{value.value}" + (f"/{value.maximum}" if value.maximum is not None else "")
    if isinstance(value, Budget):
        return f"{value.left}" + (f"/{value.of}" if value.of is not None else "")
    if isinstance(value, msgspec.Struct):
        return cell({label(k): getattr(value, k) for k in value.__struct_fields__})
    if isinstance(value, (list, tuple)):
        return ", ".join(cell(v) for v in value) or "-"
    if isinstance(value, dict):
        return ", ".join(f"{k} {cell(v)}" for k, v in value.items()) or "-"
    return str(value)


def own_figures(part: Own) -> dict[str, Any]:
    """A ruleset's own part as label -> value, in its declared order."""
    return {label(name): getattr(part, name) for name in part.__struct_fields__}


def vital_label(c: Combatant) -> str:
    return c.vital.name


def budget_label(c: Combatant) -> str:
    return f"{c.budget.name} left"


class _Plan(NamedTuple):
    """The labels of a combatant's figures in order, and their values read off a combatant."""

    labels: tuple[str, ...]
    # The figures in the labels' order, read off a combatant in C by their attribute paths
    # (``vital.value``, ``own.ap_spent``): a replay reads a row for each change it prints.
    values: Callable[[Combatant], tuple[Any, ...]]
    paths: tuple[str, ...]  # those paths, in the labels' order


_plans: dict[tuple[type[Own], str, str], _Plan] = {}


def figure_plan(c: Combatant) -> _Plan:
    """How to read a combatant's figures: the same for every combatant with the same kind of
    own part and the same names of vital figure and budget, so made once for those (a
    replay reads the figures of every combatant an event changed)."""
    key = (type(c.own), c.vital.name, c.budget.name)
    plan = _plans.get(key)
    if plan is None:
        vital = vital_label(c)
        at = {"status": "status", vital: "vital.value", budget_label(c): "budget.left"}  # a label's attribute path
        for name in c.own.__struct_fields__:
            if name not in c.own.repeats and label(name) not in ("status", vital):
                at[label(name)] = f"own.{name}"
        at["effects"] = "effects"
        plan = _plans[key] = _Plan(tuple(at), attrgetter(*at.values()), tuple(at.values()))
    return plan


def figures(c: Combatant) -> dict[str, Any]:
    """Every figure of a combatant as label -> value: the core's, then the ruleset's own
    (but those that repeat the core's, ``Own.repeats``). The labels are those
    `state --wide` prints and `why WHO FIGURE` takes."""
    plan = figure_plan(c)
    return dict(zip(plan.labels, plan.values(c), strict=True))


def none_made(view: View) -> dict[str, tuple[str, str]]:
    """The figures (by the labels `why` takes) whose value is a tally of nothing made yet,
    with the words for it: the view's own parts' ``none_made`` (projections/view.py)."""
    return {label(k): said for c in view.combatants for k, said in type(c.own).none_made.items()}


def clock_label(clock: Clock) -> str:
    """The one label of a moment, for the state's first line, the log, the replay and reports."""
    if clock.round == 0:
        return clock.moment or f"before the first {clock.unit}"
    numbered = f"{clock.unit} {clock.round}"
    if _says(clock.moment.lower(), numbered):  # "after round 2" says it already
        return clock.moment
    return numbered + (f", {clock.moment}" if clock.moment else "")


def _says(text: str, words: str) -> bool:
    """Whether ``words`` (starting and ending with a letter or digit) stand in ``text`` as
    whole words: regular expressions' ``\\bwords\\b``, without compiling a pattern for
    every round of a long replay."""
    at = text.find(words)
    while at != -1:
        end = at + len(words)
        if (at == 0 or not _word(text[at - 1])) and (end == len(text) or not _word(text[end])):
            return True
        at = text.find(words, at + 1)
    return False


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"  # what \w matches in a str pattern


def who_acts(clock: Clock) -> str:
    now = ", ".join(clock.now) or "-"
    following = ", ".join(clock.next) or ("the end of the " + clock.unit if clock.running else "-")
    return f"now: {now}; next: {following}"


EFFECTS_AT_LEAST = 20  # narrower than this, a row's effects go on the lines under it


def _fit(widths: list[int], limit: int) -> list[int]:
    """Narrow the last column (effects, the longest text) so the row fits ``limit``."""
    total = sum(widths) + 2 * (len(widths) - 1)
    if total > limit:
        widths = [*widths[:-1], max(len("effects"), widths[-1] - (total - limit))]
    return widths


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], limit: int | None = None) -> list[str]:
    """Columns padded to their widest cell. Within ``limit`` the last column (effects)
    is wrapped onto the lines below, under itself, never cut; beside names so long that
    it would be narrower than EFFECTS_AT_LEAST, it goes under the row, indented."""
    # Escaped before the widths are measured: the columns line up as printed.
    header = [escape_controls(h) for h in header]
    rows = [[escape_controls(v) for v in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    if limit is not None:
        widths = _fit(widths, limit)
    start = sum(widths[:-1]) + 2 * (len(widths) - 1)  # where the last column begins
    under = limit is not None and limit - start < EFFECTS_AT_LEAST
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    for r in rows:
        first = "  ".join(_cut(v, w).ljust(w) for v, w in zip(r[:-1], widths[:-1], strict=True))
        if limit is None:
            lines.append(f"{first}  {r[-1]}".rstrip())
        elif under:
            lines.append(first.rstrip())
            if r[-1] not in ("", "-"):  # nothing under a row without effects
                lines += ["    " + piece for piece in wrap_list(r[-1], limit - 4)]
        else:
            pieces = wrap_list(r[-1], widths[-1])
            lines.append(f"{first}  {pieces[0]}".rstrip())
            lines += [" " * start + piece for piece in pieces[1:]]
    return lines


def wrap_list(text: str, width: int) -> list[str]:
    """``text`` (a list joined by ", ") in lines of at most ``width``: broken between its
    items where they fit, else between words, else within a word."""
    items, depth, begun = [], 0, 0
    for i, ch in enumerate(text):  # split at the ", " outside brackets: "stunned (1 left, GM's own)" is one item
        depth += (ch in "([") - (ch in ")]")
        if depth == 0 and text.startswith(", ", i):
            items.append(text[begun:i + 1])
            begun = i + 2
    items.append(text[begun:])
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + 1 + len(item) <= width:
            lines[-1] += " " + item
        else:
            lines += textwrap.wrap(item, width, break_on_hyphens=False) or [item]
    return lines or [text]


def render_state(shown: Shown, wide: bool = False, notes: bool = False) -> str:
    """The state a GM reads: where, when and who acts, then one row per combatant in acting
    order (80 columns: status, vital, budget, effects; ``wide``: every figure), the notes on
    combatants marked (``wide`` or ``notes``: their text too)."""
    head = "" if shown.at == shown.head else f" (head #{shown.head})"
    clock = shown.clock
    when = f"{clock_label(clock)}; {who_acts(clock)}"
    if wide and clock.own.__struct_fields__:
        when += "; " + ", ".join(f"{k} {cell(v)}" for k, v in own_figures(clock.own).items())
    where = f"branch {shown.branch}" if shown.branch else "on no branch (undone)"
    lines = [f"{shown.encounter} ({shown.ruleset}), {where}, at #{shown.at}{head}", when]
    if shown.ended is not None:
        why = f": {shown.ended.reason}" if shown.ended.reason else ""
        lines.append(f"ENDED at #{shown.ended.event}{why} (`skirmish undo` reopens it)")
    if not shown.combatants:
        lines.append("no combatants yet")
    elif wide:
        first = shown.combatants[0]
        keys = [k for k in figures(first) if k != "effects"]
        header = ["name", "side", *keys, "effects"]
        rows = [[c.name, c.side, *(cell(figures(c).get(k)) for k in keys), cell(c.effects)] for c in shown.combatants]
        lines += table(header, rows)
    else:
        first = shown.combatants[0]
        second = second_gauge(shown)  # crisis's Endurance beside Health (Combatant.vital2)
        header = ["name", "side", "status", vital_label(first), *([second] if second else []),
                  budget_label(first), "effects"]
        rows = [
            [("> " if c.acting else "") + c.name + (" *" if c.name in shown.notes else ""), c.side, c.status,
             cell(c.vital), *([cell(c.vital2) if isinstance(c.vital2, Gauge) else "-"] if second else []),
             cell(c.budget), cell(c.effects)]
            for c in shown.combatants
        ]
        lines += table(header, rows, WIDTH)
        if shown.notes and not notes:
            lines.append("* noted (`state --wide` shows the notes)")
    if wide or notes:
        for name, on_it in shown.notes.items():
            lines += [f"{'private ' if n.private else ''}note on {name} (#{n.id}): {n.text}" for n in on_it]
    for p in shown.pending:
        extra = [f"on {p.target}"] if p.target else []
        extra += [p.resolves] if p.resolves else []
        if wide:
            extra += [f"{k} {cell(v)}" for k, v in own_figures(p.own).items() if v not in (None, 0, "")]
        lines.append(f"pending: {p.who} {p.action}" + (f" ({', '.join(extra)})" if extra else ""))
    for key, value in own_figures(shown.own).items():
        if value not in (None, (), []):
            lines.append(f"{key}: {cell(value)}")
    if shown.xp:
        lines.append(f"XP: {shown.xp:,} (the foes' experience points, from their xp stat)")
    return "\n".join(escape_controls(line) for line in lines)


def view_changes(before: View, after: View) -> list[str]:
    """Figure by figure, what differs between two views of the same encounter."""
    changes: list[str] = []
    old = {c.name: c for c in before.combatants}
    for c in after.combatants:
        prior = old.get(c.name)
        if prior is None or prior is c or prior == c:
            continue
        changes += combatant_changes(prior, c)
    return changes


_PLAIN = frozenset({int, str})  # the types whose cell is str(value)


def combatant_changes(before: Combatant, after: Combatant) -> list[str]:
    """Figure by figure, what differs between two views of one combatant."""
    plan = figure_plan(after)
    if figure_plan(before) is not plan:  # a figure renamed (another vital figure): each label of the new view, by label
        prior = figures(before)
        return [escape_controls(f"{after.name}: {key} {cell(prior.get(key))} -> {cell(value)}")
                for key, value in figures(after).items() if prior.get(key) != value]
    return figure_lines(after.name, plan.labels, plan.values(before), plan.values(after))


def figure_lines(name: str, labels: Sequence[str], was: Sequence[Any], now: Sequence[Any]) -> list[str]:
    """:func:`combatant_changes` from a combatant's figures before and after, read with
    one plan (``labels``)."""
    # The figures that differ picked out in C (a replay compares a row an event): most of
    # a row's figures are as they were.
    lines = []
    for i in compress(range(len(labels)), map(ne, was, now)):
        old, new = was[i], now[i]  # most are numbers or words, which are their own cell
        line = (f"{name}: {labels[i]} {old if type(old) in _PLAIN else cell(old)} -> "
                f"{new if type(new) in _PLAIN else cell(new)}")
        lines.append(line if line.isprintable() else escape_controls(line))
    return lines
