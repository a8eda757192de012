"""Helpers every ruleset's tests use: run a command, read a figure, check a refusal."""

from __future__ import annotations

from typing import Any, TypeVar

import pytest

from skirmish.eventlog.commands import Command
from skirmish.eventlog.errors import SkirmishError
from skirmish.eventlog.events import Event
from skirmish.projections.write.engine import Encounter
from skirmish.projections.view import Combatant, Pending

E = TypeVar("E", bound=Event)


def do(enc: Encounter, command: Command) -> list[Event]:
    return [rec.event for rec in enc.execute(command, "test")]


def stored(enc: Encounter) -> int:
    return len(list(enc.event_rows()))


def refused(enc: Encounter, command: Command, error: type[SkirmishError], message: str) -> None:
    """The command is refused with exactly this message, and nothing is appended."""
    before, head = stored(enc), enc.head().event_id
    with pytest.raises(error) as info:
        enc.execute(command, "test")
    assert str(info.value) == message
    assert stored(enc) == before
    assert enc.head().event_id == head


def combatant(enc: Encounter, name: str) -> Combatant:
    """The combatant's row of the typed view (projections/view.py)."""
    return enc.view().combatant(name)


def who(enc: Encounter, name: str) -> Any:
    """The combatant's own figures under its ruleset (the view's ``own`` part)."""
    return combatant(enc, name).own


def pending(enc: Encounter, name: str) -> Pending | None:
    return next((p for p in enc.view().pending if p.who == name), None)


def one(events: list[Event], kind: type[E]) -> E:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, events
    return found[0]


def effects(enc: Encounter, name: str) -> list[tuple[str, int | None]]:
    """(kind, rounds or turns left) of each effect on the combatant; None: until ended."""
    return [(e.kind, e.left) for e in combatant(enc, name).effects]
