"""The `skirmish` console script: the commands the GM types most, and `replay`, read without typer.

`state`, `declare`, `next`, `undo`, `redo`, `damage` and `heal` are most of what a table
types, and a whole process of one was mostly the import of typer, its click and the app's
forty commands (docs/performance.md); `replay` after the session paid the same start. A line of
one of them is read by the one parser (projections/door/words.py), the same the typer app
reads every such command's words with, and run by the same code (cli/table.py) through the
same :class:`~skirmish.cli.invocation.Invocation`. Nothing here knows a command's
parameters. A line the parser does not read (`--help`, completion, a missing argument, an
option it does not know) goes to the typer app unchanged, which prints its help, completes
or words its usage error: this module never prints a parser's error of its own.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable, Sequence
from typing import IO, Any, NoReturn

# The global options (cli/app.py main_options): option -> (environment variable, field).
_GLOBAL = {"--db": "SKIRMISH_DB", "--encounter": "SKIRMISH_ENCOUNTER", "--on": "SKIRMISH_BRANCH"}
_COMPLETION = ("_SKIRMISH_COMPLETE", "_TYPER_COMPLETE")  # typer's completion runs through the app


class NotHere(Exception):
    """A line this module does not fully understand: the typer app reads it."""


# The commands run here without typer: those of the one parser (projections/door/words.py)
# that a table types most, and `replay`. Any other goes through the typer app, which reads
# its words with the same parser (cli/main.py ``_door``).
FAST = frozenset({"state", "undo", "redo", "next", "declare", "damage", "heal", "replay", "resolve", "effect", "round"})


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
    if not words or words[0] not in FAST or "--help" in words:
        return None
    from skirmish.cli.invocation import Invocation, command_text
    from skirmish.eventlog.connection import DEFAULT_DB

    db = pins["--db"]  # an empty variable is no value, an empty --db "" is one (as typer reads them)
    run = Invocation(
        db=DEFAULT_DB if db is None else db, text=command_text(args),
        encounter_pin=pins["--encounter"] or None, branch_pin=pins["--on"] or None,
    )
    return _run(run, lambda: _parsed(words, run))


def _parsed(words: list[str], run: Any) -> None:
    """Read the words with the one parser and run them (cli/table.py); NotHere, before
    anything is printed or recorded, where the parser does not read them: the typer app
    then prints its usage error."""
    from skirmish.cli import table
    from skirmish.cli.invocation import text_stdout
    from skirmish.projections.door.words import Unparsed, parse

    try:
        parsed = parse(words, lambda: table.ruleset_of(run))
    except Unparsed:
        raise NotHere from None
    table.run_parsed(run, parsed, text_stdout)


def _run(run: Any, call: Callable[[], None]) -> int | None:
    """Run a command as cli/main.py's run_cli does (under typer's own handling of Ctrl-C, end
    of input and a closed pipe: `replay | head -1` ends with 1 and nothing on stderr): every
    error one `Error:` line on stderr. None, having done nothing, where its line turned out
    not to be one this module reads (NotHere is raised while it is parsed, before anything
    is printed or recorded)."""
    from skirmish.cli.invocation import error, say
    from skirmish.eventlog.errors import SkirmishError, TamperedLog

    try:
        call()
        run.say_checks()
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
        if run.records and not isinstance(exc, TamperedLog):  # an undo would be refused too
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
