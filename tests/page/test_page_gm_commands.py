"""The replay page shows what GMs expect, in real Chromium: an encounter that ended (`end`) says so
from the end event on; notes on a combatant on its card (the private ones on the GM's page
only); a renamed combatant keeps its card and its totals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.main import run_cli

playwright_api = pytest.importorskip("playwright.sync_api")
from test_replay_page import Page  # noqa: E402

pytestmark = pytest.mark.slow  # every test Chromium: `pytest -m "not slow"` leaves it out


@pytest.mark.parametrize("audience", ["gm", "players"])
def test_the_board_says_ended_from_the_end_on(browser: Any, tmp_path: Path, audience: str) -> None:
    db = str(tmp_path / "ended.db")
    for line in (["new", "Ends", "--rules", "ap-countdown", "--seed", "1"],
                 ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=9"],
                 ["end", "--reason", "the orc flees"],
                 ["roll", "d6", "--roll", "3"]):
        assert run_cli(["--db", db, *line]) == 0
    page_file = tmp_path / "ended.html"
    assert run_cli(["--db", db, "export", "--format", "html", "--for", audience, "--out", str(page_file)]) == 0
    page = Page(browser)
    page.tab.goto(page_file.as_uri())
    page.tab.keyboard.press("End")  # #4, the roll after the end
    assert page.tab.inner_text("#clock").startswith("ENDED (the orc flees); ")
    page.tab.keyboard.press("ArrowLeft")  # #3, the end itself
    assert page.tab.inner_text("#clock").startswith("ENDED (the orc flees); ")
    assert page.tab.inner_text("#narration") == "The encounter ends: the orc flees"
    page.tab.keyboard.press("ArrowLeft")  # #2, before it
    assert "ENDED" not in page.tab.inner_text("#clock")
    assert page.errors == []
    page.close()


def test_a_renamed_combatant_keeps_its_row_and_totals_on_the_page(browser: Any, tmp_path: Path) -> None:
    """30 hits: 3 taken as the Orc, 4 as Urgash. One card, hits left 23/30; one summary row,
    30 -> 23 with 7 taken."""
    db = str(tmp_path / "renamed.db")
    for line in (["new", "Renames", "--rules", "ap-countdown", "--seed", "1"],
                 ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30"],
                 ["damage", "Orc", "3"],
                 ["rename", "Orc", "Urgash"],
                 ["damage", "Urgash", "4"]):
        assert run_cli(["--db", db, *line]) == 0
    page_file = tmp_path / "renamed.html"
    assert run_cli(["--db", db, "export", "--format", "html", "--out", str(page_file)]) == 0
    page = Page(browser)
    page.tab.goto(page_file.as_uri())
    page.tab.keyboard.press("End")
    assert page.tab.locator("#board li").count() == 1
    assert "hits left: 23/30" in page.card("Urgash")
    assert page.summary("Urgash") == ["Urgash", "foes", "30 → 23", "0", "7"]
    assert page.errors == []
    page.close()


@pytest.mark.parametrize(("audience", "shown"), [
    ("gm", "notes: private: secretly the baron; wears a red cloak"),
    ("players", "notes: wears a red cloak"),
])
def test_notes_on_a_combatant_are_on_its_card(browser: Any, tmp_path: Path, audience: str, shown: str) -> None:
    db = str(tmp_path / "noted.db")
    for line in (["new", "Notes", "--rules", "ap-countdown", "--seed", "1"],
                 ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30"],
                 ["note", "--on", "Orc", "--private", "secretly the baron"],
                 ["note", "--on", "Orc", "wears a red cloak"],
                 ["rename", "Orc", "Urgash"]):
        assert run_cli(["--db", db, *line]) == 0
    page_file = tmp_path / "noted.html"
    assert run_cli(["--db", db, "export", "--format", "html", "--for", audience, "--out", str(page_file)]) == 0
    page = Page(browser)
    page.tab.goto(page_file.as_uri())
    page.tab.keyboard.press("End")
    assert shown in page.card("Urgash").splitlines()
    page.tab.keyboard.press("Home")
    assert "notes:" not in page.tab.inner_text("#board")  # before the notes were written
    assert page.errors == []
    page.close()


def test_a_name_freed_by_a_rename_is_a_new_combatant_on_the_page(browser: Any, tmp_path: Path) -> None:
    """`rename Orc Urgash`, then a second Orc joins: two cards. Urgash took 3 + 4 (23/30),
    the new Orc 5 (25/30); on a branch forked before the rename the first Orc is still Orc
    with its 3 taken (27/30)."""
    db = str(tmp_path / "freed.db")
    for line in (["new", "Freed", "--rules", "ap-countdown", "--seed", "1"],
                 ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30"],
                 ["damage", "Orc", "3"],  # #3
                 ["rename", "Orc", "Urgash"],
                 ["damage", "Urgash", "4"],
                 ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30"],
                 ["damage", "Orc", "5"],
                 ["branch", "before", "--at", "3"]):
        assert run_cli(["--db", db, *line]) == 0
    page_file = tmp_path / "freed.html"
    assert run_cli(["--db", db, "export", "--format", "html", "--out", str(page_file)]) == 0
    page = Page(browser)
    page.tab.goto(page_file.as_uri())
    page.tab.keyboard.press("End")
    assert page.tab.locator("#board li").count() == 2
    assert "hits left: 23/30" in page.card("Urgash")
    assert "hits left: 25/30" in page.card("Orc")
    assert page.summary("Urgash") == ["Urgash", "foes", "30 → 23", "0", "7"]
    assert page.summary("Orc") == ["Orc", "foes", "30 → 25", "0", "5"]
    page.tab.select_option("#branch", "before")
    page.tab.keyboard.press("End")
    assert page.tab.locator("#board li").count() == 1
    assert "hits left: 27/30" in page.card("Orc")
    assert page.errors == []
    page.close()
