"""The whole-log commands read a row at a time (issue 14; issue 13, item 8): verify walks
each table once without loading the log, export writes a chunk at a time, import inserts
a chunk at a time. The oracle is the walk over the whole log in memory (chain.verify),
which names faults and was the only verifier before: on every intact log the streamed walk
must give its digest without falling back to it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skirmish.cli.main import run_cli
from skirmish.eventlog import chain
from skirmish.eventlog.store import EventRow, Store
from skirmish.projections.write.engine import LogFile
from skirmish.projections.write import transfer

from support.examples import examples

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.skirmish"))

# Everything that moves heads and appends rows at the table, two encounters played in
# turn in one file (their ids interleave), an amend (rows written from a private copy).
# "{damage}" is the id of Bridge's first damage that stayed: ids are the file's.
TABLE = [
    ["new", "Bridge", "--rules", "ap-countdown", "--seed", "5"],
    ["add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40"],
    ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30"],
    ["new", "Cellar", "--rules", "duel", "--seed", "3"],
    ["add", "Lena", "--side", "players", "--stat", "hp=10", "--stat", "speed=3"],
    ["use", "Bridge"],
    ["round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5"],
    ["damage", "Orc", "4"], ["undo"], ["redo"], ["undo"], ["damage", "Orc", "5"],
    ["use", "Cellar"],
    ["add", "Jack", "--side", "foes", "--stat", "hp=8", "--stat", "speed=2"],
    ["use", "Bridge"],
    ["branch", "what-if", "--at", "{damage}"],
    ["switch", "what-if"],
    ["damage", "Hauser", "3"],
    ["switch", "main"],
    ["note", "{damage}", "the Orc hesitated"],
    ["amend", "{damage}", "--", "damage", "Orc", "6"],
    ["effect", "Orc", "bleeding", "--per-round", "2"],
]


def play(db: str, lines: list[list[str]]) -> None:
    ids: dict[str, str] = {}
    for line in lines:
        assert run_cli(["--db", db, *(word.format(**ids) for word in line)]) == 0, line
        if line[:3] == ["damage", "Orc", "5"]:
            store = Store(db)
            try:
                ids["damage"] = str(store.head(store.encounter("Bridge").id, "main").event_id)
            finally:
                store.close()


def no_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    def whole(log: object) -> str:
        raise AssertionError("an intact log was read whole: the streamed walk gave up on it")

    monkeypatch.setattr(chain, "verify", whole)


def digests(store: Store) -> dict[int, str]:
    """Each encounter's digest by the walk over the whole log (the oracle)."""
    return {e.id: chain.verify(store.log(e.id)) for e in store.encounters()}


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.name for s in SAMPLES])
def test_a_sample_verifies_streamed_to_the_digest_of_the_whole_walk(
    tmp_path: Path, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "fight.db")
    play(db, [["run", str(sample)]])
    store = Store(db)
    try:
        want = digests(store)
        no_fallback(monkeypatch)
        assert {e: store.verify(e) for e in want} == want
    finally:
        store.close()


def test_the_table_s_every_move_verifies_streamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "fight.db")
    play(db, TABLE)
    store = Store(db)
    try:
        want = digests(store)
        assert len(want) == 2
        no_fallback(monkeypatch)
        assert {e: store.verify(e) for e in want} == want
        # An import keeps the ids of another file: still laid out as recorded.
        out = tmp_path / "bridge.jsonl"
        assert run_cli(["--db", db, "--encounter", "Bridge", "export", "--out", str(out)]) == 0
        copy = str(tmp_path / "copy.db")
        assert run_cli(["--db", copy, "import", str(out)]) == 0
        imported = Store(copy)
        try:
            (row,) = imported.encounters()
            assert imported.verify(row.id) == want[store.encounter("Bridge").id]
        finally:
            imported.close()
    finally:
        store.close()


def tampered(tmp_path: Path, table: str, edit: str) -> str:
    """A short fight (events 1 to 5, the damage command 5) with one row of ``table`` edited."""
    db = str(tmp_path / "fight.db")
    play(db, TABLE[:3] + TABLE[6:8])
    store = Store(db)
    try:
        store.conn.execute(f"DROP TRIGGER {table}_refuse_update")
        store.conn.execute(f"UPDATE {table} {edit}")
    finally:
        store.close()
    return db


def test_a_fault_the_streamed_walk_meets_is_named_by_the_whole_walk(tmp_path: Path) -> None:
    """An edited body: the streamed walk gives up at it, the whole walk names the event."""
    db = tampered(tmp_path, "events", "SET body = replace(body, '4', '40') WHERE id = 5")
    store = Store(db)
    try:
        with pytest.raises(chain.Suspect):
            _streamed(store)
        with pytest.raises(Exception, match=r"event 5 \(ap\.damage-taken\) was altered"):
            store.verify(1)
    finally:
        store.close()


def _streamed(store: Store) -> str:
    """The streamed walk alone, without the fallback (the store's own queries)."""
    from skirmish.eventlog import store as module

    row = store.encounter("Bridge")
    return chain.verify_streamed(
        row,
        store.each_command(row.id),
        store.conn.execute(module._LINKED_MOVES, (row.id,)),
        store.conn.execute(module._LINKED_EVENTS, (row.id,)),
    )


@pytest.fixture
def exported(tmp_path: Path) -> tuple[str, Path]:
    db = str(tmp_path / "fight.db")
    play(db, TABLE)
    out = tmp_path / "bridge.jsonl"
    assert run_cli(["--db", db, "--encounter", "Bridge", "export", "--out", str(out)]) == 0
    return db, out


def test_export_in_chunks_writes_each_row_once_in_id_order(
    exported: tuple[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Chunks of 3 rows: every boundary falls inside a table somewhere. The file is the one
    a single chunk writes, and holds the rows sqlite3 reads directly."""
    db, whole = exported
    monkeypatch.setattr(transfer, "CHUNK", 3)
    small = tmp_path / "small.jsonl"
    assert run_cli(["--db", db, "--encounter", "Bridge", "export", "--out", str(small)]) == 0
    assert small.read_bytes() == whole.read_bytes()
    records = [json.loads(line) for line in small.read_bytes().splitlines()]
    import sqlite3

    conn = sqlite3.connect(db)
    enc = conn.execute("SELECT id FROM encounters WHERE name = 'Bridge'").fetchone()[0]
    for tag, table in (("command", "commands"), ("event", "events"), ("move", "head_moves")):
        ids = [r["id"] for r in records if r["record"] == tag]
        assert ids == [i for (i,) in conn.execute(f"SELECT id FROM {table} WHERE encounter_id = ? ORDER BY id", (enc,))]
    assert records[0]["rows"] == len(records) - 2
    conn.close()


def test_import_inserts_while_it_reads(exported: tuple[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Rows are in the database (in the import's transaction) before the file's last line is
    read: the file is never held whole. Chunks of 3 rows, so the test's fight is many chunks."""
    _, out = exported
    monkeypatch.setattr(transfer, "CHUNK", 3)
    lines = out.read_bytes().splitlines(keepends=True)
    log_file = LogFile(str(tmp_path / "copy.db"), create=True)
    store = log_file._store  # the import's own connection: its transaction's rows are seen only there
    seen_before_last: list[int] = []

    def reading() -> Iterator[bytes]:
        yield from lines[:-1]
        seen_before_last.append(store.conn.execute("SELECT count(*) FROM events").fetchone()[0])
        yield lines[-1]

    try:
        done = transfer.import_jsonl(log_file, reading(), "bridge.jsonl")
        header = json.loads(lines[0])
        assert done.digest == header["digest"] and not done.already
        events = sum(1 for line in lines if json.loads(line)["record"] == "event")
        assert 0 < seen_before_last[0] and done.events == events
        assert store.verify(done.encounter.id) == header["digest"]
    finally:
        log_file.close()


def test_import_of_a_file_cut_short_leaves_nothing(exported: tuple[str, Path], tmp_path: Path) -> None:
    """Rows already inserted chunk by chunk are rolled back with the refusal."""
    _, out = exported
    lines = out.read_bytes().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:-5]))
    target = tmp_path / "existing.db"
    play(str(target), [["new", "Other", "--rules", "duel"]])
    assert run_cli(["--db", str(target), "import", str(cut)]) != 0
    store = Store(str(target))
    try:
        assert [e.name for e in store.encounters()] == ["Other"]
        assert store.conn.execute("SELECT count(*) FROM events").fetchone()[0] == 1
    finally:
        store.close()


# --- a long log's verify on the other core (eventlog/verifying.py) ----------------------------


@pytest.fixture
def aside(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every log counts as long, and a second core is there: the other process always runs.
    Returns the command lines it was started with."""
    from skirmish.eventlog import verifying

    started: list[list[str]] = []
    real = verifying.subprocess.Popen

    def spawn(args: list[str], **kwargs: object) -> object:
        started.append(list(args))
        return real(args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(verifying, "AT_LEAST", 0)
    monkeypatch.setattr(verifying, "cores", lambda: 2)
    monkeypatch.setattr(verifying.subprocess, "Popen", spawn)
    return started


@pytest.mark.slow
def test_the_other_process_gives_the_digest_verify_gives(tmp_path: Path, aside: list[list[str]]) -> None:
    db = str(tmp_path / "fight.db")
    play(db, TABLE)
    store = Store(db)
    try:
        want = digests(store)
        from skirmish.eventlog.verifying import verifying

        for encounter_id, digest in want.items():
            with store.reading(), verifying(store, encounter_id) as chain_digest:
                assert chain_digest() == digest
        assert len(aside) == len(want)
    finally:
        store.close()


@pytest.mark.slow
def test_a_command_recorded_meanwhile_is_not_in_the_digest(
    tmp_path: Path, aside: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another writer commits before the other process reads: its counts differ, so the
    digest is worked out again here, at the caller's moment (the rows it exports)."""
    from skirmish.eventlog import verifying

    db = str(tmp_path / "fight.db")
    play(db, TABLE[:3] + TABLE[6:8])
    store = Store(db)
    try:
        before = store.verify(1)
        real = verifying.subprocess.Popen

        def late(args: list[str], **kwargs: object) -> object:
            play(db, [["damage", "Orc", "2"]])  # committed by another connection, first
            return real(args, **kwargs)  # type: ignore[call-overload]

        monkeypatch.setattr(verifying.subprocess, "Popen", late)
        with store.reading(), verifying.verifying(store, 1) as chain_digest:
            assert chain_digest() == before
        assert store.verify(1) != before  # the new command is there, for the next read
    finally:
        store.close()


@pytest.mark.slow
def test_a_tampered_log_is_named_the_same_from_the_other_process(
    tmp_path: Path, aside: list[list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    db = tampered(tmp_path, "commands", "SET text = 'damage Orc 40' WHERE text = 'damage Orc 4'")
    store = Store(db)
    try:
        with pytest.raises(chain.TamperedLog) as here:
            chain.verify(store.log(1))  # the whole walk, here
    finally:
        store.close()
    assert "command 5 ('damage Orc 40') was altered after it was recorded" in str(here.value)
    out = tmp_path / "fight.jsonl"
    capsys.readouterr()
    for words in (["verify"], ["export", "--out", str(out)]):
        assert run_cli(["--db", db, *words]) == 4
        assert capsys.readouterr().err.splitlines() == [f"Error: {here.value}"], words
    assert len(aside) == 2 and not out.exists()


@pytest.mark.slow
def test_an_export_written_beside_the_other_process_imports_whole(
    exported: tuple[str, Path], aside: list[list[str]], tmp_path: Path
) -> None:
    """Its header (written first with a placeholder, the digest patched in at the end)
    carries the digest, and the file is the one written without the other process."""
    db, whole = exported
    out = tmp_path / "aside.jsonl"
    assert run_cli(["--db", db, "--encounter", "Bridge", "export", "--out", str(out)]) == 0
    assert aside and out.read_bytes() == whole.read_bytes()
    assert json.loads(out.read_bytes().splitlines()[0])["digest"] != "0" * 64
    assert run_cli(["--db", str(tmp_path / "copy.db"), "import", str(out)]) == 0


# --- the event hash's fast path ---------------------------------------------------------------


def spec_hash(*fields: object) -> str:
    """The chain's row hash as eventlog/chain.py states it, written again here: each field's
    UTF-8 text prefixed by its byte length and a colon, None as "~", SHA-256 of the whole."""
    import hashlib

    data = b""
    for field in fields:
        if field is None:
            data += b"~"
        else:
            text = str(field).encode("utf-8")
            data += str(len(text)).encode() + b":" + text
    return hashlib.sha256(data).hexdigest()


texts = st.text(max_size=40) | st.sampled_from(["", "~", "5:event", "ap.damage-taken", "é", "\u202e", "日本"])
values = st.none() | st.integers(-(2**63), 2**63 - 1) | texts | st.floats(allow_nan=False) | st.binary(max_size=4)


@settings(max_examples=examples(400), deadline=None)
@given(
    event_id=values, parent_id=values, command_id=st.integers(1, 10), kind=values, version=values,
    body=values, recorded_at=values, parent_hash=st.none() | texts, cmd_hash=values, encounter_id=values,
)
def test_the_event_hash_is_the_chain_s_format_for_any_row(
    event_id: object, parent_id: object, command_id: int, kind: object, version: object, body: object,
    recorded_at: object, parent_hash: str | None, cmd_hash: object, encounter_id: object,
) -> None:
    """The fast path (every field ASCII) and the general one give the format's hash, for
    rows as an edited file may hold them too (a number where text belongs, bytes)."""
    row = EventRow(event_id, parent_id, command_id, kind, version, body, recorded_at, "")  # type: ignore[arg-type]
    want = spec_hash("event", event_id, encounter_id, parent_id, parent_hash, cmd_hash, kind, version, recorded_at, body)
    assert chain.event_hash(encounter_id, row, parent_hash, cmd_hash) == want  # type: ignore[arg-type]


def test_a_replay_gives_each_event_its_stored_parent(tmp_path: Path) -> None:
    """The replay reads a path without its parent column (on a path, each event's parent is
    the one before it): every record's parent is the stored one, on every branch, from the
    root and from an event part-way."""
    from skirmish.projections.write.engine import Encounter

    db = str(tmp_path / "fight.db")
    play(db, TABLE)
    store = Store(db)
    try:
        enc = Encounter.open(store)
        stored = {e.id: e.parent_id for e in store.all_events(enc.row.id)}
        heads = [head.event_id for head in store.branches(enc.row.id).values()]
        assert len(heads) >= 3  # main, what-if and the amend's branch
        for head in heads:
            records = [rec for rec, _ in enc.replay(to=head)]
            assert [(r.id, r.parent) for r in records] == [(r.id, stored[r.id]) for r in records]
            assert records[0].parent is None and records[-1].id == head
            middle = records[len(records) // 2]
            assert [(r.id, r.parent) for r, _ in enc.replay(to=head, start=middle.id)] == [
                (r.id, stored[r.id]) for r in records[len(records) // 2:]
            ]
    finally:
        store.close()
