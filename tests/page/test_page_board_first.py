"""The players' screen of `serve` in a browser (it asks for HTML): the board at the head
first, from the server's fold, before the history (every event of the branch, /history) is
read; the replay works once it arrives. Any other client, and the exported file, get the
whole data in one page as before (tests/page/test_replay_page.py for the file's replay)."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from support.cli import Cli
from support.served import serving

pytestmark = pytest.mark.slow  # Chromium and a live server

pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api")

SHOTS = Path("/tmp/h/shots")

# ap-countdown (its rules file, Initiative): Hauser (qu 3) acts first, then the Troll (qu 1).
FIGHT = """\
new "Bridge" --rules ap-countdown
add Hauser --side players --stat qu=3 --stat hits=40
add Troll --side foes --stat qu=1 --stat hits=30
add Mira --side players --stat qu=2 --stat hits=25
round
damage Troll 7
damage Hauser 5
note --on Troll "the bridge creaks under it"
"""


@pytest.fixture(autouse=True)
def unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKIRMISH_ENCOUNTER", raising=False)
    monkeypatch.delenv("SKIRMISH_BRANCH", raising=False)


@pytest.fixture
def fight(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    script = tmp_path / "bridge.skirmish"
    script.write_text(FIGHT)
    cli = Cli(str(tmp_path / "bridge.db"), capsys)
    cli.ok("run", str(script))
    return cli.db


def embedded(html: bytes) -> dict[str, Any]:
    found = re.search(rb'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S)
    assert found, html[:300]
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def get(address: str, accept: str | None = None) -> bytes:
    asked = urllib.request.Request(address, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(asked, timeout=30) as answer:
        body: bytes = answer.read()
    return body


def folded(data: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The head's id and board, the deltas of the whole data folded as the page folds them."""
    event_id, views = 0, {}
    for entry in data["events"]:
        event_id += entry[0]
        back, change = entry[1], entry[4]
        before = views[event_id - back] if back is not None else {}
        cards = dict(before.get("c", {}))
        for key, row in change.get("c", {}).items():
            cards[key] = {**cards.get(key, {}), **row}
        views[event_id] = {**before, **{k: v for k, v in change.items() if k != "c"}, "c": cards}
    return event_id, views[event_id]


def test_a_browser_gets_the_board_first_and_the_same_history_as_any_other_client(fight: str) -> None:
    with serving(fight) as served:
        whole = embedded(get(served.base + "/"))  # a script: the whole data, as before
        first = embedded(get(served.base + "/", "text/html,application/xhtml+xml,*/*;q=0.8"))
        history = json.loads(get(served.base + "/history"))
    assert first["events"] == [] and first["strings"] == [] and first["history"] == "/history"
    without = {k: v for k, v in whole.items() if k != "live"}
    assert {k: v for k, v in history.items() if k != "live"} == without
    # The board first is the board the history's events fold to at the head, nothing more.
    head, board = folded(history)
    assert first["head"]["id"] == head and first["head"]["count"] == len(history["events"])
    assert first["head"]["board"]["o"] == board["o"] and first["head"]["board"]["c"] == board["c"]
    assert first["head"]["board"]["k"] == board["k"]
    for key in whole:
        if key not in ("events", "strings", "live"):
            assert first[key] == whole[key], key


def test_the_board_is_drawn_before_the_history_arrives_then_the_replay_works(browser: Any, fight: str) -> None:
    with serving(fight) as served:
        page = browser.new_page(viewport={"width": 400, "height": 900})
        held: list[Any] = []
        page.route("**/history", lambda route: held.append(route))
        page.goto(served.base + "/")
        page.wait_for_function("document.querySelectorAll('#board li').length === 3")
        page.wait_for_timeout(300)
        assert held, "the page asked for its history"
        # The history is held: the board is the head's, whose turn it is, the replay waiting.
        names = page.locator("#board li .name").all_text_contents()
        assert sorted(names) == ["Hauser", "Mira", "Troll"]
        acting = page.locator("#board li.acting")  # whose turn it is (the roll decides), marked in words
        assert acting.count() == 1 and "acts now" in acting.text_content()
        assert page.text_content("#acts").startswith("now: " + str(acting.locator(".name").text_content()))
        hauser = page.locator("#board li", has_text="Hauser").text_content()
        assert "hits left: 35/40" in hauser  # 40 hits, 5 taken
        assert page.text_content("#narration")  # the head's line
        assert "the bridge creaks under it" in page.text_content("#board")
        drawn = [page.text_content(s) for s in ("#board", "#pending", "#clock", "#acts", "#narration", "#notes")]
        assert page.is_disabled("#back") and page.is_disabled("#scrub")
        assert "loading" in page.text_content("#live")
        page.screenshot(path=str(SHOTS / "players-board-first-400x900.png"))
        for route in held:
            route.continue_()
        page.wait_for_function("document.getElementById('live').textContent.includes('following')")
        assert not page.is_disabled("#back")
        # The history folded to the head: the very board drawn first.
        assert [page.text_content(s) for s in ("#board", "#pending", "#clock", "#acts", "#narration", "#notes")] == drawn
        at_head = page.text_content("#position")
        page.click("#first")
        assert page.text_content("#position") != at_head and page.text_content("#position").startswith("#1 ")
        page.click("#last")
        assert page.text_content("#position") == at_head
        assert page.locator("#summary tr").count() == 3
        assert page.locator("#chart svg polyline").count() >= 2
        page.screenshot(path=str(SHOTS / "players-history-read-400x900.png"))
        page.close()
