"""The sentences the GM's page shows about its board, made here from the typed view so the
page's script composes none: the clock line, where the board stands, each pending action.

The server puts :func:`board_lines` of each frame's board in the frame beside it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from skirmish.projections.text.board import clock_label, effect_text
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


# A mark beside each status's word on a card: a character dying at 0 HP ("down") reads
# apart from a dead one, in words and mark, never by colour alone.
STATUS_MARKS = {"fighting": "", "down": "\u25bc", "out": "\u25cc", "dead": "\u2020", "left": "\u2192"}


class Chip(msgspec.Struct, frozen=True, kw_only=True):
    """An effect on a card: its mark (the ruleset's, "" without one) and its words as the
    board says them; ``kind``: the effect the GM ends by tapping it ("" when it is no effect
    of the ruleset's or the GM's: death saves, temporary HP, ...)."""

    mark: str
    said: str
    kind: str = ""


class Card(msgspec.Struct, frozen=True, kw_only=True):
    """What a combatant's card on the GM's page says beside its name and gauge."""

    status: str  # its status with its mark: "\u25bc down", "\u2020 dead"
    figures: tuple[str, ...]  # the ruleset's own figures a card shows, labelled: "AC 14", "init 17"
    chips: tuple[Chip, ...]
    tags: tuple[str, ...]  # "hidden", "private note", "2 notes"
    hidden: bool


def _figure(label: str, value: object) -> str:
    if value is True:
        return label
    return f"{label} {value}"


def _marked(marks: Mapping[str, str], kind: str) -> str:
    return marks.get(kind) or marks.get(kind.split(" ")[0], "")


def cards(board: Shown, ruleset: Any, hidden: frozenset[str]) -> dict[str, Card]:
    """Each combatant's card: its status, the figures its ruleset's own part marks for a
    card (its ``card`` labels), its effects with their marks (the ruleset's ``marks``), and
    whether it is hidden from the players or has notes."""
    marks: Mapping[str, str] = getattr(ruleset, "marks", {})
    known = set(getattr(ruleset, "effects", {}))
    out: dict[str, Card] = {}
    for f in board.combatants:
        labels: Mapping[str, str] = getattr(type(f.own), "card", {})
        figures = tuple(_figure(label, value) for key, label in labels.items()
                        if (value := getattr(f.own, key, None)) not in (None, "", False))
        chips = []
        for e in f.effects:
            kind = e.kind if e.custom or e.kind in known else next((k for k in known if e.kind.startswith(k + " ")), "")
            chips.append(Chip(mark="" if e.custom else _marked(marks, e.kind), said=effect_text(e), kind=kind))
        notes = board.notes.get(f.name, ())
        private = sum(1 for n in notes if n.private)
        tags = ["hidden"] if f.name in hidden else []
        if private:
            tags.append("private note" if private == 1 else f"{private} private notes")
        if len(notes) > private:
            tags.append("note" if len(notes) - private == 1 else f"{len(notes) - private} notes")
        out[f.name] = Card(status=(STATUS_MARKS.get(f.status, "") + " " + f.status).strip(), figures=figures,
                           chips=tuple(chips), tags=tuple(tags), hidden=f.name in hidden)
    return out
