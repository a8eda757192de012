"""mypy --strict holds for skirmish.eventlog, skirmish.projections, skirmish.cli and the
example ruleset of tests/toy (STYLE: typing)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_strict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mypy import api

    # The checkout maps eventlog/ to skirmish.eventlog through setuptools' package-dir,
    # which mypy cannot follow: give it the installed layout as links.
    tree = tmp_path / "src" / "skirmish"
    tree.mkdir(parents=True)
    for package in ("eventlog", "projections", "cli"):
        os.symlink(ROOT / package, tree / package)
    monkeypatch.setenv("MYPYPATH", os.pathsep.join([str(tmp_path / "src"), str(ROOT / "tests" / "toy")]))
    out, err, status = api.run([
        "--strict", "--cache-dir", str(tmp_path / "cache"), "--no-error-summary",
        "-p", "skirmish.eventlog", "-p", "skirmish.projections", "-p", "skirmish.cli", "-m", "toy_duel",
    ])
    assert status == 0, out + err
