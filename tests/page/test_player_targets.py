"""A player's sheet action aimed at several targets (a spell, a breath: a stat block's save
action), each target tapped on the player's page, sent as one `declare` with the targets
joined by + and the player's own damage dice.

What is expected comes from the rules text (srd-5.2-combat.md §7 "Saving Throws and
Damage": one damage roll serves all targets of one effect, half damage on a save rounds
down) and the faces typed; the saves are made certain by the DC: DC 2 against a d20 + Dex
of at least 1 + 1 = 2 always succeeds."""

from __future__ import annotations

import json
from typing import Any

import pytest

from support.cli import Cli
from support.served import serving
from test_player_links import links_of
from test_player_page import WAIT, opened

pytestmark = pytest.mark.slow  # Chromium and a live server

pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api")

from support.browser import SHOTS


@pytest.fixture(autouse=True)
def unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKIRMISH_ENCOUNTER", raising=False)
    monkeypatch.delenv("SKIRMISH_BRANCH", raising=False)


def test_a_sheet_action_aimed_at_several_targets_tapped_one_by_one(cli: Cli, browser: Any) -> None:
    """Ann's Burning Hands (3d6 fire, DC 2 Dex, half) on the Orc (15 HP, Dex +1) and the
    Goblin (7 HP, Dex +2), not on Bob: her faces 3, 4, 5 = 12 fire; both save, so each takes
    half, 6 (rounded down): the Orc 15 - 6 = 9 HP, the Goblin 7 - 6 = 1 HP, Bob untouched."""
    cli.ok("new", "Ford", "--rules", "srd-5.2", "--option", "ties=dex")
    cli.ok("add", "Ann", "--side", "party", "--stat", "hp=20", "--stat", "ac=14", "--stat", "dex=2",
           "--stat", "actions=Burning Hands: 3d6 fire, DC 2 dex, half")
    cli.ok("add", "Bob", "--side", "party", "--stat", "hp=18", "--stat", "ac=12", "--stat", "dex=1")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "hp=15", "--stat", "ac=13", "--stat", "dex=1")
    cli.ok("add", "Goblin", "--side", "foes", "--stat", "hp=7", "--stat", "ac=15", "--stat", "dex=2")
    cli.ok("round", "--roll", "Ann=15", "--roll", "Bob=2", "--roll", "Orc=3", "--roll", "Goblin=4")
    with serving(cli.db) as served:
        context, page, player = opened(browser, served, links_of(served)["Ann"])
        try:
            page.click("#moves [data-move='Burning Hands']")
            assert page.locator("#pick-targets").is_visible() and page.locator("#pick-target").is_hidden()
            assert page.locator("#targets button").all_inner_texts() == ["Goblin", "Orc", "Bob"]  # acting order
            page.click("#targets [data-target='Orc']")
            page.click("#targets [data-target='Bob']")
            page.click("#targets [data-target='Goblin']")
            page.click("#targets [data-target='Bob']")  # tapped again: off
            pressed = page.locator("#targets [aria-pressed='true']").all_inner_texts()
            assert [t.lstrip("\u2713 ") for t in pressed] == ["Goblin", "Orc"]
            page.click("#fields [data-field='dmg:Ann']")
            player.pad("3,4,5")
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.locator("#panel").scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / "player-several-targets-400x900.png"))
            page.click("#panel-send")
            page.wait_for_selector("#reply:has-text('Recorded')", timeout=WAIT)
            assert page.errors == []  # type: ignore[attr-defined]
        finally:
            context.close()
    hp = {c["name"]: c["vital"]["value"] for c in json.loads(cli.ok("state", "--json"))["combatants"]}
    assert hp == {"Ann": 20, "Bob": 18, "Orc": 9, "Goblin": 1}, hp
    log = cli.ok("log")
    hit = next(line for line in log.splitlines() if "Orc takes 6" in line)
    explained = cli.ok("explain", hit.split()[0].lstrip("#"))
    assert "(Ann's dice, from Ann's link)" in explained, explained
