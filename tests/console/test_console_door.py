"""The console reads a line with the one parser and runs it through the library: what it
refuses, in one line, and what it answers at once however long the line."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from skirmish.cli.session import Session
from test_console import FIGHTS, start


@pytest.fixture
def session(tmp_path: Path) -> Session:
    db = str(tmp_path / "fight.db")
    start(db, FIGHTS["ap-countdown"].setup)
    made = Session(db)
    yield made  # type: ignore[misc]
    made.close()


@pytest.mark.parametrize("line", [
    "serve", "serve --port 8123", "skirmish serve", "play", "run x.skirmish",
    "export", "export --format md", "export --format html", "skirmish import /etc/passwd", "roster check /etc/passwd",
    "new PWN --rules ap-countdown", "skirmish new PWN --rules ap-countdown", "--db other.db state", "--on what-if next",
])
def test_what_the_console_does_not_run_is_one_line_and_nothing_happens(session: Session, tmp_path: Path,
                                                                      line: str) -> None:
    """serve would never return; export wrote bytes where the console held text (an internal
    error, exit 70); the rest open a file, another database or encounter."""
    before = session.log_file.last_ids()
    started = time.monotonic()
    outcome = session.run(line)
    assert time.monotonic() - started < 2
    assert outcome.code == 2 and outcome.out == "" and not outcome.changed, outcome
    assert outcome.err.startswith("Error: ") and "\n" not in outcome.err.strip(), outcome
    assert "internal error" not in outcome.err
    assert session.log_file.last_ids() == before
    assert [row.name for row in session.log_file.encounters()] == ["Bridge"]
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm"))) == ["fight.db"]


@pytest.mark.parametrize("size", [400 * 1024, 5 * 1024 * 1024])
def test_a_huge_line_is_refused_at_once_and_the_next_line_runs(session: Session, size: int) -> None:
    """A note of 1 MB used to take 92 s to split (the shell splitter's quadratic join)."""
    started = time.monotonic()
    outcome = session.run("note --on Orc " + "x" * size)
    assert outcome.code == 2 and "at most 8,192" in outcome.err, outcome.err[:200]
    quoted = session.run('note --on Orc "' + "y " * (size // 2))  # an open quote, the whole way
    assert quoted.code == 2
    assert time.monotonic() - started < 3
    assert session.run("damage Orc 5").code == 0


def test_a_text_field_over_its_bound_is_refused_naming_it(session: Session) -> None:
    outcome = session.run("note --on Orc " + "z" * 2001)
    assert outcome.code == 2 and outcome.err == "Error: text is 2,001 characters: at most 2,000 are taken"
    assert session.run("note --on Orc " + "z" * 2000).code == 0
    outcome = session.run("rename Orc " + "O" * 201)
    assert outcome.code == 2 and outcome.err == "Error: to is 201 characters: at most 200 are taken"


def test_note_on_a_combatant_is_notes_own_option(session: Session) -> None:
    """`--on` after the command is `note`'s (a combatant), not the branch pin."""
    outcome = session.run("note --on Orc hello")
    assert outcome.code == 0 and outcome.changed, outcome
    assert "hello" in session.run("state --wide").out
