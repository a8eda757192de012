"""The README stays true: its two set-up commands (CI runs the test one verbatim) and its examples."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


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


def test_the_at_the_table_walkthrough_plays(
    capsys: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every `skirmish ...` line of the README's walkthrough, in order, succeeds (from the checkout, as typed)."""
    import shlex

    monkeypatch.chdir(ROOT)

    from skirmish.cli.main import run_cli

    section = (ROOT / "README.md").read_text().split("## At the table")[1].split("\n## ")[0]
    blocks = section.split("\n### ")
    played = 0
    for n, block in enumerate(blocks):
        lines = [line.strip() for line in block.splitlines() if line.startswith("    skirmish ")]
        if not lines:
            continue
        db = str(tmp_path / f"walkthrough-{n}.db")
        if not lines[0].startswith("skirmish new "):  # a subsection adds to a fresh encounter
            assert run_cli(["--db", db, "new", "Subsection", "--rules", "ap-countdown"]) == 0
        for line in lines:
            words = shlex.split(line, comments=True)[1:]
            assert run_cli(["--db", db, *words]) == 0, line
            played += 1
        assert run_cli(["--db", db, "state"]) == 0
    assert played >= 14


def _ruleset_sections() -> dict[str, str]:
    # "## Five rule systems", whatever their number: a ruleset added adds its section alone.
    text = re.split(r"\n## \w+ rule systems\n", (ROOT / "README.md").read_text())[1].split("\n## ")[0]
    parts = text.split("\n### ")[1:]
    return {part.splitlines()[0].strip(): part for part in parts}


def test_the_readme_shows_every_ruleset() -> None:
    from skirmish.projections.ruleset import BUILT_IN, get_ruleset

    sections = _ruleset_sections()
    assert set(sections) == set(BUILT_IN)
    for ruleset_id, section in sections.items():
        # Every option of the ruleset is in its table, with its default.
        for key, option in get_ruleset(ruleset_id).options.items():
            assert f"| `{key}` | `{option.default}` |" in section, (ruleset_id, key)


@pytest.mark.parametrize("ruleset_id", sorted(_ruleset_sections()))
def test_each_rulesets_readme_example_plays(ruleset_id: str, tmp_path: Path) -> None:
    """The `skirmish ...` lines of a ruleset's section start an encounter under it and play."""
    import shlex

    from skirmish.cli.main import run_cli

    lines = [line.strip() for line in _ruleset_sections()[ruleset_id].splitlines() if line.startswith("    skirmish ")]
    if ruleset_id == "ap-countdown":
        assert not lines  # the At the table walkthrough plays it
        return
    assert f"--rules {ruleset_id}" in lines[0]
    db = str(tmp_path / "example.db")
    for line in lines:
        assert run_cli(["--db", db, *shlex.split(line, comments=True)[1:]]) == 0, line
    assert run_cli(["--db", db, "verify"]) == 0
    assert run_cli(["--db", db, "state", "--json"]) == 0
