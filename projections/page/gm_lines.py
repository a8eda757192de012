"""The sentences the GM's page shows about its board, made here from the typed view so the
page's script composes none: the clock line, where the board stands, each pending action.

The server puts :func:`board_lines` of each frame's board in the frame beside it."""

from __future__ import annotations

import msgspec

from skirmish.projections.text.board import clock_label
from skirmish.projections.view import Clock, Pending, Shown


class BoardLines(msgspec.Struct, frozen=True, kw_only=True):
    clock: str  # "Round 1, count 35. Now: Hauser. Next: Orc."
    where: str  # "Bridge (ap-countdown), branch main, #7"
    pending: tuple[str, ...]  # "Hauser: melee-attack at Orc, resolves 15"; none: ("none",)


def clock_line(clock: Clock) -> str:
    """The moment as the state's first line says it (text/board.py ``clock_label`` and
    ``who_acts``), in sentences: nobody acting, no "Now"; a round under way with nobody
    after, "Next: the end of the round."."""
    label = clock_label(clock)
    line = label[:1].upper() + label[1:] + "."
    if clock.now:
        line += f" Now: {', '.join(clock.now)}."
    if clock.next:
        line += f" Next: {', '.join(clock.next)}."
    elif clock.running:
        line += f" Next: the end of the {clock.unit}."
    return line


def pending_line(p: Pending) -> str:
    return p.who + ": " + p.action + (f" at {p.target}" if p.target else "") + (f", resolves {p.resolves}" if p.resolves else "")


def board_lines(board: Shown) -> BoardLines:
    return BoardLines(
        clock=clock_line(board.clock),
        where=f"{board.encounter} ({board.ruleset}), branch {board.branch}, #{board.head}",
        pending=tuple(pending_line(p) for p in board.pending) or ("none",),
    )


def held_lines(held: dict[str, list[str]]) -> tuple[str, ...]:
    """What the players' links hold for the GM's next roll, a sentence a character: faces
    held under the character's own name are their initiative (cli/gm_server.py decides them
    so), the rest by the key typed: "Ann's phone holds: initiative, save:Ann"."""
    return tuple(f"{who}'s phone holds: " + ", ".join("initiative" if key.casefold() == who.casefold() else key for key in keys)
                 for who, keys in held.items() if keys)
