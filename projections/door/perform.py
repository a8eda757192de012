"""A request run on an encounter, to a typed result; and the sentences that say it.

:func:`perform` is what the console and the GM's page call: it decides a fight command and
appends it, moves a head, or reads, and answers a :class:`Result` (what was recorded, the
refusal with its exit code, the head after). The sentences are made here, by the text read
models (projections/text), once for every surface: the command line prints the same ones.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Any

import msgspec

from skirmish.eventlog import commands as c
from skirmish.eventlog.errors import SkirmishError
from skirmish.projections.door import requests as r
from skirmish.projections.write.engine import Encounter, LogFile, Recorded
from skirmish.projections.text.words import event_line


class Result(msgspec.Struct, frozen=True, kw_only=True):
    """What one request did. ``kind``: "recorded" (a fight command appended ``events``),
    "moved" (undo, redo, branch, switch), "read" (an audit or a view: ``data`` is its typed
    answer as JSON), "refused" (``error``, one line, and the exit code the command line
    would give). ``lines``: the sentences saying it. ``branch`` and ``head``: where the
    table is after it."""

    kind: str
    lines: list[str] = []
    events: list[int] = []
    error: str = ""
    code: int = 0
    data: Any = None
    branch: str = ""
    head: int = 0

    @property
    def ok(self) -> bool:
        return self.kind != "refused"


def refused(error: SkirmishError | str, code: int = 2) -> Result:
    if isinstance(error, SkirmishError):
        return Result(kind="refused", error=str(error), code=error.exit_code)
    return Result(kind="refused", error=error, code=code)


def perform(log_file: LogFile, enc: Encounter, request: r.Anything, text: str) -> Result:
    """Run ``request`` on ``enc`` (``text``: the command as the log keeps it); a refusal is a
    Result, never an exception, and nothing is appended then."""
    try:
        r.check_bounds(request)
        result = _perform(log_file, enc, request, text)
    except SkirmishError as exc:
        return refused(exc)
    if result.branch:  # a switch: where it switched to
        return result
    head = enc.head()
    return msgspec.structs.replace(result, branch=head.branch, head=head.event_id)


def _perform(log_file: LogFile, enc: Encounter, request: r.Anything, text: str) -> Result:
    if isinstance(request, c.Command):
        recorded, lines = execute(enc, request, text)
        return Result(kind="recorded", lines=lines, events=[rec.id for rec in recorded])
    if isinstance(request, r.Undo):
        head = enc.head().event_id
        targets = enc.undo(request.steps, text)
        return Result(kind="moved", lines=undone_lines(enc, head, targets))
    if isinstance(request, r.Redo):
        targets = enc.redo(request.steps, text)
        return Result(kind="moved", lines=redone_lines(enc, targets))
    if isinstance(request, r.Branch):
        if request.before is not None and request.at is not None:
            from skirmish.eventlog.errors import BadInput

            raise BadInput("branch takes --at EVENT or --before EVENT, not both")
        made = enc.fork_before(request.name, request.before, text) if request.before is not None \
            else enc.fork(request.name, request.at, text)
        return Result(kind="moved", lines=[branched_line(made.branch, made.event_id)])
    if isinstance(request, r.Switch):
        now = enc.switch(request.name, text)
        return Result(kind="moved", lines=[f"On branch {now.branch!r}, at #{now.event_id}"], branch=now.branch,
                      head=now.event_id)
    with log_file.reading():
        return _read(log_file, enc, request)


def _read(log_file: LogFile, enc: Encounter, request: r.Anything) -> Result:
    from skirmish.projections.text import answers

    if isinstance(request, r.Explain):
        from skirmish.projections.audit.explain import explain
        from skirmish.projections.text.narration import explain_lines

        data: Any = explain(enc, request.event)
        return Result(kind="read", lines=explain_lines(data), data=msgspec.to_builtins(data))
    if isinstance(request, r.Why):
        from skirmish.projections.audit.why import WHY_LIMIT, why
        from skirmish.projections.text.board import none_made

        limit = answers.limit_of(request.limit, WHY_LIMIT)
        data = why(enc, request.who, request.figure, limit)
        lines = answers.why_lines(data, none_made(enc.view()))
        return Result(kind="read", lines=lines, data=msgspec.to_builtins(data))
    if isinstance(request, r.Diff):
        from skirmish.projections.audit.diff import diff

        data = diff(enc, request.a, request.b, listed=False)
        return Result(kind="read", lines=answers.diff_lines(data), data=msgspec.to_builtins(data))
    if isinstance(request, r.Verify):
        from skirmish.projections.audit.verify import verify_encounter

        done = verify_encounter(log_file, enc.row.name, enc.branch, expect=request.expect)
        done.check()
        return Result(kind="read", lines=[f"intact: {done.encounter!r}, digest {done.digest}"],
                      data={"encounter": done.encounter, "intact": True, "digest": done.digest})
    if isinstance(request, r.State):
        from skirmish.projections.gm import state_json
        from skirmish.projections.policy import hidden_line
        from skirmish.projections.text.board import render_state

        view = enc.view(request.at)
        lines = render_state(view, wide=request.wide).split("\n")
        if line := hidden_line(enc, view.at):
            lines.append(line)
        return Result(kind="read", lines=lines, data=state_json(view))
    if isinstance(request, r.Log):
        return Result(kind="read", lines=answers.log_lines(enc, request))
    if isinstance(request, r.Branches):
        heads = enc.branches()
        return Result(kind="read", lines=answers.branches_lines(enc.branch, heads),
                      data=[{"name": h.branch, "head": h.event_id, "current": h.branch == enc.branch}
                            for h in heads.values()])
    from skirmish.eventlog.errors import BadInput

    if isinstance(request, (*r.LINKS, *r.PLAYERS_OWN)):
        raise BadInput(f"`{r.tag(request)}` is `serve`'s: a player's link, or the GM's answer to one on the GM's page")
    raise BadInput(f"`{r.tag(request)}` is the command line's")


# --- the fight's commands -----------------------------------------------------------------------


def execute(enc: Encounter, command: c.Command, text: str) -> tuple[list[Recorded], list[str]]:
    """Decide and append one command; what it recorded, and the lines saying it (each event,
    then that a side has nobody standing where the command left it so: the fight goes on
    until the GM ends it; an `add` the bundled bestiary gave its stats: where they came from)."""
    at_the_table = isinstance(command, c.AtTheTable)
    before = enc.view().standing() if at_the_table else {}
    brought: list[str] = []
    if isinstance(command, c.AddCombatant) and not command.stats.keys() >= {"hp", "ac"}:
        from skirmish.projections.write.imports.bestiary import complete

        command, brought = complete(command, enc.ruleset)  # the stats used are recorded in the command
    recorded = enc.execute(command, text or r.tag(command))
    lines = [f"#{rec.id} {event_line(enc, rec)}" for rec in recorded] + brought
    if before:
        for side, names in enc.view().standing().items():
            if not names and before.get(side):
                lines.append(f"Nobody on the {side} side is standing (the encounter goes on until you end it: `skirmish end`)")
    return recorded, lines


def stepped(enc: Encounter, positions: Sequence[int]) -> str:
    """The commands whose last events are ``positions``, as they were typed."""
    return "; ".join(f"`{enc.command(enc.event(p).command_id).text}`" for p in positions)


# Up to this many commands an undo or a redo names each; past it, how many and the two ends
# (an `undo 100000` of a long fight named every command on one line of 123 KB).
NAMED_EACH = 3


def undone_lines(enc: Encounter, head: int, targets: Sequence[int]) -> list[str]:
    """What an undo that moved the head from ``head`` back over ``targets`` says."""
    undone = [head, *targets[:-1]]  # each undone command's last event, the latest first
    where = f"branch {enc.branch!r} is back at #{targets[-1]}"
    if len(undone) <= NAMED_EACH:
        return [f"Undid {stepped(enc, undone)}: {where}"]
    return [f"Undid {len(undone):,} commands: {where}",
            f"  the latest: {stepped(enc, undone[:1])} (#{undone[0]})",
            f"  the earliest: {stepped(enc, undone[-1:])} (#{undone[-1]})"]


def redone_lines(enc: Encounter, targets: Sequence[int]) -> list[str]:
    """What a redo that brought the head forward to each of ``targets`` in turn says."""
    where = f"branch {enc.branch!r} is at #{targets[-1]}"
    if len(targets) <= NAMED_EACH:
        return [f"Redid {stepped(enc, targets)}: {where}"]
    return [f"Redid {len(targets):,} commands: {where}",
            f"  the first: {stepped(enc, targets[:1])} (#{targets[0]})",
            f"  the last: {stepped(enc, targets[-1:])} (#{targets[-1]})"]


def branched_line(branch: str, at: int) -> str:
    return f"Branch {branch!r} starts at #{at}: `skirmish switch {shlex.quote(branch)}` to play on it"
