"""What the commands the GM types most do once their line is parsed: decide a command and
print what it recorded, undo, redo, print the state, and narrate the fight (replay).

Written against an :class:`~skirmish.cli.invocation.Invocation`, not typer's context, so the
typer app (cli/main.py) and the fast path (cli/fast.py) run the same code whichever of
them read the line.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import IO

from skirmish.cli.invocation import Invocation, echo, print_json, say, write_all
from skirmish.eventlog import commands as c
from skirmish.eventlog.text import escape_controls
from skirmish.projections.engine import Encounter, Recorded


def print_events(enc: Encounter, recorded: Sequence[Recorded], run: Invocation | None = None) -> None:
    for rec in recorded:
        say(f"#{rec.id} {enc.describe(rec)}")
    if run is not None and recorded and run.shared is None and where_matters(enc, run):
        say(f"  (on {enc.row.name!r}, branch {enc.branch!r})")


def where_matters(enc: Encounter, run: Invocation) -> bool:
    """Whether a reply should name the encounter and branch it landed on: when the file
    holds another encounter, the encounter another branch, or the shell is pinned, another
    process could have moved the table under the command (README: which table)."""
    if run.encounter_pin or run.branch_pin:
        return True
    return enc.others_here()


def execute(run: Invocation, cmd: c.Command) -> None:
    """Decide one command on the current encounter and print what it recorded; when the
    command leaves a side with nobody standing, say so (the fight goes on until the GM
    ends it)."""
    if run.capture is not None:
        run.capture.append(cmd)
        return
    run.records = True
    enc = run.encounter()
    before = enc.view().standing() if isinstance(cmd, c.AtTheTable) else {}
    print_events(enc, enc.execute(cmd, run.text or str(cmd.__struct_config__.tag)), run)
    if before:
        after = enc.view().standing()
        for side, names in after.items():
            if not names and before.get(side):
                say(f"Nobody on the {side} side is standing (the encounter goes on until you end it: `skirmish end`)")


def _stepped(enc: Encounter, positions: Sequence[int]) -> str:
    """The commands whose last events are ``positions``, as they were typed."""
    return "; ".join(f"`{enc.command(enc.event(p).command_id).text}`" for p in positions)


def undo(run: Invocation, steps: int) -> None:
    run.records = True
    enc = run.encounter()
    head = enc.head().event_id
    targets = enc.undo(steps, run.text)
    say(f"Undid {_stepped(enc, [head, *targets[:-1]])}: branch {enc.branch!r} is back at #{targets[-1]}")


def redo(run: Invocation, steps: int) -> None:
    run.records = True
    enc = run.encounter()
    targets = enc.redo(steps, run.text)
    say(f"Redid {_stepped(enc, targets)}: branch {enc.branch!r} is at #{targets[-1]}")


def state(run: Invocation, at: int | None, as_json: bool, wide: bool) -> None:
    """What is true now (or at an event); the caller holds the read transaction."""
    from skirmish.cli.gm_commands import state_json
    from skirmish.projections.policy import hidden_at, hidden_line

    enc = run.encounter()
    view = enc.view(at)
    if as_json:
        data = state_json(view)
        if hidden := hidden_at(enc, view.at):  # only when someone is: the JSON of a log without is as it was
            data["hidden"] = sorted(hidden)
        print_json(data)
    else:
        from skirmish.projections.text.board import render_state

        echo(render_state(view, wide=wide))  # lines escaped by render_state
        if line := hidden_line(enc, view.at):
            echo(escape_controls(line))


def replay(run: Invocation, from_: int | None, to: int | None, stdout: Callable[[], IO[str]]) -> None:
    """Narrate the fight step by step; the caller holds the read transaction. ``stdout``:
    the stream the narration goes to, asked for once it is written (typer's, or
    cli/invocation.py ``text_stdout``, the same stream made without typer)."""
    from skirmish.cli.progress import progress
    from skirmish.projections.notes import notes_shown
    from skirmish.projections.text.narration import replay_text

    enc = run.encounter()
    narration = replay_text(enc, notes_shown(enc), to, from_)
    if sys.stdout.isatty():
        # On the terminal the narration shows its own progress: a bar there would be
        # written over, and holding the narration until it is wiped holds all of it.
        write_all(stdout(), narration)
        return
    with progress("replay", lambda: enc.path_length(to if to is not None else enc.head().event_id)) as bar:
        write_all(stdout(), narration, bar.advance)  # an event a text: the bar counts events
