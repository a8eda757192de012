"""The `skirmish` console script: the commands the GM types most, and `replay`, read without typer.

`state`, `declare`, `next`, `undo`, `redo`, `damage` and `heal` are most of what a table
types, and a whole process of one was mostly the import of typer, its click and the app's
forty commands (README: Speed); `replay` after the session paid the same start. A line of one of them that this module fully understands
(the options before the command, the command's own options and arguments, the shared
flags of its command type and the encounter's ruleset's own) is parsed here, into the same
values the typer app would parse it into, and run by the same code (cli/table.py) through
the same :class:`~skirmish.cli.invocation.Invocation`. Anything else (`--help`, completion,
an option or a value this module does not know, a missing or an extra argument, a number
that is not plainly one) goes to the typer app unchanged, which prints its help, completes
or refuses exactly as before: this module never prints a parser's error of its own.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import IO, Any, NoReturn

# The global options (cli/app.py main_options): option -> (environment variable, field).
_GLOBAL = {"--db": "SKIRMISH_DB", "--encounter": "SKIRMISH_ENCOUNTER", "--on": "SKIRMISH_BRANCH"}
_COMPLETION = ("_SKIRMISH_COMPLETE", "_TYPER_COMPLETE")  # typer's completion runs through the app
_NEGATIVE_NUMBER = re.compile(r"-\d+")  # cli/app.py NumbersAsArguments: taken as an argument
_NUMBER = re.compile(r"[+-]?[0-9]+", re.ASCII)  # what is an int to typer and to Python alike


class NotHere(Exception):
    """A line this module does not fully understand: the typer app reads it."""


class _Option:
    """One option of a command: its kind (int, str, or bool for a flag alone), whether it
    may be given more than once, and where its value goes."""

    __slots__ = ("dest", "kind", "many", "own")

    def __init__(self, dest: str, kind: type, many: bool = False, own: bool = False) -> None:
        self.dest, self.kind, self.many, self.own = dest, kind, many, own


class _Spec:
    """A command's parameters as the typer app declares them (cli/main.py)."""

    def __init__(self, arguments: Sequence[tuple[str, type]], options: dict[str, _Option], optional: int = 0,
                 table: str | None = None) -> None:
        self.arguments = arguments  # (name, kind) in order; the last ``optional`` of them may be left out
        self.optional = optional
        self.options = options
        self.table = table  # the command type's name in eventlog/commands.py: its shared flags and the ruleset's own


_ROLL = _Option("roll", str, many=True)
_WITH = _Option("with_", str, many=True)

_SPECS = {
    "state": _Spec((), {"--at": _Option("at", int), "--json": _Option("as_json", bool), "--wide": _Option("wide", bool)}),
    "undo": _Spec((("steps", int),), {}, optional=1),
    "redo": _Spec((("steps", int),), {}, optional=1),
    "next": _Spec((), {"--roll": _ROLL, "--with": _WITH}, table="Next"),
    "declare": _Spec((("who", str), ("action", str)), {"--roll": _ROLL, "--with": _WITH}, table="Declare"),
    "damage": _Spec((("who", str), ("amount", int)), {"--roll": _ROLL, "--with": _WITH}, table="Damage"),
    "heal": _Spec((("who", str), ("amount", int)), {"--with": _WITH}, table="Heal"),
    "replay": _Spec((), {"--from": _Option("from_", int), "--to": _Option("to", int)}),
}


def main() -> None:
    """The console script: a line this module understands runs here, any other through the
    typer app (cli/main.py)."""
    import gc

    # The cyclic garbage collector walks every object the imports made, again and again
    # as they are made (about 4% of a `state`'s instructions): a command here is short and
    # bounded (a fold from the nearest cached state), and what it frees, reference counting
    # frees. A `replay` is long but makes no cycles that outlive an event: its peak memory
    # at 1M events is that of 10k with the collector off (22-25 MiB), 4 MiB below the app's
    # with it on, and its collections were 5% of its instructions at 10k. Any other line
    # gets the collector back before the app is even imported. This module imports the
    # store (sqlite3, datetime, skirmish's own) only after this line.
    gc.disable()
    from skirmish.cli.stopping import stopped_like_ctrl_c

    args = sys.argv[1:]
    # `kill` and a closed terminal clean up as Ctrl-C does, in every command (cli/stopping.py).
    with stopped_like_ctrl_c():
        code = run_fast(args)
        if code is None:
            gc.enable()
            from skirmish.cli.main import run_cli

            sys.exit(run_cli(args))
    end(code)


def end(code: int) -> NoReturn:
    """Exit with ``code`` once a command run here is done, without the interpreter's teardown.

    The teardown frees every module and object one by one and collects the cycles among
    them (about a tenth of a `next`'s instructions: `valgrind --tool=callgrind`), work the
    operating system does at once as the process ends. What the teardown does that anyone
    could see is done first: the atexit handlers run and the output is flushed; the
    database was closed (checkpointed, its -wal removed) by the command's own cleanup
    (Invocation.close, in _run's ``finally``). Where one of these cannot be done as at a
    usual exit (another thread still running, a stream that will not flush, an interpreter
    without atexit's runner), the usual exit."""
    import atexit

    threading = sys.modules.get("threading")
    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_handlers is None or (threading is not None and threading.active_count() > 1):
        sys.exit(code)
    run_handlers()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except Exception:
        sys.exit(code)  # the usual exit reports the stream as it always did
    os._exit(code)


def run_fast(args: Sequence[str]) -> int | None:
    """Run a command line as `skirmish` would and return its exit code, or None, having
    done nothing, when the line is not one this module reads (the typer app then does)."""
    if any(name.startswith(_COMPLETION) for name in os.environ):
        return None
    words = list(args)
    pins: dict[str, str | None] = {option: os.environ.get(var) or None for option, var in _GLOBAL.items()}
    while words and words[0].startswith("--"):
        option, eq, value = words[0].partition("=")
        if option not in _GLOBAL:
            return None  # --help, --install-completion, a mistyped option: the app's
        if not eq:
            if len(words) < 2:
                return None
            value = words[1]
        pins[option] = value
        words = words[1 + (not eq):]
    if not words or words[0] not in _SPECS:
        return None
    from skirmish.cli.invocation import Invocation, command_text
    from skirmish.eventlog.connection import DEFAULT_DB

    db = pins["--db"]  # an empty variable is no value, an empty --db "" is one (as typer reads them)
    run = Invocation(
        db=DEFAULT_DB if db is None else db, text=command_text(args),
        encounter_pin=pins["--encounter"] or None, branch_pin=pins["--on"] or None,
    )
    return _run(run, lambda: _bind(words[0], words[1:], run)())


def _run(run: Any, call: Callable[[], None]) -> int | None:
    """Run a command as cli/main.py's run_cli does (under typer's own handling of Ctrl-C, end
    of input and a closed pipe: `replay | head -1` ends with 1 and nothing on stderr): every
    error one `Error:` line on stderr. None, having done nothing, where its line turned out
    not to be one this module reads (NotHere is raised while it is parsed, before anything
    is printed or recorded)."""
    from skirmish.cli.invocation import error, say
    from skirmish.eventlog.errors import SkirmishError

    try:
        call()
        return 0
    except NotHere:
        return None
    except KeyboardInterrupt:
        return 130
    except EOFError:
        error("")
        error("Error: aborted")
        return 1
    except SkirmishError as exc:
        error(f"Error: {exc}")
        if run.records:
            say("Nothing was recorded (`skirmish undo` would take back the command before this one).")
        return exc.exit_code
    except Exception as exc:
        if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
            sys.stdout = _Pacified(sys.stdout)
            sys.stderr = _Pacified(sys.stderr)
            sys.exit(1)
        if os.environ.get("SKIRMISH_DEBUG"):
            raise
        # A bug, not bad input: still one line, and nothing was appended (the store's
        # transaction rolled back or never began). SKIRMISH_DEBUG=1 shows the traceback.
        error(f"Error: internal error, please report it: {type(exc).__name__}: {exc}")
        return 70
    finally:
        run.close()


class _Pacified:
    """A stream whose flush at the interpreter's exit does not fail on a closed pipe
    (typer's own answer to a reader that went away, e.g. `skirmish state | head -1`)."""

    def __init__(self, wrapped: IO[Any]) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.wrapped, attr)


def _bind(name: str, words: Sequence[str], run: Any) -> Callable[[], None]:
    """The command a line names, its words parsed as the typer app parses them; NotHere
    where the app's parse could differ or fail."""
    spec = _SPECS[name]
    options = dict(spec.options)
    shared: dict[str, Any] = {}
    if spec.table is not None:
        for name_, flag_option in _shared_flags(spec.table).items():
            options[name_] = flag_option
            shared[flag_option.dest] = None
    values: dict[str, Any] = {option.dest: [] if option.many else None for option in options.values()}
    # cli/app.py NumbersAsArguments: a negative number anywhere makes every word the
    # parser does not know an argument; only a negative number is read so here.
    numbers_as_arguments = any(_NEGATIVE_NUMBER.fullmatch(word) for word in words)
    own_looked_up = False
    arguments: list[str] = []
    rest = list(words)
    while rest:
        word = rest.pop(0)
        if word == "--":
            raise NotHere
        if not word.startswith("-") or len(word) == 1:
            arguments.append(word)
            continue
        if not word.startswith("--"):
            if numbers_as_arguments and _NEGATIVE_NUMBER.fullmatch(word):
                arguments.append(word)
                continue
            raise NotHere
        flag, eq, value = word.partition("=")
        option = options.get(flag)
        if option is None and spec.table is not None and not own_looked_up:
            own_looked_up = True
            for own_flag, own in _own_flags(run, spec.table).items():
                options.setdefault(own_flag, own)
                values.setdefault(own.dest, None)
            option = options.get(flag)
        if option is None:
            raise NotHere
        if option.kind is bool:
            if eq:
                raise NotHere
            values[option.dest] = True
            continue
        if not eq:
            if not rest:
                raise NotHere
            value = rest.pop(0)
        converted = _convert(value, option.kind)
        if option.many:
            values[option.dest].append(converted)
        else:
            values[option.dest] = converted  # given twice: the last, as the app takes it
    required = len(spec.arguments) - spec.optional
    if not required <= len(arguments) <= len(spec.arguments):
        raise NotHere
    given = {key: _convert(word, kind) for (key, kind), word in zip(spec.arguments, arguments)}
    for each in options.values():
        if each.many:
            values[each.dest] = values[each.dest] or None
    own_words = [f"{each.dest}={text}" for each in options.values()
                 if each.own and (text := _own_text(values.pop(each.dest))) is not None]
    if own_words:
        values["with_"] = [*(values["with_"] or ()), *own_words]
    flags = {key: values.pop(key) for key in shared}
    return _command(name, run, given, values, flags)


def _convert(word: str, kind: type) -> Any:
    if kind is int:
        if not _NUMBER.fullmatch(word):
            raise NotHere  # the app's refusal, or its reading of a number Python's int reads
        return int(word)
    return word


def _own_text(value: int | str | bool | None) -> str | None:
    from skirmish.projections.ruleset import own_value

    return own_value(value)


def _shared_flags(table: str) -> dict[str, _Option]:
    """The command type's shared flags (its optional fields: --ap, --target, ...), as
    cli/app.py's _WithFlags makes them options: an int or a text each."""
    import typing

    import msgspec

    from skirmish.eventlog import commands as c
    from skirmish.projections.ruleset import flag_name, optional_fields

    command_type = getattr(c, table)
    types = {f.name: f.type for f in msgspec.structs.fields(command_type)}
    out: dict[str, _Option] = {}
    for name, _default in optional_fields(command_type):
        kind = types[name]
        if typing.get_origin(kind) is typing.Annotated:
            kind = typing.get_args(kind)[0]
        inner = [t for t in typing.get_args(kind) if t is not type(None)]
        if len(inner) != 1 or inner[0] not in (int, str):
            raise NotHere  # a flag alone (effect --end): the app's
        out[flag_name(name)] = _Option(name, inner[0])
    return out


def _own_flags(run: Any, table: str) -> dict[str, _Option]:
    """The encounter's ruleset's own flags on this command (cli/app.py TableCommand), looked
    up, as there, only when a line holds an option the command does not otherwise have."""
    from skirmish.eventlog import commands as c
    from skirmish.eventlog.errors import SkirmishError
    from skirmish.projections.ruleset import own_flags

    try:
        ruleset = run.encounter().ruleset
    except SkirmishError:
        raise NotHere from None  # the app names the option it does not know
    return {"--" + name: _Option(name, flag.kind, own=True) for name, flag in own_flags(ruleset, getattr(c, table)).items()}


def _command(name: str, run: Any, given: dict[str, Any], values: dict[str, Any], flags: dict[str, Any]) -> Callable[[], None]:
    """What cli/main.py's command of that name does with the parsed values."""
    from skirmish.cli import table
    from skirmish.cli.invocation import details, rolls
    from skirmish.eventlog import commands as c

    if name == "state":
        def state() -> None:
            with run.log_file().reading():
                table.state(run, values["at"], bool(values["as_json"]), bool(values["wide"]))
        return state
    if name == "replay":
        def replay() -> None:
            from skirmish.cli.invocation import text_stdout

            with run.log_file().reading():
                table.replay(run, values["from_"], values["to"], text_stdout)
        return replay
    if name in ("undo", "redo"):
        steps = given.get("steps", 1)
        return lambda: (table.undo if name == "undo" else table.redo)(run, steps)

    def execute() -> None:
        # rolls before details, as cli/main.py builds each command: the same first refusal
        if name == "next":
            cmd: c.Command = c.Next(rolls=rolls(values["roll"]), details=details(values["with_"]))
        elif name == "declare":
            cmd = c.Declare(who=given["who"], action=given["action"], rolls=rolls(values["roll"]),
                            details=details(values["with_"]), **flags)
        elif name == "damage":
            cmd = c.Damage(who=given["who"], amount=given["amount"], rolls=rolls(values["roll"]),
                           details=details(values["with_"]))
        else:
            cmd = c.Heal(who=given["who"], amount=given["amount"], details=details(values["with_"]))
        table.execute(run, cmd)
    return execute
