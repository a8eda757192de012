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


# The files of a ruleset's package the doc's table must name, and every built-in package holds
# (`decide*.py`: one file or more). Others (vocabulary.py, phases's calls.py) are its own choice.
PACKAGE = ("__init__.py", "events.py", "state.py", "rules.py", "decide*.py", "fold.py", "view.py")
LONGEST = 650  # "no file over about 600 lines"


def test_the_list_names_what_a_built_in_ruleset_adds() -> None:
    """Every built-in ruleset has each of the listed files of its own: its package, with the
    files the table names in it."""
    listed = " ".join(file for file, _ in rows())
    for pattern in ("tests/support/<module>.py", "tests/rulesets/test_<module>.py", "samples/<fight>.skirmish",
                    "docs/rulesets/<ruleset-id>.md", "mkdocs.yml", "pyproject.toml", *(f"`projections/rulesets/<module>/{name}`" for name in PACKAGE)):
        assert pattern in listed, pattern
    for ruleset_id in BUILT_IN:
        module = module_of(ruleset_id)
        for path in ("tests/support/{}.py", "tests/rulesets/test_{}.py"):
            assert (ROOT / path.format(module)).exists(), path.format(module)
        page = f"rulesets/{ruleset_id}.md"
        assert (ROOT / "docs" / page).exists(), page
        assert page in (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), f"{page} is not in mkdocs.yml's nav"
        package = ROOT / "projections" / "rulesets" / module
        assert package.is_dir(), f"the built-in {ruleset_id} is no package (projections/rulesets/{module}/)"
        for name in PACKAGE:
            assert list(package.glob(name)), f"projections/rulesets/{module}/ has no {name}"


def test_no_file_of_a_rulesets_package_is_too_long_to_know() -> None:
    """The doc's promise: each part in a file a reader can hold, none over about 600 lines."""
    for ruleset_id in BUILT_IN:
        package = ROOT / "projections" / "rulesets" / module_of(ruleset_id)
        for path in package.glob("*.py") if package.is_dir() else ():
            lines = len(path.read_text(encoding="utf-8").splitlines())
            assert lines <= LONGEST, f"{path.relative_to(ROOT)} has {lines} lines"


def test_a_built_in_package_is_in_the_wheel() -> None:
    """Each built-in ruleset's package is in pyproject's `packages` list (the table's
    pyproject.toml row): a package left out of it is left out of the wheel."""
    import tomllib

    packages = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    for ruleset_id in BUILT_IN:
        module = module_of(ruleset_id)
        if (ROOT / "projections" / "rulesets" / module).is_dir():
            assert f"skirmish.projections.rulesets.{module}" in packages, module


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
