"""A long command stopped by SIGINT (Ctrl-C), SIGTERM (`kill`) or SIGHUP (the terminal closed)
cleans up alike: an `import` into a free path leaves no database, -wal or -shm there, an
`amend` leaves no copy of the file in the temporary folder, and nothing is recorded.

Each test runs `skirmish` as a real process (its console entry point) that pauses at a
known moment of its work, says so on stdout, and is sent the signal there.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from skirmish.eventlog.commands import AddCombatant, Damage
from skirmish.eventlog.store import Store

from support.cli import start

pytestmark = pytest.mark.slow  # every test starts a process: `pytest -m "not slow"` leaves it out

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "exports"
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]

# The real entry point, held at one moment of the command's work: `pause` names the
# function to wrap (module, class, method); the wrapper says "working" and waits there.
PAUSED = """
import importlib, sys, time
module, owner, method = sys.argv[1:4]
cls = getattr(importlib.import_module(module), owner)
real = getattr(cls, method)

def paused(*args, **kwargs):
    result = real(*args, **kwargs)
    print("working", flush=True)
    time.sleep(60)
    return result

setattr(cls, method, paused)
sys.argv = ["skirmish", *sys.argv[4:]]
from skirmish.cli.main import main
main()
"""


def stopped(how: signal.Signals, pause: tuple[str, str, str], args: list[str], temp: Path) -> int:
    proc = subprocess.Popen([sys.executable, "-c", PAUSED, *pause, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(temp)})
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "working\n", proc.stderr
        proc.send_signal(how)
        proc.wait(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    return proc.returncode


@pytest.mark.parametrize("how", SIGNALS, ids=lambda s: s.name)
def test_an_import_stopped_by_a_signal_leaves_nothing_at_the_path_it_found_free(tmp_path: Path, how: signal.Signals) -> None:
    """Stopped after its first chunk of rows went in: before, SIGTERM and SIGHUP left an empty
    database with its -wal and -shm (only SIGINT cleaned up)."""
    db = tmp_path / "new.db"
    temp = tmp_path / "temp"
    temp.mkdir()
    code = stopped(how, ("skirmish.eventlog.store", "Restoring", "add"),
                   ["--db", str(db), "import", str(FIXTURES / "bridge-ambush.jsonl")], temp)
    assert code != 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["temp"]


def prepare(path: str) -> None:
    store = Store(path)
    try:
        enc = start(store)
        for name in ("Hauser", "Orc"):
            enc.execute(AddCombatant(name=name, stats={"qu": "1", "hits": "40"}), f"add {name}")
        for amount in (5, 2, 3):
            enc.execute(Damage(who="Orc", amount=amount), f"damage Orc {amount}")
    finally:
        store.close()


@pytest.mark.parametrize("how", SIGNALS, ids=lambda s: s.name)
def test_an_amend_stopped_by_a_signal_leaves_no_copy_and_records_nothing(tmp_path: Path, how: signal.Signals) -> None:
    """Stopped while it decides again on its copy: before, SIGTERM and SIGHUP left the copy
    (as large as the file) in the temporary folder."""
    db = str(tmp_path / "fight.db")
    prepare(db)
    temp = tmp_path / "temp"
    temp.mkdir()
    code = stopped(how, ("skirmish.projections.write.engine", "Encounter", "execute_from"),
                   ["--db", db, "amend", "4", "--", "damage", "Orc", "7"], temp)
    assert code != 0
    assert list(temp.iterdir()) == []
    raw = sqlite3.connect(db)
    try:
        assert raw.execute("SELECT count(*) FROM head_moves WHERE reason = 'fork'").fetchone()[0] == 0
    finally:
        raw.close()
