"""The GM's intents, as parsed: what a ruleset decides on, stored beside the events they produced.

Commands are the same for every ruleset; a ruleset reads the fields it needs and refuses
the ones it has no use for. Like events, tags are stored: never rename one, add fields
only with defaults.

The optional fields of the commands at the table (``target``, ``hits``, ...) are the
shared flags: the command line gives each command its fields as options (`--target NAME`),
with the help written here (``Help``), and the engine refuses those the encounter's ruleset
does not read. A field is shared when more than one ruleset reads it, or the engine does:
``target`` (every ruleset), ``trigger``, ``outcome`` and ``rounds`` (four each), ``amount``
(three), ``end`` (every one), ``hits`` (ap-countdown, crisis, percent-activity),
``per_round`` (ap-countdown and percent-activity, and the engine's carry: a carried
combatant's lasting effect, ``CarriedEffect``, puts it back on). A flag one ruleset alone
reads, or one whose meaning differs from ruleset to ruleset, is that ruleset's own
(projections/ruleset.py, ``Ruleset.flags``), declared beside its rules and travelling in
``details``: ap-countdown's ``--pace``, ``--penalty``, ``--charge``, ``--orientation`` and
``--start``, percent-activity's ``--percent``, and ``--ap``, which ap-countdown and crisis
each declare as their own (the AP a declaration spends, by each ruleset's own count). They
were fields once, and stored commands hold them: ``AtTheTable.moved`` names each, and
``command_decoder`` upcasts them into ``details`` as a stored command is read back.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Union

import msgspec


def Help(text: str) -> msgspec.Meta:  # noqa: N802 - read in annotations: Annotated[int | None, Help(...)]
    """The command line's help for a shared flag (cli/app.py builds the option from it)."""
    return msgspec.Meta(description=text)


class Command(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every command."""


class AtTheTable(Command, frozen=True, kw_only=True):
    """A command a ruleset decides: it may carry the GM's dice and ruleset-declared details.

    ``rolls`` are physical dice typed in by the GM, keyed by what they are for (a
    combatant's name, or a key the ruleset names); the rest are rolled by the tool.
    ``details`` are KEY=VALUE words a ruleset declares for this command (``skirmish rules
    RULESET`` lists them); the engine refuses any a ruleset did not declare.
    """

    rolls: dict[str, tuple[int, ...]] = {}
    details: dict[str, str] = {}
    # Whose the faces typed under a key of ``rolls`` are, where they are not the GM's: key ->
    # a Roll's source, "player:NAME" (faces typed on NAME's player link, `serve`). Set by the
    # server that ran the command, never by a client (projections/door/requests.py refuses it
    # in a request); stored with the command, so a command decided again (amend) keeps whose
    # dice they were. Absent from a stored body that has none: logs from before it read the same.
    typed_by: dict[str, str] | msgspec.UnsetType = msgspec.UNSET
    # The fields a command of this type once carried and a ruleset now reads as flags of its
    # own: stored name -> its key in ``details`` (the upcast, ``CommandDecoder``). A stored
    # field is never dropped silently: its name stays here for as long as logs hold it.
    moved: ClassVar[Mapping[str, str]] = {}


class AddCombatant(Command, frozen=True, tag="add"):
    """``count`` above 1 adds NAME 1 to NAME count, each with the same stats."""

    name: str
    side: str = "neutral"
    stats: dict[str, str] = {}
    count: int = 1


class StartRound(AtTheTable, frozen=True, kw_only=True, tag="round"):
    pass


class Next(AtTheTable, frozen=True, kw_only=True, tag="next"):
    pass


class Declare(AtTheTable, frozen=True, kw_only=True, tag="declare"):
    who: str
    action: str
    target: Annotated[str | None, Help("Whom the action is aimed at.")] = None
    trigger: Annotated[str | None, Help("Hold the action until this happens.")] = None
    amount: Annotated[int | None, Help("An amount, e.g. a parry's.")] = None
    # ap-countdown's --pace and --penalty, percent-activity's --percent, ap-countdown's and
    # crisis's --ap (each ruleset declares its own).
    moved: ClassVar[Mapping[str, str]] = {"percent": "percent", "pace": "pace", "penalty": "penalty", "ap": "ap"}


class Resolve(AtTheTable, frozen=True, kw_only=True, tag="resolve"):
    who: str
    outcome: Annotated[str | None, Help("What the roll gave, in the GM's words.")] = None
    hits: Annotated[int | None, Help("Hits dealt to the action's target.")] = None
    moved: ClassVar[Mapping[str, str]] = {"charge_speed": "charge"}  # ap-countdown's --charge


class Cancel(AtTheTable, frozen=True, kw_only=True, tag="cancel"):
    who: str
    moved: ClassVar[Mapping[str, str]] = {"orientation": "orientation"}  # ap-countdown's --orientation


class Damage(AtTheTable, frozen=True, kw_only=True, tag="damage"):
    who: str
    amount: int


class ApplyEffect(AtTheTable, frozen=True, kw_only=True, tag="effect"):
    who: str
    kind: str
    per_round: Annotated[int | None, Help("Hits (or counter steps) each upkeep.")] = None
    rounds: Annotated[int | None, Help("How many rounds it lasts.")] = None
    end: Annotated[bool, Help("End the effect now.")] = False
    custom: bool = False  # a kind the ruleset does not know, recorded as the GM's own
    moved: ClassVar[Mapping[str, str]] = {"start": "start"}  # ap-countdown's --start (a scene counter's)


class Upkeep(AtTheTable, frozen=True, kw_only=True, tag="upkeep"):
    pass


class Heal(AtTheTable, frozen=True, kw_only=True, tag="heal"):
    """Give back ``amount`` of the combatant's vital figure (first aid, a potion, a rest)."""

    who: str
    amount: int


class Leave(AtTheTable, frozen=True, kw_only=True, tag="leave"):
    """The combatant leaves the fight (flees, is carried off): the clock passes it by."""

    who: str
    reason: str = "leaves the fight"


class Return(AtTheTable, frozen=True, kw_only=True, tag="return"):
    """A combatant who left comes back into the fight."""

    who: str


class CarriedEffect(msgspec.Struct, frozen=True, kw_only=True):
    """A lasting condition a carried combatant brings, as the `effect` command that puts it on."""

    kind: str
    rounds: int | None = None
    per_round: int | None = None
    details: dict[str, str] = {}
    custom: bool = False


class Carry(Command, frozen=True, kw_only=True, tag="carry"):
    """A combatant brought in from elsewhere (an earlier encounter, a saved fight in a file)
    as it stands there: its stats, its vital figure now (None: at its maximum) and its lasting
    conditions (``figures``: the ruleset's other pools, e.g. crisis's Endurance). ``source`` says where from in words; ``encounter``, ``event`` and ``hash``
    name the earlier encounter's head event when it came from one."""

    name: str
    side: str = "neutral"
    stats: dict[str, str] = {}
    vital: int | None = None
    figures: dict[str, int] = {}  # the ruleset's other figures that outlast a fight (Rules.carried_figures)
    effects: tuple[CarriedEffect, ...] = ()
    source: str
    encounter: str = ""
    event: int | None = None
    hash: str = ""


class Resume(Command, frozen=True, kw_only=True, tag="resume"):
    """A saved fight in progress taken up where its table stopped (`new --from`, after the
    `carry` of each combatant): round ``round`` under way in ``order`` (the table's
    initiative order, first to last), ``acting``'s turn started there and those before it
    in the order done with theirs. ``source`` says where from in words. A ruleset that
    cannot take up a round under way decides no such command (projections/write/imports/bring.py
    says so instead)."""

    round: int
    acting: str
    order: tuple[str, ...]
    source: str


class AddHidden(AddCombatant, frozen=True, tag="add-hidden"):
    """`add ... --hidden`: the combatant joins hidden from the players' screens."""

    def added(self) -> AddCombatant:
        """The `add` the ruleset decides."""
        return AddCombatant(name=self.name, side=self.side, stats=self.stats, count=self.count)


class Hide(Command, frozen=True, tag="hide"):
    """Hide a combatant from the players' screens (decided the same in every ruleset)."""

    who: str


class Reveal(Command, frozen=True, tag="reveal"):
    """Show a hidden combatant to the players again."""

    who: str


class ChooseBands(Command, frozen=True, tag="bands"):
    """The players' health bands for foes: ``full`` at full, then LABEL=PERCENT words."""

    full: str
    bands: tuple[tuple[str, int], ...]


class AddNote(Command, frozen=True, tag="note", omit_defaults=True):
    """A note on an event, or with ``on`` on a combatant (written at the head: ``event`` is
    not read then)."""

    event: int
    text: str
    private: bool = False  # the GM's alone: left out of the players' pages (omitted when False)
    on: str | None = None  # a combatant: the note is on it, shown with it by `state`


class EndEncounter(AtTheTable, frozen=True, kw_only=True, tag="end"):
    """The encounter ends: commands that play on are refused until an `undo` reopens it."""

    reason: str = ""


class SetStats(AtTheTable, frozen=True, kw_only=True, tag="set"):
    """Change a combatant's stats after adding it, each checked as at `add`."""

    who: str
    stats: dict[str, str]


class Rename(AtTheTable, frozen=True, kw_only=True, tag="rename"):
    """A combatant goes by a new name (unique, checked as at `add`)."""

    who: str
    to: str


class RollDice(AtTheTable, frozen=True, kw_only=True, tag="roll"):
    """An ad-hoc roll for the table (``dice``: 2d6+3, d20); the GM's faces in ``rolls["dice"]``."""

    dice: str
    who: str | None = None
    why: str = ""


class MoveHead(Command, frozen=True, tag="move-head"):
    """undo, redo, branch and switch: they move a branch's head and decide no events."""

    verb: str
    steps: int = 1
    branch: str | None = None
    at: int | None = None


AnyCommand = Union[
    AddCombatant, StartRound, Next, Declare, Resolve, Cancel, Damage, ApplyEffect,
    Upkeep, AddNote, MoveHead, Heal, Leave, Return, EndEncounter, SetStats, Rename, RollDice, Carry,
    AddHidden, Hide, Reveal, ChooseBands, Resume,
]

command_encoder = msgspec.json.Encoder()


def _word(value: Any) -> str | None:
    """A moved field's stored value as its flag travels in ``details`` (``own_value`` in
    projections/ruleset.py: a number as its digits, True as ``yes``; None and False: not given)."""
    if value is None or value is False:
        return None
    return "yes" if value is True else str(value)


class CommandDecoder:
    """Reads a stored command back as the command it means now: the fields a ruleset has
    since taken as flags of its own (``AtTheTable.moved``) are upcast into ``details``, as
    the command line now sends them (`--pace run` is ``details={"pace": "run"}``), so an
    old log's commands are decided again (`amend`) the same. The upcast of each type is
    built with the decoder, from its ``moved``: a command type never reads a stored field
    it lost without it."""

    def __init__(self) -> None:
        self._decoder: msgspec.json.Decoder[AnyCommand] = msgspec.json.Decoder(AnyCommand)
        self._old: dict[type[Command], msgspec.json.Decoder[Any]] = {}
        for kind in typing.get_args(AnyCommand):
            moved: Mapping[str, str] = getattr(kind, "moved", {})
            if moved:
                assert not set(moved) & set(kind.__struct_fields__), f"{kind.__name__}.moved names a field it has"
                was = msgspec.defstruct(f"Stored{kind.__name__}", [(name, Any, None) for name in moved])
                self._old[kind] = msgspec.json.Decoder(was)

    def decode(self, body: bytes | str) -> AnyCommand:
        command = self._decoder.decode(body)
        old = self._old.get(type(command))
        if old is None:
            return command
        assert isinstance(command, AtTheTable)
        stored = old.decode(body)
        words = {key: text for name, key in command.moved.items() if (text := _word(getattr(stored, name))) is not None}
        if not words:
            return command
        return msgspec.structs.replace(command, details={**command.details, **words})


# Built on first use (`amend`, an audit): a decoder of the whole union costs a command at the
# table that never reads one back 2% of its process (docs/performance.md).
command_decoder: CommandDecoder


def __getattr__(name: str) -> object:
    if name == "command_decoder":
        global command_decoder
        command_decoder = CommandDecoder()
        return command_decoder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
