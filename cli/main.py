"""The `skirmish` command line: parse, make one library call, render. Errors are one line."""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import typer

from skirmish.eventlog import commands as c
from skirmish.eventlog.errors import BadInput, SkirmishError, TamperedLog
from skirmish.eventlog.store import DEFAULT_DB, Store
from skirmish.projections.engine import Encounter, Recorded, new_encounter
from skirmish.projections.render import clock_label, render_state, view_changes
from skirmish.projections.view import View

def _typer() -> typer.Typer:
    return typer.Typer(
        name="skirmish",
        help="An event-sourced log and replayer for tactical combat encounters.",
        add_completion=False,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )


app = _typer()

P = ParamSpec("P")
R = TypeVar("R")


class Context:
    """What every command shares: the database path and the text of the command line."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.text = ""
        self._store: Store | None = None

    def store(self, *, create: bool = False) -> Store:
        if _capture:
            raise BadInput("only a command that decides events can stand in for one (add, round, declare, ...)")
        if self._store is None:
            self._store = Store(self.db, create=create)
        return self._store

    def encounter(self) -> Encounter:
        return Encounter.open(self.store())

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


_current = Context(DEFAULT_DB)
_command_text: list[str] = []
_error_prefix: list[str] = [""]  # "script:line: " while `run` plays a script
_capture: list[list[c.Command]] = []  # set by parse_command: commands are parsed, not run


def ctx() -> Context:
    return _current


def command(name: str | None = None) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Register a command whose SkirmishErrors become one `Error:` line and an exit code."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @wraps(fn)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return fn(*args, **kwargs)
            except SkirmishError as exc:
                typer.echo(f"Error: {_error_prefix[0]}{exc}", err=True)
                raise typer.Exit(exc.exit_code) from None

        app.command(name)(run)
        return run

    return wrap


@app.callback()
def main_options(
    db: Annotated[
        str, typer.Option("--db", envvar="SKIRMISH_DB", help="SQLite file holding the encounters.")
    ] = DEFAULT_DB,
) -> None:
    global _current
    _current = Context(db)
    _current.text = " ".join(_command_text)


def _pairs(items: Sequence[str] | None, what: str, lower: bool = True) -> dict[str, str]:
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


def _details(items: Sequence[str] | None) -> dict[str, str]:
    return _pairs(items, "--with")


def _rolls(items: Sequence[str] | None) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {}
    for name, faces in _pairs(items, "--roll", lower=False).items():
        try:
            out[name] = tuple(int(f) for f in faces.split(","))
        except ValueError:
            raise BadInput(f"--roll {name}= takes the faces as numbers, e.g. {name}=6,8; not {faces!r}") from None
    return out


def _print_events(enc: Encounter, recorded: Sequence[Recorded]) -> None:
    for rec in recorded:
        typer.echo(f"#{rec.id} {enc.describe(rec)}")


def _execute(cmd: c.Command) -> None:
    if _capture:
        _capture[-1].append(cmd)
        return
    enc = ctx().encounter()
    _print_events(enc, enc.execute(cmd, ctx().text or cmd.__struct_config__.tag or ""))


def print_json(data: Any) -> None:
    """Data (Structs of the typed view included) as indented JSON."""
    import msgspec

    typer.echo(json.dumps(msgspec.to_builtins(data), indent=2, ensure_ascii=False))


# --- encounters -----------------------------------------------------------------------------


@command()
def new(
    name: Annotated[str, typer.Argument(help="The encounter's name, e.g. \"Bridge ambush\".")],
    rules: Annotated[str, typer.Option("--rules", help="The ruleset id (see `skirmish rules`).")],
    option: Annotated[list[str] | None, typer.Option("--option", help="KEY=VALUE, an open point of the rules.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed for the tool's dice (default: random, recorded).")] = None,
) -> None:
    """Start an encounter under a ruleset; it becomes the current one."""
    enc = new_encounter(ctx().store(create=True), name, rules, _pairs(option, "--option"), ctx().text, seed)
    first = enc.path(enc.head().event_id)[0]
    typer.echo(f"#{first.id} {enc.describe(first)}")
    typer.echo(f"Encounter {name!r} is now current in {ctx().db}")


@command()
def encounters(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List the encounters in this database."""
    store = ctx().store()
    rows = store.encounters()
    try:
        current = store.current_encounter().name
    except SkirmishError:
        current = None
    if as_json:
        print_json([{"name": r.name, "ruleset": r.ruleset, "created_at": r.created_at, "current": r.name == current}
               for r in rows])
        return
    for r in rows:
        typer.echo(f"{'*' if r.name == current else ' '} {r.name}  ({r.ruleset}, {r.created_at[:16]})")


@command()
def use(name: str) -> None:
    """Make NAME the current encounter."""
    row = ctx().store().use(name)
    typer.echo(f"Encounter {row.name!r} ({row.ruleset}) is now current")


@command()
def rules(ruleset: Annotated[str | None, typer.Argument()] = None) -> None:
    """List the rulesets, or one ruleset's options, stats, actions and details."""
    from skirmish.projections.ruleset import get_ruleset, registry

    if ruleset is None:
        for rid in sorted(registry()):
            typer.echo(rid)
        return
    rs = get_ruleset(ruleset)
    typer.echo(f"{rs.id} ({rs.rules_file})")
    typer.echo("options (--option KEY=VALUE):")
    for key, opt in rs.options.items():
        typer.echo(f"  {key}={'|'.join(opt.choices)} (default {opt.default}): {opt.doc}")
    typer.echo("stats (--stat KEY=N):")
    for key, stat in rs.stats.items():
        need = "required" if stat.required else f"default {stat.default}"
        typer.echo(f"  {key} ({need}): {stat.doc}")
    typer.echo("actions (declare WHO ACTION):")
    for key, info in rs.actions.items():
        typer.echo(f"  {key} ({info.cost}): {info.doc}")
    if rs.details:
        typer.echo("details (--with KEY=VALUE):")
        for key, spec in rs.details.items():
            values = "|".join(spec.choices) or "VALUE"
            typer.echo(f"  {key}={values} on {', '.join(spec.commands)}: {spec.doc}")


# --- at the table -----------------------------------------------------------------------------


@command()
def add(
    name: str,
    side: Annotated[str, typer.Option(help="Which side the combatant fights on.")] = "neutral",
    stat: Annotated[list[str] | None, typer.Option("--stat", help="KEY=N, a stat the ruleset asks for.")] = None,
) -> None:
    """Add a combatant with the stats the ruleset asks for."""
    _execute(c.AddCombatant(name=name, side=side, stats=_pairs(stat, "--stat")))


@command("round")
def round_(
    roll: Annotated[list[str] | None, typer.Option("--roll", help="NAME=FACES from physical dice, e.g. Hauser=6,8.")] = None,
    with_: Annotated[list[str] | None, typer.Option("--with", help="KEY=VALUE, a detail the ruleset declares (see `skirmish rules RULESET`).")] = None,
) -> None:
    """Start a round (or turn): initiative, rolled by the tool or typed from the GM's dice."""
    _execute(c.StartRound(rolls=_rolls(roll), details=_details(with_)))


@command("next")
def next_(
    with_: Annotated[list[str] | None, typer.Option("--with", help="KEY=VALUE, a detail the ruleset declares (see `skirmish rules RULESET`).")] = None,
) -> None:
    """Advance the clock to the next moment someone acts (runs the upkeep at the end)."""
    _execute(c.Next(details=_details(with_)))


@command()
def declare(
    who: Annotated[str, typer.Argument(help="The combatant acting.")],
    action: Annotated[str, typer.Argument(help="An action of the ruleset's table, e.g. melee-attack.")],
    ap: Annotated[int | None, typer.Option(help="Action points to spend.")] = None,
    percent: Annotated[int | None, typer.Option(help="Activity percent to spend.")] = None,
    target: Annotated[str | None, typer.Option(help="Whom the action is aimed at.")] = None,
    trigger: Annotated[str | None, typer.Option(help="Hold the action until this happens.")] = None,
    pace: Annotated[str | None, typer.Option(help="Movement pace (with the move action).")] = None,
    penalty: Annotated[int | None, typer.Option(help="Penalty read off a table (e.g. a pace's).")] = None,
    amount: Annotated[int | None, typer.Option(help="An amount, e.g. a parry's.")] = None,
    roll: Annotated[list[str] | None, typer.Option("--roll", help="KEY=FACES from physical dice, e.g. Jack=3,5,6.")] = None,
    with_: Annotated[list[str] | None, typer.Option("--with", help="KEY=VALUE, a detail the ruleset declares (see `skirmish rules RULESET`).")] = None,
) -> None:
    """Declare an action at the current moment (`skirmish rules RULESET` lists the actions)."""
    _execute(c.Declare(who=who, action=action, ap=ap, percent=percent, target=target, trigger=trigger,
                       pace=pace, penalty=penalty, amount=amount, rolls=_rolls(roll), details=_details(with_)))


@command()
def resolve(
    who: Annotated[str, typer.Argument(help="The combatant whose action completes.")],
    outcome: Annotated[str | None, typer.Option(help="What the roll gave, in the GM's words.")] = None,
    hits: Annotated[int | None, typer.Option(help="Hits dealt to the action's target.")] = None,
    charge: Annotated[int | None, typer.Option(help="Relative speed in m/s of a charge.")] = None,
    roll: Annotated[list[str] | None, typer.Option("--roll", help="KEY=FACES from physical dice, e.g. Jack=3,5,6.")] = None,
    with_: Annotated[list[str] | None, typer.Option("--with", help="KEY=VALUE, a detail the ruleset declares (see `skirmish rules RULESET`).")] = None,
) -> None:
    """Resolve WHO's action (a held one when its trigger happens)."""
    _execute(c.Resolve(who=who, outcome=outcome, hits=hits, charge_speed=charge, rolls=_rolls(roll),
                       details=_details(with_)))


@command()
def cancel(
    who: str,
    orientation: Annotated[str | None, typer.Option(help="Orientation Maneuver result, if one was rolled.")] = None,
    with_: Annotated[list[str] | None, typer.Option("--with", help="KEY=VALUE, a detail the ruleset declares (see `skirmish rules RULESET`).")] = None,
) -> None:
    """Cancel WHO's action before it resolves."""
    _execute(c.Cancel(who=who, orientation=orientation, details=_details(with_)))


@command()
def damage(
    who: str,
    amount: int,
    roll: Annotated[list[str] | None, typer.Option("--roll", help="KEY=FACES from physical dice, e.g. Jack=3,5,6.")] = None,
    with_: Annotated[list[str] | None, typer.Option("--with", help="KEY=VALUE, a detail the ruleset declares (see `skirmish rules RULESET`).")] = None,
) -> None:
    """Record damage the GM read off the tables."""
    _execute(c.Damage(who=who, amount=amount, rolls=_rolls(roll), details=_details(with_)))


@command()
def effect(
    who: Annotated[str, typer.Argument(help="A combatant, or `scene` for an environmental counter.")],
    kind: Annotated[str, typer.Argument(help="bleeding, stunned, dazed, staggered, or any timed effect.")],
    per_round: Annotated[int | None, typer.Option(help="Hits (or counter steps) each upkeep.")] = None,
    rounds: Annotated[int | None, typer.Option(help="How many rounds it lasts.")] = None,
    start: Annotated[int | None, typer.Option(help="A scene counter's starting value.")] = None,
    end: Annotated[bool, typer.Option("--end", help="End the effect now.")] = False,
    with_: Annotated[list[str] | None, typer.Option("--with", help="KEY=VALUE, a detail the ruleset declares (see `skirmish rules RULESET`).")] = None,
) -> None:
    """Apply (or --end) an effect or condition."""
    _execute(c.ApplyEffect(who=who, kind=kind, per_round=per_round, rounds=rounds, start=start, end=end,
                           details=_details(with_)))


@command()
def upkeep(
    with_: Annotated[list[str] | None, typer.Option("--with", help="KEY=VALUE, a detail the ruleset declares (see `skirmish rules RULESET`).")] = None,
) -> None:
    """Run the end-of-round upkeep: each tick is its own event."""
    _execute(c.Upkeep(details=_details(with_)))


@command()
def note(event: int, text: str) -> None:
    """Annotate an event (appended, never an edit)."""
    _execute(c.AddNote(event=event, text=text))


# --- time travel -----------------------------------------------------------------------------


@command()
def undo(steps: Annotated[int, typer.Argument()] = 1) -> None:
    """Step back over the last command(s); they stay in the log."""
    enc = ctx().encounter()
    targets = enc.undo(steps, ctx().text)
    typer.echo(f"Undone {len(targets)} command(s): branch {enc.branch!r} is back at #{targets[-1]}")


@command()
def redo(steps: Annotated[int, typer.Argument()] = 1) -> None:
    """Step forward again over undone command(s)."""
    enc = ctx().encounter()
    targets = enc.redo(steps, ctx().text)
    typer.echo(f"Redone {len(targets)} command(s): branch {enc.branch!r} is at #{targets[-1]}")


@command()
def branch(
    name: str,
    at: Annotated[int | None, typer.Option(help="Event to branch from (default: the head).")] = None,
) -> None:
    """Fork a new branch at an event (a what-if); `switch` to play on it."""
    enc = ctx().encounter()
    head = enc.fork(name, at, ctx().text)
    typer.echo(f"Branch {name!r} starts at #{head.event_id}: `skirmish switch {name}` to play on it")


@command()
def switch(name: str) -> None:
    """Play on another branch."""
    enc = ctx().encounter()
    head = enc.switch(name, ctx().text)
    typer.echo(f"On branch {name!r}, at #{head.event_id}")


@command()
def branches(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List the branches and their heads."""
    enc = ctx().encounter()
    current = enc.branch
    heads = enc.store.branches(enc.row.id)
    if as_json:
        print_json([{"name": h.branch, "head": h.event_id, "moves": h.seq, "current": h.branch == current}
               for h in heads.values()])
        return
    for h in heads.values():
        typer.echo(f"{'*' if h.branch == current else ' '} {h.branch}  at #{h.event_id}")


# --- reading ---------------------------------------------------------------------------------


@command()
def state(
    at: Annotated[int | None, typer.Option(help="Show the state as it was at this event.")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    wide: Annotated[bool, typer.Option("--wide", help="Every figure of the ruleset, not only the 80-column core.")] = False,
) -> None:
    """What is true now (or at an event)."""
    view = ctx().encounter().view(at)
    if as_json:
        print_json(view)
    else:
        typer.echo(render_state(view, wide=wide))


@command()
def log(
    all_: Annotated[bool, typer.Option("--all", help="Every event of the tree, undone ones marked.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per event.")] = False,
) -> None:
    """The events of the current branch (or of the whole tree)."""
    from skirmish.projections.audit import notes_shown

    enc = ctx().encounter()
    current = enc.branch
    listed = enc.log(all_)
    notes = notes_shown(enc, [rec.id for rec, _ in listed])
    for rec, branches_ in listed:
        if as_json:
            line = rec.to_json()
            if all_:
                line["branches"] = branches_
                line["undone"] = not branches_
            if rec.id in notes:
                line["notes"] = [{"id": n.id, "text": n.text} for n in notes[rec.id]]
            typer.echo(json.dumps(line, ensure_ascii=False))
            continue
        mark = ""
        if all_:
            mark = "  (undone)" if not branches_ else ("" if current in branches_ else f"  ({', '.join(branches_)})")
        typer.echo(f"#{rec.id:<5} {enc.describe(rec)}{mark}")
        _print_notes(notes.get(rec.id, []))
    if all_ and not as_json:
        typer.echo("head moves:")
        for m in enc.store.head_moves(enc.row.id):
            frm = f"#{m.from_event}" if m.from_event is not None else "-"
            typer.echo(f"  {m.recorded_at[:19]}  {m.reason:<6} {m.branch}: {frm} -> #{m.to_event}")


@command()
def replay(
    from_: Annotated[int | None, typer.Option("--from", help="First event to narrate.")] = None,
    to: Annotated[int | None, typer.Option("--to", help="Last event (default: the head).")] = None,
) -> None:
    """Narrate the fight step by step: round, moment, who did what, what changed."""
    from skirmish.cli.progress import progress
    from skirmish.projections.audit import notes_shown

    enc = ctx().encounter()
    notes = notes_shown(enc)
    held: list[str] = []
    with progress("replay", lambda: enc.store.path_length(to if to is not None else enc.head().event_id)) as bar:
        # While a bar is drawn the narration waits for it to be wiped; otherwise it streams.
        say = held.append if bar.shown else typer.echo
        prior: View | None = None  # the view after the previous event: this one's before
        for rec, after in enc.replay(to, start=from_):
            if prior is None and rec.parent is not None:  # --from: the state before it
                prior = enc.ruleset.view(enc.fold_to(rec.parent)[0])
            view = enc.ruleset.view(after)
            say(f"#{rec.id:<5} [{clock_label(view.clock)}] {enc.describe(rec)}")
            if prior is not None:
                for change in view_changes(prior, view):
                    say(f"         {change}")
            _print_notes(notes.get(rec.id, []), say)
            prior = view
            bar.advance(1)
    for line in held:
        typer.echo(line)


def _print_notes(notes: Sequence[Any], say: Callable[[str], Any] = typer.echo) -> None:
    for n in notes:
        say(f"         note #{n.id}: {n.text}")


@command()
def verify(
    expect: Annotated[str | None, typer.Option(help="A digest noted down earlier: fail if the log differs.")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Recompute the hash chain of the current encounter; print its digest if intact."""
    enc = ctx().encounter()
    digest = enc.store.verify(enc.row.id)
    if expect is not None and expect.strip().lower() != digest:
        raise TamperedLog(
            f"the log is intact but its digest is {digest}, not {expect.strip()}: "
            "events were added or removed since that digest was noted"
        )
    if as_json:
        print_json({"encounter": enc.row.name, "intact": True, "digest": digest})
        return
    typer.echo(f"intact: {enc.row.name!r}, digest {digest}")


@command()
def run(script: Annotated[Path, typer.Argument(help="A file of skirmish commands, one a line.")]) -> None:
    """Play a script of skirmish commands, one a line; `#` starts a comment."""
    try:
        lines = script.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise BadInput(f"cannot read {script}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise BadInput(f"{script} is not a text file (UTF-8) of skirmish commands") from None
    db = ctx().db
    # The whole script is read before anything runs: a line that cannot be parsed
    # leaves the database as it was.
    steps: list[tuple[int, list[str]]] = []
    for number, line in enumerate(lines, 1):
        try:
            words = shlex.split(line, comments=True)
        except ValueError as exc:
            raise BadInput(f"{script}:{number}: {exc}") from None
        if words and words[0] == "skirmish":
            words = words[1:]
        if not words:
            continue
        if words[0] == "run":
            raise BadInput(f"{script}:{number}: a script cannot run another script")
        if any(w == "--db" or w.startswith("--db=") for w in words):
            raise BadInput(f"{script}:{number}: --db goes on the `run` command, not in the script")
        steps.append((number, words))
    for number, words in steps:
        typer.echo(f"> {shlex.join(words)}")
        code = run_cli(["--db", db, *words], prefix=f"{script}:{number}: ")
        if code != 0:
            raise typer.Exit(code)
    global _current
    _current = Context(db)


def parse_command(words: Sequence[str]) -> c.Command:
    """The Command a skirmish command line stands for, parsed exactly as `skirmish` parses
    it, without running it (for `amend`). Parser errors are BadInput."""
    global _current
    if not words or words[0] in ("run", "skirmish"):
        raise BadInput("give the new command as skirmish takes it, e.g. `-- damage Orc 6`")
    saved = _current
    _capture.append([])
    try:
        code = typer.main.get_command(app).main(
            args=["--db", saved.db, *words], prog_name="skirmish", standalone_mode=False
        )
    except Exception as exc:
        message = getattr(exc, "format_message", None)
        if message is None:
            raise
        raise BadInput(f"the new command: {message()}") from None
    finally:
        captured = _capture.pop()
        _current = saved
    if isinstance(code, int) and code != 0:
        raise typer.Exit(code)  # the command's own error line is out already
    if len(captured) != 1:
        raise BadInput(f"`{words[0]}` decides no events: it cannot stand in for a command")
    return captured[0]


# --- the entry point -------------------------------------------------------------------------


def run_cli(args: Sequence[str], prefix: str = "") -> int:
    """Run one command line; return its exit code. Every error is one line on stderr."""
    global _command_text
    saved = _command_text, _error_prefix[0]
    _command_text = _strip_db(list(args))
    _error_prefix[0] = prefix
    try:
        command_ = typer.main.get_command(_app_for(args))
        result = command_.main(args=list(args), prog_name="skirmish", standalone_mode=False)
        return result if isinstance(result, int) else 0
    except typer.Exit as exc:
        return int(exc.exit_code)
    except typer.Abort:
        typer.echo("Error: aborted", err=True)
        return 1
    except SkirmishError as exc:
        typer.echo(f"Error: {prefix}{exc}", err=True)
        return exc.exit_code
    except Exception as exc:
        # Usage errors of the command-line parser (unknown command, missing argument, a
        # word where a number goes) carry their own message and exit code.
        message = getattr(exc, "format_message", None)
        if message is not None:
            typer.echo(f"Error: {prefix}{message()} (see `skirmish --help`)", err=True)
            return int(getattr(exc, "exit_code", 2))
        if os.environ.get("SKIRMISH_DEBUG"):
            raise
        # A bug, not bad input: still one line, and nothing was appended (the store's
        # transaction rolled back or never began). SKIRMISH_DEBUG=1 shows the traceback.
        typer.echo(f"Error: {prefix}internal error, please report it: {type(exc).__name__}: {exc}", err=True)
        return 70
    finally:
        _current.close()
        _command_text, _error_prefix[0] = saved


def _app_for(args: Sequence[str]) -> typer.Typer:
    """The app with only the command the words name, when they name one: typer builds every
    command's parameters before it parses (about 25 ms for all of them, a command at the
    table pays it on every run). Help, a mistyped or missing command get the whole app."""
    words = list(args)
    while words and words[0].startswith("--db"):
        words = words[1:] if "=" in words[0] else words[2:]
    if not words or words[0].startswith("-"):
        return app
    for info in app.registered_commands:
        name = info.name or (info.callback.__name__.replace("_", "-") if info.callback else "")
        if name == words[0]:
            one = _typer()
            one.registered_callback = app.registered_callback
            one.registered_commands = [info]
            return one
    return app


def _strip_db(args: list[str]) -> list[str]:
    out, skip = [], False
    for i, word in enumerate(args):
        if skip:
            skip = False
            continue
        if word == "--db" and i + 1 < len(args):
            skip = True
            continue
        if word.startswith("--db="):
            continue
        out.append(word)
    return [shlex.join(out)]


def main() -> None:
    sys.exit(run_cli(sys.argv[1:]))


from skirmish.cli import audit as _audit  # noqa: E402,F401  (registers explain, why, diff, amend)
from skirmish.cli import reports as _reports  # noqa: E402,F401  (registers export and import)
