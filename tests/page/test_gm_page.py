"""The GM's page in Debian's chromium at 400x900: a whole round of each ruleset's sample
played only by taps, checked from outside with `skirmish state --json` against the same
lines typed at the CLI on a copy of the file; undo and a branch by taps; a refusal shown
with nothing recorded; hostile names as text; nothing wider than the phone.

The taps stand for the sample's lines: :meth:`Gm.tap` reads each line with the one parser
(projections/door/words.py) into the typed request the page should post, and does on the
page what a GM's thumb does for it (a card, the number pad, a form's fields picked, ticked
or typed, Next), reading nothing but the page. Screenshots of the page go to
$SKIRMISH_SHOTS/gm-*.png."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import msgspec
import pytest

from skirmish.projections.door import requests as r
from skirmish.projections.door.words import parse
from skirmish.projections.ruleset import get_ruleset
from support.cli import Cli
from support.served import Served, serving

pytestmark = pytest.mark.slow  # Chromium and a live server

pytest.importorskip("uvicorn")
playwright_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
from support.browser import SHOTS
BAGS = {"details": "detail", "stats": "stat"}  # a request's dicts of KEY=VALUE, and where the page's fields put them


@pytest.fixture(autouse=True)
def unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKIRMISH_ENCOUNTER", raising=False)
    monkeypatch.delenv("SKIRMISH_BRANCH", raising=False)


def given(request: Any) -> dict[str, Any]:
    """A typed request's fields that are given: those it needs, and those not at their default."""
    return {f.name: getattr(request, f.name) for f in msgspec.structs.fields(type(request))
            if f.required or getattr(request, f.name) != f.default}


def put(field: Any, value: Any) -> None:
    """A value into one of the page's fields, as a thumb would: tick, pick or type."""
    if field.get_attribute("type") == "checkbox":
        field.check()
    elif field.evaluate("e => e.tagName") == "SELECT":
        field.select_option(str(value))
    else:
        field.fill(str(value))


def fill(box: Any, fields: dict[str, Any]) -> None:
    """A request's fields into the form (or the pad's options) ``box``: its own fields first
    (the action picked shows that action's fields), then its details, stats and dice."""
    plain = {k: v for k, v in fields.items() if k not in ("rolls", *BAGS)}
    for key, value in plain.items():
        field = box.locator(f"[data-key='{key}'][data-goes='field']")
        if field.get_attribute("data-picker") == "effect" and value not in field.locator("option").all_inner_texts():
            field.select_option(label="the GM's own...")  # a kind of the GM's own, typed
            box.locator(f"[data-key='{key}'][data-own]").fill(value)
        else:
            put(field, value)
    for bag, goes in BAGS.items():
        for key, value in fields.get(bag, {}).items():
            put(box.locator(f"[data-key='{key}'][data-goes='{goes}']"), value)
    dice = box.locator("[data-goes='roll']")
    for row, (key, faces) in enumerate(fields.get("rolls", {}).items()):
        typed = ",".join(str(f) for f in faces)
        if dice.locator("[data-roll='key']").count() == 0:  # one key of its own (`roll`'s faces)
            dice.locator("[data-roll='faces']").fill(typed)
            continue
        if row:
            dice.locator("[data-roll='more']").click()
        line = dice.locator(".roll").nth(row)
        whose = line.locator("[data-roll='key']")
        if key in whose.locator("option").all_inner_texts():
            whose.select_option(key)
        else:  # a key the ruleset names (dmg:NAME), typed
            whose.select_option(label="another key...")
            line.locator("[data-roll='other']").fill(key)
        line.locator("[data-roll='faces']").fill(typed)


class Gm:
    """One tab on the GM's page, with the errors its console reports; ``ruleset``: the
    encounter's, to read a line's flags of its own."""

    def __init__(self, browser: Any, served: Served, width: int = 400, height: int = 900,
                 ruleset: str = "ap-countdown") -> None:
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.ruleset = ruleset
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.goto(served.gm_link())
        self.page.wait_for_selector("#order li")

    def card(self, name: str) -> Any:
        exact = re.compile(rf"^(> )?{re.escape(name)}$")
        return self.page.locator("#order li").filter(has=self.page.locator(".name", has_text=exact))

    def choose(self, name: str) -> None:
        button = self.card(name).locator(":scope > button")  # the card, not its stat block's actions
        if button.get_attribute("aria-pressed") != "true":
            button.click()

    def settle(self) -> None:
        """Wait for the page's last write to be answered (a selector: the page's policy
        refuses the evaluated strings a wait for a function would send)."""
        self.page.locator("body[data-busy='0']").wait_for()

    def reply(self) -> tuple[bool, str]:
        box = self.page.locator("#reply")
        return "refused" in (box.get_attribute("class") or ""), box.inner_text()

    def tap(self, words: list[str]) -> tuple[bool, str]:
        """Do on the page what the command line ``words`` says; whether it was refused, and the reply."""
        page = self.page
        request = parse(words, lambda: get_ruleset(self.ruleset)).request
        tag, fields = r.tag(request), given(request)
        if tag in ("next", "undo", "redo") and set(fields) <= {"steps"} and fields.get("steps", 1) == 1:
            page.click(f"#{tag}")
        elif tag in ("damage", "heal"):
            # The card, the amount on the pad, the pad's options the ruleset declares (a
            # damage type, temporary hit points), then Damage or Heal.
            self.choose(fields.pop("who"))
            for digit in str(fields.pop("amount")):
                page.click(f"#pad button[aria-label='{digit}']")
            fill(page.locator(f"#pad-options [data-pad='{tag}']"), fields)
            page.click(f"#{tag}")
        elif tag in ("leave", "return") and set(fields) == {"who"}:
            self.choose(fields["who"])
            page.click(f"#{tag}")
        else:
            form = page.locator(f"form[data-type='{'add' if tag == 'add-hidden' else tag}']")
            if tag == "add-hidden":
                form.locator("[data-key='hidden'][data-goes='type']").check()
            if form.locator("xpath=ancestor::details").count() and not page.locator("#more").evaluate("e => e.open"):
                page.locator("#more > summary").click()  # the forms under "More commands"
            fill(form, fields)
            form.locator("button[type=submit]").click()
        self.settle()
        return self.reply()

    def fits(self) -> None:
        width = self.page.evaluate("document.documentElement.scrollWidth")
        viewport = self.page.viewport_size["width"]
        assert width <= viewport, f"the page scrolls sideways: {width} px in {viewport}"

    def boxes(self) -> tuple[dict[str, float], dict[str, float]]:
        board = self.page.locator("#board").bounding_box()
        controls = self.page.locator("#controls").bounding_box()
        assert board and controls
        return board, controls

    def small_targets(self) -> list[str]:
        """Controls under 44 px either way, with the branches, the timeline and more open."""
        for summary in ("#branching > summary", "#history > summary", "#more > summary"):
            if self.page.locator(summary).evaluate("e => !e.parentElement.open"):
                self.page.locator(summary).click()
        found: list[str] = self.page.evaluate("""() => [...document.querySelectorAll('button, select, input, summary')]
            .filter(e => e.offsetParent !== null)
            .filter(e => { const r = e.getBoundingClientRect(); return r.height < 44 || r.width < 44 })
            .map(e => (e.dataset.key || e.dataset.roll || e.name || e.textContent || e.type).trim())""")
        return found


# The sixth ruleset, the duel of tests/toy/ (tests/rulesets/test_toy_ruleset.py plays it at
# the CLI): its forms come from what it declares, its own --feint flag included.
DUEL = """new "Toy duel" --rules duel --seed 7
add Ann --side heroes --stat hp=8 --stat speed=3
add Bob --side foes --stat hp=12 --stat speed=1
add Cid --side heroes --stat hp=5 --stat speed=3
round
declare Ann strike --target Bob --roll Ann=4
next
declare Cid guard
next
declare Bob strike --target Cid --feint --roll Bob=5
next
"""


def lines_of_first_round(sample: str) -> tuple[list[list[str]], list[list[str]]]:
    """A sample's set-up (new, add) and its first round: up to the next round, a branch or a
    switch (which the test of branches plays by taps apart)."""
    text = DUEL if sample == "duel" else (ROOT / "samples" / f"{sample}.skirmish").read_text()
    lines = [shlex.split(line, comments=True) for line in text.splitlines()]
    lines = [line for line in lines if line]
    setup_end = max(i for i, line in enumerate(lines) if line[0] in ("new", "add")) + 1
    played: list[list[str]] = []
    rounds = 0
    for line in lines[setup_end:]:
        if line[0] == "round":
            rounds += 1
            if rounds == 2:
                break
        if line[0] in ("branch", "switch", "note"):
            break
        played.append(line)
    return lines[:setup_end], played


SAMPLES = ["bridge-ambush", "courtyard-brawl", "farmhouse-ambush", "gatehouse-percent", "hangar-breach", "chapel-drake",
           "duel"]


@pytest.mark.parametrize("sample", SAMPLES)
def test_a_whole_round_by_taps_records_what_the_cli_records(browser: Any, tmp_path: Path, sample: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    setup, played = lines_of_first_round(sample)
    tapped = Cli(str(tmp_path / "tapped.db"), capsys)
    for line in setup:
        tapped.ok(*line)
    typed = Cli(str(tmp_path / "typed.db"), capsys)
    shutil.copy(tapped.db, typed.db)
    for line in played:
        typed.ok(*line)
    # The duel is installed as a third party's ruleset would be: its dist-info on the path.
    env = {"PYTHONPATH": str(ROOT / "tests" / "toy")} if sample == "duel" else None
    ruleset = setup[0][setup[0].index("--rules") + 1]
    with serving(tapped.db, env=env) as served:
        gm = Gm(browser, served, ruleset=ruleset)
        for line in played:
            refused, said = gm.tap(line)
            assert not refused, f"{shlex.join(line)}: {said}"
        gm.fits()
        if sample == "bridge-ambush":
            SHOTS.mkdir(parents=True, exist_ok=True)
            gm.page.evaluate("() => window.scrollTo(0, 0)")  # the board, as the GM sees it between taps
            gm.page.screenshot(path=str(SHOTS / "gm-400x900.png"))
            wide = Gm(browser, served, 1280, 800)
            wide.fits()
            wide.page.screenshot(path=str(SHOTS / "gm-1280x800.png"))
            board, controls = wide.boxes()  # side by side on a laptop
            assert board["x"] + board["width"] <= controls["x"] and abs(board["y"] - controls["y"]) < 20
            board, controls = gm.boxes()  # the board on top on a phone
            assert board["y"] + board["height"] <= controls["y"]
            assert not wide.errors, wide.errors
        if sample == "chapel-drake":  # the number pad open, with the pad's options srd-5.2 declares
            SHOTS.mkdir(parents=True, exist_ok=True)
            gm.page.evaluate("() => window.scrollTo(0, 0)")
            gm.choose("Drake")  # a card on the board, above the pad on a phone
            pad = gm.page.locator("#pad").bounding_box()
            assert pad and 0 <= pad["y"] and pad["y"] + pad["height"] <= 900, pad  # brought under the thumb
            gm.page.screenshot(path=str(SHOTS / "gm-400.png"))
            wide = Gm(browser, served, 1280, 800)
            wide.choose("Drake")
            wide.fits()
            wide.page.screenshot(path=str(SHOTS / "gm-1280.png"))
            assert not wide.small_targets(), wide.small_targets()
            assert not wide.errors, wide.errors
        assert not gm.small_targets(), gm.small_targets()
        assert not gm.errors, gm.errors
    assert json.loads(tapped.ok("state", "--json")) == json.loads(typed.ok("state", "--json"))
    assert tapped.ok("log") == typed.ok("log")


@pytest.fixture
def bridge(cli: Cli) -> Cli:
    """#1 the encounter, #2 the Orc (30 hits, a foe), #3 Hauser (40 hits, a player)."""
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    return cli


def orc(cli: Cli) -> int:
    state = json.loads(cli.ok("state", "--json"))
    value: int = next(c for c in state["combatants"] if c["name"] == "Orc")["vital"]["value"]
    return value


def test_undo_redo_and_a_branch_by_taps(browser: Any, bridge: Cli) -> None:
    with serving(bridge.db) as served:
        gm = Gm(browser, served)
        assert gm.tap(["damage", "Orc", "12"]) == (False, "#4 Orc takes 12 hits (18 left)")  # 30 - 12
        assert gm.page.locator("#undo").inner_text() == "Undo: damage Orc 12"
        refused, said = gm.tap(["undo"])
        assert not refused and "damage Orc 12" in said
        assert orc(bridge) == 30
        assert gm.page.locator("#redo").inner_text() == "Redo: damage Orc 12"
        gm.tap(["redo"])
        assert orc(bridge) == 18
        # A what-if from #3, before the damage: "Branch here" on the timeline, a name, then Switch.
        gm.page.locator("#history summary").click()
        gm.page.get_by_role("button", name="Branch from event 3").click()
        assert gm.page.input_value("#fork input[name=at]") == "3"
        gm.page.keyboard.type("what-if")  # the name field has the focus
        gm.page.click("#fork button")  # forked, and the page switched onto it
        gm.settle()
        assert gm.reply() == (False, "On branch 'what-if', at #3")
        assert gm.page.get_by_role("button", name="Switch to what-if").is_disabled()  # playing it
        assert gm.tap(["damage", "Orc", "5"]) == (False, "#5 Orc takes 5 hits (25 left)")  # 30 - 5 on what-if
        assert "branch what-if" in gm.page.locator("#where").inner_text()
        branches = {b["name"]: b["head"] for b in json.loads(bridge.ok("branches", "--json"))}
        assert branches == {"main": 4, "what-if": 5}
        assert not gm.errors, gm.errors


def test_the_clock_line_says_who_acts_now_and_next_as_the_state_does(browser: Any, bridge: Cli) -> None:
    # ap-countdown.md, Initiative: base = QU + 2d10, the count = base + 5 x AP (4 AP a round):
    # Hauser 1 + 6 + 8 = 15 -> 35, the Orc 0 + 5 + 5 = 10 -> 30. A melee attack of 4 AP
    # resolves 4 x 5 counts after its declaration: Hauser's at 15, the Orc's at 10.
    with serving(bridge.db) as served:
        gm = Gm(browser, served)
        clock = gm.page.locator("#clock")
        assert clock.inner_text() == "Before the first round."  # nobody acts: no "Now", no "Next"
        gm.tap(["round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5"])
        assert clock.inner_text() == "Round 1, count 35. Now: Hauser. Next: Orc."
        gm.tap(["declare", "Hauser", "melee-attack", "--ap", "4", "--target", "Orc"])
        assert clock.inner_text() == "Round 1, count 35. Next: Orc."  # Hauser has declared: nobody now
        gm.tap(["next"])
        assert clock.inner_text() == "Round 1, count 30. Now: Orc. Next: Hauser."
        for line in (["declare", "Orc", "melee-attack", "--ap", "4", "--target", "Hauser"], ["next"],
                     ["resolve", "Hauser", "--hits", "5"], ["next"]):
            assert gm.tap(line)[0] is False, line
        assert clock.inner_text() == "Round 1, count 10. Now: Orc. Next: the end of the round."
        gm.tap(["resolve", "Orc", "--hits", "3"])
        gm.tap(["next"])
        assert clock.inner_text() == "After round 1."  # the moment names the round: not "Round 1, after round 1"
        # The same moments as the state's first line: its label, who acts now and next.
        assert bridge.ok("state").splitlines()[1] == "after round 1; now: -; next: -"
        assert not gm.errors, gm.errors


def test_a_refusal_is_shown_and_records_nothing(browser: Any, bridge: Cli) -> None:
    before = bridge.ok("log", "--all", "--json")
    with serving(bridge.db) as served:
        gm = Gm(browser, served)
        # No round has started: the declaration is refused, in the CLI's own words.
        expected = Cli(bridge.db, bridge.capsys).fails("declare", "Hauser", "melee-attack", "--ap", "3")
        refused, said = gm.tap(["declare", "Hauser", "melee-attack", "--ap", "3"])
        assert refused and "Error: " + said == expected
        # A number or dice that are not numbers are refused on the page, in one line, before
        # anything is sent (the server checks again what it is sent).
        declare = gm.page.locator("form[data-type='declare']")
        declare.locator("[data-key='ap'][data-goes='detail']").fill("three")
        declare.locator("button[type=submit]").click()
        assert gm.reply() == (True, 'ap takes a whole number, not "three"')
        round_ = gm.page.locator("form[data-type='round']")
        round_.locator("[data-roll='faces']").first.fill("6,x")
        round_.locator("button[type=submit]").click()
        assert gm.reply() == (True, 'the dice of Orc take faces as numbers, e.g. 6,8; not "6,x"')
        assert not gm.errors, gm.errors
    assert bridge.ok("log", "--all", "--json") == before


def test_a_declaration_by_pickers_and_a_double_tap_on_next(browser: Any, bridge: Cli) -> None:
    """Who, the action and its target are picked from lists; the form asks only what the
    action takes (ap-countdown's melee attack: AP, a target, a trigger; not a move's pace);
    the board shows the declaration. Next tapped twice at once is one `next`, and the page
    says the second was recorded already, not that it was refused."""
    bridge.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")  # Hauser acts at 35, the Orc at 30
    typed = Cli(str(Path(bridge.db).with_name("typed.db")), bridge.capsys)
    shutil.copy(bridge.db, typed.db)
    typed.ok("declare", "Hauser", "melee-attack", "--ap", "4", "--target", "Orc")
    typed.ok("next")
    with serving(bridge.db) as served:
        gm = Gm(browser, served)
        form = gm.page.locator("form[data-type='declare']")
        field = lambda key: form.locator(f"[data-key='{key}'][data-goes]")  # noqa: E731
        field("who").select_option("Hauser")
        field("action").select_option("move")
        assert field("pace").is_visible() and not field("ap").is_visible()
        field("action").select_option("melee-attack")
        shown = [key for key in ("ap", "target", "trigger", "pace", "penalty", "amount") if field(key).is_visible()]
        assert shown == ["ap", "target", "trigger"]
        assert field("target").locator("option").all_inner_texts() == ["(none)", "Hauser", "Orc"]
        field("target").select_option("Orc")
        field("ap").fill("4")
        form.locator("button[type=submit]").click()
        gm.settle()
        refused, said = gm.reply()
        assert not refused and said.startswith("#") and "Hauser" in said, said
        assert gm.page.locator("#pending").inner_text() == "Hauser: melee-attack at Orc, resolves count 15"
        assert said.split(" ", 1)[1] in (gm.page.locator("#timeline").text_content() or "")
        assert (field("ap").input_value(), field("target").input_value(), field("who").input_value()) == ("", "", "Hauser")  # emptied, who stays
        gm.page.locator("#next").dblclick()
        gm.settle()
        refused, said = gm.reply()
        assert not refused and said.startswith("Already recorded: #"), said
        gm.page.screenshot(path="/tmp/gm.png")
        assert not gm.errors, gm.errors
    assert json.loads(bridge.ok("state", "--json")) == json.loads(typed.ok("state", "--json"))
    assert bridge.ok("log") == typed.ok("log")  # one `next`, not two


def test_a_tap_whose_answer_the_network_lost_is_sent_again_with_its_id_and_done_once(browser: Any, bridge: Cli) -> None:
    """The first post of a damage reaches the server, which records it, but its answer is
    lost: the page sends the same request again with the same tap id, and the server
    answers it as done already. The Orc took 7 once: 23 of 30."""
    with serving(bridge.db) as served:
        gm = Gm(browser, served)
        sent: list[dict[str, Any]] = []

        def lose_the_first_answer(route: Any) -> None:
            sent.append(json.loads(route.request.post_data))
            if len(sent) == 1:
                route.fetch()  # to the server and back, then lost on the way to the page
                route.abort("connectionreset")
            else:
                route.continue_()

        gm.page.route("**/gm/run", lose_the_first_answer)
        refused, said = gm.tap(["damage", "Orc", "7"])
        assert (refused, said) == (False, "Already recorded: #4 Orc takes 7 hits (23 left)")
        assert len(sent) == 2 and sent[0] == sent[1] and 1 <= len(sent[0]["tap"]) <= 64
        assert sent[0]["command"] == {"type": "damage", "who": "Orc", "amount": 7}
        gm.tap(["damage", "Orc", "1"])  # a tap of its own: a fresh id
        assert sent[2]["tap"] != sent[0]["tap"]
        assert not [e for e in gm.errors if "Failed to load resource" not in e], gm.errors
    assert orc(bridge) == 22  # 30 - 7 - 1


HOSTILE = "<b>Orc</b> &amp; <i>co</i><script>alert(1)</script>"  # no '=': a name may not hold one


def test_hostile_names_stay_text(browser: Any, cli: Cli) -> None:
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    cli.ok("add", HOSTILE, "--side", "<b>foes</b>", "--stat", "qu=0", "--stat", "hits=30")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    with serving(cli.db) as served:
        gm = Gm(browser, served)
        assert gm.card(HOSTILE).count() == 1
        assert gm.page.locator("#app b, #app i, #app script").count() == 0
        assert gm.tap(["damage", HOSTILE, "4"])[0] is False
        assert f"{HOSTILE} takes 4 hits (26 left)" in (gm.page.locator("#timeline").text_content() or "")
        assert gm.page.title() == "skirmish: the GM's page"
        assert not gm.errors, gm.errors


def test_keys_next_undo_redo(browser: Any, bridge: Cli) -> None:
    bridge.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")  # #4.. initiative: Hauser 1+14, Orc 0+10
    with serving(bridge.db) as served:
        gm = Gm(browser, served)
        head = json.loads(bridge.ok("state", "--json"))["head"]
        gm.page.keyboard.press("n")
        gm.settle()
        moved = json.loads(bridge.ok("state", "--json"))["head"]
        assert moved > head
        gm.page.keyboard.press("u")
        gm.settle()
        assert json.loads(bridge.ok("state", "--json"))["head"] == head
        gm.page.keyboard.press("r")
        gm.settle()
        assert json.loads(bridge.ok("state", "--json"))["head"] == moved


def test_explain_and_why_on_a_tap_say_what_the_cli_says(browser: Any, bridge: Cli) -> None:
    bridge.ok("damage", "Orc", "6")  # #4
    with serving(bridge.db) as served:
        gm = Gm(browser, served)
        gm.page.locator("#history summary").click()
        gm.page.get_by_role("button", name="Explain event 4").click()
        gm.settle()
        assert gm.reply() == (False, bridge.ok("explain", "4").strip())
        gm.choose("Orc")
        gm.page.click("#why")
        gm.settle()
        assert gm.reply() == (False, bridge.ok("why", "Orc").strip())


def test_the_pads_options_are_the_rulesets_and_are_emptied_after_a_write(browser: Any, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """srd-5.2 declares a damage type on `damage` and temporary HP on `heal`: the pad offers
    them as taps. The drake is immune to fire (samples/chapel-drake.skirmish, `immune=fire`;
    srd-5.2-combat.md §7, Immunity): 10 fire leaves its 52 HP; the next 10, typed with no
    type, take it to 42, which a pad keeping the last type would not. Temporary HP are not
    healing (§8): Hauser keeps 30 of 30 HP and has 5 temporary."""
    setup, played = lines_of_first_round("chapel-drake")
    cli = Cli(str(tmp_path / "tapped.db"), capsys)
    for line in setup + played[:1]:  # the set-up and the round's initiative
        assert line[0] in ("new", "add", "round")
        cli.ok(*line)
    with serving(cli.db) as served:
        gm = Gm(browser, served, ruleset="srd-5.2")
        labels = gm.page.locator("#pad-options [data-pad='heal'] label").all_inner_texts()
        gm.choose("Drake")
        assert gm.page.locator("#pad-options [data-pad='damage'] [data-key='type'][data-goes='detail'] option").all_inner_texts() == \
            ["(none)", "acid", "bludgeoning", "cold", "fire", "force", "lightning", "necrotic", "piercing", "poison",
             "psychic", "radiant", "slashing", "thunder"]  # the thirteen types srd-5.2 declares
        assert gm.tap(["damage", "Drake", "10", "--with", "type=fire"]) == (False, "#14 Drake takes 0 fire damage (52 HP left)")
        assert gm.page.input_value("#pad-options [data-key='type'][data-goes='detail']") == ""
        assert gm.tap(["damage", "Drake", "10"])[0] is False
        assert gm.tap(["heal", "Hauser", "5", "--with", "temp=yes"])[0] is False
        assert gm.page.locator("#pad-options [data-key='temp'][data-goes='detail']").is_checked() is False
        assert gm.page.locator("#undo").inner_text() == "Undo: heal Hauser 5 --with temp=yes"  # the command text recorded
        assert not gm.small_targets(), gm.small_targets()
        assert not gm.errors, gm.errors
    assert any(label.startswith("temp") for label in labels), labels
    state = {c["name"]: c for c in json.loads(cli.ok("state", "--json"))["combatants"]}
    assert state["Drake"]["vital"]["value"] == 42  # 52 - 0 (immune to fire) - 10
    assert (state["Hauser"]["vital"]["value"], state["Hauser"]["own"]["temp"]) == (30, 5)
    assert [line.split(None, 1)[1] for line in cli.ok("log").splitlines()[-3:]] == \
        ["Drake takes 0 fire damage (52 HP left)", "Drake takes 10 damage (42 HP left)", "Hauser has 5 temporary HP"]


# --- a stat block's actions are taps (srd-5.2) ------------------------------------------------
# Every figure is worked by hand from the bundled SRD 5.2 Goblin Warrior (Scimitar: melee +4,
# 1d6+2 slashing; Shortbow: ranged +4, 1d6+2 piercing; each 1d4 more only with Advantage) and
# the faces typed: an attack hits when d20 + 4 reaches the target's AC (srd-5.2-combat.md §6)
# and deals the die + 2 (§7). (SRD 5.2 by Wizards of the Coast LLC, CC BY 4.0.)
GW1, GW2 = "Goblin Warrior 1", "Goblin Warrior 2"


@pytest.fixture
def camp(cli: Cli) -> Cli:
    """A party of three by hand and two bestiary goblins; round 1 with the initiative typed:
    the goblins 15 + 2 = 17 (one roll for the two, option identical=count), Ann 12 + 1 = 13,
    Cy 9 + 0 = 9, Bo 5 + 3 = 8. Order: Goblin Warrior 1, Goblin Warrior 2, Ann, Cy, Bo."""
    cli.ok("new", "Camp", "--rules", "srd-5.2")
    cli.ok("add", "Ann", "--side", "party", "--stat", "hp=24", "--stat", "ac=15", "--stat", "dex=1")
    cli.ok("add", "Bo", "--side", "party", "--stat", "hp=18", "--stat", "ac=12", "--stat", "dex=3")
    cli.ok("add", "Cy", "--side", "party", "--stat", "hp=15", "--stat", "ac=13", "--stat", "dex=0")
    cli.ok("add", "Goblin Warrior", "--count", "2")
    cli.ok("round", "--roll", "Ann=12", "--roll", "Bo=5", "--roll", "Cy=9", "--roll", "Goblin Warrior=15")
    return cli


def hp(cli: Cli) -> dict[str, int]:
    return {c["name"]: c["vital"]["value"] for c in json.loads(cli.ok("state", "--json"))["combatants"]}


def move(gm: Gm, who: str, name: str) -> Any:
    return gm.card(who).locator(f".moves button[data-move='{name}']")


def take(gm: Gm, who: str, name: str, targets: tuple[str, ...] = (), dice: dict[str, str] | None = None) -> tuple[bool, str]:
    """The taps of a block's action: the action on the card, each target, then Roll, or the
    dice opened, the faces typed and Declare with these dice. Whether refused, and the reply."""
    page = gm.page
    move(gm, who, name).click()
    for target in targets:
        page.locator(f"#move-targets button[data-target='{target}']").click()
    if dice:
        page.locator("#move-dice summary").click()
        for key, faces in dice.items():
            page.locator(f"#move-faces input[data-dice='{key}']").fill(faces)
        page.click("#move-typed")
    else:
        page.click("#move-roll")
    gm.settle()
    return gm.reply()


def test_a_goblins_turn_is_its_blocks_action_a_target_and_roll(browser: Any, camp: Cli) -> None:
    with serving(camp.db) as served:
        gm = Gm(browser, served, ruleset="srd-5.2")
        card = gm.card(GW1)
        assert card.locator(".moves button").all_inner_texts() == [
            "Scimitar\n+4, 1d6+2 slashing", "Shortbow\n+4, 1d6+2 piercing", "Nimble Escape\nbonus"]
        assert gm.card("Ann").locator(".moves").count() == 0  # typed by hand: no block, nothing but the forms
        # Goblin Warrior 1: Scimitar at Ann (AC 15), d20 11 + 4 = 15 hits; 1d6 4 + 2 = 6 slashing: 24 - 6 = 18.
        move(gm, GW1, "Scimitar").click()
        assert gm.page.locator("#move-name").inner_text() == f"{GW1}: Scimitar"
        # The party first: the picker lists the other side before the goblin's own.
        assert gm.page.locator("#move-targets button").all_inner_texts()[:3] == \
            ["Ann (party, HP 24)", "Cy (party, HP 15)", "Bo (party, HP 18)"]
        gm.page.locator("#move-targets button[data-target='Ann']").click()
        gm.page.locator("#move-dice summary").click()
        assert gm.page.locator("#move-faces input").evaluate_all("es => es.map(e => e.dataset.dice)") == \
            [GW1, f"dmg:{GW1}", f"extra:{GW1}"]
        gm.page.locator(f"#move-faces input[data-dice='{GW1}']").fill("11")
        gm.page.locator(f"#move-faces input[data-dice='dmg:{GW1}']").fill("4")
        gm.page.click("#move-typed")
        gm.settle()
        assert gm.reply() == (False, f"#9 {GW1} attacks Ann with Scimitar: 15 (d20 + attack bonus vs AC 15), hits\n"
                                     "#10 Ann takes 6 slashing damage (18 HP left)")
        assert gm.page.locator("#move").is_hidden()  # put down once declared
        assert hp(camp)["Ann"] == 18
        # Its Bonus Action from the block, aimed at nobody: the action, then Declare.
        move(gm, GW1, "Nimble Escape").click()
        assert gm.page.locator("#move-roll").inner_text() == "Declare" and gm.page.locator("#move-targets").is_hidden()
        gm.page.click("#move-roll")
        gm.settle()
        assert gm.reply()[0] is False, gm.reply()
        # A second Scimitar this turn is refused in the server's words; nothing recorded.
        head = json.loads(camp.ok("state", "--json"))["head"]
        refused, said = take(gm, GW1, "Scimitar", ("Bo",))
        assert refused and "action" in said, said
        assert json.loads(camp.ok("state", "--json"))["head"] == head
        gm.page.click("#move-off")
        gm.page.click("#next")
        gm.settle()
        # Goblin Warrior 2: Shortbow at Bo (AC 12), d20 8 + 4 = 12 hits; 1d6 3 + 2 = 5 piercing: 18 - 5 = 13.
        assert take(gm, GW2, "Shortbow", ("Bo",), {GW2: "8", f"dmg:{GW2}": "3"})[0] is False
        assert hp(camp)["Bo"] == 13
        for _ in range(4):  # Next: Ann's turn, Cy's, Bo's, then round 1's end and round 2's start
            gm.page.click("#next")
            gm.settle()
        assert hp(camp) == {GW1: 10, GW2: 10, "Ann": 18, "Cy": 15, "Bo": 13}
        state = json.loads(camp.ok("state", "--json"))
        # The round rolls on in the same order (option rounds=roll-on, srd-5.2-combat.md §1).
        assert state["clock"]["round"] == 2 and state["clock"]["now"] == [GW1]
        gm.page.evaluate("() => window.scrollTo(0, 0)")
        gm.page.screenshot(path=str(SHOTS / "gm-block-cards-400x900.png"))
        # Round 2, the same order. Goblin Warrior 1: Scimitar at Cy (AC 13), d20 2 + 4 = 6 misses.
        assert take(gm, GW1, "Scimitar", ("Cy",), {GW1: "2"})[0] is False
        gm.page.click("#next")
        gm.settle()
        # Goblin Warrior 2: Scimitar at Bo (AC 12), d20 14 + 4 = 18 hits; 1d6 5 + 2 = 7: 13 - 7 = 6.
        assert take(gm, GW2, "Scimitar", ("Bo",), {GW2: "14", f"dmg:{GW2}": "5"})[0] is False
        gm.page.click("#next")
        gm.settle()
        # The party by the number pad: Ann deals 7 to Goblin Warrior 1 (10 - 7 = 3), Cy 5 more:
        # 0 HP, dead at once (option monster-death=instant, §9). Bo's turn passes.
        assert gm.tap(["damage", GW1, "7"])[0] is False
        gm.page.click("#next")
        gm.settle()
        assert gm.tap(["damage", GW1, "5"])[0] is False
        for _ in range(2):  # Next: Bo's turn, then round 2's end and round 3's start
            gm.page.click("#next")
            gm.settle()
        assert hp(camp) == {GW1: 0, GW2: 10, "Ann": 18, "Cy": 15, "Bo": 6}
        # The dead goblin's block is spent, saying why, and it is no target for another's.
        assert [b.is_disabled() for b in move(gm, GW1, "Scimitar").all()] == [True]
        assert move(gm, GW1, "Scimitar").inner_text() == "Scimitar\ndead"
        gm.page.evaluate("() => window.scrollTo(0, 0)")
        gm.page.screenshot(path=str(SHOTS / "gm-block-spent-400x900.png"))
        # Round 3: Goblin Warrior 2's turn (the dead one's is passed by), a typical one: its Shortbow,
        # Cy, Roll, Next (the server rolls).
        assert json.loads(camp.ok("state", "--json"))["clock"]["now"] == [GW2]
        move(gm, GW2, "Shortbow").click()
        assert GW1 not in gm.page.locator("#move-targets").inner_text()
        gm.page.locator("#move-targets button[data-target='Cy']").click()
        gm.page.screenshot(path=str(SHOTS / "gm-block-400x900.png"))  # the action tapped, its target, Roll
        gm.page.click("#move-roll")
        gm.settle()
        refused, said = gm.reply()
        assert not refused and said.startswith(f"#") and f"{GW2} attacks Cy with Shortbow: " in said, said
        taken = re.search(r"Cy takes (\d+) piercing damage", said)
        for _ in range(4):  # Next: Ann's turn, Cy's, Bo's, then round 3's end and round 4's start
            gm.page.click("#next")
            gm.settle()
        gm.fits()
        assert not gm.small_targets(), gm.small_targets()
        assert not gm.errors, gm.errors
    # Cy takes what the server's dice made of 1d6+2 (a Critical Hit: 2d6+2), or nothing on a miss.
    cy = 15 - (int(taken.group(1)) if taken else 0)
    assert taken is None or 3 <= int(taken.group(1)) <= 14
    assert hp(camp) == {GW1: 0, GW2: 10, "Ann": 18, "Cy": cy, "Bo": 6}
    state = json.loads(camp.ok("state", "--json"))
    # Three rounds played; the fourth has rolled on to Goblin Warrior 2 (rounds=roll-on, §1).
    assert state["clock"]["round"] == 4 and state["clock"]["now"] == [GW2]


def test_a_spent_action_is_greyed_with_why(browser: Any, cli: Cli) -> None:
    """A recharge spent and a use a day gone: the card's tap is off, saying so. A save action
    takes several targets: the Wyrm's breath at Ann and Bo, each save typed (DC 15 Dex, no
    save modifier: 3 and 16), the 6d6 typed 1 each = 6: Ann fails, 30 - 6 = 24; Bo succeeds,
    half, 6 // 2 = 3: 30 - 3 = 27 (srd-5.2-combat.md §7, half rounded down)."""
    cli.ok("new", "Lair", "--rules", "srd-5.2")
    cli.ok("add", "Wyrm", "--side", "foes", "--stat", "hp=120", "--stat", "ac=17", "--stat", "actions=Fire Breath: "
           "6d6 fire, DC 15 dex, half, recharge 5; Web: DC 12 dex, 1/day; Bite: melee +7, 2d10+4 piercing")
    cli.ok("add", "Ann", "--side", "party", "--stat", "hp=30", "--stat", "ac=14")
    cli.ok("add", "Bo", "--side", "party", "--stat", "hp=30", "--stat", "ac=14")
    cli.ok("round", "--roll", "Wyrm=20", "--roll", "Ann=2", "--roll", "Bo=1")
    with serving(cli.db) as served:
        gm = Gm(browser, served, ruleset="srd-5.2")
        assert move(gm, "Wyrm", "Fire Breath").inner_text() == "Fire Breath\nDC 15 Dex, 6d6 fire, recharge 5"
        dice = {"dmg:Wyrm": "1,1,1,1,1,1", "save:Ann": "3", "save:Bo": "16"}
        assert take(gm, "Wyrm", "Fire Breath", ("Ann", "Bo"), dice)[0] is False
        breath = move(gm, "Wyrm", "Fire Breath")
        assert breath.is_disabled() and breath.inner_text() == "Fire Breath\nrecharge 5: spent"
        assert not gm.errors, gm.errors
    assert {k: v for k, v in hp(cli).items() if k != "Wyrm"} == {"Ann": 24, "Bo": 27}


def test_hostile_names_in_a_block_stay_text(browser: Any, cli: Cli) -> None:
    """A combatant's name and its block's action name, markup both: text on the card, in
    the picker and the panel; the tap declares the action as named. 1d6 typed 3 + 0: 30 - 3."""
    bite = "<i>Bite</i> & <script>alert(2)</script>"
    cli.ok("new", "Lair", "--rules", "srd-5.2")
    cli.ok("add", HOSTILE, "--side", "foes", "--stat", "hp=30", "--stat", "ac=12",
           "--stat", f"actions={bite}: melee +2, 1d6 piercing")
    cli.ok("add", "Ann", "--side", "party", "--stat", "hp=30", "--stat", "ac=10")
    cli.ok("round", "--roll", f"{HOSTILE}=20", "--roll", "Ann=1")
    with serving(cli.db) as served:
        gm = Gm(browser, served, ruleset="srd-5.2")
        tap = gm.card(HOSTILE).locator(".moves button")
        assert tap.all_inner_texts() == [f"{bite}\n+2, 1d6 piercing"]
        tap.click()
        assert gm.page.locator("#move-name").inner_text() == f"{HOSTILE}: {bite}"
        gm.page.locator("#move-targets button").filter(has_text="Ann").click()
        gm.page.locator("#move-dice summary").click()
        boxes = gm.page.locator("#move-faces input")
        boxes.nth(0).fill("15")  # d20 15 + 2 = 17 hits AC 10
        boxes.nth(1).fill("3")
        gm.page.click("#move-typed")
        gm.settle()
        assert gm.reply()[0] is False, gm.reply()
        assert gm.page.locator("#app b, #app i, #app script").count() == 0
        assert not gm.errors, gm.errors
    assert hp(cli)["Ann"] == 27
