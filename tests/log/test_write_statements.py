"""What one command at the table costs the file: the SQL statements `declare`, `next`,
`damage` and `undo` run from opening the file to closing it, counted with sqlite3's trace
callback (issue 27: 40 before, three folds of the head's state, 14 statements inside the
transaction; 30 for declare before this bound, one fold now)."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from skirmish.eventlog import connection
from support.cli import Cli

# Issue 27's target is 15. Where they go: opening the file 4 (the schema's version and
# migration record, synchronous, foreign keys: eventlog/connection.py), the encounter with its
# current branch's head, first event and whether the reply names where it landed 1
# (Store.table), the fold of the head's state 3 (jumps, snapshot, events), the path's ends and
# notes on combatants 1, the transaction 6. The view after reads nothing: it shows the state
# the decision advanced, at the head the append moved.
STATEMENTS_AT_MOST = 15
IN_TRANSACTION_AT_MOST = 6  # BEGIN, one read, the command, its event, the head move, COMMIT
# An undo: opening 4, the table 1, where the last command was decided 1, its transaction 6
# (BEGIN, the head's check, the hash it moves to, the command, the move, COMMIT), the reply's
# command text 2.
UNDO_AT_MOST = 14


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    statements: list[str] = []
    real = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real(*args, **kwargs)
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(connection.sqlite3, "connect", connect)
    return statements


def _start(cli: Cli) -> None:
    cli.ok("new", "Bridge", "--rules", "ap-countdown", "--seed", "4")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=2", "--stat", "hits=60")
    cli.ok("add", "Troll", "--side", "foes", "--stat", "qu=-2", "--stat", "hits=120")
    cli.ok("round")


def _declare(cli: Cli, traced: list[str]) -> list[str]:
    """The statements of the first `declare WHO dodge` the rules accept, the clock advanced
    until someone's count comes (a refused declaration appends nothing)."""
    for _ in range(40):
        for who in ("Hauser", "Troll"):
            traced.clear()
            cli("declare", who, "dodge")
            if cli.code == 0:
                return [" ".join(s.split()) for s in traced]
        cli.ok("next")
    raise AssertionError("nobody's count came")


def _checked(statements: list[str]) -> None:
    """What every write that appends holds: its bound, one transaction of at most 6
    statements with no savepoint and nothing read back after it, one fold of the head's
    state, and the current branch read once (with the encounter)."""
    assert len(statements) <= STATEMENTS_AT_MOST, "\n".join(statements)
    begin = statements.index("BEGIN IMMEDIATE")
    commit = statements.index("COMMIT")
    assert commit - begin + 1 <= IN_TRANSACTION_AT_MOST, "\n".join(statements[begin:commit + 1])
    assert not any(s.startswith(("SAVEPOINT", "RELEASE")) for s in statements)
    # Nothing after the commit: the view after is the state the decision advanced.
    assert statements[commit + 1:] == [], "\n".join(statements)
    # One fold of the head's state (a snapshot lookup), not two or three.
    assert sum(s.startswith("SELECT s.event_id, s.depth, s.state") for s in statements) == 1, "\n".join(statements)
    # The current branch (its last start or switch) read once.
    assert sum("reason IN ('start', 'switch')" in s for s in statements) == 1, "\n".join(statements)


def test_declare_runs_at_most_its_bound_of_statements_and_folds_once(cli: Cli, traced: list[str]) -> None:
    _start(cli)
    _checked(_declare(cli, traced))


@pytest.mark.parametrize("command", [("next",), ("damage", "Troll", "5")])
def test_next_and_damage_run_at_most_the_bound_of_statements(cli: Cli, traced: list[str], command: tuple[str, ...]) -> None:
    _start(cli)
    _declare(cli, traced)
    traced.clear()
    cli.ok(*command)
    _checked([" ".join(s.split()) for s in traced])


def test_undo_runs_at_most_its_bound_of_statements(cli: Cli, traced: list[str]) -> None:
    _start(cli)
    _declare(cli, traced)
    traced.clear()
    out = cli.ok("undo")
    statements = [" ".join(s.split()) for s in traced]
    assert "`declare " in out
    assert len(statements) <= UNDO_AT_MOST, "\n".join(statements)
    begin, commit = statements.index("BEGIN IMMEDIATE"), statements.index("COMMIT")
    assert commit - begin + 1 <= IN_TRANSACTION_AT_MOST, "\n".join(statements[begin:commit + 1])
    assert not any("max(id)" in s for s in statements[begin + 2:commit]), "\n".join(statements)
    assert sum("reason IN ('start', 'switch')" in s for s in statements) == 1, "\n".join(statements)


def test_no_statement_of_a_write_reads_every_event(cli: Cli, traced: list[str]) -> None:
    """Few statements, each a look-up: none walks the encounter's events (the path's ends and
    notes read in one statement once did, by events_by_encounter, 12 ms at 10k events)."""
    _start(cli)
    statements = _declare(cli, traced)
    raw = sqlite3.connect(cli.db)
    try:
        for statement in statements:
            if not statement.startswith("SELECT"):
                continue
            steps = [row[3] for row in raw.execute(f"EXPLAIN QUERY PLAN {statement}")]
            walks = [step for step in steps if step.startswith("SCAN events")
                     or ("events_by_encounter" in step and "COVERING" not in step)]
            assert walks == [], f"{statement}: {steps}"
    finally:
        raw.close()


def test_the_state_a_write_advanced_encodes_as_its_snapshot_does(cli: Cli) -> None:
    """The state the view after a write shows (and the next decision starts from, and its
    snapshots are cached from) encodes byte for byte as the same state read back from a
    snapshot: phases kept a whole number of metres moved as an int in a field typed float,
    which came back from a snapshot as 0.0, other bytes (tests/log/test_snapshots.py)."""
    import msgspec

    from skirmish.projections.rulesets.phases.state import Fighter

    fighter = Fighter(name="Rook", side="foes", base=4, agility=6, bulk=0)
    for moved in (0, 7.5, 14 / 2):
        fighter.moved_m = moved
        blob = msgspec.msgpack.encode(fighter)
        again = msgspec.msgpack.decode(blob, type=Fighter)
        assert msgspec.msgpack.encode(again) == blob and type(again.moved_m) is type(moved)


def test_a_head_moved_after_the_command_read_it_is_refused(cli: Cli) -> None:
    """One command reads the head once, with the encounter: another writer's append after
    that read is refused as HeadMoved (nothing recorded), not decided on unseen."""
    from skirmish.eventlog.commands import Next
    from skirmish.eventlog.errors import HeadMoved
    from skirmish.projections.write.engine import LogFile

    _start(cli)
    with LogFile(cli.db) as mine, LogFile(cli.db) as theirs:
        enc = mine.open(one_command=True)
        before = enc.head()
        theirs.open().execute(Next(), "next")
        with pytest.raises(HeadMoved, match="moved"):
            enc.execute(Next(), "next")
        assert theirs.open().head().seq == before.seq + 1


def test_the_folded_state_is_the_callers_own(cli: Cli) -> None:
    """The state kept for the next read is never the one handed out: changing what a read
    returned changes nothing the next read sees."""
    from skirmish.eventlog.store import Store
    from skirmish.projections.write.engine import Encounter

    _start(cli)
    _declare(cli, [])
    store = Store(cli.db, create=False)
    enc = Encounter.open(store)
    head = enc.head().event_id
    first, depth = enc.fold_to(head)
    first.fighters.clear()
    again, depth_again = enc.fold_to(head)
    assert set(again.fighters) == {"Hauser", "Troll"} and depth_again == depth
    store.close()
