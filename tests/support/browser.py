"""Chromium for the page tests, found where it is: SKIRMISH_CHROMIUM, else Debian's
`chromium` or Ubuntu's `chromium-browser` on the PATH. Without one the browser tests are
skipped with one line saying how to get it; under CI=true they fail instead, so CI never
goes green by skipping them (.ci/run installs Debian's chromium first)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pytest

# Where the page tests save the screenshots they take for a person to look at (a test
# asserts on the page, never on the picture): $SKIRMISH_SHOTS, or skirmish-shots in the
# system's temporary directory.
SHOTS = Path(os.environ.get("SKIRMISH_SHOTS") or Path(tempfile.gettempdir()) / "skirmish-shots")

VARIABLE = "SKIRMISH_CHROMIUM"
NAMES = ("chromium", "chromium-browser")  # Debian's package, Ubuntu's
# How the page tests start it: headless on a CI machine, no sandbox (CI runs as root), and
# none of Chromium's own traffic (updates, sync, first-run pages) beside the page's.
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
HOW = (f"the browser tests need Chromium: `apt-get install chromium` (Debian), `chromium-browser` (Ubuntu), "
       f"or {VARIABLE}=/path/to/chromium")


def find(env: Mapping[str, str] | None = None, path: str | None = None) -> str | None:
    """The Chromium to drive, or None. A SKIRMISH_CHROMIUM that names no program is an
    error, not a fall-back: the tester said which one to use."""
    env = os.environ if env is None else env
    given = env.get(VARIABLE, "")
    if given:
        found = shutil.which(given, path=path)
        if found is None:
            raise LookupError(f"{VARIABLE}={given!r} names no program that can be run")
        return found
    for name in NAMES:
        found = shutil.which(name, path=path)
        if found is not None:
            return found
    return None


def chromium() -> str:
    """The Chromium to drive; skip the test without one (fail under CI=true, or when
    SKIRMISH_CHROMIUM is wrong)."""
    try:
        found = find()
    except LookupError as wrong:
        pytest.fail(str(wrong), pytrace=False)
    if found is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI runs every test: {HOW}", pytrace=False)
        pytest.skip(HOW)
    return found
