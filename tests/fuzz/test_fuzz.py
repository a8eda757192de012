"""Bad input, fuzzed: whatever a GM types, one `Error:` line, a non-zero exit, nothing appended.

Hypothesis draws command lines (words from each ruleset's own vocabulary, mixed with
numbers out of range, stray options and arbitrary text) and sequences of them, for every
registered ruleset (``sorted(registry())``: rulesets that land later are covered). Each
line runs in-process through ``run_cli``, the console script's own entry. A refused line
must leave every table of the file exactly as it was; no line may end in a traceback or
in the CLI's "internal error" (a bug) line.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from skirmish.eventlog.schema import SCHEMA_VERSION
from skirmish.projections.ruleset import get_ruleset, registry

from support.cli import Cli
from support.examples import examples

RULESETS = sorted(registry())
TABLES = ("encounters", "commands", "events", "head_moves", "settings")
NAMES = ("Hauser", "Orc")
FUZZ = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def snapshot(db: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table skirmish writes: a refused command changes none of them."""
    raw = sqlite3.connect(db)
    try:
        return {t: raw.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in TABLES}
    finally:
        raw.close()


def stats_for(ruleset_id: str) -> list[str]:
    """--stat words a combatant of this ruleset accepts: each required stat at a value in its range."""
    words = []
    for key, stat in get_ruleset(ruleset_id).stats.items():
        if not stat.required:
            continue
        value = max(stat.minimum or 1, 1)
        if stat.maximum is not None:
            value = min(value, stat.maximum)
        words += ["--stat", f"{key}={value}"]
    return words


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Per ruleset, a file with an encounter and two combatants, copied for each example."""
    from skirmish.cli.main import run_cli

    out = {}
    for ruleset_id in RULESETS:
        db = str(tmp_path_factory.mktemp("templates") / f"{ruleset_id}.db")
        assert run_cli(["--db", db, "new", "Fuzz", "--rules", ruleset_id, "--seed", "3"]) == 0
        for name in NAMES:
            assert run_cli(["--db", db, "add", name, *stats_for(ruleset_id)]) == 0, f"add {name} under {ruleset_id}"
        out[ruleset_id] = db
    return out


@pytest.fixture
def fresh(templates: dict[str, str], tmp_path: Path) -> Iterator[Any]:
    """Hands out a new copy of a ruleset's template file each call (one per hypothesis example)."""
    counter = iter(range(10**9))

    def copy(ruleset_id: str) -> str:
        db = str(tmp_path / f"example-{next(counter)}.db")
        shutil.copy(templates[ruleset_id], db)
        return db

    yield copy


def check_line(cli: Cli, args: list[str]) -> bool:
    """Run one command line; if it was refused, check the refusal. Return whether it succeeded."""
    before = snapshot(cli.db)
    cli(*args)
    assert "Traceback" not in cli.err + cli.out, (args, cli.err)
    assert "internal error" not in cli.err, (args, cli.err)
    if cli.code == 0:
        return True
    lines = cli.err.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("Error: "), (args, cli.err)
    assert snapshot(cli.db) == before, f"refused {args} yet the file changed"
    return False


# --- words ---------------------------------------------------------------------------------

# Text without path separators: a fuzzed word must not name a file outside the test's folder.
TEXT = st.text(st.characters(blacklist_characters="/\\\x00", blacklist_categories=("Cs",)), max_size=12)
NUMBERS = st.one_of(
    st.integers(-3, 40), st.integers(-(10**20), 10**20), st.sampled_from([2**63, -(2**63) - 1, 10**6 + 1])
).map(str)


def words_for(ruleset_id: str) -> st.SearchStrategy[str]:
    rs = get_ruleset(ruleset_id)
    known = [*NAMES, *rs.actions, *rs.stats, *rs.options, "scene", "main", "bleeding", "stunned", "hit"]
    for key, detail in rs.details.items():
        known += [f"{key}={choice}" for choice in detail.choices or ("1",)]
    pairs = st.builds(lambda k, v: f"{k}={v}", st.sampled_from(known), st.one_of(NUMBERS, TEXT, st.sampled_from(known)))
    return st.one_of(st.sampled_from(known), NUMBERS, TEXT, pairs)


OPTIONS = ("--ap", "--percent", "--target", "--trigger", "--pace", "--penalty", "--amount", "--roll",
           "--with", "--outcome", "--hits", "--charge", "--orientation", "--per-round", "--rounds",
           "--start", "--end", "--at", "--json", "--all", "--from", "--to", "--side", "--stat",
           "--option", "--seed", "--expect", "--rules", "--help")
# `run` plays a script file and `new`/`use` switch encounters: all fuzzed, but `run` only with
# words that name no file here (they have no path separator and the folder holds none).
COMMANDS = ("add", "round", "next", "declare", "resolve", "cancel", "damage", "effect", "upkeep", "note",
            "undo", "redo", "branch", "switch", "branches", "state", "log", "replay", "verify", "new",
            "use", "encounters", "rules", "run")


def command_lines(ruleset_id: str) -> st.SearchStrategy[list[str]]:
    word = words_for(ruleset_id)
    option_pair = st.tuples(st.sampled_from(OPTIONS), word).map(list)
    tail = st.lists(st.one_of(word.map(lambda w: [w]), option_pair), max_size=6).map(lambda parts: sum(parts, []))
    head = st.one_of(st.sampled_from(COMMANDS), TEXT)
    return st.builds(lambda h, t: [h, *t], head, tail).filter(lambda a: not any(w.startswith("--db") for w in a))


def plausible_lines(ruleset_id: str) -> st.SearchStrategy[list[str]]:
    """Lines shaped like play at the table, so that sequences also reach states deep in a fight
    (rounds under way, actions pending, branches); holes filled with fuzzed words at times."""
    rs = get_ruleset(ruleset_id)
    word = words_for(ruleset_id)
    name = st.one_of(st.sampled_from(NAMES), word)
    small = st.one_of(st.integers(0, 12).map(str), NUMBERS)
    action = st.one_of(st.sampled_from(sorted(rs.actions) or ["act"]), word)
    budget = st.one_of(st.just([]), st.tuples(st.sampled_from(["--ap", "--percent"]), small).map(list))
    target = st.one_of(st.just([]), st.tuples(st.just("--target"), name).map(list))
    return st.one_of(
        st.tuples(st.just("declare"), name, action).map(list).flatmap(
            lambda line: st.tuples(budget, target).map(lambda extra: line + extra[0] + extra[1])),
        st.sampled_from([["round"], ["next"], ["next"], ["upkeep"], ["undo"], ["redo"], ["switch", "main"]]),
        st.tuples(st.just("resolve"), name, st.just("--outcome"), word, st.just("--hits"), small).map(list),
        st.tuples(st.just("damage"), name, small).map(list),
        st.tuples(st.just("effect"), name, st.sampled_from(["bleeding", "stunned", "dazed"]), st.just("--per-round"),
                  small).map(list),
        st.tuples(st.just("cancel"), name).map(list),
        st.tuples(st.just("branch"), word).map(list),
        st.tuples(st.just("note"), small, word).map(list),
    )


# --- the properties ------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset_id", RULESETS)
@settings(FUZZ, max_examples=examples(60))
@given(data=st.data())
def test_any_command_line_is_done_or_refused_in_one_line(
    cli: Cli, fresh: Any, ruleset_id: str, data: st.DataObject
) -> None:
    cli.db = fresh(ruleset_id)
    args = data.draw(command_lines(ruleset_id), label="args")
    check_line(cli, args)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset_id", RULESETS)
@settings(FUZZ, max_examples=examples(25))
@given(data=st.data())
def test_sequences_of_commands_never_damage_the_log(
    cli: Cli, fresh: Any, ruleset_id: str, data: st.DataObject
) -> None:
    cli.db = fresh(ruleset_id)
    line = st.one_of(command_lines(ruleset_id), plausible_lines(ruleset_id), plausible_lines(ruleset_id))
    lines = data.draw(st.lists(line, min_size=1, max_size=16), label="lines")
    done = sum(check_line(cli, args) for args in lines)
    event(f"lines accepted: {'none' if not done else 'some' if done < len(lines) else 'all'}")
    # Whatever was accepted along the way, the log is whole and folds.
    cli.ok("verify")
    cli.ok("state", "--json")


# --- files that cannot be used ----------------------------------------------------------------


def file_state(path: Path) -> tuple[bytes, list[str]]:
    """The file's bytes and the names beside it: what "nothing damaged" compares."""
    return path.read_bytes(), sorted(p.name for p in path.parent.iterdir() if not p.name.endswith(("-wal", "-shm")))


def skirmish_file(cli: Cli, path: Path) -> None:
    cli.db = str(path)
    cli.ok("new", "Bridge", "--rules", "ap-countdown", "--seed", "1")
    cli.ok("add", "Hauser", "--stat", "qu=1", "--stat", "hits=40")


def not_sqlite(cli: Cli, path: Path) -> None:
    path.write_text("Hauser 40 hits, Orc 30 hits\n" * 200)


def another_program(cli: Cli, path: Path) -> None:
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, title TEXT)")
    raw.execute("INSERT INTO events(title) VALUES ('game night')")
    raw.commit()
    raw.close()


def newer_skirmish(cli: Cli, path: Path) -> None:
    skirmish_file(cli, path)
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.commit()
    raw.close()


def damaged(cli: Cli, path: Path) -> None:
    """A skirmish file whose every page but the first (the schema) was overwritten: a bad disk."""
    skirmish_file(cli, path)
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw.close()
    data = bytearray(path.read_bytes())
    data[4096:] = b"\xff" * (len(data) - 4096)
    path.write_bytes(bytes(data))


BAD_FILES = {
    not_sqlite: "cannot be used as a skirmish database: file is not a database",
    another_program: "is a SQLite database of another program, not skirmish's",
    newer_skirmish: f"was written by a newer skirmish (schema {SCHEMA_VERSION + 1}, this one knows {SCHEMA_VERSION}): "
                    "upgrade skirmish to read it",
    damaged: "database disk image is malformed (the file is damaged)",
}
EVERY_KIND_OF_COMMAND = [
    ["state"], ["log", "--all"], ["verify"], ["encounters"], ["branches"], ["use", "Bridge"],
    ["add", "Orc", "--stat", "qu=0", "--stat", "hits=30"], ["note", "1", "seen"], ["undo"],
    ["branch", "what-if"], ["new", "Other", "--rules", "ap-countdown"],
]


@pytest.mark.parametrize("make", BAD_FILES, ids=[f.__name__ for f in BAD_FILES])
def test_a_file_skirmish_cannot_use_is_refused_by_every_command_and_left_as_it_was(
    cli: Cli, tmp_path: Path, make: Any
) -> None:
    path = tmp_path / "table.db"
    make(cli, path)
    cli.db = str(path)
    before = file_state(path)
    for args in EVERY_KIND_OF_COMMAND:
        error = cli.fails(*args)
        assert BAD_FILES[make] in error, (args, error)
        assert "internal error" not in error
        assert file_state(path) == before, f"{args} changed the file"


def test_an_empty_file_is_a_database_with_no_encounter_yet(cli: Cli, tmp_path: Path) -> None:
    """An empty file is what `touch` makes: skirmish takes it as a new database, not an error."""
    path = tmp_path / "empty.db"
    path.touch()
    cli.db = str(path)
    assert cli.fails("state") == "Error: no encounter yet: start one with `skirmish new NAME --rules RULESET`"
    assert cli.fails("note", "1", "x") == "Error: no encounter yet: start one with `skirmish new NAME --rules RULESET`"
    assert cli.ok("encounters") == ""
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    cli.ok("verify")


def test_a_read_only_file_can_be_read_but_every_write_is_one_clear_error(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read-only as SQLite sees it (mode=ro): a chmod would not stop the root user tests may run as."""
    path = tmp_path / "archive.db"
    skirmish_file(cli, path)
    digest = cli.ok("verify")
    before = file_state(path)
    real_connect = sqlite3.connect

    def read_only(database: str, **kwargs: Any) -> sqlite3.Connection:
        return real_connect(f"file:{database}?mode=ro", uri=True, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", read_only)
    assert cli.ok("verify") == digest
    assert "Hauser" in cli.ok("state")
    cli.ok("log", "--all")
    for args in EVERY_KIND_OF_COMMAND[5:]:
        error = cli.fails(*args)
        assert error.startswith(f"Error: {path} cannot be written: attempt to write a readonly database"), error
        assert error.endswith("(the file (or its folder) is read-only): nothing was recorded"), error
        assert cli.code == 5
    assert file_state(path) == before


# The long note cannot fit; the others may fit in the free room of the pages there are.
# A note at its bound of 2,000 characters, each four bytes in UTF-8: 8,000 bytes, more than a page.
BIG_NOTE = "\U0001D4CD" * 2000
WRITES = [["note", "2", BIG_NOTE], ["add", "Orc", "--stat", "qu=0", "--stat", "hits=30"],
          ["damage", "Hauser", "3"], ["undo"], ["branch", "what-if"], ["use", "Bridge"]]


def test_a_full_database_refuses_each_write_in_one_line_and_keeps_the_log(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file may not grow by a page (PRAGMA max_page_count): as a full disk looks to SQLite."""
    from skirmish.eventlog import connection

    path = tmp_path / "full.db"
    skirmish_file(cli, path)
    configure = connection.configure

    def no_room(conn: connection.Connection) -> None:
        configure(conn)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")

    refused = []
    for args in WRITES:
        rows, digest = snapshot(str(path)), cli.ok("verify")
        with monkeypatch.context() as full:
            full.setattr(connection, "configure", no_room)
            cli(*args)
        if cli.code == 0:
            continue
        refused.append(args[0])
        assert cli.err == (f"Error: {path} cannot be written: database or disk is full "
                           "(the disk (or the file's size limit) is full): nothing was recorded\n"), cli.err
        assert cli.code == 5
        assert snapshot(str(path)) == rows
        assert cli.ok("verify") == digest
    assert "note" in refused
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    raw.close()
    cli.ok("note", "2", "room again")  # once there is room, play goes on
    cli.ok("verify")


@pytest.mark.slow
def test_a_full_disk_under_the_installed_script_is_one_clear_error(tmp_path: Path) -> None:
    """A real write failure from the operating system: the process may not grow any file past
    32 KiB (RLIMIT_FSIZE, SIGXFSZ ignored), so the write fails as on a full disk."""
    import resource
    import signal
    import subprocess
    import sys

    script = Path(sys.executable).with_name("skirmish")
    path = tmp_path / "small.db"
    env = {"SKIRMISH_DB": str(path), "PATH": ""}
    for args in (["new", "Bridge", "--rules", "ap-countdown"], ["add", "Hauser", "--stat", "qu=1", "--stat", "hits=40"]):
        subprocess.run([script, *args], env=env, check=True, capture_output=True, timeout=60)
    digest = subprocess.run([script, "verify"], env=env, capture_output=True, text=True, timeout=60).stdout
    rows = snapshot(str(path))

    def small_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (32768, 32768))

    full = subprocess.run([script, "note", "1", BIG_NOTE], env=env, capture_output=True, text=True,
                          timeout=60, preexec_fn=small_disk)
    assert full.returncode == 5 and full.stdout.startswith("Nothing was recorded")
    assert full.stderr == (f"Error: {path} cannot be written: disk I/O error (the disk refused a read or a "
                           "write: is it full, or failing?): nothing was recorded\n")
    # Reading still works on the full disk; nothing was recorded; the log is intact.
    state = subprocess.run([script, "state"], env=env, capture_output=True, text=True, timeout=60,
                           preexec_fn=small_disk)
    assert state.returncode == 0 and "Hauser" in state.stdout
    assert snapshot(str(path)) == rows
    assert subprocess.run([script, "verify"], env=env, capture_output=True, text=True, timeout=60).stdout == digest
