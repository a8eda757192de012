"""A log that fails the cheap checks (its append-only triggers and indexes there, the head's own
link in the hash chain) takes no write: every command that would record is refused in one line
naming `verify` and what failed (exit 4), and nothing is recorded; `state` and `log` still
answer, and say once on stderr that the log failed its checks (issue 38, item 2). Before,
`roll`, `undo`, `damage`, `next` and `note` chained new events onto the altered log, exit 0,
and the reads said nothing."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from support.cli import Cli

SCRIPT = shutil.which("skirmish", path=str(Path(sys.executable).parent)) or shutil.which("skirmish")


def fight(cli: Cli) -> None:
    cli.ok("new", "Fight", "--rules", "ap-countdown")
    cli.ok("add", "Hauser", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Orc", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")
    cli.ok("damage", "Orc", "5")  # event 5
    cli.ok("damage", "Orc", "6")  # event 6, the head


def raw(db: str, *statements: str) -> None:
    """Statements run on the file as another program would (an attacker with sqlite3)."""
    conn = sqlite3.connect(db)
    try:
        for sql in statements:
            conn.execute(sql)
        conn.commit()
    finally:
        conn.close()


def trigger_sql(db: str, name: str) -> str:
    conn = sqlite3.connect(db)
    try:
        return str(conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0])
    finally:
        conn.close()


def rows(db: str) -> tuple[int, ...]:
    conn = sqlite3.connect(db)
    try:
        return tuple(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("commands", "events", "head_moves"))
    finally:
        conn.close()


def body_edited(db: str) -> str:
    """The first damage made 50, the guard against UPDATE dropped first and left dropped."""
    raw(db, "DROP TRIGGER events_refuse_update",
        "UPDATE events SET body = replace(body, '\"value\":5,', '\"value\":50,') WHERE id = 5")
    return "trigger events_refuse_update missing"


def head_edited_guard_put_back(db: str) -> str:
    """The head's damage made 60, the guard dropped for it and made again after: only the
    head's own link shows it."""
    guard = trigger_sql(db, "events_refuse_update")
    raw(db, "DROP TRIGGER events_refuse_update",
        "UPDATE events SET body = replace(body, '\"value\":6,', '\"value\":60,') WHERE id = 6", guard)
    return "event 6, the head of branch 'main', does not match its hash"


def trigger_dropped(db: str) -> str:
    raw(db, "DROP TRIGGER head_moves_refuse_delete")
    return "trigger head_moves_refuse_delete missing"


def index_dropped(db: str) -> str:
    # One no read names (INDEXED BY): the reads answer without it, the writes are refused.
    raw(db, "DROP INDEX events_by_parent")
    return "index events_by_parent missing"


TAMPERINGS: dict[str, Callable[[str], str]] = {
    "body edited": body_edited,
    "head edited, guard put back": head_edited_guard_put_back,
    "trigger dropped": trigger_dropped,
    "index dropped": index_dropped,
}
WRITES = [["roll", "3d6"], ["undo"], ["damage", "Orc", "1"], ["next"], ["note", "5", "the Orc hesitated"],
          ["redo"]]


def refusal(fault: str) -> str:
    return (f"Error: this log failed its checks ({fault}): nothing is recorded on it; "
            "`skirmish verify` names what was altered")


def warning(fault: str) -> str:
    return (f"Warning: this log failed its checks ({fault}): what is shown may have been altered; "
            "`skirmish verify` names what was")


@pytest.mark.parametrize("command", WRITES[:-1], ids=" ".join)
def test_every_write_takes_on_an_intact_log(cli: Cli, command: list[str]) -> None:
    """The control: each write of the tests below records on the fight as it was."""
    fight(cli)
    before = rows(cli.db)
    cli.ok(*command)
    assert rows(cli.db) != before
    assert cli.err == ""


@pytest.mark.parametrize("tamper", TAMPERINGS.values(), ids=TAMPERINGS.keys())
@pytest.mark.parametrize("command", WRITES, ids=" ".join)
def test_a_log_that_fails_its_checks_takes_no_write(cli: Cli, tamper: Callable[[str], str], command: list[str]) -> None:
    fight(cli)
    if command == ["redo"]:  # something to redo, the head where it was
        cli.ok("damage", "Orc", "1")
        cli.ok("undo")
    fault = tamper(cli.db)
    before = rows(cli.db)
    assert cli.fails(*command) == refusal(fault)
    assert cli.code == 4
    assert rows(cli.db) == before
    assert "skirmish undo" not in cli.out  # an undo is refused as well


@pytest.mark.parametrize("tamper", TAMPERINGS.values(), ids=TAMPERINGS.keys())
@pytest.mark.parametrize("command", [["state"], ["log"]], ids=" ".join)
def test_a_read_answers_and_says_once_that_the_log_failed_its_checks(
    cli: Cli, tamper: Callable[[str], str], command: list[str]
) -> None:
    fight(cli)
    fault = tamper(cli.db)
    out = cli.ok(*command)
    assert "Orc" in out
    assert cli.err.splitlines() == [warning(fault)]


@pytest.mark.parametrize("command", [["state"], ["log"], ["verify"]], ids=" ".join)
def test_an_intact_log_reads_without_a_word_on_stderr(cli: Cli, command: list[str]) -> None:
    fight(cli)
    cli.ok(*command)
    assert cli.err == ""


def test_the_refused_write_leaves_verify_naming_the_edit(cli: Cli) -> None:
    fight(cli)
    guard = trigger_sql(cli.db, "events_refuse_update")
    body_edited(cli.db)
    cli.fails("damage", "Orc", "1")
    raw(cli.db, guard)  # the guard put back: the edited row is what is left to find
    assert cli.fails("verify") == "Error: event 5 (ap.damage-taken) was altered or re-ordered after it was recorded"


def test_a_new_encounter_is_refused_in_a_file_whose_guards_are_gone(cli: Cli) -> None:
    fight(cli)
    trigger_dropped(cli.db)
    assert cli.fails("new", "Second", "--rules", "ap-countdown") == refusal("trigger head_moves_refuse_delete missing")
    assert cli.code == 4


def test_a_branch_and_a_switch_are_refused(cli: Cli) -> None:
    fight(cli)
    cli.ok("branch", "what-if")
    head_edited_guard_put_back(cli.db)
    fault = "event 6, where branch 'other' would start, does not match its hash"
    assert cli.fails("branch", "other") == refusal(fault)
    assert cli.fails("switch", "what-if") == refusal("event 6, the head of branch 'what-if', does not match its hash")


@pytest.mark.slow
@pytest.mark.skipif(SCRIPT is None, reason="the skirmish script is not installed")
def test_the_installed_script_refuses_and_warns_the_same(cli: Cli) -> None:
    """The fast path (cli/fast.py) runs these commands without the typer app: the same lines."""
    fight(cli)
    fault = body_edited(cli.db)
    before = rows(cli.db)
    assert SCRIPT is not None
    for command, code, err in ((["damage", "Orc", "1"], 4, refusal(fault)), (["undo"], 4, refusal(fault)),
                               (["state"], 0, warning(fault))):
        done = subprocess.run([SCRIPT, "--db", cli.db, *command], capture_output=True, text=True, timeout=60)
        assert (done.returncode, done.stderr.splitlines()) == (code, [err]), command
    assert rows(cli.db) == before


def test_a_run_script_of_reads_says_it_once(cli: Cli, tmp_path: Path) -> None:
    fight(cli)
    fault = trigger_dropped(cli.db)
    script = tmp_path / "reads.txt"
    script.write_text("state\nlog\nstate\n")
    cli.ok("run", str(script))
    assert cli.err.splitlines() == [warning(fault)]
