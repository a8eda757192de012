"""What the docs say about a number is what the code does: crisis's sneak is not rounded
(its docstring said "rounded down"), and `log --json`'s `per` is documented in the tutorial,
not only in a comment."""

from __future__ import annotations

import json
import re
from pathlib import Path

from skirmish.projections.rulesets import crisis

from support.cli import Cli

README = (Path(__file__).resolve().parents[2] / "docs" / "tutorial.md").read_text(encoding="utf-8")


def test_crisis_docstring_says_a_sneak_is_kept_exact(cli: Cli) -> None:
    # crisis.md, Available Actions: Sneak moves up to half of (Speed + 5) m; Speed 2 is 3.5 m.
    cli.ok("new", "H", "--rules", "crisis")
    cli.ok("add", "Jack", "--side", "players", "--stat", "int=1", "--stat", "speed=2", "--stat", "endurance=10",
           "--stat", "health=8")
    cli.ok("round", "--roll", "Jack=5,5,5")
    assert "up to 3.5 m" in cli.ok("declare", "Jack", "sneak")
    assert crisis.__doc__ is not None
    paragraph = crisis.__doc__.split("``sneak``", 1)[1].split("\n- ", 1)[0]
    assert "rounded" not in paragraph.replace("rounds neither", "")
    assert "3.5 m" in paragraph


def test_the_readme_says_what_per_means_and_its_example_holds(cli: Cli) -> None:
    said = re.search(r"`value` / `per` is the number the rules mean.*?\(`\"value\": (\d+), \"per\": (\d+)` is ([\d.]+) m\)",
                     README, re.S)
    assert said, "docs/tutorial.md: `log --json` does not say what `per` is"
    value, per, metres = int(said[1]), int(said[2]), float(said[3])
    assert value / per == metres
    cli.ok("new", "H", "--rules", "crisis")
    cli.ok("add", "Jack", "--side", "players", "--stat", "int=1", "--stat", "speed=2", "--stat", "endurance=10",
           "--stat", "health=8")
    cli.ok("round", "--roll", "Jack=5,5,5")
    cli.ok("declare", "Jack", "sneak")
    distance = json.loads(cli.ok("log", "--json").splitlines()[-1])["distance"]
    assert (distance["value"], distance["per"]) == (value, per)
