"""The same fight through the `eventsourcing` library (9.5, SQLite persistence): what a Python
developer would otherwise pick.

One aggregate per encounter; each skirmish event becomes one domain event of it, carrying
the event's kind and its fields as the library's JSON transcoder stores them, and applied
with the very same ap-countdown ``evolve``. Only the storage and event machinery differ
from skirmish's, so the comparison measures those.
"""

from __future__ import annotations

import os
from pathlib import Path
from collections.abc import Iterable, Sequence
from typing import Any
from uuid import UUID

import msgspec
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate

from skirmish.eventlog.events import EncounterStarted, Event
from skirmish.projections.engine import codec_for
from skirmish.projections.ruleset import get_ruleset

RULESET = get_ruleset("ap-countdown")
_union: Any = codec_for("ap-countdown")._type


class Fight(Aggregate):
    """An encounter as an eventsourcing aggregate: its state is ap-countdown's."""

    class Started(Aggregate.Created):
        body: dict[str, Any]

    class Happened(Aggregate.Event):
        body: dict[str, Any]

        def apply(self, aggregate: Fight) -> None:
            aggregate.state = RULESET.evolve(aggregate.state, msgspec.convert(self.body, _union))

    def __init__(self, body: dict[str, Any]) -> None:
        started = msgspec.convert(body, _union)
        assert isinstance(started, EncounterStarted)
        self.state = RULESET.initial(started)

    def record(self, event: Event) -> None:
        self.trigger_event(self.Happened, body=msgspec.to_builtins(event))


class Table(Application[UUID]):
    """The application holding the fights."""


def open_app(path: str) -> Table:
    os.environ.pop("PERSISTENCE_MODULE", None)
    return Table(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path})


def start(app: Table, started: Event) -> Fight:
    fight = Fight(body=msgspec.to_builtins(started))
    app.save(fight)
    return fight


def append_commands(app: Table, fight: Fight, commands: Iterable[Sequence[Event]], per_save: int = 1) -> int:
    """Record each command's events; save (one transaction) every ``per_save`` commands."""
    events = pending = 0
    for command in commands:
        for event in command:
            fight.record(event)
        events += len(command)
        pending += 1
        if pending == per_save:
            app.save(fight)
            pending = 0
    if pending:
        app.save(fight)
    return events


def replay(app: Table, fight_id: UUID) -> Fight:
    """Rebuild the aggregate from all its stored events (no library snapshots)."""
    fight: Fight = app.repository.get(fight_id)
    return fight


def fight_id(path: str) -> UUID:
    """The one fight a benchmark database holds."""
    return UUID(Path(path + ".fight").read_text().strip())


def remember_fight(path: str, fight: Fight) -> None:
    Path(path + ".fight").write_text(str(fight.id))
