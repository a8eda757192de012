"""No command waits for ever on the file: a `run` script takes an `amend` line inside its own
transaction, refuses the lines it cannot hold (naming them) and records nothing of itself, and
a file another process keeps busy is one clear error after the busy timeout.

Each test runs skirmish as a process with a timeout: a hang is a failure, not a stuck suite.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from skirmish.eventlog.commands import AddCombatant, Damage
from skirmish.eventlog.store import Store

from support.cli import start

pytestmark = pytest.mark.slow  # every test starts a process: `pytest -m "not slow"` leaves it out

SKIRMISH = Path(sys.executable).with_name("skirmish")


def prepare(path: str) -> None:
    """Hauser and Orc (ap-countdown, 40 hits each) at events 2 and 3; Orc takes 5 at event 4."""
    store = Store(path)
    try:
        enc = start(store)
        for name in ("Hauser", "Orc"):
            enc.execute(AddCombatant(name=name, stats={"qu": "1", "hits": "40"}), f"add {name}")
        enc.execute(Damage(who="Orc", amount=5), "damage Orc 5")
    finally:
        store.close()


def hits_left(path: str, who: str, branch: str) -> int:
    done = subprocess.run([SKIRMISH, "--db", path, "--on", branch, "state", "--json"],
                          capture_output=True, text=True, timeout=60, check=True)
    (found,) = [c for c in json.loads(done.stdout)["combatants"] if c["name"] == who]
    return int(found["vital"]["value"])


def test_a_run_script_with_an_amend_line_ends_and_leaves_the_file_free(tmp_path: Path) -> None:
    """The amend used to back the file up on the connection holding the script's transaction
    (CPython retries a busy backup for ever): the script hung with the write lock held and a
    copy left in the temporary folder. Now it is decided inside the script's transaction, and
    sees the script's lines before it: event 5 is the script's own first line."""
    path = str(tmp_path / "fight.db")
    prepare(path)
    script = tmp_path / "am.skirmish"
    script.write_text("damage Orc 2\namend 4 -- damage Orc 7\n")
    temp = tmp_path / "temp"
    temp.mkdir()
    done = subprocess.run([SKIRMISH, "--db", path, "run", str(script)], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "TMPDIR": str(temp)})
    assert done.returncode == 0, done.stderr
    assert "Branch 'amend-4' starts at #3" in done.stdout
    # Worked by hand: main took 5 then 2 (40 - 7 = 33); the amended branch 7 then 2 (31).
    assert hits_left(path, "Orc", "main") == 33
    assert hits_left(path, "Orc", "amend-4") == 31
    assert list(temp.iterdir()) == []
    # The lock is free: another process writes at once.
    other = subprocess.run([SKIRMISH, "--db", path, "note", "1", "after the script"],
                           capture_output=True, text=True, timeout=60)
    assert other.returncode == 0, other.stderr


def test_a_script_line_amend_refused_rolls_the_whole_script_back(tmp_path: Path) -> None:
    """An amend line whose replacement does not hold fails the script like any other line."""
    path = str(tmp_path / "fight.db")
    prepare(path)
    script = tmp_path / "am.skirmish"
    script.write_text("damage Orc 2\namend 4 -- damage Nobody 7\n")
    done = subprocess.run([SKIRMISH, "--db", path, "run", str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert done.stderr.startswith(f"Error: {script}:2: ")
    assert hits_left(path, "Orc", "main") == 35  # line 1 rolled back with the rest


def test_serve_and_play_lines_are_refused_by_number_and_nothing_is_recorded(tmp_path: Path) -> None:
    """A `serve` line used to start serving inside the script's transaction, holding the write
    lock until stopped. Refused when the script reaches it (the script is streamed, not read
    through first): line 1 ran, and is rolled back with the rest."""
    path = str(tmp_path / "fight.db")
    prepare(path)
    before = Store(path)
    marks = before.last_ids()
    before.close()
    for line, name in (("--on main serve --port 0", "serve"), ("play", "play")):
        script = tmp_path / f"{name}.skirmish"
        script.write_text(f"damage Orc 2\n# the page for the table\n{line}\n")
        done = subprocess.run([SKIRMISH, "--db", path, "run", str(script)], capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"Error: {script}:3: `{name}` cannot run in a script"), done.stderr
        assert done.stderr.rstrip().endswith("nothing of the script was recorded")
        assert done.stdout.splitlines() == [
            "> damage Orc 2", "#5 Orc takes 2 hits (33 left)",
            f"Nothing of {script} was recorded: fix line 3 and run it again",
        ]
    after = Store(path)
    assert after.last_ids() == marks
    after.close()


# The amend's own reads are done; its connection is then left inside a write transaction (as a
# `run` script's was) just before the copy is taken from it.
AMENDER = """
import sys
from skirmish.eventlog import connection
from skirmish.eventlog.store import Store
from skirmish.cli.main import run_cli

connection.BUSY_TIMEOUT_MS = 300
path = sys.argv[1]
aside = Store.aside

def writing_first(self):
    self.conn.execute("BEGIN IMMEDIATE")
    self.conn.execute("INSERT INTO settings(key, value) VALUES ('held', 'yes')")
    return aside(self)

Store.aside = writing_first
sys.exit(run_cli(["--db", path, "amend", "4", "--", "damage", "Orc", "7"]))
"""


def test_a_copy_that_stays_busy_is_one_error_after_the_busy_timeout(tmp_path: Path) -> None:
    """The copy amend decides on is taken by SQLite's backup, which CPython retries for ever
    while the file is busy: it hung. Now it gives up past the busy timeout (300 ms here) with
    one line, exit 5, leaving no copy behind and nothing recorded."""
    path = str(tmp_path / "fight.db")
    prepare(path)
    temp = tmp_path / "temp"
    temp.mkdir()
    done = subprocess.run([sys.executable, "-c", AMENDER, path], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "TMPDIR": str(temp)})
    assert done.returncode == 5, done.stderr
    assert done.stderr == (f"Error: {path} cannot be copied aside: it stayed busy longer than the busy timeout: "
                           "nothing was recorded\n")
    assert list(temp.iterdir()) == []
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("SELECT count(*) FROM head_moves WHERE branch LIKE 'amend%'").fetchone()[0] == 0
        assert raw.execute("SELECT count(*) FROM settings WHERE key = 'held'").fetchone()[0] == 0
    finally:
        raw.close()


WRITER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
conn.execute("INSERT INTO settings(key, value) VALUES ('held', 'yes')")
print("held", flush=True)
time.sleep(60)
"""


def test_amend_while_another_process_holds_the_write_lock_is_one_error_after_the_busy_timeout(
    tmp_path: Path,
) -> None:
    """Another process holds the write lock for longer than the busy timeout (300 ms here):
    amend decides on its copy, waits that long to write it back, then says so in one line."""
    path = str(tmp_path / "fight.db")
    prepare(path)
    temp = tmp_path / "temp"
    temp.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", WRITER, path], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        amender = (
            "import sys\nfrom skirmish.eventlog import connection\nfrom skirmish.cli.main import run_cli\n"
            "connection.BUSY_TIMEOUT_MS = 300\n"
            "sys.exit(run_cli(['--db', sys.argv[1], 'amend', '4', '--', 'damage', 'Orc', '7']))\n"
        )
        done = subprocess.run([sys.executable, "-c", amender, path], capture_output=True, text=True,
                              timeout=60, env={**os.environ, "TMPDIR": str(temp)})
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 5, done.stderr
    assert done.stderr.startswith(f"Error: {path} cannot be written: database is locked"), done.stderr
    assert done.stderr.count("\n") == 1
    assert list(temp.iterdir()) == []
