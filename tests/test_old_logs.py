"""Old logs: a database written by an earlier skirmish replays to the same state, forever.

tests/fixtures/bridge-ambush.db is samples/bridge-ambush.skirmish as skirmish 0.1.0
(schema 1) stored it, made once by tests/fixtures/make_fixtures.py and committed with
what it must replay to (bridge-ambush.expected.json). Event layouts may move on; each
change bumps the event's ``version`` and registers an upcaster (eventlog/events.py) that
turns the old stored body into the new layout when it is read. The stored bytes are
never rewritten, so the hash chain, and ``verify``'s digest, stay as they were.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from conftest import Cli
from skirmish.eventlog.store import Store
from skirmish.projections.engine import Encounter

FIXTURES = Path(__file__).resolve().parent / "fixtures"
OLD_DB = FIXTURES / "bridge-ambush.db"
EXPECTED: dict[str, Any] = json.loads((FIXTURES / "bridge-ambush.expected.json").read_text())


def rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    raw = sqlite3.connect(path)
    try:
        return {t: raw.execute(f"SELECT * FROM {t} ORDER BY id").fetchall()
                for t in ("encounters", "commands", "events", "head_moves")}
    finally:
        raw.close()


@pytest.fixture
def old_log(tmp_path: Path, cli: Cli) -> Path:
    """A copy of the committed file (opening one writes -wal and -shm beside it)."""
    path = tmp_path / "old.db"
    shutil.copy(OLD_DB, path)
    cli.db = str(path)
    return path


def test_the_old_log_replays_to_the_state_it_was_written_with(cli: Cli, old_log: Path) -> None:
    assert json.loads(cli.ok("state", "--json")) == EXPECTED["state"]
    branches = {b["name"]: b["head"] for b in json.loads(cli.ok("branches", "--json"))}
    assert json.loads(cli.ok("state", "--json", "--at", str(branches["what-if"]))) == EXPECTED["what_if"]
    assert [json.loads(line)["kind"] for line in cli.ok("log", "--all", "--json").splitlines()] == EXPECTED["events"]
    # Replaying step by step ends where the fold does.
    store = Store(str(old_log), create=False)
    try:
        enc = Encounter.open(store)
        *_, (_, _, last) = enc.replay()
        assert enc.ruleset.view(last) == {k: v for k, v in EXPECTED["state"].items()
                                          if k not in ("encounter", "ruleset", "branch", "head", "at")}
    finally:
        store.close()


def test_the_old_log_verifies_to_its_digest_and_reading_rewrites_nothing(cli: Cli, old_log: Path) -> None:
    before = rows(old_log)
    cli.ok("verify", "--expect", EXPECTED["digest"])
    cli.ok("state", "--json")
    cli.ok("log", "--all", "--json")
    cli.ok("replay")
    assert rows(old_log) == before
    assert rows(OLD_DB) == before  # and the committed file is what it was when written


def test_play_goes_on_in_an_old_log(cli: Cli, old_log: Path) -> None:
    """New events (current layouts) follow old ones (stored layouts) on one branch."""
    cli.ok("round", "--roll", "Hauser=5,5", "--roll", "Mira=5,5", "--roll", "Orc=1,1", "--roll", "Archer=2,2")
    cli.ok("damage", "Orc", "2")
    view = json.loads(cli.ok("state", "--json"))
    orc = next(c for c in view["combatants"] if c["name"] == "Orc")
    assert orc["damage"] == next(c for c in EXPECTED["state"]["combatants"] if c["name"] == "Orc")["damage"] + 2
    cli.ok("verify")
