"""The mutation-testing recipe (tests/mutation/scopes.toml) still names files that exist, so a rename cannot quietly break it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _scopes_module() -> ModuleType:
    # By path: `tests` is no package pytest imports from, and the recipe runs as
    # `python -m tests.mutation` from the checkout.
    spec = importlib.util.spec_from_file_location("mutation_scopes", ROOT / "tests" / "mutation" / "scopes.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


SCOPES = _scopes_module()
CONFIG = SCOPES.load()


@pytest.mark.parametrize("name", list(CONFIG.scopes))
def test_a_scope_mutates_modules_the_tests_import_from_this_checkout(name: str) -> None:
    for path in CONFIG.scopes[name].modules:
        assert (ROOT / path).is_file(), f"{name}: {path} does not exist"
        spec = importlib.util.find_spec(SCOPES.module_name(path))
        assert spec is not None and spec.origin is not None
        # The mutants are written in place: the installed package must be this tree's files.
        assert Path(spec.origin).resolve() == (ROOT / path).resolve()


@pytest.mark.parametrize("name", list(CONFIG.scopes))
def test_a_scope_names_test_files_that_exist(name: str) -> None:
    scope = CONFIG.scopes[name]
    assert scope.present_tests(), f"{name}: none of its test files exists"
    # A file may be missing only while it is still being written elsewhere.
    assert set(scope.missing_tests()) <= set(CONFIG.coming), f"{name}: {scope.missing_tests()}"
    assert all(t.startswith("tests/") and t.rpartition("/")[2].startswith("test_") and t.endswith(".py") for t in scope.tests)
    assert len(set(scope.tests)) == len(scope.tests)
    assert scope.timeout > 0


@pytest.mark.parametrize("name", list(CONFIG.scopes))
def test_a_mutant_runs_only_its_scopes_test_files_and_stops_at_the_first_failure(name: str) -> None:
    scope = CONFIG.scopes[name]
    command = scope.test_command(python="python")
    assert command[:3] == ["python", "-m", "pytest"] and "-x" in command
    assert [word for word in command if word.startswith("tests/")] == list(scope.present_tests())


def test_every_coming_test_file_is_in_a_scope() -> None:
    named = {t for scope in CONFIG.scopes.values() for t in scope.tests}
    assert set(CONFIG.coming) <= named


@pytest.mark.slow
def test_the_runner_lists_its_scopes() -> None:
    out = subprocess.run([sys.executable, "-m", "tests.mutation", "--list"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    for name, scope in CONFIG.scopes.items():
        assert f"{name}: {scope.what}" in out.stdout
