"""What the commands the GM types most do once their line is parsed: decide a command and
print what it recorded, undo, redo, print the state, and narrate the fight (replay).

Written against an :class:`~skirmish.cli.invocation.Invocation`, not typer's context, so the
typer app (cli/main.py) and the fast path (cli/fast.py) run the same code whichever of
them read the line.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING

from skirmish.cli.invocation import Invocation, echo, print_json, say, write_all
from skirmish.eventlog import commands as c
from skirmish.eventlog.text import escape_controls
from skirmish.projections.write.engine import Encounter, Recorded
from skirmish.projections.text.words import event_line

if TYPE_CHECKING:
    from skirmish.projections.door import requests as r
    from skirmish.projections.door.words import Parsed


def print_events(enc: Encounter, recorded: Sequence[Recorded], run: Invocation | None = None) -> None:
    for rec in recorded:
        say(f"#{rec.id} {event_line(enc, rec)}")
    if run is not None and recorded and run.shared is None and where_matters(enc, run):
        say(f"  (on {enc.row.name!r}, branch {enc.branch!r})")


def where_matters(enc: Encounter, run: Invocation) -> bool:
    """Whether a reply should name the encounter and branch it landed on: when the file
    holds another encounter, the encounter another branch, or the shell is pinned, another
    process could have moved the table under the command (docs/database.md: Which table)."""
    if run.encounter_pin or run.branch_pin:
        return True
    return enc.others_here()


def execute(run: Invocation, cmd: c.Command) -> None:
    """Decide one command on the current encounter and print what it recorded (and that a
    side has nobody standing, where it left one so: projections/door/perform.py)."""
    from skirmish.projections.door.perform import execute as decide
    from skirmish.projections.door.requests import check_bounds

    check_bounds(cmd)
    run.records = True
    enc = run.encounter()
    recorded, lines = decide(enc, cmd, run.text)
    for line in lines[:len(recorded)]:
        say(line)
    if recorded and run.shared is None and where_matters(enc, run):
        say(f"  (on {enc.row.name!r}, branch {enc.branch!r})")
    for line in lines[len(recorded):]:
        say(line)


def undo(run: Invocation, steps: int) -> None:
    from skirmish.projections.door.perform import undone_lines

    run.records = True
    enc = run.encounter()
    head = enc.head().event_id
    targets = enc.undo(steps, run.text)
    for line in undone_lines(enc, head, targets):
        say(line)


def redo(run: Invocation, steps: int) -> None:
    from skirmish.projections.door.perform import redone_lines

    run.records = True
    enc = run.encounter()
    targets = enc.redo(steps, run.text)
    for line in redone_lines(enc, targets):
        say(line)


def state(run: Invocation, at: int | None, as_json: bool, wide: bool) -> None:
    """What is true now (or at an event); the caller holds the read transaction."""
    from skirmish.projections.gm import state_json
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


# --- every command of the one parser (projections/door/words.py), as the command line runs it ---


def run_words(run: Invocation, words: Sequence[str], stdout: Callable[[], IO[str]]) -> None:
    """Parse a command's words with the one parser and run it as the command line does:
    what it recorded, or its answer, printed here (``stdout``: the replay's stream)."""
    from skirmish.projections.door import words as w

    parsed = w.parse(words, lambda: ruleset_of(run))
    run_parsed(run, parsed, stdout)


def ruleset_of(run: Invocation) -> object:
    """The encounter's ruleset, for the flags of its own a line holds (None: no encounter)."""
    from skirmish.eventlog.errors import SkirmishError

    try:
        return run.encounter().ruleset
    except SkirmishError:
        return None


def run_parsed(run: Invocation, parsed: Parsed, stdout: Callable[[], IO[str]]) -> None:
    from skirmish.projections.door import requests as r

    request, shown = parsed.request, parsed.shown
    as_json = shown["as_json"]
    if isinstance(request, c.Command):
        execute(run, request)
    elif isinstance(request, r.Undo):
        undo(run, request.steps)
    elif isinstance(request, r.Redo):
        redo(run, request.steps)
    elif isinstance(request, r.Branch):
        branch(run, request)
    elif isinstance(request, r.Switch):
        switch(run, request.name)
    elif isinstance(request, r.Verify):
        verify(run, request.expect, as_json)
    else:
        with run.log_file().reading():
            if isinstance(request, r.State):
                state(run, request.at, as_json, shown["wide"])
            elif isinstance(request, r.Replay):
                replay(run, request.start, request.to, stdout)
            else:
                read(run, request, as_json)


def branch(run: Invocation, request: r.Branch) -> None:
    from skirmish.eventlog.errors import BadInput
    from skirmish.projections.door.perform import branched_line

    run.records = True
    enc = run.encounter()
    name, at, before = request.name, request.at, request.before
    if before is not None and at is not None:
        raise BadInput("branch takes --at EVENT or --before EVENT, not both")
    head = enc.fork_before(name, before, run.text) if before is not None else enc.fork(name, at, run.text)
    say(branched_line(head.branch, head.event_id))


def switch(run: Invocation, name: str) -> None:
    run.records = True
    head = run.encounter().switch(name, run.text)
    say(f"On branch {head.branch!r}, at #{head.event_id}")
    if note := run.pinned_note(head.branch, "branch"):
        say(note)


def verify(run: Invocation, expect: str | None, as_json: bool, rebuild_snapshots: bool = False) -> None:
    from skirmish.projections.audit.verify import verify_encounter

    result = verify_encounter(
        run.log_file(), run.encounter_pin, run.branch_pin, expect=expect, rebuild_snapshots=rebuild_snapshots,
        dropped=lambda count: say(f"dropped {count} cached state(s); they are folded again as commands read"),
    )
    result.check()
    if as_json:
        print_json({"encounter": result.encounter, "intact": True, "digest": result.digest})
        return
    say(f"intact: {result.encounter!r}, digest {result.digest}")


def read(run: Invocation, request: object, as_json: bool) -> None:
    """explain, why, diff, log and branches, as the command line prints them; the caller
    holds the read transaction."""
    from skirmish.projections.door import requests as r
    from skirmish.projections.text import answers

    enc = run.encounter()
    if isinstance(request, r.Explain):
        from skirmish.projections.audit.explain import explain as explain_event
        from skirmish.projections.text.narration import explain_lines

        explained = explain_event(enc, request.event)
        data: object = explained
        lines = explain_lines(explained)
    elif isinstance(request, r.Why):
        from skirmish.projections.audit.why import WHY_LIMIT, why as why_figure

        from skirmish.projections.text.board import none_made

        data = why_figure(enc, request.who, request.figure, answers.limit_of(request.limit, WHY_LIMIT))
        lines = answers.why_lines(data, none_made(enc.view()))
    elif isinstance(request, r.Diff):
        from skirmish.projections.audit.diff import diff as diff_moments

        data = diff_moments(enc, request.a, request.b, listed=as_json)
        lines = answers.diff_lines(data)
    elif isinstance(request, r.Branches):
        heads = enc.branches()
        data = [{"name": h.branch, "head": h.event_id, "moves": h.seq, "current": h.branch == enc.branch}
                for h in heads.values()]
        lines = answers.branches_lines(enc.branch, heads)
    else:
        assert isinstance(request, r.Log), request  # run_parsed sends the reads here, log the last
        log(run, request, as_json)
        return
    if as_json:
        print_json(data)
        return
    for line in lines:
        say(line)


def log(run: Invocation, request: r.Log, as_json: bool) -> None:
    """The current branch's last events (a page), or every event of the tree (``every``)."""
    import json
    from collections.abc import Iterable, Iterator

    from skirmish.eventlog.errors import BadInput
    from skirmish.eventlog.text import json_safe
    from skirmish.projections.notes import notes_shown
    from skirmish.projections.text.answers import LOG_PAGE
    from skirmish.projections.text.narration import head_move_line, log_line, note_lines

    limit, from_, all_ = request.limit, request.start, request.every
    if limit is not None and limit < 0:
        raise BadInput(f"--limit takes 0 (every event) or more, not {limit}")
    if all_ and (limit is not None or from_ is not None):
        raise BadInput("log --all lists the whole tree; --limit and --from page the current branch")
    enc = run.encounter()
    now = enc.branch
    listed: Iterable[tuple[Recorded, list[str]]]
    if all_:
        listed = enc.every_event()
        notes = notes_shown(enc)
    else:
        size = LOG_PAGE if limit is None else (limit or None)  # 0: the whole branch
        page, records = enc.log_page(size, from_)
        listed = [(rec, [now]) for rec in records]
        notes = notes_shown(enc, [rec.id for rec in records])
        if page.before and not as_json:
            echo(f"({page.before:,} earlier event(s) of branch {now!r}: --limit N, --from EVENT, or --limit 0 for all)")

    def lines() -> Iterator[str]:
        for rec, on in listed:
            if as_json:
                line = rec.to_json()
                if all_:
                    line["branches"] = on
                    line["undone"] = not on
                if rec.id in notes:
                    line["notes"] = [{"id": n.id, "text": n.text} for n in notes[rec.id]]
                yield json_safe(json.dumps(line, ensure_ascii=False))
            else:
                yield log_line(enc, rec, on if all_ else None, now)
                if rec.id in notes:
                    yield from note_lines(notes[rec.id])
        if not all_ and page.after and not as_json:
            yield f"({page.after:,} later event(s): --from {records[-1].id + 1 if records else from_} for the next page)"
        if all_ and not as_json:
            yield "head moves:"
            yield from (head_move_line(m) for m in enc.head_moves())

    from skirmish.cli.invocation import text_stdout

    write_all(text_stdout(), lines())
