"""The README and the docs site stay true: the README's two set-up commands (CI runs the test
one verbatim), its size, its links, and the examples of the README and of docs/*.md, played."""

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


README_LIMIT = 12 * 1024  # the README is a front door: the rest is the site (docs/, mkdocs.yml)

# The docs pages whose examples play: each section (a heading and what follows it up to the
# next heading) with `skirmish ...` lines plays them, in order, in a fresh database.
PLAYED_PAGES = ("tutorial.md", "imports.md")


def test_the_readme_stays_short() -> None:
    assert len((ROOT / "README.md").read_bytes()) <= README_LIMIT


def test_the_readmes_links_to_the_site_resolve() -> None:
    """Relative links, so they work on GitHub too: each names a file of the checkout."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[^)#\s]+)(?:#[^)\s]*)?\)", text)
    assert len(links) >= 10
    for link in links:
        assert (ROOT / link).is_file(), link


def _sections(text: str) -> list[list[str]]:
    """The `skirmish ...` lines of each section of a Markdown text that has some."""
    found = []
    for section in re.split(r"\n#+ ", text):
        lines = [line.strip() for line in section.splitlines() if line.startswith("    skirmish ")]
        if lines:
            found.append(lines)
    return found


def _play(sections: list[list[str]], tmp_path: Path, name: str) -> int:
    import shlex

    from skirmish.cli.main import run_cli

    played = 0
    for n, lines in enumerate(sections):
        assert lines[0].startswith("skirmish new "), (name, lines[0])  # each example sets its table up
        db = str(tmp_path / f"{name}-{n}.db")
        for line in lines:
            words = shlex.split(line, comments=True)[1:]
            assert run_cli(["--db", db, *words]) == 0, (name, line)
            played += 1
        assert run_cli(["--db", db, "state"]) == 0
    return played


def test_the_readme_walkthrough_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `skirmish ...` line of the README's walkthrough, in order, succeeds (from the checkout, as typed)."""
    monkeypatch.chdir(ROOT)
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## At the table")[1].split("\n## ")[0]
    assert "--rules srd-5.2" in section
    assert _play(_sections(section), tmp_path, "readme") >= 8


@pytest.mark.parametrize("page", PLAYED_PAGES)
def test_each_docs_pages_examples_play(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `skirmish ...` line of the page, section by section, succeeds (from the checkout, as typed)."""
    monkeypatch.chdir(ROOT)
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    assert _play(_sections(text), tmp_path, page.removesuffix(".md")) >= 8


def test_the_tutorial_opens_with_a_5e_fight() -> None:
    first = _sections((ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8"))[0]
    assert "--rules srd-5.2" in first[0]


def _ruleset_sections() -> dict[str, str]:
    # docs/rulesets/RULESET.md, a page each: a ruleset added adds its page alone.
    pages = sorted((ROOT / "docs" / "rulesets").glob("*.md"))
    return {page.stem: page.read_text(encoding="utf-8") for page in pages if page.stem != "index"}


def test_the_docs_show_every_ruleset() -> None:
    from skirmish.projections.ruleset import BUILT_IN, get_ruleset

    sections = _ruleset_sections()
    assert set(sections) == set(BUILT_IN)
    for ruleset_id, section in sections.items():
        # Every option of the ruleset is in its table, with its default.
        for key, option in get_ruleset(ruleset_id).options.items():
            assert f"| `{key}` | `{option.default}` |" in section, (ruleset_id, key)


@pytest.mark.parametrize("ruleset_id", sorted(_ruleset_sections()))
def test_each_rulesets_example_plays(ruleset_id: str, tmp_path: Path) -> None:
    """The `skirmish ...` lines of a ruleset's page start an encounter under it and play."""
    import shlex

    from skirmish.cli.main import run_cli

    lines = [line.strip() for line in _ruleset_sections()[ruleset_id].splitlines() if line.startswith("    skirmish ")]
    assert f"--rules {ruleset_id}" in lines[0]
    db = str(tmp_path / "example.db")
    for line in lines:
        assert run_cli(["--db", db, *shlex.split(line, comments=True)[1:]]) == 0, line
    assert run_cli(["--db", db, "verify"]) == 0
    assert run_cli(["--db", db, "state", "--json"]) == 0
