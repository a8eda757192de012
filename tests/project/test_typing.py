"""mypy --strict holds for skirmish.eventlog, skirmish.projections, skirmish.cli, the
benchmarks, the test helpers and the example ruleset of tests/toy (STYLE: typing), as
pyproject's [tool.mypy] says: this test runs exactly what `mypy` typed by hand runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_mypy_strict_as_configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mypy import api

    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("MYPYPATH", raising=False)
    out, err, status = api.run(["--cache-dir", str(tmp_path / "cache"), "--no-error-summary"])
    assert status == 0, out + err


def test_mypy_sees_the_packages_through_its_links() -> None:
    """The links in tests/typing give mypy the installed layout: a broken one would have it
    check nothing of that package and still pass."""
    for package in ("eventlog", "projections", "cli"):
        link = ROOT / "tests" / "typing" / "skirmish" / package
        assert link.is_symlink() and link.resolve() == (ROOT / package).resolve()
        assert (link / "__init__.py").exists()


def test_mypy_config_names_every_test_helper() -> None:
    """The test helpers are checked: the support package whole, conftest and the toy ruleset;
    a helper module left at the top of tests/ would be missed, so there is none."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert "support" in config["packages"] and {"conftest", "toy_duel"} <= set(config["modules"])
    assert [p.name for p in (ROOT / "tests").glob("*.py")] == ["conftest.py"]
    assert (ROOT / "tests" / "support" / "__init__.py").exists()
    assert os.path.exists(ROOT / "tests" / "toy" / "toy_duel.py")
