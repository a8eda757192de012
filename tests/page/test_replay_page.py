"""The replay page in real Chromium (Playwright driving Debian's chromium), in every ruleset:
scrub, step and switch branch; the players' version hides the GM's secrets; no console
errors; nothing wider than a 400 px phone; the served page follows the CLI within 2 s.

Every figure expected on the board is worked by hand from the sample's script and its
rules text (the comments say how). One browser serves the whole module."""

from __future__ import annotations

import json
import re
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.main import run_cli

from support.served import free_port


pytestmark = pytest.mark.slow  # Chromium and a live server: `pytest -m "not slow"` leaves it out

playwright_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Fight:
    sample: str
    # (event id, combatant, its board line, damage it has taken) after that event on main:
    # reached by stepping (the first damage of the fight: none taken the event before)
    stepped: tuple[int, str, str, int]
    # (combatant, board line, damage taken so far) at main's head
    head: tuple[str, str, int]
    # (combatant, a text its card shows) at the what-if branch's head
    what_if: tuple[str, str]
    # a foe and the band the players see at main's head; an exact figure that must not show
    band: tuple[str, str, str]
    # the command the live page follows, and what then shows in the combatant's card
    live: tuple[list[str], str, str]


FIGHTS = [
    # ap-countdown.md: Hauser's hit at count 20 (#20) takes the Orc from 30 to 18 hits; by
    # the end Hauser 12 + 9 + 2 + 4 (charge) and bleeding 3 x 2 leave it at -1 (31 taken),
    # down at 0 (goes-down). The what-if staggers the Orc. `damage Hauser 5`: 34 - 5 = 29.
    Fight("bridge-ambush", (20, "Orc", "hits left: 18/30", 12), ("Orc", "hits left: -1/30", 31),
          ("Orc", "staggered"), ("Orc", "hits left: down", "-1/30"),
          (["damage", "Hauser", "5"], "Hauser", "hits left: 29/40")),
    # modular.md: `damage Orc 6` (#11, after the undone 16) leaves 19 of 25; then 8 from
    # Mira: 11, badly hurt to the players (11 <= 50 % of 25). The what-if: the Orc
    # dashes. `damage Hauser 5`: 30 - 5 = 25.
    Fight("courtyard-brawl", (11, "Orc", "health left: 19/25", 6), ("Orc", "health left: 11/25", 14),
          ("Orc", "fighting"), ("Orc", "health left: badly hurt", "11/25"),
          (["damage", "Hauser", "5"], "Hauser", "health left: 25/30")),
    # phases.md: Rook's slight wound (#13) takes his initiative from 3 to 2; with the
    # serious wound (worst counts: -3) it is 0 and he is out; 2 wounds taken. Vance's
    # slight wound leaves 3 of 4: hurt to the players. The what-if: Vance runs. A slight wound on Bauer: initiative 4 - 1 = 3.
    Fight("farmhouse-ambush", (13, "Rook", "Initiative: 2/3", 1), ("Rook", "Initiative: 0/3", 2),
          ("Vance", "fighting"), ("Vance", "Initiative: hurt", "3/4"),
          (["effect", "Bauer", "slight-wound"], "Bauer", "Initiative: 3/4")),
    # crisis.md, Damage: Vera's 6 (#9) goes to Alpha's 4 Endurance, Health stays 4/4; then
    # Jack's 6 reach Health: -2, dead (down to the players), 10 taken in all. The what-if stuns Beta. Stunning
    # Vera shows on her card.
    Fight("hangar-breach", (9, "Alpha", "Health: 4/4", 4), ("Alpha", "Health: -2/4", 10),
          ("Beta", "stunned"), ("Alpha", "Health: down", "-2/4"),
          (["effect", "Vera", "stunned"], "Vera", "stunned")),
    # percent-activity.md: Hauser's 12 (#8) leave the Orc 18 of 30; with Mira's 6 and 2
    # bleeding at each of two upkeeps it ends at 8 (22 taken), badly hurt (8 <= 50 % of 30).
    # The what-if's 10 take it from 10 to 0. `damage Hauser 5`: 32 - 5 = 27.
    Fight("gatehouse-percent", (8, "Orc", "hits left: 18/30", 12), ("Orc", "hits left: 8/30", 22),
          ("Orc", "hits left: 0/30"), ("Orc", "hits left: badly hurt", "8/30"),
          (["damage", "Hauser", "5"], "Hauser", "hits left: 27/40")),
]
IDS = [f.sample for f in FIGHTS]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each sample played once, with a private note and a public one on its first event."""
    out: dict[str, Path] = {}
    for f in FIGHTS:
        db = tmp_path_factory.mktemp(f.sample) / "fight.db"
        assert run_cli(["--db", str(db), "run", str(ROOT / "samples" / f"{f.sample}.skirmish")]) == 0
        assert run_cli(["--db", str(db), "note", "1", "the GM's secret: reinforcements at round 3", "--private"]) == 0
        assert run_cli(["--db", str(db), "note", "1", "played on the bridge map"]) == 0
        out[f.sample] = db
    return out


class Page:
    """A browser tab on one page, with its console errors."""

    def __init__(self, browser: Any, width: int = 400) -> None:
        self.tab = browser.new_page(viewport={"width": width, "height": 900})
        self.tab.set_default_timeout(5000)
        self.errors: list[str] = []
        self.tab.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.tab.on("pageerror", lambda e: self.errors.append(str(e)))
        self.tab.on("dialog", lambda d: (self.errors.append(f"dialog: {d.message}"), d.dismiss()))

    def card(self, name: str) -> str:
        text: str = self.tab.locator("#board li").filter(has=self.tab.get_by_text(name, exact=True)).inner_text()
        return text

    def position(self) -> str:
        text: str = self.tab.inner_text("#position")
        return text

    def summary(self, name: str) -> list[str]:
        cells: list[str] = self.tab.locator("#summary tr").filter(
            has=self.tab.get_by_text(name, exact=True)).locator("td").all_inner_texts()
        return cells

    def close(self) -> None:
        self.tab.close()


def export(db: Path, audience: str) -> Path:
    page = db.with_name(f"{audience}.html")
    if not page.exists():
        assert run_cli(["--db", str(db), "export", "--format", "html", "--for", audience, "--out", str(page)]) == 0
    return page


@pytest.mark.parametrize("fight", FIGHTS, ids=IDS)
def test_scrub_step_and_switch_branch(browser: Any, played: dict[str, Path], fight: Fight) -> None:
    page = Page(browser)
    tab = page.tab
    tab.goto(export(played[fight.sample], "gm").as_uri())
    assert page.position().startswith("#1 (1 of ")
    # Step with the keyboard (and the button) until the event worked out by hand.
    event, name, line, so_far = fight.stepped
    tab.locator("body").press("ArrowRight")
    assert page.position().startswith("#2 ")
    tab.get_by_role("button", name="Step forward").click()
    for _ in range(200):
        if page.position().startswith(f"#{event} "):
            break
        tab.keyboard.press("ArrowRight")
    assert page.position().startswith(f"#{event} ")
    assert line in page.card(name)
    assert page.summary(name)[-1] == str(so_far)
    tab.keyboard.press("ArrowLeft")
    assert page.summary(name)[-1] == "0"  # the event before it: not yet
    # Scrub: the range to its last position is main's head.
    scrub = tab.get_by_label(re.compile("^Event"))
    total = int(scrub.get_attribute("max"))
    scrub.evaluate("(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", str(total))
    who, vital, taken = fight.head
    assert vital in page.card(who)
    assert page.summary(who)[-1] == str(taken)
    # Back to the middle by scrubbing, then switch to the what-if branch: its own head.
    scrub.evaluate("(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", "0")
    assert page.position().startswith("#1 ")
    tab.get_by_label("Branch", exact=True).select_option("what-if")
    who, text = fight.what_if
    assert text in page.card(who)
    assert "this branch splits from main" in tab.inner_text("#splits")
    tab.get_by_role("button", name="Back to main").click()
    assert tab.get_by_label("Branch", exact=True).input_value() == "main"
    # The explanation, on demand.
    explain = tab.get_by_role("button", name="Explain")
    assert tab.locator("#explanation").is_hidden()
    explain.click()
    assert explain.get_attribute("aria-expanded") == "true"
    assert "command: " in tab.inner_text("#explanation")
    # Nothing runs off a phone's screen; nothing went wrong.
    assert tab.evaluate("document.documentElement.scrollWidth") <= 400
    assert page.errors == []
    page.close()


@pytest.mark.parametrize("fight", FIGHTS, ids=IDS)
def test_players_version_hides_the_secrets(browser: Any, played: dict[str, Path], fight: Fight) -> None:
    db = played[fight.sample]
    html = export(db, "players").read_text()
    gm = export(db, "gm").read_text()
    digest = re.search(r'"digest":"([0-9a-f]{64})"', gm)
    assert digest is not None and digest.group(1) not in html
    assert "reinforcements at round 3" in gm and "reinforcements at round 3" not in html
    data = html.split('id="replay-data">')[1].split("</script>")[0]
    shown = json.loads(data)
    assert {"seed", "digest", "commands"}.isdisjoint(shown) and shown["audience"] == "players"
    assert "dice seed" not in data and "2026" not in data  # the samples' seed
    page = Page(browser, width=1400)
    page.tab.goto(Path(db.with_name("players.html")).as_uri())
    page.tab.keyboard.press("End")
    foe, band, exact = fight.band
    assert band in page.card(foe) and exact not in page.card(foe)
    assert exact not in page.tab.inner_text("body")
    page.tab.keyboard.press("Home")
    assert "played on the bridge map" in page.tab.inner_text("#notes")
    assert page.errors == []
    page.close()


def test_hostile_names_and_notes_stay_text(browser: Any, tmp_path: Path) -> None:
    db = str(tmp_path / "hostile.db")
    evil = "<img src onerror alert(1)>"  # names take no '=' (they split --roll NAME=FACES)
    for line in (["new", "</script><script>alert(2)</script>", "--rules", "ap-countdown"],
                 ["add", evil, "--side", "players", "--stat", "qu=1", "--stat", "hits=30"],
                 ["damage", evil, "5"],
                 ["note", "2", "\u2028</script><b>&amp; bold</b>"]):
        assert run_cli(["--db", db, *line]) == 0
    page_file = tmp_path / "hostile.html"
    assert run_cli(["--db", db, "export", "--format", "html", "--out", str(page_file)]) == 0
    raw = page_file.read_text()
    data = raw.split('id="replay-data">')[1].split("</script>")[0]
    assert "<" not in data and ">" not in data and "&" not in data and "\u2028" not in data
    page = Page(browser)
    page.tab.goto(page_file.as_uri())
    page.tab.keyboard.press("End")
    # 30 hits, 5 taken: 25 left, shown as the name's own text.
    assert "hits left: 25/30" in page.card(evil)
    page.tab.keyboard.press("Home")
    page.tab.keyboard.press("ArrowRight")
    assert "</script><b>&amp; bold</b>" in page.tab.inner_text("#notes")
    assert page.tab.locator("#board img, #notes b").count() == 0
    assert page.tab.title() == "</script><script>alert(2)</script>: replay"
    assert page.errors == []
    page.close()


@pytest.mark.parametrize("fight", FIGHTS, ids=IDS)
def test_live_page_follows_the_cli_within_two_seconds(browser: Any, played: dict[str, Path], fight: Fight,
                                                      tmp_path: Path) -> None:
    import uvicorn

    from skirmish.cli import live
    from skirmish.projections.page import data as page_data

    db = tmp_path / "live.db"
    shutil.copy(played[fight.sample], db)
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
        page = Page(browser)
        page.tab.goto(f"http://127.0.0.1:{port}/")
        page.tab.wait_for_function("document.getElementById('live').textContent.includes('following')")
        command, who, shown = fight.live
        assert shown not in page.card(who)
        assert run_cli(["--db", str(db), *command]) == 0
        started = time.monotonic()
        page.tab.wait_for_function(
            "([who, shown]) => Array.from(document.querySelectorAll('#board li')).some("
            "li => li.querySelector('.name').textContent.endsWith(who) && li.textContent.includes(shown))",
            arg=[who, shown], timeout=2000,
        )
        assert time.monotonic() - started < 2
        assert page.errors == []
        page.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_a_long_fight_summarises_its_start(browser: Any, played: dict[str, Path], tmp_path: Path) -> None:
    """Past the limit the page starts later, from the board as it stood; the totals still
    count the damage before it (bridge ambush: the Orc ends at -1 of 30, 31 taken)."""
    from skirmish.eventlog.store import Store
    from skirmish.projections.write.engine import Encounter
    from skirmish.projections.page import data as page_data
    from skirmish.projections.page import shell as page_shell

    store = Store(str(played["bridge-ambush"]))
    data = page_data.build(Encounter.open(store), most=30)
    store.close()
    assert data["summarised"].before > 20  # the Orc's first 12 hits (#20) are folded in
    page_file = tmp_path / "short.html"
    page_file.write_bytes(page_shell.html(data))
    page = Page(browser)
    page.tab.goto(page_file.as_uri())
    assert "Long fight" in page.tab.inner_text("#summarised")
    page.tab.keyboard.press("End")
    assert "hits left: -1/30" in page.card("Orc") and page.summary("Orc")[-1] == "31"
    assert page.errors == []
    page.close()


def test_crisis_cards_show_endurance_beside_health(browser: Any, played: dict[str, Path]) -> None:
    """crisis.md, Damage: Endurance takes damage first. At main's head Jack's Endurance is 10
    less Beta's 7 after DR 2: 5 of 10; Alpha's 4 went to Vera's shot: 0 of 4, and Alpha is
    dead, so the players see its Endurance as down, as its Health."""
    db = played["hangar-breach"]
    for audience, alpha in (("gm", "Endurance: 0/4"), ("players", "Endurance: down")):
        page = Page(browser)
        page.tab.goto(export(db, audience).as_uri())
        page.tab.keyboard.press("End")
        assert "Health: 8/8" in page.card("Jack") and "Endurance: 5/10" in page.card("Jack")
        assert alpha in page.card("Alpha")
        assert "Endurance 10 → 5" in page.tab.inner_text("#summary")
        assert page.errors == []
        page.close()
