"""The same fight through the `eventsourcing` library (9.5, SQLite persistence), set up as its
documentation recommends for speed: what a Python developer would otherwise pick.

The library's msgspec recipe (docs, "Aggregate 9 - msgspec structs": a mapper that
encodes each domain event, a msgspec Struct, with msgspec and decodes it by its topic,
beside a transcoder that does nothing), with each topic's decoder built once, not a
type analysed again for every event. One aggregate per encounter; each skirmish event
becomes one domain event carrying it as the very Struct skirmish stores (its tagged
union decoded by msgspec inside the domain event), applied with the same ap-countdown
``apply``, in place, as skirmish's fold does. Snapshots are the library's: a snapshot
class, the application's snapshot store, one every SNAPSHOT_EVERY versions (as often as
skirmish's), taken from the state in hand as the events are appended (skirmish does the
same), and read by the repository for a state at a past version. Only the storage and
event machinery differ from skirmish's, so the comparison measures those.

Run it plainly, and tuned with ``python -O`` (the library's asserts off): the table
shows both.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, ClassVar
from uuid import UUID, uuid4

import msgspec
from eventsourcing.application import Application
from eventsourcing.domain import datetime_now_with_tzinfo
from eventsourcing.persistence import Mapper, StoredEvent, Transcoder
from eventsourcing.utils import get_topic, resolve_topic

from skirmish.eventlog.events import EncounterStarted, Event
from skirmish.projections.write.engine import SNAPSHOT_EVERY, codec_for
from skirmish.projections.ruleset import get_ruleset
from skirmish.projections.rulesets.ap_countdown.state import ApState

RULESET = get_ruleset("ap-countdown")
_union: Any = codec_for("ap-countdown")._type  # every ap-countdown event and the core ones, tagged


class DomainEvent(msgspec.Struct, frozen=True, kw_only=True):
    originator_id: UUID
    originator_version: int
    timestamp: datetime


class Started(DomainEvent, frozen=True, kw_only=True):
    event: EncounterStarted


# Defined at run time (its event union is the ruleset's), so typed as Any for mypy.
Happened: Any = msgspec.defstruct(
    "Happened", [("event", _union)], bases=(DomainEvent,), frozen=True, kw_only=True, module=__name__
)


class Fight(msgspec.Struct, kw_only=True):
    """The aggregate: an encounter's id, version and ap-countdown state (changed in place)."""

    id: UUID
    version: int
    state: ApState


class FightSnapshot(DomainEvent, frozen=True, kw_only=True):
    topic: str
    state: bytes

    @classmethod
    def take(cls, fight: Fight) -> FightSnapshot:
        return cls(originator_id=fight.id, originator_version=fight.version, timestamp=datetime_now_with_tzinfo(),
                   topic=get_topic(Fight), state=_encoder.encode(fight))


_encoder = msgspec.json.Encoder()
_fight_decoder = msgspec.json.Decoder(Fight)


@cache
def _decoder(topic: str) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(resolve_topic(topic))


class MsgspecMapper(Mapper[UUID]):
    """Domain events to stored events and back with msgspec (the docs' recipe), each topic's
    decoder built once."""

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        state = _encoder.encode(domain_event)
        if self.compressor:
            state = self.compressor.compress(state)
        if self.cipher:
            state = self.cipher.encrypt(state)
        return StoredEvent(originator_id=domain_event.originator_id, originator_version=domain_event.originator_version,
                           topic=get_topic(type(domain_event)), state=state)

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        state = stored_event.state
        if self.cipher:
            state = self.cipher.decrypt(state)
        if self.compressor:
            state = self.compressor.decompress(state)
        return _decoder(stored_event.topic).decode(state)


class NullTranscoder(Transcoder):
    """The mapper encodes whole events itself: the transcoder is not used."""

    def encode(self, obj: Any) -> bytes:
        return b""

    def decode(self, data: bytes) -> Any:
        return None


def project(fight: Fight | None, events: Iterable[Any]) -> Fight | None:
    """The repository's projector: a snapshot, the first event, then each event applied in place."""
    apply = RULESET.apply
    for e in events:
        if type(e) is Happened:
            assert fight is not None
            apply(fight.state, e.event)
            fight.version = e.originator_version
        elif type(e) is FightSnapshot:
            fight = _fight_decoder.decode(e.state)
        elif type(e) is Started:
            fight = Fight(id=e.originator_id, version=e.originator_version, state=RULESET.initial(e.event))
    return fight


class Table(Application[UUID]):
    """The application holding the fights."""

    is_snapshotting_enabled = True
    snapshot_class = FightSnapshot
    env: ClassVar[dict[str, str]] = {
        "MAPPER_TOPIC": get_topic(MsgspecMapper),
        "TRANSCODER_TOPIC": get_topic(NullTranscoder),
    }


def open_app(path: str) -> Table:
    os.environ.pop("PERSISTENCE_MODULE", None)
    return Table(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path})


def start(app: Table, started: Event) -> Fight:
    assert isinstance(started, EncounterStarted)
    event = Started(originator_id=uuid4(), originator_version=1, timestamp=datetime_now_with_tzinfo(), event=started)
    app.save(event)
    fight = project(None, [event])
    assert fight is not None
    return fight


def append_commands(app: Table, fight: Fight, commands: Iterable[Sequence[Event]], per_save: int = 1) -> int:
    """Record each command's events; save (one transaction) every ``per_save`` commands, with
    the snapshots that fell due among them."""
    events = pending = 0
    batch: list[Any] = []
    snapshots: list[FightSnapshot] = []
    apply = RULESET.apply
    for command in commands:
        for event in command:
            fight.version += 1
            batch.append(Happened(originator_id=fight.id, originator_version=fight.version,
                                  timestamp=datetime_now_with_tzinfo(), event=event))
            apply(fight.state, event)
            if fight.version % SNAPSHOT_EVERY == 0:
                snapshots.append(FightSnapshot.take(fight))
        events += len(command)
        pending += 1
        if pending == per_save:
            _save(app, batch, snapshots)
            pending = 0
    if batch:
        _save(app, batch, snapshots)
    return events


def _save(app: Table, batch: list[Any], snapshots: list[FightSnapshot]) -> None:
    app.save(*batch)
    if snapshots:
        assert app.snapshots is not None
        app.snapshots.put(snapshots)
    batch.clear()
    snapshots.clear()


PAGE = 2_000  # stored events a select: the recorder's paged read (select_events(gt=, limit=))


def replay(app: Table, fight_id: UUID) -> Fight:
    """Rebuild the aggregate from all its stored events (no snapshot: a full replay), read a
    page at a time through the recorder's ``select_events(gt=, limit=)`` as the library's
    own notification log does: one unpaged select holds the whole log in memory."""
    recorder, mapper = app.recorder, app.mapper
    fight: Fight | None = None
    last = 0
    while True:
        page = recorder.select_events(fight_id, gt=last, limit=PAGE)
        if not page:
            break
        fight = project(fight, map(mapper.to_domain_event, page))
        last = page[-1].originator_version
    assert fight is not None
    return fight


def decode_event(kind: str, version: int, body: str) -> Event:
    """An event as skirmish stored it (its tag, version and JSON), for the peer to save."""
    event: Event = codec_for("ap-countdown").decode(body.encode(), kind, version, 0)
    return event


def decide_and_save(app: Table, fight_id: UUID, command: Any, seed: int, at: int) -> int:
    """skirmish's work for one command at the table, done the library's way: the aggregate
    from its latest snapshot and the events since, the ruleset's decision (with the dice
    skirmish rolled, seeded by the event it decided on), the events saved with the
    snapshots that fall due; returns how many events."""
    from skirmish.projections.ruleset import Dice

    fight = state_at(app, fight_id, None)
    events = RULESET.decide(fight.state, command, Dice(seed, str(at)))
    return append_commands(app, fight, [events])


def state_at(app: Table, fight_id: UUID, version: int | None) -> Fight:
    """The aggregate at a past version, from the latest snapshot at or before it."""
    fight: Fight = app.repository.get(fight_id, version=version, projector_func=project)
    return fight


def fight_id(path: str) -> UUID:
    """The one fight a benchmark database holds."""
    return UUID(Path(path + ".fight").read_text().strip())


def remember_fight(path: str, fight: Fight) -> None:
    Path(path + ".fight").write_text(str(fight.id))
