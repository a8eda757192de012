"""The `skirmish` commands that settle disputes: explain, why, diff, amend (verify is in main)."""

from __future__ import annotations

import shlex
from typing import Annotated, Any

import typer

from skirmish.cli import complete
from skirmish.cli.app import JsonOpt, command, invocation, parse_command, print_json, say
from skirmish.projections.text.board import cell

# skirmish.projections.audit (and write.amend) is imported by each command that needs it: a command at the
# table does not pay for it.


@command(reads=True)
def explain(
    ctx: typer.Context,
    event: Annotated[int, typer.Argument(help="The event whose numbers to explain (see `skirmish log`).")],
    as_json: JsonOpt = False,
) -> None:
    """Every number of an event with its derivation: dice faces, modifiers, formula, rule."""
    from skirmish.projections.audit.explain import explain as explain_event
    from skirmish.projections.text.narration import explain_lines

    data = explain_event(invocation(ctx).encounter(), event)
    if as_json:
        print_json(data)
        return
    for line in explain_lines(data):
        say(line)


@command(reads=True)
def why(
    ctx: typer.Context,
    who: Annotated[str, typer.Argument(help="The combatant.", autocompletion=complete.combatants)],
    figure: Annotated[str | None, typer.Argument(help="A figure as `skirmish state` labels it, e.g. \"hits left\" (default: every changed one).")] = None,
    as_json: JsonOpt = False,
    limit: Annotated[int | None, typer.Option(help="How many of each figure's latest changes (default 20; 0: every one).")] = None,
) -> None:
    """The events that made a combatant's figure what it is, from the cause through every tick."""
    from skirmish.eventlog.errors import BadInput
    from skirmish.projections.audit.why import WHY_LIMIT, ChangeLink, why as why_figure

    if limit is not None and limit < 0:
        raise BadInput(f"--limit takes 0 (every change) or more, not {limit}")
    shown = WHY_LIMIT if limit is None else (limit or None)
    data = why_figure(invocation(ctx).encounter(), who, figure, shown)
    if as_json:
        print_json(data)
        return
    if not data.figures:
        say(f"{data.who}: every figure is at its starting value (branch {data.branch}, at #{data.at})")
    for f in data.figures:
        name = f.figure.replace("_", " ")
        say(f"{data.who} {name}: {cell(f.start)} at the start, now {cell(f.now)} "
                   f"(branch {data.branch}, at #{data.at})")
        for link in f.chain:
            change = f"   {cell(link.before)} -> {cell(link.after)}" if isinstance(link, ChangeLink) else "   (cause)"
            say(f"  #{link.id:<5} {link.description}{change}")
            say(f"         by `{link.command}`")
        if f.earlier:
            say("  (earlier changes not shown: --limit N for more, --limit 0 for every one)")


@command(reads=True)
def diff(
    ctx: typer.Context,
    a: Annotated[str, typer.Argument(help="A branch name or an event id.")],
    b: Annotated[str, typer.Argument(help="A branch name or an event id.")],
    as_json: JsonOpt = False,
) -> None:
    """What differs between two branches or events, figure by figure, and where they split."""
    from skirmish.projections.audit.diff import diff as diff_moments

    data = diff_moments(invocation(ctx).encounter(), a, b, listed=as_json)
    if as_json:
        print_json(data)
        return
    ea, eb = data.a, data.b
    say(f"{ea.name} (#{ea.at}) and {eb.name} (#{eb.at}) split after "
               f"#{data.split.id} {data.split.description}")
    for side, only in ((ea, data.after_split.a), (eb, data.after_split.b)):
        span = f": #{only.first} .. #{only.last}" if only.count else ""
        say(f"  {only.count} event(s) only on {side.name}{span}")
    for s in data.scene:
        say(f"{s.figure}: {_short(s.a)} | {_short(s.b)}")
    for c in data.combatants:
        if c.only_in is not None:
            say(f"{c.name}: only on {c.only_in}")
            continue
        say(f"{c.name}:")
        for f in c.figures:
            say(f"  {f.figure.replace('_', ' ')}: {cell(f.a)} | {cell(f.b)}")
    if not data.scene and not data.combatants:
        say("no figure differs")


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {cell(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "; ".join(_short(v) for v in value) or "-"
    return cell(value)


@command()
def amend(
    ctx: typer.Context,
    event: Annotated[int, typer.Argument(help="An event of the current branch; its command is replaced.")],
    new_command: Annotated[list[str], typer.Argument(metavar="-- NEW COMMAND", help="The command that should have been typed.")],
    branch: Annotated[str | None, typer.Option(help="Name of the new branch (default: amend-EVENT).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Fix the past: replace the command behind EVENT and decide every later one again, on a new branch."""
    from skirmish.projections.write.amend import amend as amend_branch

    replacement = parse_command(invocation(ctx), new_command)
    invocation(ctx).records = True
    enc = invocation(ctx).encounter()
    done = amend_branch(enc, event, replacement, shlex.join(new_command), branch, invocation(ctx).text)
    if as_json:
        print_json(done.to_json())
        return
    say(f"Branch {done.branch!r} starts at #{done.at}; {done.original!r} stays as it was")
    for step in done.steps:
        old = f"#{step.old[0]}" + (f"..#{step.old[-1]}" if len(step.old) > 1 else "")
        if step.skipped is not None:
            say(f"  skipped {old} `{step.text}`: {step.skipped}")
            continue
        new = f"#{step.new[0].id}" + (f"..#{step.new[-1].id}" if len(step.new) > 1 else "")
        say(f"  {old} -> {new} `{step.text}`")
    skipped = sum(s.skipped is not None for s in done.steps)
    say(f"{len(done.steps) - skipped} command(s) decided again, {skipped} skipped: "
               f"`skirmish diff {shlex.quote(done.original)} {shlex.quote(done.branch)}` shows what changed, "
               f"`skirmish switch {shlex.quote(done.branch)}` plays on")
