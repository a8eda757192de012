"""The players' replay page, exported or served, never shows a foe's stats or own figures
(any ruleset); the GM's page lists every branch, one with no events of its own too."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.main import run_cli

from support.cli import Cli

ROOT = Path(__file__).resolve().parents[2]
BANDS = {"unhurt", "hurt", "badly hurt", "down"}  # docs/browser.md


@dataclass(frozen=True)
class Foe:
    name: str
    side: str
    typed: tuple[str, ...]  # its `--stat K=V` as the sample's `add` line types them
    # Its ruleset's own figures as it joins, worked out from the add line and the rules text
    figures: dict[str, str] = field(default_factory=dict)


SAMPLES: dict[str, tuple[Foe, ...]] = {
    # ap-countdown.md: the hits typed are the foe's hits; it has taken no damage yet.
    "bridge-ambush": (
        Foe("Orc", "foes", ("qu=0", "hits=30"), {"hits": "30", "damage": "0"}),
        Foe("Archer", "foes", ("qu=1", "hits=24", "penalty=-10"), {"hits": "24", "damage": "0"}),
    ),
    # modular.md: Speed = 30 + 5 x floor(Agility / 10) = 30 + 5 x 2 = 40; the dodge class
    # is the dodge typed; the health typed.
    "courtyard-brawl": (
        Foe("Orc", "foes", ("agility=20", "dodge=10", "health=25"),
            {"health": "25", "dodge class": "10", "speed": "40", "damage": "0"}),
    ),
    # phases.md: Agility less bulk orders a phase's callers; a character acts in every phase
    # numbered at or below its Initiative (6 down to 1), which gives that figure away.
    "farmhouse-ambush": (
        Foe("Rook", "foes", ("initiative=3", "agility=5"), {"agility less bulk": "5", "acts in": "3, 2, 1"}),
        Foe("Vance", "foes", ("initiative=4", "agility=6", "bulk=2"),
            {"agility less bulk": "4", "acts in": "4, 3, 2, 1"}),
        Foe("Sarge", "foes", ("initiative=6", "agility=4", "bulk=2"),
            {"agility less bulk": "2", "acts in": "6, 5, 4, 3, 2, 1"}),
    ),
    # crisis.md, Damage: damage goes to Endurance first; an armour's Durability is typed
    # (none typed: none).
    "hangar-breach": (
        Foe("Alpha", "foes", ("int=0", "speed=1", "endurance=4", "health=4", "melee=1"),
            {"endurance": "4", "durability": "0"}),
        Foe("Beta", "foes", ("int=0", "speed=1", "endurance=4", "health=4", "melee=1", "armour=2", "dr=1",
                             "durability=2"),
            {"endurance": "4", "durability": "2"}),
    ),
    # percent-activity.md: no hits taken yet, so not wounded (more than 50 % taken).
    "gatehouse-percent": (
        Foe("Orc", "foes", ("qu=0", "hits=30"), {"damage": "0", "wounded": "no"}),
    ),
}
# The two ways a players' page reaches the table: a file handed out, and `skirmish serve`.
VIA = ("export", "serve")


@dataclass(frozen=True)
class Step:
    """One event of the page as replay.js reads it."""

    id: int
    text: str  # its narration
    delta: dict[str, Any]  # the view's change
    explanation: list[str]


def page_data(html: bytes) -> dict[str, Any]:
    """The data the page's script reads (the JSON in its `replay-data` element)."""
    found = re.search(rb'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S)
    assert found is not None, "the page holds no data"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def steps(data: dict[str, Any]) -> list[Step]:
    """Every event of every branch, as replay.js's load() decodes them: ids as steps from
    the one before, texts by their index in the strings."""
    out, event_id, table = [], 0, data["strings"]
    for entry in data["events"]:
        event_id += entry[0]
        lines = [table[part] if isinstance(part, int) else ", ".join(table[i] for i in part)
                 for part in entry[5] or []]
        out.append(Step(event_id, table[entry[3]], entry[4], lines))
    return out


def exported(db: Path, audience: str) -> bytes:
    page = db.with_name(f"{audience}.html")
    if not page.exists():
        assert run_cli(["--db", str(db), "export", "--format", "html", "--for", audience, "--out", str(page)]) == 0
    return page.read_bytes()


def served(db: Path, audience: str) -> bytes:
    """The page `skirmish serve --for AUDIENCE` answers a browser's GET / with (its live
    updates carry the same data)."""
    from skirmish.cli import live
    from skirmish.projections.page import data as page_data

    follower = live.Follower(str(db), page_data.audience(audience), page_data.Bands())
    follower.start()
    try:
        # On a thread of its own: Playwright's sync API keeps an event loop on this one.
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, _get(live.app(follower), "/")).result(timeout=30)
    finally:
        follower.stop()
        follower.thread.join(timeout=10)


async def _get(app: Any, path: str) -> bytes:
    """One GET straight through the ASGI app: what the server would write back."""
    body: list[bytes] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 200
        elif message["type"] == "http.response.body":
            body.append(message.get("body", b""))

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(b"host", b"127.0.0.1:8000")],  # a browser always names the host it asked
             "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 50000)}
    await app(scope, receive, send)
    return b"".join(body)


def page(db: Path, audience: str, via: str) -> dict[str, Any]:
    return page_data(exported(db, audience) if via == "export" else served(db, audience))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each sample played once."""
    out: dict[str, Path] = {}
    for sample in SAMPLES:
        db = tmp_path_factory.mktemp(sample) / "fight.db"
        assert run_cli(["--db", str(db), "run", str(ROOT / "samples" / f"{sample}.skirmish")]) == 0
        out[sample] = db
    return out


def joined(data: dict[str, Any], foe: Foe) -> Step:
    """The event that narrates the foe joining (it names the foe and its side first)."""
    found = [s for s in steps(data) if s.text.startswith(f"{foe.name} joins the {foe.side} side")]
    assert len(found) == 1, [s.text for s in found]
    return found[0]


CASES = [pytest.param(sample, via, id=f"{sample}-{via}") for sample in SAMPLES for via in VIA]


@pytest.mark.parametrize(("sample", "via"), CASES)
def test_players_never_read_a_foes_stats_in_the_line_of_it_joining(played: dict[str, Path], sample: str,
                                                                    via: str) -> None:
    db = played[sample]
    gm, players = page(db, "gm", "export"), page(db, "players", via)
    for foe in SAMPLES[sample]:
        shown = [stat.replace("=", " ") for stat in foe.typed]  # `--stat qu=0` reads "qu 0"
        # The GM's line of the join carries each stat as typed: the test looks in the right place.
        line = joined(gm, foe)
        assert all(stat in line.text for stat in shown), (line.text, shown)
        # The players' page still narrates the join (the same event), with no figure of it.
        told = joined(players, foe)
        assert told.id == line.id
        for text in (told.text, *told.explanation):
            assert not any(stat in text for stat in shown), text
            assert not re.search(r"\d", text), text  # no foe's name holds a digit: any is a figure


def rows_of(data: dict[str, Any], name: str) -> Iterator[dict[str, Any]]:
    """Every change to the combatant's row the page holds, on every branch: a figure the
    page shows at some step of some branch came in one of these (replay.js folds them)."""
    key = next(k for s in steps(data) for k, row in s.delta.get("c", {}).items() if row.get("n") == name)
    for s in steps(data):
        if key in s.delta.get("c", {}):
            yield s.delta["c"][key]


def figure_keys(data: dict[str, Any]) -> dict[str, str]:
    """Each own figure's label -> its key in a row ("o0", "o1", ...: data["figures"] names them)."""
    return {label: f"o{i}" for i, label in enumerate(data["figures"])}


@pytest.mark.parametrize(("sample", "via"), CASES)
def test_players_never_see_a_foes_own_figures_at_any_step(played: dict[str, Path], sample: str, via: str) -> None:
    db = played[sample]
    gm, players = page(db, "gm", "export"), page(db, "players", via)
    gm_keys, players_keys = figure_keys(gm), figure_keys(players)
    for foe in SAMPLES[sample]:
        # The GM's page shows the figures worked out by hand as the foe joins.
        first = next(rows_of(gm, foe.name))
        assert {label: first.get(gm_keys[label]) for label in foe.figures} == foe.figures
        hidden = {players_keys[label] for label in foe.figures if label in players_keys}
        changes = list(rows_of(players, foe.name))
        assert changes, f"{foe.name} is not on the players' board"
        for row in changes:
            assert not hidden & set(row), {label: row[key] for label, key in players_keys.items() if key in row}
            # The vital figure as a band, its maximum left out.
            assert row.get("v", "unhurt") in BANDS and row.get("vm") is None, row


def test_the_samples_foes_are_every_foe_they_add() -> None:
    """The tables above cover each foe a sample adds: a foe added later is not left out."""
    for sample, foes in SAMPLES.items():
        script = (ROOT / "samples" / f"{sample}.skirmish").read_text()
        added = re.findall(r"^add (\S+) --side (?!players)\S+", script, re.M)
        assert added == [f.name for f in foes], sample


# --- branches ---------------------------------------------------------------------------------


def last_id(reply: str) -> int:
    """The id of the last event a command's reply lists (`#17 ...`)."""
    ids = re.findall(r"^#(\d+) ", reply, re.M)
    assert ids, reply
    return int(ids[-1])


@pytest.fixture
def tree(cli: Cli) -> tuple[Cli, dict[str, int]]:
    """A fight on main; `charge` with events of its own, `charge-again` nested in it with
    events too; `what-if` and `idle-again` made at main's and charge-again's heads with none.
    Each branch's head, by the ids the commands' replies give their events."""
    cli.ok("new", "Ford", "--rules", "ap-countdown")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    start = last_id(cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5"))
    heads: dict[str, int] = {}
    cli.ok("branch", "charge", "--at", str(start))
    cli.ok("switch", "charge")
    cli.ok("damage", "Orc", "3")
    cli.ok("branch", "charge-again")
    cli.ok("switch", "charge-again")
    heads["charge-again"] = heads["idle-again"] = last_id(cli.ok("damage", "Orc", "2"))
    cli.ok("branch", "idle-again")  # at charge-again's head
    cli.ok("switch", "charge")
    heads["charge"] = last_id(cli.ok("damage", "Orc", "4"))
    cli.ok("switch", "main")
    heads["main"] = heads["what-if"] = last_id(cli.ok("damage", "Orc", "5"))
    cli.ok("branch", "what-if")  # at main's head: nothing of its own
    return cli, heads


@pytest.mark.slow
@pytest.mark.parametrize("via", VIA)
def test_the_gms_page_lists_a_branch_made_at_the_head_with_no_events(browser: Any, tree: tuple[Cli, dict[str, int]],
                                                                     via: str, tmp_path: Path) -> None:
    cli, heads = tree
    db = Path(cli.db)
    html = exported(db, "gm") if via == "export" else served(db, "gm")
    # Opened as a file (a served page's stream then has nothing to reach: its branch list
    # comes from the data it was served with).
    file = tmp_path / "shown.html"
    file.write_bytes(html)
    tab = browser.new_page(viewport={"width": 1000, "height": 900})
    errors: list[str] = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    try:
        tab.goto(file.as_uri())
        picker = tab.get_by_label("Branch", exact=True)
        listed = picker.locator("option").evaluate_all("options => options.map(o => o.value)")
        assert sorted(listed) == sorted(heads)
        # On main, the branch made at its head splits after main's last event, with a button.
        splits = tab.inner_text("#splits")
        assert f"what-if splits after #{heads['main']}" in splits
        assert tab.get_by_role("button", name="Switch to what-if").count() == 1
        # Each branch picked shows its own head as the last event.
        for name, head in heads.items():
            picker.select_option(name)  # the page shows the branch at its head
            assert tab.inner_text("#position").startswith(f"#{head} "), name
        picker.select_option("what-if")
        assert f"this branch splits from main after #{heads['main']}" in tab.inner_text("#splits")
        assert errors == []
    finally:
        tab.close()
