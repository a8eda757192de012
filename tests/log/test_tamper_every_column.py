"""Every column of the log, edited one at a time: `verify` names the row, or the test says why not.

The columns come from the file's own schema (PRAGMA table_info), not from a list kept
beside the hash functions: a column added by a migration and left out of the hash fails
here until someone decides whether it is part of the record (hash it) or not (list it in
NOT_HASHED below, with the reason). Every table of the file is accounted for the same way.

The log edited is the bridge sample played with a note, an undo, a redo, a branch and a
switch, so every kind of row and head move is there; for each column, one row of each
kind (the encounter's first event, an event in the middle, the last one; the first
command, a table command, a head-move command; one head move of each reason) is edited
with the smallest change that alters the stored value: a trailing space on text (the
same JSON to any decoder, so a hash over decoded bodies would miss it), one more on a
number, NULL where the column allows it. The guards are dropped as the existing tamper
tests do (tests/log/test_store.py: `tamper`).
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from skirmish.cli.main import run_cli

from support.cli import Cli
from support.tamper import reguard, unguard

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "bridge-ambush.skirmish"

# The tables whose every column `verify` must cover, and how a message names one of their rows.
LOG_TABLES = ("encounters", "commands", "events", "head_moves")
# Tables of the file that are not part of the record, with the reason.
NOT_THE_LOG = {
    "settings": "which encounter is current: a preference of this file, not part of any log",
    "snapshots": "a cache of folded states, deletable at any time; not in the chain: each snapshot has its own digest and verify checks it against the fold (eventlog/snapshots.py)",
    "_sqlite_migrations": "sqlite-utils' record of the schema's migrations, not the fight's",
    "sqlite_sequence": "SQLite's own",
    "sqlite_stat1": "SQLite's own",
}
# Columns of the log's tables that an edit may change without `verify` noticing, with the
# reason it is deliberate. Everything else must be caught.
NOT_HASHED = {
    ("encounters", "created_at"): (
        "the encounters row is not chained (eventlog/chain.py): only its name and ruleset are "
        "checked against the first event; the first event's recorded_at, which is hashed, is "
        "when the encounter began"
    ),
}


class Edit(NamedTuple):
    table: str
    column: str
    row: int  # the rowid of the row edited
    what: str  # "+1", "space", "null"


def schema_columns(db: str) -> dict[str, list[dict[str, Any]]]:
    """Each table of the file, with its columns as PRAGMA table_info gives them."""
    raw = sqlite3.connect(db)
    try:
        tables = [r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        out = {}
        for table in tables:
            cols = raw.execute(f"PRAGMA table_info({table})").fetchall()
            out[table] = [{"name": c[1], "type": c[2].upper(), "notnull": bool(c[3]), "pk": bool(c[5])} for c in cols]
        return out
    finally:
        raw.close()


def play(db: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        assert run_cli(["--db", db, "run", str(SAMPLE)]) == 0
        # A note, an undo and its redo, a branch and a switch on top of the sample's own.
        for args in (["note", "20", "twelve, as the GM called it"], ["damage", "Orc", "1"], ["undo"], ["redo"],
                     ["branch", "later", "--at", "30"], ["switch", "later"], ["damage", "Hauser", "2"]):
            assert run_cli(["--db", db, *args]) == 0, args


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("tamper") / "bridge.db")
    play(db)
    return db


def rows_to_edit(db: str) -> dict[str, list[int]]:
    """Per log table, the rowids of one row of each kind."""
    raw = sqlite3.connect(db)
    try:
        def ids(sql: str) -> list[int]:
            return [r[0] for r in raw.execute(sql)]

        events = ids("SELECT id FROM events ORDER BY id")
        commands = ids("SELECT id FROM commands ORDER BY id")
        moves = ids("SELECT min(id) FROM head_moves GROUP BY reason ORDER BY min(id)")
        head_move_command = ids("SELECT min(command_id) FROM head_moves WHERE reason = 'undo'")
        return {
            "encounters": ids("SELECT id FROM encounters"),
            "events": [events[0], events[len(events) // 2], events[-1]],
            "commands": [commands[0], commands[len(commands) // 2], *head_move_command],
            "head_moves": moves,
        }
    finally:
        raw.close()


def edits(db: str) -> list[Edit]:
    """One edit of each column of each row of rows_to_edit, where the row holds a value there."""
    out = []
    rows = rows_to_edit(db)
    columns = schema_columns(db)
    raw = sqlite3.connect(db)
    for table in LOG_TABLES:
        for col in columns[table]:
            for row in rows[table]:
                if raw.execute(f"SELECT {col['name']} IS NULL FROM {table} WHERE rowid = ?", (row,)).fetchone()[0]:
                    continue  # the root event's parent, a start's or a fork's from_event
                out.append(Edit(table, col["name"], row, "+1" if col["type"] == "INTEGER" else "space"))
                if not col["notnull"] and not col["pk"]:
                    out.append(Edit(table, col["name"], row, "null"))
    raw.close()
    return out


def apply(db: str, edit: Edit) -> Any:
    """Make the edit with the guards dropped, then put back; return the new value."""
    raw = sqlite3.connect(db)
    try:
        guards = unguard(raw)
        (value,) = raw.execute(f"SELECT {edit.column} FROM {edit.table} WHERE rowid = ?", (edit.row,)).fetchone()
        if edit.what == "null":
            new: Any = None
        elif edit.what == "space":
            new = f"{value} "
        else:
            # One more, or (a key or a unique index in the way) well past every value there is.
            new = value + 1
            taken = raw.execute(f"SELECT 1 FROM {edit.table} WHERE {edit.column} = ?", (new,)).fetchone()
            if edit.column == "id" or (edit.table, edit.column) == ("head_moves", "seq") and taken:
                new = value + 10_000
        raw.execute(f"UPDATE {edit.table} SET {edit.column} = ? WHERE rowid = ?", (new, edit.row))
        reguard(raw, guards)
        raw.commit()
        return new
    finally:
        raw.close()


def names_of(db: str, table: str, row: int) -> list[str]:
    """Patterns a message may name the edited row by: the row itself, or, when the edit takes
    the row out of its place, what hangs on it (a command's events and head move, a head
    move's command, the event it moved to, the move chained after it)."""
    raw = sqlite3.connect(db)
    try:
        if table == "encounters":
            return [r"the encounters row"]
        if table == "events":
            return [rf"\bevent {row}\b"]
        if table == "commands":
            events = [r[0] for r in raw.execute("SELECT id FROM events WHERE command_id = ?", (row,))]
            moves = [r[0] for r in raw.execute("SELECT id FROM head_moves WHERE command_id = ?", (row,))]
            return [rf"\bcommand {row}\b", *(rf"\bevent {e}\b" for e in events), *(rf"\bhead move {m}\b" for m in moves)]
        command, to_event = raw.execute("SELECT command_id, to_event FROM head_moves WHERE id = ?", (row,)).fetchone()
        following = raw.execute("SELECT min(id) FROM head_moves WHERE id > ?", (row,)).fetchone()[0]
        return [rf"\bhead move {row}\b", rf"\bhead move {following}\b", rf"\bcommand {command}\b",
                rf"\bevent {to_event}\b"]
    finally:
        raw.close()


def ident(edit: Edit) -> str:
    return f"{edit.table}.{edit.column}-row{edit.row}-{edit.what}"


def _cases() -> list[Any]:
    """The edits, computed from a log played once at collection (a few hundred ms)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "bridge.db")
        play(db)
        out = []
        for edit in edits(db):
            out.append(pytest.param(edit, id=ident(edit)))
        return out


CASES = _cases()


def test_every_table_of_the_file_is_the_log_or_said_not_to_be(played: str) -> None:
    tables = set(schema_columns(played))
    assert tables - set(NOT_THE_LOG) == set(LOG_TABLES), (
        "a table that is neither in LOG_TABLES (verify must cover it) nor in NOT_THE_LOG (with why not)"
    )


def test_every_column_of_the_log_is_edited_here(played: str) -> None:
    """The edits cover the schema as it is now: a column added later is edited too."""
    columns = {(t, c["name"]) for t in LOG_TABLES for c in schema_columns(played)[t]}
    edited = {(p.values[0].table, p.values[0].column) for p in CASES}
    assert edited == columns


@pytest.mark.parametrize("edit", CASES)
def test_verify_names_the_row_whose_column_was_edited(cli: Cli, played: str, edit: Edit) -> None:
    shutil.copyfile(played, cli.db)
    cli.ok("verify")
    new = apply(cli.db, edit)
    if (edit.table, edit.column) == ("encounters", "name"):
        # The file's current encounter is kept by name: the GM picks the edited one by its new name.
        cli.ok("use", "Bridge ambush ")
    cli("verify")
    if (edit.table, edit.column) in NOT_HASHED:
        assert cli.code == 0, f"verify covers it now ({cli.err.strip()}): take it off NOT_HASHED"
        return
    lines = cli.err.strip().splitlines()
    assert cli.code == 4 and len(lines) == 1 and lines[0].startswith("Error: "), (cli.code, cli.out, cli.err)
    patterns = names_of(played, edit.table, edit.row)
    if edit.column == "id":  # the row under its new id is named as well as by what hangs on its old one
        patterns.append(rf"\b{'head move' if edit.table == 'head_moves' else edit.table[:-1]} {new}\b")
    assert any(re.search(p, lines[0]) for p in patterns), f"{lines[0]!r} names none of {patterns}"
