"""The command-line app every `skirmish` command registers on, and what one run carries.

Per-run state lives on Typer's context object (an :class:`Invocation`), never in module
globals: a `run` script, an `amend` that parses its replacement command and the tests'
in-process calls each get their own. The options several commands share are written
once, as ``Annotated`` aliases. No module here prints `Error:`: a SkirmishError goes up to
:func:`skirmish.cli.main.run_cli`, the one place that does.

The command modules (main, audit, reports) import this one; this one imports none of
them.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar

import typer
from typer.core import TyperCommand

from skirmish.eventlog import commands as c
from skirmish.eventlog.connection import DEFAULT_DB, FILES
from skirmish.eventlog.errors import BadInput, SkirmishError
from skirmish.eventlog.text import escape_controls, json_safe
from skirmish.projections.engine import Encounter, LogFile


def make_app() -> typer.Typer:
    return typer.Typer(
        name="skirmish",
        help="An event-sourced log and replayer for tactical combat encounters.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )


app = make_app()


@dataclass
class Invocation:
    """One run of one command line: the database, the command as typed (stored beside its
    events), the `run` script's "file:line: " before each error, and, while `amend`
    parses a replacement command, the list its parsed command goes to instead of running."""

    db: str = DEFAULT_DB
    text: str = ""
    prefix: str = ""
    capture: list[c.Command] | None = None
    shared: LogFile | None = None  # a `run` script's file (its lines are one transaction), or the console's
    records: bool = False  # the command would have recorded something (a refusal says nothing was)
    encounter_pin: str | None = None  # --encounter / SKIRMISH_ENCOUNTER: this shell's table, whatever is current
    branch_pin: str | None = None  # --on / SKIRMISH_BRANCH: its branch, whatever another process switches to
    _log_file: LogFile | None = field(default=None, repr=False)
    _created: bool = field(default=False, repr=False)  # this run made the file: removed if left empty

    def log_file(self, *, create: bool = False) -> LogFile:
        """The database the command reads and writes, opened once for the run."""
        if self.capture is not None:
            raise BadInput("only a command that decides events can stand in for one (add, round, declare, ...)")
        if self.shared is not None:
            return self.shared
        if self._log_file is None:
            self._created = create and self.db != ":memory:" and not os.path.exists(self.db)
            self._log_file = LogFile(self.db, create=create)
        return self._log_file

    def encounter(self) -> Encounter:
        """The encounter the command acts on: the pinned one, else the file's current one;
        on the pinned branch, else the encounter's current one."""
        return self.log_file().open(self.encounter_pin, self.branch_pin)

    def pinned_note(self, now: str, what: str = "encounter") -> str | None:
        """What to tell a pinned shell when it makes another encounter (or branch) current:
        its own commands stay where the pin says."""
        pin, var = (self.encounter_pin, "SKIRMISH_ENCOUNTER") if what == "encounter" else (self.branch_pin, "SKIRMISH_BRANCH")
        if not pin or pin.strip().casefold() == now.casefold():
            return None
        return (f"This shell stays on {what} {pin!r} ({var} or --{'encounter' if what == 'encounter' else 'on'} "
                f"pins it): set it to {now!r} to play there")

    def close(self) -> None:
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        if self._created:  # a refused `new` or `import` into a new path leaves nothing there
            remove_if_empty(self.db)
            self._created = False


def remove_if_empty(db: str) -> None:
    """Remove a database file that holds no encounter, with the files SQLite keeps beside it:
    what a refused `new`, `import` or `run` leaves in a path that was free before it."""
    try:
        probe = LogFile(db, create=False)
    except SkirmishError:
        return  # gone already, or not a skirmish database: not ours to remove
    try:
        empty = not probe.encounters()
    finally:
        probe.close()
    if empty:
        for suffix in FILES:
            with suppress(FileNotFoundError):
                os.unlink(db + suffix)


def invocation(ctx: typer.Context) -> Invocation:
    """The run a command belongs to (Typer's context object, inherited by subcommands)."""
    found = ctx.obj
    if not isinstance(found, Invocation):  # a command called outside run_cli: the defaults
        found = ctx.obj = Invocation()
    return found


@app.callback()
def main_options(
    ctx: typer.Context,
    db: Annotated[
        str, typer.Option("--db", envvar="SKIRMISH_DB", help="SQLite file holding the encounters.")
    ] = DEFAULT_DB,
    encounter: Annotated[str | None, typer.Option(
        "--encounter", envvar="SKIRMISH_ENCOUNTER",
        help="Act on this encounter, whatever another process makes current (pin a shell: export SKIRMISH_ENCOUNTER=NAME).",
    )] = None,
    on: Annotated[str | None, typer.Option(
        "--on", envvar="SKIRMISH_BRANCH",
        help="Act on this branch, whatever another process switches to (pin a shell: export SKIRMISH_BRANCH=NAME).",
    )] = None,
) -> None:
    run = invocation(ctx)
    run.db = db
    run.encounter_pin = encounter or None
    run.branch_pin = on or None


F = TypeVar("F", bound=Callable[..., Any])


_NEGATIVE_NUMBER = re.compile(r"-\d+")


class NumbersAsArguments(TyperCommand):
    """A command that takes a negative number typed where a number goes as that number
    ("damage Orc -5", "undo -1", "note -3 TEXT"), so the refusal says what is wrong with
    it rather than the parser's "No such option: -5". The parser reads a word starting
    with "-" as an option; only when a word is a negative number are unknown options
    passed to the arguments, so a mistyped option is still named as one."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if any(_NEGATIVE_NUMBER.fullmatch(word) for word in args):
            ctx.ignore_unknown_options = True
        return super().parse_args(ctx, args)


def command_name(info: Any) -> str:
    """The name a registered command is typed by (Typer's rule: the function's, dashed)."""
    return str(info.name or (info.callback.__name__.replace("_", "-") if info.callback else ""))


def command(name: str | None = None, *, reads: bool = False, **settings: Any) -> Callable[[F], F]:
    """Register a command on the app (``settings``: Typer's, e.g. context_settings).
    ``reads``: a command that only reads, and whose reads must agree with one another
    (log, replay, why, diff, reports): it runs inside one read transaction, so a writer in
    another process never shows it half a command (README: which table, durability)."""

    def register(fn: F) -> F:
        if reads:
            @functools.wraps(fn)
            def at_one_moment(*args: Any, **kwargs: Any) -> Any:
                ctx = kwargs.get("ctx")
                if ctx is None:  # called as a plain function, not through the parser
                    return fn(*args, **kwargs)
                with invocation(ctx).log_file().reading():
                    return fn(*args, **kwargs)

            app.command(name, cls=NumbersAsArguments, **settings)(at_one_moment)
        else:
            app.command(name, cls=NumbersAsArguments, **settings)(fn)
        return fn

    return register


# --- options several commands share, written once -------------------------------------------

WithOpt = Annotated[
    list[str] | None,
    typer.Option("--with", help="KEY=VALUE, a detail the ruleset declares (see `skirmish rules RULESET`)."),
]
RollOpt = Annotated[
    list[str] | None, typer.Option("--roll", help="KEY=FACES from physical dice, e.g. Hauser=6,8.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
StepsArg = Annotated[int, typer.Argument(help="How many commands.")]
# The replay page's audience and the players' bands (`export --format html`, `serve`).
AudienceOpt = Annotated[
    str, typer.Option("--for", help="gm (everything) or players (foes' vitals as bands; no seed, digest or private notes).")
]
PartyOpt = Annotated[
    list[str] | None, typer.Option("--party", help="A side the players see exactly (default: players); repeat for more.")
]
BadlyOpt = Annotated[
    int, typer.Option("--badly-hurt", help="Players' bands: a foe at or below this % of its vital figure is badly hurt.")
]


def pairs(items: Sequence[str] | None, what: str, lower: bool = True) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise BadInput(f"{what} takes KEY=VALUE, not {item!r}")
        key = key.strip().lower() if lower else key.strip()
        if key.lower() in (k.lower() for k in out):
            raise BadInput(f"{what} {key}= is given twice")
        out[key] = value.strip()
    return out


def details(items: Sequence[str] | None) -> dict[str, str]:
    return pairs(items, "--with")


def rolls(items: Sequence[str] | None) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {}
    for name, faces in pairs(items, "--roll", lower=False).items():
        try:
            out[name] = tuple(int(f) for f in faces.split(","))
        except ValueError:
            raise BadInput(f"--roll {name}= takes the faces as numbers, e.g. {name}=6,8; not {faces!r}") from None
    return out


def say(line: str = "", *, err: bool = False) -> None:
    """Print one line for a person. A name, note or command in it is shown escaped
    (eventlog/text.py): it stays one line and cannot act on the terminal."""
    typer.echo(escape_controls(line), err=err)


def say_all(texts: Iterable[str], advance: Callable[[int], None] | None = None, every: int = 1000) -> None:
    """Print texts already made safe for a terminal (escaped: the log's and the replay's
    lines), each ending a line, ``every`` of them to a write: a write and a flush for each
    line is most of the time of a long log or replay. ``advance(n)`` follows each write
    (a progress bar's)."""
    out = typer.get_text_stream("stdout")
    pending = iter(texts)
    while batch := list(itertools.islice(pending, every)):
        out.write("\n".join(batch) + "\n")
        out.flush()  # a reader down a pipe (`| less`) sees each batch as it is made
        if advance is not None:
            advance(len(batch))


def print_json(data: Any) -> None:
    """Data (Structs of the typed view included) as indented JSON, with what a terminal
    would act on written as \\u escapes: the same JSON to a script (eventlog/text.py)."""
    import msgspec

    typer.echo(json_safe(json.dumps(msgspec.to_builtins(data), indent=2, ensure_ascii=False)))


def parse_command(run: Invocation, words: Sequence[str]) -> c.Command:
    """The Command a skirmish command line stands for, parsed exactly as `skirmish` parses
    it, without running it (for `amend`). Parser errors are BadInput."""
    if not words or words[0] in ("run", "skirmish"):
        raise BadInput("give the new command as skirmish takes it, e.g. `-- damage Orc 6`")
    parsing = Invocation(db=run.db, capture=[])
    try:
        code = typer.main.get_command(app).main(
            args=["--db", parsing.db, *words], prog_name="skirmish", standalone_mode=False, obj=parsing
        )
    except Exception as exc:
        message = getattr(exc, "format_message", None)  # the parser's own usage errors
        if message is None:
            raise
        raise BadInput(f"the new command: {message()}") from None
    if isinstance(code, int) and code != 0:
        raise typer.Exit(code)
    captured = parsing.capture or []
    if len(captured) != 1:
        raise BadInput(f"`{words[0]}` decides no events: it cannot stand in for a command")
    return captured[0]
