"""The sentences of the read-only answers (why, diff, branches, a page of the log), made once
for the command line, the console and the GM's page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skirmish.eventlog.errors import BadInput
from skirmish.projections.text.board import cell

LOG_PAGE = 50  # events `log` shows by default: the last page, as at the table


def limit_of(limit: int | None, default: int) -> int | None:
    """A --limit as given (0: every one; None: the default), refused below 0."""
    if limit is not None and limit < 0:
        raise BadInput(f"--limit takes 0 (every change) or more, not {limit}")
    return default if limit is None else (limit or None)


def why_lines(data: Any, none_made: Mapping[str, tuple[str, str]] | None = None) -> list[str]:
    """`why` as text. ``none_made``: the figures (by label) whose value is a tally of nothing
    made yet, with its words (:func:`~skirmish.projections.text.board.none_made`): one of
    them that has been nothing else reads as those words, in one line."""
    from skirmish.projections.audit.why import ChangeLink

    lines: list[str] = []
    if not data.figures:
        lines.append(f"{data.who}: every figure is at its starting value (branch {data.branch}, at #{data.at})")
    for f in data.figures:
        name = f.figure.replace("_", " ")
        where = f"(branch {data.branch}, at #{data.at})"
        nothing = (none_made or {}).get(f.figure)
        if nothing is not None and not f.earlier and f.now == nothing[0] and all(
                v in (None, "", nothing[0]) for v in _values(f)):
            lines.append(f"{data.who} {name}: {nothing[1]} {where}")
            continue
        lines.append(f"{data.who} {name}: {_figure(f.start)} at the start, now {_figure(f.now)} {where}")
        for link in f.chain:
            change = (f"   {_figure(link.before)} -> {_figure(link.after)}" if isinstance(link, ChangeLink)
                      else "   (cause)")
            lines.append(f"  #{link.id:<5} {link.description}{change}")
            lines.append(f"         by `{link.command}`")
        if f.earlier:
            lines.append("  (earlier changes not shown: --limit N for more, --limit 0 for every one)")
    return lines


def _values(f: Any) -> list[Any]:
    """Every value a figure's history shows: at the start, now, and each change's before and after."""
    from skirmish.projections.audit.why import ChangeLink

    return [f.start, f.now, *(v for link in f.chain if isinstance(link, ChangeLink) for v in (link.before, link.after))]


def _figure(value: Any) -> str:
    """A figure in `why`'s lines: one that is blank (srd-5.2's death saves before any) is "-"."""
    return cell(value) or "-"


def diff_lines(data: Any) -> list[str]:
    ea, eb = data.a, data.b
    lines = [f"{ea.name} (#{ea.at}) and {eb.name} (#{eb.at}) split after #{data.split.id} {data.split.description}"]
    for side, only in ((ea, data.after_split.a), (eb, data.after_split.b)):
        span = f": #{only.first} .. #{only.last}" if only.count else ""
        lines.append(f"  {only.count} event(s) only on {side.name}{span}")
    for s in data.scene:
        lines.append(f"{s.figure}: {short(s.a)} | {short(s.b)}")
    for c in data.combatants:
        if c.only_in is not None:
            lines.append(f"{c.name}: only on {c.only_in}")
            continue
        lines.append(f"{c.name}:")
        for f in c.figures:
            lines.append(f"  {f.figure.replace('_', ' ')}: {cell(f.a)} | {cell(f.b)}")
    if not data.scene and not data.combatants:
        lines.append("no figure differs")
    return lines


def short(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {cell(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "; ".join(short(v) for v in value) or "-"
    return cell(value)


def branches_lines(now: str, heads: Mapping[str, Any]) -> list[str]:
    return [f"{'*' if h.branch == now else ' '} {h.branch}  at #{h.event_id}" for h in heads.values()]


def log_lines(enc: Any, request: Any) -> list[str]:
    """A page of the current branch's log (the last LOG_PAGE events by default), with notes."""
    from skirmish.projections.notes import notes_shown
    from skirmish.projections.text.narration import log_line, note_lines

    if request.limit is not None and request.limit < 0:
        raise BadInput(f"--limit takes 0 (every event) or more, not {request.limit}")
    if request.every:
        raise BadInput("log --all lists the whole tree: the command line's `skirmish log --all`")
    size = LOG_PAGE if request.limit is None else (request.limit or None)
    page, records = enc.log_page(size, request.start)
    notes = notes_shown(enc, [rec.id for rec in records])
    lines = []
    if page.before:
        lines.append(f"({page.before:,} earlier event(s) of branch {enc.branch!r})")
    for rec in records:
        lines.append(log_line(enc, rec, None, enc.branch))
        if rec.id in notes:
            lines.extend(note_lines(notes[rec.id]))
    if page.after:
        lines.append(f"({page.after:,} later event(s))")
    return lines
