"""Snapshots are a cache: each agrees with a full fold, serves every branch through its event,
can be deleted, is ignored when unreadable, of another state version or not matching its
digest, and is no part of the log (no triggers, not in the hash chain); `verify` checks
each against the fold. Replays stream."""

from __future__ import annotations

import sqlite3
import tracemalloc
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.fight import Generator
from skirmish.eventlog import snapshots
from skirmish.eventlog.commands import AddCombatant, Damage
from skirmish.eventlog.errors import UnknownEvent
from skirmish.eventlog.store import Store
from skirmish.projections.write import engine
from skirmish.projections.write.engine import Encounter, new_encounter
from skirmish.projections.ruleset import registry

from support.cli import Cli, start
from support.examples import examples
from support.invariants import Run, fresh

RULESETS = sorted(registry())
FIGHTS = settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def full_fold(enc: Encounter, event_id: int) -> Any:
    """The state at ``event_id`` folded from the root, no snapshot read."""
    return enc.fold(enc.path(event_id))


def snapshot_rows(store: Store) -> list[tuple[int, str, int, int, bytes]]:
    return store.conn.execute(
        "SELECT event_id, projection, version, depth, state FROM snapshots ORDER BY event_id"
    ).fetchall()


def decoded(store: Store, enc: Encounter, blob: bytes, event_id: int | None = None, depth: int | None = None) -> Any:
    """A stored snapshot's state; with its event and depth, its digest checked first."""
    state = blob[snapshots.DIGEST_SIZE:]
    if event_id is not None and depth is not None:
        event_hash = store.conn.execute("SELECT hash FROM events WHERE id = ?", (event_id,)).fetchone()[0]
        assert blob[:snapshots.DIGEST_SIZE] == snapshots.digest(
            event_hash, enc.row.ruleset, enc.ruleset.state_version, depth, state)
    return msgspec.msgpack.decode(state, type=type(enc.ruleset.initial(enc.started)))


@pytest.mark.parametrize("ruleset_id", RULESETS)
@FIGHTS
@given(data=st.data())
def test_a_snapshot_and_a_full_fold_agree(ruleset_id: str, data: st.DataObject) -> None:
    """Random fights with undos, redos and what-if branches, a snapshot every few events:
    every snapshot is exactly the full fold at its event, every state read through one is
    too, and after deleting them all nothing changes but the work done."""
    every = data.draw(st.integers(1, 6), label="snapshot every")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "SNAPSHOT_EVERY", every)
        run = Run(data, ruleset_id)
        try:
            run.wander(40)
            enc, store = run.enc, run.store
            ids = [row.id for row in store.all_events(enc.row.id)]
            for event_id, projection, version, depth, blob in snapshot_rows(store):
                assert (projection, version) == (ruleset_id, enc.ruleset.state_version)
                path = enc.path(event_id)
                assert depth == len(path) - 1 and depth % every == 0
                assert decoded(store, enc, blob, event_id, depth) == enc.fold(path)
            assert enc.check_snapshots() == []
            reader = fresh(store, enc)
            for event_id in ids:
                assert reader.state_at(event_id) == full_fold(enc, event_id)
            digest = store.verify(enc.row.id)
            view = enc.view()
            store.drop_snapshots()
            assert fresh(store, enc).view() == view
            assert store.verify(enc.row.id) == digest
            for event_id in ids:
                assert fresh(store, enc).state_at(event_id) == full_fold(enc, event_id)
        finally:
            run.close()


def fight(store: Store, events: int) -> Encounter:
    return Generator(store, seed=3).run(events)


def test_snapshots_fall_every_so_many_events_down_each_path(memory_store: Store) -> None:
    enc = fight(memory_store, 2_000)
    rows = snapshot_rows(memory_store)
    assert rows and all(depth % engine.SNAPSHOT_EVERY == 0 for _, _, _, depth, _ in rows)
    for event_id, _, _, depth, blob in rows[:3]:
        assert decoded(memory_store, enc, blob, event_id, depth) == full_fold(enc, event_id)


def test_one_snapshot_serves_every_branch_through_its_event(memory_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "SNAPSHOT_EVERY", 4)
    enc = start(memory_store)
    enc.execute(AddCombatant(name="Hauser", stats={"qu": "1", "hits": "90"}), "add Hauser")
    for _ in range(10):
        enc.execute(Damage(who="Hauser", amount=1), "damage Hauser 1")
    fork_at = enc.head().event_id
    before = snapshot_rows(memory_store)
    enc.fork("what-if", fork_at, "branch what-if")
    enc.switch("what-if", "switch what-if")
    for _ in range(2):
        enc.execute(Damage(who="Hauser", amount=5), "damage Hauser 5")
    state = enc.state_at(enc.head().event_id)
    # No snapshot was written for the shared history again: the branch reads main's.
    assert [r for r in snapshot_rows(memory_store) if r[0] <= fork_at] == before
    assert state == full_fold(enc, enc.head().event_id)
    assert enc.view().combatants[0].vital.value == 90 - 10 - 10


def test_an_unreadable_or_older_snapshot_is_a_miss(memory_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    enc = fight(memory_store, 1_200)
    head = enc.head().event_id
    want = full_fold(enc, head)
    # Snapshots are no part of the log: no append-only trigger guards them.
    memory_store.conn.execute("UPDATE snapshots SET state = x'c1c1'")
    assert fresh(memory_store, enc).state_at(head) == want
    monkeypatch.setattr(type(enc.ruleset), "state_version", enc.ruleset.state_version + 1)
    assert fresh(memory_store, enc).state_at(head) == want
    versions = {r[2] for r in snapshot_rows(memory_store)}
    assert versions == {enc.ruleset.state_version - 1, enc.ruleset.state_version}


def test_the_hash_chain_does_not_cover_snapshots(file_store: Store) -> None:
    enc = fight(file_store, 1_000)
    digest = file_store.verify(enc.row.id)
    file_store.conn.execute("UPDATE snapshots SET depth = depth + 1")
    assert file_store.verify(enc.row.id) == digest
    assert enc.check_snapshots()  # the snapshots' own check sees it
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        file_store.conn.execute("UPDATE events SET body = body")


def test_a_file_that_cannot_be_written_still_reads_without_its_snapshots(file_store: Store) -> None:
    enc = fight(file_store, 800)
    file_store.drop_snapshots()
    head = enc.head().event_id
    reader = Store(file_store.file, create=False)
    reader.conn.execute("PRAGMA query_only = ON")  # as a read-only file or mount would
    assert Encounter.open(reader).state_at(head) == full_fold(enc, head)
    assert reader.conn.execute("SELECT count(*) FROM snapshots").fetchone()[0] == 0
    reader.close()


def test_replay_streams_rows(memory_store: Store) -> None:
    """Memory held by a replay does not grow with the length of the log."""
    enc = fight(memory_store, 4_000)

    def peak(events: int) -> int:
        steps = iter(enc.replay())
        tracemalloc.start()
        for _ in range(events):
            next(steps)
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return top

    short, full = peak(400), peak(3_900)
    assert full < 2 * short + 64_000


def test_a_replay_from_an_event_starts_at_the_snapshot_before_it(memory_store: Store) -> None:
    enc = fight(memory_store, 1_500)
    head = enc.head().event_id
    # The replay's state is its working copy, changed by the next event: view it as it goes.
    full = [(rec.id, enc.ruleset.view(state)) for rec, state in enc.replay()]
    on_path = {event_id for event_id, _ in full}
    for start in (full[0][0], full[1][0], full[700][0], head):
        again = [(rec.id, enc.ruleset.view(state)) for rec, state in enc.replay(start=start)]
        assert again == [step for step in full if step[0] >= start]
    off_path = next(row.id for row in memory_store.all_events(enc.row.id) if row.id not in on_path)
    with pytest.raises(UnknownEvent, match=f"event {off_path} is not in the history"):
        list(enc.replay(start=off_path))


def naive_path(store: Store, event_id: int) -> list[int]:
    parents = dict(store.conn.execute("SELECT id, parent_id FROM events").fetchall())
    ids: list[int] = []
    at: int | None = event_id
    while at is not None:
        ids.append(at)
        at = parents[at]
    return ids[::-1]


def test_paths_read_as_runs_agree_with_a_walk_up_the_parents(memory_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two encounters appended in turn (every event of one follows one of the other), undos
    and branches: the runs a path is read in never cross into another history, nor does
    the search for the nearest snapshot."""
    monkeypatch.setattr(engine, "SNAPSHOT_EVERY", 3)
    one = start(memory_store)
    two = new_encounter(memory_store, "Second fight", "ap-countdown", {}, "new", seed=2)
    for enc in (one, two):
        enc.execute(AddCombatant(name="Hauser", stats={"qu": "1", "hits": "90"}), "add Hauser")
    for turn in range(12):
        for enc in (one, two):
            enc.execute(Damage(who="Hauser", amount=1 + turn % 3), "damage")
        if turn % 4 == 3:
            one.undo(2, "undo 2")
        if turn == 6:
            two.fork("what-if", two.head().event_id - 4, "branch what-if")
            two.switch("what-if", "switch what-if")
    for event_id, encounter_id in memory_store.conn.execute("SELECT id, encounter_id FROM events").fetchall():
        assert [r.id for r in memory_store.path(event_id)] == naive_path(memory_store, event_id)
        assert memory_store.path_length(event_id) == len(naive_path(memory_store, event_id))
        enc = one if encounter_id == one.row.id else two
        assert fresh(memory_store, enc).state_at(event_id) == full_fold(enc, event_id)
        for since in naive_path(memory_store, event_id)[::3]:
            assert [r.id for r in memory_store.path(event_id, since)] == [
                i for i in naive_path(memory_store, event_id) if i >= since
            ]


# --- snapshots that cannot lie ----------------------------------------------------------------


def hauser_fight(cli: Cli) -> int:
    """Hauser (90 hits) takes 1 hit twenty times: 70 left; a snapshot every 4 events."""
    cli.ok("new", "Cache", "--rules", "ap-countdown")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=90")
    for _ in range(20):
        cli.ok("damage", "Hauser", "1")
    return 90 - 20


def forged(cli: Cli, hits_left: int, redigest: bool) -> list[int]:
    """Every snapshot rewritten so that Hauser has ``hits_left``: with its digest made again
    over the forged state (someone who read the code) or left as it was."""
    store = Store(cli.db, create=False)
    enc = Encounter.open(store)
    state_type = type(enc.ruleset.initial(enc.started))
    edited = []
    for event_id, depth, blob, event_hash in store.conn.execute(
        "SELECT s.event_id, s.depth, s.state, e.hash FROM snapshots s JOIN events e ON e.id = s.event_id"
    ).fetchall():
        state = msgspec.msgpack.decode(blob[snapshots.DIGEST_SIZE:], type=state_type)
        hauser = state.fighters["Hauser"]
        state.fighters["Hauser"] = msgspec.structs.replace(hauser, damage=hauser.hits - hits_left)
        new = msgspec.msgpack.encode(state)
        head = (snapshots.digest(event_hash, enc.row.ruleset, enc.ruleset.state_version, depth, new) if redigest
                else blob[:snapshots.DIGEST_SIZE])
        store.conn.execute("UPDATE snapshots SET state = ? WHERE event_id = ?", (head + new, event_id))
        edited.append(event_id)
    store.close()
    assert edited
    return edited


def hits_left(cli: Cli) -> int:
    import json

    (hauser,) = json.loads(cli.ok("state", "--json"))["combatants"]
    return int(hauser["vital"]["value"])


@pytest.fixture
def every_4(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "SNAPSHOT_EVERY", 4)


def test_an_edited_snapshot_is_never_used_and_verify_names_it(cli: Cli, every_4: None) -> None:
    """The attack: a snapshot row edited to show 89 hits left. Before, `state` showed it, the
    next damage was decided on it and chained into the log, and verify said intact."""
    left = hauser_fight(cli)
    edited = forged(cli, 89, redigest=False)
    line = cli.fails("verify")
    assert cli.code == 4 and f"the cached state after #{edited[0]} does not match its digest" in line
    assert hits_left(cli) == left  # folded past the forged snapshots, which it replaced
    cli.ok("damage", "Hauser", "5")
    assert hits_left(cli) == left - 5
    cli.ok("verify")  # healed: the fold wrote good ones where they fell due


def test_a_snapshot_forged_with_its_digest_is_caught_by_verify_and_rebuilt(cli: Cli, every_4: None) -> None:
    """The digest is not keyed: one made again over a forged state passes the read-time check
    (reads then show the forged figure), and `verify`, folding the events, names it; the
    snapshots rebuilt, the figures are the events' again."""
    left = hauser_fight(cli)
    edited = forged(cli, 89, redigest=True)
    # The head is 21 events below the root (the add, 20 blows); the last snapshot at depth 20:
    # the forged 89 there, less the one blow after it. What a forged cache shows: why verify folds.
    assert hits_left(cli) == 89 - (21 - 20)
    line = cli.fails("verify")
    assert cli.code == 4 and f"the cached state after #{edited[0]} is not what the events fold to" in line
    assert "verify --rebuild-snapshots" in line
    cli.ok("verify", "--rebuild-snapshots")
    assert hits_left(cli) == left
    cli.ok("verify")


def test_a_snapshot_moved_to_another_event_is_a_miss(cli: Cli, every_4: None) -> None:
    left = hauser_fight(cli)
    store = Store(cli.db, create=False)
    rows = store.conn.execute("SELECT event_id, depth, state FROM snapshots ORDER BY event_id").fetchall()
    (first, depth, blob), (second, _, _) = rows[0], rows[-1]
    # The older state (more hits left) put where the newest one was, digest and all.
    store.conn.execute("UPDATE snapshots SET state = ? WHERE event_id = ?", (blob, second))
    store.close()
    assert f"the cached state after #{second} does not match its digest" in cli.fails("verify")
    assert hits_left(cli) == left


def test_a_read_caches_what_it_folded_once_the_read_is_over(cli: Cli, every_4: None) -> None:
    """Commands that read at one moment (state, log, ...) hold no write lock while they read;
    the states they folded are cached when the read ends, so the next read folds little."""
    left = hauser_fight(cli)
    store = Store(cli.db, create=False)
    store.drop_snapshots()
    store.close()
    assert hits_left(cli) == left
    store = Store(cli.db, create=False)
    depths = [r[0] for r in store.conn.execute("SELECT depth FROM snapshots ORDER BY depth")]
    store.close()
    assert depths == [4, 8, 12, 16, 20]  # the head is 21 events down: one every 4 on the way
    cli.ok("verify")
