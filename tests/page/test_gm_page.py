"""The GM's page in Debian's chromium at 400x900: a whole round of each ruleset's sample
played only by taps, checked from outside with `skirmish state --json` against the same
lines typed at the CLI on a copy of the file; undo and a branch by taps; a refusal shown
with nothing recorded; hostile names as text; nothing wider than the phone.

The taps stand for the sample's lines: :func:`tap` turns each line into what a GM's thumb
does on the page (a card, the number pad, a form's fields, Next), and reads nothing but
the page. Screenshots of the page go to /tmp/shots/gm-*.png."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

from support.cli import Cli
from support.served import Served, serving

pytestmark = pytest.mark.slow  # Chromium and a live server

pytest.importorskip("uvicorn")
playwright_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path("/tmp/shots")
ARGUMENTS = {"declare": ("who", "action"), "resolve": ("who",), "cancel": ("who",), "effect": ("who", "kind"),
             "round": (), "upkeep": ()}


@pytest.fixture(autouse=True)
def unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKIRMISH_ENCOUNTER", raising=False)
    monkeypatch.delenv("SKIRMISH_BRANCH", raising=False)


def set_fields(box: Any, rest: list[str]) -> None:
    """Set ``--with KEY=VALUE`` and ``--FLAG [VALUE]`` words on the fields in ``box`` as a
    thumb would: tick a box, pick from a list, or type."""
    at = 0
    while at < len(rest):
        if rest[at] == "--with":
            key, _, value = rest[at + 1].partition("=")
            field, at = box.locator(f"[data-flag='--with {key}']"), at + 2
        else:
            field, at = box.locator(f"[data-flag='{rest[at]}']"), at + 1
            value = ""
            if field.get_attribute("type") != "checkbox":
                value, at = rest[at], at + 1
        if field.get_attribute("type") == "checkbox":
            field.check()  # a switch, or a detail of one value, e.g. --with crit=yes
        elif field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)


class Gm:
    """One tab on the GM's page, with the errors its console reports."""

    def __init__(self, browser: Any, served: Served, width: int = 400, height: int = 900) -> None:
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.goto(served.gm_link())
        self.page.wait_for_selector("#order li")

    def card(self, name: str) -> Any:
        exact = re.compile(rf"^(> )?{re.escape(name)}$")
        return self.page.locator("#order li").filter(has=self.page.locator(".name", has_text=exact))

    def choose(self, name: str) -> None:
        button = self.card(name).locator("button")
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
        command = words[0]
        if command in ("next", "undo", "redo"):
            page.click(f"#{command}")
        elif command in ("damage", "heal"):
            # The card, the amount on the pad, the pad's options the ruleset declares (a
            # damage type, temporary hit points), then Damage or Heal.
            self.choose(words[1])
            for digit in words[2]:
                page.click(f"#pad button[aria-label='{digit}']")
            self.pad_options(command, words[3:])
            page.click(f"#{command}")
        elif command in ("leave", "return"):
            self.choose(words[1])
            page.click(f"#{command}")
        else:
            form = page.locator(f"form[data-command='{command}']")
            arguments = ARGUMENTS[command]
            for name, value in zip(arguments, words[1:]):
                field = form.locator(f"[name='{name}']")
                if name == "kind":
                    field.fill(value)
                else:
                    field.select_option(value)
            rest, dice, others, at = words[1 + len(arguments):], [], [], 0
            while at < len(rest):  # the GM's dice go in one field; the rest are the form's fields
                if rest[at] == "--roll":
                    dice.append(rest[at + 1])
                    at += 2
                else:
                    others.append(rest[at])
                    at += 1
            set_fields(form, others)
            if dice:
                form.locator("[data-flag='--roll']").fill(" ".join(dice))
            form.locator("button[type=submit]").click()
        self.settle()
        return self.reply()

    def pad_options(self, command: str, rest: list[str]) -> None:
        set_fields(self.page.locator(f"#pad-options [data-pad='{command}']"), rest)

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
        """Controls under 44 px either way, with the branches and the timeline open."""
        for summary in ("#branching summary", "#history summary"):
            if self.page.locator(summary).evaluate("e => !e.parentElement.open"):
                self.page.locator(summary).click()
        found: list[str] = self.page.evaluate("""() => [...document.querySelectorAll('button, select, input, summary')]
            .filter(e => e.offsetParent !== null)
            .filter(e => { const r = e.getBoundingClientRect(); return r.height < 44 || r.width < 44 })
            .map(e => (e.dataset.flag || e.name || e.textContent || e.type).trim())""")
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
    with serving(tapped.db, env=env) as served:
        gm = Gm(browser, served)
        for line in played:
            refused, said = gm.tap(line)
            assert not refused, f"{shlex.join(line)}: {said}"
        gm.fits()
        if sample == "bridge-ambush":
            SHOTS.mkdir(exist_ok=True)
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
            SHOTS.mkdir(exist_ok=True)
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
        gm.page.click("#fork button")
        gm.settle()
        gm.page.get_by_role("button", name="Switch to what-if").click()
        gm.settle()
        assert gm.reply() == (False, "On branch 'what-if', at #3")
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
        assert refused and said == expected
        # The command line takes any command, and shows its refusal the same way.
        gm.page.keyboard.press("/")
        gm.page.keyboard.type("damage Nobody 3")
        gm.page.keyboard.press("Enter")
        gm.settle()
        assert gm.reply() == (True, Cli(bridge.db, bridge.capsys).fails("damage", "Nobody", "3"))
    assert bridge.ok("log", "--all", "--json") == before


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
        gm = Gm(browser, served)
        labels = gm.page.locator("#pad-options label").all_inner_texts()
        gm.choose("Drake")
        assert gm.page.locator("#pad-options [data-pad='damage'] [data-flag='--with type'] option").all_inner_texts() == \
            ["(none)", "acid", "bludgeoning", "cold", "fire", "force", "lightning", "necrotic", "piercing", "poison",
             "psychic", "radiant", "slashing", "thunder"]  # the thirteen types srd-5.2 declares
        assert gm.tap(["damage", "Drake", "10", "--with", "type=fire"]) == (False, "#14 Drake takes 0 fire damage (52 HP left)")
        assert gm.page.input_value("#pad-options [data-flag='--with type']") == ""
        assert gm.tap(["damage", "Drake", "10"])[0] is False
        assert gm.tap(["heal", "Hauser", "5", "--with", "temp=yes"])[0] is False
        assert gm.page.locator("#pad-options [data-flag='--with temp']").is_checked() is False
        assert gm.page.locator("#undo").inner_text() == "Undo: heal Hauser 5 --with temp=yes"  # the command text recorded
        assert not gm.small_targets(), gm.small_targets()
        assert not gm.errors, gm.errors
    assert any(label.startswith("heal: temp") for label in labels), labels
    state = {c["name"]: c for c in json.loads(cli.ok("state", "--json"))["combatants"]}
    assert state["Drake"]["vital"]["value"] == 42  # 52 - 0 (immune to fire) - 10
    assert (state["Hauser"]["vital"]["value"], state["Hauser"]["own"]["temp"]) == (30, 5)
    assert [line.split(None, 1)[1] for line in cli.ok("log").splitlines()[-3:]] == \
        ["Drake takes 0 fire damage (52 HP left)", "Drake takes 10 damage (42 HP left)", "Hauser has 5 temporary HP"]
