"""The srd-5.2 sample's replay page in real Chromium: its 22 options are counted in the header,
not listed twice above the board (the first event's line lists them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.main import run_cli

playwright_api = pytest.importorskip("playwright.sync_api")
from test_replay_page import Page  # noqa: E402

pytestmark = pytest.mark.slow
SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "chapel-drake.skirmish"


def test_many_options_are_counted_in_the_header(browser: Any, tmp_path: Path) -> None:
    db = str(tmp_path / "chapel.db")
    assert run_cli(["--db", db, "run", str(SAMPLE)]) == 0
    page_file = tmp_path / "chapel.html"
    assert run_cli(["--db", db, "export", "--format", "html", "--out", str(page_file)]) == 0
    page = Page(browser)
    page.tab.goto(page_file.as_uri())
    # srd-5.2 has 22 options (docs/rulesets/srd-5.2.md, its table); the first event's line names each.
    assert page.tab.inner_text("#ruleset") == "srd-5.2 (srd-5.2-combat.md; 22 options, set as the first event says); GM's version"
    assert "ties=dex" in page.tab.inner_text("#narration")
    assert page.errors == []
    page.close()


def test_a_few_options_are_listed_in_the_header(browser: Any, tmp_path: Path) -> None:
    db = str(tmp_path / "few.db")
    assert run_cli(["--db", db, "new", "Few", "--rules", "phases", "--seed", "1"]) == 0
    page_file = tmp_path / "few.html"
    assert run_cli(["--db", db, "export", "--format", "html", "--out", str(page_file)]) == 0
    page = Page(browser)
    page.tab.goto(page_file.as_uri())
    text = page.tab.inner_text("#ruleset")
    assert text.startswith("phases (") and "=" in text and "options, set as" not in text
    assert page.errors == []
    page.close()
