"""The one parser: a command line's words to a typed request (projections/door/requests.py).

`skirmish`'s fast path, its typer app (for every command it knows here), `amend`'s new
command, a `run` script's lines and the console all read a command through :func:`parse`.
A word it cannot read raises :class:`Unparsed`, a one-line BadInput naming the word: the
console and a script show it; the command line hands such a line to its typer app instead,
which prints its usage (help, completion and its own wording of a usage error stay its).

Each command's parameters are written once, in :data:`SPECS`; the typer app's declarations
of the same commands (their help and completion) are held to them by
tests/cli/test_one_parser.py. A command at the table takes, besides its own, its command
type's shared flags (the struct's optional fields: ``--target``, ``--hits``, ...) and the
encounter's ruleset's own flags, which travel in ``details`` as ``--with NAME=VALUE`` would.

Every parse here is linear in its input: :func:`split_line` reads a typed line with one
regular expression, and a line over :data:`~skirmish.projections.door.requests.LINE_LIMIT`
characters is refused before it is read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from skirmish.eventlog import commands as c
from skirmish.eventlog.errors import BadInput
from skirmish.projections.door import requests as r


class Unparsed(BadInput):
    """The words are not a command this parser reads: one line saying which word and why."""


_NUMBER = re.compile(r"[+-]?[0-9]+", re.ASCII)  # an int to the typer app and to Python alike
_NEGATIVE = re.compile(r"-[0-9]+", re.ASCII)


class Opt:
    """One option: where its value goes, its kind (int, str, or bool for a flag alone) and
    whether it may be given more than once."""

    __slots__ = ("dest", "kind", "many", "own")

    def __init__(self, dest: str, kind: type, many: bool = False, own: bool = False) -> None:
        self.dest, self.kind, self.many, self.own = dest, kind, many, own


class Spec:
    """A command's parameters: its arguments in order (the last ``optional`` of them may be
    left out; ``rest``: the last one takes every word left, at least one unless optional),
    its options, and the command type whose shared and ruleset flags it takes."""

    __slots__ = ("arguments", "optional", "rest", "options", "table", "shell")

    def __init__(self, arguments: Sequence[tuple[str, type]] = (), options: dict[str, Opt] | None = None,
                 optional: int = 0, rest: bool = False, table: type[c.AtTheTable] | None = None,
                 shell: tuple[str, ...] = ()) -> None:
        self.arguments = tuple(arguments)
        self.optional = optional
        self.rest = rest
        self.options = options or {}
        self.table = table
        self.shell = shell  # options the command line alone has (a file, a write of the file): not read here


_ROLL = Opt("roll", str, many=True)
_WITH = Opt("with_", str, many=True)
_JSON = Opt("as_json", bool)
_WHO = ("who", str)

SPECS: dict[str, Spec] = {
    "add": Spec([("name", str)], {"--side": Opt("side", str), "--stat": Opt("stat", str, many=True),
                                  "--count": Opt("count", int), "--hidden": Opt("hidden", bool)},
                shell=("--from", "--hp", "--roll")),
    "round": Spec((), {"--roll": _ROLL, "--with": _WITH}, table=c.StartRound),
    "next": Spec((), {"--roll": _ROLL, "--with": _WITH}, table=c.Next),
    "declare": Spec([_WHO, ("action", str)], {"--roll": _ROLL, "--with": _WITH}, table=c.Declare),
    "resolve": Spec([_WHO], {"--roll": _ROLL, "--with": _WITH}, table=c.Resolve),
    "cancel": Spec([_WHO], {"--with": _WITH}, table=c.Cancel),
    "damage": Spec([_WHO, ("amount", int)], {"--roll": _ROLL, "--with": _WITH}, table=c.Damage),
    "heal": Spec([_WHO, ("amount", int)], {"--with": _WITH}, table=c.Heal),
    "leave": Spec([_WHO], {"--reason": Opt("reason", str)}),
    "return": Spec([_WHO]),
    "effect": Spec([_WHO, ("kind", str)], {"--custom": Opt("custom", bool), "--with": _WITH}, table=c.ApplyEffect),
    "upkeep": Spec((), {"--with": _WITH}, table=c.Upkeep),
    "note": Spec([("event", str), ("text", str)], {"--private": Opt("private", bool), "--on": Opt("on", str)}, optional=1),
    "end": Spec((), {"--reason": Opt("reason", str)}),
    "set": Spec([_WHO, ("stat", str)], optional=1, rest=True),
    "rename": Spec([_WHO, ("new", str)]),
    "roll": Spec([("dice", str)], {"--for": Opt("for_", str), "--why": Opt("why", str), "--roll": Opt("faces", str)}),
    "hide": Spec([_WHO]),
    "reveal": Spec([_WHO]),
    "bands": Spec([("full", str), ("band", str)], rest=True),
    "undo": Spec([("steps", int)], optional=1),
    "redo": Spec([("steps", int)], optional=1),
    "branch": Spec([("name", str)], {"--at": Opt("at", int), "--before": Opt("before", int)}),
    "switch": Spec([("name", str)]),
    "explain": Spec([("event", int)], {"--json": _JSON}),
    "why": Spec([_WHO, ("figure", str)], {"--json": _JSON, "--limit": Opt("limit", int)}, optional=1),
    "diff": Spec([("a", str), ("b", str)], {"--json": _JSON}),
    "verify": Spec((), {"--expect": Opt("expect", str), "--json": _JSON}, shell=("--rebuild-snapshots",)),
    "state": Spec((), {"--at": Opt("at", int), "--json": _JSON, "--wide": Opt("wide", bool)}),
    "log": Spec((), {"--all": Opt("every", bool), "--json": _JSON, "--limit": Opt("limit", int),
                     "--from": Opt("start", int)}),
    "branches": Spec((), {"--json": _JSON}),
    "replay": Spec((), {"--from": Opt("start", int), "--to": Opt("to", int)}),
}


class Parsed:
    """A parsed line: the request, and how the command line shows its answer (``--json``,
    ``--wide``: not part of the request, which is the same whoever shows it)."""

    __slots__ = ("name", "request", "shown")

    def __init__(self, name: str, request: r.Anything, shown: dict[str, bool]) -> None:
        self.name, self.request, self.shown = name, request, shown


RulesetOf = Callable[[], Any]  # the encounter's ruleset, asked only when a line holds a flag of its own


def parse(words: Sequence[str], ruleset: RulesetOf | None = None) -> Parsed:
    """The request a command line's words stand for (without `skirmish` and the options
    before the command: --db, --encounter, --on); :class:`Unparsed` when they are not one."""
    if not words:
        raise Unparsed("no command: type one, e.g. `next` or `damage Orc 7`")
    name = words[0]
    spec = SPECS.get(name)
    if spec is None:
        if name in r.COMMAND_LINE_ALONE:
            raise Unparsed(f"`{name}` is not taken here: {r.COMMAND_LINE_ALONE[name]}")
        raise Unparsed(f"no command {_short(name)!r} (`skirmish --help` lists them)")
    values, arguments = _read(name, spec, words[1:], ruleset)
    request = _BUILD[name](_arguments(name, spec, arguments), values)
    r.check_bounds(request)
    shown = {key: bool(values.pop(key, False)) for key in ("as_json", "wide")}
    return Parsed(name, request, shown)


def _short(word: str, most: int = 40) -> str:
    return word if len(word) <= most else word[:most] + "..."


def _read(name: str, spec: Spec, words: Sequence[str], ruleset: RulesetOf | None) -> tuple[dict[str, Any], list[str]]:
    options = dict(spec.options)
    shared: list[str] = []
    if spec.table is not None:
        for flag, each in shared_flags(spec.table).items():
            options[flag] = each
            shared.append(each.dest)
    values: dict[str, Any] = {option.dest: [] if option.many else False if option.kind is bool else None
                              for option in options.values()}
    # A negative number typed where a number goes ("damage Orc -5") is that number, so the
    # command's refusal says what is wrong with it (cli/app.py NumbersAsArguments).
    numbers_as_arguments = any(_NEGATIVE.fullmatch(word) for word in words)
    own_looked_up = False
    arguments: list[str] = []
    position = 0
    while position < len(words):
        word = words[position]
        position += 1
        if word == "--":
            arguments.extend(words[position:])
            break
        if not word.startswith("-") or word == "-" or (numbers_as_arguments and _NEGATIVE.fullmatch(word)):
            arguments.append(word)
            continue
        flag, eq, value = word.partition("=")
        option: Opt | None = options.get(flag)
        if option is None and spec.table is not None and not own_looked_up and ruleset is not None:
            own_looked_up = True
            found = ruleset()
            if found is not None:
                for own_flag, own in ruleset_flags(found, spec.table).items():
                    options.setdefault(own_flag, own)
                    values.setdefault(own.dest, None)
                option = options.get(flag)
        if option is None:
            if flag in spec.shell:
                raise Unparsed(f"`{name} {flag}` reads or writes a file of the GM's machine: run it from the shell")
            raise Unparsed(f"`{name}` takes no option {_short(flag)!r}")
        if option.kind is bool:
            if eq:
                raise Unparsed(f"{flag} is a switch: it takes no value ({_short(word)!r})")
            values[option.dest] = True
            continue
        if not eq:
            if position >= len(words):
                raise Unparsed(f"{flag} takes a value")
            value = words[position]
            position += 1
        converted = _convert(value, option.kind, flag)
        if option.many:
            values[option.dest].append(converted)
        else:
            values[option.dest] = converted  # given twice: the last, as the command line takes it
    own_words = [f"{option.dest}={text}" for option in options.values()
                 if option.own and (text := _own_text(values.pop(option.dest, None))) is not None]
    if own_words:
        values["with_"] = [*(values.get("with_") or ()), *own_words]
    values["_shared"] = {dest: values.pop(dest) for dest in shared}
    return values, arguments


def _arguments(name: str, spec: Spec, words: list[str]) -> dict[str, Any]:
    names = spec.arguments
    required = len(names) - spec.optional
    if len(words) < required:
        missing = names[len(words)][0].upper()
        raise Unparsed(f"`{name}` needs its {missing} ({_usage(name, spec)})")
    if len(words) > len(names) and not spec.rest:
        raise Unparsed(f"`{name}` takes {_usage(name, spec)}; {_short(words[len(names)])!r} is one word too many")
    given: dict[str, Any] = {}
    for index, (key, kind) in enumerate(names):
        if spec.rest and index == len(names) - 1:
            given[key] = [_convert(w, kind, key.upper()) for w in words[index:]]
        elif index < len(words):
            given[key] = _convert(words[index], kind, key.upper())
    return given


def _usage(name: str, spec: Spec) -> str:
    parts = [name]
    for index, (key, _) in enumerate(spec.arguments):
        word = key.upper() + ("..." if spec.rest and index == len(spec.arguments) - 1 else "")
        parts.append(f"[{word}]" if index >= len(spec.arguments) - spec.optional else word)
    return " ".join(parts)


def _convert(word: str, kind: type, what: str) -> Any:
    if kind is int:
        if not _NUMBER.fullmatch(word):
            raise Unparsed(f"{what} takes a whole number, not {_short(word)!r}")
        return int(word)
    return word


def _own_text(value: int | str | bool | None) -> str | None:
    if value is None or value is False:
        return None
    return "yes" if value is True else str(value)


_SHARED: dict[type, dict[str, Opt]] = {}


def shared_flags(table: type[c.AtTheTable]) -> dict[str, Opt]:
    """The command type's shared flags (its optional fields: --target, --hits, --end, ...)."""
    found = _SHARED.get(table)
    if found is not None:
        return found
    import typing

    import msgspec

    from skirmish.projections.ruleset import flag_name, optional_fields

    types = {f.name: f.type for f in msgspec.structs.fields(table)}
    out: dict[str, Opt] = {}
    for name, _default in optional_fields(table):
        kind = types[name]
        if typing.get_origin(kind) is typing.Annotated:
            kind = typing.get_args(kind)[0]
        inner = [t for t in typing.get_args(kind) if t is not type(None)] or [kind]
        out[flag_name(name)] = Opt(name, inner[0] if inner[0] in (int, str, bool) else str)
    _SHARED[table] = out
    return out


def ruleset_flags(ruleset: Any, table: type[c.AtTheTable]) -> dict[str, Opt]:
    """The encounter's ruleset's own flags on this command type (``Ruleset.flags``)."""
    from skirmish.projections.ruleset import own_flags

    return {"--" + name: Opt(name, flag.kind, own=True) for name, flag in own_flags(ruleset, table).items()}


# --- the requests the words build ------------------------------------------------------------


def pairs(items: Sequence[str] | None, what: str, lower: bool = True) -> dict[str, str]:
    """KEY=VALUE words as a dict (--stat, --with, --roll, set's STAT=N)."""
    out: dict[str, str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise BadInput(f"{what} takes KEY=VALUE, not {_short(item)!r}")
        key = key.strip().lower() if lower else key.strip()
        if key.lower() in (k.lower() for k in out):
            raise BadInput(f"{what} {_short(key)}= is given twice")
        out[key] = value.strip()
    return out


def details(items: Sequence[str] | None) -> dict[str, str]:
    return pairs(items, "--with")


def rolls(items: Sequence[str] | None) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {}
    for name, faces in pairs(items, "--roll", lower=False).items():
        out[name] = faces_of(faces, f"--roll {_short(name)}=", f"{_short(name)}=6,8")
    return out


def faces_of(text: str, what: str, example: str) -> tuple[int, ...]:
    words = text.split(",")
    if len(words) > r.FACES_LIMIT:
        raise BadInput(f"{what} has {len(words):,} dice: at most {r.FACES_LIMIT} are taken")
    if not all(_NUMBER.fullmatch(w.strip()) for w in words):
        raise BadInput(f"{what} takes the faces as numbers, e.g. {example}; not {_short(text)!r}")
    return tuple(int(w) for w in words)


def note(event: str, text: str | None, private: bool, on: str | None) -> c.AddNote:
    """`note EVENT TEXT`, or `note --on WHO TEXT` (written at the head)."""
    if on is not None:
        if text is not None:
            raise BadInput("note --on WHO takes the TEXT alone, not an EVENT (it is written at the head)")
        return c.AddNote(event=0, text=event, private=private, on=on)
    if text is None:
        raise BadInput("note takes EVENT TEXT, or --on WHO TEXT")
    if not _NUMBER.fullmatch(event):
        raise BadInput(f"note takes an event id (a number) before its TEXT, not {_short(event)!r}; "
                       "--on WHO notes a combatant")
    return c.AddNote(event=int(event), text=text, private=private)


def roll(dice: str, who: str | None, why: str, faces: str | None) -> c.RollDice:
    """`roll DICE [--for WHO] [--why TEXT] [--roll FACES]`."""
    from skirmish.projections.gm import DICE_KEY

    found = {DICE_KEY: faces_of(faces, "--roll", "4,5")} if faces is not None else {}
    return c.RollDice(dice=dice, who=who, why=why, rolls=found)


def bands(full: str, words: Sequence[str]) -> c.ChooseBands:
    chosen: list[tuple[str, int]] = []
    for word in words:
        label, sep, percent = word.rpartition("=")
        if not sep or not label.strip():
            raise BadInput(f"a band is LABEL=PERCENT, not {_short(word)!r}")
        if not _NUMBER.fullmatch(percent):
            raise BadInput(f"band {_short(label)!r} takes a whole percent, not {_short(percent)!r}")
        chosen.append((label, int(percent)))
    return c.ChooseBands(full=full, bands=tuple(chosen))


def _add(a: dict[str, Any], v: dict[str, Any]) -> r.Anything:
    kind = c.AddHidden if v["hidden"] else c.AddCombatant
    count = 1 if v["count"] is None else v["count"]
    return kind(name=a["name"], side=v["side"] or "neutral", stats=pairs(v["stat"], "--stat"), count=count)


def _table(kind: type[c.AtTheTable], *keys: str, dice: bool = True) -> Callable[[dict[str, Any], dict[str, Any]], r.Anything]:
    def build(a: dict[str, Any], v: dict[str, Any]) -> r.Anything:
        # rolls before details, as the command line always built them: the same first refusal
        found: dict[str, Any] = {"rolls": rolls(v["roll"])} if dice else {}
        return kind(**{k: a[k] for k in keys}, **found, details=details(v["with_"]), **v["_shared"])
    return build


_BUILD: dict[str, Callable[[dict[str, Any], dict[str, Any]], r.Anything]] = {
    "add": _add,
    "round": _table(c.StartRound),
    "next": _table(c.Next),
    "declare": _table(c.Declare, "who", "action"),
    "resolve": _table(c.Resolve, "who"),
    "cancel": _table(c.Cancel, "who", dice=False),
    "damage": _table(c.Damage, "who", "amount"),
    "heal": _table(c.Heal, "who", "amount", dice=False),
    "upkeep": _table(c.Upkeep, dice=False),
    "effect": lambda a, v: c.ApplyEffect(who=a["who"], kind=a["kind"], custom=bool(v["custom"]),
                                         details=details(v["with_"]), **v["_shared"]),
    "leave": lambda a, v: c.Leave(who=a["who"], reason="leaves the fight" if v["reason"] is None else v["reason"]),
    "return": lambda a, v: c.Return(who=a["who"]),
    "note": lambda a, v: note(a["event"], a.get("text"), bool(v["private"]), v["on"]),
    "end": lambda a, v: c.EndEncounter(reason=v["reason"] or ""),
    "set": lambda a, v: c.SetStats(who=a["who"], stats=pairs(a.get("stat"), "set")),
    "rename": lambda a, v: c.Rename(who=a["who"], to=a["new"]),
    "roll": lambda a, v: roll(a["dice"], v["for_"], v["why"] or "", v["faces"]),
    "hide": lambda a, v: c.Hide(who=a["who"]),
    "reveal": lambda a, v: c.Reveal(who=a["who"]),
    "bands": lambda a, v: bands(a["full"], a["band"]),
    "undo": lambda a, v: r.Undo(steps=a.get("steps", 1)),
    "redo": lambda a, v: r.Redo(steps=a.get("steps", 1)),
    "branch": lambda a, v: r.Branch(name=a["name"], at=v["at"], before=v["before"]),
    "switch": lambda a, v: r.Switch(name=a["name"]),
    "explain": lambda a, v: r.Explain(event=a["event"]),
    "why": lambda a, v: r.Why(who=a["who"], figure=a.get("figure"), limit=v["limit"]),
    "diff": lambda a, v: r.Diff(a=a["a"], b=a["b"]),
    "verify": lambda a, v: r.Verify(expect=v["expect"]),
    "state": lambda a, v: r.State(at=v["at"], wide=bool(v["wide"])),
    "log": lambda a, v: r.Log(limit=v["limit"], start=v["start"], every=bool(v["every"])),
    "branches": lambda a, v: r.Branches(),
    "replay": lambda a, v: r.Replay(start=v["start"], to=v["to"]),
}


# --- a typed line -------------------------------------------------------------------------------

# A token: blanks, a comment, a word (bare characters, a backslash escaping the next one,
# 'single' and "double" quoted pieces, joined), or one character no word takes (an open quote).
_TOKEN = re.compile(r"""\s+|#[^\n]*|(?:[^\s'"\\]|\\.|'[^']*'|"(?:[^"\\]|\\.)*")+|.""", re.S)
_UNQUOTE = re.compile(r"""\\(.)|'([^']*)'|"((?:[^"\\]|\\.)*)"|([^'"\\]+)""", re.S)
_DOUBLE_ESCAPE = re.compile(r"""\\([\\"$`\n])""")


def split_line(line: str) -> list[str]:
    """A typed line's words as a POSIX shell splits them (quotes, backslashes, `#` starting
    a comment at a word's start), in time linear in the line; BadInput for an open quote or
    a line over LINE_LIMIT characters."""
    if len(line) > r.LINE_LIMIT:
        raise BadInput(f"the line is {len(line):,} characters: at most {r.LINE_LIMIT:,} are taken")
    words: list[str] = []
    for match in _TOKEN.finditer(line):
        token = match.group()
        if token[0].isspace():
            continue
        if token[0] == "#":
            break
        if token in ("'", '"', "\\"):
            raise BadInput("a quote is not closed (quote names with spaces: \"Goblin 1\")")
        words.append("".join(_unquote(m) for m in _UNQUOTE.finditer(token)))
    return words


def _unquote(match: re.Match[str]) -> str:
    escaped, single, double, bare = match.groups()
    if escaped is not None:
        return "" if escaped == "\n" else escaped
    if single is not None:
        return single
    if double is not None:
        return _DOUBLE_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), double)
    return bare


# --- a request as it would have been typed ----------------------------------------------------

# A spec's argument or option that is a field of another name, or a dict of KEY=VALUE words.
_FIELD = {"new": "to", "stat": "stats", "band": "bands", "for_": "who"}


def as_typed(request: r.Anything, ruleset: Any = None) -> str:
    """The command line a request stands for, as the log keeps a command's text (a typed
    request from the GM's page is logged as if typed): parsed again, it is the request.
    ``ruleset``: the encounter's, whose own flags (ap-countdown's ``--ap``) travel in
    ``details``; given, they are written as those flags, else as ``--with KEY=VALUE``."""
    import shlex

    name = "add" if isinstance(request, c.AddHidden) else r.tag(request)
    spec = SPECS[name]
    out = [name]
    skip = {"rolls", "details"}
    note_on = request if isinstance(request, c.AddNote) and request.on is not None else None
    for key, _kind in spec.arguments:
        field = _FIELD.get(key, key)
        value = getattr(request, field, None)
        skip.add(field)
        if note_on is not None and key == "event":
            out.append(note_on.text)
            break
        if value is None or _DEFAULTS.get((name, field)) == value:
            continue
        if field == "stats":
            out.extend(f"{k}={v}" for k, v in value.items())
        elif field == "bands":
            out.extend(f"{label}={percent}" for label, percent in value)
        else:
            out.append(str(value))
    options = dict(spec.options)
    if spec.table is not None:
        options.update(shared_flags(spec.table))
    for flag, option in options.items():
        field = _FIELD.get(option.dest, option.dest)
        if option.dest == "roll":
            for key, faces in getattr(request, "rolls", {}).items():
                out += [flag, f"{key}={','.join(map(str, faces))}"]
        elif option.dest == "with_":
            own = ruleset_flags(ruleset, spec.table) if ruleset is not None and spec.table is not None else {}
            for key, value in getattr(request, "details", {}).items():
                mine = own.get("--" + key)
                if mine is None:
                    out += [flag, f"{key}={value}"]
                elif mine.kind is bool:
                    out += ["--" + key] if value == "yes" else []
                else:
                    out += ["--" + key, value]
        elif option.dest == "faces":
            from skirmish.projections.gm import DICE_KEY

            if (faces := getattr(request, "rolls", {}).get(DICE_KEY)) is not None:
                out += [flag, ",".join(map(str, faces))]
        elif option.dest == "hidden":
            if isinstance(request, c.AddHidden):
                out.append(flag)
        elif option.dest == "stat":
            out.extend(word for k, v in getattr(request, "stats", {}).items() for word in (flag, f"{k}={v}"))
        elif field not in skip and hasattr(request, field):
            value = getattr(request, field)
            default = _DEFAULTS.get((name, field))
            if value is None or value is False or value == default:
                continue
            out += [flag] if value is True else [flag, str(value)]
    return shlex.join(out)


_DEFAULTS = {("add", "side"): "neutral", ("add", "count"): 1, ("leave", "reason"): "leaves the fight",
             ("end", "reason"): "", ("roll", "why"): "", ("note", "event"): 0, ("undo", "steps"): 1,
             ("redo", "steps"): 1}
