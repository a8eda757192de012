"""The players' page in Chromium folds the stream's frames (page.js): a command's change,
an undo's step back, a redo, and an undo past what the server held (what the page keeps), each
shown on the board as the command line's `state` has it."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.main import run_cli

from test_live_slips import serving

pytestmark = pytest.mark.slow  # Chromium and a live server

playwright_api = pytest.importorskip("playwright.sync_api")


CARD = """([who, shown]) => Array.from(document.querySelectorAll('#board li')).some(
    li => li.querySelector('.name').textContent.endsWith(who) && li.textContent.includes(shown))"""


def test_the_players_page_follows_commands_and_undos(browser: Any, tmp_path: Path) -> None:
    db = str(tmp_path / "bridge.db")
    for line in ("new Bridge --rules ap-countdown", "add Hauser --side players --stat qu=1 --stat hits=40",
                 "add Orc --side foes --stat qu=0 --stat hits=30"):
        assert run_cli(["--db", db, *shlex.split(line)]) == 0
    with serving(db) as served:
        tab = browser.new_page(viewport={"width": 400, "height": 900})
        tab.set_default_timeout(5000)
        tab.goto(f"http://127.0.0.1:{served.port}/")
        tab.wait_for_function("document.getElementById('live').textContent.includes('following')")
        assert tab.evaluate(CARD, ["Hauser", "40/40"])
        # #4: 40 - 5 = 35; undone, 40 (#3); redone, 35 (#4); undone, 40; #5 off #3: 40 - 2 = 38
        # (the page dropped #4: #5 is read as #5, not as a step from #4); undone, 40; the
        # Orc's add undone: gone.
        for words, shown, at in ((["damage", "Hauser", "5"], "35/40", 4), (["undo"], "40/40", 3),
                                 (["redo"], "35/40", 4), (["undo"], "40/40", 3), (["damage", "Hauser", "2"], "38/40", 5),
                                 (["undo"], "40/40", 3)):
            assert run_cli(["--db", db, *words]) == 0
            tab.wait_for_function(CARD, arg=["Hauser", shown])
            assert tab.inner_text("#position").startswith(f"#{at} "), (words, tab.inner_text("#position"))
            assert tab.inner_text("#live") == "live: following the branch head"
        assert run_cli(["--db", db, "undo"]) == 0
        tab.wait_for_function("!Array.from(document.querySelectorAll('#board li .name')).some(n => n.textContent.endsWith('Orc'))")
        assert tab.evaluate(CARD, ["Hauser", "40/40"])
        tab.close()
