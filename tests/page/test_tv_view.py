"""The players' page of `serve` on the table's TV (docs/browser.md, On the table's TV), in
Debian's chromium: at 1280x720 and 1920x1080 every card of a six-combatant fight, the round
and whose turn it is are on the first screen (scroll 0) in type a room can read; `#tv` hides
the replay controls; a phone at 400x900 shows what it showed, the board first.

The size: at least 1/36 of the screen's height (20 px at 720 lines, 30 at 1080), as TV
interfaces size their body text for a sofa three metres away (tvOS's body style is 29 pt
at 1920x1080); six cards in two columns, the round and the turn line still fit one screen
at that size. Screenshots go to $SKIRMISH_SHOTS/tv-*.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.cli import Cli
from support.served import serving

pytestmark = pytest.mark.slow  # Chromium and a live server

pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api")

from support.browser import SHOTS
ROOM = 36  # the screen's height over the smallest type of the board

# Six combatants of srd-5.2 (shared/rules/srd-5.2-combat.md), a round begun: a card down
# with its death saves, one bloodied, a foe hurt (a band), whose turn it is.
FIGHT = """\
new "Chapel of the drake" --rules srd-5.2 --seed 52 --option ties=dex
add Hauser --side party --stat hp=30 --stat ac=18 --stat dex=1 --stat con=3 --stat attacks=2
add Mira --side party --stat hp=22 --stat ac=15 --stat dex=4
add Tamsin --side party --stat hp=18 --stat ac=13 --stat dex=2 --stat con=2
add Oswin --side party --stat hp=24 --stat ac=17
add Ogre --side foes --stat hp=59 --stat ac=11 --stat dex=-1
add Drake --side foes --stat hp=52 --stat ac=17 --stat dex=1 --stat legendary=3 --stat recharge=5 --stat immune=fire
round --roll Mira=16 --roll Drake=14 --roll Hauser=11 --roll Tamsin=9 --roll Ogre=8 --roll Oswin=5
declare Mira attack --target Ogre --with hit=6 --with damage=1d8+4 --with type=piercing --with range=ranged --roll Mira=14 --roll dmg:Mira=5
next
declare Drake magic --with spell=Fire-Breath --with recharge=yes
damage Hauser 21 --with type=fire
damage Mira 42 --with type=fire
next
"""
NAMES = ["Hauser", "Mira", "Tamsin", "Oswin", "Ogre", "Drake"]


@pytest.fixture(autouse=True)
def unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKIRMISH_ENCOUNTER", raising=False)
    monkeypatch.delenv("SKIRMISH_BRANCH", raising=False)


@pytest.fixture
def fight(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    script = tmp_path / "six.skirmish"
    script.write_text(FIGHT)
    cli = Cli(str(tmp_path / "six.db"), capsys)
    cli.ok("run", str(script))
    return cli.db


def opened(browser: Any, address: str, width: int, height: int) -> Any:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(address)
    page.wait_for_function("document.querySelectorAll('#board li').length === 6")
    page.wait_for_function("document.getElementById('live').textContent.includes('following')")
    return page


def box(page: Any, selector: str) -> dict[str, float]:
    found: dict[str, float] = page.eval_on_selector(selector, """n => { const r = n.getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height,
                font: parseFloat(getComputedStyle(n).fontSize)}; }""")
    return found


def on_first_screen(found: dict[str, float], width: int, height: int) -> bool:
    return found["height"] > 0 and found["top"] >= 0 and found["left"] >= 0 and \
        found["bottom"] <= height and found["right"] <= width


@pytest.mark.parametrize("switch", ["", "#tv", "?tv"])
@pytest.mark.parametrize("width,height", [(1280, 720), (1920, 1080)])
def test_the_whole_order_and_the_turn_on_the_tvs_first_screen(browser: Any, fight: str, width: int, height: int,
                                                               switch: str) -> None:
    with serving(fight) as served:
        page = opened(browser, served.base + "/" + switch, width, height)
        try:
            assert page.evaluate("window.scrollY") == 0
            cards = page.locator("#board li")
            assert sorted(name.strip() for name in cards.locator(".name").all_inner_texts()) == sorted(NAMES)
            smallest = height / ROOM
            for i in range(6):
                card = box(page, f"#board li:nth-child({i + 1})")
                assert on_first_screen(card, width, height), (i, card)
                name = box(page, f"#board li:nth-child({i + 1}) .name")
                assert name["font"] >= smallest, name
                vital = box(page, f"#board li:nth-child({i + 1}) .vital")
                assert on_first_screen(vital, width, height) and vital["font"] >= smallest, vital
            # Whose turn: the round and the turn (the clock), and who acts now and next.
            assert page.text_content("#clock") == "round 1, Hauser's turn"
            assert page.text_content("#acts") == "now: Hauser; next: Tamsin"
            for line in ("#clock", "#acts"):
                found = box(page, line)
                assert on_first_screen(found, width, height) and found["font"] >= smallest, (line, found)
            acting = page.locator("#board li.acting")
            assert acting.count() == 1 and "acts now" in acting.inner_text() and "Hauser" in acting.inner_text()
            # The board before the rest: nothing of the page above its first card but the title and the clock.
            first_card = box(page, "#board li")
            assert first_card["top"] < height / 4
            # The switch hides the replay controls; without it they are there, beside the board.
            assert page.locator("#play").is_visible() is (switch == "")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            if switch == "#tv" or (switch == "" and width == 1280):
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOTS / f"tv-{width}x{height}{'' if switch else '-controls'}.png"))
        finally:
            page.close()


def test_a_phone_shows_what_it_showed(browser: Any, fight: str) -> None:
    """At 400x900 the TV's layout does not apply, the switch or not: one column, the board
    first (after the title and the live line), the event, then the controls, every part shown."""
    with serving(fight) as served:
        seen = []
        for switch in ("", "#tv"):
            page = opened(browser, served.base + "/" + switch, 400, 900)
            try:
                tops = {part: box(page, selector)["top"] for part, selector in [
                    ("title", "#title"), ("board", "#board"), ("event", "#narration"), ("controls", "#play"),
                    ("summary", "#summary"), ("chart", "#chart"), ("ruleset", "#ruleset")]}
                assert sorted(tops, key=tops.__getitem__) == ["title", "board", "event", "controls", "summary",
                                                             "chart", "ruleset"], tops
                assert page.locator("#play").is_visible() and page.locator("#scrub").is_visible()
                assert page.evaluate("document.documentElement.scrollWidth") <= 400
                # The phone's type: the page's own (clamp(15px, 1rem + 0.4vw, 22px): 17.6 px at 400), not the TV's.
                assert box(page, "#board li .name")["font"] == pytest.approx(16 + 0.4 * 400 / 100, abs=0.1)
                seen.append(tops)
            finally:
                page.close()
        assert seen[0] == seen[1]


def test_the_screen_is_sent_compressed_to_a_browser_that_takes_it(fight: str) -> None:
    """A TV's browser (or a phone's) says it takes gzip: the page comes compressed, the same
    page once unpacked; a client that says nothing gets it as it is."""
    import gzip
    import http.client

    with serving(fight) as served:
        pages = []
        for asked in ({}, {"Accept-Encoding": "gzip, deflate"}):
            conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
            conn.request("GET", "/", headers=asked)
            answer = conn.getresponse()
            body = answer.read()
            assert answer.status == 200 and answer.getheader("Vary") == "Accept, Accept-Encoding"
            assert answer.getheader("Content-Encoding") == ("gzip" if asked else None)
            pages.append(gzip.decompress(body) if asked else body)
            if asked:
                assert len(body) < len(pages[0]) / 3
            conn.close()
        assert pages[0] == pages[1] and pages[0].startswith(b"<!DOCTYPE html>")
