"""The command line's side of what GMs expect (`note --on`, `roll`, `state --json`'s extras):
arguments turned into commands, kept out of cli/main.py."""

from __future__ import annotations

from typing import Any


from skirmish.eventlog import commands as c
from skirmish.eventlog.errors import BadInput
from skirmish.projections.gm import DICE_KEY
from skirmish.projections.gm import state_json as state_json  # the command line's name for it


def note(event: str, text: str | None, private: bool, on: str | None) -> c.AddNote:
    """`note EVENT TEXT`, or `note --on WHO TEXT` (written at the head)."""
    if on is not None:
        if text is not None:
            raise BadInput("note --on WHO takes the TEXT alone, not an EVENT (it is written at the head)")
        return c.AddNote(event=0, text=event, private=private, on=on)
    if text is None:
        raise BadInput("note takes EVENT TEXT, or --on WHO TEXT")
    try:
        event_id = int(event)
    except ValueError:
        raise BadInput(f"note takes an event id (a number) before its TEXT, not {event!r}; "
                       "--on WHO notes a combatant") from None
    return c.AddNote(event=event_id, text=text, private=private)


def roll(dice: str, who: str | None, why: str, faces: str | None) -> c.RollDice:
    """`roll DICE [--for WHO] [--why TEXT] [--roll FACES]`."""
    rolls: dict[str, tuple[int, ...]] = {}
    if faces is not None:
        try:
            rolls[DICE_KEY] = tuple(int(f) for f in faces.split(","))
        except ValueError:
            raise BadInput(f"--roll takes the faces as numbers, e.g. 4,5; not {faces!r}") from None
    return c.RollDice(dice=dice, who=who, why=why, rolls=rolls)
