"""What the GM's console (`skirmish play`) does, without a screen: run command lines in
this process on one open database, read the board, keep the timeline of the branch, and
notice what another process wrote.

The console (cli/console.py) draws this; the tests and the latency benchmark drive it
directly too. A typed line is read by the one parser (projections/door/words.py) into a
typed request and run through the library (projections/door/perform.py) on the file the
console holds open; the console words the typed result itself. Nothing here runs the
command line's app or reads what it prints.
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Iterable
from dataclasses import InitVar, dataclass, field

from skirmish.eventlog.errors import SkirmishError
from skirmish.projections.door import requests as r
from skirmish.projections.door.perform import Result, perform
from skirmish.projections.door.words import parse, split_line
from skirmish.projections.write.engine import Encounter, LogFile
from skirmish.projections.view import Shown
from skirmish.projections.text.words import event_line

TIMELINE_KEPT = 400  # events of the branch the timeline holds; older ones load on demand

# Commands the console will not run in itself: another console, a server that would never
# return, or a shell's business (a file of the GM's machine, another database).
REFUSED = {
    "play": "you are in the console already",
    "run": "a script runs from the shell: `skirmish run FILE`",
    "serve": "the page's server runs from the shell: `skirmish serve`",
}


@dataclass(frozen=True)
class Outcome:
    """What one command line did: its exit code, what it printed, whether the log grew,
    and how long it took (seconds, the command and the board's new view)."""

    line: str
    code: int
    out: str
    err: str
    changed: bool
    seconds: float = 0.0

    @property
    def refused(self) -> bool:
        return self.code != 0


@dataclass(frozen=True)
class Moment:
    """One event of the timeline: its id and its log line."""

    id: int
    text: str


@dataclass
class Session:
    """One database, open for the length of a console session."""

    db: str
    # `skirmish play` resolves these as every command resolves its pins (cli/app.py):
    # --encounter / SKIRMISH_ENCOUNTER, or the encounter named to `play`; --on / SKIRMISH_BRANCH.
    encounter_pin: InitVar[str | None] = None
    branch_pin: str | None = None
    log_file: LogFile = field(init=False)
    _enc: Encounter | None = field(default=None, init=False)
    _seen: tuple[int, str, int] | None = field(default=None, init=False)  # encounter, branch, head
    _version: int = field(default=-1, init=False)
    timeline: list[Moment] = field(default_factory=list, init=False)
    # The encounter this console plays (the pinned one, else the file's current one when it
    # opened): another process's `use` or `new` does not move it; `use`, `new` or `import`
    # typed here does. The branch is the pinned one, else the encounter's current one.
    pinned: str = field(default="", init=False)

    def __post_init__(self, encounter_pin: str | None) -> None:
        self.log_file = LogFile(self.db, create=False)
        self._version = self.log_file.data_version()
        self.pinned = self.log_file.encounter(encounter_pin).name if encounter_pin else self.log_file.encounter().name

    def close(self) -> None:
        self.log_file.close()

    # --- where the table is ------------------------------------------------------------

    def encounter(self) -> Encounter:
        """The encounter this console plays, on its branch."""
        row = self.log_file.encounter(self.pinned)
        if self._enc is None or self._enc.row.id != row.id:
            self._enc = self.log_file.open(row.name, self.branch_pin)
        return self._enc

    def pin_branch(self, branch: str) -> None:
        """Play on ``branch`` from now on (the GM switched to it from this session)."""
        self.encounter().pin(branch)
        self.branch_pin = self.encounter().branch

    def where(self) -> tuple[int, str, int]:
        """The current encounter, its current branch and that branch's head."""
        enc = self.encounter()
        head = enc.head()
        return enc.row.id, head.branch, head.event_id

    def moved(self) -> bool:
        """Whether another connection moved this table (its encounter's branch or head)
        since the board was drawn; a write elsewhere in the file does not count."""
        version = self.log_file.data_version()
        if version == self._version:
            return False
        if self._seen is not None and self.where() != self._seen:
            return True
        self._version = version
        return False

    def look(self) -> Shown:
        """The board now; remembers what it showed, to tell later what moved under it."""
        self._version = self.log_file.data_version()
        self._seen = self.where()
        self._follow_timeline()
        return self.encounter().view()

    def view_at(self, event_id: int) -> Shown:
        return self.encounter().view(event_id)

    def what_moved(self) -> str:
        """In a line, what another process changed since the board was drawn."""
        before = self._seen
        now = self.where()
        if before is None or before == now:
            return "another process wrote to the file (nothing on this table's branch)"
        enc = self.encounter()
        if before[1] != now[1]:
            return f"another process switched to branch {now[1]!r} (head #{now[2]})"
        if enc.holds(now[2], before[2]):
            line = self.describe(now[2])
            return f"another process recorded up to #{now[2]}: {line}"
        return f"another process moved branch {now[1]!r} to #{now[2]} (undo or a fork)"

    def describe(self, event_id: int) -> str:
        enc = self.encounter()
        return event_line(enc, enc.event(event_id))

    # --- the timeline ------------------------------------------------------------------

    def _walk_back(self, start: int | None, stop: set[int], limit: int) -> list[Moment]:
        """Events from ``start`` back along parents until one in ``stop`` or ``limit`` of
        them, newest first."""
        enc = self.encounter()
        out: list[Moment] = []
        node = start
        while node is not None and node not in stop and len(out) < limit:
            rec = enc.event(node)
            out.append(Moment(rec.id, event_line(enc, rec)))
            node = rec.parent
        return out

    def _follow_timeline(self) -> None:
        """Bring the timeline to the branch's head: walk back from the head only to the
        newest event it already holds (a command adds a few), else rebuild it."""
        assert self._seen is not None
        head = self._seen[2]
        held = {m.id: i for i, m in enumerate(self.timeline)}
        if head in held:
            del self.timeline[held[head] + 1:]  # undone: the head went back
            return
        new = self._walk_back(head, set(held), TIMELINE_KEPT)
        joined = self.encounter().event(new[-1].id).parent if new else None
        if new and joined is not None and joined in held:
            del self.timeline[held[joined] + 1:]
            self.timeline.extend(reversed(new))
            del self.timeline[:-TIMELINE_KEPT]
        else:
            self.timeline = list(reversed(new))

    def older(self, count: int = 100) -> int:
        """Load up to ``count`` events before the oldest the timeline holds; how many came."""
        if not self.timeline:
            return 0
        first = self.encounter().event(self.timeline[0].id)
        more = self._walk_back(first.parent, set(), count)
        self.timeline[:0] = list(reversed(more))
        return len(more)

    # --- running commands --------------------------------------------------------------

    def run(self, line: str) -> Outcome:
        """Run one typed line (without the word `skirmish`): read by the one parser, run
        through the library, its typed result worded here."""
        started = time.perf_counter()
        try:
            words = split_line(line)
        except SkirmishError as exc:
            return Outcome(line, exc.exit_code, "", f"Error: {exc}", False)
        if words and words[0] == "skirmish":
            words = words[1:]
        if not words:
            return Outcome(line, 0, "", "", False)
        name = words[0]
        if name in REFUSED:
            return Outcome(line, 2, "", f"Error: `{name}`: {REFUSED[name]}", False)
        # --db and --encounter are no command's own option anywhere in a line; --on is the
        # branch pin before the command, and `note --on WHO` after it.
        if name.split("=")[0] == "--on" or any(w.split("=")[0] in ("--db", "--encounter") for w in words):
            return Outcome(line, 2, "", f"Error: the console works on {self.db}, encounter {self.pinned!r}: "
                           "no --db, --encounter or --on (`use NAME` moves it, `switch NAME` its branch)", False)
        if name == "use":
            return self._use(line, words, started)
        if name == "encounters" and len(words) == 1:
            rows = self.log_file.encounters()
            listed = "".join(f"{'*' if row.name == self.pinned else ' '} {row.name}  ({row.ruleset}, {row.created_at[:16]})\n"
                             for row in rows)
            return Outcome(line, 0, listed, "", False, time.perf_counter() - started)
        try:
            parsed = parse(words, lambda: self.encounter().ruleset)
        except SkirmishError as exc:
            return Outcome(line, exc.exit_code, "", f"Error: {exc}", False)
        if self.moved():
            # The GM decided on the board as drawn: a command on a log that moved since is
            # refused, as the command line refuses one decided on a moved head.
            moved = self.what_moved()
            return Outcome(line, 3, "", f"Error: {moved}; look at the board and type it again", False)
        before = self.log_file.last_ids()
        result = self.perform(parsed.request, shlex.join(words))
        changed = self.log_file.last_ids() != before
        if not result.ok:
            return Outcome(line, result.code, "", f"Error: {result.error}", changed, time.perf_counter() - started)
        out = result.lines
        if parsed.shown["as_json"] and result.data is not None:
            out = [json.dumps(result.data, indent=2, ensure_ascii=False)]
        text = "".join(f"{part}\n" for part in out)
        return Outcome(line, 0, text, "", changed, time.perf_counter() - started)

    def perform(self, request: r.Anything, text: str) -> Result:
        """Run a typed request on this console's encounter and branch (projections/door)."""
        try:
            enc = self.encounter()
        except SkirmishError as exc:
            return Result(kind="refused", error=str(exc), code=exc.exit_code)
        result = perform(self.log_file, enc, request, text)
        if result.ok and isinstance(request, r.Switch) and self.branch_pin is not None:
            self.pin_branch(result.branch)  # a pinned console plays where it switched
        return result

    def _use(self, line: str, words: list[str], started: float) -> Outcome:
        """`use NAME`: the console plays another encounter of its file (the file's current
        one moves too, as the command line's `use` moves it)."""
        if len(words) != 2:
            return Outcome(line, 2, "", "Error: `use` takes one encounter's NAME", False)
        try:
            row = self.log_file.use(words[1])
        except SkirmishError as exc:
            return Outcome(line, exc.exit_code, "", f"Error: {exc}", False)
        self.pinned = row.name
        self.branch_pin = None
        self._enc = None
        return Outcome(line, 0, f"Encounter {row.name!r} ({row.ruleset}) is now current\n", "", True,
                       time.perf_counter() - started)

    def history(self, limit: int = 200) -> list[str]:
        """The command lines typed on this encounter, oldest first (the console's history
        starts with them, across sessions)."""
        try:
            enc = self.encounter()
        except SkirmishError:
            return []
        lines: list[str] = []
        for text in enc.command_texts(limit):
            if text and (not lines or lines[-1] != text):
                lines.append(text)
        return lines


def split_typed(line: str) -> tuple[list[str], str, str]:
    """A half-typed line as (its finished words, the word being typed, the text before that
    word), tolerant of an open quote: ``damage 'Goblin 2`` is (["damage"], "Goblin 2",
    "damage ")."""
    for closing in ("", "'", '"'):
        try:
            words = shlex.split(line + closing)
        except ValueError:
            continue
        if closing:  # the word being typed opened a quote
            return words[:-1], words[-1], line[: line.rfind(closing)]
        if not line or line[-1].isspace() or not words:
            return words, "", line
        if line[-1] in "'\"":  # a quoted word, closed: it starts at its opening quote
            start = line.rfind(line[-1], 0, len(line) - 1)
        else:
            start = len(line) - len(line.split()[-1])
        return words[:-1], words[-1], line[:start]
    return line.split(), "", line


@dataclass(frozen=True)
class _Param:
    name: str
    flags: tuple[str, ...]  # () for an argument
    takes_value: bool
    words: object  # the autocompletion callback (cli/complete.py), or None


class Completer:
    """Completion of a half-typed console line as the shell completes `skirmish`: command
    names, a command's flags, and the names its arguments take (combatants, actions, effect
    kinds, branches, encounters, rulesets), read from the console's open encounter."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._commands: dict[str, list[_Param]] | None = None

    def commands(self) -> dict[str, list[_Param]]:
        if self._commands is None:
            self._commands = _command_params()
        return self._commands

    def candidates(self, line: str) -> list[str]:
        """Whole lines the half-typed ``line`` may become (its last word completed)."""
        words, incomplete, stem = split_typed(line)
        return [stem + shlex.quote(w) for w in self._words(words, incomplete)]

    def _words(self, before: list[str], incomplete: str) -> list[str]:
        commands = self.commands()
        if not before:
            return _starting(commands, incomplete)
        params = [*commands.get(before[0], []), *self._own_flags(before[0])]
        options = {flag: p for p in params for flag in p.flags}
        if incomplete.startswith("-"):
            return _starting([f for p in params for f in p.flags if f not in before or f in ("--stat", "--roll", "--with")],
                             incomplete)
        previous = before[-1] if len(before) > 1 else ""
        if previous in options and options[previous].takes_value:
            return _starting(self._names(options[previous].words), incomplete)
        # Which argument this word is: the words so far that are neither flags nor their values.
        position, skip = 0, False
        for word in before[1:]:
            if skip:
                skip = False
            elif word in options:
                skip = options[word].takes_value
            else:
                position += 1
        arguments = [p for p in params if not p.flags]
        if position < len(arguments):
            return _starting(self._names(arguments[position].words), incomplete)
        return []

    def _own_flags(self, command: str) -> list[_Param]:
        """The flags of the encounter's ruleset's own on this command (``Ruleset.flags``)."""
        from skirmish.projections.door.words import SPECS, ruleset_flags

        spec = SPECS.get(command)
        if spec is None or spec.table is None:
            return []
        try:
            ruleset = self.session.encounter().ruleset
        except SkirmishError:
            return []
        return [_Param(option.dest, (flag,), option.kind is not bool, None)
                for flag, option in ruleset_flags(ruleset, spec.table).items()]

    def _names(self, completion: object) -> list[str]:
        from skirmish.cli import complete

        if completion is None:
            return []
        try:
            return complete.words_for(completion, self.session.log_file, self.session.encounter())
        except SkirmishError:
            return []


def _starting(words: Iterable[str], incomplete: str) -> list[str]:
    typed = incomplete.lower()
    return [w for w in words if w.lower().startswith(typed)]


# What completes a command's argument or option, by its name in the one parser's specs
# (projections/door/words.py): the names of cli/complete.py's completions.
_ARGUMENT_WORDS = {"who": "combatants", "action": "actions", "kind": "effects", "a": "branches", "b": "branches"}
_OPTION_WORDS = {"--target": "combatants", "--on": "combatants", "--for": "combatants"}
_BY_COMMAND = {("switch", "name"): "branches", ("use", "name"): "encounters"}


def _command_params() -> dict[str, list[_Param]]:
    """Every command the console runs, with its arguments and flags as the one parser reads
    them (projections/door/words.py SPECS) and what completes each."""
    from skirmish.cli import complete
    from skirmish.projections.door.words import SPECS, Spec, shared_flags

    def words(name: str | None) -> object:
        return getattr(complete, name) if name else None

    specs = {**SPECS, "use": Spec([("name", str)]), "encounters": Spec()}
    out: dict[str, list[_Param]] = {}
    for command, spec in specs.items():
        params = [_Param(key, (), True, words(_BY_COMMAND.get((command, key)) or _ARGUMENT_WORDS.get(key)))
                  for key, _kind in spec.arguments]
        options = {**spec.options, **(shared_flags(spec.table) if spec.table is not None else {})}
        params += [_Param(option.dest, (flag,), option.kind is not bool, words(_OPTION_WORDS.get(flag)))
                   for flag, option in options.items()]
        out[command] = params
    return dict(sorted(out.items()))
