"""Explain an event: every number it holds with its derivation as recorded (no recomputation),
the command behind it, the options in force and the notes about it."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any, Literal

import msgspec

from skirmish.eventlog.events import Derivation, Event, Roll, Term
from skirmish.projections.write.engine import Encounter
from skirmish.projections.notes import notes_shown
from skirmish.projections.text.words import event_line


class Dice(msgspec.Struct, frozen=True):
    """A roll as `explain --json` shows it: its faces and their total."""

    dice: str
    faces: tuple[int, ...]
    total: int
    source: str  # "gm", "tool" or "player:NAME" (eventlog/events.py Roll)

    @classmethod
    def of(cls, roll: Roll) -> Dice:
        return cls(roll.dice, roll.faces, roll.total, roll.source)

    def describe(self) -> str:
        return Roll(dice=self.dice, faces=self.faces, source=self.source).describe()


class Derived(msgspec.Struct, frozen=True):
    """A number computed when it was decided: its formula, terms, dice and rule."""

    figure: str  # where it sits in the event: "attack.hits", "initiatives[Ann].base"
    value: int | float
    formula: str
    terms: tuple[Term, ...]
    roll: Dice | None
    rule: str


class Rolled(msgspec.Struct, frozen=True):
    """Dice the event holds as they fell, with no formula of their own."""

    figure: str
    value: int
    roll: Dice


class Stored(msgspec.Struct, frozen=True):
    """A plain number the event holds as it is (``recorded``), under the event's own rule."""

    figure: str
    value: int
    recorded: Literal[True] = True
    rule: str = ""


Number = Derived | Rolled | Stored


class NoteShown(msgspec.Struct, frozen=True, omit_defaults=True):
    id: int
    text: str
    private: bool = False  # in the JSON only when true


class Explanation(msgspec.Struct, frozen=True):
    """One event explained: `explain` prints it, `explain --json` writes it as it is."""

    event: int
    kind: str
    description: str
    command: str
    branch: str  # where the command was recorded
    on: list[str]  # the branches whose history holds it (none: undone)
    recorded_at: str
    ruleset: str
    rules_file: str
    options: dict[str, str]
    numbers: list[Number]
    notes: list[NoteShown]


def numbers(value: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    """Every number an event holds, with where it sits: Derivations and Rolls whole, plain
    numbers as they are. Items of a list are labelled by their ``who`` or ``name``."""
    if isinstance(value, (Derivation, Roll)):
        yield where, value
    elif isinstance(value, msgspec.Struct):
        unstored = _omitted(type(value))
        for name in value.__struct_fields__:
            field = getattr(value, name)
            if name in unstored and field == unstored[name]:
                continue  # at its default, which is not stored: the event holds no such number
            yield from numbers(field, f"{where}.{name}" if where else name)
    elif isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            label = getattr(item, "who", None) or getattr(item, "name", None)
            yield from numbers(item, f"{where}[{label if isinstance(label, str) else i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from numbers(item, f"{where}[{key}]")
    elif isinstance(value, int) and not isinstance(value, bool):
        yield where, value


@cache
def _omitted(kind: type[msgspec.Struct]) -> dict[str, Any]:
    """The fields a struct leaves out of its encoding when they are at these defaults."""
    if not kind.__struct_config__.omit_defaults:
        return {}
    return {f.name: f.default for f in msgspec.structs.fields(kind) if f.default is not msgspec.NODEFAULT}


def explain(enc: Encounter, event_id: int) -> Explanation:
    """Every number of one event with its derivation as recorded, the command behind it,
    the options in force and the notes about it."""
    rec = enc.event(event_id)
    started = enc.started
    command = enc.command(rec.command_id)
    return Explanation(
        event=rec.id,
        kind=rec.kind,
        description=event_line(enc, rec),
        command=command.text,
        branch=command.branch,
        on=enc.branches_holding(rec.id),  # the branches whose history holds it
        recorded_at=rec.recorded_at,
        ruleset=enc.ruleset.id,
        rules_file=enc.ruleset.rules_file,
        options=dict(started.options),
        numbers=number_entries(rec.event),
        notes=[NoteShown(n.id, n.text, n.private) for n in notes_shown(enc, [rec.id]).get(rec.id, [])],
    )


def number_entries(event: Event) -> list[Number]:
    """Every number of one event, as recorded: derivations with their terms, dice and rule."""
    # A plain number an event holds beside a ``rule`` of its own is governed by that rule.
    own_rule = getattr(event, "rule", "")
    entries: list[Number] = []
    for where, value in numbers(event):
        if isinstance(value, Derivation):
            roll = Dice.of(value.roll) if value.roll is not None else None
            entries.append(Derived(where, value.amount, value.formula, value.terms, roll, value.rule))
        elif isinstance(value, Roll):
            entries.append(Rolled(where, value.total, Dice.of(value)))
        else:
            entries.append(Stored(where, value, rule=own_rule if isinstance(own_rule, str) else ""))
    return entries
