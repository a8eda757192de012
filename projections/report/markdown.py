"""A session report rendered as Markdown, for a file read as it is or pasted into a wiki.

Its pictures are text: a bar per action from declaration to resolution, a table of the
vital figure over rounds, for a file read as it is or pasted into a wiki. Every text in it
that a user typed or a file brought goes through eventlog/text.py's markdown_text (or into
a code block through markdown_fence): it reads as written, never as a tag, a link or a
block. (The HTML export is the interactive replay page, :mod:`skirmish.projections.page.shell`.)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from skirmish.eventlog.text import escape_controls, markdown_fence, markdown_text
from skirmish.projections.policy import in_party
from skirmish.projections.text.board import (
    WIDTH, budget_label, cell, clock_label, render_state, table, vital_label, who_acts,
)
from skirmish.projections.report.data import Figures, Report, Round, Rounds, Span


def _words(key: str) -> str:
    return key.replace("_", " ")


def _round_title(r: Round) -> str:
    return "Set-up" if r.number == 0 else f"Round {r.number}"


def _figure_rows(report: Report) -> tuple[list[str], list[list[str]]]:
    second = report.vital2  # a second gauge beside the vital (crisis's Endurance), if any
    header = [
        "combatant", "side", f"{_words(report.vital)} (start -> end)",
        *([f"{_words(second)} (start -> end)"] if second else []), "damage dealt", "damage taken",
        "actions declared", f"{_words(report.budget)} spent (summed over rounds)",
    ]

    def row(f: Figures) -> list[str]:
        both = [f"{f.vital2_start} -> {f.vital2_end}" if f.vital2_start is not None else "-"] if second else []
        if report.players is not None:  # a foe's damage is its band; so is what the party dealt it
            foe = not in_party(f.side, report.players.party)
            return [f.name, f.side, f"{f.vital_start} -> {f.vital_end}", *both, str(f.dealt) if foe else "-",
                    "-" if foe else str(f.taken), str(f.declared), "-" if foe else str(f.spent)]
        return [f.name, f.side, f"{f.vital_start} -> {f.vital_end}", *both, str(f.dealt), str(f.taken),
                str(f.declared), str(f.spent)]

    return header, [row(f) for f in report.figures]


def _subtitle(report: Report) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in report.options.items()) or "no options"
    if report.players is not None:
        return (f"{report.ruleset} ({opts}); the players' version, at #{report.head}; "
                f"foes' figures are shown as bands: {report.players.words}")
    return (f"{report.ruleset} ({opts}); branch {report.branch} at #{report.head}; "
            f"verify digest {report.digest}")


def _final(report: Report) -> list[str]:
    """The final state: as `state` prints it for the GM; for the players, each foe's vital
    figure as its band, with no budget."""
    if report.players is None:
        return render_state(report.final, notes=True).splitlines()
    final, bands = report.final, report.players.final_bands
    rows = [[c.name, c.side, c.status, bands[c.name] if c.name in bands else cell(c.vital),
             "-" if c.name in bands else cell(c.budget), cell(c.effects)] for c in final.combatants]
    lines = [f"{clock_label(final.clock)}; {who_acts(final.clock)}"]
    if rows:
        first = final.combatants[0]
        lines += table(["name", "side", "status", vital_label(first), budget_label(first), "effects"], rows, WIDTH)
    lines += [f"pending: {p.who} {p.action}" + (f" (on {p.target})" if p.target else "") for p in final.pending]
    return [escape_controls(line) for line in lines]


def _span_reach(span: Span, moments: int) -> tuple[int, int]:
    """First and last moment index a span covers within its round."""
    start = 0 if span.carried else span.start
    end = span.end if span.end is not None else moments - 1
    return start, max(start, end)


# --- Markdown ---------------------------------------------------------------------------------


def _first_up(text: str) -> str:
    """Sentence case that keeps an abbreviation whole (HP, AP), as str.capitalize does not."""
    return text[:1].upper() + text[1:]


def _md_cell(text: Any) -> str:
    return markdown_text(str(text), cell=True)


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(_md_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in rows]
    return out


def _text_timeline(r: Round) -> list[str]:
    labels = [f"{s.who}: {s.action}" for s in r.spans]
    width = max(len(x) for x in labels)
    # Each column as wide as its moment's label, two spaces apart: "count 35" is narrower
    # than "after round 1" and the table stays as short as its labels allow.
    cells = [max(3, len(m)) + 2 for m in r.moments]
    lines = ["moment".ljust(width) + "  " + "".join(m.rjust(c) for m, c in zip(r.moments, cells, strict=True))]
    for label, s in zip(labels, r.spans, strict=True):
        first, last = _span_reach(s, len(r.moments))
        bar = ""
        for i, span_width in enumerate(cells):
            mark = "=" if first <= i <= last else "."
            if i == first and s.carried:
                mark = "<"
            if i == last and s.end is None:
                mark = ">"
            if s.point and i == first:
                mark = "*"
            bar += mark.rjust(span_width)
        lines.append(label.ljust(width) + "  " + bar)
    return lines


def _text_grid(r: Round, names: list[str]) -> list[str]:
    cells = r.grid()
    phases = r.phase_order()
    rows = [[n, *("; ".join(cells.get((n, p), [])) or "-" for p in phases)] for n in names]
    return _md_table(["combatant", *phases], rows)


def markdown(report: Report) -> str:
    return "\n".join(markdown_lines(report))


def markdown_chunks(report: Report, every: int = 4000) -> Iterator[bytes]:
    """The report as UTF-8, ``every`` lines a chunk: a long fight's report is written as it
    is made, never held whole (the same bytes as :func:`markdown`)."""
    lines = markdown_lines(report)
    first = True
    while batch := list(itertools.islice(lines, every)):
        text = "\n".join(batch)
        yield (text if first else "\n" + text).encode()
        first = False


def markdown_lines(report: Report) -> Iterator[str]:
    yield from [f"# {markdown_text(report.encounter)}: session report", "", markdown_text(_subtitle(report)), ""]
    yield from ["## Combatants", ""]
    yield from _md_table(*_figure_rows(report))
    numbers = report.rounds.numbers if isinstance(report.rounds, Rounds) else [r.number for r in report.rounds]
    gauges = [(report.vital, report.vital_series)]
    if report.vital2:
        gauges.append((report.vital2, report.vital2_series))
    for name, series in gauges:
        yield from ["", f"## {_first_up(_words(name))} over rounds", ""]
        yield from _md_table(
            ["combatant", *("Set-up" if number == 0 else f"round {number}" for number in numbers)],
            [[who, *(str(v) if v is not None else "-" for v in values)] for who, values in series.items()],
        )
    names = [f.name for f in report.figures]
    for r in report.rounds:
        yield from ["", f"## {_round_title(r)}", ""]
        for line in r.lines:
            yield f"- #{line.id} {markdown_text(line.text)}"
            yield from [f"  - *Note #{n.id}:* {markdown_text(n.text)}" for n in line.notes]
        if r.spans:
            yield from ["", "Timeline (each action from declaration to resolution; `<` carried in, "
                        "`>` carried on, `*` declared and resolved at once):", ""]
            yield from markdown_fence(_text_timeline(r))
        if r.phase_order():
            yield from ["", "Phases (`>` declared, `!` resolved):", ""]
            yield from _text_grid(r, names)
    if report.notes:
        yield from ["", "## Notes", ""]
        yield from [f"- on #{n.about}: {markdown_text(n.text)} (note #{n.id})" for n in report.notes]
    yield from ["", "## Final state", "", *markdown_fence(_final(report)), ""]
