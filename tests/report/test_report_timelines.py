"""The report's timeline columns are the clock's moments, in every ruleset.

Each column header is one moment of the round (the view's ``clock.moment``), in the
order the sample's comments work out from its dice and rules text: no name doubled, no
count or phase standing alone, no two labels run together.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support.cli import Cli

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def timelines(cli: Cli, sample: str) -> list[list[str]]:
    """Each round's timeline headers from the Markdown report, split on the two spaces
    (at least) that separate columns."""
    cli.ok("run", str(SAMPLES / sample))
    lines = cli.ok("export", "--format", "md").splitlines()
    return [re.split(r"\s{2,}", line.strip())[1:] for line in lines if line.startswith("moment ")]


def test_modular_columns_are_whose_turn_in_initiative_order(cli: Cli) -> None:
    # courtyard-brawl.skirmish, round 1: Hauser 40 + 47 = 87, Mira 20 + 35 = 55, Orc 35 + 20
    # = 55, Mira first on the tie by Agility (modular.md, Combat Rules, Initiative).
    first = timelines(cli, "courtyard-brawl.skirmish")[0]
    assert first == ["before the first turn", "Hauser's turn", "Mira's turn", "Orc's turn", "after round 1"]


def test_percent_activity_columns_are_whose_turn_high_to_low(cli: Cli) -> None:
    # gatehouse-percent.skirmish, round 1: Hauser 19, Mira 17, Orc 6 (percent-activity.md).
    first = timelines(cli, "gatehouse-percent.skirmish")[0]
    assert first == ["Hauser's turn", "Mira's turn", "Orc's turn", "between rounds"]


def test_crisis_columns_skip_the_dead(cli: Cli) -> None:
    # hangar-breach.skirmish: turn 1 is Vera's surprise round; in turn 2 Jack (18), Vera
    # (15), then Alpha is dead and skipped, then Beta (crisis.md, Turn Order, Damage).
    rounds = timelines(cli, "hangar-breach.skirmish")
    assert rounds[0][0] == "surprise round, Vera's turn"
    assert rounds[1][:3] == ["Jack's turn", "Vera's turn", "Beta's turn"]
    assert not any("Alpha" in label for label in rounds[1])


def test_phases_columns_are_phase_and_call(cli: Cli) -> None:
    # farmhouse-ambush.skirmish: the GM calls phases 6 down to 1 and, within each, the
    # initiative numbers from the phase's own (phases.md); Sarge (6) is called first.
    first = timelines(cli, "farmhouse-ambush.skirmish")[1]
    assert first[:2] == ["phase 6, start", "phase 6, call 6"]
    phases = [int(m.group(1)) for label in first if (m := re.match(r"phase (\d), (start|call \d)$", label))]
    assert phases == sorted(phases, reverse=True) and len(phases) == len(first) - 1
    assert first[-1] == "between turns"


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.skirmish")))
def test_no_header_repeats_a_word_back_to_back(cli: Cli, sample: str) -> None:
    """The old garbling: "Lena Lena, ...", "1 Jack Jack ..." (a name per column and row)."""
    for headers in timelines(cli, sample):
        for label in headers:
            words = label.replace(",", "").split()
            assert all(a != b for a, b in zip(words, words[1:], strict=False)), label


def test_ap_countdown_columns_are_the_counts(cli: Cli) -> None:
    # bridge-ambush.skirmish, round 1: Hauser 35 declares; the counts down to the last
    # resolution at 9, then the upkeep (ap-countdown.md, Initiative, Resolution, Upkeep).
    first = timelines(cli, "bridge-ambush.skirmish")[0]
    assert first[0] == "count 35" and first[-1] == "after round 1"
    counts = [int(label.split()[1]) for label in first[:-1]]
    assert counts == sorted(counts, reverse=True) and all(label.startswith("count ") for label in first[:-1])
