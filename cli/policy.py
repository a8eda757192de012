"""The commands about what the players' screens show: hide, reveal, bands (projections/policy.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from skirmish.cli import complete
from skirmish.cli.app import command
from skirmish.eventlog import commands as c
from skirmish.eventlog.errors import BadInput

Who = Annotated[str, typer.Argument(help="The combatant.", autocompletion=complete.combatants)]


def _execute(ctx: typer.Context, cmd: c.Command) -> None:
    from skirmish.cli.main import _execute as execute  # main registers this module at its end

    execute(ctx, cmd)


@command()
def hide(ctx: typer.Context, who: Who) -> None:
    """Hide WHO from the players' screens (it stays on the GM's board, marked hidden) until `reveal`."""
    _execute(ctx, c.Hide(who=who))


@command()
def reveal(ctx: typer.Context, who: Who) -> None:
    """Show a hidden WHO on the players' screens from now on."""
    _execute(ctx, c.Reveal(who=who))


@command()
def bands(
    ctx: typer.Context,
    full: Annotated[str, typer.Argument(help="The label of a foe at full, e.g. unhurt.")],
    band: Annotated[list[str], typer.Argument(help="LABEL=PERCENT: a foe at or below PERCENT % of its full vital figure (one at 100).")],
) -> None:
    """Choose the health bands the players see for foes, e.g. `bands fresh scratched=100 bloodied=50 "near death"=15`."""
    chosen: list[tuple[str, int]] = []
    for word in band:
        label, sep, percent = word.rpartition("=")
        if not sep or not label.strip():
            raise BadInput(f"a band is LABEL=PERCENT, not {word!r}")
        try:
            chosen.append((label, int(percent)))
        except ValueError:
            raise BadInput(f"band {label!r} takes a whole percent, not {percent!r}") from None
    _execute(ctx, c.ChooseBands(full=full, bands=tuple(chosen)))
