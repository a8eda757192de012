"""`skirmish play`: the GM's console, a full-screen terminal app (Textual) on the same
database and the same commands as the command line.

The screen, top to bottom: where the table is (encounter, branch, the moment, who acts
now and next; marked PAST while stepping back), the board (combatants in acting order
with status, a bar of the vital figure, budget and effects; what the last command changed
in reverse video), the pending actions, the timeline of the branch, the replies, and the
command line. The work is cli/session.py's; this module draws it and takes the keys.

Only `play` imports this module (and Textual with it): every other command starts as
fast without it.
"""

from __future__ import annotations

import re
import shlex
import textwrap
import time
from collections.abc import Iterable
from typing import Any

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Footer, Input, RichLog, Static

from skirmish.cli.session import REFUSED, Completer, Outcome, Session
from skirmish.eventlog.errors import SkirmishError
from skirmish.eventlog.text import escape_controls
from skirmish.projections.policy import hidden_at
from skirmish.projections.text.board import cell, clock_label, effect_text, who_acts, wrap_list
from skirmish.projections.view import Combatant, Gauge, Shown, second_gauge

BAR = 6  # cells of the vital figure's bar


def safe(text: str) -> str:
    """Text from the log as the screen may show it: escapes, bidi overrides, zero-width
    characters and line breaks shown as visible codes, never sent raw (eventlog/text.py,
    the one policy for free text)."""
    return escape_controls(text)


_SHELL_ADVICE = re.compile(r"`skirmish (?!-|(?:%s)\b)" % "|".join(REFUSED))


def as_typed_here(line: str) -> str:
    """A reply as the console says it: advice on what to type next ("`skirmish switch
    what-if` to play on it") names the command as the console takes it, without the
    `skirmish` the shell needs. What only a shell runs (`skirmish run FILE`, `--db`) keeps it."""
    return _SHELL_ADVICE.sub("`", line)


def bar(c: Combatant, gauge: Gauge | None = None) -> str:
    """The vital figure (or another gauge of the combatant's) as a bar and numbers, readable
    without colour: "####.. 25/30"."""
    shown = c.vital if gauge is None else gauge
    value, most = shown.value, shown.maximum
    if not most or most <= 0:
        return str(value)
    filled = max(0, min(BAR, round(BAR * value / most)))
    if value > 0 and filled == 0:
        filled = 1  # standing with a sliver left is not an empty bar
    return "#" * filled + "." * (BAR - filled) + f" {value}/{most}"


HIDDEN = " (hidden)"  # after the name of a combatant hidden from the players (`hide`, `add --hidden`)


def _row(c: Combatant, second: bool = False, noted: bool = False, hidden: bool = False) -> list[str]:
    """The board's cells of a combatant; ``second``: the board has a second gauge's column
    (crisis's Endurance, Combatant.vital2); ``noted``: the GM has notes on it (marked *);
    ``hidden``: the players' screens do not show it (marked HIDDEN, as `state` lists it)."""
    extra = [bar(c, c.vital2) if isinstance(c.vital2, Gauge) else "-"] if second else []
    return [
        ">" if c.acting else "",
        safe(c.name + (" *" if noted else "")) + (HIDDEN if hidden else ""),
        safe(c.side),
        c.status,
        bar(c),
        *extra,
        cell(c.budget),
        safe(", ".join(effect_text(e) for e in c.effects) or "-"),
    ]


EFFECTS_ROOM = 22  # what the board's effects column keeps beside long names: "bleeding (2 a round)"
EFFECTS_LINES = 3  # a combatant's effects take at most this many rows of the board


def middle_cut(name: str, width: int) -> str:
    """A name cut to ``width`` in its middle, keeping its end: "Goblin sk…r 12" and
    "Goblin sk…r 13" stay two goblins."""
    if len(name) <= width:
        return name
    tail = min(4, width // 3)
    return name[: width - tail - 1] + "…" + name[-tail:]


def effect_lines(effects: str, width: int) -> list[str]:
    """A combatant's effects in lines of ``width``, broken between effects; past
    EFFECTS_LINES the last line ends in an ellipsis, so a pile of effects never pushes
    the other combatants off the board (the command line's `state` shows them all)."""
    lines = wrap_list(effects, width)
    if len(lines) <= EFFECTS_LINES:
        return lines
    last = lines[EFFECTS_LINES - 1]
    return [*lines[:EFFECTS_LINES - 1], (last if len(last) < width else last[:width - 1]) + "…"]


def board(shown: Shown, before: Shown | None, width: int = 80, hidden: frozenset[str] = frozenset(),
          hidden_before: frozenset[str] = frozenset()) -> Table:
    """The combatants in acting order; cells that differ from ``before`` (the board
    before the last command) in reverse video. Name and side are as wide as they are; a
    name too long to leave the effects EFFECTS_ROOM of ``width`` is cut in its middle
    (never shorter than 12), its HIDDEN mark beside it, whole (``hidden``: the combatants hidden
    from the players, projections/policy.py hidden_at); the effects take the rest of the
    row and wrap under themselves, never cut."""
    table = Table(box=None, expand=True, pad_edge=False, padding=(0, 1), show_edge=False)
    first = shown.combatants[0] if shown.combatants else None
    vital = first.vital.name if first else "vital"
    second = second_gauge(shown)
    budget = f"{first.budget.name} left" if first else "budget"
    rows = [_row(c, bool(second), c.name in shown.notes, c.name in hidden) for c in shown.combatants]
    last = len(rows[0]) - 1 if rows else 6  # the effects' column (a second gauge moves it)

    def widest(column: int, header: str, least: int = 0) -> int:
        return max([least, len(header), *(len(r[column]) for r in rows)])

    # The marker, side, status, vital (and second gauge) and budget columns, and a space either side of each.
    gauges = widest(4, vital, 10) + (widest(5, second, 10) + 2 if second else 0)
    fixed = 1 + min(14, widest(2, "side")) + widest(3, "status", 8) + gauges + widest(last - 1, budget, 7) + 12
    name = max(12, min(24, width - fixed - EFFECTS_ROOM))
    # The mark is room beside the name's, not cut from it (the effects give it up).
    marked = len(HIDDEN) if any(c.name in hidden for c in shown.combatants) else 0
    room = max(12, width - fixed - min(name + marked, widest(1, "name")))
    columns: list[tuple[str, dict[str, Any]]] = [
        ("", {"width": 1, "no_wrap": True}),
        ("name", {"no_wrap": True, "overflow": "ellipsis", "max_width": name + marked}),
        ("side", {"no_wrap": True, "overflow": "ellipsis", "max_width": 14}),
        ("status", {"no_wrap": True, "min_width": 8}),
        (vital, {"no_wrap": True, "min_width": 10}),
        *([(second, {"no_wrap": True, "min_width": 10})] if second else []),
        (budget, {"no_wrap": True, "min_width": 7}),
        ("effects", {"overflow": "fold", "ratio": 1, "min_width": 12}),
    ]
    for header, options in columns:
        table.add_column(safe(header), header_style="bold underline", **options)
    # The cells a column holds are compared with those before: a second gauge that came or
    # went moves the columns, so every cell then counts as changed.
    had_second = before is not None and second_gauge(before) == second
    old = ({c.name: _row(c, bool(second), c.name in before.notes, c.name in hidden_before) for c in before.combatants}
           if before is not None and had_second else {})
    for c, row in zip(shown.combatants, rows, strict=True):
        was = old.get(c.name)
        styled = []
        for i, value in enumerate(row):
            changed = before is not None and i > 0 and (was is None or was[i] != value)
            style = "reverse" if changed else ("bold" if c.acting else "")
            if c.status != "fighting" and not changed:
                style = "dim"
            if i == 1 and c.name in hidden:
                value = middle_cut(value[:-len(HIDDEN)], name) + HIDDEN
            elif i == 1:
                value = middle_cut(value, name)
            elif i == last:
                value = "\n".join(effect_lines(value, room))
            styled.append(Text(value, style=style))
        table.add_row(*styled)
    return table


def where_lines(shown: Shown, past: bool) -> Text:
    where = f"branch {shown.branch}" if shown.branch else "on no branch (undone)"
    top = Text()
    if past:
        top.append(f" PAST #{shown.at} ", style="reverse bold")
        top.append(f" (now #{shown.head}, Esc) ", style="bold")
    if shown.ended is not None:
        top.append(f" ENDED #{shown.ended.event} ", style="reverse bold")
        top.append(" ")
    top.append(safe(f"{shown.encounter} ({shown.ruleset}), {where}, at #{shown.at}"))
    top.append("\n")
    top.append(safe(f"{clock_label(shown.clock)}; {who_acts(shown.clock)}"), style="bold")
    return top


PENDING_LINES = 2  # the pending actions' rows on the board


def pending_text(shown: Shown, width: int = 80) -> Text:
    """The pending actions in at most PENDING_LINES rows of ``width``: what does not fit
    ends in "…" and says how many more are pending, rather than vanishing at the edge."""
    parts = []
    for p in shown.pending:
        extra = [f"on {p.target}"] if p.target else []
        extra += [p.resolves] if p.resolves else []
        parts.append(safe(f"{p.who} {p.action}" + (f" ({', '.join(extra)})" if extra else "")))
    notes = [f"{name}: {n.text}" for name, ns in shown.notes.items() for n in ns]
    noted = safe(f" | * {'; '.join(notes)}") if notes else ""
    text = "pending: " + ("; ".join(parts) if parts else "-") + noted
    lines = textwrap.wrap(text, width)
    if len(lines) > PENDING_LINES:
        room = width - len("… (99 more: `state`)")
        lines = lines[:PENDING_LINES - 1] + [lines[PENDING_LINES - 1][:max(0, room)].rstrip()]
        visible = " ".join(lines)
        more = sum(1 for part in parts if part not in visible)  # one cut short counts too
        lines[-1] += f"… ({more} more: `state`)"
    return Text("\n".join(lines))


class LineSuggester(Suggester):
    """The first completion of the half-typed line, shown after the cursor (Tab or the
    right arrow takes it)."""

    def __init__(self, completer: Completer) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.completer = completer

    async def get_suggestion(self, value: str) -> str | None:
        found = self.completer.candidates(value)
        return found[0] if found and found[0] != value else None


class CommandLine(Input):
    """The command line: Up and Down walk the history (this encounter's commands first).

    The console's keys are bound here and run as the line receives them, in turn with the
    letters typed around them: a binding otherwise runs when its key has bubbled up to the
    app, after letters typed later (a burst "O<Tab>5" would complete "O5")."""

    BINDINGS = [
        Binding("up", "older", show=False),
        Binding("down", "newer", show=False),
        Binding("ctrl+n", "app.command('next')", "next"),
        Binding("ctrl+z", "app.command('undo')", "undo"),
        Binding("ctrl+y", "app.command('redo')", "redo"),
        Binding("pageup", "app.step(-1)", "back", key_display="PgUp"),
        Binding("pagedown", "app.step(1)", "forward", show=False),
        Binding("escape", "app.present", "now", show=False),
        Binding("ctrl+b", "app.branch_here", "branch"),
        Binding("ctrl+t", "app.next_branch", "switch"),
        Binding("ctrl+o", "app.explain", "explain"),
        Binding("tab", "app.complete", "complete", show=False),
        Binding("enter", "submit", "run", show=False),
    ]

    def __init__(self, history: Iterable[str], *, id: str, placeholder: str,  # noqa: A002 - Textual's name
                 suggester: Suggester) -> None:
        super().__init__(id=id, placeholder=placeholder, suggester=suggester)
        self.history = list(history)
        self.back = 0  # how far back in the history the line is; 0: what is being typed
        self.typed = ""

    async def _on_key(self, event: events.Key) -> None:
        action = _ACTIONS.get(event.key)
        if action is None:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        await self.run_action(action)

    def remember(self, line: str) -> None:
        if line and (not self.history or self.history[-1] != line):
            self.history.append(line)
        self.back = 0

    def action_older(self) -> None:
        if self.back < len(self.history):
            if self.back == 0:
                self.typed = self.value
            self.back += 1
            self.value = self.history[-self.back]
            self.cursor_position = len(self.value)

    def action_newer(self) -> None:
        if self.back > 0:
            self.back -= 1
            self.value = self.history[-self.back] if self.back else self.typed
            self.cursor_position = len(self.value)


class Timeline(Static):
    """The branch's events, as many as fit: drawn again when its height changes."""

    def on_resize(self) -> None:
        console = self.app
        if isinstance(console, Console) and console.shown is not None:
            console._draw_timeline()


_ACTIONS = {key: b.action for b in CommandLine.BINDINGS if isinstance(b, Binding) for key in b.key.split(",")}


class Explained(ModalScreen[None]):
    """The log line and `explain` of one event, over the board: Esc or Enter closes it."""

    CSS = """
    Explained { align: center middle; }
    #explained { width: 100%; height: auto; max-height: 100%; border: solid $secondary; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,enter,ctrl+o,q", "close", "close")]

    def __init__(self, outcome: Outcome) -> None:
        super().__init__()
        self.outcome = outcome

    def compose(self) -> ComposeResult:
        text = Text()
        for line in (self.outcome.out + self.outcome.err).splitlines():
            text.append(safe(as_typed_here(line)) + "\n")
        text.append("Esc: back to the board", style="dim")
        with VerticalScroll(id="explained"):
            yield Static(text, markup=False)

    def action_close(self) -> None:
        self.dismiss()


class Console(App[None]):
    """The GM's console on one database."""

    TITLE = "skirmish"
    ENABLE_COMMAND_PALETTE = False
    # A line of the where lines, the timeline or the hint is cut at the edge, never wrapped:
    # a wrapped line would push the clock or the newest event out of sight (Textual reads
    # wrapping from these styles, not from the drawn Text's no_wrap).
    CSS = """
    Screen { layout: vertical; }
    #where { height: 2; text-wrap: nowrap; text-overflow: ellipsis; }
    #board { height: auto; max-height: 12; }
    #pending { height: auto; max-height: 2; }
    #timeline { height: 1fr; min-height: 3; text-wrap: nowrap; text-overflow: ellipsis; }
    #replies { height: 5; border-top: solid $secondary; }
    #hint { height: auto; max-height: 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    CommandLine { height: 1; border: none; padding: 0; }
    """
    BINDINGS = [Binding("ctrl+q", "quit", "quit", priority=True)]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.completer = Completer(session)
        self.cursor: int | None = None  # index into the timeline while stepping back; None: now
        self.shown: Shown | None = None
        self.before: Shown | None = None  # the board before the last command (to highlight)
        self.hidden: frozenset[str] = frozenset()  # who the players' screens do not show, on the board now
        self.hidden_before: frozenset[str] = frozenset()  # and on the board before the last command
        self.latencies: list[float] = []  # seconds from Enter to the board redrawn, per command
        self.watching = True

    def compose(self) -> ComposeResult:
        yield Static(id="where", markup=False)
        yield Static(id="board", markup=False)
        yield Static(id="pending", markup=False)
        yield Timeline(id="timeline", markup=False)
        yield RichLog(id="replies", wrap=True, markup=False, max_lines=500)
        yield Static(id="hint", markup=False)
        yield CommandLine(self.session.history(), id="line", placeholder="a command, as after `skirmish` (Tab completes)",
                          suggester=LineSuggester(self.completer))
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one(CommandLine).focus()
        self.redraw()
        self.reply(Text("Type a command as after `skirmish`: declare, resolve, damage, ... "
                        "PgUp/PgDn step through the fight."))
        self.set_interval(0.5, self.watch_file)

    # --- drawing -------------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        if self.shown is not None:
            self._draw_board()  # the name column is sized to the screen

    def redraw(self, highlight: bool = False) -> None:
        """Draw the board now (or at the timeline's cursor) and the timeline."""
        try:
            now = self.session.look()
        except SkirmishError as exc:
            self.query_one("#where", Static).update(Text(safe(str(exc))))
            return
        if self.cursor is not None and not 0 <= self.cursor < len(self.session.timeline) - 1:
            self.cursor = None
        self.before = self.shown if highlight else None
        self.hidden_before = self.hidden if highlight else frozenset()
        self.shown = now
        self.hidden = hidden_at(self.session.encounter(), now.at)
        self._draw_timeline()
        self._draw_board()

    def _draw_board(self) -> None:
        assert self.shown is not None
        cursor = self.cursor
        past = cursor is not None
        shown = self.session.view_at(self.session.timeline[cursor].id) if cursor is not None else self.shown
        self.query_one("#where", Static).update(where_lines(shown, past))
        hidden = hidden_at(self.session.encounter(), shown.at) if past else self.hidden
        self.query_one("#board", Static).update(board(shown, None if past else self.before, self.size.width,
                                                      hidden, self.hidden_before))
        self.query_one("#pending", Static).update(pending_text(shown, self.size.width))

    def _draw_timeline(self) -> None:
        """The lines of the timeline that fit, the selected one marked (">" and reverse
        video): only those are drawn, however long the branch, one row each (the CSS cuts
        a long one at the edge)."""
        widget = self.query_one("#timeline", Static)
        moments = self.session.timeline
        rows = max(widget.size.height, 3)
        at = self.cursor if self.cursor is not None else len(moments) - 1
        start = max(0, min(at - rows // 2, len(moments) - rows))
        text = Text()
        for index in range(start, min(len(moments), start + rows)):
            moment = moments[index]
            chosen = index == at
            text.append(("> " if chosen else "  ") + safe(f"#{moment.id} {moment.text}"),
                        style="reverse" if chosen else "")
            text.append("\n")
        text.rstrip()
        widget.update(text)

    def reply(self, text: Text) -> None:
        self.query_one("#replies", RichLog).write(text)

    def show_outcome(self, outcome: Outcome) -> None:
        self.reply(Text(safe(f"> {outcome.line}"), style="bold"))
        for line in outcome.out.splitlines():
            self.reply(Text(safe(as_typed_here(line))))
        for line in outcome.err.splitlines():
            self.reply(Text(safe(as_typed_here(line)), style="bold reverse" if line.startswith("Error:") else ""))
        if outcome.refused and not outcome.changed:
            self.reply(Text("Nothing was recorded: fix the line and press Enter again."))

    # --- commands ------------------------------------------------------------------------

    def run_line(self, line: str) -> Outcome:
        """Run a command line and redraw the board; the time it took is kept."""
        started = time.perf_counter()
        outcome = self.session.run(line)
        self.cursor = None
        if outcome.code == 3 and not outcome.changed:  # the log moved under the board
            self.redraw()
        else:
            self.redraw(highlight=outcome.changed)
        self.show_outcome(outcome)
        self.latencies.append(time.perf_counter() - started)
        return outcome

    def on_input_submitted(self, event: Input.Submitted) -> None:
        line = event.value.strip()
        if not line:
            return
        command_line = self.query_one(CommandLine)
        command_line.remember(line)
        self.query_one("#hint", Static).update("")
        outcome = self.run_line(line)
        if not outcome.refused:
            command_line.value = ""
        # A refusal leaves the line in place, to be fixed.

    def action_command(self, line: str) -> None:
        self.run_line(line)

    def action_complete(self) -> None:
        command_line = self.query_one(CommandLine)
        found = self.completer.candidates(command_line.value)
        hint = self.query_one("#hint", Static)
        if not found:
            hint.update("")
            return
        if len(found) == 1:
            command_line.value = found[0] + " "
            hint.update("")
        else:
            common = _common_prefix(found)
            if len(common) > len(command_line.value):
                command_line.value = common
            hint.update(Text(safe("  ".join(f.split(" ")[-1] if " " in f else f for f in found))))
        command_line.cursor_position = len(command_line.value)

    # --- time travel ---------------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        timeline = self.session.timeline
        if not timeline:
            return
        now = len(timeline) - 1
        cursor = (self.cursor if self.cursor is not None else now) + delta
        if cursor < 0:
            loaded = self.session.older()
            cursor += loaded
            if cursor < 0:
                cursor = 0
            self._draw_timeline()
        self.cursor = None if cursor >= now else cursor
        self._draw_timeline()
        self._draw_board()
        at = timeline[self.cursor] if self.cursor is not None else timeline[-1]
        self.reply(Text(safe(f"#{at.id} {at.text}") + ("  (now)" if self.cursor is None else "")))

    def action_present(self) -> None:
        if self.cursor is not None:
            self.cursor = None
            self._draw_timeline()
            self._draw_board()

    def selected(self) -> int | None:
        timeline = self.session.timeline
        if not timeline:
            return None
        return timeline[self.cursor if self.cursor is not None else -1].id

    def action_branch_here(self) -> None:
        """Start a `branch` command from the selected event: name it and press Enter."""
        event_id = self.selected()
        if event_id is None:
            return
        taken = set(self.session.encounter().branches())
        number = 1
        while f"what-if-{number}" in taken:
            number += 1
        command_line = self.query_one(CommandLine)
        command_line.value = f"branch what-if-{number} --at {event_id}"
        command_line.cursor_position = len(command_line.value)
        self.reply(Text(f"A branch from #{event_id}: edit its name if you like and press Enter."))

    def action_next_branch(self) -> None:
        enc = self.session.encounter()
        names = list(enc.branches())
        if len(names) < 2:
            self.reply(Text("Only one branch: Ctrl+B starts a what-if from the selected event."))
            return
        current = enc.branch
        following = names[(names.index(current) + 1) % len(names)]
        self.run_line(f"switch {shlex.quote(following)}")

    def action_explain(self) -> None:
        event_id = self.selected()
        if event_id is None:
            return
        outcome = self.session.run(f"explain {event_id}")
        if outcome.refused:
            self.show_outcome(outcome)
        else:
            self.push_screen(Explained(outcome))

    # --- others at the table ---------------------------------------------------------------

    def watch_file(self) -> None:
        """Follow another process's writes within a second: redraw and say what moved."""
        if not self.watching:
            return
        try:
            moved = self.session.moved()
        except SkirmishError:
            return
        if moved:
            said = self.session.what_moved()
            self.redraw(highlight=True)
            self.reply(Text(safe(said), style="italic"))

    def on_key(self, event: events.Key) -> None:
        if event.key != "tab":
            self.query_one("#hint", Static).update("")


def _common_prefix(lines: list[str]) -> str:
    first, last = min(lines), max(lines)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return first[:n]


def play(db: str, encounter: str | None = None, branch: str | None = None) -> None:
    """Open the console on ``db`` until the GM quits (Ctrl+Q): on ``encounter`` (else the
    current one) and ``branch`` (else the encounter's current one, as it moves)."""
    session = Session(db, encounter, branch)
    try:
        Console(session).run()
    finally:
        session.close()
