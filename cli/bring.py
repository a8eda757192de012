"""Bringing combatants in from the command line: `add --from` a stat block file, `new --carry`
an earlier encounter's party, `new --from` a saved fight (projections/write/imports/bring.py and
projections/write/carry.py do the work). Each source is read whole before anything is recorded;
a new encounter and its combatants are recorded in one transaction: all of them, or none."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import typer

from skirmish.eventlog.commands import Carry, Command
from skirmish.eventlog.errors import BadInput
from skirmish.projections.ruleset import Ruleset
from skirmish.projections.text.words import event_line


def add_imported(ctx: typer.Context, entry: Any, ruleset: Ruleset[Any], side: str | None, typed: dict[str, str],
                 count: int, hp: str, faces: Mapping[str, tuple[int, ...]], hidden: bool = False) -> None:
    """`add NAME --from FILE.json` (``hidden``: `--hidden`): a line for each field not mapped,
    then the command."""
    from skirmish.cli import table
    from skirmish.cli.app import invocation, say
    from skirmish.projections.write.imports.bring import add_from

    brought = add_from(entry, ruleset, side, typed, count, hp, faces, hidden=hidden)
    for line in brought.lines:
        say(line)
    for command in brought.commands:
        table.execute(invocation(ctx), command)


def new_with(run: Any, name: str, rules: str, options: dict[str, str], seed: int | None, carry: str | None,
             who: Sequence[str], path: Path | None, fight: str, stats: dict[str, str]) -> None:
    """`new NAME --carry PREVIOUS` or `new NAME --from FILE`: the source read whole, then the
    encounter, one command a combatant and, for a fight in progress, its `resume`, in one
    transaction."""
    from skirmish.cli.app import say
    from skirmish.projections.ruleset import get_ruleset

    if carry is not None and path is not None:
        raise BadInput("a new encounter takes --carry or --from, not both")
    if who and carry is None:
        raise BadInput("--who goes with --carry")
    if stats and path is None:
        raise BadInput("--stat on `new` goes with --from (each combatant's stats otherwise come with `add`)")
    ruleset = get_ruleset(rules)
    log_file = run.log_file(create=True)
    commands: Sequence[Command]
    if carry is not None:
        from skirmish.projections.write.carry import carry_from

        earlier = log_file.open(carry)
        if earlier.ruleset.id != ruleset.id:
            raise BadInput(f"encounter {earlier.row.name!r} is played under {earlier.ruleset.id}: its stats do not "
                           f"hold under {ruleset.id}")
        commands, lines = carry_from(earlier, who)
    else:
        from skirmish.projections.write.imports.bring import saved_fight

        assert path is not None
        brought = saved_fight(path, fight, ruleset, stats)
        commands, lines = brought.commands, brought.lines
    with log_file.batch():
        enc = log_file.new(name, ruleset.id, options, run.text, seed)
        first = enc.path(enc.head().event_id)[0]
        out = [f"#{first.id} {event_line(enc, first)}"]
        for command in commands:
            if path is not None and isinstance(command, Carry):
                from skirmish.projections.write.imports.bring import tags_that_hold

                command, refused = tags_that_hold(enc, command)
                lines += refused
            out += [f"#{rec.id} {event_line(enc, rec)}" for rec in enc.execute(command, run.text)]
    for line in [*lines, *out]:
        say(line)
    say(f"Encounter {enc.row.name!r} is now current in {run.db}")
