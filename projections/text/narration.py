"""How the log, the replay and an event's explanation read as text, for any ruleset.

The command line prints these lines; the console and the pages may too. Everything
here reads the engine's records, the typed view and the audit's data: no I/O. Each line
is safe to print on a terminal (eventlog/text.py): names, notes and commands are shown
escaped, so none of them can add a line or act on the terminal.
"""

from __future__ import annotations

import re
from itertools import compress
from operator import is_not
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from skirmish.eventlog.events import CORE_EVENTS, Event
from skirmish.eventlog.rows import HeadMove
from skirmish.eventlog.text import escape_controls
from skirmish.projections.audit.explain import Derived, Explanation, Number, Rolled, Stored
from skirmish.projections.notes import Note
from skirmish.projections.write.engine import Encounter, Recorded
from skirmish.projections.text.board import cell, figure_plan
from skirmish.projections.text.board import clock_label, combatant_changes, view_changes
from skirmish.projections.view import Clock, Combatant, Glance, View
from skirmish.projections.text.words import event_line

INDENT = " " * 9  # under the text of a "#id   " line


def note_lines(notes: Sequence[Note]) -> list[str]:
    return [escape_controls(f"{INDENT}{'private ' if n.private else ''}note #{n.id}: {n.text}") for n in notes]


def log_line(enc: Encounter, rec: Recorded, branches: Sequence[str] | None, current: str) -> str:
    """One event of `log`; with ``branches`` (`log --all`), where it stands: undone, or on
    branches other than the current one."""
    mark = ""
    if branches is not None:
        mark = "  (undone)" if not branches else ("" if current in branches else f"  ({', '.join(branches)})")
    return escape_controls(f"#{rec.id:<5} {event_line(enc, rec)}{mark}")


def head_move_line(m: HeadMove) -> str:
    frm = f"#{m.from_event}" if m.from_event is not None else "-"
    return escape_controls(f"  {m.recorded_at[:19]}  {m.reason:<6} {m.branch}: {frm} -> #{m.to_event}")


def replay_text(
    enc: Encounter, notes: Mapping[int, Sequence[Note]], to: int | None = None, start: int | None = None,
    whole: bool = False,
) -> Iterator[str]:
    """The narrated fight, an event at a time: the event's lines (its moment and what it
    did, what it changed, the notes on it) joined by newlines.

    What is printed reads the view's moment and combatants' figures alone, so each event
    takes the ruleset's ``glance`` (projections/ruleset.py), not its whole view, told the
    event (so it may read again only the combatants that event changes), and only the
    rows the glance did not keep as they were are compared. ``whole``: the plain way,
    a whole view an event and every row compared (the same text; the tests hold the two
    to it)."""
    if whole:
        yield from _replay_whole(enc, notes, to, start)
        return
    ruleset = enc.ruleset
    glance_of, describe_own = ruleset.glance, ruleset.describe
    # Whether an event type is the ruleset's own, described by it straight (most of a
    # fight), not through the cases for the core events (projections/text/words.py,
    # ``describe``: CORE_EVENTS) first: the same line.
    own: dict[type[Event], bool] = {}
    prior: tuple[Combatant, ...] | None = None
    moment: tuple[int, str, str] | None = None
    last_clock: Clock | None = None
    last_glance: Glance | None = None
    when = ""
    read: dict[str, tuple[Combatant, Any, Differ]] = {}  # _change_lines: each one's last row, its plan and differ
    told: dict[tuple[str, str, Any, Any], str] = {}  # _change_lines: the line of a figure's change
    for rec, after in enc.replay(to, start=start):
        if prior is None and rec.parent is not None:  # from a later event: the state before it
            prior = glance_of(enc.fold_to(rec.parent)[0]).combatants
        glance = glance_of(after, rec.event)  # the state after the one event since the last glance
        if glance is not last_glance:  # else the moment and the rows are those of the event before
            last_glance = glance
            clock = glance.clock
            if clock is not last_clock:
                last_clock = clock
                if (clock.round, clock.unit, clock.moment) != moment:  # most events share their moment
                    moment, when = (clock.round, clock.unit, clock.moment), escape_controls(clock_label(clock))
        event = rec.event
        mine = own.get(type(event))
        if mine is None:
            mine = own[type(event)] = not issubclass(type(event), CORE_EVENTS)
        if mine:
            said = describe_own(event)
            if not said.isprintable():
                said = escape_controls(said)
        else:
            said = event_line(enc, rec)
        line = f"#{rec.id:<5} [{when}] {said}"  # its parts escaped: escaping goes character by character
        rows = glance.combatants
        if prior is not None and prior is not rows:
            changed = _changed(prior, rows)
            if changed:
                if len(changed) > 1 and not glance.ordered:  # told in the view's acting order
                    order = {name: i for i, name in enumerate(ruleset.acting_order(after))}
                    changed.sort(key=lambda pair: order.get(pair[1].name, len(order)))
                line += _change_lines(changed, read, told)
        if rec.id in notes:
            line += "".join("\n" + note for note in note_lines(notes[rec.id]))
        yield line
        prior = rows


# The types of figure whose line is kept for the next time the same change comes (a number
# or a word, or none: "-"); an int and a str are never equal, so neither reads as the other.
_TOLD_TYPES = frozenset({int, str, type(None)})
TOLD_AT_MOST = 20_000  # lines kept (about 200 bytes each); beyond it they are forgotten and kept anew


Differ = Callable[[Combatant, Combatant], list[tuple[str, Any, Any]]]
_differs: dict[tuple[str, ...], Differ] = {}


def _differ(plan: Any) -> Differ:
    """A function of two rows read with ``plan``: each figure that differs, as (label, value
    before, value after), in the labels' order. Written out for the plan's attribute paths
    and compiled once (as ``collections.namedtuple`` writes its class): a replay compares
    a pair of rows for every event that changes a combatant, and a comparison written out
    reads two attributes and compares them in a few steps of the interpreter, where a
    tuple of each row's figures compared item by item costs several times as much. The
    paths are the names of Struct fields (``board.figure_plan``), never text a user typed."""
    differ = _differs.get(plan.paths)
    if differ is None:
        body = ["def differ(a, b):", "    out = []"]
        for i, path in enumerate(plan.paths):
            if not all(part.isidentifier() for part in path.split(".")):  # never so: a Struct's field names
                raise ValueError(f"not an attribute path: {path!r}")
            body += [f"    x = a.{path}", f"    y = b.{path}", f"    if x != y: out.append((labels[{i}], x, y))"]
        body.append("    return out")
        space: dict[str, Any] = {"labels": plan.labels}
        exec(compile("\n".join(body), f"<the figures of {plan.labels!r}>", "exec"), space)  # noqa: S102
        differ = _differs[plan.paths] = space["differ"]
    return differ


def _change_lines(
    changed: list[tuple[Combatant, Combatant]], read: dict[str, tuple[Combatant, Any, Differ]],
    told: dict[tuple[str, str, Any, Any], str],
) -> str:
    """The lines of what changed in each pair of rows, each after a newline and the indent:
    ``combatant_changes`` of each pair, compared by the plan's :func:`_differ` (kept in
    ``read`` by name with the row and the plan it was last used for: the row after an
    event that changed a combatant is the row before the next one that does), and the line of a change of a number or a word kept
    in ``told`` by name, label, value before and value after (a fight says "Mira: AP left
    4 -> 3" many times)."""
    text = ""
    for old, new in changed:
        name = old.name
        plan = figure_plan(new)
        seen = read.get(name)
        if seen is not None and seen[0] is old and seen[1] is plan:  # old was read with it last time
            differ = seen[2]
        elif figure_plan(old) is plan:
            differ = _differ(plan)
        else:  # a figure renamed: each label of the new view, by label
            read.pop(name, None)
            text += "".join([f"\n{INDENT}{change}" for change in combatant_changes(old, new)])
            continue
        read[name] = (new, plan, differ)
        for label, before, after in differ(old, new):
            if type(before) in _TOLD_TYPES and type(after) in _TOLD_TYPES:
                key = (name, label, before, after)
                line = told.get(key)
                if line is None:
                    if len(told) >= TOLD_AT_MOST:
                        told.clear()
                    line = told[key] = _change_line(name, label, before, after)
                text += line
            else:
                text += _change_line(name, label, before, after)
    return text


def _change_line(name: str, label: str, before: Any, after: Any) -> str:
    """One line of :func:`~skirmish.projections.text.board.figure_lines`, after a newline
    and the indent."""
    line = f"{name}: {label} {cell(before)} -> {cell(after)}"
    return f"\n{INDENT}{line if line.isprintable() else escape_controls(line)}"


def _changed(before: tuple[Combatant, ...], after: tuple[Combatant, ...]) -> list[tuple[Combatant, Combatant]]:
    """The rows of ``after`` that differ from the same combatant's in ``before`` (a
    combatant new in ``after`` has nothing to differ from), in ``after``'s order, each
    with its row before."""
    changed: list[tuple[Combatant, Combatant]] = []
    if len(before) == len(after):  # most events: the same combatants in the same places
        # The rows that are not the same objects, picked out in C: a glance keeps the rows
        # of the combatants an event left alone.
        for i in compress(range(len(after)), map(is_not, before, after)):
            old, new = before[i], after[i]
            if old.name != new.name:
                break
            if old != new:
                changed.append((old, new))
        else:
            return changed
    rows = {c.name: c for c in before}
    return [(was, c) for c in after if (was := rows.get(c.name)) is not None and was is not c and was != c]


def _replay_whole(
    enc: Encounter, notes: Mapping[int, Sequence[Note]], to: int | None, start: int | None,
) -> Iterator[str]:
    """:func:`replay_text` the plain way: a whole view an event, every row compared."""
    view_of = enc.ruleset.view
    prior: View | None = None
    for rec, after in enc.replay(to, start=start):
        if prior is None and rec.parent is not None:
            prior = view_of(enc.fold_to(rec.parent)[0])
        view = view_of(after)
        lines = [escape_controls(f"#{rec.id:<5} [{clock_label(view.clock)}] {event_line(enc, rec)}")]
        if prior is not None:
            lines += [f"{INDENT}{change}" for change in view_changes(prior, view)]
        if rec.id in notes:
            lines += note_lines(notes[rec.id])
        yield "\n".join(lines)
        prior = view


def explain_lines(data: Explanation) -> list[str]:
    """`explain` as text: every number of the event with its terms, dice and rule."""
    lines = [
        f"#{data.event} {data.description}",
        f"  command: {data.command}  (recorded on {data.branch}, {data.recorded_at[:19]}; "
        + (f"on {', '.join(data.on)})" if data.on else "undone: on no branch)"),
        f"  ruleset: {data.ruleset} ({data.rules_file}), " + _options_words(data),
    ]
    lines += number_lines(data.numbers)
    lines += [f"  {'private ' if note.private else ''}note #{note.id}: {note.text}" for note in data.notes]
    return [escape_controls(line) for line in lines]


def _options_words(data: Explanation) -> str:
    """The options in force: each at the encounter's first event, which records them; a count
    at any other (srd-5.2 has 21: one line of them on every event buried its numbers)."""
    if data.kind == "encounter-started" or len(data.options) <= 8:
        return "options: " + (", ".join(f"{k}={v}" for k, v in data.options.items()) or "none")
    return f"{len(data.options)} options, as the encounter's first event records them (its `explain` lists them)"


RECORDED = "  as recorded: "


def number_lines(numbers: Sequence[Number]) -> list[str]:
    """An event's numbers (``audit.explain.number_entries``) as `explain` prints them."""
    lines, recorded = number_parts(numbers)
    if recorded is not None:
        items, tail = recorded
        lines.append(RECORDED + ", ".join(items) + tail)
    if not numbers:
        lines.append("  no numbers: nothing was computed")
    return lines


_PART = re.compile(r"([^.\[\]]+)(?:\[([^\]]*)\])?(?:\.|$)")


def figure_words(figure: str) -> str:
    """Where a number sits in its event (``initiatives[Hauser].base``, ``stats[qu]``,
    ``ap_lost[Mira]``), in words for the text: "Hauser's initiative (base)", "stat qu",
    "Mira's AP lost". `--json` keeps the path itself: scripts read it."""
    parts = list(_PART.finditer(figure))
    if not parts or "".join(m.group(0) for m in parts) != figure:
        return figure.replace("_", " ")
    owner, words = "", []
    for index, match in enumerate(parts):
        name, key = match.group(1), match.group(2)
        said = " ".join("AP" if w == "ap" else w for w in name.split("_"))
        if key is None:
            words.append(said)
        elif key.isdigit():
            words.append(f"{said} {int(key) + 1}")
        elif name == "stats":
            words.append(f"stat {key}")
        else:
            owner = owner or key
            more = index < len(parts) - 1
            words.append(said[:-1] if more and said.endswith("s") else said)  # initiatives[Ann].base: her initiative
    head, rest = words[0], [w for w in words[1:] if w != words[0]]
    said = head + (f" ({', '.join(rest)})" if rest else "")
    return f"{owner}'s {said}" if owner else said


def _dice_words(n: Derived | Rolled) -> str:
    """The dice of a number; two d20s of which one was kept (Advantage, Disadvantage:
    srd-5.2-combat.md §6) say which, since the number counts the kept one, not their sum."""
    roll = n.roll
    assert roll is not None
    kept = next((t.value for t in n.terms if t.name.startswith("d20")), None) if isinstance(n, Derived) else None
    if roll.dice != "2d20" or kept is None or kept not in roll.faces:
        return roll.describe()
    which = "both alike" if min(roll.faces) == max(roll.faces) else "the higher" if kept == max(roll.faces) else "the lower"
    from skirmish.eventlog.events import whose

    who = whose(roll.source)
    return f"2d20 = {', '.join(str(f) for f in roll.faces)}: {which} kept, {kept} ({who})"


def number_parts(numbers: Sequence[Number]) -> tuple[list[str], tuple[list[str], str] | None]:
    """The lines of the derived numbers, and the numbers stored as they are (``figure
    value`` items and the rules they fall under) that `explain` prints on one line."""
    lines: list[str] = []
    recorded = [n for n in numbers if isinstance(n, Stored)]
    for n in numbers:
        if isinstance(n, Stored):
            continue
        formula = f" = {n.formula}" if isinstance(n, Derived) and n.formula else ""
        lines.append(f"  {figure_words(n.figure)}: {n.value}{formula}")
        if isinstance(n, Derived) and n.terms:
            lines.append("      " + ", ".join(f"{t.name} {t.value:+d}" for t in n.terms))
        if n.roll is not None:
            lines.append("      dice: " + _dice_words(n))
        if isinstance(n, Derived) and n.rule:
            lines.append(f"      rule: {n.rule}")
    if not recorded:
        return lines, None
    rules = {n.rule for n in recorded if n.rule}
    tail = f" ({', '.join(sorted(rules))})" if rules else " (no derivation recorded)"
    return lines, ([f"{figure_words(n.figure)} {n.value}" for n in recorded], tail)


def explanation_lines(numbers: Sequence[Number]) -> list[str]:
    """An event's explanation as the players' policy reads it: each line and each item recorded."""
    lines, recorded = number_parts(numbers)
    return [*lines, *(recorded[0] if recorded else ())]
