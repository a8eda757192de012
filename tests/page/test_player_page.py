"""A player's page of `skirmish serve` in Debian's chromium at 400x900: their character's
figures as worked by hand from the stats given and the commands typed, the foes banded with
no figure of their own, no hidden combatant and no secret anywhere in the page; faces typed
on the number pad held for the GM's round and recorded as the player's (`explain` says
whose dice); a revoked link's page saying so in one line.

What is expected comes from the rules text (srd-5.2-combat.md §2: Initiative is a d20 plus
the Dexterity modifier; §8: temporary HP are a pool of their own beside HP) and the numbers
typed. Screenshots go to $SKIRMISH_SHOTS/player-*.png."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from support.cli import Cli
from support.served import Served, serving
from test_player_links import call, gm, gm_token, head_of, links_of

pytestmark = pytest.mark.slow  # Chromium and a live server

pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api")

from support.browser import SHOTS
WAIT = 10_000  # ms: the page reads the table once a second


@pytest.fixture(autouse=True)
def unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKIRMISH_ENCOUNTER", raising=False)
    monkeypatch.delenv("SKIRMISH_BRANCH", raising=False)


@pytest.fixture
def table(cli: Cli) -> Cli:
    """An srd-5.2 fight: Ann and Bob of the party, an Orc (a foe, 15 HP), a hidden Shade."""
    cli.ok("new", "Ford", "--rules", "srd-5.2", "--option", "ties=dex")
    cli.ok("add", "Ann", "--side", "party", "--stat", "hp=20", "--stat", "ac=14", "--stat", "dex=2",
           "--stat", "actions=Longsword: melee +5, 1d8+3 slashing")
    cli.ok("add", "Bob", "--side", "party", "--stat", "hp=18", "--stat", "ac=12", "--stat", "dex=1")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "hp=15", "--stat", "ac=13", "--stat", "dex=1")
    cli.ok("add", "Shade", "--side", "foes", "--hidden", "--stat", "hp=9", "--stat", "ac=12", "--stat", "dex=3")
    return cli


class Player:
    """A player's page, used as a thumb uses it: the buttons, the pickers, the number pad."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def pad(self, faces: str) -> None:
        for key in faces:
            self.page.click(f"#pad [data-pad='{key}']")

    def hold(self, key: str, faces: str) -> None:
        self.page.click(f"#holds [data-key='{key}']")
        self.pad(faces)
        self.page.click("#panel-send")
        self.page.wait_for_selector(f"#held li[data-key='{key}']", timeout=WAIT)

    def reply(self) -> str:
        text: str = self.page.locator("#reply").inner_text()
        return text


def opened(browser: Any, served: Served, secret: str) -> tuple[Any, Any, Player]:
    context = browser.new_context(viewport={"width": 400, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{served.base}/player#{secret}")
    page.wait_for_selector("#holds button", timeout=WAIT)
    page.errors = errors  # type: ignore[attr-defined]
    return context, page, Player(page)


def test_the_page_shows_the_character_exactly_and_the_rest_as_the_players_policy_does(table: Cli, browser: Any) -> None:
    """Ann: 20 HP, 3 damage taken, 5 temporary HP granted: "HP 17 of 20, 5 temporary"; AC 14;
    Initiative 10 + 2 (Dex) = 12 (§2); Poisoned for 2 rounds; her turn (she rolled highest).
    The Orc, 4 damage of 15 taken (11 left): a band, no figure; the hidden Shade: nowhere."""
    table.ok("round", "--roll", "Ann=10", "--roll", "Bob=5", "--roll", "Orc=3", "--roll", "Shade=1")
    table.ok("damage", "Ann", "3")
    table.ok("heal", "Ann", "5", "--with", "temp=yes")
    table.ok("damage", "Orc", "4")
    table.ok("effect", "Ann", "poisoned", "--rounds", "2")
    with serving(table.db) as served:
        found = links_of(served)
        context, page, _ = opened(browser, served, found["Ann"])
        try:
            assert page.locator("#name").inner_text() == "Ann"
            assert page.locator("#hp").inner_text() == "HP 17 of 20, 5 temporary"
            figures = dict(zip(page.locator("#figures dt").all_inner_texts(), page.locator("#figures dd").all_inner_texts()))
            assert figures["AC"] == "14" and figures["init"] == "12"  # the labels of the GM's cards (srd-5.2 card)
            effects = page.locator("#effects li").all_inner_texts()
            assert any(e.startswith("poisoned: 2 rounds left") for e in effects), effects
            assert page.locator("#yours").is_visible() and "Now: Ann." in page.locator("#clock").inner_text()
            assert page.locator("#dying").is_hidden()  # she is not at 0 HP
            # Her own action from her sheet, its dice named as the ruleset names them.
            page.click("#moves [data-move='Longsword']")
            assert page.locator("#fields [data-field='Ann'] .what").inner_text() == "d20 to hit"
            assert page.locator("#fields [data-field='dmg:Ann'] .what").inner_text() == "1d8+3 slashing"
            page.click("#panel-off")
            rest = page.locator("#rest li")
            assert [n.split(" ")[0] for n in rest.locator(".name").all_inner_texts()] == ["Bob", "Orc"]  # acting order
            orc = page.locator("#rest li[data-name='Orc']").inner_text()
            assert "Health: hurt" in orc and not re.search(r"\d", orc), orc
            bob = page.locator("#rest li[data-name='Bob']").inner_text()
            assert "HP 18 of 18" in bob  # the party's figures are the players' to see
            html = page.content()
            text = page.locator("body").inner_text()
            assert "Shade" not in html and "Shade" not in text
            for secret in [*found.values(), gm_token(served)]:
                assert secret not in html and secret not in page.url
            assert "#" not in page.url  # the secret taken off the address bar
            assert page.errors == []  # type: ignore[attr-defined]
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "player-sheet.png"), full_page=True)
        finally:
            context.close()


def test_initiative_faces_typed_on_the_pad_are_the_players(table: Cli, browser: Any) -> None:
    """Ann taps "Initiative d20", 1 and 7 on the pad: held, shown as held; the GM's `round`
    decides it as hers, 17 + 2 (Dex) = 19 (§2), and the page's held die is gone."""
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        context, page, player = opened(browser, served, ann)
        try:
            player.hold("Ann", "17")
            assert "held for the GM's next roll" in page.locator("#held li[data-key='Ann']").inner_text()
            assert "wait for the GM's next command" in player.reply()  # the server's words
            assert "held" in page.locator("#holds [data-key='Ann']").get_attribute("class")
            result = gm(served, {"type": "round"}, head_of(table))
            assert result["kind"] == "recorded", result
            page.wait_for_selector("#held li", state="detached", timeout=WAIT)
            figures = dict(zip(page.locator("#figures dt").all_inner_texts(), page.locator("#figures dd").all_inner_texts()))
            assert figures["init"] == "19"
        finally:
            context.close()
    explained = table.ok("explain", str(result["events"][0]))
    assert "Ann 19" in explained.splitlines()[0], explained
    assert "1d20 = 17 = 17 (Ann's dice, from Ann's link)" in explained, explained
    data = json.loads(table.ok("explain", str(result["events"][0]), "--json"))
    sources = {d["roll"]["source"] for d in _numbers(data) if d.get("roll")}
    assert "player:Ann" in sources and "gm" not in sources


def _numbers(data: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(data, dict):
        if "roll" in data:
            found.append(data)
        for value in data.values():
            found += _numbers(value)
    elif isinstance(data, list):
        for value in data:
            found += _numbers(value)
    return found


def test_a_revoked_links_page_says_so_in_one_line(table: Cli, browser: Any) -> None:
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        context, page, _ = opened(browser, served, ann)
        try:
            result = gm(served, {"type": "revoke-link", "who": "Ann"}, head_of(table))
            assert result["kind"] == "revoked", result
            page.wait_for_selector("#gone", state="visible", timeout=WAIT)
            line = page.locator("#gone").inner_text()
            assert "\n" not in line and "revoked" in line, line
            assert page.locator("#top").is_hidden() and page.locator("#send").is_hidden()
            assert result["data"]["link"].split("#", 1)[1] not in page.content()
            page.screenshot(path=str(SHOTS / "player-revoked.png"))
        finally:
            context.close()


def test_the_poll_is_answered_unchanged_when_nothing_moved(table: Cli) -> None:
    """The page's read once a second costs nothing while the table is still: the read at
    the same ``seq`` is a 204 with no body; a move of the table makes a fresh read."""
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        status, body = call(served, "GET", "/player/state", ann)
        seq = json.loads(body)["seq"]
        assert call(served, "GET", f"/player/state?seen={seq}", ann) == (204, b"")
        assert call(served, "GET", f"/player/state?seen={seq}", None)[0] == 403  # the secret first
        gm(served, {"type": "damage", "who": "Orc", "amount": 1}, head_of(table))
        status, body = call(served, "GET", f"/player/state?seen={seq}", ann)
        assert status == 200 and json.loads(body)["seq"] > seq


def test_the_shell_loads_its_own_script_and_style_only(table: Cli) -> None:
    """The player's shell: no data of the fight, no inline script or style, a policy that
    lets the browser run and style from this server alone; its files served as such."""
    import http.client

    with serving(table.db) as served:
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
        conn.request("GET", "/player")
        answer = conn.getresponse()
        html = answer.read().decode()
        policy = answer.getheader("Content-Security-Policy") or ""
        conn.close()
        assert answer.status == 200 and "Ann" not in html and "Orc" not in html
        assert "script-src 'self'" in policy and "style-src 'self'" in policy and "unsafe" not in policy
        assert "default-src 'none'" in policy
        assert not re.search(r"<script(?![^>]*\bsrc=)", html) and "<style" not in html and " style=" not in html
        for name, kind in (("player.js", "text/javascript"), ("player.css", "text/css")):
            conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
            conn.request("GET", f"/player/{name}")
            answer = conn.getresponse()
            assert answer.status == 200 and answer.read() and (answer.getheader("Content-Type") or "").startswith(kind)
            conn.close()
        assert call(served, "GET", "/player/gm.js", None)[0] == 404  # the player's files only
