"""The README's two set-up commands stay true: CI runs the test one verbatim."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    head = text.split("## At the table")[0]
    return [line.strip() for line in head.splitlines() if line.startswith("    python3 -m venv")]


def test_readme_has_exactly_two_setup_commands() -> None:
    commands = _readme_commands()
    assert len(commands) == 2
    assert "samples/bridge-ambush.skirmish" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert _readme_commands()[1] in ci


def test_readme_sample_exists() -> None:
    first = _readme_commands()[0]
    sample = re.search(r"run (\S+)", first)
    assert sample and (ROOT / sample.group(1)).is_file()


def test_the_at_the_table_walkthrough_plays(capsys: object, tmp_path: Path) -> None:
    """Every `skirmish ...` line of the README's walkthrough, in order, succeeds."""
    import shlex

    from skirmish.cli.main import run_cli

    section = (ROOT / "README.md").read_text().split("## At the table")[1].split("\n## ")[0]
    lines = [line.strip() for line in section.splitlines() if line.startswith("    skirmish ")]
    assert len(lines) >= 10
    db = str(tmp_path / "walkthrough.db")
    for line in lines:
        words = shlex.split(line, comments=True)[1:]
        assert run_cli(["--db", db, *words]) == 0, line
    assert run_cli(["--db", db, "state"]) == 0
