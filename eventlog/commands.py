"""The GM's intents, as parsed: what a ruleset decides on, stored beside the events they produced.

Commands are the same for every ruleset; a ruleset reads the fields it needs and refuses
the ones it has no use for. Like events, tags are stored: never rename one, add fields
only with defaults.
"""

from __future__ import annotations

from typing import Union

import msgspec


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
    ap: int | None = None
    percent: int | None = None
    target: str | None = None
    trigger: str | None = None
    pace: str | None = None
    penalty: int | None = None
    amount: int | None = None


class Resolve(AtTheTable, frozen=True, kw_only=True, tag="resolve"):
    who: str
    outcome: str | None = None
    hits: int | None = None
    charge_speed: int | None = None


class Cancel(AtTheTable, frozen=True, kw_only=True, tag="cancel"):
    who: str
    orientation: str | None = None


class Damage(AtTheTable, frozen=True, kw_only=True, tag="damage"):
    who: str
    amount: int


class ApplyEffect(AtTheTable, frozen=True, kw_only=True, tag="effect"):
    who: str
    kind: str
    per_round: int | None = None
    rounds: int | None = None
    start: int | None = None
    end: bool = False
    custom: bool = False  # a kind the ruleset does not know, recorded as the GM's own


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


class AddNote(Command, frozen=True, tag="note", omit_defaults=True):
    event: int
    text: str
    private: bool = False  # the GM's alone: left out of the players' pages (omitted when False)


class MoveHead(Command, frozen=True, tag="move-head"):
    """undo, redo, branch and switch: they move a branch's head and decide no events."""

    verb: str
    steps: int = 1
    branch: str | None = None
    at: int | None = None


AnyCommand = Union[
    AddCombatant, StartRound, Next, Declare, Resolve, Cancel, Damage, ApplyEffect,
    Upkeep, AddNote, MoveHead, Heal, Leave, Return,
]

command_encoder = msgspec.json.Encoder()
command_decoder: msgspec.json.Decoder[AnyCommand] = msgspec.json.Decoder(AnyCommand)
