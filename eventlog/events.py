"""Event structs shared by every ruleset, the derivation records they carry, and their codec.

Events are frozen msgspec Structs tagged by ``type`` on a common base. Tags are part of
the stored format: never rename one. New fields only with defaults. A ruleset adds its
own event structs (subclasses of Event) and the codec for an encounter is built once per
ruleset from the core events plus the ruleset's.

Any other change to a stored layout (a field renamed, split or retyped) bumps the event's
``version`` and gives the class an upcaster for the step, where a reader of the class
finds it: a static method ``upcast_v1_v2(body) -> body`` turns a body stored at version 1
into version 2's layout (or :func:`upcaster` registers one by tag, beside the class).
Every step from version 1 up must be there: a Codec is not built without them, so a gap
fails when a ruleset is loaded, not when an old row is read. Rows keep the version they
were stored with; old bodies are upcast as they are read, one version at a time, and
never rewritten (the hash chain covers the stored bytes).
"""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Literal, Union

import msgspec

from skirmish.eventlog.errors import UnreadableEvent


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every event. ``version`` is the schema version of the struct's layout."""

    version: ClassVar[int] = 1


class Term(msgspec.Struct, frozen=True):
    """One named number that went into a figure (a modifier, a cost, a die total)."""

    name: str
    value: int


class Roll(msgspec.Struct, frozen=True):
    """Dice as faces, not just a total, and who rolled them: ``source`` is "gm" (faces the
    GM typed), "tool" (rolled by skirmish) or "player:NAME" (faces typed on the player's
    link of the character NAME, `serve`). Logs from before players' links hold "gm" and
    "tool" only: the field's layout is the same string."""

    dice: str
    faces: tuple[int, ...]
    source: str

    @property
    def total(self) -> int:
        return sum(self.faces)

    def describe(self) -> str:
        faces = " + ".join(str(f) for f in self.faces)
        return f"{self.dice} = {faces} = {self.total} ({whose(self.source)})"


PLAYER = "player:"  # the start of a Roll's source typed on a player's link: "player:Ann"


def whose(source: str) -> str:
    """Who rolled dice of ``source``, as `explain` says it."""
    if source == "gm":
        return "the GM's dice"
    if source.startswith(PLAYER):
        name = source[len(PLAYER):]
        return f"{name}'s dice, from {name}'s link"
    return "rolled by skirmish"


class Derivation(msgspec.Struct, frozen=True):
    """How a number was computed when it was decided: formula, terms, dice and rule."""

    value: int
    formula: str
    terms: tuple[Term, ...] = ()
    rule: str = ""
    roll: Roll | None = None
    per: int = 1  # ``value`` counts 1/per of the unit (2: half metres), so a half stays exact

    @property
    def amount(self) -> int | float:
        """The number the rules mean: ``value`` in whole units (7.5 for 15 halves)."""
        return self.value if self.per == 1 else self.value / self.per

    def shown(self) -> str:
        amount = self.amount
        return f"{amount:g}" if isinstance(amount, float) else str(amount)

    def describe(self) -> str:
        parts = [f"{self.shown()} = {self.formula}"]
        if self.terms:
            parts.append(", ".join(f"{t.name} {t.value:+d}" for t in self.terms))
        if self.roll is not None:
            parts.append(self.roll.describe())
        if self.rule:
            parts.append(self.rule)
        return "; ".join(parts)


class EncounterStarted(Event, frozen=True, tag="encounter-started", omit_defaults=True):
    """The first event of an encounter: the ruleset, every option in force, the dice seed.

    ``dice``: how the tool's rolls are drawn (projections/dice.py): 1, from ``seed`` (32
    bits, readable back from the faces), which every log recorded before the field existed
    keeps; 2, keyed by ``key`` (256 bits as 64 hex digits; ``seed`` is then 0: a state or
    snapshot that copies it holds no secret). Defaults are omitted, so an encounter of
    derivation 1 is stored exactly as before."""

    name: str
    ruleset: str
    options: dict[str, str]
    seed: int
    dice: int = 1
    key: str = ""


class CombatantAdded(Event, frozen=True, tag="combatant-added", omit_defaults=True):
    """A combatant joins: the stats the ruleset asked for, validated and stored as numbers,
    and its text stats (``Stat(kind=str)``) in ``traits``, omitted when there are none (so
    an event without any is stored as it always was)."""

    name: str
    side: str
    stats: dict[str, int]
    traits: dict[str, str] = {}


class NoteAdded(Event, frozen=True, tag="note-added", omit_defaults=True):
    """The GM's annotation on an earlier event; it changes no figure. A ``private`` note is
    the GM's alone: the players' pages leave it out. (Defaults are omitted, so a note that
    is not private is stored exactly as before the field existed.)"""

    about: int
    text: str
    private: bool = False
    on: str | None = None  # a note on a combatant (its name then), written at event ``about``


class CombatantLeft(Event, frozen=True, tag="combatant-left"):
    """A combatant leaves the fight (flees, is carried off); the clock passes it by."""

    who: str
    reason: str


class CombatantReturned(Event, frozen=True, tag="combatant-returned"):
    """A combatant who left comes back; it acts again from the next round or turn."""

    who: str


class EncounterEnded(Event, frozen=True, tag="encounter-ended"):
    """The GM ends the encounter: nothing plays on after it (notes and rolls aside) until an
    `undo` takes it back."""

    reason: str = ""


class StatsSet(Event, frozen=True, tag="stats-set"):
    """A combatant's stats changed after it was added (`set`): the new values, validated as at
    `add`, and what they ``was`` before. The damage it has taken is kept (projections/ruleset.py)."""

    who: str
    stats: dict[str, int]
    was: dict[str, int] = {}


class TraitsSet(Event, frozen=True, tag="traits-set", omit_defaults=True):
    """A combatant's text stats changed after it was added (`set resist=fire,cold`): the new
    words (empty: none), and what they ``was`` before (empty: none)."""

    who: str
    traits: dict[str, str]
    was: dict[str, str] = {}


class CombatantRenamed(Event, frozen=True, tag="combatant-renamed"):
    """A combatant goes by a new name from here on; events before keep the name they hold."""

    who: str
    to: str


class DiceRolled(Event, frozen=True, tag="dice-rolled"):
    """An ad-hoc roll recorded for the table (`roll 2d6+3`): faces, modifier and total. It
    changes no figure; ``who`` is whom it was rolled for (empty: the table's)."""

    total: Derivation
    who: str = ""
    why: str = ""


class CombatantCarried(Event, frozen=True, tag="combatant-carried"):
    """A combatant just added comes in from elsewhere (`carry`): where from, and its vital
    figure there (None: at its maximum), which the ruleset starts it at. ``encounter``,
    ``event`` and ``hash`` name the earlier encounter's head event when it came from one."""

    who: str
    source: str
    vital: int | None = None
    encounter: str = ""
    event: int | None = None
    hash: str = ""
    figures: dict[str, int] = {}  # the ruleset's other figures there (crisis: Endurance, armour Durability)


class CombatantHidden(Event, frozen=True, tag="combatant-hidden", omit_defaults=True):
    """The GM hides a combatant from the players' screens (an ambusher, a lurking foe): on
    the GM's board, absent from the players' until revealed (projections/policy.py). It
    changes no figure. ``joining``: recorded just before its `add --hidden`, so the players
    never see it join."""

    who: str
    joining: bool = False


class CombatantRevealed(Event, frozen=True, tag="combatant-revealed"):
    """A hidden combatant is shown to the players from now on."""

    who: str


class Band(msgspec.Struct, frozen=True, array_like=True):
    """One of the players' health bands: ``label`` shown for a foe at or below ``percent`` of
    its full vital figure (the band of the smallest such percent wins)."""

    label: str
    percent: int


class BandsChosen(Event, frozen=True, tag="players-bands"):
    """The health bands the players see for foes from now on: ``full`` at its full vital
    figure, else the band of the smallest percent at or above what it has left."""

    full: str
    bands: tuple[Band, ...]


CORE_EVENTS: tuple[type[Event], ...] = (
    EncounterStarted, CombatantAdded, NoteAdded, CombatantLeft, CombatantReturned,
    EncounterEnded, StatsSet, CombatantRenamed, DiceRolled, CombatantCarried,
    CombatantHidden, CombatantRevealed, BandsChosen, TraitsSet,
)

# An upcaster turns an old stored body (as a dict) into the next version's layout. Those not
# on their class are registered here, keyed by the event's tag and the version it was stored with.
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcaster(tag: str, stored_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register ``fn`` to turn a ``tag`` body stored at ``stored_version`` into the next version
    (the class's own ``upcast_vN_vM`` static method does the same, where a reader looks first)."""

    def register(fn: Upcaster) -> Upcaster:
        assert (tag, stored_version) not in UPCASTERS, f"two upcasters for {tag} version {stored_version}"
        UPCASTERS[(tag, stored_version)] = fn
        return fn

    return register


def upcasts(event_type: type[Event], registry: Mapping[tuple[str, int], Upcaster]) -> tuple[Upcaster, ...]:
    """The steps from version 1 to ``event_type``'s version, in order: each the class's
    ``upcast_vN_vM`` or the one ``registry`` holds for its tag. A TypeError names the
    first step missing (or given twice): an old row of that version could not be read."""
    tag, version = tag_of(event_type), event_type.version
    if not isinstance(version, int) or version < 1:
        raise TypeError(f"event {tag} ({event_type.__name__}) has layout version {version!r}: versions count from 1")
    steps: list[Upcaster] = []
    for stored in range(1, version):
        name = f"upcast_v{stored}_v{stored + 1}"
        on_class: Upcaster | None = getattr(event_type, name, None)
        registered = registry.get((tag, stored))
        if on_class is not None and registered is not None:
            raise TypeError(f"event {tag} ({event_type.__name__}) has two upcasters from version {stored} to "
                            f"{stored + 1}: {name} and one registered with upcaster({tag!r}, {stored})")
        step = on_class or registered
        if step is None:
            raise TypeError(f"event {tag} ({event_type.__name__}) is at layout version {version} but has no "
                            f"upcaster from version {stored} to {stored + 1}: give the class a static method "
                            f"{name}(body) -> body")
        steps.append(step)
    return tuple(steps)


class Codec:
    """Encodes and decodes one ruleset's event union; build once, reuse for every row.

    Building one checks every event's upcasters (:func:`upcasts`); decoding a stored row
    that cannot be read, for whatever reason, raises one UnreadableEvent naming the row.
    """

    encoder: ClassVar[msgspec.json.Encoder] = msgspec.json.Encoder()

    def __init__(
        self,
        event_types: Iterable[type[Event]],
        upcasters: Mapping[tuple[str, int], Upcaster] | None = None,
    ) -> None:
        types = tuple(event_types)
        registry = UPCASTERS if upcasters is None else upcasters
        self.versions: dict[str, int] = {tag_of(t): t.version for t in types}
        # Resolved once, here: a ruleset's module has registered its upcasters by the time
        # its event types are handed over (importing it ran the decorators).
        self._upcasts: dict[str, tuple[Upcaster, ...]] = {tag_of(t): upcasts(t, registry) for t in types}
        union: Any = Union[types]  # noqa: UP007 - a runtime union of struct types
        self._decoder: msgspec.json.Decoder[Event] = msgspec.json.Decoder(union)
        self._type: Any = union
        # The bare decoder of a body at its kind's current version, for a loop over many
        # rows that checks the version itself (a replay); anything else goes to decode().
        self.decode_current = self._decoder.decode

    def encode(self, event: Event) -> bytes:
        return self.encoder.encode(event)

    def decode(self, body: bytes | str, kind: str, version: int, event_id: int) -> Event:
        """The event stored in row ``event_id`` as this codec's current layout of ``kind``."""
        current = self.versions.get(kind)
        try:
            if version == current:
                return self._decoder.decode(body)
        except msgspec.DecodeError as exc:  # bad JSON, or not the layout of its version
            raise UnreadableEvent(event_id, kind, str(exc)) from exc
        if current is None:
            raise UnreadableEvent(
                event_id, kind, "this skirmish does not know its kind: it was written by a newer skirmish "
                "or a newer version of the encounter's ruleset; upgrade to read it"
            )
        if version > current:
            raise UnreadableEvent(
                event_id, kind, f"it has layout version {version}, this skirmish knows {current}: "
                "it was written by a newer skirmish; upgrade to read it"
            )
        if version < 1:
            raise UnreadableEvent(event_id, kind, f"it has layout version {version}, which no skirmish writes")
        try:
            raw: Any = msgspec.json.decode(body)
            for step in self._upcasts[kind][version - 1:]:
                raw = step(raw)
            event: Event = msgspec.convert(raw, self._type)
        except msgspec.DecodeError as exc:
            raise UnreadableEvent(event_id, kind, str(exc)) from exc
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            # The old body is not what its version's upcaster expects: say so in the game's
            # terms (kind, version, the field), not as the Python error it raised.
            missing = f"it has no field {exc.args[0]!r}" if isinstance(exc, KeyError) and exc.args else str(exc)
            raise UnreadableEvent(
                event_id, kind, f"its body is not layout version {version} of {kind}: {missing}"
            ) from exc
        return event


def tag_of(event_type: type[Event]) -> str:
    tag = event_type.__struct_config__.tag
    assert isinstance(tag, str), f"{event_type.__name__} needs an explicit tag"
    return tag
