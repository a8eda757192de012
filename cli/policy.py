"""The commands about what the players' screens show: hide, reveal, bands (projections/policy.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from skirmish.cli import complete
from skirmish.cli.app import command
from skirmish.eventlog import commands as c
from skirmish.eventlog.errors import BadInput

Who = Annotated[str, typer.Argument(help="The combatant.", autocompletion=complete.combatants)]


def _door(ctx: typer.Context) -> None:
    from skirmish.cli import table
    from skirmish.cli.app import invocation

    run = invocation(ctx)
    table.run_words(run, run.words, lambda: typer.get_text_stream("stdout"))


@command()
def hide(ctx: typer.Context, who: Who) -> None:
    """Hide WHO from the players' screens (it stays on the GM's board, marked hidden) until `reveal`."""
    _door(ctx)


@command()
def reveal(ctx: typer.Context, who: Who) -> None:
    """Show a hidden WHO on the players' screens from now on."""
    _door(ctx)


@command()
def bands(
    ctx: typer.Context,
    full: Annotated[str, typer.Argument(help="The label of a foe at full, e.g. unhurt.")],
    band: Annotated[list[str], typer.Argument(help="LABEL=PERCENT: a foe at or below PERCENT % of its full vital figure (one at 100).")],
) -> None:
    """Choose the health bands the players see for foes, e.g. `bands fresh scratched=100 bloodied=50 "near death"=15`."""
    _door(ctx)
