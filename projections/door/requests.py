"""What a surface may ask of an encounter: the fight's commands (eventlog/commands.py, stored
as they are) and the requests around them that are not stored commands (undo, redo, a
branch, a switch, and the reads: explain, why, diff, verify, state, log, branches).

Every request has one JSON form: an object whose ``type`` is its tag and whose other keys
are its fields (``{"type": "damage", "who": "Orc", "amount": 7}``). :data:`REQUEST` decodes
it, with the bounds of :func:`check_bounds` checked first.

Who may send which is :data:`ROLES`, the one table of it: a role names the request tags it
may send, and anything else is refused in one line naming the role. The command line is no
role: it is the GM at their own machine, with every command, files and servers included.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Union

import msgspec

from skirmish.eventlog import commands as c
from skirmish.eventlog.errors import BadInput


class Request(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """A request that is not a stored command: it moves a head or reads."""


class Undo(Request, frozen=True, kw_only=True, tag="undo"):
    steps: int = 1


class Redo(Request, frozen=True, kw_only=True, tag="redo"):
    steps: int = 1


class Branch(Request, frozen=True, kw_only=True, tag="branch"):
    """Fork ``name`` at event ``at`` (default: the head), or just before the command that
    recorded event ``before``."""

    name: str
    at: int | None = None
    before: int | None = None


class Switch(Request, frozen=True, kw_only=True, tag="switch"):
    name: str


class Explain(Request, frozen=True, kw_only=True, tag="explain"):
    event: int


class Why(Request, frozen=True, kw_only=True, tag="why"):
    who: str
    figure: str | None = None
    limit: int | None = None


class Diff(Request, frozen=True, kw_only=True, tag="diff"):
    a: str
    b: str


class Verify(Request, frozen=True, kw_only=True, tag="verify"):
    expect: str | None = None


class State(Request, frozen=True, kw_only=True, tag="state"):
    at: int | None = None
    wide: bool = False  # every figure of the ruleset, not only the 80-column core


class Log(Request, frozen=True, kw_only=True, tag="log"):
    limit: int | None = None
    start: int | None = None  # `log --from EVENT`
    every: bool = False  # `log --all`: every event of the tree


class Replay(Request, frozen=True, kw_only=True, tag="replay"):
    """The fight narrated step by step (the command line's: a page shows its timeline)."""

    start: int | None = None
    to: int | None = None


class Branches(Request, frozen=True, kw_only=True, tag="branches"):
    pass


# --- the players' links and the GM's answers to them (`serve`: cli/gm_server.py) -------------


class Faces(Request, frozen=True, kw_only=True, tag="faces"):
    """Faces a player typed for one of their character's keys (their Initiative under its
    name, taken by a ``round`` or ``next``; ``death:NAME``, ``con:NAME``...; ``save:NAME``,
    taken by the GM's ``roll DICE --for NAME``), held by the server until the GM's next
    command that rolls that key: they are decided as that player's (the Roll's source)."""

    key: str
    faces: tuple[int, ...]


# What a player may propose: it waits for the GM, who runs it as the GM or declines it.
Proposable = Union[c.Declare, c.Damage, c.ApplyEffect]


class Propose(Request, frozen=True, kw_only=True, tag="propose"):
    """A command a player proposes (an action to declare, damage dealt, a condition)."""

    command: Proposable


class Accept(Request, frozen=True, kw_only=True, tag="accept"):
    """The GM runs the waiting proposal ``id`` as their own command; a note names its proposer."""

    id: int


class Decline(Request, frozen=True, kw_only=True, tag="decline"):
    """The GM drops the waiting proposal ``id``: nothing is recorded."""

    id: int


class RevokeLink(Request, frozen=True, kw_only=True, tag="revoke-link"):
    """A new secret for ``who``'s player link: the old link is refused from then on."""

    who: str


# The fight's commands a surface may send (eventlog/commands.py). Not here: ``carry``,
# ``resume`` and ``move-head`` (recorded by `new --carry` and `new --from`, and by undo, redo,
# branch and switch themselves).
FIGHT: tuple[type[c.Command], ...] = (
    c.AddCombatant, c.AddHidden, c.StartRound, c.Next, c.Declare, c.Resolve, c.Cancel, c.Damage, c.ApplyEffect,
    c.Upkeep, c.Heal, c.Leave, c.Return, c.EndEncounter, c.SetStats, c.Rename, c.RollDice, c.AddNote,
    c.Hide, c.Reveal, c.ChooseBands,
)
TIME_TRAVEL: tuple[type[Request], ...] = (Undo, Redo, Branch, Switch)
READS: tuple[type[Request], ...] = (Explain, Why, Diff, Verify, State, Log, Branches)

AnyRequest = Union[
    c.AddCombatant, c.AddHidden, c.StartRound, c.Next, c.Declare, c.Resolve, c.Cancel, c.Damage, c.ApplyEffect,
    c.Upkeep, c.Heal, c.Leave, c.Return, c.EndEncounter, c.SetStats, c.Rename, c.RollDice, c.AddNote,
    c.Hide, c.Reveal, c.ChooseBands,
    Undo, Redo, Branch, Switch, Explain, Why, Diff, Verify, State, Log, Branches,
]
Anything = c.Command | Request


def tag(request: Any) -> str:
    """A request's tag: the ``type`` of its JSON form."""
    return str(request.__struct_config__.tag)


LINKS: tuple[type[Request], ...] = (Accept, Decline, RevokeLink)  # the GM's answers to the players' links
PLAYERS_OWN: tuple[type[Request], ...] = (Faces, Propose)

_EVERY: tuple[type[Any], ...] = (*FIGHT, *TIME_TRAVEL, *READS, *LINKS, *PLAYERS_OWN, Replay)
TAGS: dict[str, type[Any]] = {tag(kind): kind for kind in _EVERY}

# --- who may send which -----------------------------------------------------------------------

# Role -> the request tags it may send. "gm": the GM's link to one encounter (the fight, time
# travel, notes and the read-only audits of that encounter, answered in the response; nothing
# that opens a file, a server, another encounter or another database: import, export, roster,
# serve, play, run, new and use are the command line's alone; and the answers to the players'
# links). "players": the players' page sends nothing. "player": one character's own link:
# their own action with their own dice, faces held for their next roll (initiative, a death
# save, a concentration save, a save the GM asks), and proposals that wait for the GM; each
# for that character only (:func:`for_character`).
ROLES: Mapping[str, frozenset[str]] = {
    "gm": frozenset(tag(kind) for kind in (*FIGHT, *TIME_TRAVEL, *READS, *LINKS)),
    "players": frozenset(),
    "player": frozenset(tag(kind) for kind in (c.Declare, Faces, Propose)),
}
PLAYER_HELD = 8  # keys of faces held for one character at once
PLAYER_PROPOSALS = 4  # proposals waiting from one character at once
PROPOSALS = 32  # proposals waiting at once, from every link

# What the command line has that no page role may send, with why (said when a page tries).
COMMAND_LINE_ALONE: Mapping[str, str] = {
    "new": "this page plays one encounter: start another from the shell, then `serve` it",
    "use": "this page plays one encounter: `serve` another from the shell",
    "import": "an import reads a file of the GM's machine: run it from the shell",
    "export": "an export writes a file of the GM's machine: run it from the shell",
    "roster": "a roster is a file of the GM's machine: check it from the shell",
    "serve": "the page is served already",
    "play": "the console runs in a terminal",
    "run": "a script runs from the shell: `skirmish run FILE`",
    "amend": "amend from the shell or the console: it decides a branch's commands again",
    "replay": "the page shows the fight's timeline; the narration is the shell's `skirmish replay`",
    "encounters": "this page plays one encounter",
    "rules": "`skirmish rules RULESET` in the shell lists a ruleset's words",
    "bestiary": "`skirmish bestiary` in the shell lists the bundled creatures",
}


def allowed(role: str, request: Anything) -> None:
    """Refuse, in one line naming the role, a request the role may not send."""
    name = tag(request)
    if name not in ROLES.get(role, frozenset()):
        raise BadInput(refusal(role, name))


def owns_key(who: str, key: str) -> bool:
    """Whether dice typed under ``key`` are ``who``'s own: their name (initiative, attack),
    or a ruleset's key for them (``dmg:NAME``, ``death:NAME``, ``con:NAME``...)."""
    name = who.casefold()
    key = key.casefold()
    return key == name or (":" in key and key.split(":", 1)[1] == name)


def for_character(who: str, request: Anything) -> None:
    """Refuse, in one line, a player's request that is not for their character ``who``
    alone: its own action (its ``--with`` figures are the character's: an attack's bonus
    and damage), dice typed under its own keys only, faces for one of its keys, a proposal
    with no dice but its own. Checked after :func:`allowed` ("player")."""
    allowed("player", request)
    if isinstance(request, Faces):
        if not owns_key(who, request.key):
            raise BadInput(f"{who}'s link types {who}'s dice only, not {request.key[:40]!r}")
        if not request.faces:
            raise BadInput("faces: type at least one die's face")
        return
    command: Anything = request.command if isinstance(request, Propose) else request
    if isinstance(command, c.Declare) and command.who.casefold() != who.casefold():
        raise BadInput(f"{who}'s link acts for {who} only, not {command.who[:40]!r}")
    if isinstance(command, c.AtTheTable):
        others = [k for k in command.rolls if not owns_key(who, k)]
        if others:
            raise BadInput(f"{who}'s link types {who}'s dice only, not {others[0][:40]!r}")


def refusal(role: str, name: str) -> str:
    """Why ``role`` may not send the command ``name``, in one line."""
    why = COMMAND_LINE_ALONE.get(name)
    if role == "players":
        return "the players' page sends no commands: it shows the fight"
    if role == "player":
        return f"`{name}` is not for a player's link: its own action, its own dice, or a proposal to the GM"
    if why is not None:
        return f"`{name}` is not for the {role}'s page: {why}"
    return f"`{name}` is not a command the {role}'s page may send"


# --- bounds ----------------------------------------------------------------------------------

NAME_LIMIT = 200  # characters in a name, a kind, an action, a key or a value (a combatant's, a branch's)
TEXT_LIMIT = 2000  # characters in free text: a note, a reason, an outcome in the GM's words
ITEMS_LIMIT = 100  # entries in a dict or list a command carries (stats, details, rolls, bands)
FACES_LIMIT = 1000  # dice faces typed for one key
LINE_LIMIT = 8 * 1024  # characters in one typed line (the console's, a script's): more than any command's fields
# Fields of free text (the rest are names and words).
_FREE_TEXT = frozenset({"text", "reason", "outcome", "why", "trigger", "expect"})


def check_bounds(request: Anything) -> None:
    """Refuse, in one line naming the field, a request carrying more text or entries than a
    table could mean: the same bounds at the command line, the console and the page."""
    for name in request.__struct_fields__:
        _check(getattr(request, name), name.replace("_", "-"), TEXT_LIMIT if name in _FREE_TEXT else NAME_LIMIT)


def _check(value: object, field: str, limit: int) -> None:
    if isinstance(value, str):
        if len(value) > limit:
            raise BadInput(f"{field} is {len(value):,} characters: at most {limit:,} are taken")
    elif isinstance(value, dict):
        if len(value) > ITEMS_LIMIT:
            raise BadInput(f"{field} has {len(value):,} entries: at most {ITEMS_LIMIT} are taken")
        for key, item in value.items():
            _check(key, field, NAME_LIMIT)
            if isinstance(item, tuple) and len(item) > FACES_LIMIT:
                raise BadInput(f"{field} {str(key)[:40]}= has {len(item):,} dice: at most {FACES_LIMIT} are taken")
            if not isinstance(item, tuple):  # a stat's text may be a stat block's line (srd-5.2's actions)
                _check(item, f"{field} {str(key)[:40]}=", TEXT_LIMIT if field == "stats" else NAME_LIMIT)
    elif isinstance(value, c.Command):  # a proposal's command
        check_bounds(value)
    elif isinstance(value, tuple | list):
        if len(value) > ITEMS_LIMIT:
            raise BadInput(f"{field} has {len(value):,} entries: at most {ITEMS_LIMIT} are taken")
        for item in value:
            _check(item, field, limit)


# --- the JSON form -----------------------------------------------------------------------------

def from_json(body: bytes | str) -> Anything:
    """A request from its JSON form; BadInput naming what is wrong, in one line."""
    try:
        data = msgspec.json.decode(body)
    except msgspec.DecodeError as exc:
        raise BadInput(f"not a command (JSON): {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise BadInput('a command is a JSON object with its "type", e.g. {"type": "next"}')
    kind = TAGS.get(data["type"])
    if kind is None or kind is Replay:
        raise BadInput(f"no command {data['type'][:40]!r} is sent this way")
    # A field the command does not have is refused, never ignored: {"type": "damage", ...,
    # "db": "other.db"} must not pass as a damage on this table.
    unknown = sorted(set(data) - set(kind.__struct_fields__) - {"type"})
    if unknown:
        raise BadInput(f"`{data['type']}` has no field {', '.join(repr(k[:40]) for k in unknown[:5])}")
    try:
        request: Anything = msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        raise BadInput(f"`{data['type']}`: {exc}") from None
    check_bounds(request)
    inner = request.command if isinstance(request, Propose) else request
    if isinstance(inner, c.AtTheTable) and inner.typed_by is not msgspec.UNSET:
        # Whose dice they are is the server's to record (the link they came by), never a client's word.
        raise BadInput(f"`{data['type']}`: typed_by is set by the server from the link the dice come by, not sent")
    return request


def to_json(request: Anything) -> dict[str, Any]:
    """A request's JSON form, as a dict."""
    data: dict[str, Any] = msgspec.to_builtins(request)
    return data
