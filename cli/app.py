"""The command-line app every `skirmish` command registers on, and what one run carries.

Per-run state lives on Typer's context object (an :class:`Invocation`, cli/invocation.py,
which cli/fast.py's fast path runs too, without typer), never in module globals: a `run`
script, an `amend` that parses its replacement command and the tests' in-process calls
each get their own. The options several commands share are written
once, as ``Annotated`` aliases. No module here prints `Error:`: a SkirmishError goes up to
:func:`skirmish.cli.main.run_cli`, the one place that does.

The command modules (main, audit, reports) import this one; this one imports none of
them.
"""

from __future__ import annotations

import functools
import inspect
import re
import typing
from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Any, TypeVar

import typer
from typer.core import TyperCommand, TyperOption

from skirmish.cli import complete
# The command modules import these from here.
from skirmish.cli.invocation import Invocation as Invocation
from skirmish.cli.invocation import details as details
from skirmish.cli.invocation import pairs as pairs
from skirmish.cli.invocation import print_json as print_json
from skirmish.cli.invocation import remove_if_empty as remove_if_empty
from skirmish.cli.invocation import rolls as rolls
from skirmish.cli.invocation import say as say
from skirmish.cli.invocation import write_all
from skirmish.eventlog import commands as c
from skirmish.eventlog.connection import DEFAULT_DB
from skirmish.eventlog.errors import BadInput, SkirmishError
from skirmish.projections.ruleset import Flag, flag_name, optional_fields, own_flags, own_value


def make_app() -> typer.Typer:
    return typer.Typer(
        name="skirmish",
        help="An event-sourced log and replayer for tactical combat encounters.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )


app = make_app()


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


def command(
    name: str | None = None, *, reads: bool = False, table: type[c.AtTheTable] | None = None, **settings: Any
) -> Callable[[F], F]:
    """Register a command on the app (``settings``: Typer's, e.g. context_settings).
    ``reads``: a command that only reads, and whose reads must agree with one another
    (log, replay, why, diff, reports): it runs inside one read transaction, so a writer in
    another process never shows it half a command (docs/database.md: Which table, Durability).
    ``table``: a command at the table, deciding this command type: it takes the type's
    shared flags and the ruleset's own (:class:`TableCommand`)."""

    def register(fn: F) -> F:
        if table is not None:
            cls = type(f"{table.__name__}Command", (TableCommand,), {"command_type": table})
            app.command(name, cls=cls, **settings)(_WithFlags(fn, table))
            return fn
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


# --- the flags of a command at the table ----------------------------------------------------

_RULESET = "skirmish.ruleset"  # ctx.meta: the encounter's ruleset, once a line needs its own flags
_OWN = "skirmish.own-flags"  # ctx.meta: the flags of the ruleset's own given, NAME -> value


class OwnFlag(TyperOption):
    """A flag of the encounter's ruleset's own (``Ruleset.flags``: named other than a field of
    the command), parsed as an option once the ruleset is known."""

    def __init__(self, name: str, flag: Flag) -> None:
        is_bool = flag.kind is bool
        super().__init__(
            param_decls=["own_" + name.replace("-", "_"), "--" + name], type=None if is_bool else flag.kind,
            is_flag=is_bool, default=False if is_bool else None, help=flag.doc,
        )
        self.flag = name


class TableCommand(NumbersAsArguments):
    """A command a ruleset decides (:func:`command` with ``table``). Besides its own
    parameters and the shared flags it takes the flags of the encounter's ruleset's own: the
    ruleset is looked up only when a line holds an option the command does not otherwise
    have, asks for --help, or is being completed, so a line of shared flags opens nothing
    more, and parsing never imports any ruleset but the encounter's."""

    command_type: type[c.AtTheTable]

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if ctx.resilient_parsing or self._beyond(ctx, args):
            ctx.meta[_RULESET] = _ruleset_of(ctx)
        return super().parse_args(ctx, args)

    def _beyond(self, ctx: Any, args: list[str]) -> bool:
        known = {opt for p in super().get_params(ctx) for opt in (*p.opts, *p.secondary_opts)}
        for word in args:
            if word == "--":
                return False
            if word == "--help" or (word.startswith("--") and word.split("=", 1)[0] not in known):
                return True
        return False

    def get_params(self, ctx: Any) -> list[Any]:
        params: list[Any] = super().get_params(ctx)
        ruleset = ctx.meta.get(_RULESET)
        return params if ruleset is None else [*params, *_own_options(ruleset, self.command_type)]

    def invoke(self, ctx: Any) -> Any:
        own = [p for p in self.get_params(ctx) if isinstance(p, OwnFlag)]
        ctx.meta[_OWN] = {p.flag: ctx.params.pop(p.name) for p in own if p.name in ctx.params}
        return super().invoke(ctx)


@functools.cache
def _own_options(ruleset: Any, command_type: type[c.AtTheTable]) -> tuple[OwnFlag, ...]:
    return tuple(OwnFlag(name, flag) for name, flag in own_flags(ruleset, command_type).items())


def own_options(ruleset: Any, command: str) -> tuple[OwnFlag, ...]:
    """The options of the ruleset's own flags on a command, by the command's name (the
    console completes them as the shell does)."""
    for info in app.registered_commands:
        cls = info.cls
        if command_name(info) == command and isinstance(cls, type) and issubclass(cls, TableCommand):
            return _own_options(ruleset, cls.command_type)
    return ()


def _ruleset_of(ctx: Any) -> Any:
    """The ruleset of the encounter the line acts on (None where there is none: the parser
    then names an unknown option as before)."""
    if ctx.resilient_parsing:  # completing: nothing ran yet, not even the --db option's callback
        return complete.ruleset(ctx)
    run = invocation(ctx)
    try:
        return (run.flags_from or run).encounter().ruleset
    except SkirmishError:
        return None


# Where a shared flag names something on the table, what completes it.
_COMPLETES = {"target": complete.combatants}


class _WithFlags:
    """A command at the table with its command's shared flags as options, built from the
    command struct's fields and their help (eventlog/commands.py), not written out as
    parameters of each command: the function takes them as one ``flags`` dict (field ->
    value), when its command has any. A flag of the ruleset's own reaches it as a `--with
    NAME=VALUE` (it travels in the command's details). The signature Typer reads is built
    when Typer first asks, for the one command a line names, not for all at start-up."""

    def __init__(self, fn: Callable[..., Any], command_type: type[c.AtTheTable]) -> None:
        functools.update_wrapper(self, fn, assigned=("__module__", "__name__", "__qualname__", "__doc__"))
        self._fn, self._command_type = fn, command_type
        self._takes_flags = "flags" in inspect.signature(fn).parameters

    @functools.cached_property
    def _shared(self) -> list[inspect.Parameter]:
        hints = typing.get_type_hints(self._command_type, include_extras=True)
        return [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[
                hints[name].__origin__, typer.Option(
                    flag_name(name), help=hints[name].__metadata__[0].description,
                    autocompletion=_COMPLETES.get(name),
                ),
            ])
            for name, default in optional_fields(self._command_type)
        ]

    @functools.cached_property
    def __signature__(self) -> inspect.Signature:
        signature = inspect.signature(self._fn)
        hints = typing.get_type_hints(self._fn, include_extras=True)
        own = [p.replace(annotation=hints[p.name]) for p in signature.parameters.values() if p.name != "flags"]
        return signature.replace(parameters=[*own, *self._shared])

    @functools.cached_property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]
        return {p.name: p.annotation for p in self.__signature__.parameters.values()} | {"return": None}

    def __call__(self, **given: Any) -> Any:
        flags = {p.name: given.pop(p.name) for p in self._shared}
        own = given["ctx"].meta.get(_OWN, {})
        words = [f"{name}={text}" for name, value in own.items() if (text := own_value(value)) is not None]
        if words:
            given["with_"] = [*(given["with_"] or ()), *words]
        return self._fn(**given, flags=flags) if self._takes_flags else self._fn(**given)


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
    str, typer.Option("--for", help="gm (everything) or players (what the players' policy lets through: docs/browser.md, What each audience sees).")
]
PartyOpt = Annotated[
    list[str] | None, typer.Option("--party", help="A side the players see exactly (default: players, party and pcs, in any case); repeat for more.")
]
BadlyOpt = Annotated[
    int, typer.Option("--badly-hurt", help="Players' bands: a foe at or below this % of its vital figure is badly hurt.")
]


def say_all(texts: Iterable[str], advance: Callable[[int], None] | None = None, every: int = 1000) -> None:
    """Print texts already made safe for a terminal (escaped: the log's and the replay's
    lines) on typer's standard output, ``every`` of them to a write (cli/invocation.py
    ``write_all``)."""
    write_all(typer.get_text_stream("stdout"), texts, advance, every)


def parse_command(run: Invocation, words: Sequence[str]) -> c.Command:
    """The Command a skirmish command line stands for, read by the one parser
    (projections/door/words.py), without running it (for `amend`)."""
    from skirmish.projections.door.words import Unparsed, parse

    if not words or words[0] in ("run", "skirmish"):
        raise BadInput("give the new command as skirmish takes it, e.g. `-- damage Orc 6`")

    def ruleset() -> Any:
        try:
            return run.encounter().ruleset
        except SkirmishError:
            return None

    try:
        parsed = parse(words, ruleset)
    except Unparsed as exc:
        raise BadInput(f"the new command: {exc}") from None
    if not isinstance(parsed.request, c.Command):
        raise BadInput(f"`{words[0]}` decides no events: it cannot stand in for a command")
    return parsed.request
