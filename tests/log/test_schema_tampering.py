"""A dropped append-only trigger or index is tampering with the schema: `verify` names it
(before, it said "intact" while UPDATE and DELETE were let through), and the commands that
need a dropped index say so in one line (before: "internal error, please report it")."""

from __future__ import annotations

import sqlite3

import pytest

from skirmish.eventlog.schema import INDEXES, TRIGGERS

from support.cli import Cli

REASON = "(the log's guards and lookups as skirmish made them are not all there)"


def fight(cli: Cli) -> None:
    cli.ok("new", "Fight", "--rules", "ap-countdown")
    cli.ok("add", "Hauser", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Orc", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("damage", "Orc", "5")
    cli.ok("undo")
    cli.ok("damage", "Orc", "6")


def drop(db: str, kind: str, name: str) -> None:
    raw = sqlite3.connect(db)
    try:
        raw.execute(f"DROP {kind.upper()} {name}")
        raw.commit()
    finally:
        raw.close()


# Names from the rules of the schema written out, not read back from the module under test.
ALL = [("trigger", f"{t}_refuse_{v}") for t in ("encounters", "commands", "events", "head_moves")
       for v in ("update", "delete")] + [("index", i) for i in (
           "events_by_parent", "events_by_encounter", "head_moves_by_encounter", "events_by_command",
           "events_jumps", "head_moves_switches", "events_by_kind", "head_moves_branch_starts")]


def test_the_guards_listed_are_every_one_the_migrations_make(cli: Cli) -> None:
    fight(cli)
    raw = sqlite3.connect(cli.db)
    try:
        made = {(k, n) for k, n in raw.execute("SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'index') "
                                               "AND name NOT LIKE 'sqlite_autoindex%' AND tbl_name != '_sqlite_migrations'")}
    finally:
        raw.close()
    assert made == set(ALL)
    assert [("trigger", t) for t in TRIGGERS] + [("index", i) for i in INDEXES] == ALL


@pytest.mark.parametrize(("kind", "name"), ALL, ids=[n for _, n in ALL])
def test_verify_reports_a_dropped_trigger_or_index_as_tampering_with_the_schema(cli: Cli, kind: str, name: str) -> None:
    fight(cli)
    drop(cli.db, kind, name)
    assert cli.fails("verify") == f"Error: the schema of {cli.db} was tampered with: {kind} {name} missing {REASON}"
    assert cli.code == 4


def test_verify_names_every_guard_dropped(cli: Cli) -> None:
    fight(cli)
    drop(cli.db, "trigger", "events_refuse_delete")
    drop(cli.db, "index", "events_by_kind")
    assert cli.fails("verify") == (f"Error: the schema of {cli.db} was tampered with: trigger events_refuse_delete, "
                                   f"index events_by_kind missing {REASON}")


@pytest.mark.parametrize("command", [["state"], ["log"], ["replay"], ["damage", "Orc", "1"]])
def test_a_command_needing_a_dropped_index_says_so_in_one_line(cli: Cli, command: list[str]) -> None:
    fight(cli)
    drop(cli.db, "index", "events_jumps")
    error = cli.fails(*command)
    assert error.startswith(f"Error: the schema of {cli.db} was tampered with: index events_jumps missing {REASON}")
    assert error.endswith("`skirmish verify` names what else is")
    assert cli.code == 4
