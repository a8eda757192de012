"""The browser tests find Chromium where it is (SKIRMISH_CHROMIUM, Debian's `chromium`,
Ubuntu's `chromium-browser`); without one they are skipped with one line saying how to get
it, and under CI=true they fail: CI never goes green by skipping them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support import browser

ROOT = Path(__file__).resolve().parents[2]


def program(folder: Path, name: str) -> str:
    """A file that can be run, standing in for a browser."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return str(path)


def test_debians_chromium_first_then_ubuntus(tmp_path: Path) -> None:
    debian, ubuntu = tmp_path / "debian", tmp_path / "ubuntu"
    found_ubuntu = program(ubuntu, "chromium-browser")
    assert browser.find({}, path=str(ubuntu)) == found_ubuntu
    found_debian = program(debian, "chromium")
    assert browser.find({}, path=os.pathsep.join([str(ubuntu), str(debian)])) == found_debian


def test_the_variable_wins_over_the_path(tmp_path: Path) -> None:
    program(tmp_path / "bin", "chromium")
    mine = program(tmp_path / "mine", "my-chrome")
    assert browser.find({browser.VARIABLE: mine}, path=str(tmp_path / "bin")) == mine


def test_none_anywhere_is_none(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert browser.find({}, path=str(tmp_path / "empty")) is None


def test_a_variable_naming_no_program_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    with pytest.raises(LookupError, match="SKIRMISH_CHROMIUM='/nowhere/chrome'"):
        browser.find({browser.VARIABLE: "/nowhere/chrome"}, path=str(tmp_path / "bin"))


def page_tests_without_chromium(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    """One browser test of each page module, run by pytest with no Chromium anywhere on
    the PATH (an empty folder) and no SKIRMISH_CHROMIUM."""
    (tmp_path / "empty").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("CI", browser.VARIABLE)}
    env["PATH"] = str(tmp_path / "empty")
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/page/test_replay_page.py::test_hostile_names_and_notes_stay_text",
         "tests/page/test_players_page_slips.py", "-k", "hostile_names or branch_made_at_the_head"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )


@pytest.mark.slow
def test_without_chromium_the_browser_tests_are_skipped_with_one_line_saying_how(tmp_path: Path) -> None:
    done = page_tests_without_chromium(tmp_path, None)
    assert done.returncode == 0, done.stdout + done.stderr
    skipped = re.search(r"^(\d+) skipped, \d+ deselected in ", done.stdout, re.M)
    assert skipped and int(skipped[1]) >= 2 and "error" not in done.stdout, done.stdout
    # Every one of them on one line, whichever module it is in.
    said = [line for line in done.stdout.splitlines() if browser.HOW in line]
    assert said == [f"SKIPPED [{skipped[1]}] tests/support/browser.py: {browser.HOW}"], done.stdout


@pytest.mark.slow
def test_under_ci_without_chromium_the_browser_tests_fail(tmp_path: Path) -> None:
    done = page_tests_without_chromium(tmp_path, "true")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "skipped" not in done.stdout, done.stdout
    assert "CI runs every test: " + browser.HOW in done.stdout, done.stdout


def test_ci_installs_chromium_before_the_readme_test_command() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert script.index("apt-get install -y -qq chromium") < script.index("pytest")
