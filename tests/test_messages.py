"""What skirmish says back, held to what it did (issue 13, items 7 and 10): event ids a note
takes, names announced as stored, hints safe to paste, and refusals naming their input."""

from __future__ import annotations

import json
import shlex
import sqlite3
from pathlib import Path

import pytest
from conftest import Cli


def fight(cli: Cli, name: str = "Bridge ambush") -> None:
    cli.ok("new", name, "--rules", "ap-countdown", "--seed", "5")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")


def ids(cli: Cli) -> list[int]:
    return [json.loads(line)["id"] for line in cli.ok("log", "--json").splitlines()]


def log_size(db: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
    finally:
        conn.close()


# --- item 7: note takes any event id of the encounter -----------------------------------------------


def test_note_takes_an_event_id_above_a_million(cli: Cli) -> None:
    """Ids are shared by every encounter of a file: a long campaign's later encounters start
    past 1,000,000. A row planted at 1,999,999 (another encounter's) moves the ids on."""
    fight(cli, "Earlier")
    conn = sqlite3.connect(cli.db)
    try:
        conn.execute("INSERT INTO events(id, encounter_id, parent_id, command_id, kind, version, body, recorded_at, "
                     "hash) SELECT 1999999, encounter_id, id, command_id, kind, version, body, recorded_at, hash "
                     "FROM events WHERE id = 3")
        conn.commit()
    finally:
        conn.close()
    fight(cli, "Later")
    later = ids(cli)
    assert later[0] == 2_000_000
    out = cli.ok("note", str(later[-1]), "the Orc came late")
    assert out == f"#{later[-1] + 1} Note on #{later[-1]}: the Orc came late\n"
    assert cli.ok("explain", str(later[-1])).splitlines()[-1] == f"  note #{later[-1] + 1}: the Orc came late"
    before = log_size(cli.db)
    assert cli.fails("note", "1999999", "x") == "Error: no event 1999999 in this encounter (see `skirmish log --all`)"
    assert cli.fails("note", "9999999", "x") == "Error: no event 9999999 in this encounter (see `skirmish log --all`)"
    assert cli.fails("note", str(2**63), "x") == f"Error: no event {2**63} in this encounter (see `skirmish log --all`)"
    assert cli.fails("note", "0", "x") == "Error: no event 0 in this encounter (see `skirmish log --all`)"
    assert log_size(cli.db) == before
