"""Explain an event: every number it holds with its derivation as recorded (no recomputation),
the command behind it, the options in force and the notes about it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from skirmish.eventlog.events import Derivation, Event, Roll
from skirmish.projections.engine import Encounter
from skirmish.projections.notes import notes_shown


def numbers(value: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    """Every number an event holds, with where it sits: Derivations and Rolls whole, plain
    numbers as they are. Items of a list are labelled by their ``who`` or ``name``."""
    if isinstance(value, (Derivation, Roll)):
        yield where, value
    elif isinstance(value, msgspec.Struct):
        for name in value.__struct_fields__:
            yield from numbers(getattr(value, name), f"{where}.{name}" if where else name)
    elif isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            label = getattr(item, "who", None) or getattr(item, "name", None)
            yield from numbers(item, f"{where}[{label if isinstance(label, str) else i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from numbers(item, f"{where}[{key}]")
    elif isinstance(value, int) and not isinstance(value, bool):
        yield where, value


def _roll_json(roll: Roll) -> dict[str, Any]:
    return {"dice": roll.dice, "faces": list(roll.faces), "total": roll.total, "source": roll.source}


def explain(enc: Encounter, event_id: int) -> dict[str, Any]:
    """Every number of one event with its derivation as recorded, the command behind it,
    the options in force and the notes about it."""
    rec = enc.event(event_id)
    started = enc.started
    command = enc.command(rec.command_id)
    return {
        "event": rec.id,
        "kind": rec.kind,
        "description": enc.describe(rec),
        "command": command.text,
        "branch": command.branch,
        "on": enc.branches_holding(rec.id),  # the branches whose history holds it
        "recorded_at": rec.recorded_at,
        "ruleset": enc.ruleset.id,
        "rules_file": enc.ruleset.rules_file,
        "options": dict(started.options),
        "numbers": number_entries(rec.event),
        "notes": [{"id": n.id, "text": n.text, **({"private": True} if n.private else {})}
                  for n in notes_shown(enc, [rec.id]).get(rec.id, [])],
    }


def number_entries(event: Event) -> list[dict[str, Any]]:
    """Every number of one event, as recorded: derivations with their terms, dice and rule."""
    # A plain number an event holds beside a ``rule`` of its own is governed by that rule.
    own_rule = getattr(event, "rule", "")
    entries: list[dict[str, Any]] = []
    for where, value in numbers(event):
        if isinstance(value, Derivation):
            entries.append({
                "figure": where, "value": value.amount, "formula": value.formula,
                "terms": [{"name": t.name, "value": t.value} for t in value.terms],
                "roll": _roll_json(value.roll) if value.roll is not None else None,
                "rule": value.rule,
            })
        elif isinstance(value, Roll):
            entries.append({"figure": where, "value": value.total, "roll": _roll_json(value)})
        else:
            entries.append({"figure": where, "value": value, "recorded": True,
                            "rule": own_rule if isinstance(own_rule, str) else ""})
    return entries
