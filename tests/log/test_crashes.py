"""Crashes: a writer SIGKILLed at random moments, many times over, never damages the log.

A child process plays a stream of commands (rounds, damage, notes, multi-event upkeeps,
undos) against one file, writing "start K" before each command and "done K" after it
returns (unbuffered, straight to a file). The test kills it at a random moment, then
checks the file as the next GM to open it would find it: ``PRAGMA integrity_check`` is
ok, ``verify`` is ok (every command's events are one whole chain with its head move),
every command that returned is in the store, every command in the store was started,
and the one in flight at the kill is wholly in or wholly out. Then it starts the next
child on the same file: the stream goes on from whatever state the kill left.

The durability settings this relies on are explained in eventlog/connection.py.
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter

pytestmark = pytest.mark.slow  # every test starts a process: `pytest -m "not slow"` leaves it out

# The writer: opens (or creates) the file, then plays commands until it is killed.
CHILD = r"""
import os, sys
from skirmish.eventlog.commands import AddCombatant, AddNote, ApplyEffect, Damage, StartRound, Upkeep
from skirmish.eventlog.errors import SkirmishError
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter, new_encounter

path, markers, first = sys.argv[1], sys.argv[2], int(sys.argv[3])
log = os.open(markers, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
store = Store(path)
if not store.encounters():
    enc = new_encounter(store, "Crash fight", "ap-countdown", {}, "new", seed=7)
else:
    enc = Encounter.open(store)
k = first
while True:
    view = enc.view()
    names = [c.name for c in view.combatants]
    if len(names) < 2:
        name = ("Hauser", "Orc")[len(names)]
        cmd = AddCombatant(name=name, stats={"qu": "1", "hits": "999"})
    elif not any(c.effects for c in view.combatants):
        cmd = ApplyEffect(who="Orc", kind="bleeding", per_round=1)  # so each upkeep writes several events
    elif not view.clock.running:
        cmd = StartRound()
    else:
        cmd = [Damage(who="Hauser", amount=1), AddNote(event=1, text=f"call {k}"), "undo", Upkeep()][k % 4]
    os.write(log, b"start %d\n" % k)
    try:
        if cmd == "undo":
            enc.undo(1, f"crash {k}")
        else:
            enc.execute(cmd, f"crash {k}")
    except SkirmishError as exc:
        os.write(log, b"refused %d %s\n" % (k, str(exc).encode()))
    else:
        os.write(log, b"done %d\n" % k)
    k += 1
"""


def read_markers(markers: Path) -> tuple[set[int], set[int], set[int]]:
    started, done, refused = set(), set(), set()
    if markers.exists():
        for line in markers.read_text().splitlines():
            word, number = line.split()[:2]
            {"start": started, "done": done, "refused": refused}[word].add(int(number))
    return started, done, refused


def check_after_kill(path: Path, markers: Path, first: int) -> tuple[int, str]:
    """The file as the next GM finds it; return (commands stored, what became of the one in flight)."""
    started, done, refused = read_markers(markers)
    if not path.exists():
        return 0, "no file yet"
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        raw.close()
    store = Store(str(path), create=False)
    try:
        if not store.encounters():
            assert not done
            return 0, "killed while creating the file"
        enc = Encounter.open(store)
        # verify: each command's events are one chain from where its head move started to
        # where it ended; no event without a head move, no command without one.
        store.verify(enc.row.id)
        stored = {int(c.text.split()[1]) for c in store.commands(enc.row.id).values() if c.text.startswith("crash ")}
        assert done <= stored, f"commands that returned are missing: {sorted(done - stored)}"
        assert stored <= started, f"commands that never started are stored: {sorted(stored - started)}"
        assert not stored & refused
        enc.view()  # the stored log still folds
        in_flight = {k for k in started - done - refused if k >= first}  # this child's only
        assert len(in_flight) <= 1
        outcome = "between commands" if not in_flight else ("in flight: in" if in_flight <= stored else "in flight: out")
        return len(stored), outcome
    finally:
        store.close()


def kill_many_times(tmp_path: Path, kills: int, seed: int) -> Counter[str]:
    path, markers = tmp_path / "crash.db", tmp_path / "markers.txt"
    rng = random.Random(seed)
    outcomes: Counter[str] = Counter()
    stored = 0
    for _ in range(kills):
        started, _, _ = read_markers(markers)
        first = max(started, default=-1) + 1
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(markers), str(first)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if rng.random() < 0.2:
            time.sleep(rng.uniform(0.0, 0.4))  # at start-up: imports, opening or creating the file
        else:
            # Mid-stream, whatever the machine's load: once this child has begun a command.
            size = markers.stat().st_size if markers.exists() else 0
            deadline = time.monotonic() + 60
            while (not markers.exists() or markers.stat().st_size == size) and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(rng.uniform(0.0, 0.5))
        assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        assert child.returncode == -signal.SIGKILL
        count, outcome = check_after_kill(path, markers, first)
        assert count >= stored, "a later process lost commands an earlier one stored"
        stored = count
        outcomes[outcome] += 1
    outcomes["commands stored"] = stored
    print(f"\ncrashes: kills={kills} " + json.dumps(dict(outcomes)))
    return outcomes


def test_a_writer_killed_a_few_times(tmp_path: Path) -> None:
    outcomes = kill_many_times(tmp_path, kills=4, seed=1)
    assert outcomes["commands stored"] > 0


@pytest.mark.slow  # forty kills: `pytest -m "not slow"` keeps the few above
def test_a_writer_killed_at_random_forty_times(tmp_path: Path) -> None:
    outcomes = kill_many_times(tmp_path, kills=40, seed=2026)
    # The kills must land mid-stream, with a command under way, for this to prove anything.
    assert outcomes["in flight: in"] + outcomes["in flight: out"] >= 10, outcomes
    assert outcomes["commands stored"] > 100
