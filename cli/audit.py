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
    _door(ctx)


@command(reads=True)
def why(
    ctx: typer.Context,
    who: Annotated[str, typer.Argument(help="The combatant.", autocompletion=complete.combatants)],
    figure: Annotated[str | None, typer.Argument(help="A figure as `skirmish state` labels it, e.g. \"hits left\" (default: every changed one).")] = None,
    as_json: JsonOpt = False,
    limit: Annotated[int | None, typer.Option(help="How many of each figure's latest changes (default 20; 0: every one).")] = None,
) -> None:
    """The events that made a combatant's figure what it is, from the cause through every tick."""
    _door(ctx)


@command(reads=True)
def diff(
    ctx: typer.Context,
    a: Annotated[str, typer.Argument(help="A branch name or an event id.")],
    b: Annotated[str, typer.Argument(help="A branch name or an event id.")],
    as_json: JsonOpt = False,
) -> None:
    """What differs between two branches or events, figure by figure, and where they split."""
    _door(ctx)


def _door(ctx: typer.Context) -> None:
    from skirmish.cli import table

    run = invocation(ctx)
    table.run_words(run, run.words, lambda: typer.get_text_stream("stdout"))


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
    from skirmish.projections.write.imports.bestiary import complete

    replacement, brought = complete(replacement, enc.ruleset)  # `add Goblin`: the bestiary's stats, recorded
    done = amend_branch(enc, event, replacement, shlex.join(new_command), branch, invocation(ctx).text)
    if as_json:
        print_json(done.to_json())
        return
    say(f"Branch {done.branch!r} starts at #{done.at}; {done.original!r} stays as it was")
    for line in brought:
        say(line)
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
