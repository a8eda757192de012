"""What one run of a command line carries, and how it prints, without the command-line parser.

The typer app (cli/app.py) and the fast path of the commands at the table (cli/fast.py)
both run commands through an :class:`Invocation` and print through :func:`echo`: a command
that prints the same way whichever parser read its line. Nothing here imports typer, so a
command the fast path runs starts without it (docs/performance.md).
"""

from __future__ import annotations

import io
import os
import re
import shlex
import sys
from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from typing import IO, Any

from skirmish.eventlog import commands as c
from skirmish.eventlog.connection import DEFAULT_DB, FILES
from skirmish.eventlog.errors import BadInput, SkirmishError
from skirmish.eventlog.text import clip, escape_controls, json_safe
from skirmish.projections.write.engine import Encounter, LogFile

GLOBAL_OPTIONS = ("--db", "--encounter", "--on")  # main_options' (cli/app.py): before the command

# Where an error quotes its input it cuts it (eventlog/text.py's quoted); this bounds the
# rest, e.g. the parser's message quoting a huge argument. A roster check naming every
# faulty entry of a bestiary stays well under it.
ERROR_LIMIT = 2000


class Invocation:
    """One run of one command line: the database, the command as typed (stored beside its
    events), the `run` script's "file:line: " before each error, and, while `amend`
    parses a replacement command, the list its parsed command goes to instead of running.

    A plain class, not a dataclass: ``dataclasses`` imports ``inspect``, which a command
    at the table otherwise never needs (docs/performance.md)."""

    def __init__(
        self,
        db: str = DEFAULT_DB,
        text: str = "",
        prefix: str = "",
        capture: list[c.Command] | None = None,
        shared: LogFile | None = None,
        records: bool = False,
        encounter_pin: str | None = None,
        branch_pin: str | None = None,
        flags_from: Invocation | None = None,
        text_words: Sequence[str] | None = None,
    ) -> None:
        self.db = db
        self.text = text
        self.prefix = prefix
        self.capture = capture
        self.shared = shared  # a `run` script's file (its lines are one transaction), or the console's
        self.records = records  # the command would have recorded something (a refusal says nothing was)
        self.encounter_pin = encounter_pin  # --encounter / SKIRMISH_ENCOUNTER: this shell's table, whatever is current
        self.branch_pin = branch_pin  # --on / SKIRMISH_BRANCH: its branch, whatever another process switches to
        self.flags_from = flags_from  # amend's parse: the run whose ruleset's own flags the line may hold
        self.words: list[str] = command_words(text_words) if text_words is not None else []
        self._log_file: LogFile | None = None
        self._created = False  # this run made the file: removed if left empty
        self._opened: Encounter | None = None  # the encounter the command read, for the checks it says after

    def __repr__(self) -> str:
        return (f"Invocation(db={self.db!r}, text={self.text!r}, encounter_pin={self.encounter_pin!r}, "
                f"branch_pin={self.branch_pin!r})")

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
        self._opened = self.log_file().open(self.encounter_pin, self.branch_pin, one_command=self.shared is None)
        return self._opened

    def say_checks(self) -> None:
        """After a command that only read has answered: one line on stderr when the log it
        read fails the cheap checks (eventlog/checks.py), once a file (a `run` script's lines
        share theirs). A write on such a log is refused by the store; a read goes on."""
        log_file = self.shared or self._log_file
        if self.records or self._opened is None or log_file is None or log_file.failing_said:
            return
        found = self._opened.failed_checks()
        if found:
            log_file.failing_said = True
            echo(escape_controls(f"Warning: this log failed its checks ({'; '.join(found)}): what is shown may "
                                 "have been altered; `skirmish verify` names what was"), err=True)

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


def command_words(args: Sequence[str]) -> list[str]:
    """The command's words, without the options that say where it runs (--db, --encounter,
    --on, before the command's name)."""
    words = list(args)
    while words and words[0].split("=")[0] in GLOBAL_OPTIONS:
        words = words[1:] if "=" in words[0] else words[2:]
    return words


def command_text(args: Sequence[str]) -> str:
    """The command as typed, without the options that say where it runs: the log keeps what
    was decided, not where it was typed."""
    return shlex.join(command_words(args))


# --- values several commands parse alike ---------------------------------------------------


# pairs, details and rolls are the one parser's (projections/door/words.py): the options of
# the commands it does not read (`new --option`, `add --from ... --stat`) are read alike.
from skirmish.projections.door.words import details as details  # noqa: E402
from skirmish.projections.door.words import pairs as pairs  # noqa: E402
from skirmish.projections.door.words import rolls as rolls  # noqa: E402


# --- printing --------------------------------------------------------------------------------

_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")  # the styles typer's echo strips off a non-terminal


def echo(text: str = "", *, err: bool = False) -> None:
    """Print a line and flush, as typer's echo does on Linux and macOS: styles stripped where
    the stream is not a terminal, and a stream that says it is ASCII written as UTF-8 with
    what does not encode replaced (typer's echo repairs such a stream the same way)."""
    stream: IO[Any] | None = sys.stderr if err else sys.stdout
    if stream is None:
        return
    out = text + "\n"
    if "\x1b" in out and not _isatty(stream):
        out = _ANSI.sub("", out)
    encoding = getattr(stream, "encoding", None) or "ascii"
    binary = getattr(stream, "buffer", None) if _is_ascii(encoding) else None
    if binary is not None:
        stream.flush()
        binary.write(out.encode("utf-8", "replace"))
        binary.flush()
        return
    stream.write(out)
    stream.flush()


def _isatty(stream: IO[Any]) -> bool:
    try:
        return bool(stream.isatty())
    except Exception:
        return False


def _is_ascii(encoding: str) -> bool:
    import codecs

    try:
        return codecs.lookup(encoding).name == "ascii"
    except LookupError:
        return False


def text_stdout() -> IO[str]:
    """Standard output as `typer.get_text_stream("stdout")` hands it over on Linux and macOS:
    as it is where it is a text stream that encodes strictly in other than ASCII; else its
    bytes, wrapped to write UTF-8 (or the encoding they say they take, if not ASCII),
    strictly, a line at a time. A text stream that replaces or escapes what it cannot encode
    (a C or C.UTF-8 locale, PYTHONIOENCODING=utf-8:replace) is such an else: the narration's
    bytes are those the typer app writes (tests/cli/test_fast_path.py holds them to it)."""
    stdout = sys.stdout
    stream: Any = stdout
    if _is_binary_writer(stream, False):
        binary = stream
    else:
        encoding = getattr(stream, "encoding", None)
        if encoding is not None and getattr(stream, "errors", None) == "strict" and not _is_ascii(encoding):
            return stdout
        binary = _binary_of(stream)
        if binary is None:
            return stdout
    encoding = getattr(binary, "encoding", None) or sys.getdefaultencoding()
    return _NonClosing(binary, "utf-8" if _is_ascii(encoding) else encoding, "strict", line_buffering=True)


def _is_binary_writer(stream: Any, default: bool) -> bool:
    try:
        stream.write(b"")
    except Exception:
        try:
            stream.write("")
            return False
        except Exception:
            pass
        return default
    return True


def _binary_of(stream: Any) -> Any:
    if _is_binary_writer(stream, False):
        return stream
    buffer = getattr(stream, "buffer", None)
    if buffer is not None and _is_binary_writer(buffer, True):
        return buffer  # taken as binary even when closed, as typer takes it
    return None


class _NonClosing(io.TextIOWrapper):
    """A text wrapper that leaves the stream it writes to open when it is dropped."""

    def __del__(self) -> None:
        try:
            self.detach()
        except Exception:
            pass


def write_all(out: IO[str], texts: Iterable[str], advance: Callable[[int], None] | None = None,
              every: int = 1000) -> None:
    """Write texts already made safe for a terminal (escaped: the log's and the replay's
    lines), each ending a line, ``every`` of them to a write: a write and a flush for each
    line is most of the time of a long log or replay. ``advance(n)`` follows each write (a
    progress bar's)."""
    import itertools

    pending = iter(texts)
    while batch := list(itertools.islice(pending, every)):
        out.write("\n".join(batch) + "\n")
        out.flush()  # a reader down a pipe (`| less`) sees each batch as it is made
        if advance is not None:
            advance(len(batch))


def say(line: str = "", *, err: bool = False) -> None:
    """Print one line for a person. A name, note or command in it is shown escaped
    (eventlog/text.py): it stays one line and cannot act on the terminal."""
    echo(escape_controls(line), err=err)


def print_json(data: Any) -> None:
    """Data (Structs of the typed view included) as indented JSON, with what a terminal
    would act on written as \\u escapes: the same JSON to a script (eventlog/text.py)."""
    import json

    import msgspec

    echo(json_safe(json.dumps(msgspec.to_builtins(data), indent=2, ensure_ascii=False)))


def error(line: str) -> None:
    """The one `Error:` line: one line whatever it quotes, escaped, cut to ERROR_LIMIT."""
    echo(clip(escape_controls(line), ERROR_LIMIT), err=True)
