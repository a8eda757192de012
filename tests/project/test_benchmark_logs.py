"""What the benchmarks read and write of the logs they measure: the live benchmark's clock
starts at the change's commit (the stamp the store writes), and the console's benchmark
types on a copy, so a log shared in --dir with the race is left as generated."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path

import pytest

from benchmarks import console, gm_live
from benchmarks.fight import generate, text_of
from skirmish.eventlog.commands import Declare
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter


def test_the_live_clock_starts_at_the_last_commit(tmp_path: Path) -> None:
    db = str(tmp_path / "f.db")
    store, enc = generate(db, 300)
    before = datetime.now().timestamp()
    enc.undo(1, "undo")  # a head's move is a commit too: its stamp is the newest
    after = datetime.now().timestamp()
    newest = max(store.conn.execute("SELECT max(recorded_at) FROM head_moves").fetchone()[0],
                 store.conn.execute("SELECT max(recorded_at) FROM events").fetchone()[0])
    store.close()
    at = gm_live.committed_at(db)
    assert at == datetime.fromisoformat(newest).timestamp()
    assert before <= at <= after


def test_a_generated_command_reads_back_as_typed(tmp_path: Path) -> None:
    """The text the generated fight stores beside a command is a line the command line takes
    (amend re-runs it): names first, a ruleset's own input as --with."""
    assert text_of(Declare(who="Mira", action="ranged-attack", target="Hauser", details={"ap": "2"})) == (
        "declare Mira ranged-attack --target Hauser --with ap=2")
    assert text_of(Declare(who="Old Orc", action="dodge")) == "declare 'Old Orc' dodge"


@pytest.mark.slow  # plays the console headless on a generated fight
def test_the_console_benchmark_leaves_the_log_it_measures(tmp_path: Path) -> None:
    db = tmp_path / "skirmish-1k.db"
    store, _ = generate(str(db), 1_000)
    store.close()
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    store = Store(str(db), create=False)
    last = Encounter.open(store).head().event_id
    store.close()
    console.main(["--sizes", "1k", "--rounds", "1", "--dir", str(tmp_path)])
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    store = Store(str(db), create=False)
    assert Encounter.open(store).head().event_id == last
    store.close()
    assert not list(tmp_path.glob("*.console.db*"))  # the copy typed on is gone
