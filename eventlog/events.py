"""Event structs shared by every ruleset, the derivation records they carry, and their codec.

Events are frozen msgspec Structs tagged by ``type`` on a common base. Tags are part of
the stored format: never rename one. New fields only with defaults. A ruleset adds its
own event structs (subclasses of Event) and the codec for an encounter is built once per
ruleset from the core events plus the ruleset's.

Any other change to a stored layout (a field renamed, split or retyped) bumps the event's
``version`` and registers an upcaster from the old version with :func:`upcaster`, beside
the event. Rows keep the version they were stored with; old bodies are upcast as they are
read, one version at a time, and never rewritten (the hash chain covers the stored bytes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Literal, Union

import msgspec

from skirmish.eventlog.errors import StoreError


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every event. ``version`` is the schema version of the struct's layout."""

    version: ClassVar[int] = 1


class Term(msgspec.Struct, frozen=True):
    """One named number that went into a figure (a modifier, a cost, a die total)."""

    name: str
    value: int


class Roll(msgspec.Struct, frozen=True):
    """Dice as faces, not just a total, and who rolled them: the GM's dice or the tool's."""

    dice: str
    faces: tuple[int, ...]
    source: Literal["gm", "tool"]

    @property
    def total(self) -> int:
        return sum(self.faces)

    def describe(self) -> str:
        faces = " + ".join(str(f) for f in self.faces)
        who = "GM's dice" if self.source == "gm" else "rolled by skirmish"
        return f"{self.dice} = {faces} = {self.total} ({who})"


class Derivation(msgspec.Struct, frozen=True):
    """How a number was computed when it was decided: formula, terms, dice and rule."""

    value: int
    formula: str
    terms: tuple[Term, ...] = ()
    rule: str = ""
    roll: Roll | None = None

    def describe(self) -> str:
        parts = [f"{self.value} = {self.formula}"]
        if self.terms:
            parts.append(", ".join(f"{t.name} {t.value:+d}" for t in self.terms))
        if self.roll is not None:
            parts.append(self.roll.describe())
        if self.rule:
            parts.append(self.rule)
        return "; ".join(parts)


class EncounterStarted(Event, frozen=True, tag="encounter-started"):
    """The first event of an encounter: the ruleset, every option in force, the dice seed."""

    name: str
    ruleset: str
    options: dict[str, str]
    seed: int


class CombatantAdded(Event, frozen=True, tag="combatant-added"):
    """A combatant joins: the stats the ruleset asked for, validated and stored as numbers."""

    name: str
    side: str
    stats: dict[str, int]


class NoteAdded(Event, frozen=True, tag="note-added"):
    """The GM's annotation on an earlier event; it changes no figure."""

    about: int
    text: str


CORE_EVENTS: tuple[type[Event], ...] = (EncounterStarted, CombatantAdded, NoteAdded)

# Upcasters turn an old stored body (as a dict) into the next version's layout, keyed by the
# event's tag and the version it was stored with. Stored bytes are never rewritten.
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcaster(tag: str, stored_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register ``fn`` to turn a ``tag`` body stored at ``stored_version`` into the next version."""

    def register(fn: Upcaster) -> Upcaster:
        assert (tag, stored_version) not in UPCASTERS, f"two upcasters for {tag} version {stored_version}"
        UPCASTERS[(tag, stored_version)] = fn
        return fn

    return register


class Codec:
    """Encodes and decodes one ruleset's event union; build once, reuse for every row."""

    encoder: ClassVar[msgspec.json.Encoder] = msgspec.json.Encoder()

    def __init__(
        self,
        event_types: Iterable[type[Event]],
        upcasters: dict[tuple[str, int], Upcaster] | None = None,
    ) -> None:
        types = tuple(event_types)
        self.versions: dict[str, int] = {tag_of(t): t.version for t in types}
        union: Any = Union[types]  # noqa: UP007 - a runtime union of struct types
        self._decoder: msgspec.json.Decoder[Event] = msgspec.json.Decoder(union)
        self._type: Any = union
        # The module's registry by default, read at decode time: a ruleset registers its
        # upcasters when its module is imported, which may be after this codec was built.
        self._upcasters = UPCASTERS if upcasters is None else upcasters

    def encode(self, event: Event) -> bytes:
        return self.encoder.encode(event)

    def decode(self, body: bytes | str, kind: str, version: int) -> Event:
        current = self.versions.get(kind)
        if current is None:
            raise StoreError(
                f"a stored event of kind {kind!r} is unknown to this skirmish: it was written by a "
                "newer skirmish or a newer version of the encounter's ruleset; upgrade to read it"
            )
        if version == current:
            return self._decoder.decode(body)
        if version > current:
            raise StoreError(
                f"a stored {kind} event has layout version {version}, this skirmish knows {current}: "
                "it was written by a newer skirmish; upgrade to read it"
            )
        raw: dict[str, Any] = msgspec.json.decode(body)
        while version < current:
            raw = self._upcasters[(kind, version)](raw)
            version += 1
        event: Event = msgspec.convert(raw, self._type)
        return event


def tag_of(event_type: type[Event]) -> str:
    tag = event_type.__struct_config__.tag
    assert isinstance(tag, str), f"{event_type.__name__} needs an explicit tag"
    return tag
