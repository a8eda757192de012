"""The `skirmish` command line: parse, make one library call, render. Errors are one line.

The app, the per-run :class:`~skirmish.cli.app.Invocation` and the shared options live in
cli/app.py; the text of the log, the replay and an explanation in projections/text/narration.py
and projections/text/board.py. :func:`run_cli` is the one place that prints `Error:`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from skirmish.cli import complete, table
from skirmish.cli.app import (
    Invocation,
    JsonOpt,
    RollOpt,
    StepsArg,
    WithOpt,
    app,
    command,
    command_name,
    details,
    invocation,
    make_app,
    pairs,
    print_json,
    rolls,
    say,
    say_all,
)
from skirmish.cli.invocation import ERROR_LIMIT as ERROR_LIMIT
from skirmish.cli.invocation import GLOBAL_OPTIONS
from skirmish.cli.invocation import command_text as _command_text
from skirmish.cli.invocation import error as _error
from skirmish.eventlog import commands as c
from skirmish.eventlog.errors import BadInput, SkirmishError, TamperedLog
from skirmish.eventlog.text import json_safe
from skirmish.projections.write.engine import LogFile, Recorded


def _execute(ctx: typer.Context, cmd: c.Command) -> None:
    """Decide one command on the current encounter and print what it recorded (cli/table.py)."""
    table.execute(invocation(ctx), cmd)


def _door(ctx: typer.Context) -> None:
    """Run the line's words through the one parser (projections/door/words.py): the typer
    app has read them for its help and its usage errors; what they mean is the door's."""
    run = invocation(ctx)
    table.run_words(run, run.words, lambda: typer.get_text_stream("stdout"))


# --- encounters -----------------------------------------------------------------------------


@command()
def new(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The encounter's name, e.g. \"Bridge ambush\".", autocompletion=complete.nothing)],
    rules: Annotated[str, typer.Option("--rules", help="The ruleset id (see `skirmish rules`).", autocompletion=complete.rulesets)],
    option: Annotated[list[str] | None, typer.Option("--option", help="KEY=VALUE, an open point of the rules.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed for the tool's dice (default: random, recorded).")] = None,
    carry: Annotated[str | None, typer.Option("--carry", help="An earlier encounter whose party comes in as it stands.", autocompletion=complete.encounters)] = None,
    who: Annotated[list[str] | None, typer.Option("--who", help="With --carry: this combatant (default: the players' side).")] = None,
    from_: Annotated[Path | None, typer.Option("--from", help="An Improved Initiative export whose saved fight is set up.")] = None,
    fight: Annotated[str, typer.Option("--fight", help="With --from: the saved fight (default: the one in progress).")] = "default",
    stat: Annotated[list[str] | None, typer.Option("--stat", help="With --from: KEY=N for every combatant whose stat block does not map it.")] = None,
) -> None:
    """Start an encounter under a ruleset; it becomes the current one."""
    run = invocation(ctx)
    run.records = True
    if carry is not None or from_ is not None or who:
        from skirmish.cli.bring import new_with

        new_with(run, name, rules, pairs(option, "--option"), seed, carry, who or [], from_, fight, pairs(stat, "--stat"))
        return
    if stat:
        raise BadInput("--stat on `new` goes with --from (each combatant's stats otherwise come with `add`)")
    if fight != "default":
        raise BadInput("--fight goes with --from")
    enc = run.log_file(create=True).new(name, rules, pairs(option, "--option"), run.text, seed)
    first = enc.path(enc.head().event_id)[0]
    say(f"#{first.id} {event_line(enc, first)}")
    say(f"Encounter {enc.row.name!r} is now current in {run.db}")
    if note := run.pinned_note(enc.row.name):
        say(note)


@command(reads=True)
def encounters(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """List the encounters in this database."""
    log_file = invocation(ctx).log_file()
    rows = log_file.encounters()
    try:
        now = log_file.encounter().name
    except SkirmishError:
        now = None
    if as_json:
        print_json([{"name": r.name, "ruleset": r.ruleset, "created_at": r.created_at, "current": r.name == now}
                    for r in rows])
        return
    for r in rows:
        say(f"{'*' if r.name == now else ' '} {r.name}  ({r.ruleset}, {r.created_at[:16]})")


@command()
def use(ctx: typer.Context, name: Annotated[str, typer.Argument(autocompletion=complete.encounters)]) -> None:
    """Make NAME the current encounter."""
    row = invocation(ctx).log_file().use(name)
    say(f"Encounter {row.name!r} ({row.ruleset}) is now current")
    if note := invocation(ctx).pinned_note(row.name):
        say(note)


@command()
def bestiary(
    search: Annotated[str, typer.Argument(help="Part of a creature's name (case and look-alike letters as names compare).", autocompletion=complete.nothing)] = "",
    type_: Annotated[str | None, typer.Option("--type", help="Only creatures of this type (beast, dragon, fey, ...).")] = None,
    cr: Annotated[str | None, typer.Option("--cr", help="Challenge ratings MIN..MAX, both in (1/4..1, ..2, 10..), or one (5).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List the bundled SRD 5.2 bestiary (name, type, CR, XP, AC, HP): `add NAME` takes a creature's stats from it under srd-5.2."""
    from skirmish.projections.write.imports import bestiary as b

    found = b.search(search, type_, cr)
    if as_json:
        print_json(b.listing_json(found))
        return
    for line in b.listing_lines(found):
        say(line)


@command()
def rules(ctx: typer.Context, ruleset: Annotated[str | None, typer.Argument(autocompletion=complete.rulesets)] = None) -> None:
    """List the rulesets, or one ruleset's options, stats, actions, flags and details."""
    from skirmish.projections.ruleset import flag_name, get_ruleset, registry

    if ruleset is None:
        for rid in sorted(registry()):
            say(rid)
        return
    rs = get_ruleset(ruleset)
    say(f"{rs.id} ({rs.rules_file})")
    say("options (--option KEY=VALUE):")
    for key, opt in rs.options.items():
        say(f"  {key}={'|'.join(opt.choices)} (default {opt.default}): {opt.doc}")
    say("stats (--stat KEY=N):")
    for key, stat in rs.stats.items():
        need = "text, optional" if stat.kind is str else "required" if stat.required else f"default {stat.default}"
        say(f"  {key} ({need}): {stat.doc}")
    say("actions (declare WHO ACTION):")
    for key, info in rs.actions.items():
        say(f"  {key} ({info.cost}): {info.doc}")
    if rs.effects:
        say("effects (effect WHO KIND; any other with --custom):")
        for key, doc in rs.effects.items():
            say(f"  {key}: {doc}")
    if rs.flags:
        say("flags (--NAME):")
        for key, flag in rs.flags.items():
            say(f"  {flag_name(key)} on {', '.join(flag.commands)}: {flag.doc}")
    if rs.details:
        say("details (--with KEY=VALUE):")
        for key, spec in rs.details.items():
            values = "|".join(spec.choices) or "VALUE"
            say(f"  {key}={values} on {', '.join(spec.commands)}: {spec.doc}")


roster_app = typer.Typer(help="Roster files: a party or a bestiary, stats per ruleset.", no_args_is_help=True)
app.add_typer(roster_app, name="roster")


@roster_app.command("check")
def roster_check(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="A roster file (TOML).")],
    rules_: Annotated[str, typer.Option("--rules", help="The ruleset to check it against.", autocompletion=complete.rulesets)],
) -> None:
    """Check every entry of a roster file against a ruleset's stats."""
    from skirmish.projections import roster
    from skirmish.projections.ruleset import get_ruleset

    ruleset = get_ruleset(rules_)
    entries = roster.load(file)
    for line in roster.left_out(entries, ruleset):  # a stat block file: what the ruleset leaves out
        say(line)
    faults = roster.check(file, ruleset)
    if faults:
        raise BadInput(f"roster {str(file)!r} under {ruleset.id}: " + "; ".join(faults))
    say(f"{file}: {len(entries)} entries, every one holds under {ruleset.id}")


# --- at the table -----------------------------------------------------------------------------

Who = Annotated[str, typer.Argument(help="The combatant.", autocompletion=complete.combatants)]


@command()
def add(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The combatant's name (with --from, its roster entry).", autocompletion=complete.nothing)],
    side: Annotated[str | None, typer.Option(help="Which side the combatant fights on (default: the roster's, or neutral).")] = None,
    stat: Annotated[list[str] | None, typer.Option("--stat", help="KEY=N, a stat the ruleset asks for (overrides the roster's).")] = None,
    count: Annotated[int, typer.Option(help="Add NAME 1 to NAME N, each with the same stats.")] = 1,
    from_: Annotated[Path | None, typer.Option("--from", help="A roster (TOML) or stat block file (5e-database, Open5e, Improved Initiative JSON) holding NAME.")] = None,
    hp: Annotated[str, typer.Option("--hp", help="An imported stat block's hit points: average, or rolled from --roll NAME=FACES.")] = "average",
    roll: RollOpt = None,
    hidden: Annotated[bool, typer.Option("--hidden", help="Hidden from the players' screens until `reveal`.")] = False,
) -> None:
    """Add a combatant with the stats the ruleset asks for (typed, or from a roster; srd-5.2: a creature of `skirmish bestiary`)."""
    stats = pairs(stat, "--stat")
    if from_ is not None:
        from skirmish.projections import roster

        if invocation(ctx).capture is not None:
            raise BadInput("an amended `add` takes its stats typed out, not --from a roster")
        entry = roster.find(roster.load(from_), name, from_)
        ruleset = invocation(ctx).encounter().ruleset
        if entry.imported is not None:
            from skirmish.cli.bring import add_imported

            add_imported(ctx, entry, ruleset, side, stats, count, hp, rolls(roll), hidden=hidden)
            return
        if roll or hp != "average":
            raise BadInput("--hp and --roll go with a stat block imported --from a JSON file")
        stats = roster.stats_for(entry, ruleset, from_) | stats
        name, side = entry.name, side if side is not None else entry.side
        kind = c.AddHidden if hidden else c.AddCombatant
        _execute(ctx, kind(name=name, side=side or "neutral", stats=stats, count=count))
        return
    if roll or hp != "average":
        raise BadInput("--hp and --roll go with a stat block imported --from a JSON file")
    _door(ctx)


@command("round", table=c.StartRound)
def round_(ctx: typer.Context, roll: RollOpt = None, with_: WithOpt = None) -> None:
    """Start a round (or turn): initiative, rolled by the tool or typed from the GM's dice."""
    _door(ctx)


@command("next", table=c.Next)
def next_(ctx: typer.Context, roll: RollOpt = None, with_: WithOpt = None) -> None:
    """Advance the clock to the next moment someone acts (runs the upkeep at the end); --roll
    for the dice a turn's start rolls where the ruleset has them (a death save)."""
    _door(ctx)


# The commands at the table take their command's shared flags (--target, --hits, --end, ...:
# the struct's optional fields, eventlog/commands.py) as ``flags``, and the encounter's
# ruleset's own flags as `--with` details (cli/app.py, ``command(table=...)``).
Flags = dict[str, Any]


@command(table=c.Declare)
def declare(
    ctx: typer.Context,
    who: Who,
    action: Annotated[str, typer.Argument(help="An action of the ruleset's table, e.g. melee-attack.", autocompletion=complete.actions)],
    roll: RollOpt = None,
    with_: WithOpt = None,
    *,
    flags: Flags,
) -> None:
    """Declare an action at the current moment (`skirmish rules RULESET` lists the actions and flags)."""
    _door(ctx)


@command(table=c.Resolve)
def resolve(ctx: typer.Context, who: Who, roll: RollOpt = None, with_: WithOpt = None, *, flags: Flags) -> None:
    """Resolve WHO's action (a held one when its trigger happens)."""
    _door(ctx)


@command(table=c.Cancel)
def cancel(ctx: typer.Context, who: Who, with_: WithOpt = None, *, flags: Flags) -> None:
    """Cancel WHO's action before it resolves."""
    _door(ctx)


# A number a GM types may be negative by mistake ("damage Orc -5"): every command takes it
# as a number (app.NumbersAsArguments), so the ruleset's refusal names it.
Amount = Annotated[int, typer.Argument(help="How much.")]


@command(table=c.Damage)
def damage(ctx: typer.Context, who: Who, amount: Amount, roll: RollOpt = None, with_: WithOpt = None) -> None:
    """Record damage the GM read off the tables."""
    _door(ctx)


@command(table=c.Heal)
def heal(ctx: typer.Context, who: Who, amount: Amount, with_: WithOpt = None) -> None:
    """Give back some of WHO's vital figure (first aid, a potion), up to its maximum."""
    _door(ctx)


@command()
def leave(
    ctx: typer.Context,
    who: Who,
    reason: Annotated[str, typer.Option(help="Why: flees, carried off, ...")] = "leaves the fight",
) -> None:
    """WHO leaves the fight (flees, is carried off): the clock passes it by until it returns."""
    _door(ctx)


@command("return")
def return_(ctx: typer.Context, who: Who) -> None:
    """WHO comes back into the fight."""
    _door(ctx)


@command(table=c.ApplyEffect)
def effect(
    ctx: typer.Context,
    who: Annotated[str, typer.Argument(help="A combatant, or `scene` for an environmental counter.", autocompletion=complete.combatants)],
    kind: Annotated[str, typer.Argument(help="An effect the ruleset knows (`skirmish rules RULESET`), or --custom.", autocompletion=complete.effects)],
    custom: Annotated[bool, typer.Option("--custom", help="A kind of your own the ruleset does not know.")] = False,
    with_: WithOpt = None,
    *,
    flags: Flags,
) -> None:
    """Apply (or --end) an effect or condition."""
    _door(ctx)


@command(table=c.Upkeep)
def upkeep(ctx: typer.Context, with_: WithOpt = None) -> None:
    """Run the end-of-round upkeep: each tick is its own event."""
    _door(ctx)


@command()
def note(
    ctx: typer.Context,
    event: Annotated[str, typer.Argument(metavar="EVENT", help="The event (with --on: the TEXT alone).")],
    text: Annotated[str | None, typer.Argument(metavar="TEXT")] = None,
    private: Annotated[bool, typer.Option("--private", help="The GM's alone: left out of the players' pages.")] = False,
    on: Annotated[str | None, typer.Option("--on", help="A combatant: the note is on it (`note --on WHO TEXT`).",
                                           autocompletion=complete.combatants)] = None,
) -> None:
    """Annotate an event, or with --on a combatant (appended, never an edit)."""
    _door(ctx)


@command()
def end(ctx: typer.Context, reason: Annotated[str, typer.Option(help="Why: the foes flee, a truce, ...")] = "") -> None:
    """End the encounter: nothing plays on after it until `undo` reopens it."""
    _door(ctx)


@command("set")
def set_(ctx: typer.Context, who: Who, stat: Annotated[list[str] | None, typer.Argument(metavar="STAT=N...", help="Stats as at `add`.")] = None) -> None:
    """Change WHO's stats (checked as at `add`); the damage taken is kept."""
    _door(ctx)


@command()
def rename(ctx: typer.Context, who: Who, new: Annotated[str, typer.Argument(metavar="NEW", autocompletion=complete.nothing)]) -> None:
    """WHO goes by the name NEW from here on (the log keeps what was typed before)."""
    _door(ctx)


@command("roll")
def roll_(
    ctx: typer.Context,
    dice: Annotated[str, typer.Argument(metavar="DICE", help="2d6+3, d20, 3d6-1.", autocompletion=complete.nothing)],
    for_: Annotated[str | None, typer.Option("--for", help="The combatant it is rolled for.", autocompletion=complete.combatants)] = None,
    why: Annotated[str, typer.Option(help="What it is for: morale, a trap, ...")] = "",
    faces: Annotated[str | None, typer.Option("--roll", help="The GM's dice, e.g. 4,5 (else skirmish rolls).")] = None,
) -> None:
    """Roll dice for the table, recorded with their faces (changes no figure)."""
    _door(ctx)


# --- time travel -----------------------------------------------------------------------------


@command()
def undo(ctx: typer.Context, steps: StepsArg = 1) -> None:
    """Step back over the last command(s); they stay in the log."""
    _door(ctx)


@command()
def redo(ctx: typer.Context, steps: StepsArg = 1) -> None:
    """Step forward again over undone command(s)."""
    _door(ctx)


@command()
def branch(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(autocompletion=complete.nothing)],
    at: Annotated[int | None, typer.Option(help="Event to branch from (default: the head).")] = None,
    before: Annotated[int | None, typer.Option(help="Branch from just before the command that recorded this event.")] = None,
) -> None:
    """Fork a new branch at an event (a what-if); `switch` to play on it."""
    _door(ctx)


@command()
def switch(ctx: typer.Context, name: Annotated[str, typer.Argument(autocompletion=complete.branches)]) -> None:
    """Play on another branch."""
    _door(ctx)


@command(reads=True)
def branches(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """List the branches and their heads."""
    _door(ctx)


# --- reading ---------------------------------------------------------------------------------


@command(reads=True)
def state(
    ctx: typer.Context,
    at: Annotated[int | None, typer.Option(help="Show the state as it was at this event.")] = None,
    as_json: JsonOpt = False,
    wide: Annotated[bool, typer.Option("--wide", help="Every figure of the ruleset, not only the 80-column core.")] = False,
) -> None:
    """What is true now (or at an event)."""
    _door(ctx)


LOG_PAGE = 50  # events `log` shows by default: the last page, as at the table


@command(reads=True)
def log(
    ctx: typer.Context,
    all_: Annotated[bool, typer.Option("--all", help="Every event of the tree, undone ones marked.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per event.")] = False,
    limit: Annotated[int | None, typer.Option(help=f"How many events (default {LOG_PAGE}; 0: all of the branch).")] = None,
    from_: Annotated[int | None, typer.Option("--from", help="The first event to show (default: the last page).")] = None,
) -> None:
    """The current branch's last events (a page: --limit, --from), or every event of the tree (--all)."""
    _door(ctx)


@command(reads=True)
def replay(
    ctx: typer.Context,
    from_: Annotated[int | None, typer.Option("--from", help="First event to narrate.")] = None,
    to: Annotated[int | None, typer.Option("--to", help="Last event (default: the head).")] = None,
) -> None:
    """Narrate the fight step by step: round, moment, who did what, what changed."""
    _door(ctx)


@command()
def verify(
    ctx: typer.Context,
    expect: Annotated[str | None, typer.Option(help="A digest noted down earlier: fail if the log differs.")] = None,
    rebuild_snapshots: Annotated[bool, typer.Option(
        "--rebuild-snapshots", help="Drop every cached state first (they are folded again as commands read).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Recompute the hash chain of the current encounter and check every cached state
    against the fold of its events; print the chain's digest if both hold."""
    if rebuild_snapshots:
        table.verify(invocation(ctx), expect, as_json, rebuild_snapshots=True)
        return
    _door(ctx)


@command()
def play(
    ctx: typer.Context,
    encounter: Annotated[str | None, typer.Argument(help="The encounter to play (it becomes current).",
                                                    autocompletion=complete.encounters)] = None,
) -> None:
    """The GM's console: the board, a command line with completion and history, undo and
    a timeline to step through the fight (full screen; Ctrl+Q quits). It plays the
    encounter named here, else the pinned one (--encounter / SKIRMISH_ENCOUNTER), else the
    current one; on the pinned branch (--on / SKIRMISH_BRANCH), else the current one."""
    run = invocation(ctx)
    if run.db != ":memory:" and not os.path.exists(run.db):
        raise BadInput(f"no database at {run.db}: start an encounter with `skirmish new NAME --rules RULESET`")
    if encounter is not None:
        run.encounter_pin = run.log_file().use(encounter).name
    table = run.encounter()  # one line now (no such encounter or branch), not a console with nothing to show
    pins = table.row.name, run.branch_pin
    run.close()
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        raise BadInput("`skirmish play` needs a terminal; for scripts use the commands themselves or `skirmish run`")
    from skirmish.cli.console import play as console

    console(run.db, *pins)


@command()
def run(ctx: typer.Context, script: Annotated[Path, typer.Argument(help="A file of skirmish commands, one a line.")]) -> None:
    """Play a script of skirmish commands, one a line (`#` starts a comment): all of it, or,
    if a line is refused, none of it."""
    from skirmish.cli.script import play as play_script

    code = play_script(invocation(ctx), script, run_cli)
    if code != 0:
        raise typer.Exit(code)


# --- the entry point -------------------------------------------------------------------------


def run_cli(args: Sequence[str], prefix: str = "", log_file: LogFile | None = None) -> int:
    """Run one command line; return its exit code. Every error is one `Error:` line on
    stderr, printed here and nowhere else. ``log_file``: the file held open by a `run`
    script (shared by its lines) or the console."""
    words = list(args)
    run = Invocation(text=_command_text(words), prefix=prefix, shared=log_file, text_words=words)
    try:
        command_ = _command_for(words)
        result = command_.main(args=words, prog_name="skirmish", standalone_mode=False, obj=run)
        if not isinstance(result, int) or result == 0:
            run.say_checks()
        return result if isinstance(result, int) else 0
    except typer.Exit as exc:
        return int(exc.exit_code)
    except typer.Abort:
        _error("Error: aborted")
        return 1
    except SkirmishError as exc:
        _error(f"Error: {prefix}{exc}")
        if run.records and log_file is None and not isinstance(exc, TamperedLog):  # an undo would be refused too
            say("Nothing was recorded (`skirmish undo` would take back the command before this one).")
        return exc.exit_code
    except Exception as exc:
        # Usage errors of the command-line parser (unknown command, missing argument, a
        # word where a number goes) carry their own message and exit code.
        message = getattr(exc, "format_message", None)
        if message is not None:
            _error(f"Error: {prefix}{message()} (see `skirmish --help`)")
            return int(getattr(exc, "exit_code", 2))
        if os.environ.get("SKIRMISH_DEBUG"):
            raise
        # A bug, not bad input: still one line, and nothing was appended (the store's
        # transaction rolled back or never began). SKIRMISH_DEBUG=1 shows the traceback.
        _error(f"Error: {prefix}internal error, please report it: {type(exc).__name__}: {exc}")
        return 70
    finally:
        run.close()


_BUILT: dict[int, Any] = {}  # id of an app from _app_for -> its click command, built once a process


def _command_for(words: Sequence[str]) -> Any:
    """The parser for a command line, built once per command in a process: a console or a
    `run` script runs many lines, and building the parser is most of a short command's
    time (2 ms of 7 on a console line)."""
    chosen = _app_for(words)
    key = id(chosen.registered_commands[0].callback) if chosen is not app else 0
    built = _BUILT.get(key)
    if built is None:
        built = _BUILT[key] = typer.main.get_command(chosen)
    return built


def _app_for(args: Sequence[str]) -> typer.Typer:
    """The app with only the command the words name, when they name one: typer builds every
    command's parameters before it parses (about 25 ms for all of them, a command at the
    table pays it on every run). Help, a group (`roster`), a mistyped or missing command
    get the whole app."""
    words = list(args)
    while words and words[0].split("=")[0] in GLOBAL_OPTIONS:
        words = words[1:] if "=" in words[0] else words[2:]
    if not words or words[0].startswith("-"):
        return app
    for info in app.registered_commands:
        if command_name(info) == words[0]:
            one = make_app()
            one.registered_callback = app.registered_callback
            one.registered_commands = [info]
            return one
    return app


def main() -> None:
    from skirmish.cli.stopping import stopped_like_ctrl_c

    # `kill` and a closed terminal clean up as Ctrl-C does, in every command (cli/stopping.py).
    with stopped_like_ctrl_c():
        code = run_cli(sys.argv[1:])
    sys.exit(code)


# The commands that settle disputes and the reports register on the same app.
from skirmish.cli import audit as _audit  # noqa: E402,F401
from skirmish.cli import reports as _reports  # noqa: E402,F401
from skirmish.cli import policy as _policy  # noqa: E402,F401
from skirmish.projections.text.words import event_line
