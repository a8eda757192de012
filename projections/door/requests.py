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


_EVERY: tuple[type[Any], ...] = (*FIGHT, *TIME_TRAVEL, *READS, Replay)
TAGS: dict[str, type[Any]] = {tag(kind): kind for kind in _EVERY}

# --- who may send which -----------------------------------------------------------------------

# Role -> the request tags it may send. "gm": the GM's link to one encounter (the fight, time
# travel, notes and the read-only audits of that encounter, answered in the response; nothing
# that opens a file, a server, another encounter or another database: import, export, roster,
# serve, play, run, new and use are the command line's alone). "players": the players' page
# sends nothing. A later role (a player's own link) is one more row.
ROLES: Mapping[str, frozenset[str]] = {
    "gm": frozenset(tag(kind) for kind in (*FIGHT, *TIME_TRAVEL, *READS)),
    "players": frozenset(),
}

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


def refusal(role: str, name: str) -> str:
    """Why ``role`` may not send the command ``name``, in one line."""
    why = COMMAND_LINE_ALONE.get(name)
    if role == "players":
        return "the players' page sends no commands: it shows the fight"
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
    return request


def to_json(request: Anything) -> dict[str, Any]:
    """A request's JSON form, as a dict."""
    data: dict[str, Any] = msgspec.to_builtins(request)
    return data
