"""A player's page for a character added by hand, with no stat block: the ruleset's own
actions offered with the inputs the ruleset declares for each (srd-5.2's attack: its to-hit
bonus, damage dice, type...), a target, and the player's own dice under the keys the ruleset
rolls them (the server decides the declare on recording dice to say which), sent as their own
`declare`, recorded as theirs.

What is expected comes from the rules text (srd-5.2-combat.md §6 "Making an Attack": an
attack roll is a d20 plus the attack bonus, a hit when it equals or exceeds the target's AC;
§7 "Damage Rolls": the damage dice plus the modifier) and the faces typed. Screenshots go to
$SKIRMISH_SHOTS/."""

from __future__ import annotations

import json
from typing import Any

import pytest

from support.cli import Cli
from support.served import serving
from test_player_links import call, links_of
from test_player_page import WAIT, opened

pytestmark = pytest.mark.slow  # Chromium and a live server

pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api")

from support.browser import SHOTS


@pytest.fixture(autouse=True)
def unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKIRMISH_ENCOUNTER", raising=False)
    monkeypatch.delenv("SKIRMISH_BRANCH", raising=False)


@pytest.fixture
def table(cli: Cli) -> Cli:
    """Ann and Bob of the party as most characters are added, no `actions` stat; an Orc
    (15 HP, AC 13); Ann's turn first (Initiative 15 + 2 = 17 against the Orc's 3 + 1 = 4)."""
    cli.ok("new", "Ford", "--rules", "srd-5.2", "--option", "ties=dex")
    cli.ok("add", "Ann", "--side", "party", "--stat", "hp=20", "--stat", "ac=14", "--stat", "dex=2")
    cli.ok("add", "Bob", "--side", "party", "--stat", "hp=18", "--stat", "ac=12", "--stat", "dex=1")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "hp=15", "--stat", "ac=13", "--stat", "dex=1")
    cli.ok("round", "--roll", "Ann=15", "--roll", "Bob=2", "--roll", "Orc=3")
    return cli


def test_a_character_with_no_stat_block_attacks_with_the_rulesets_attack_and_her_own_dice(table: Cli, browser: Any) -> None:
    """Ann attacks the Orc with the table's attack: bonus +5, damage 1d8+3 slashing, her faces
    12 and 6. 12 + 5 = 17 against AC 13: a hit (§6); 6 + 3 = 9 damage (§7): the Orc has
    15 - 9 = 6 HP. `explain` names her link as the dice's source."""
    with serving(table.db) as served:
        context, page, player = opened(browser, served, links_of(served)["Ann"])
        try:
            assert page.locator("#no-moves").is_visible()  # no sheet action: the rules' are offered
            page.click("#own-action")
            page.locator("#action").select_option("attack")
            # The inputs the ruleset declares for its attack, in its words, none named by the page.
            shown = page.locator("#details > label .what").all_inner_texts()
            assert shown == ["hit", "damage", "type"], shown
            assert page.locator("#details details [data-detail='range']").count() == 1  # the rest under More
            assert page.locator("#details [data-detail='spell']").count() == 0  # not the attack's
            # Asked before its target is picked: the ruleset's refusal as it stands, in its words.
            page.wait_for_selector("#panel-why:has-text('--target')", timeout=WAIT)
            page.locator("#target").select_option("Orc")
            page.fill("[data-detail='hit']", "5")
            page.fill("[data-detail='damage']", "1d8+3")
            page.locator("[data-detail='type']").select_option("slashing")
            # Her dice, under the keys the ruleset rolls them: her d20 under her name, the damage under dmg:Ann.
            page.wait_for_selector("#fields [data-field='dmg:Ann']", timeout=WAIT)
            assert page.locator("#panel-why").is_hidden()
            assert page.locator("#fields button").evaluate_all("(bs) => bs.map((b) => b.dataset.field)") == ["Ann", "dmg:Ann"]
            assert "1d20" in page.locator("#fields [data-field='Ann'] .what").inner_text()
            assert "1d8" in page.locator("#fields [data-field='dmg:Ann'] .what").inner_text()
            page.click("#fields [data-field='Ann']")
            player.pad("12")
            page.click("#fields [data-field='dmg:Ann']")
            player.pad("6")
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.locator("#panel").scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / "player-attack-400x900.png"))
            page.click("#panel-send")
            page.wait_for_selector("#reply:has-text('Recorded')", timeout=WAIT)
            assert page.locator("#panel").is_hidden()
            assert page.errors == []  # type: ignore[attr-defined]
        finally:
            context.close()
    state = json.loads(table.ok("state", "--json"))
    orc = next(c for c in state["combatants"] if c["name"] == "Orc")
    assert orc["vital"]["value"] == 6, orc
    log = table.ok("log")
    attack = next(line for line in log.splitlines() if "Ann attacks Orc" in line)
    number = attack.split()[0].lstrip("#")
    explained = table.ok("explain", number)
    assert "17" in explained and "(Ann's dice, from Ann's link)" in explained, explained
    damage = next(line for line in log.splitlines() if "Orc takes 9" in line)
    explained = table.ok("explain", damage.split()[0].lstrip("#"))
    assert "(Ann's dice, from Ann's link)" in explained, explained


def test_the_dice_question_is_the_players_own_and_refuses_as_a_write_would(table: Cli) -> None:
    """/player/dice says which keys a declare rolls and records nothing; another character's
    declare, a hidden or unknown target and a foreign origin are refused as a write is."""
    table.ok("add", "Shade", "--side", "foes", "--hidden", "--stat", "hp=9", "--stat", "ac=12")
    before = table.ok("log")
    with serving(table.db) as served:
        found = links_of(served)
        attack = {"type": "declare", "who": "Ann", "action": "attack", "target": "Orc",
                  "details": {"hit": "5", "damage": "1d8+3"}}
        status, body = call(served, "POST", "/player/dice", found["Ann"], {"command": attack})
        assert status == 200, body
        assert json.loads(body) == {"rolls": [{"key": "Ann", "what": "1d20"}, {"key": "dmg:Ann", "what": "1d8"}], "error": ""}
        status, body = call(served, "POST", "/player/dice", found["Bob"], {"command": attack})
        assert json.loads(body)["rolls"] == [] and "Bob's link acts for Bob only" in json.loads(body)["error"]
        for target in ("Shade", "Nobody"):
            status, body = call(served, "POST", "/player/dice", found["Ann"], {"command": {**attack, "target": target}})
            assert json.loads(body) == {"rolls": [], "error": f"no combatant '{target}' is on the board"}
        status, body = call(served, "POST", "/player/dice", found["Ann"], {"command": {**attack, "details": {"hit": "x"}}})
        assert json.loads(body)["rolls"] == [] and "hit=" in json.loads(body)["error"]
        assert call(served, "POST", "/player/dice", None, {"command": attack})[0] == 403
        assert call(served, "POST", "/player/dice", found["Ann"], {"command": attack},
                    {"Origin": "http://elsewhere.example"})[0] == 403
    assert table.ok("log") == before  # asked, never recorded
