"""A session report rendered as Markdown, or as one self-contained HTML file with inline SVG.

The HTML needs no network and no script: styles are inline, pictures are SVG drawn here.
The Markdown draws the same pictures as text (a bar per action, a table of the vital
figure), for a file read as it is or pasted into a wiki. Every text in it that a user
typed or a file brought goes through eventlog/text.py's markdown_text (or into a code
block through markdown_fence): it reads as written, never as a tag, a link or a block.
"""

from __future__ import annotations

from html import escape
from typing import Any

from skirmish.eventlog.text import markdown_fence, markdown_text
from skirmish.projections.render import render_state
from skirmish.projections.report import Figures, Report, Round, Span

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")


def _words(key: str) -> str:
    return key.replace("_", " ")


def _round_title(r: Round) -> str:
    return "Set-up" if r.number == 0 else f"Round {r.number}"


def _colours(report: Report) -> dict[str, str]:
    return {f.name: PALETTE[i % len(PALETTE)] for i, f in enumerate(report.figures)}


def _figure_rows(report: Report) -> tuple[list[str], list[list[str]]]:
    header = [
        "combatant", "side", f"{_words(report.vital)} (start -> end)", "damage dealt", "damage taken",
        "actions declared", f"{_words(report.budget)} spent (summed over rounds)",
    ]

    def row(f: Figures) -> list[str]:
        return [f.name, f.side, f"{f.vital_start} -> {f.vital_end}", str(f.dealt), str(f.taken),
                str(f.declared), str(f.spent)]

    return header, [row(f) for f in report.figures]


def _subtitle(report: Report) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in report.options.items()) or "no options"
    return (f"{report.ruleset} ({opts}); branch {report.branch} at #{report.head}; "
            f"verify digest {report.digest}")


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
        for i, cell in enumerate(cells):
            mark = "=" if first <= i <= last else "."
            if i == first and s.carried:
                mark = "<"
            if i == last and s.end is None:
                mark = ">"
            if s.point and i == first:
                mark = "*"
            bar += mark.rjust(cell)
        lines.append(label.ljust(width) + "  " + bar)
    return lines


def _text_grid(r: Round, names: list[str]) -> list[str]:
    cells = r.grid()
    phases = r.phase_order()
    rows = [[n, *("; ".join(cells.get((n, p), [])) or "-" for p in phases)] for n in names]
    return _md_table(["combatant", *phases], rows)


def markdown(report: Report) -> str:
    out = [f"# {markdown_text(report.encounter)}: session report", "", markdown_text(_subtitle(report)), ""]
    out += ["## Combatants", ""]
    out += _md_table(*_figure_rows(report))
    out += ["", f"## {_first_up(_words(report.vital))} over rounds", ""]
    out += _md_table(
        ["combatant", *(_round_title(r) if r.number == 0 else f"round {r.number}"
                        for r in report.rounds)],
        [[name, *(str(v) if v is not None else "-" for v in values)]
         for name, values in report.vital_series.items()],
    )
    names = [f.name for f in report.figures]
    for r in report.rounds:
        out += ["", f"## {_round_title(r)}", ""]
        for line in r.lines:
            out.append(f"- #{line.id} {markdown_text(line.text)}")
            out += [f"  - *Note #{n.id}:* {markdown_text(n.text)}" for n in line.notes]
        if r.spans:
            out += ["", "Timeline (each action from declaration to resolution; `<` carried in, "
                    "`>` carried on, `*` declared and resolved at once):", ""]
            out += markdown_fence(_text_timeline(r))
        if r.phase_order():
            out += ["", "Phases (`>` declared, `!` resolved):", ""]
            out += _text_grid(r, names)
    if report.notes:
        out += ["", "## Notes", ""]
        out += [f"- on #{n.about}: {markdown_text(n.text)} (note #{n.id})" for n in report.notes]
    out += ["", "## Final state", "", *markdown_fence(render_state(report.final).splitlines()), ""]
    return "\n".join(out)


# --- HTML and SVG -----------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { margin-bottom: 0.2em; } .sub { color: #555; font-size: 0.9em; word-break: break-all; }
table { border-collapse: collapse; margin: 0.5em 0; } td, th { border: 1px solid #ccc; padding: 0.2em 0.5em; }
th { background: #f0f0f0; text-align: left; } ol { padding-left: 1.5em; } li { margin: 0.1em 0; }
.id { color: #888; font-size: 0.85em; } .note { color: #7a4b00; font-style: italic; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; } svg { display: block; margin: 0.6em 0; }
svg text { font-family: system-ui, sans-serif; font-size: 11px; }
"""


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


CHAR_W = 7  # px a character of the labels takes, near enough


def timeline_svg(r: Round, colours: dict[str, str]) -> str:
    label_w, row_h, top = 210, 20, 28
    # Columns widen for longer moment labels (a phase and its call), up to a point; a label
    # still too long is cut, and shown whole as the column's tooltip.
    longest = max((len(m) for m in r.moments), default=1)
    col = max(34, min(CHAR_W * longest + 8, 90))
    fits = max(1, (col - 6) // CHAR_W)
    width = label_w + col * len(r.moments) + 10
    height = top + row_h * len(r.spans) + 8
    parts = [f'<svg class="timeline" role="img" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}">',
             f"<title>{escape(_round_title(r))}: actions from declaration to resolution</title>",
             f'<text x="4" y="{top - 10}" fill="#777">moment</text>']
    for i, m in enumerate(r.moments):
        x = label_w + col * i
        parts.append(f'<line x1="{x}" y1="{top - 6}" x2="{x}" y2="{height}" stroke="#e4e4e4"/>')
        shown = m if len(m) <= fits else m[: fits - 1] + "…"
        parts.append(f'<text x="{x + col / 2}" y="{top - 10}" text-anchor="middle">'
                     f"<title>{escape(m)}</title>{escape(shown)}</text>")
    for j, s in enumerate(r.spans):
        y = top + row_h * j
        first, last = _span_reach(s, len(r.moments))
        colour = colours.get(s.who, PALETTE[0])
        parts.append(f'<text x="4" y="{y + 14}">{escape(s.who)}: {escape(s.action)}</text>')
        x = label_w + col * first
        if s.point:
            parts.append(f'<circle class="span" cx="{x + col / 2}" cy="{y + 10}" r="6" fill="{colour}">'
                         f"<title>{escape(s.who)} {escape(s.action)}: declared and resolved at once</title></circle>")
            continue
        w = col * (last - first + 1) - 4
        opacity = "0.55" if s.end is None or s.carried else "0.9"
        tip = f"{s.who} {s.action}" + (f" on {s.target}" if s.target else "")
        parts.append(f'<rect class="span" x="{x + 2}" y="{y + 3}" width="{w}" height="{row_h - 6}" rx="4" '
                     f'fill="{colour}" fill-opacity="{opacity}"><title>{escape(tip)}</title></rect>')
    parts.append("</svg>")
    return "".join(parts)


def phase_grid_svg(r: Round, names: list[str], colours: dict[str, str]) -> str:
    phases, cells = r.phase_order(), r.grid()
    label_w, col, row_h, top = 110, 150, 24, 24
    width = label_w + col * len(phases) + 4
    height = top + row_h * len(names) + 4
    parts = [f'<svg class="phase-grid" role="img" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}">',
             f"<title>{escape(_round_title(r))}: who acted in which phase</title>"]
    for i, p in enumerate(phases):
        parts.append(f'<text x="{label_w + col * i + col / 2}" y="{top - 8}" text-anchor="middle">{escape(p)}</text>')
    for j, name in enumerate(names):
        y = top + row_h * j
        parts.append(f'<text x="4" y="{y + 16}">{escape(name)}</text>')
        for i, p in enumerate(phases):
            marks = cells.get((name, p), [])
            fill = colours.get(name, PALETTE[0]) if marks else "#f4f4f4"
            parts.append(f'<rect class="cell" x="{label_w + col * i}" y="{y}" width="{col - 2}" height="{row_h - 2}" '
                         f'fill="{fill}" fill-opacity="{0.35 if marks else 1}"/>')
            if marks:
                parts.append(f'<text x="{label_w + col * i + 4}" y="{y + 15}">{escape("; ".join(marks))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def vital_svg(report: Report, colours: dict[str, str]) -> str:
    series = {n: v for n, v in report.vital_series.items() if any(isinstance(x, int | float) for x in v)}
    points = max((len(v) for v in series.values()), default=1)
    values = [x for v in series.values() for x in v if isinstance(x, int | float)]
    low, high = min(0, *values) if values else 0, max(values, default=1) or 1
    left, top, plot_w, plot_h, legend = 44, 14, max(240, 90 * (points - 1)), 200, 130
    width, height = left + plot_w + 20 + legend, top + plot_h + 40

    def xy(i: int, v: float) -> tuple[float, float]:
        x = left + (plot_w * i / (points - 1) if points > 1 else plot_w / 2)
        return round(x, 1), round(top + plot_h - (v - low) / (high - low or 1) * plot_h, 1)

    title = f"{_words(report.vital)} at the end of each round"
    parts = [f'<svg class="vital" role="img" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}"><title>{escape(title)}</title>',
             f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fafafa" stroke="#ccc"/>']
    for v in dict.fromkeys((low, 0, (low + high) / 2, high)):
        _, y = xy(0, v)
        parts.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">{round(v)}</text>')
        if v == 0 and low < 0:  # where the vital figure runs out
            parts.append(f'<line x1="{left}" y1="{y}" x2="{left + plot_w}" y2="{y}" stroke="#999" stroke-dasharray="4 3"/>')
    for i in range(points):
        x, _ = xy(i, low)
        parts.append(f'<text x="{x}" y="{top + plot_h + 16}" text-anchor="middle">{"set-up" if i == 0 else i}</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{top + plot_h + 32}" text-anchor="middle">round</text>')
    for k, (name, vals) in enumerate(series.items()):
        colour = colours.get(name, PALETTE[0])
        pts = [xy(i, v) for i, v in enumerate(vals) if isinstance(v, int | float)]
        parts.append(f'<polyline class="series" fill="none" stroke="{colour}" stroke-width="2" '
                     f'points="{" ".join(f"{x},{y}" for x, y in pts)}"><title>{escape(name)}</title></polyline>')
        parts += [f'<circle cx="{x}" cy="{y}" r="3" fill="{colour}"/>' for x, y in pts]
        ly = top + 14 + 18 * k
        lx = left + plot_w + 20
        parts.append(f'<rect x="{lx}" y="{ly - 9}" width="12" height="12" fill="{colour}"/>'
                     f'<text x="{lx + 18}" y="{ly + 1}">{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def html(report: Report) -> str:
    colours = _colours(report)
    names = [f.name for f in report.figures]
    title = f"{report.encounter}: session report"
    body = [f"<h1>{escape(title)}</h1>", f'<p class="sub">{escape(_subtitle(report))}</p>',
            "<h2>Combatants</h2>", _table(*_figure_rows(report)),
            f"<h2>{escape(_first_up(_words(report.vital)))} over rounds</h2>", vital_svg(report, colours)]
    for r in report.rounds:
        body.append(f"<h2>{escape(_round_title(r))}</h2>")
        if r.spans:
            body.append(timeline_svg(r, colours))
        if r.phase_order():
            body.append(phase_grid_svg(r, names, colours))
        items = []
        for line in r.lines:
            notes = "".join(f'<div class="note">Note #{n.id}: {escape(n.text)}</div>' for n in line.notes)
            items.append(f'<li><span class="id">#{line.id}</span> {escape(line.text)}{notes}</li>')
        body.append(f"<ol>{''.join(items)}</ol>")
    if report.notes:
        body.append("<h2>Notes</h2><ul>" + "".join(
            f"<li>on #{n.about}: {escape(n.text)} <span class=\"id\">(note #{n.id})</span></li>" for n in report.notes
        ) + "</ul>")
    body += ["<h2>Final state</h2>", f"<pre>{escape(render_state(report.final))}</pre>"]
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
