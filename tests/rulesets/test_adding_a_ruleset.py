"""docs/adding-a-ruleset.md names every file a ruleset adds, and nothing shared to edit: the
duel of tests/toy, a sixth ruleset, proves the list. Each row of the doc's table names the
duel's counterpart; the duel needs no file beyond them, and skirmish's code (eventlog/,
projections/, cli/) never names it, its flags included."""

from __future__ import annotations

import re
import typing
from pathlib import Path

from skirmish.eventlog.commands import AnyCommand, Declare
from skirmish.projections.ruleset import BUILT_IN, get_ruleset, module_of, own_flags

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "adding-a-ruleset.md"
# The duel's files beside tests/toy/: its shared-suite support and its tests.
DUEL = [ROOT / "tests" / "support" / "duel.py", ROOT / "tests" / "rulesets" / "test_toy_ruleset.py"]


def rows() -> list[tuple[str, str]]:
    """(the file a built-in ruleset adds, the duel's counterpart or "") for each row of the
    doc's table of the files a ruleset adds."""
    section = DOC.read_text(encoding="utf-8").split("## The files a ruleset adds")[1].split("\n## ")[0]
    found = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or cells[0] == "file" or set(cells[0]) <= {"-"}:
            continue
        duel = re.findall(r"`([^`]+)`", cells[-1])
        found.append((cells[0], duel[0] if duel else ""))
    return found


def test_the_list_names_what_a_built_in_ruleset_adds() -> None:
    """Every built-in ruleset has each of the listed files of its own."""
    listed = " ".join(file for file, _ in rows())
    for pattern in ("projections/rulesets/<module>.py", "tests/support/<module>.py", "tests/rulesets/test_<module>.py",
                    "samples/<fight>.skirmish", "README.md", "pyproject.toml"):
        assert pattern in listed, pattern
    for ruleset_id in BUILT_IN:
        module = module_of(ruleset_id)
        for path in ("projections/rulesets/{}.py", "tests/support/{}.py", "tests/rulesets/test_{}.py"):
            assert (ROOT / path.format(module)).exists() or (ROOT / path.format(module)).with_suffix("").is_dir(), path.format(module)


def test_every_file_the_duel_needs_is_in_the_list() -> None:
    """The duel's files are exactly the list's counterparts: a file it needed beyond them
    (a shared one edited for it) would be a row the doc is missing."""
    counterparts = [ROOT / duel for _, duel in rows() if duel]
    for path in counterparts:
        assert path.exists(), f"the doc names {path.relative_to(ROOT)}, which the duel does not have"
    has = [p for p in (ROOT / "tests" / "toy").rglob("*") if p.is_file() and "__pycache__" not in p.parts] + DUEL
    for path in has:
        assert any(path == c or c in path.parents for c in counterparts), (
            f"the duel needs {path.relative_to(ROOT)}, which docs/adding-a-ruleset.md does not list")


def test_skirmishs_code_never_names_the_duel() -> None:
    """Not its id, its module, its events' tags, nor its own flag: the CLI, the engine and
    every surface read it through the Ruleset protocol, and the built-in table is found,
    not written."""
    duel = get_ruleset("duel")
    names = ["toy_duel", '"duel"', "'duel'", '"duel.', *(f"--{name}" for name in own_flags(duel, Declare))]
    for folder in ("eventlog", "projections", "cli"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            for name in names:
                assert name not in text, f"{path.relative_to(ROOT)} names the duel's {name}"
    entry_points = (ROOT / "pyproject.toml").read_text(encoding="utf-8").split('"skirmish.rulesets"]')[1].split("\n[")[0]
    assert "duel" not in entry_points


def test_the_duels_own_flag_comes_from_its_module() -> None:
    """`--feint` is declared in tests/toy/toy_duel.py alone: no command has a field for it."""
    duel = get_ruleset("duel")
    own = own_flags(duel, Declare)
    assert "feint" in own and type(duel).__module__ == "toy_duel"
    for command_type in typing.get_args(AnyCommand):
        assert "feint" not in command_type.__struct_fields__, command_type
