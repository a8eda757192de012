"""The log's words, as a GM reads them: a round (or turn) begins in one shape in every
ruleset; an action taken reads as acting, not as "takes attack" (which reads as damage);
leaving says why once; a refusal of someone who left says so plainly; explain names its
numbers in words, while its --json keeps the paths scripts read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import Cli

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
# The event that starts a round or turn in each sample's ruleset, and the field that counts it.
STARTS = {
    "bridge-ambush": ("ap.round-started", "Round", "round"),
    "courtyard-brawl": ("modular.round-started", "Round", "round"),
    "farmhouse-ambush": ("phases.turn-started", "Turn", "turn"),
    "gatehouse-percent": ("pa.round-started", "Round", "round"),
    "hangar-breach": ("crisis.turn-started", "Turn", "turn"),
    "chapel-drake": ("srd-5.2.round-started", "Round", "round"),
}


def played(cli: Cli, sample: str) -> tuple[list[dict[str, object]], dict[int, str]]:
    """The sample's events on main (log --json) and each one's line in `log`."""
    cli.ok("run", str(SAMPLES / f"{sample}.skirmish"))
    events = [json.loads(line) for line in cli.ok("log", "--json").splitlines()]
    lines: dict[int, str] = {}
    for line in cli.ok("log").splitlines():
        if not line.startswith("#"):
            continue  # a note under its event
        number, _, text = line.partition(" ")
        lines[int(number.lstrip("#"))] = text.strip()
    return events, lines


@pytest.mark.parametrize("sample", sorted(STARTS))
def test_a_round_begins_in_one_shape_in_every_ruleset(cli: Cli, sample: str) -> None:
    kind, unit, field = STARTS[sample]
    events, lines = played(cli, sample)
    starts = [e for e in events if e["kind"] == kind]
    assert starts, f"{sample} starts no {kind}"
    for event in starts:
        line = lines[int(str(event["id"]))]
        assert line.startswith(f"{unit} {event[field]} begins: "), line
        assert "initiative " in line or "order " in line, line


@pytest.mark.parametrize("sample", ["hangar-breach", "farmhouse-ambush", "chapel-drake"])
def test_an_action_taken_reads_as_acting_not_as_taking(cli: Cli, sample: str) -> None:
    events, lines = played(cli, sample)
    taken = [e for e in events if str(e["kind"]).endswith((".action-taken", "srd-5.2.acted"))]
    assert taken
    for event in taken:
        line, who = lines[int(str(event["id"]))], str(event["who"])
        # crisis: an action over 6 AP "starts" (it spans turns); phases: a repeated one
        # "repeats", opportunity fire is told from its phase.
        assert line.startswith((f"{who} acts: ", f"{who} starts ", f"{who} repeats ",
                                f"Phase {event.get('phase')}: {who} fires")), line
        assert f"{who} takes " not in line, line


RULESETS = {
    "ap-countdown": ("--stat", "qu=0", "--stat", "hits=30"),
    "percent-activity": ("--stat", "qu=0", "--stat", "hits=30"),
    "crisis": ("--stat", "int=0", "--stat", "speed=1", "--stat", "endurance=4", "--stat", "health=4"),
    "modular": ("--stat", "agility=20", "--stat", "dodge=10", "--stat", "health=25"),
    "phases": ("--stat", "initiative=3", "--stat", "agility=5"),
    "srd-5.2": ("--stat", "hp=20", "--stat", "ac=12"),
}


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_leaving_says_why_once_and_a_refusal_says_who_left(cli: Cli, ruleset: str) -> None:
    cli.ok("new", "Ford", "--rules", ruleset)
    for name in ("Orc", "Troll", "Hauser"):
        cli.ok("add", name, "--side", "players" if name == "Hauser" else "foes", *RULESETS[ruleset])
    # `leave` without --reason records "leaves the fight" as its reason: said once.
    assert cli.ok("leave", "Orc").splitlines()[0] == "#5 Orc leaves the fight"
    assert cli.ok("leave", "Troll", "--reason", "flees over the bridge").splitlines()[0] == (
        "#6 Troll leaves the fight: flees over the bridge")
    cli.ok("round")
    action = "walk" if ruleset == "phases" else "move"
    refused = cli.fails("declare", "Orc", action)  # srd-5.2 adds the section it cites
    assert refused.removesuffix(" (srd-5.2-combat.md §1)") == "Error: Orc has left the fight: it cannot act until `skirmish return Orc`"


def test_explain_names_its_numbers_in_words_and_its_json_keeps_the_paths(cli: Cli) -> None:
    cli.ok("run", str(SAMPLES / "bridge-ambush.skirmish"))
    # #6 is round 1's start; ap-countdown.md, Initiative: Hauser 6 + 8 + Qu 1 = 15, then
    # + 5 x 4 AP = 35.
    said = cli.ok("explain", "6").splitlines()
    assert "  Hauser's initiative (base): 15 = 2d10 + Qu - 1 per -10 penalty" in said
    assert "  Hauser's initiative (actual): 35 = base + 5 x AP left" in said
    assert not any("[" in line and "]." in line for line in said), said
    figures = [n["figure"] for n in json.loads(cli.ok("explain", "6", "--json"))["numbers"]]
    assert "initiatives[Hauser].base" in figures and "initiatives[Hauser].actual" in figures
    # #2 adds Hauser with Qu 1 and 40 hits (the sample's second line).
    assert "  as recorded: stat qu 1, stat hits 40, stat penalty 0 (no derivation recorded)" in (
        cli.ok("explain", "2").splitlines())
