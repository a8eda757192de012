"""The GM's page made for a hand, in Debian's chromium at 400x900 (issue 41): the players'
proposals listed live with Accept and Decline, and the dice their phones hold.

A player's link writes over HTTP as tests/page/test_player_links.py does; what the GM's taps
recorded is checked from outside with `skirmish state --json` and `log --all`, the figures
worked by hand from the stats typed below (srd-5.2: damage takes hit points off,
srd-5.2-combat.md "Damage and Healing")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from support.cli import Cli
from support.served import serving
from test_gm_page import Gm
from test_player_links import links_of, player

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
    """Ann and Bob of the party, an Orc of 15 HP among the foes."""
    cli.ok("new", "Ford", "--rules", "srd-5.2", "--option", "ties=dex")
    cli.ok("add", "Ann", "--side", "party", "--stat", "hp=20", "--stat", "ac=14", "--stat", "dex=2")
    cli.ok("add", "Bob", "--side", "party", "--stat", "hp=18", "--stat", "ac=12", "--stat", "dex=1")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "hp=15", "--stat", "ac=13", "--stat", "dex=1")
    return cli


# Six combatants of srd-5.2 (issue 41's fight): three characters, the bundled bestiary's
# Goblin Warrior (AC 15, 10 HP), a legendary Drake and a hidden Shade. Initiative is the d20
# typed plus the Dexterity modifier (srd-5.2-combat.md §2): Ann 15+2 = 17, Goblin Warrior
# 14+2 = 16, Bob 12+1 = 13, Drake 10+0 = 10, Cleo 9+0 = 9, Shade 4+3 = 7. Ann takes 20 of her
# 20 HP: 0 HP, dying (§9); Bob concentrates on Bless; the Goblin Warrior is prone for two
# rounds; the Drake has a private note.
SIX = [
    ["new", "Ford", "--rules", "srd-5.2", "--option", "ties=dex"],
    ["add", "Ann", "--side", "party", "--stat", "hp=20", "--stat", "ac=14", "--stat", "dex=2"],
    ["add", "Bob", "--side", "party", "--stat", "hp=18", "--stat", "ac=12", "--stat", "dex=1"],
    ["add", "Cleo", "--side", "party", "--stat", "hp=16", "--stat", "ac=16", "--stat", "dex=0"],
    ["add", "Goblin Warrior", "--side", "foes"],
    ["add", "Drake", "--side", "foes", "--stat", "hp=30", "--stat", "ac=15", "--stat", "legendary=2", "--stat", "dex=0"],
    ["add", "Shade", "--side", "foes", "--hidden", "--stat", "hp=9", "--stat", "ac=12", "--stat", "dex=3"],
    ["round", "--roll", "Ann=15", "--roll", "Bob=12", "--roll", "Cleo=9", "--roll", "Goblin Warrior=14",
     "--roll", "Drake=10", "--roll", "Shade=4"],
    ["damage", "Ann", "20"],
    ["effect", "Bob", "concentration", "--with", "spell=Bless"],
    ["effect", "Goblin Warrior", "prone", "--rounds", "2"],
    ["note", "--on", "Drake", "--private", "flees at 10 HP"],
]


@pytest.fixture
def six(cli: Cli) -> Cli:
    for line in SIX:
        cli.ok(*line)
    return cli


def inside(page: Any, selector: str) -> bool:
    """Whether the element is wholly inside the viewport, as the page is scrolled now."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return bool(box) and box["y"] >= 0 and box["y"] + box["height"] <= size["height"] and box["x"] >= 0 \
        and box["x"] + box["width"] <= size["width"]


def test_next_undo_and_redo_stay_under_the_thumb_on_a_phone(browser: Any, six: Cli) -> None:
    with serving(six.db) as served:
        gm = Gm(browser, served, ruleset="srd-5.2")
        page = gm.page
        assert page.locator("#order > li").count() == 6
        tall = page.evaluate("document.documentElement.scrollHeight")
        assert tall > 900  # the board and the forms scroll under the bar
        for where in (0, tall):
            page.evaluate(f"window.scrollTo(0, {where})")
            for button in ("#next", "#undo", "#redo"):
                assert inside(page, button), (where, button)
        # Scrolled to the end, the page's last control is above the bar, not behind it.
        bar = page.locator("#actions").bounding_box()
        last = page.locator("#history summary").bounding_box()
        assert bar and last and last["y"] + last["height"] <= bar["y"]
        # The last answer is in the bar, readable: Next tapped, its lines above the keys.
        page.click("#next")
        gm.settle()
        refused, said = gm.reply()
        assert not refused and said, said
        assert inside(page, "#reply") and page.locator("#reply").bounding_box()["y"] < page.locator("#next").bounding_box()["y"]
        gm.fits()
        # At 900 px and wider the controls stay beside the board.
        wide = Gm(browser, served, 1280, 800, ruleset="srd-5.2")
        board, controls = wide.boxes()
        assert board["x"] + board["width"] <= controls["x"]
        assert not gm.errors and not wide.errors, gm.errors + wide.errors


def hp(cli: Cli, who: str) -> int:
    board = json.loads(cli.ok("state", "--json"))
    value: int = next(c for c in board["combatants"] if c["name"] == who)["vital"]["value"]
    return value


def test_a_players_proposal_is_listed_live_and_accepted_or_declined_by_a_tap(browser: Any, table: Cli) -> None:
    with serving(table.db) as served:
        gm = Gm(browser, served, ruleset="srd-5.2")
        page = gm.page
        assert page.locator("#proposals-none").is_visible()  # none waiting: said in words
        assert page.locator("#proposals li").count() == 0
        links = links_of(served)
        status, reply = player(served, links["Ann"], {"type": "propose", "command": {"type": "damage", "who": "Orc", "amount": 4}})
        assert status == 200 and isinstance(reply, dict) and reply["result"]["kind"] == "proposed", reply
        first = reply["result"]["data"]["id"]
        item = page.locator(f"#proposals li[data-id='{first}']")
        item.wait_for()  # live: the stream brought it, no reload
        assert item.locator(".name").inner_text() == "Ann"
        assert item.locator(".text").inner_text() == "damage Orc 4"
        assert not page.locator("#proposals-none").is_visible()
        for button in (item.locator("button.accept"), item.locator("button.decline")):
            box = button.bounding_box()
            assert box and box["height"] >= 44 and box["width"] >= 44
        item.locator("button.accept").click()
        gm.settle()
        refused, said = gm.reply()
        assert not refused and "Proposed by Ann" in said, said
        page.locator(f"#proposals li[data-id='{first}']").wait_for(state="detached")
        assert hp(table, "Orc") == 11  # 15 - 4

        before = table.ok("log", "--all")
        _, reply = player(served, links["Bob"], {"type": "propose", "command": {"type": "damage", "who": "Orc", "amount": 5}})
        assert isinstance(reply, dict) and reply["result"]["kind"] == "proposed", reply
        second = reply["result"]["data"]["id"]
        item = page.locator(f"#proposals li[data-id='{second}']")
        item.wait_for()
        assert item.locator(".name").inner_text() == "Bob"
        item.locator("button.decline").click()
        gm.settle()
        refused, said = gm.reply()
        assert not refused and "Declined Bob's proposal" in said, said
        item.wait_for(state="detached")
        assert page.locator("#proposals-none").is_visible()
        assert table.ok("log", "--all") == before  # nothing recorded
        assert hp(table, "Orc") == 11

        # Faces Ann's phone holds for her initiative (under her own name) are shown to the GM.
        status, reply = player(served, links["Ann"], {"type": "faces", "key": "Ann", "faces": [17]})
        assert status == 200, reply
        page.locator("#held li", has_text="Ann's phone holds: initiative").wait_for()
        assert not gm.errors, gm.errors


def card_text(gm: Gm, name: str) -> str:
    text: str = gm.card(name).locator(":scope > button.pick").text_content()
    return text


def chips(gm: Gm, name: str) -> list[str]:
    """A card's effects, each its mark and its words."""
    found: list[str] = gm.card(name).locator(".chip").evaluate_all(
        "cs => cs.map(c => [...c.children].map(s => s.textContent).join(' '))")
    return found


def test_a_card_shows_the_figures_that_matter_in_srd_5_2(browser: Any, six: Cli) -> None:
    with serving(six.db) as served:
        gm = Gm(browser, served, ruleset="srd-5.2")
        page = gm.page
        # The order: initiative worked by hand above, highest first.
        names = page.locator("#order > li .name").all_inner_texts()
        assert names == ["> Ann", "Goblin Warrior", "Bob", "Drake", "Cleo", "Shade"]
        ann = card_text(gm, "Ann")
        assert "HP 0/20" in ann and "AC 14" in ann and "init 17" in ann
        assert gm.card("Ann").locator(".status").inner_text() == "\u25bc down"  # dying, in words
        assert "\u271a death saves (0S 0F)" in chips(gm, "Ann")  # no save made yet: 0 successes, 0 failures
        goblin = card_text(gm, "Goblin Warrior")  # the bestiary's block: AC 15, 10 HP; 14 + 2 = 16
        assert "HP 10/10" in goblin and "AC 15" in goblin and "init 16" in goblin
        assert "\u21e9 prone (start Ann, 2 left)" in chips(gm, "Goblin Warrior")  # a mark beside the word, rounds left
        assert "\u25ce concentration (Bless)" in chips(gm, "Bob")
        assert "legendary uses 2/2" in card_text(gm, "Drake")
        assert gm.card("Drake").locator(".tag").all_inner_texts() == ["private note"]
        assert gm.card("Shade").locator(".tag").all_inner_texts() == ["hidden"]
        assert gm.card("Cleo").locator(".tag").count() == 0
        # Hide and reveal in one tap each, recorded as the typed requests.
        toggle = gm.card("Shade").locator(".tools button")
        assert toggle.inner_text() == "Reveal"
        toggle.click()
        gm.settle()
        assert gm.reply()[0] is False, gm.reply()
        assert "hidden from the players" not in six.ok("state")
        gm.card("Shade").locator(".tag").wait_for(state="detached")
        assert gm.card("Shade").locator(".tools button").inner_text() == "Hide"
        gm.card("Shade").locator(".tools button").click()
        gm.settle()
        assert "hidden from the players: Shade" in six.ok("state")
        page.locator("#order > li[data-name='Shade'] .tag", has_text="hidden").wait_for()
        # A dead foe reads apart from the dying character: 10 damage on the Goblin Warrior's
        # 10 HP, a monster, dies at 0 (option monster-death=instant, srd-5.2-combat.md §9).
        gm.choose("Goblin Warrior")
        for digit in "10":
            page.click(f"#pad button[aria-label='{digit}']")
        page.click("#damage")
        gm.settle()
        assert gm.reply()[0] is False, gm.reply()
        page.locator("#order > li[data-name='Goblin Warrior'] .status", has_text="dead").wait_for()
        assert gm.card("Goblin Warrior").locator(".status").inner_text() == "\u2020 dead"
        assert gm.card("Ann").locator(".status").inner_text() == "\u25bc down"
        gm.fits()
        assert not gm.small_targets(), gm.small_targets()
        assert not gm.errors, gm.errors


def above_the_bar(page: Any, selector: str) -> bool:
    """Whether the element is in the viewport and not behind the bar of Next, Undo and Redo."""
    box = page.locator(selector).bounding_box()
    bar = page.locator("#actions").bounding_box()
    return bool(box and bar) and box["y"] >= 0 and box["y"] + box["height"] <= bar["y"]


def test_a_card_tapped_opens_its_pad_and_actions_right_under_it(browser: Any, six: Cli) -> None:
    with serving(six.db) as served:
        gm = Gm(browser, served, ruleset="srd-5.2")
        page = gm.page
        page.evaluate("window.scrollTo(0, 0)")
        gm.choose("Cleo")  # the fifth card, low on the first screen
        card = gm.card("Cleo")
        assert card.locator("#who").count() == 1  # the pad is in the card, under its figures
        pick, pad = card.locator(":scope > button.pick").bounding_box(), page.locator("#pad").bounding_box()
        assert pick and pad and 0 <= pad["y"] - (pick["y"] + pick["height"]) < 120
        for selector in ("#amount", "#pad", "#damage", "#heal"):
            assert above_the_bar(page, selector), selector
        for digit in "7":
            page.click(f"#pad button[aria-label='{digit}']")
        page.click("#damage")
        gm.settle()
        assert gm.reply()[0] is False, gm.reply()
        assert hp(six, "Cleo") == 9  # 16 - 7
        page.locator("#order > li[data-name='Cleo'] .gauge .value", has_text="9/16").wait_for()
        card.locator(":scope > button.pick").click()  # a second tap puts it down
        assert page.locator("#who").is_hidden() and card.locator("#who").count() == 0
        # A stat block's action tapped: its panel under the Goblin Warrior's card.
        gm.card("Goblin Warrior").locator(".moves button[data-move='Scimitar']").click()
        goblin = gm.card("Goblin Warrior")
        assert goblin.locator("#move").is_visible()
        moves, panel = goblin.locator(".moves").bounding_box(), page.locator("#move").bounding_box()
        assert moves and panel and 0 <= panel["y"] - (moves["y"] + moves["height"]) < 40
        assert page.locator("#move-name").inner_text() == "Goblin Warrior: Scimitar"
        gm.fits()
        assert not gm.errors, gm.errors


def effects_of(cli: Cli, who: str) -> dict[str, Any]:
    board = json.loads(cli.ok("state", "--json"))
    return {e["kind"]: e["left"] for e in next(c for c in board["combatants"] if c["name"] == who)["effects"]}


def test_a_condition_in_one_tap_with_how_long_it_lasts(browser: Any, six: Cli) -> None:
    with serving(six.db) as served:
        gm = Gm(browser, served, ruleset="srd-5.2")
        page = gm.page
        gm.choose("Cleo")
        kinds = page.locator("#kinds button")
        # The ruleset's conditions and effects, each its word with its mark (srd-5.2-combat.md §13).
        assert page.locator("#kinds button[data-kind='poisoned']").text_content() == "\u2623poisoned"
        assert kinds.count() == 16  # the fifteen conditions of §13 and Concentration (§11)
        page.locator("#kinds-help > summary").click()  # what each does, by a tap
        assert "Disadvantage on its attacks (§13)" in page.locator("#kinds-said").inner_text()
        page.click("#lasts button[data-lasts='2']")
        assert page.locator("#lasts button[data-lasts='2']").get_attribute("aria-pressed") == "true"
        page.click("#kinds button[data-kind='poisoned']")
        gm.settle()
        assert gm.reply()[0] is False, gm.reply()
        assert effects_of(six, "Cleo") == {"poisoned": 2}  # two rounds left, as tapped
        active = page.locator("#kinds button[data-kind='poisoned'][aria-pressed='true']")
        active.wait_for()
        assert "on" in active.inner_text()
        assert "\u2623 poisoned (start Ann, 2 left)" in chips(gm, "Cleo")
        active.click()  # tapped again: it ends
        gm.settle()
        assert gm.reply()[0] is False, gm.reply()
        assert effects_of(six, "Cleo") == {}
        page.locator("#kinds button[data-kind='poisoned'][aria-pressed='false']").wait_for()
        # Until ended: no rounds sent, no rounds left.
        page.click("#lasts button[data-lasts='0']")
        page.click("#kinds button[data-kind='restrained']")
        gm.settle()
        assert effects_of(six, "Cleo") == {"restrained": None}
        assert not gm.small_targets(), gm.small_targets()
        assert not gm.errors, gm.errors


def test_fields_that_name_a_combatant_are_pickers_and_help_is_text(browser: Any, six: Cli) -> None:
    with serving(six.db) as served:
        gm = Gm(browser, served, ruleset="srd-5.2")
        page = gm.page
        # Every field of a form or the pad's options that names a combatant or an effect is a
        # list: the shared ones (who, target, on) and those the ruleset says name one
        # (srd-5.2: an effect's by and of).
        tags = page.locator("#forms [data-goes='field'][data-key='who'], #forms [data-goes='field'][data-key='target'], "
                            "#more-forms [data-goes='field'][data-key='on'], [data-goes='detail'][data-key='by'], "
                            "[data-goes='detail'][data-key='of'], [data-goes='field'][data-key='kind']")
        found = tags.evaluate_all("es => es.map(e => [e.closest('form') ? e.closest('form').dataset.type : '', e.dataset.key, e.tagName])")
        assert ["effect", "by", "SELECT"] in found and ["effect", "of", "SELECT"] in found
        assert all(tag == "SELECT" for form, key, tag in found if not (form == "declare" and key == "by")), found
        form = page.locator("form[data-type='effect']")
        assert form.locator("select[data-key='of'] option").all_inner_texts() == \
            ["(none)", "Ann", "Goblin Warrior", "Bob", "Drake", "Cleo", "Shade"]
        # Help by tap: the form's "?" opens the fields' meanings (the ruleset's words, from
        # `skirmish rules srd-5.2`), and the effect picked says what it does.
        help_box = form.locator(".qhelp")
        assert not help_box.locator("dl").is_visible()
        help_box.locator("summary").click()
        assert "whose turn it is anchored to" in help_box.locator("dl").inner_text()
        form.locator("select[data-key='kind']").select_option("charmed")
        assert "can't attack the charmer" in form.locator(".help.picked").first.inner_text()
        form.locator("select[data-key='who']").select_option("Drake")
        form.locator("[data-key='rounds'][data-goes='field']").fill("1")
        form.locator("select[data-key='by']").select_option("Bob")
        form.locator("select[data-key='of']").select_option("Bob")
        form.locator("button[type=submit]").click()
        gm.settle()
        assert gm.reply()[0] is False, gm.reply()
        board = json.loads(six.ok("state", "--json"))
        drake = next(c for c in board["combatants"] if c["name"] == "Drake")
        charmed = next(e for e in drake["effects"] if e["kind"] == "charmed")
        assert charmed["left"] == 1 and "by Bob" in charmed["detail"], charmed  # one of Bob's turns, by Bob
        assert not gm.errors, gm.errors


def test_branch_here_moves_the_page_onto_the_new_branch(browser: Any, six: Cli) -> None:
    with serving(six.db) as served:
        gm = Gm(browser, served, ruleset="srd-5.2")
        page = gm.page
        page.locator("#history > summary").click()
        # #10 is Ann's turn starting, before the 20 damage of #11 (SIX above).
        page.get_by_role("button", name="Branch from event 10").click()
        assert page.input_value("#fork input[name=at]") == "10"
        page.keyboard.type("lucky")
        page.click("#fork button")
        gm.settle()
        assert gm.reply() == (False, "On branch 'lucky', at #10")
        page.locator("#where", has_text="branch lucky").wait_for()
        # The board is the branch's: Ann has her 20 HP there, and a tap is recorded on it.
        page.locator("#order > li[data-name='Ann'] .gauge .value", has_text="20/20").wait_for()
        assert gm.card("Ann").locator(".status").count() == 0 or gm.card("Ann").locator(".status").is_hidden()
        gm.choose("Ann")
        page.click("#pad button[aria-label='3']")
        page.click("#damage")
        gm.settle()
        assert gm.reply()[0] is False, gm.reply()
        branches = {b["name"]: b["head"] for b in json.loads(six.ok("branches", "--json"))}
        assert branches["main"] == 15 and branches["lucky"] > 15  # main as it was; lucky took the new events
        assert page.get_by_role("button", name="Switch to lucky").is_disabled()
        assert not gm.errors, gm.errors


def test_the_six_combatant_fight_on_a_phone(browser: Any, six: Cli) -> None:
    """Issue 41's fight at 400x900: a dying character, a hidden foe, a concentrating caster,
    a condition and a player's proposal waiting. Screenshots: $SKIRMISH_SHOTS/gm-400x900.png
    (the first screen) and gm-400x900-full.png (the whole page, the bar at its foot)."""
    with serving(six.db) as served:
        links = links_of(served)
        status, reply = player(served, links["Cleo"], {"type": "propose", "command": {"type": "damage", "who": "Goblin Warrior", "amount": 4}})
        assert status == 200, reply
        player(served, links["Bob"], {"type": "faces", "key": "Bob", "faces": [11]})
        gm = Gm(browser, served, ruleset="srd-5.2")
        page = gm.page
        page.locator("#proposals li").wait_for()
        page.locator("#held li").wait_for()
        page.evaluate("window.scrollTo(0, 0)")
        # The first screen: the proposal, the acting (dying) character and the bar.
        for selector in ("#proposals li button.accept", "#order > li[data-name='Ann']", "#next", "#undo", "#redo"):
            assert inside(page, selector), selector
        gm.fits()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "gm-400x900.png"))
        tall = page.evaluate("document.documentElement.scrollHeight")
        page.set_viewport_size({"width": 400, "height": tall})
        page.screenshot(path=str(SHOTS / "gm-400x900-full.png"))
        page.set_viewport_size({"width": 400, "height": 900})
        gm.choose("Goblin Warrior")  # its pad and its conditions, under its card
        page.screenshot(path=str(SHOTS / "gm-400x900-card.png"))
        assert not gm.errors, gm.errors
