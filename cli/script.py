"""`skirmish run SCRIPT`: a script of skirmish commands, read a line at a time, played in one transaction.

The script is streamed: a line is read, run, and dropped, so a script of a million lines
holds no more memory than one of ten. It is not read through first: its all-or-nothing
promise is kept by the transaction instead, as it was for a refused line, so a line that
cannot be read (an open quote, a `serve`) rolls back every line before it, and nothing of
the script is recorded.

A line the one parser reads (projections/door/words.py, every command at the table and
every read) runs as the fast path runs it (cli/table.py ``run_parsed``), on the encounter
the lines before it left open: no typer app, no fold again from the nearest cached state.
Any other line (`new`, `use`, `add --from`, `import`, `amend`, a usage error to word) goes
to the typer app, as before, on the same open file. While it runs, a marker beside the
file names the script and the line it is at, so another writer is answered at once
(eventlog/marker.py).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, NoReturn

from skirmish.cli.invocation import GLOBAL_OPTIONS, Invocation, command_text, error, remove_if_empty, say
from skirmish.cli.invocation import text_stdout
from skirmish.eventlog.errors import BadInput, SkirmishError
from skirmish.projections.write.engine import Encounter, LogFile

# The typer app's runner of one line (cli/main.py ``run_cli``), for the lines the parser does
# not read: words, the "file:line: " before an error, the script's open file -> exit code.
Fallback = Callable[[Sequence[str], str, LogFile], int]

# Commands a script cannot hold: the script's lines are one write transaction, and these
# would keep it (and the file's write lock) open for as long as they run, or wait on it.
NOT_IN_A_SCRIPT = {
    "serve": "`serve` cannot run in a script (it serves until stopped, holding the script's write lock)",
    "play": "`play` cannot run in a script (the console runs until closed, holding the script's write lock)",
}

_PINS = {"--encounter": 0, "--on": 1}  # the options before a command that say where it runs
_HELD = 8  # encounters (or pinned branches) a script keeps open at once: one, nearly always


class ScriptFailed(Exception):
    """A line of a `run` script was refused: the whole script's transaction rolls back.
    ``line``: the line to fix (None: the file itself, e.g. not UTF-8)."""

    def __init__(self, line: int | None, code: int) -> None:
        self.line, self.code = line, code


def play(run: Invocation, script: Path, fallback: Fallback) -> int:
    """Play ``script`` on the file ``run`` names, every line or none; its exit code (0: all
    of it recorded). Each line is echoed (`> words`) before what it prints."""
    try:
        stream = script.open(encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"cannot read {script}: {exc.strerror}") from None
    db = run.db
    existed = db == ":memory:" or os.path.exists(db)
    with stream:
        log_file = LogFile(db, create=True)
        try:
            with log_file.running(os.path.abspath(script), _count(script)) as reached:
                _play_lines(_Lines(script, stream, reached), run, log_file, fallback)
        except ScriptFailed as failed:
            fix = f": fix line {failed.line} and run it again" if failed.line is not None else ""
            say(f"Nothing of {script} was recorded{fix}")
            return failed.code
        finally:
            log_file.close()
            if not existed:
                remove_if_empty(db)
    return 0


def _play_lines(lines: _Lines, run: Invocation, log_file: LogFile, fallback: Fallback) -> None:
    from skirmish.projections.door.words import split_line

    script = lines.script
    tables = _Tables(log_file)
    for number, line in lines:
        prefix = f"{script}:{number}: "
        try:
            words = split_line(line)  # linear in the line, and bounded (projections/door/words.py)
        except SkirmishError as exc:
            _refuse(prefix, str(exc), number)
        if words and words[0] == "skirmish":
            words = words[1:]
        if not words:
            continue
        if words[0] == "run":
            _refuse(prefix, "a script cannot run another script", number)
        if (why := NOT_IN_A_SCRIPT.get(_command_name(words))) is not None:
            _refuse(prefix, f"{why}: run it on its own; nothing of the script was recorded", number)
        if any(w == "--db" or w.startswith("--db=") for w in words):
            _refuse(prefix, "--db goes on the `run` command, not in the script", number)
        say(f"> {shlex.join(words)}")
        code = _line(words, prefix, run, tables)
        if code is None:
            # Each line runs where the script is pinned (--encounter / --on before `run`, as
            # the environment's pin reaches every line already); a line's own pin comes
            # after and wins. The script's file by name too: a line's reply ("now current
            # in FILE") names the file the script runs on, not the default.
            code = fallback(["--db", run.db, *_pins(run), *words], prefix, log_file)
        if code != 0:
            raise ScriptFailed(number, code)


def _refuse(prefix: str, why: str, number: int) -> NoReturn:
    error(f"Error: {prefix}{why}")
    raise ScriptFailed(number, BadInput.exit_code)


def _line(words: list[str], prefix: str, script_run: Invocation, tables: _Tables) -> int | None:
    """Run one line through the one parser, as the fast path does (cli/fast.py); its exit
    code, or None, having done nothing, where the parser does not read it."""
    from skirmish.cli import table
    from skirmish.projections.door.words import Unparsed, parse

    pins = [script_run.encounter_pin, script_run.branch_pin]
    rest = words
    while rest and rest[0].startswith("--"):
        option, eq, value = rest[0].partition("=")
        if option not in _PINS:
            return None  # --help, a mistyped option: the typer app's to word
        if not eq:
            if len(rest) < 2:
                return None
            value = rest[1]
        pins[_PINS[option]] = value or None
        rest = rest[1 + (not eq):]
    run = _ScriptLine(tables, script_run.db, command_text(rest), prefix, pins[0], pins[1])
    try:
        try:
            parsed = parse(rest, lambda: table.ruleset_of(run))
        except Unparsed:
            return None
        table.run_parsed(run, parsed, text_stdout)
        run.say_checks()
        return 0
    except SkirmishError as exc:
        error(f"Error: {prefix}{exc}")
        return exc.exit_code
    except Exception as exc:
        if os.environ.get("SKIRMISH_DEBUG"):
            raise
        # A bug, not bad input: still one line, as the command line says it (cli/main.py).
        error(f"Error: {prefix}internal error, please report it: {type(exc).__name__}: {exc}")
        return 70


def _pins(run: Invocation) -> list[str]:
    """The options that pin a command line to this run's encounter and branch, if pinned."""
    return [*(["--encounter", run.encounter_pin] if run.encounter_pin else []),
            *(["--on", run.branch_pin] if run.branch_pin else [])]


def _command_name(words: Sequence[str]) -> str:
    """The command a line names, past the options that say where it runs (--encounter, --on)."""
    rest = list(words)
    while rest and rest[0].split("=")[0] in GLOBAL_OPTIONS:
        rest = rest[1:] if "=" in rest[0] else rest[2:]
    return rest[0] if rest else ""


class _Tables:
    """The encounters a script's lines act on, each opened once and kept open across lines, as
    the console keeps its own (cli/session.py): its state at the head is held, not folded
    again for every line. Which one a line gets is asked each line (a `use`, a `new` or a
    line's own pin moves it); an encounter not pinned to a branch follows its current one."""

    def __init__(self, log_file: LogFile) -> None:
        self.log_file = log_file
        self._open: dict[tuple[int, str | None], Encounter] = {}

    def open(self, encounter_pin: str | None, branch_pin: str | None) -> Encounter:
        row = self.log_file.encounter(encounter_pin)
        key = (row.id, branch_pin)
        enc = self._open.get(key)
        if enc is None:
            enc = self.log_file.open(row.name, branch_pin)
            if len(self._open) >= _HELD:
                del self._open[next(iter(self._open))]
            self._open[key] = enc
        return enc


class _ScriptLine(Invocation):
    """One line of a script, on the encounter the script holds open (:class:`_Tables`)."""

    def __init__(self, tables: _Tables, db: str, text: str, prefix: str, encounter_pin: str | None,
                 branch_pin: str | None) -> None:
        super().__init__(db=db, text=text, prefix=prefix, shared=tables.log_file, encounter_pin=encounter_pin,
                         branch_pin=branch_pin)
        self._tables = tables

    def encounter(self) -> Encounter:
        self._opened = self._tables.open(self.encounter_pin, self.branch_pin)
        return self._opened


class _Lines:
    """A script's lines, numbered, read one at a time as str.splitlines() would split the whole
    file; a line past the parser's bound is refused as it is read, not held whole."""

    def __init__(self, script: Path, stream: IO[str], reached: Callable[[int], None]) -> None:
        self.script, self._stream, self._reached = script, stream, reached

    def __iter__(self) -> Iterator[tuple[int, str]]:
        from skirmish.projections.door.requests import LINE_LIMIT

        number = 0
        while True:
            try:
                physical = self._stream.readline(LINE_LIMIT + 1)
            except UnicodeDecodeError:
                error(f"Error: {self.script} is not a text file (UTF-8) of skirmish commands")
                raise ScriptFailed(None, BadInput.exit_code) from None
            if not physical:
                return
            if len(physical) > LINE_LIMIT and not physical.endswith("\n"):
                _refuse(f"{self.script}:{number + 1}: ",
                        f"the line is over {LINE_LIMIT:,} characters: at most {LINE_LIMIT:,} are taken", number + 1)
            for line in physical.splitlines() or [""]:
                number += 1
                self._reached(number)
                yield number, line


def _count(script: Path) -> int | None:
    """The script's lines, counted in blocks (its memory does not grow with it), for the
    marker's "line N of M"; None where it is not a plain file (a pipe: read once)."""
    if not script.is_file():
        return None
    lines, last = 0, b"\n"
    try:
        with script.open("rb") as file:
            while block := file.read(1 << 16):
                lines += block.count(b"\n")
                last = block[-1:]
    except OSError:
        return None
    return lines + (last != b"\n")
