"""An end-to-end check of the imports under the srd-5.2 ruleset (tests/imports/test_srd_imports.py
runs it). Every figure it expects comes from the fixtures' fields (tests/imports/test_formats.py
and test_srd_imports.py work them out), through the stats the ruleset declares."""

from __future__ import annotations

import json
from pathlib import Path

from skirmish.projections.write.imports import srd_entries

from skirmish.projections.ruleset import get_ruleset

from support.cli import Cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"


def srd_end_to_end(cli: Cli, ruleset_id: str = "srd-5.2") -> None:
    """Add every stat block of every fixture into one srd-5.2 encounter, check each stat the
    ruleset declares is the file's, then set up the saved fight in progress and carry its party."""
    ruleset = get_ruleset(ruleset_id)
    cli.ok("new", "Imports", "--rules", ruleset_id, "--seed", "1")
    for path in sorted(FIXTURES.glob("*.json")):
        for name, stats in srd_entries(path).items():
            if name in {c["name"] for c in json.loads(cli.ok("state", "--json"))["combatants"]}:
                continue  # the same monster in two formats
            cli.ok("add", name, "--from", str(path))
            added = [line for line in cli.ok("log", "--limit", "0").splitlines() if f"{name} joins" in line]
            assert added, name
            for key, value in stats.items():
                if key in ruleset.stats and isinstance(value, int):
                    assert f"{key} {value}" in added[-1], (name, key, value, added[-1])
    cli.ok("new", "Causeway", "--rules", ruleset_id, "--from", str(FIXTURES / "improved-initiative.json"))
    vitals = {c["name"]: c["vital"]["value"] for c in json.loads(cli.ok("state", "--json"))["combatants"]}
    assert vitals == {"Bog Lurker 1": 5, "Aldra": 20}  # CurrentHP in the fight in progress
    cli.ok("new", "After", "--rules", ruleset_id, "--carry", "Causeway")
    assert {c["name"]: c["vital"]["value"] for c in json.loads(cli.ok("state", "--json"))["combatants"]} == {"Aldra": 20}
