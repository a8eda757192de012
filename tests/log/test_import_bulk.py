"""`import` at the speed of a bulk load (issue 27): what each shortcut it takes must not lose.

Every row of an export goes in as it was and the chain is still verified before the commit;
these tests hold the shortcuts to that: the rows handed to the store table by table, and a
file whose links or hashes are broken still refused, one line naming the row at fault."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skirmish.cli.main import run_cli
from skirmish.eventlog import chain, restored, schema
from skirmish.eventlog.errors import TamperedLog
from skirmish.eventlog.rows import CommandRow, EventRow, HeadMove
from skirmish.eventlog.store import Restoring, Store
from skirmish.projections.write.engine import LogFile
from skirmish.projections.write import transfer

from support.cli import Cli
from support.examples import examples
from support.exported import exported_fight


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fight with an undo, a branch, a note and a command of two events: every kind of row,
    links that jump."""
    return exported_fight(tmp_path_factory.mktemp("export"), (
        ["switch", "what-if"], ["damage", "Hauser", "3"], ["switch", "main"],
        ["note", "3", "the Orc hesitated"],
        ["effect", "Orc", "bleeding", "--per-round", "2"], ["next"], ["next"],  # the last: two events
    ))


def test_rows_are_handed_over_a_table_at_a_time(
    export: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks of 3 rows, so each table ends with a part chunk: that part goes in before the
    next table's first row. (A command's part chunk held back until the end left events
    naming commands not yet there: SQLite's deferred foreign keys then looked up the
    children of every row inserted after, four times the import's insert time.)"""
    monkeypatch.setattr(transfer, "CHUNK", 3)
    handed: list[tuple[str, list[int]]] = []
    add = Restoring.add

    def spy(self: Restoring, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
        handed.append((table, [r[0] for r in rows]))
        add(self, table, rows)

    monkeypatch.setattr(Restoring, "add", spy)
    log_file = LogFile(str(tmp_path / "copy.db"), create=True)
    try:
        with export.open("rb") as lines:
            transfer.import_jsonl(log_file, lines, "fight.jsonl")
    finally:
        log_file.close()
    order = ["commands", "events", "head_moves"]
    tables = [table for table, _ in handed]
    assert tables == sorted(tables, key=order.index), tables
    for table in order:  # each table's ids, every one once, in the file's order
        ids = [i for t, chunk in handed if t == table for i in chunk]
        assert ids == sorted(set(ids)) and len(ids) > 3


def _schema(db: str) -> set[tuple[str, str, str, str]]:
    conn = sqlite3.connect(db)
    try:
        return set(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL"))
    finally:
        conn.close()


def test_an_import_into_a_new_file_ends_with_the_schema_a_new_file_has(export: Path, tmp_path: Path) -> None:
    """The indexes dropped while the rows go in are all built again, as the migrations made them."""
    fresh = str(tmp_path / "fresh.db")
    Store(fresh).close()
    copy = str(tmp_path / "copy.db")
    assert run_cli(["--db", copy, "import", str(export)]) == 0
    assert _schema(copy) == _schema(fresh)
    store = Store(copy)
    try:
        assert schema.missing(store.conn) == []
        # and the lookups answer from them: a command's events, the jumps of a path
        plan = " ".join(r[3] for r in store.conn.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM events WHERE command_id = 5 ORDER BY id"))
        assert "events_by_command" in plan
    finally:
        store.close()


def _records(export: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in export.read_bytes().splitlines()]


def _written(records: list[dict[str, Any]], path: Path) -> Path:
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    return path


def test_a_refused_import_into_a_file_without_an_encounter_leaves_its_indexes(
    cli: Cli, export: Path, tmp_path: Path
) -> None:
    """The file existed (no encounter in it): the refusal rolls back the dropped indexes too."""
    records = _records(export)
    event = next(r for r in records if r["record"] == "event" and r["kind"] == "ap.damage-taken")
    event["recorded_at"] = event["recorded_at"].replace("20", "19", 1)
    bad = _written(records, tmp_path / "edited.jsonl")
    empty = str(tmp_path / "empty.db")
    Store(empty).close()
    before = _schema(empty)
    line = Cli(empty, cli.capsys).fails("import", str(bad))
    assert f"event {event['id']} (ap.damage-taken) was altered" in line
    assert _schema(empty) == before


def _dangling_last_move(export: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The export with its last head move's from_event pointing at no event, the move's hash
    made again over it (the last move: no later move chains to its hash)."""
    records = _records(export)
    enc = next(r for r in records if r["record"] == "encounter")
    moves = [r for r in records if r["record"] == "move"]
    last, previous = moves[-1], moves[-2]["hash"]
    commands = {r["id"]: r["hash"] for r in records if r["record"] == "command"}
    events = {r["id"]: r["hash"] for r in records if r["record"] == "event"}
    assert last["from_event"] is not None
    last["from_event"] = max(events) + 100
    fields = {k: v for k, v in last.items() if k != "record"}
    last["hash"] = chain.move_hash(
        enc["id"], HeadMove(**fields), previous, commands[last["command_id"]], events[last["to_event"]]
    )
    return records, last


def test_a_link_to_a_missing_event_is_refused_though_every_hash_agrees(
    cli: Cli, export: Path, tmp_path: Path
) -> None:
    """The foreign keys are not enforced row by row during the insert: a head move moving from
    an event the file does not hold, hashed as if it did, is still refused, its command named."""
    records, last = _dangling_last_move(export)
    bad = _written(records, tmp_path / "dangling.jsonl")
    target = Cli(str(tmp_path / "new.db"), cli.capsys)
    line = target.fails("import", str(bad))
    assert f"does not verify: the events of command {last['command_id']} " in line, line
    assert line.endswith(f"are not the chain from #{last['from_event']} to #{last['to_event']}: "
                         "one was added, removed or moved"), line
    assert list(tmp_path.glob("new.db*")) == []


def test_the_foreign_keys_are_checked_once_the_rows_are_in(
    export: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Behind verify, the schema's own check: with verify made blind, the dangling link is
    still refused, the row named, nothing committed."""
    records, last = _dangling_last_move(export)
    bad = _written(records, tmp_path / "dangling.jsonl")
    digest = records[0]["digest"]
    monkeypatch.setattr(Store, "verify", lambda self, encounter_id: digest)
    log_file = LogFile(str(tmp_path / "copy.db"), create=True)
    try:
        with bad.open("rb") as lines, pytest.raises(TamperedLog) as refused:
            transfer.import_jsonl(log_file, lines, "dangling.jsonl")
        assert str(refused.value) == "dangling.jsonl does not verify: " f"head move {last['id']} points at a row of events that is not there"
        assert log_file._store.conn.execute("SELECT count(*) FROM head_moves").fetchone() == (0,)
        assert log_file._store.conn.execute("PRAGMA foreign_keys").fetchone() == (1,)
    finally:
        log_file.close()


# --- the command's and the head move's hash, fast path (every field ASCII) and general --------


def spec_hash(*fields: object) -> str:
    """The chain's row hash as eventlog/chain.py states it, written again here: each field's
    UTF-8 text prefixed by its byte length and a colon, None as "~", SHA-256 of the whole."""
    data = b""
    for field in fields:
        if field is None:
            data += b"~"
        else:
            text = str(field).encode("utf-8")
            data += str(len(text)).encode() + b":" + text
    return hashlib.sha256(data).hexdigest()


texts = st.text(max_size=40) | st.sampled_from(["", "~", "7:command", "4:move", "undo", "é", "\u202e", "日本"])
values = st.none() | st.integers(-(2**63), 2**63 - 1) | texts | st.booleans() | st.floats(allow_nan=False)


@settings(max_examples=examples(300), deadline=None)
@given(command_id=values, encounter_id=values, branch=values, text=values, body=values, recorded_at=values)
def test_the_command_hash_is_the_chain_s_format_for_any_row(
    command_id: object, encounter_id: object, branch: object, text: object, body: object, recorded_at: object,
) -> None:
    row = CommandRow(command_id, branch, text, body, recorded_at, "")  # type: ignore[arg-type]
    want = spec_hash("command", command_id, encounter_id, branch, text, body, recorded_at)
    assert chain.command_hash(encounter_id, row) == want  # type: ignore[arg-type]


@settings(max_examples=examples(300), deadline=None)
@given(
    move_id=values, encounter_id=values, branch=values, seq=values, from_event=values, to_event=values,
    reason=values, recorded_at=values, previous=st.none() | texts, cmd_hash=values, to_hash=values,
)
def test_the_head_move_hash_is_the_chain_s_format_for_any_row(
    move_id: object, encounter_id: object, branch: object, seq: object, from_event: object, to_event: object,
    reason: object, recorded_at: object, previous: str | None, cmd_hash: object, to_hash: object,
) -> None:
    move = HeadMove(move_id, branch, seq, from_event, to_event, reason, 1, recorded_at, "")  # type: ignore[arg-type]
    want = spec_hash("move", move_id, encounter_id, branch, seq, from_event, to_event, reason, recorded_at,
                     previous, cmd_hash, to_hash)
    assert chain.move_hash(encounter_id, move, previous, cmd_hash, to_hash) == want  # type: ignore[arg-type]


def test_a_row_hashes_as_the_format_says_worked_by_hand() -> None:
    """One command and one head move, their hashed bytes typed out here."""
    command = CommandRow(7, "main", "damage Orc 5", '{"type":"damage"}', "2026-01-02T03:04:05+00:00", "")
    typed = b'7:command1:71:34:main12:damage Orc 517:{"type":"damage"}25:2026-01-02T03:04:05+00:00'
    assert chain.command_hash(3, command) == hashlib.sha256(typed).hexdigest()
    move = HeadMove(12, "what-if", 2, None, 40, "append", 7, "2026-01-02T03:04:05+00:00", "")
    typed = (b"4:move2:121:37:what-if1:2~2:406:append25:2026-01-02T03:04:05+00:00~"
             b"1:c2:t9")
    assert chain.move_hash(3, move, None, "c", "t9") == hashlib.sha256(typed).hexdigest()


ascii_texts = st.text(st.characters(min_codepoint=0, max_codepoint=127), max_size=40)
ids = st.integers(1, 2**63 - 1)


@settings(max_examples=examples(300), deadline=None)
@given(command=st.tuples(ids, ascii_texts, ascii_texts, ascii_texts, ascii_texts), encounter_id=ids,
       move=st.tuples(ids, ascii_texts, ids, st.none() | ids, ids, ascii_texts, ascii_texts),
       previous=st.none() | ascii_texts, cmd_hash=ascii_texts, to_hash=ascii_texts)
def test_rows_of_ascii_text_hash_as_the_format_says(
    command: tuple[int, str, str, str, str], encounter_id: int, move: tuple[int, str, int, int | None, int, str, str],
    previous: str | None, cmd_hash: str, to_hash: str,
) -> None:
    """The rows an intact log holds (integers where ids are, ASCII text): the fast path."""
    row = CommandRow(*command, "")
    assert chain.command_hash(encounter_id, row) == spec_hash("command", command[0], encounter_id, *command[1:])
    move_id, branch, seq, from_event, to_event, reason, recorded_at = move
    head = HeadMove(move_id, branch, seq, from_event, to_event, reason, 1, recorded_at, "")
    want = spec_hash("move", move_id, encounter_id, branch, seq, from_event, to_event, reason, recorded_at,
                     previous, cmd_hash, to_hash)
    assert chain.move_hash(encounter_id, head, previous, cmd_hash, to_hash) == want


# --- the chain walked over the rows in hand (eventlog/restored.py) ---------------------------


@pytest.fixture
def walked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str | None, str | None]]:
    """Each import's (digest of the walk in hand, Store.verify's digest of the rows it
    inserted, None where it refuses them), read back in the import's transaction."""
    seen: list[tuple[str | None, str | None]] = []
    digest, finish = restored.InHand.digest, Restoring.finish

    def walk_digest(self: restored.InHand) -> str | None:
        got = digest(self)
        seen.append((got, None))
        return got

    def checked_finish(self: Restoring, expect: str | None = None) -> str:
        try:
            return finish(self, expect)
        finally:
            try:
                truth: str | None = self.store.verify(self.encounter.id)
            except TamperedLog:
                truth = None
            seen[-1] = (seen[-1][0], truth)

    monkeypatch.setattr(restored.InHand, "digest", walk_digest)
    monkeypatch.setattr(Restoring, "finish", checked_finish)
    return seen


@pytest.mark.parametrize("keep", [restored.KEEP, 3, 0])
def test_an_intact_log_is_verified_in_hand_to_verify_s_digest(
    tmp_path: Path, walked: list[tuple[str | None, str | None]], monkeypatch: pytest.MonkeyPatch, keep: int
) -> None:
    """Two encounters played in turn (their ids interleave), undo, redo, a branch, a switch,
    a note, an amend: the walk in hand never gives up on it, and gives verify's digest,
    whether it keeps the hashes the next table needs (KEEP rows) or reads them back."""
    from test_streaming import TABLE, play

    monkeypatch.setattr(restored, "KEEP", keep)
    db = str(tmp_path / "fight.db")
    play(db, TABLE)
    for name in ("Bridge", "Cellar"):
        out = tmp_path / f"{name}.jsonl"
        assert run_cli(["--db", db, "--encounter", name, "export", "--out", str(out)]) == 0
        assert run_cli(["--db", str(tmp_path / f"{name}.db"), "import", str(out)]) == 0
    # and both into one file: the second goes in beside the first's rows
    assert run_cli(["--db", str(tmp_path / "both.db"), "import", str(tmp_path / "Cellar.jsonl")]) == 0
    assert run_cli(["--db", str(tmp_path / "both.db"), "import", str(tmp_path / "Bridge.jsonl")]) == 0
    assert len(walked) == 4
    for in_hand, truth in walked:
        assert in_hand is not None and in_hand == truth


@pytest.mark.parametrize("keep", [restored.KEEP, 3, 0])
def test_an_export_with_a_command_of_two_events_is_verified_in_hand(
    export: Path, tmp_path: Path, walked: list[tuple[str | None, str | None]], monkeypatch: pytest.MonkeyPatch,
    keep: int,
) -> None:
    """The last `next` appends two events: its head move links to the second's hash."""
    monkeypatch.setattr(restored, "KEEP", keep)
    assert run_cli(["--db", str(tmp_path / "copy.db"), "import", str(export)]) == 0
    assert len(walked) == 1 and walked[0][0] is not None and walked[0][0] == walked[0][1]


def _rehashed(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every hash made again over the rows as they now stand: what a forger who knows the
    chain's format writes. Links to rows not in the file hash as links to nothing."""
    enc = next(r for r in records if r["record"] == "encounter")["id"]
    commands: dict[Any, str] = {}
    events: dict[Any, str] = {}
    previous = None
    for r in records:
        fields = {k: v for k, v in r.items() if k != "record"}
        if r["record"] == "command":
            r["hash"] = commands[r["id"]] = chain.command_hash(enc, CommandRow(**fields))
        elif r["record"] == "event":
            r["hash"] = events[r["id"]] = chain.event_hash(
                enc, EventRow(**fields), events.get(r["parent_id"]), commands.get(r["command_id"], ""))
        elif r["record"] == "move":
            r["hash"] = chain.move_hash(enc, HeadMove(**fields), previous, commands.get(r["command_id"], ""),
                                        events.get(r["to_event"], ""))
            previous = r["hash"]
    return records


@settings(max_examples=examples(120), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_the_walk_in_hand_never_passes_what_verify_refuses(
    export: Path, tmp_path_factory: pytest.TempPathFactory, walked: list[tuple[str | None, str | None]],
    data: st.DataObject,
) -> None:
    """Rows re-ordered, a link or an id moved, then every hash made again: wherever the walk
    in hand gives a digest, Store.verify gives the same one over the rows inserted."""
    records = _records(export)
    rows = list(range(2, len(records)))
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.sampled_from(rows))
        record = records[at]
        how = data.draw(st.sampled_from(["swap", "link", "id"]))
        if how == "swap":
            other = data.draw(st.sampled_from(rows))
            records[at], records[other] = records[other], records[at]
        else:
            keys = [k for k in record if k.endswith(("_id", "_event")) or k in ("id", "seq")]
            key = data.draw(st.sampled_from(keys if how == "link" and keys else ["id"]))
            record[key] = data.draw(st.integers(1, 30))
    records[0]["digest"] = "0" * 64  # not the check at stake here
    source = _written(_rehashed(records), tmp_path_factory.mktemp("walk") / "forged.jsonl")
    walked.clear()
    keep = data.draw(st.sampled_from([restored.KEEP, 2]))  # the hashes in hand, or read back
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(restored, "KEEP", keep)
        run_cli(["--db", str(source.with_suffix(".db")), "import", str(source)])
    for in_hand, truth in walked:
        assert in_hand is None or in_hand == truth, (in_hand, truth)


def _relink_in_a_run(records: list[dict[str, Any]]) -> None:
    """The second event of a command's run made a child of the run's first parent."""
    events = [r for r in records if r["record"] == "event"]
    first, second = next((a, b) for a, b in zip(events, events[1:]) if a["command_id"] == b["command_id"]
                         and a["parent_id"] is not None)
    second["parent_id"] = first["parent_id"]


def _undo_from_nowhere(records: list[dict[str, Any]]) -> None:
    """The undo's head move made to move from an event the file does not hold."""
    undo = next(r for r in records if r["record"] == "move" and r["reason"] == "undo")
    undo["from_event"] = max(r["id"] for r in records if r["record"] == "event") + 7


def _append_from_elsewhere(records: list[dict[str, Any]]) -> None:
    """An append's head move made to move from another event than its run's first parent."""
    moves = [r for r in records if r["record"] == "move" and r["reason"] == "append" and r["from_event"]]
    moves[-1]["from_event"] = moves[-1]["from_event"] - 1


@pytest.mark.parametrize("keep", [restored.KEEP, 2])
@pytest.mark.parametrize("forge", [_relink_in_a_run, _undo_from_nowhere, _append_from_elsewhere])
def test_a_forged_link_with_every_hash_made_again_is_refused_by_both_walks(
    cli: Cli, export: Path, tmp_path: Path, walked: list[tuple[str | None, str | None]],
    forge: Callable[[list[dict[str, Any]]], None], keep: int, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(restored, "KEEP", keep)
    records = _records(export)
    forge(records)
    source = _written(_rehashed(records), tmp_path / "forged.jsonl")
    line = Cli(str(tmp_path / "new.db"), cli.capsys).fails("import", str(source))
    assert "does not verify: " in line, line
    assert walked == [(None, None)]


# --- one byte changed in a row, hashes left as exported: the walk in hand gives up, and the
# import is refused naming the row, as verify names it (eventlog/chain.py) ---------------------


def _one_changed(field: str, value: object) -> object:
    """``value`` with one character or its number changed: a body still JSON (its first
    digit), an id to the one before (a parent: an event there), a move's seq past the rest."""
    if isinstance(value, int):
        return value + 1000 if field == "seq" else value - 1
    text = str(value)
    if field == "body":
        at = next(i for i, c in enumerate(text) if c.isdigit())
        return text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1:]
    return text[:-1] + ("0" if text[-1] != "0" else "1")


def _first_of(records: list[dict[str, Any]], record: str, **where: object) -> dict[str, Any]:
    return next(r for r in records if r["record"] == record and all(r[k] == v for k, v in where.items()))


@pytest.mark.parametrize("keep", [restored.KEEP, 2])
@pytest.mark.parametrize(("record", "field"), [
    ("event", "body"), ("event", "hash"), ("event", "parent_id"), ("event", "recorded_at"),
    ("command", "text"), ("command", "hash"), ("move", "recorded_at"), ("move", "hash"), ("move", "seq"),
])
def test_a_byte_changed_in_a_row_is_refused_naming_the_row(
    cli: Cli, export: Path, tmp_path: Path, walked: list[tuple[str | None, str | None]],
    monkeypatch: pytest.MonkeyPatch, record: str, field: str, keep: int,
) -> None:
    monkeypatch.setattr(restored, "KEEP", keep)
    records = _records(export)
    if record == "event":  # the second event of the `next` that appended two: a parent in its run
        events = [r for r in records if r["record"] == "event"]
        row = next(b for a, b in zip(events, events[1:]) if a["command_id"] == b["command_id"])
        said = f"event {row['id']} ({row['kind']}) was altered or re-ordered after it was recorded"
    elif record == "command":
        row = _first_of(records, "command", text="undo")
        said = f"command {row['id']} ('{'und0' if field == 'text' else 'undo'}') was altered after it was recorded"
    else:
        row = _first_of(records, "move", reason="undo")
        said = (f"head move {row['id']} (undo on main) was altered, removed or re-ordered: it moves the head to "
                f"event {row['to_event']}")
    row[field] = _one_changed(field, row[field])
    source = _written(records, tmp_path / "changed.jsonl")
    line = Cli(str(tmp_path / "new.db"), cli.capsys).fails("import", str(source))
    assert line == f"Error: {source} does not verify: {said}", line
    assert walked == [(None, None)]  # the walk in hand gave up; verify refused the rows
    assert list(tmp_path.glob("new.db*")) == []


@pytest.mark.parametrize("keep", [restored.KEEP, 2])
def test_rows_of_other_text_than_ascii_are_walked_in_hand_and_checked(
    cli: Cli, tmp_path: Path, walked: list[tuple[str | None, str | None]], monkeypatch: pytest.MonkeyPatch,
    keep: int,
) -> None:
    """A note, a branch and a combatant named in other letters than ASCII: their rows take
    chain.py's general format in hand, to verify's digest; one letter changed is refused."""
    monkeypatch.setattr(restored, "KEEP", keep)
    db = str(tmp_path / "fight.db")
    for line in (
        ["new", "Brücke", "--rules", "ap-countdown", "--seed", "5"],
        ["add", "Håkon", "--side", "players", "--stat", "qu=1", "--stat", "hits=40"],
        ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30"],
        ["round", "--roll", "Håkon=6,8", "--roll", "Orc=5,5"],
        ["damage", "Orc", "4"], ["branch", "vielleicht-ß", "--at", "3"], ["note", "3", "l'Orc hésite, 日本"],
    ):
        assert run_cli(["--db", db, *line]) == 0, line
    out = tmp_path / "fight.jsonl"
    assert run_cli(["--db", db, "export", "--out", str(out)]) == 0
    assert run_cli(["--db", str(tmp_path / "copy.db"), "import", str(out)]) == 0
    assert len(walked) == 1 and walked[0][0] is not None and walked[0][0] == walked[0][1]
    records = _records(out)
    note = next(r for r in records if r["record"] == "event" and "hésite" in r["body"])
    note["body"] = note["body"].replace("hésite", "hésitè")
    source = _written(records, tmp_path / "changed.jsonl")
    walked.clear()
    line = Cli(str(tmp_path / "new.db"), cli.capsys).fails("import", str(source))
    assert line == (f"Error: {source} does not verify: event {note['id']} ({note['kind']}) was altered or "
                    "re-ordered after it was recorded"), line
    assert walked == [(None, None)]
