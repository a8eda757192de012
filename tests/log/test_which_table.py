"""A command lands only where its user meant it (issue 13, item 3): two processes on one
file, one of them making another encounter current or switching branch in between. A shell
pinned with SKIRMISH_ENCOUNTER / SKIRMISH_BRANCH (or --encounter / --on) keeps its table;
an unpinned one is told, in its reply, which encounter and branch the command landed on."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # two processes on one file: `pytest -m "not slow"` leaves it out

SCRIPT = shutil.which("skirmish", path=str(Path(sys.executable).parent)) or shutil.which("skirmish")


def skirmish(db: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """One `skirmish` process on ``db``, as from its own terminal (its own environment)."""
    assert SCRIPT
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SKIRMISH_")}
    return subprocess.run([SCRIPT, "--db", str(db), *args], capture_output=True, text=True, env={**environ, **env},
                          timeout=60)


def ok(db: Path, *args: str, **env: str) -> str:
    done = skirmish(db, *args, **env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def hits_left(db: Path, encounter: str, who: str = "Orc", branch: str | None = None) -> int:
    pins = ["--encounter", encounter] + (["--on", branch] if branch else [])
    view = json.loads(ok(db, *pins, "state", "--json"))
    return next(int(c["vital"]["value"]) for c in view["combatants"] if c["name"] == who)


@pytest.fixture
def two_tables(tmp_path: Path) -> Path:
    """Two encounters in one file, each with an Orc of 30 hits; 'Two' made last (current)."""
    db = tmp_path / "table.db"
    for name in ("One", "Two"):
        ok(db, "new", name, "--rules", "ap-countdown")
        ok(db, "add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    return db


def test_a_pinned_shell_keeps_its_encounter_when_another_process_uses_another(two_tables: Path) -> None:
    db = two_tables
    ok(db, "use", "One")
    gm = {"SKIRMISH_ENCOUNTER": "One"}
    out = ok(db, "damage", "Orc", "5", **gm)
    assert "(on 'One', branch 'main')" in out
    ok(db, "use", "Two")  # the co-GM, in another terminal
    out = ok(db, "damage", "Orc", "5", **gm)
    assert "(on 'One', branch 'main')" in out
    assert hits_left(db, "One") == 30 - 5 - 5 and hits_left(db, "Two") == 30
    # The option does the same for one command.
    ok(db, "--encounter", "One", "damage", "Orc", "1")
    assert hits_left(db, "One") == 19 and hits_left(db, "Two") == 30


def test_an_unpinned_reply_names_the_table_it_landed_on(two_tables: Path) -> None:
    db = two_tables
    ok(db, "use", "One")
    assert "(on 'One', branch 'main')" in ok(db, "damage", "Orc", "2")
    ok(db, "use", "Two")  # another process moves the file's pointer
    out = ok(db, "damage", "Orc", "3")
    assert "(on 'Two', branch 'main')" in out  # the GM sees where it went, and can undo it there
    assert hits_left(db, "One") == 28 and hits_left(db, "Two") == 27


def test_one_encounter_one_branch_replies_stay_as_they_were(tmp_path: Path) -> None:
    db = tmp_path / "table.db"
    ok(db, "new", "Only", "--rules", "ap-countdown")
    out = ok(db, "add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    assert "(on " not in out


def test_a_pinned_branch_holds_when_another_process_switches(two_tables: Path) -> None:
    db = two_tables
    ok(db, "damage", "Orc", "10")  # on Two's main: 20 left
    ok(db, "branch", "what-if")
    gm = {"SKIRMISH_BRANCH": "main", "SKIRMISH_ENCOUNTER": "Two"}
    ok(db, "switch", "what-if")  # the co-GM
    out = ok(db, "damage", "Orc", "4", **gm)
    assert "(on 'Two', branch 'main')" in out
    assert hits_left(db, "Two", branch="main") == 16 and hits_left(db, "Two", branch="what-if") == 20
    # The pinned shell's own switch moves the file's pointer and says its commands stay put.
    ok(db, "switch", "main")
    out = ok(db, "switch", "what-if", **gm)
    assert "This shell stays on branch 'main'" in out and "SKIRMISH_BRANCH" in out


def test_a_pinned_shell_is_told_when_it_makes_another_encounter_current(two_tables: Path) -> None:
    out = ok(two_tables, "use", "Two", SKIRMISH_ENCOUNTER="One")
    assert "This shell stays on encounter 'One'" in out
    assert "stays on" not in ok(two_tables, "use", "One", SKIRMISH_ENCOUNTER="One")


def test_a_pin_that_names_nothing_is_one_line(two_tables: Path) -> None:
    done = skirmish(two_tables, "state", SKIRMISH_ENCOUNTER="Three")
    assert done.returncode != 0 and done.stderr.count("\n") == 1 and "Three" in done.stderr
    done = skirmish(two_tables, "state", SKIRMISH_BRANCH="nowhere")
    assert done.returncode != 0 and done.stderr.count("\n") == 1
    assert "no branch named 'nowhere' (branches: main)" in done.stderr


def test_the_log_keeps_the_command_not_where_it_was_typed(two_tables: Path) -> None:
    out = ok(two_tables, "--encounter", "One", "damage", "Orc", "5")
    event = out.split()[0].lstrip("#")
    explained = ok(two_tables, "--encounter", "One", "explain", event, SKIRMISH_BRANCH="main")
    assert "command: damage Orc 5  (recorded on main" in explained
