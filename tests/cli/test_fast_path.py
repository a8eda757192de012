"""The console script's fast path (cli/fast.py) against the typer app (cli/main.py), both as
real processes from the same log: the same stdout, stderr, exit code and events.

Every sample's table commands (state, declare, next, undo, redo, damage, heal) run through
both entries from a copy of the same database; the other lines set the table up in this
process. Then the refusals and the options that say where a command runs, and what the
fast path imports. Then `replay`: its options and refusals, the encodings of its output,
a reader that goes away, a terminal on either stream."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from skirmish.cli.main import run_cli

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.skirmish"))
HOT = {"state", "declare", "next", "undo", "redo", "damage", "heal"}
# The fast entry, noting on exit whether typer was imported (the line then went to the app).
FAST = ("import atexit, os, sys\n"
        "atexit.register(lambda: open(os.environ['FAST_MARK'], 'a').write(str('typer' in sys.modules) + '\\n'))\n"
        "from skirmish.cli.fast import main\nmain()")
TYPER = "from skirmish.cli.main import main\nmain()"
DB = "t.db"


class Ran(NamedTuple):
    code: int
    out: Any  # str, or bytes where the output's encoding is what is compared
    err: Any


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKIRMISH_", "_SKIRMISH", "_TYPER"))}
    return env | (extra or {})


def both(words: list[str], a: Path, b: Path, env: dict[str, str] | None = None, patch: str = "",
         text: bool = True) -> tuple[Ran, Ran, bool]:
    """The typer app in ``a`` and the fast path in ``b``, at once (each in its own copy of
    the log); and whether the fast path ran the line itself (typer never imported).
    ``text``: the output decoded as UTF-8, else its bytes."""
    mark = b / "fast.mark"
    mark.unlink(missing_ok=True)
    procs = [
        subprocess.Popen([sys.executable, "-c", patch + TYPER, *words], cwd=a, env=_env(env),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=text),
        subprocess.Popen([sys.executable, "-c", patch + FAST, *words], cwd=b, env=_env(env) | {"FAST_MARK": str(mark)},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=text),
    ]
    outs = [p.communicate() for p in procs]
    typer_ran, fast_ran = (Ran(p.returncode, *out) for p, out in zip(procs, outs))
    return typer_ran, fast_ran, mark.read_text() == "False\n"


def log_of(folder: Path, db: str = DB) -> dict[str, list[Any]]:
    """Every row of the log but the wall-clock times and the hashes that chain them."""
    path = folder / db
    if not path.exists():
        return {}
    con = sqlite3.connect(path)
    try:
        return {
            "encounters": con.execute("SELECT id, name, ruleset FROM encounters ORDER BY id").fetchall(),
            "commands": con.execute("SELECT id, encounter_id, branch, text, body FROM commands ORDER BY id").fetchall(),
            "events": con.execute("SELECT id, encounter_id, parent_id, command_id, kind, version, body "
                                  "FROM events ORDER BY id").fetchall(),
            "head_moves": con.execute("SELECT id, encounter_id, branch, seq, from_event, to_event, reason, command_id "
                                      "FROM head_moves ORDER BY id").fetchall(),
            "settings": con.execute("SELECT key, value FROM settings ORDER BY key").fetchall(),
        }
    finally:
        con.close()


def copy_of(a: Path, tmp_path: Path) -> Path:
    b = tmp_path / "b"
    shutil.rmtree(b, ignore_errors=True)
    shutil.copytree(a, b)
    return b


def set_up(folder: Path, *lines: str) -> None:
    """Lines that are not the fast path's, run in this process through the typer app."""
    for line in lines:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            run_cli(["--db", str(folder / DB), *shlex.split(line)])


def same(tmp_path: Path, a: Path, words: list[str], fast: bool = True, **kw: Any) -> Ran:
    """Run ``words`` through both entries from the same log; both must print, exit and
    record alike. ``fast``: the fast path must have run the line itself (else: the app)."""
    b = copy_of(a, tmp_path)
    typer_ran, fast_ran, took_it = both(words, a, b, **kw)
    assert fast_ran == typer_ran, shlex.join(words)
    assert log_of(b) == log_of(a), shlex.join(words)
    assert took_it is fast, shlex.join(words)
    return typer_ran


def sample_lines(sample: Path) -> list[tuple[int, list[str]]]:
    lines = []
    for number, line in enumerate(sample.read_text(encoding="utf-8").splitlines(), 1):
        words = shlex.split(line, comments=True)
        if words:
            lines.append((number, words))
    return lines


def test_the_console_script_is_the_fast_entry() -> None:
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="skirmish")
    assert script.value == "skirmish.cli.fast:main"


@pytest.mark.slow
@pytest.mark.parametrize("sample", SAMPLES, ids=[s.name for s in SAMPLES])
def test_every_table_command_of_a_sample_reads_the_same_on_both_paths(tmp_path: Path, sample: Path) -> None:
    a = tmp_path / "a"
    a.mkdir()
    hot = 0
    for number, words in sample_lines(sample):
        if words[0] in HOT:
            ran = same(tmp_path, a, ["--db", DB, *words])
            assert ran.code == 0, f"{sample.name}:{number}: {ran.err}"
            hot += 1
        else:
            set_up(a, shlex.join(words))
    assert hot >= 15
    for words in (["state", "--json"], ["state", "--wide"], ["undo", "2"], ["redo", "2"]):
        same(tmp_path, a, ["--db", DB, *words])
    assert json.loads(same(tmp_path, a, ["--db", DB, "state", "--json"]).out)["head"] > 0


@pytest.mark.slow
def test_one_sample_reads_the_same_on_both_paths(tmp_path: Path) -> None:
    """The quick group's share of the test above: the bridge ambush, its first rounds."""
    a = tmp_path / "a"
    a.mkdir()
    sample = next(s for s in SAMPLES if s.name == "bridge-ambush.skirmish")
    hot = 0
    for number, words in sample_lines(sample):
        if words[0] in HOT and hot < 12:
            assert same(tmp_path, a, ["--db", DB, *words]).code == 0, f"{sample.name}:{number}"
            hot += 1
        else:
            set_up(a, shlex.join(words))
    same(tmp_path, a, ["--db", DB, "state", "--json"])


TABLE = (
    'new Fight --rules ap-countdown --seed 7',
    'add Hauser --side players --stat qu=1 --stat hits=40',
    'add Orc --side foes --stat qu=0 --stat hits=30',
    'round --roll Hauser=6,8 --roll Orc=5,5',
)


@pytest.fixture
def table(tmp_path: Path) -> Path:
    a = tmp_path / "a"
    a.mkdir()
    set_up(a, *TABLE)
    return a


# Lines the fast path runs itself: its refusals print and exit as the app's do.
REFUSED_OR_RUN = [
    "declare Nobody melee-attack --ap 3",  # unknown combatant
    "declare Hauser melee-attack --ap 3 --target Nobody",
    "declare Hauser no-such-action",
    "declare Orc parry --with percent=5",  # a detail ap-countdown does not take (percent-activity's flag)
    "declare Hauser melee-attack --ap=3 --target=Orc",
    "declare --ap 3 Hauser melee-attack --target Orc --ap 2",  # options anywhere, the last --ap
    "declare Hauser move --pace run --penalty -10",
    "declare Hauser melee-attack --roll Hauser=x",
    "declare Hauser melee-attack --with nonsense",
    "declare Hauser melee-attack --roll Hauser=x --with nonsense",  # the same first refusal
    "damage Orc -5",
    "damage Orc 6 --with kind=fire",
    "damage Orc +6",
    "heal Orc 3",
    "heal Nobody 3",
    "undo 99",
    "undo -1",
    "undo 0",
    "redo",
    "next --roll Hauser=6",
    "state --at 3",
    "state --at 999999",
    "state --at -3",
    "state --wide --json",
    "state --json --json",
]


@pytest.mark.slow
@pytest.mark.parametrize("line", REFUSED_OR_RUN)
def test_a_line_the_fast_path_runs_prints_and_records_as_the_app(tmp_path: Path, table: Path, line: str) -> None:
    same(tmp_path, table, ["--db", DB, *shlex.split(line)])


# Lines the fast path leaves to the app, which prints its help or its refusal.
LEFT_TO_THE_APP = [
    "declare Hauser melee-attack --bogus 3",  # a bad flag
    "declare Hauser melee-attack --ap x",
    "declare Hauser melee-attack --ap",
    "declare Hauser",
    "declare Hauser melee-attack extra",
    "declare Hauser melee-attack --json",
    "declare -x Hauser melee-attack",
    "declare Hauser melee-attack -- --ap",
    "damage Orc six",
    "damage Orc 5_0",
    "undo two",
    "state --help",
    "state --json=yes",
    "state Orc",
    "--help",
    "stat",
    "--db",
]


@pytest.mark.slow
@pytest.mark.parametrize("line", LEFT_TO_THE_APP)
def test_a_line_the_fast_path_does_not_read_goes_to_the_app_unchanged(tmp_path: Path, table: Path, line: str) -> None:
    same(tmp_path, table, ["--db", DB, *shlex.split(line)] if line != "--db" else ["--db"], fast=False)


@pytest.mark.slow
def test_where_a_command_runs_from_the_environment_and_the_options(tmp_path: Path, table: Path) -> None:
    set_up(table, "branch what-if", "new Other --rules crisis --seed 3")
    # The default file, SKIRMISH_DB, --db=, the pins by option and by variable.
    same(tmp_path, table, ["state"], env={"SKIRMISH_DB": DB})
    same(tmp_path, table, ["--db=" + DB, "--encounter", "Fight", "state", "--json"])
    same(tmp_path, table, ["state"], env={"SKIRMISH_DB": DB, "SKIRMISH_ENCOUNTER": "Fight"})
    same(tmp_path, table, ["--encounter", "Fight", "--on", "what-if", "declare", "Hauser", "melee-attack",
                           "--ap", "3", "--target", "Orc"], env={"SKIRMISH_DB": DB})
    same(tmp_path, table, ["undo"], env={"SKIRMISH_DB": DB, "SKIRMISH_ENCOUNTER": "Fight", "SKIRMISH_BRANCH": "what-if"})
    same(tmp_path, table, ["--db", DB, "--encounter", "Nowhere", "state"])  # an unknown encounter
    same(tmp_path, table, ["--db", DB, "--encounter", "Fight", "--on", "nowhere", "next"])  # an unknown branch
    same(tmp_path, table, ["--db", DB, "--encounter", "Fight", "--on=", "state"])  # an empty pin: none
    same(tmp_path, table, ["state"], env={"SKIRMISH_DB": "", "SKIRMISH_ENCOUNTER": ""})  # ./skirmish.db: none there
    same(tmp_path, table, ["--db", "missing.db", "next"])
    same(tmp_path, table, ["--db", "", "state"])
    # The options after SKIRMISH_DB win over it; a --db given twice: the last.
    same(tmp_path, table, ["--db", "missing.db", "--db", DB, "state"], env={"SKIRMISH_DB": "missing.db"})


TOY = str(Path(__file__).resolve().parents[1] / "toy")  # the example third-party ruleset, duel


@pytest.mark.slow
def test_a_ruleset_s_own_flag_and_what_the_completion_asks_go_where_the_app_would(tmp_path: Path) -> None:
    """duel's own --feint (a flag alone, travelling as feint=yes) is the fast path's; the
    completion's variables send the line to the app."""
    a = tmp_path / "a"
    a.mkdir()
    set_up(a, "new Yard --rules duel --seed 5", "add Ash --stat hp=20 --stat speed=3",
           "add Gob --side foes --stat hp=12 --stat speed=1", "round")
    toy = {"PYTHONPATH": TOY}
    ran = same(tmp_path, a, ["--db", DB, "declare", "Ash", "strike", "--feint", "--target", "Gob"], env=toy)
    assert ran.code == 0
    assert json.loads(log_of(a)["commands"][-1][4])["details"] == {"feint": "yes"}
    same(tmp_path, a, ["--db", DB, "declare", "Gob", "guard", "--feint", "--feint", "--with", "x=1"], env=toy)
    same(tmp_path, a, ["--db", DB, "declare", "Gob", "guard", "--feint=yes"], env=toy, fast=False)
    same(tmp_path, a, ["--db", DB, "declare", "Gob", "guard", "--faint"], env=toy, fast=False)
    same(tmp_path, a, ["--db", DB, "next"], env=toy | {"_SKIRMISH_COMPLETE": "complete_bash",
                                                    "_TYPER_COMPLETE_ARGS": "skirmish ne"}, fast=False)


@pytest.mark.slow
def test_a_moved_head_is_refused_as_the_app_refuses_it(tmp_path: Path, table: Path) -> None:
    """Another writer moving the branch while a command is decided: HeadMoved, exit 3."""
    patch = ("from skirmish.eventlog.errors import HeadMoved\n"
             "from skirmish.projections.write import engine\n"
             "def moved(*_a, **_k):\n"
             "    raise HeadMoved(\"branch 'main' moved while this command was decided (another writer)\")\n"
             "engine.Encounter.execute = moved\n")
    ran = same(tmp_path, table, ["--db", DB, "declare", "Hauser", "melee-attack", "--ap", "3"], patch=patch)
    assert ran.code == 3 and ran.err.startswith("Error: branch 'main' moved")
    assert "Nothing was recorded" in ran.out


@pytest.mark.slow
def test_the_fast_path_imports_no_parser_and_no_ui(tmp_path: Path, table: Path) -> None:
    """`state` and `declare` run without typer, click, rich or textual; what else they import
    beyond `import msgspec, sqlite3` is skirmish's own and a few small standard modules."""
    def imported(code: str, *words: str) -> set[str]:
        out = tmp_path / "modules.txt"
        prelude = (f"import atexit, sys\natexit.register(lambda: open({str(out)!r}, 'w').write('\\n'.join(sys.modules)))\n")
        subprocess.run([sys.executable, "-c", prelude + code, *words], cwd=table, env=_env(), check=True,
                       capture_output=True)
        return set(out.read_text().split("\n"))

    floor = imported("import msgspec, sqlite3")
    for words in (["--db", DB, "state"], ["--db", DB, "declare", "Hauser", "melee-attack", "--ap", "3"]):
        modules = imported("from skirmish.cli.fast import main\nmain()", *words)
        assert "skirmish.cli.table" in modules
        for heavy in ("typer", "click", "rich", "textual", "subprocess", "tempfile", "shutil"):
            assert not any(m == heavy or m.startswith(heavy + ".") for m in modules), heavy
        assert "hashlib" not in modules  # a write's few rows: CPython's own SHA-256, not OpenSSL's
        # inspect and platform come with msgspec itself (typing_extensions, uuid), not with skirmish
        for module in ("inspect", "platform"):
            assert module not in modules or module in floor, module


# --- replay -----------------------------------------------------------------------------------

# A combatant and a note whose text does not encode in ASCII or Latin-1, the note's with a
# line break and a tab (a name or note the store takes holds no other control character):
# the narration escapes what would act on a terminal and writes the rest as the stream takes it.
HOSTILE = "Grim \u2620 \u00d8rc"
NOTE = "a hit \u2620\n\tthen \u00e9"
FOUGHT = (
    *TABLE[:3],
    f"add {shlex.quote(HOSTILE)} --side foes --stat qu=0 --stat hits=20",
    "round --roll Hauser=6,8 --roll Orc=5,5",
    "declare Hauser melee-attack --ap 3 --target Orc",
    "next",
    "damage Orc 7",
    f"note 6 {shlex.quote(NOTE)}",
    f"damage {shlex.quote(HOSTILE)} 5",
    "next",
    "next",
    "resolve Hauser",
)


@pytest.fixture
def fought(tmp_path: Path) -> Path:
    a = tmp_path / "a"
    a.mkdir()
    set_up(a, *FOUGHT)
    return a


def test_the_fought_table_is_what_the_replay_cases_need(fought: Path) -> None:
    """The cases below read a fight of more than a few events with changes, a note and the
    hostile name in it (a set-up line refused would leave them testing less)."""
    commands = [row[3] for row in log_of(fought)["commands"]]
    assert len(commands) == len(FOUGHT)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert run_cli(["--db", str(fought / DB), "replay"]) == 0
    text = out.getvalue()
    assert HOSTILE in text and "a hit \u2620" in text and "\t" not in text  # written as is, escaped
    assert "note #" in text and len(text.splitlines()) > 12


# `replay` lines the fast path runs itself: the same narration, refusals and exit codes.
REPLAY_RUN = [
    "replay",
    "replay --from 3",
    "replay --to 5",
    "replay --from 3 --to 8",
    "replay --from=3 --to=8",
    "replay --to 8 --from 3",
    "replay --from 8 --to 3",  # --from after --to
    "replay --from 4 --from 6",  # given twice: the last
    "replay --to 999999",  # no such event
    "replay --from 999999",
    "replay --from -3",  # a negative number, taken as the option's value
    "replay --to 0",
    "replay --to=-1",
    "replay --from +2",
]


@pytest.mark.slow
@pytest.mark.parametrize("line", REPLAY_RUN)
def test_a_replay_the_fast_path_runs_prints_as_the_app(tmp_path: Path, fought: Path, line: str) -> None:
    same(tmp_path, fought, ["--db", DB, *shlex.split(line)], text=False)


# `replay` lines the fast path leaves to the app: its help and its parser's refusals.
REPLAY_LEFT = [
    "replay --help",
    "replay --from x",
    "replay --from",
    "replay --to 5.0",
    "replay --to 1_0",
    "replay 3",
    "replay -3",
    "replay --json",
    "replay --from 3 -- 4",
    "replay -h",
]


@pytest.mark.slow
@pytest.mark.parametrize("line", REPLAY_LEFT)
def test_a_replay_the_fast_path_does_not_read_goes_to_the_app(tmp_path: Path, fought: Path, line: str) -> None:
    same(tmp_path, fought, ["--db", DB, *shlex.split(line)], fast=False, text=False)


@pytest.mark.slow
def test_a_replay_where_there_is_nothing_to_replay_is_refused_alike(tmp_path: Path, fought: Path) -> None:
    same(tmp_path, fought, ["--db", "missing.db", "replay"])
    same(tmp_path, fought, ["--db", DB, "--encounter", "Nowhere", "replay"])
    same(tmp_path, fought, ["--db", DB, "--on", "nowhere", "replay"])
    same(tmp_path, fought, ["replay", "--to", "4"], env={"SKIRMISH_DB": DB, "SKIRMISH_ENCOUNTER": "Fight"})


# The output's encodings: typer writes the narration to a stream of its own where standard
# output replaces or escapes what it cannot encode, or says it is ASCII (UTF-8, strict,
# then); as it is otherwise (Latin-1: the name that does not encode is an internal error,
# after what was written before it).
ENCODINGS = {
    "utf-8 (C.UTF-8)": {"LC_ALL": "C.UTF-8"},
    "utf-8 strict": {"PYTHONIOENCODING": "utf-8:strict"},
    "utf-8 replace": {"PYTHONIOENCODING": "utf-8:replace"},
    "utf-8 mode": {"PYTHONUTF8": "1"},
    "ascii": {"PYTHONIOENCODING": "ascii"},
    "ascii replace": {"PYTHONIOENCODING": "ascii:backslashreplace"},
    "latin-1 replace": {"PYTHONIOENCODING": "latin-1:replace"},
    "C locale, no coercion": {"LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"},
}


@pytest.mark.slow
@pytest.mark.parametrize("env", ENCODINGS.values(), ids=ENCODINGS.keys())
def test_a_replay_writes_the_same_bytes_in_every_encoding(tmp_path: Path, fought: Path, env: dict[str, str]) -> None:
    ran = same(tmp_path, fought, ["--db", DB, "replay"], env=env, text=False)
    assert ran.out.startswith(b"#1 ")


@pytest.mark.slow
def test_a_replay_in_latin_1_fails_at_the_name_as_the_app_does(tmp_path: Path, fought: Path) -> None:
    """The case above that is not a success: what the comparison there compares."""
    ran = same(tmp_path, fought, ["--db", DB, "replay"], env={"PYTHONIOENCODING": "latin-1"}, text=False)
    assert ran.code == 70 and b"UnicodeEncodeError" in ran.err
    ran = same(tmp_path, fought, ["--db", DB, "replay"], env=ENCODINGS["ascii"], text=False)
    assert ran.code == 0 and "\u2620".encode() in ran.out  # UTF-8 where the stream says ASCII


def _reader_goes_away(words: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Run ``words`` and read one line of its output, then close the pipe (`| head -1`)."""
    proc = subprocess.Popen([sys.executable, "-c", FAST if "FAST_MARK" in env else TYPER, *words], cwd=cwd,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(60), first, err


@pytest.fixture(scope="module")
def long_fight(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated fight of 3,000 events (benchmarks/fight.py): a narration of some 380 KB,
    far more than a pipe holds, and more events than a bar is drawn from."""
    from benchmarks.fight import generate

    folder = tmp_path_factory.mktemp("long")
    store, _enc = generate(str(folder / DB), 3000, fight=True)
    store.close()
    return folder


@pytest.mark.slow
def test_a_replay_whose_reader_goes_away_ends_as_the_app_does(tmp_path: Path, long_fight: Path) -> None:
    """A narration far longer than a pipe holds, read for one line: exit 1, nothing on
    stderr, on both paths (typer's answer to a closed pipe); not an internal error."""
    a = copy_of(long_fight, tmp_path)
    env = _env()
    typer_ran = _reader_goes_away(["--db", DB, "replay"], a, env)
    fast_ran = _reader_goes_away(["--db", DB, "replay"], a, env | {"FAST_MARK": str(tmp_path / "mark")})
    assert fast_ran == typer_ran == (1, typer_ran[1], b"")
    assert typer_ran[1].startswith(b"#1 ")
    assert (tmp_path / "mark").read_text() == "False\n"


def _on_a_terminal(code: str, words: list[str], cwd: Path, env: dict[str, str], stream: str) -> tuple[int, bytes, bytes]:
    """Run ``words`` with ``stream`` (stdout or stderr) on a pseudo-terminal, the other piped:
    the exit code, what the terminal showed and what the pipe got."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", code, *words], cwd=cwd, env=env,
                            stdout=slave if stream == "stdout" else subprocess.PIPE,
                            stderr=slave if stream == "stderr" else subprocess.PIPE)
    os.close(slave)
    import threading

    pipe = proc.stderr if stream == "stdout" else proc.stdout
    assert pipe is not None
    got: list[bytes] = []
    drain = threading.Thread(target=lambda: got.append(pipe.read()))  # a full pipe would hold the process
    drain.start()
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other end closed: Linux says EIO
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    drain.join(60)
    piped = got[0]
    return proc.wait(60), shown, piped


@pytest.mark.slow
def test_a_replay_on_a_terminal_shows_what_the_app_shows(tmp_path: Path, fought: Path) -> None:
    """The narration on a terminal (no bar: it shows its own progress) is the app's, byte for
    byte, and nothing goes to stderr."""
    mark = tmp_path / "mark"
    typer_ran = _on_a_terminal(TYPER, ["--db", DB, "replay"], fought, _env(), "stdout")
    fast_ran = _on_a_terminal(FAST, ["--db", DB, "replay"], fought, _env() | {"FAST_MARK": str(mark)}, "stdout")
    assert fast_ran == typer_ran
    assert typer_ran[0] == 0 and typer_ran[1].startswith(b"#1 ") and b"\r\n" in typer_ran[1] and typer_ran[2] == b""
    assert mark.read_text() == "False\n"


@pytest.mark.slow
def test_a_long_replay_into_a_pipe_draws_its_bar_on_a_terminal_as_the_app(tmp_path: Path, long_fight: Path) -> None:
    """stdout piped, stderr a terminal, at least PROGRESS_FROM events (cli/progress.py): the
    narration in the pipe is the app's, and both draw a bar on the terminal."""
    a = tmp_path / "a"
    shutil.copytree(long_fight, a)
    mark = tmp_path / "mark"
    typer_ran = _on_a_terminal(TYPER, ["--db", DB, "replay"], a, _env(), "stderr")
    fast_ran = _on_a_terminal(FAST, ["--db", DB, "replay"], a, _env() | {"FAST_MARK": str(mark)}, "stderr")
    assert fast_ran[0] == typer_ran[0] == 0
    assert fast_ran[2] == typer_ran[2] and typer_ran[2].startswith(b"#1 ")
    for ran in (typer_ran, fast_ran):
        assert b"replay" in ran[1] and b"\x1b[" in ran[1]  # the bar, drawn with the terminal's codes
    assert mark.read_text() == "False\n"
    # Piped both ways, no bar: nothing on stderr.
    ran = same(tmp_path, a, ["--db", DB, "replay", "--from", "10"], text=False)
    assert ran.err == b"" and ran.out.startswith(b"#10 ")


@pytest.mark.slow
def test_replay_imports_no_parser_and_no_ui(tmp_path: Path, fought: Path) -> None:
    """`replay` into a pipe runs without typer, click, rich or textual."""
    out = tmp_path / "modules.txt"
    prelude = f"import atexit, sys\natexit.register(lambda: open({str(out)!r}, 'w').write('\\n'.join(sys.modules)))\n"
    subprocess.run([sys.executable, "-c", prelude + "from skirmish.cli.fast import main\nmain()", "--db", DB, "replay"],
                   cwd=fought, env=_env(), check=True, capture_output=True)
    modules = set(out.read_text().split("\n"))
    assert "skirmish.projections.text.narration" in modules
    for heavy in ("typer", "click", "rich", "textual", "subprocess", "tempfile", "shutil"):
        assert not any(m == heavy or m.startswith(heavy + ".") for m in modules), heavy
