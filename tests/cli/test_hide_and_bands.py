"""`hide`, `reveal` and `add --hidden` (the same in every ruleset: decided by the engine),
and the players' health bands chosen per encounter with `bands`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from skirmish.cli.main import run_cli

from support.cli import Cli

# One party member and one foe in each ruleset, as the docs' examples add them.
ADDS = {
    "ap-countdown": ("--stat qu=1 --stat hits=40", "--stat qu=0 --stat hits=30"),
    "percent-activity": ("--stat qu=1 --stat hits=40", "--stat qu=0 --stat hits=30"),
    "crisis": ("--stat int=1 --stat speed=2 --stat endurance=10 --stat health=8",
               "--stat int=0 --stat speed=1 --stat endurance=6 --stat health=4"),
    "modular": ("--stat agility=47 --stat dodge=13 --stat health=30", "--stat agility=20 --stat dodge=10 --stat health=25"),
    "phases": ("--stat initiative=4 --stat agility=7 --stat bulk=2", "--stat initiative=6 --stat agility=5 --stat bulk=1"),
}


def ids(reply: str) -> list[int]:
    return [int(n) for n in re.findall(r"^#(\d+) ", reply, re.M)]


def start(cli: Cli, ruleset: str) -> None:
    party, foe = ADDS[ruleset]
    cli.ok("new", "Ambush", "--rules", ruleset)
    cli.ok("add", "Kara", "--side", "players", *party.split())
    cli.ok("add", "Orc", "--side", "foes", *foe.split())


@pytest.mark.parametrize("ruleset", sorted(ADDS))
def test_hide_and_reveal_are_events_undone_and_explained_like_any(cli: Cli, ruleset: str) -> None:
    start(cli, ruleset)
    hid = cli.ok("hide", "orc")  # found as the GM typed it, recorded as stored
    assert hid.splitlines()[0] == f"#{ids(hid)[0]} Orc is hidden from the players"
    assert cli.ok("state").rstrip().splitlines()[-1] == "hidden from the players: Orc"
    assert "Orc is hidden from the players" in cli.ok("log")
    assert cli.ok("explain", str(ids(hid)[0])).startswith(f"#{ids(hid)[0]} Orc is hidden from the players")
    assert cli.fails("hide", "Orc") == "Error: Orc is hidden from the players already (`skirmish reveal Orc` shows it)"
    assert cli.fails("reveal", "Kara") == "Error: Kara is not hidden: the players see it already"
    assert cli.fails("hide", "Nobody").startswith("Error: no combatant named 'Nobody'")
    shown = cli.ok("reveal", "Orc")
    assert shown.splitlines()[0] == f"#{ids(shown)[0]} Orc is revealed to the players"
    assert "hidden from the players" not in cli.ok("state")
    assert cli.ok("undo").startswith("Undid `reveal Orc`")
    assert cli.ok("state").rstrip().splitlines()[-1] == "hidden from the players: Orc"
    cli.ok("undo")
    assert "hidden from the players" not in cli.ok("state")


def test_add_hidden_hides_each_combatant_before_it_joins(cli: Cli) -> None:
    start(cli, "ap-countdown")
    reply = cli.ok("add", "Goblin", "--side", "foes", "--stat", "qu=0", "--stat", "hits=10", "--count", "2", "--hidden")
    lines = [line.split(" ", 1)[1] for line in reply.splitlines() if line.startswith("#")]
    assert lines == [
        "Goblin 1 joins hidden from the players (`skirmish reveal Goblin 1` shows it)",
        "Goblin 2 joins hidden from the players (`skirmish reveal Goblin 2` shows it)",
        "Goblin 1 joins the foes side (qu 0, hits 10, penalty 0)",
        "Goblin 2 joins the foes side (qu 0, hits 10, penalty 0)",
    ]
    assert cli.ok("state").rstrip().splitlines()[-1] == "hidden from the players: Goblin 1, Goblin 2"
    assert cli.ok("undo").startswith("Undid `add Goblin")  # one command: all four events
    assert "Goblin" not in cli.ok("state")


def players_rows(db: str, tmp_path: Path, name: str) -> list[tuple[str, object]]:
    """The narration and the combatant's vital figure (a band) at each step of the players' page."""
    out = tmp_path / "players.html"
    assert run_cli(["--db", db, "export", "--format", "html", "--for", "players", "--out", str(out)]) == 0
    found = re.search(rb'<script type="application/json" id="replay-data">(.*?)</script>', out.read_bytes(), re.S)
    assert found is not None
    data = json.loads(found.group(1))
    rows, key, shown = [], None, None
    for entry in data["events"]:
        for k, row in entry[4].get("c", {}).items():
            if row.get("n") == name:
                key = k
            if k == key and "v" in row:
                shown = row["v"]
        rows.append((data["strings"][entry[3]], shown))
    return rows


def test_the_gm_chooses_the_bands_the_players_see(cli: Cli, tmp_path: Path) -> None:
    start(cli, "ap-countdown")
    cli.ok("damage", "Orc", "10")  # 20 of 30: 66 % left
    reply = cli.ok("bands", "fresh", "scratched=100", "bloodied=50", "near death=15")
    assert reply.splitlines()[0].endswith(
        "The players' health bands for foes: fresh (at full), scratched (below full), "
        "bloodied (at or below 50%), near death (at or below 15%), down")
    cli.ok("damage", "Orc", "6")  # 14 of 30: 14 x 100 <= 30 x 50, above 30 x 15
    cli.ok("damage", "Orc", "10")  # 4 of 30: 4 x 100 <= 30 x 15
    rows = players_rows(cli.db, tmp_path, "Orc")
    # Before the bands event the default ones: 20 of 30 is above 50 %: hurt.
    assert [band for _, band in rows[-4:]] == ["hurt", "scratched", "bloodied", "near death"]
    assert rows[-3][0].startswith("Foes are shown as fresh (at full), scratched (below full)")
    # Undone, the defaults again: 4 of 30 is at or below 50 %.
    cli.ok("undo", "3")
    cli.ok("damage", "Orc", "16")
    assert players_rows(cli.db, tmp_path, "Orc")[-1][1] == "badly hurt"


@pytest.mark.parametrize(("words", "error"), [
    (["fresh", "bloodied=50"], "Error: one band must be at 100 (just hurt), so that every foe below full has one"),
    (["fresh", "scratched=100", "bloodied=0"], "Error: band 'bloodied' takes a percent from 1 to 100, not 0"),
    (["fresh", "scratched=100", "down=20"], "Error: each band needs its own label, and 'down' is the band of the down"),
    (["fresh", "scratched=100", "bloodied=100"], "Error: each band needs its own percent"),
    (["fresh", "scratched"], "Error: a band is LABEL=PERCENT, not 'scratched'"),
    (["fresh", "scratched=most"], "Error: band 'scratched' takes a whole percent, not 'most'"),
])
def test_bands_that_cannot_band_every_foe_are_refused(cli: Cli, words: list[str], error: str) -> None:
    start(cli, "ap-countdown")
    assert cli.fails("bands", *words) == error


def test_add_from_a_stat_block_hidden_never_shows_the_players_it_joining(cli: Cli, tmp_path: Path) -> None:
    # Issue 39, finding 5: an ambusher imported --from a JSON stat block joins hidden, as a
    # typed one does; the players' page and report never say it joined.
    cli.ok("new", "Causeway", "--rules", "srd-5.2")
    cli.ok("add", "Mira", "--side", "party", "--stat", "hp=22", "--stat", "ac=15")
    lurker = Path(__file__).resolve().parents[1] / "fixtures" / "imports" / "5e-database-2014.json"
    reply = cli.ok("add", "Bog Lurker", "--from", str(lurker), "--hidden")
    events = [line.split(" ", 1)[1] for line in reply.splitlines() if line.startswith("#")]
    assert events[0] == "Bog Lurker joins hidden from the players (`skirmish reveal Bog Lurker` shows it)"
    assert events[1].startswith("Bog Lurker joins the foes side")
    assert cli.ok("state").rstrip().splitlines()[-1] == "hidden from the players: Bog Lurker"
    assert all("Bog Lurker" not in text for text, _ in players_rows(cli.db, tmp_path, "Bog Lurker"))
    report = tmp_path / "players.md"
    assert run_cli(["--db", cli.db, "export", "--format", "md", "--for", "players", "--out", str(report)]) == 0
    assert "Bog Lurker" not in report.read_text()
