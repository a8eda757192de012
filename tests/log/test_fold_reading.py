"""The fold's reading: a replay and a fold read each run of a path with one statement, the
body alone where its layout is current, each row's id from its place in the run; a row of
an older layout is read again whole and upcast, an unreadable one refused naming its row.
Checked on the committed old log (three runs on its main branch, old damage events in
each) against ``path``, which reads every row whole."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from skirmish.eventlog.errors import StoreError
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter

from support.tamper import tamper

OLD_DB = Path(__file__).resolve().parent.parent / "fixtures" / "bridge-ambush.db"


@pytest.fixture
def opened(tmp_path: Path) -> Iterator[tuple[Store, Encounter]]:
    path = tmp_path / "old.db"
    shutil.copy(OLD_DB, path)
    store = Store(str(path), create=False)
    try:
        yield store, Encounter.open(store)
    finally:
        store.close()


def statements(store: Store) -> list[str]:
    seen: list[str] = []
    store.conn.set_trace_callback(seen.append)
    return seen


def test_a_replay_yields_what_the_whole_rows_hold_reading_only_old_layouts_again(
    opened: tuple[Store, Encounter],
) -> None:
    store, enc = opened
    head = enc.head().event_id
    runs = store.runs(head)
    assert len(runs) == 3  # the fixture's main branch has an undo and a branch switch on it
    whole = enc.path(head)  # every row read with all its columns and decoded by kind and version
    old = [r.id for r in store.path(head) if r.version != enc.codec.versions[r.kind]]
    assert len(old) >= 3 and any(r[0] < i < r[1] for r in runs[1:] for i in old)  # one inside a later run
    seen = statements(store)
    replayed = [rec for rec, _ in enc.replay()]
    store.conn.set_trace_callback(None)
    assert replayed == whole
    assert [rec.parent for rec in replayed] == [None, *(rec.id for rec in replayed[:-1])]
    # One statement a run, and one look-up a row of an older layout: no more.
    lookups = [s for s in seen if "FROM events WHERE id = " in s]
    assert len(lookups) == len(old)
    assert sorted(int(s.split("WHERE id = ")[1].split()[0]) for s in lookups) == old
    assert len([s for s in seen if "BETWEEN" in s]) == len(runs)


def test_the_fold_from_the_root_ends_where_the_replay_does(opened: tuple[Store, Encounter]) -> None:
    store, enc = opened
    store.drop_snapshots()
    head = enc.head().event_id
    whole = enc.fold(enc.path(head))
    state, depth = enc.fold_to(head)
    assert state == whole
    assert depth == len(enc.path(head)) - 1
    assert enc.check_snapshots() == []


@pytest.mark.parametrize("body", ['{"type":"ap.damage-taken",,}', '{"type":"ap.unknown-kind"}'])
def test_an_unreadable_row_inside_a_later_run_is_refused_by_its_own_id(
    opened: tuple[Store, Encounter], body: str
) -> None:
    """A bad row in the middle of the path's last run, at the current layout: every read
    names that row, not a neighbour (its id is worked out from its place in the run)."""
    store, enc = opened
    store.drop_snapshots()
    head = enc.head().event_id
    low, high = store.runs(head)[-1]
    bad = next(r.id for r in store.path(head) if low + 2 < r.id < high and r.version == enc.codec.versions[r.kind])
    tamper(store, f"UPDATE events SET body = '{body}' WHERE id = {bad}")
    for read in (lambda: list(enc.replay()), lambda: enc.fold_to(head), lambda: enc.state_at(high)):
        with pytest.raises(StoreError) as raised:
            read()
        assert str(raised.value).startswith(f"event {bad} ("), raised.value


def append_rows(store: Store, enc: Encounter, rows: list[tuple[str, int, str]]) -> list[int]:
    """Rows as another skirmish might have written them (kind, layout version, body), appended
    after the head as one command."""
    from skirmish.eventlog.store import NewEvent

    news = [NewEvent(kind, version, body.encode()) for kind, version, body in rows]
    return store.append(enc.row.id, enc.head(), "rows of other layouts", b"{}", news)


# A body that reads at the current layout of its kind: only the row's version says it is not.
CLOCK = '{"type":"ap.clock-advanced","count":34,"declaring":["Mira"],"resolving":[]}'
HITS = '{"value":%d,"formula":"typed","terms":[],"rule":"ap-countdown.md, Resolution","roll":null}'
DAMAGE_V2 = '{"type":"ap.damage-taken","who":"Orc","hits":%s,"hits_left":16}' % (HITS % 2)
DAMAGE_V1 = '{"type":"ap.damage-taken","who":"Orc","amount":%s,"hits_left":13}' % (HITS % 3)


@pytest.mark.parametrize(("kind", "version", "body", "why"), [
    # a kind at layout 1 (ap-countdown's clock) stored at version 2, the version another kind is at
    ("ap.clock-advanced", 2, CLOCK, "it has layout version 2, this skirmish knows 1"),
    ("ap.damage-taken", 3, DAMAGE_V2, "it has layout version 3, this skirmish knows 2"),
    ("ap.morale-broken", 1, '{"type":"ap.morale-broken","who":"Orc"}', "this skirmish does not know its kind"),
])
def test_a_row_at_a_version_not_its_kinds_is_refused_though_its_body_would_read(
    opened: tuple[Store, Encounter], kind: str, version: int, body: str, why: str
) -> None:
    """The layout is checked against the row's version, not guessed from its body: a body
    that reads at the current layout, stored at another version, is refused by every read."""
    store, enc = opened
    store.drop_snapshots()
    (bad,) = append_rows(store, enc, [(kind, version, body)])
    for read in (lambda: list(enc.replay()), lambda: enc.fold_to(bad), lambda: enc.state_at(bad)):
        with pytest.raises(StoreError) as raised:
            read()
        assert str(raised.value).startswith(f"event {bad} ({kind}) cannot be read: "), raised.value
        assert why in str(raised.value)


def test_a_kind_whose_layout_moved_on_is_read_at_once_when_current_and_upcast_when_older(
    opened: tuple[Store, Encounter],
) -> None:
    """ap-countdown's damage is at layout 2: a row at 2 is read with the run (no second
    look-up), a row at 1 is read again whole and upcast (``amount`` is now ``hits``)."""
    store, enc = opened
    current, older = append_rows(store, enc, [("ap.damage-taken", 2, DAMAGE_V2), ("ap.damage-taken", 1, DAMAGE_V1)])
    head = enc.head().event_id
    old = [r.id for r in store.path(head) if r.version != enc.codec.versions[r.kind]]
    assert older in old and current not in old
    seen = statements(store)
    replayed = [rec for rec, _ in enc.replay()]
    store.conn.set_trace_callback(None)
    assert replayed == enc.path(head)
    lookups = sorted(int(s.split("WHERE id = ")[1].split()[0]) for s in seen if "FROM events WHERE id = " in s)
    assert lookups == old
    assert msgspec.to_builtins(replayed[-2].event)["hits"]["value"] == 2
    assert msgspec.to_builtins(replayed[-1].event)["hits"]["value"] == 3


def test_a_ruleset_with_its_own_apply_has_every_event_folded_through_it(opened: tuple[Store, Encounter]) -> None:
    """A Rules ruleset that overrides ``apply`` (Rules.appliers is then None) gets every event
    after the first through it, in order, in the replay and the fold alike; the states are
    those of the ruleset's own handlers, which its ``apply`` hands each event on to."""
    store, enc = opened
    store.drop_snapshots()
    head = enc.head().event_id
    path = enc.path(head)
    handed: list[object] = []
    base = type(enc.ruleset)

    class OwnFold(base):  # type: ignore[valid-type,misc]
        def apply(self, state: object, event: object) -> None:
            handed.append(event)
            super().apply(state, event)

    plain = [msgspec.json.encode(state) for _, state in enc.replay()]
    own = OwnFold()
    assert own.appliers() is None
    enc.ruleset = own
    assert [msgspec.json.encode(state) for _, state in enc.replay()] == plain
    assert handed == [rec.event for rec in path[1:]]
    handed.clear()
    state, _ = enc.fold_to(head)
    assert msgspec.json.encode(state) == plain[-1]
    assert handed == [rec.event for rec in path[1:]]


def test_a_replays_records_read_their_time_when_asked_for_as_it_was_stored(opened: tuple[Store, Encounter]) -> None:
    """A replay reads no row's time (no surface that replays shows it); a record read for it
    gives the row's time as stored, and equals the record read whole."""
    from skirmish.projections.write.engine import Recorded

    store, enc = opened
    head = enc.head().event_id
    seen = statements(store)
    replayed = [rec for rec, _ in enc.replay()]
    store.conn.set_trace_callback(None)
    runs = [s for s in seen if "BETWEEN" in s]  # the runs' reads (a row of an older layout is read whole)
    assert runs and not [s for s in runs if "recorded_at" in s]
    assert not [s for s in seen if s.startswith("SELECT recorded_at")]
    rows = list(store.path(head))
    assert len({r.recorded_at for r in rows}) > 1  # the times differ, so a time read off by a row shows
    assert [rec.recorded_at for rec in replayed] == [r.recorded_at for r in rows]
    whole = enc.path(head)
    assert replayed == whole
    first = replayed[1]
    assert first == whole[1]
    assert first != Recorded(first.id, first.parent, first.command_id, first.event, "2000-01-01T00:00:00+00:00")
    assert first.to_json()["recorded_at"] == rows[1].recorded_at
