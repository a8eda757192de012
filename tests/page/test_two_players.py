"""Issue 41's "Done means": a round of srd-5.2 in which two players, each on their own link
in their own page at 400x900 in Debian's chromium, roll their Initiative, attack and damage
with their own faces typed on the number pad, make a death save and a Concentration save,
and propose damage that the GM accepts with a tap on the GM's page; checked from outside with `skirmish state --json`
and `skirmish explain`: each roll's source, and every HP worked by hand.

The figures, from srd-5.2-combat.md: Initiative is a d20 plus the Dexterity modifier (§2); an
attack roll is a d20 plus the attack bonus, a hit when it reaches the target's AC; damage is
the dice plus the modifier (§6, §7); a creature at 0 HP makes a death save at the start of
its turn, 10 or higher a success (§9); damage to a creature concentrating asks a
Constitution save, DC the higher of 10 and half the damage (§11).

The fight (stats given here, faces typed by the players and the GM):
- Initiative: Ann 15 + 2 = 17, Bob 12 + 1 = 13, the Orc (the GM's die) 5 + 1 = 6: Ann, Bob, Orc.
- Ann's Longsword at the Orc: 12 + 5 = 17 against AC 13, a hit; 6 + 3 = 9 slashing: 30 -> 21.
- Bob's Shortbow at the Orc: 9 + 4 = 13 against AC 13, a hit; 2 + 2 = 4 piercing: 21 -> 17.
- Ann proposes 3 damage to the Orc; the GM accepts it on the GM's page: 17 -> 14.
- The Orc's Greataxe at Bob (the GM's dice): 15 + 5 = 20 against AC 12, a hit; 7 + 3 = 10:
  Bob 8 -> 0, dying (10 - 8 = 2 left over, short of his 8 HP maximum: no instant death, §9).
- The GM's 6 damage to Ann, concentrating on Bless: DC max(10, 3) = 10; her face 14 + Con 2
  = 16, kept; 20 -> 14 HP.
- Round 2: Bob's turn starts with his death save: his face 15, a success (1 success, 0 failures).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from support.cli import Cli
from support.served import serving
from test_player_links import gm, head_of, links_of
from test_gm_page import Gm
from test_player_page import WAIT, Player, opened

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
    cli.ok("new", "Keep", "--rules", "srd-5.2", "--option", "ties=dex")
    cli.ok("add", "Ann", "--side", "party", "--stat", "hp=20", "--stat", "ac=14", "--stat", "dex=2", "--stat", "con=2",
           "--stat", "actions=Longsword: melee +5, 1d8+3 slashing")
    cli.ok("add", "Bob", "--side", "party", "--stat", "hp=8", "--stat", "ac=12", "--stat", "dex=1",
           "--stat", "actions=Shortbow: ranged +4, range 80/320, 1d6+2 piercing")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "hp=30", "--stat", "ac=13", "--stat", "dex=1",
           "--stat", "actions=Greataxe: melee +5, 1d12+3 slashing")
    cli.ok("effect", "Ann", "concentration", "--with", "spell=Bless")  # cast before the fight
    return cli


def declare(player: Player, move: str, target: str, faces: dict[str, str]) -> list[int]:
    """The player's own action from their page: the action, its target, each die's faces on
    the pad; the events recorded, as the server's reply names them."""
    page = player.page
    page.click(f"#moves [data-move='{move}']")
    page.locator("#target").select_option(target)
    for key, typed in faces.items():
        page.click(f"#fields [data-field='{key}']")
        player.pad(typed)
    page.click("#panel-send")
    page.wait_for_function("() => /^Recorded #/.test(document.getElementById('reply').textContent)", timeout=WAIT)
    found = re.fullmatch(r"Recorded #(\d+) to #(\d+): the board shows what it did", player.reply().strip())
    assert found, player.reply()
    return list(range(int(found.group(1)), int(found.group(2)) + 1))


def my_turn(player: Player) -> None:
    player.page.wait_for_selector("#yours", state="visible", timeout=WAIT)


def accept(gm_page: Gm, number: int) -> int:
    """The GM accepts the waiting proposal ``number`` by a tap on the GM's page: its list
    shows it live; the reply names the note on the command recorded, whose number is
    returned (the command's first event)."""
    item = gm_page.page.locator(f"#proposals li[data-id='{number}']")
    item.wait_for(timeout=WAIT)
    item.locator("button.accept").click()
    gm_page.settle()
    refused, said = gm_page.reply()
    assert not refused, said
    found = re.search(r"Proposed by Ann on Ann's link \(a note on #(\d+)\)", said)
    assert found, said
    item.wait_for(state="detached", timeout=WAIT)
    return int(found.group(1))


def test_two_players_play_a_round_from_their_own_links(table: Cli, browser: Any) -> None:
    with serving(table.db) as served:
        found = links_of(served)
        assert set(found) == {"Ann", "Bob"}
        ann_context, ann_page, ann = opened(browser, served, found["Ann"])
        bob_context, bob_page, bob = opened(browser, served, found["Bob"])
        gm_page = Gm(browser, served, ruleset="srd-5.2")  # the GM's own link, a third page
        try:
            # Initiative, each on their own page; Ann's Concentration save held in advance.
            ann.hold("Ann", "15")
            bob.hold("Bob", "12")
            ann.hold("con:Ann", "14")
            rolled = gm(served, {"type": "round", "rolls": {"Orc": [5]}}, head_of(table))
            assert rolled["kind"] == "recorded", rolled
            my_turn(ann)
            assert ann_page.locator("#held li").all_inner_texts() == ["Concentration save d20: held for the GM's next roll"]

            # Ann's turn: her Longsword at the Orc, her dice.
            ann_attack = declare(ann, "Longsword", "Orc", {"Ann": "12", "dmg:Ann": "6"})
            assert gm(served, {"type": "next"}, head_of(table))["kind"] == "recorded"

            # Bob's turn: his Shortbow at the Orc, his dice.
            my_turn(bob)
            bob_attack = declare(bob, "Shortbow", "Orc", {"Bob": "9", "dmg:Bob": "2"})

            # Ann proposes the damage she dealt; waiting, on her page, until the GM answers.
            ann_page.click("#kinds [data-propose='damage']")
            ann_page.locator("#target").select_option("Orc")
            ann.pad("3")
            ann_page.click("#panel-send")
            ann_page.wait_for_selector("#proposals li", timeout=WAIT)
            waiting = ann_page.locator("#proposals li")
            assert waiting.inner_text() == "Waiting for the GM: damage Orc 3"
            SHOTS.mkdir(parents=True, exist_ok=True)
            ann_page.evaluate("window.scrollTo(0, 0)")
            ann_page.screenshot(path=str(SHOTS / "player-400x900.png"))
            ann_page.screenshot(path=str(SHOTS / "player-400x900-whole.png"), full_page=True)
            accepted = accept(gm_page, int(waiting.get_attribute("data-id") or 0))
            ann_page.wait_for_selector("#proposals li", state="detached", timeout=WAIT)

            # The Orc's turn: the GM's Greataxe drops Bob; Bob holds his death save.
            assert gm(served, {"type": "next"}, head_of(table))["kind"] == "recorded"
            axe = gm(served, {"type": "declare", "who": "Orc", "action": "Greataxe", "target": "Bob",
                              "rolls": {"Orc": [15], "dmg:Orc": [7]}}, head_of(table))
            assert axe["kind"] == "recorded", axe
            bob_page.wait_for_selector("#dying", state="visible", timeout=WAIT)
            assert bob_page.locator("#dying").inner_text() == "Death saves: 0 successes, 0 failures"
            assert bob_page.locator("#hp").inner_text() == "HP 0 of 8"
            bob.hold("death:Bob", "15")
            bob_page.evaluate("window.scrollTo(0, 0)")
            bob_page.screenshot(path=str(SHOTS / "player-dying-400x900.png"))

            # The GM's damage to Ann asks her Concentration save: her held face decides it.
            hurt = gm(served, {"type": "damage", "who": "Ann", "amount": 6}, head_of(table))
            assert hurt["kind"] == "recorded", hurt
            ann_page.wait_for_selector("#held li", state="detached", timeout=WAIT)
            assert ann_page.locator("#hp").inner_text() == "HP 14 of 20"

            # Round 2: Ann's turn, then Bob's, which starts with his death save.
            assert gm(served, {"type": "next"}, head_of(table))["kind"] == "recorded"
            saved = gm(served, {"type": "next"}, head_of(table))
            assert saved["kind"] == "recorded", saved
            bob_page.wait_for_function(
                "() => document.getElementById('dying').textContent === 'Death saves: 1 success, 0 failures'", timeout=WAIT)
            assert bob_page.locator("#held li").count() == 0
            for page in (ann_page, bob_page):
                assert page.errors == []  # type: ignore[attr-defined]
                assert page.evaluate("document.documentElement.scrollWidth") <= 400  # nothing wider than the phone
            assert gm_page.errors == [], gm_page.errors
        finally:
            ann_context.close()
            bob_context.close()
            gm_page.page.close()

    # --- from outside: the state, and whose dice each roll was --------------------------
    state = {c["name"]: c for c in json.loads(table.ok("state", "--json"))["combatants"]}
    assert state["Ann"]["vital"]["value"] == 14  # 20 - 6
    assert state["Ann"]["own"]["concentration"] == "Bless"  # 16 against DC 10: kept
    assert state["Bob"]["vital"]["value"] == 0 and state["Bob"]["status"] == "down"
    assert state["Bob"]["own"]["death"] == "1/0"  # one success: his 15
    assert state["Orc"]["vital"]["value"] == 14  # 30 - 9 - 4 - 3

    first = table.ok("explain", str(rolled["events"][0]))
    assert all(s in first.splitlines()[0] for s in ("Ann 17", "Bob 13", "Orc 6")), first
    assert "1d20 = 15 = 15 (Ann's dice, from Ann's link)" in first, first
    assert "1d20 = 12 = 12 (Bob's dice, from Bob's link)" in first, first
    assert sources(table, rolled["events"][0]) == {"player:Ann", "player:Bob", "gm"}  # the Orc's die: the GM's

    swing = table.ok("explain", str(ann_attack[0]))
    assert "17" in swing.splitlines()[0] and "hit" in swing.splitlines()[0], swing
    assert "1d20 = 12 = 12 (Ann's dice, from Ann's link)" in swing, swing
    cut = explained_with(table, ann_attack, "9 slashing damage")
    assert "1d8 = 6 = 6 (Ann's dice, from Ann's link)" in cut, cut

    shot = table.ok("explain", str(bob_attack[0]))
    assert "13" in shot.splitlines()[0] and "hit" in shot.splitlines()[0], shot
    assert "1d20 = 9 = 9 (Bob's dice, from Bob's link)" in shot, shot
    pierced = explained_with(table, bob_attack, "4 piercing damage")
    assert "1d6 = 2 = 2 (Bob's dice, from Bob's link)" in pierced, pierced

    proposed = table.ok("explain", str(accepted))
    assert "proposed by Ann on Ann's link" in proposed and "3" in proposed.splitlines()[0], proposed

    kept = next(n for n, line in zip(hurt["events"], hurt["lines"]) if "DC 10" in line)
    held = table.ok("explain", str(kept))
    assert "Ann rolls 16 against DC 10" in held.splitlines()[0], held
    assert "1d20 = 14 = 14 (Ann's dice, from Ann's link)" in held, held
    assert sources(table, kept) == {"player:Ann"}

    death = next(n for n, line in zip(saved["events"], saved["lines"]) if "death save" in line)
    throw = table.ok("explain", str(death))
    assert "15" in throw.splitlines()[0] and "success" in throw.splitlines()[0], throw
    assert "1d20 = 15 = 15 (Bob's dice, from Bob's link)" in throw, throw
    assert sources(table, death) == {"player:Bob"}


def explained_with(table: Cli, events: list[int], words: str) -> str:
    """`explain` of the one event of ``events`` whose first line says ``words``."""
    said = [table.ok("explain", str(n)) for n in events]
    found = [text for text in said if words in text.splitlines()[0]]
    assert len(found) == 1, said
    return found[0]


def sources(table: Cli, event: int) -> set[str]:
    data = json.loads(table.ok("explain", str(event), "--json"))
    found: set[str] = set()

    def walk(part: Any) -> None:
        if isinstance(part, dict):
            if isinstance(part.get("roll"), dict):
                found.add(part["roll"]["source"])
            for value in part.values():
                walk(value)
        elif isinstance(part, list):
            for value in part:
                walk(value)

    walk(data)
    return found
