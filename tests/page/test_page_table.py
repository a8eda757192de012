"""The page at the table: on a phone the board comes first, under the title; a served page
scrubbed back says it is no longer following the branch head, and says so again when it
is back at the head. In Chromium (tests/support/browser.py finds it)."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.main import run_cli

from support.served import free_port


pytestmark = pytest.mark.slow  # Chromium and a live server: `pytest -m "not slow"` leaves it out

playwright_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bridge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("bridge") / "fight.db"
    assert run_cli(["--db", str(db), "run", str(ROOT / "samples" / "bridge-ambush.skirmish")]) == 0
    return db


def top(tab: Any, selector: str) -> float:
    box = tab.locator(selector).first.bounding_box()
    assert box is not None, selector
    return float(box["y"])


@pytest.mark.parametrize("audience", ["players", "gm"])
def test_on_a_phone_the_board_comes_first(browser: Any, bridge: Path, audience: str) -> None:
    page = bridge.with_name(f"{audience}.html")
    assert run_cli(["--db", str(bridge), "export", "--format", "html", "--for", audience, "--out", str(page)]) == 0
    tab = browser.new_page(viewport={"width": 400, "height": 900})
    tab.goto(page.as_uri())
    tab.wait_for_function("document.getElementById('position').textContent.startsWith('#')")
    tab.keyboard.press("End")
    board = top(tab, "#board")
    # Under the title and the board's heading only: within the first third of the screen,
    # with the first combatant's card in view; the controls, the event and the page's
    # settings below it.
    assert board < 300, board
    assert top(tab, "#board li") + 100 < 900
    # The players' page has no branch list and no seed (the players' policy).
    for below in ("#narration", "#scrub", "#ruleset", *(("#branch", "#secret") if audience == "gm" else ())):
        assert top(tab, below) > board, below
    assert tab.evaluate("document.documentElement.scrollWidth") <= 400
    # On a wide landscape screen (the table's TV, docs/browser.md) the board comes first too,
    # in the left column, the controls in the column beside it.
    tab.set_viewport_size({"width": 1280, "height": 800})
    assert top(tab, "#board") < top(tab, "#scrub")
    assert tab.eval_on_selector("#board", "n => n.getBoundingClientRect().right") <= \
        tab.eval_on_selector("#scrub", "n => n.getBoundingClientRect().left")
    tab.close()


def test_a_served_page_scrubbed_back_says_it_no_longer_follows_the_head(browser: Any, bridge: Path,
                                                                       tmp_path: Path) -> None:
    import uvicorn

    from skirmish.cli import live
    from skirmish.projections.page import data as page_data

    db = tmp_path / "live.db"
    shutil.copy(bridge, db)
    follower = live.Follower(str(db), "players", page_data.Bands())
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(live.app(follower), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(100):
            if server.started:
                break
            time.sleep(0.05)
        tab = browser.new_page(viewport={"width": 400, "height": 900})
        tab.set_default_timeout(5000)
        tab.goto(f"http://127.0.0.1:{port}/")
        tab.wait_for_function("document.getElementById('live').textContent === 'live: following the branch head'")
        # The sample's main branch: the first event is #1.
        tab.click("#first")
        said = tab.inner_text("#live")
        assert "following" not in said and said.startswith("live: showing #1, back from the head"), said
        # Another command at the table: the page stays where it was, and still says so.
        assert run_cli(["--db", str(db), "damage", "Hauser", "5"]) == 0
        time.sleep(1.5)
        assert tab.inner_text("#position").startswith("#1 "), tab.inner_text("#position")
        assert tab.inner_text("#live").startswith("live: showing #1, back from the head")
        tab.click("#last")
        assert tab.inner_text("#live") == "live: following the branch head"
        tab.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
