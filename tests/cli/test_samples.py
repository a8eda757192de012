"""Every file in samples/ plays to the end; the bridge ambush ends where its comments say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter

from support.cli import Cli

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.skirmish"))


def test_there_are_samples() -> None:
    assert SAMPLES


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.name for s in SAMPLES])
def test_sample_plays_to_the_end(cli: Cli, sample: Path) -> None:
    cli.ok("run", str(sample))
    assert cli.err == ""
    cli.ok("verify")
    # Replaying the stored log gives the state the live commands left. The typed view is read
    # through the library: the CLI does not print it yet (`state --json`).
    store = Store(cli.db)
    try:
        view = Encounter.open(store).view()
    finally:
        store.close()
    assert view.head == view.at


def test_bridge_ambush_ends_as_its_comments_say(cli: Cli) -> None:
    cli.ok("run", str(next(s for s in SAMPLES if s.name == "bridge-ambush.skirmish")))
    assert "Hauser's stunned not reduced: Hauser had spent 4 AP before being stunned" in cli.out
    assert "Mira resolves ranged-attack on Archer at 38, 0 AP: hit: 7 hits" in cli.out
    assert "Orc parries Hauser's attack: 4 AP spent on the melee attack" in cli.out
    assert "Archer puts 4 AP into ammo-reload (4 of 6)" in cli.out
    view = json.loads(cli.ok("state", "--json"))
    assert view["clock"]["round"] == 3 and view["branch"] == "main"
    figures = {c["name"]: c for c in view["combatants"]}
    # Orc: 12 (Hauser) + 3 x 2 bleeding + 9 + 2 x 2 (charge) = 31 of 30 hits.
    assert figures["Orc"]["own"]["damage"] == 31 and figures["Orc"]["vital"] == {
        "name": "hits left", "value": -1, "maximum": 30}
    assert [(e["kind"], e["left"], e["detail"]) for e in figures["Orc"]["effects"]] == [
        ("bleeding", None, "2 a round"), ("dazed", 1, ""),
    ]
    # The 16 typed by mistake was undone: Hauser took only the Orc's 6.
    assert figures["Hauser"]["own"]["damage"] == 6 and figures["Hauser"]["effects"] == []
    assert figures["Archer"]["vital"]["value"] == 13
    assert "Hauser takes 16 hits (18 left)  (undone)" in cli.ok("log", "--all")
    # The what-if branch kept its staggered Orc; main never saw it.
    branches = {b["name"]: b for b in json.loads(cli.ok("branches", "--json"))}
    assert set(branches) == {"main", "what-if"}
    what_if = json.loads(cli.ok("state", "--json", "--at", str(branches["what-if"]["head"])))
    assert "staggered" in [e["kind"] for e in next(
        c for c in what_if["combatants"] if c["name"] == "Orc")["effects"]]
