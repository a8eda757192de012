"""The bundled SRD 5.2 bestiary: `add NAME` with no stats in an srd-5.2 fight, `bestiary`, the XP
total. Figures worked by hand from projections/write/imports/data/srd-5.2-creatures.json:
Goblin Warrior: fey, CR 1/4, 50 XP, AC 15, 10 HP (3d6), Dex 15 (+2), initiative +2, Con save +0;
Goblin Boss: fey, CR 1, 200 XP, AC 17, 21 HP; Goblin Minion: fey, CR 1/8, 25 XP, AC 12, 7 HP;
Hobgoblin Captain: CR 3; Hobgoblin Warrior: CR 1/2."""

from __future__ import annotations

import json
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from skirmish.eventlog import commands as c
from skirmish.eventlog.store import Store
from skirmish.projections.door.perform import execute
from skirmish.projections.write.imports import bestiary
from support.cli import Cli, start

ROOT = Path(__file__).resolve().parents[2]


def combatants(cli: Cli) -> dict[str, Any]:
    return {c["name"]: c for c in json.loads(cli.ok("state", "--json"))["combatants"]}


def test_add_goblin_warrior_count_4_takes_the_block(cli: Cli) -> None:
    cli.ok("new", "Crypt", "--rules", "srd-5.2")
    out = cli.ok("add", "Goblin Warrior", "--count", "4")
    assert "Goblin Warrior (4): from the bundled SRD 5.2 bestiary (CR 1/4, 50 XP each)" in out
    got = combatants(cli)
    assert list(got) == [f"Goblin Warrior {i}" for i in range(1, 5)]
    for one in got.values():
        assert one["side"] == "foes"
        assert one["vital"] == {"name": "HP", "value": 10, "maximum": 10}
        assert one["own"]["ac"] == 15


def test_the_name_is_matched_as_names_are_and_the_block_s_name_kept(cli: Cli) -> None:
    cli.ok("new", "Crypt", "--rules", "srd-5.2")
    cli.ok("add", "goblin warrior")
    cli.ok("add", "GOBLIN BOSS", "--side", "raiders")
    got = combatants(cli)
    assert got["Goblin Warrior"]["own"]["ac"] == 15
    assert got["Goblin Boss"]["side"] == "raiders"
    assert got["Goblin Boss"]["vital"]["maximum"] == 21 and got["Goblin Boss"]["own"]["ac"] == 17


def test_typed_stats_win_over_the_block(cli: Cli) -> None:
    cli.ok("new", "Crypt", "--rules", "srd-5.2")
    cli.ok("add", "Goblin Warrior", "--stat", "hp=14")  # no ac typed: the block gives it
    got = combatants(cli)["Goblin Warrior"]
    assert got["vital"]["maximum"] == 14 and got["own"]["ac"] == 15


def test_a_typo_gets_the_did_you_mean_and_records_nothing(cli: Cli) -> None:
    cli.ok("new", "Crypt", "--rules", "srd-5.2")
    before = cli.ok("log", "--json")
    error = cli.fails("add", "Gobln")
    assert error == ("Error: no stats given and no creature 'Gobln' in the SRD 5.2 bestiary; "
                     "did you mean Goblin Boss, Goblin Minion, Goblin Warrior?")
    assert cli.ok("log", "--json") == before


def test_a_name_near_no_creature_is_refused_as_before(cli: Cli) -> None:
    cli.ok("new", "Crypt", "--rules", "srd-5.2")
    assert cli.fails("add", "Mira") == ("Error: Mira needs --stat hp=N (Hit Point maximum (§9)), "
                                        "--stat ac=N (Armor Class (§6))")


def test_other_rulesets_never_read_the_bestiary(cli: Cli) -> None:
    cli.ok("new", "Crypt", "--rules", "modular")
    assert "bestiary" not in cli.fails("add", "Goblin Warrior")


def test_the_xp_total_is_four_times_the_block_s(cli: Cli) -> None:
    cli.ok("new", "Crypt", "--rules", "srd-5.2")
    cli.ok("add", "Mira", "--side", "party", "--stat", "hp=22", "--stat", "ac=15")
    assert "xp" not in json.loads(cli.ok("state", "--json"))  # none yet: the JSON as it always was
    assert "XP" not in cli.ok("state")
    cli.ok("add", "Goblin Warrior", "--count", "4")
    assert json.loads(cli.ok("state", "--json"))["xp"] == 4 * 50
    assert "XP: 200" in cli.ok("state")


def test_the_recorded_add_holds_the_stats_used(memory_store: Store) -> None:
    """The library step the console and the GM's page go through too; a replay decides the
    stored command, whose stats are the block's: the bestiary is not read again."""
    enc = start(memory_store, "srd-5.2")
    recorded, lines = execute(enc, c.AddCombatant(name="goblin boss"), "add goblin boss")
    assert lines[-1] == "Goblin Boss: from the bundled SRD 5.2 bestiary (CR 1, 200 XP each)"
    stored = c.command_decoder.decode(enc.command(enc.event(recorded[0].id).command_id).body)
    assert isinstance(stored, c.AddCombatant) and stored.name == "Goblin Boss" and stored.side == "foes"
    assert {k: stored.stats[k] for k in ("hp", "ac", "dex", "init", "xp")} == {
        "hp": "21", "ac": "17", "dex": "2", "init": "2", "xp": "200"}
    assert enc.decide(stored, enc.head().event_id - 1) == [rec.event for rec in recorded]
    assert enc.xp_at(enc.head().event_id) == 200


def test_bestiary_gob_lists_the_goblins(cli: Cli) -> None:
    out = cli.ok("bestiary", "gob")
    names = [line.split("  ")[0] for line in out.splitlines()[1:6]]
    assert names == ["Goblin Boss", "Goblin Minion", "Goblin Warrior", "Hobgoblin Captain", "Hobgoblin Warrior"]
    assert "Goblin Warrior     fey   1/4  50   15  10" in out
    assert out.splitlines()[6] == "5 of 330 creatures"
    assert "https://creativecommons.org/licenses/by/4.0/legalcode." in out
    assert all(len(line) <= 80 for line in cli.ok("bestiary").splitlines())


def test_bestiary_cr_filters(cli: Cli) -> None:
    got = json.loads(cli.ok("bestiary", "gob", "--cr", "1/4..1", "--json"))
    assert [(e["name"], e["cr"]) for e in got["creatures"]] == [
        ("Goblin Boss", "1"), ("Goblin Warrior", "1/4"), ("Hobgoblin Warrior", "1/2")]
    assert got["attribution"].startswith("This work includes material from the System Reference Document 5.2")
    assert [e["name"] for e in json.loads(cli.ok("bestiary", "--cr", "30", "--json"))["creatures"]] == ["Tarrasque"]
    assert cli.fails("bestiary", "--cr", "x") == "Error: --cr takes challenge ratings (0, 1/8, 1/4, 1/2, 1 to 30), not 'x'"


def test_bestiary_type_filters() -> None:
    assert {e.type for e in bestiary.search("", "Dragon")} == {"dragon"}
    assert len(bestiary.entries()) == 330


def test_the_package_carries_the_data_and_its_attribution() -> None:
    folder = resources.files("skirmish.projections.write.imports").joinpath("data")
    assert len(json.loads(folder.joinpath("srd-5.2-creatures.json").read_text(encoding="utf-8"))["creatures"]) == 330
    assert bestiary.ATTRIBUTION.replace("\n", " ") in " ".join(folder.joinpath("NOTICE.md").read_text(
        encoding="utf-8").replace("> ", "").split())
    assert bestiary.ATTRIBUTION in " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())


def test_pyproject_ships_the_data_in_the_wheel() -> None:
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    assert set(data["skirmish.projections.write.imports"]) == {"data/srd-5.2-creatures.json", "data/NOTICE.md"}


@pytest.mark.slow
def test_a_built_wheel_holds_the_bestiary(tmp_path: Path) -> None:
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(ROOT),
                    "-w", str(tmp_path)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"skirmish/projections/write/imports/data/srd-5.2-creatures.json",
            "skirmish/projections/write/imports/data/NOTICE.md"} <= names


def test_an_amended_add_takes_the_block_too(cli: Cli) -> None:
    cli.ok("new", "Crypt", "--rules", "srd-5.2")
    cli.ok("add", "Ogre")  # Ogre: CR 2, 450 XP, AC 11, 68 HP
    out = cli.ok("amend", "2", "--", "add", "goblin boss")
    assert "Goblin Boss: from the bundled SRD 5.2 bestiary (CR 1, 200 XP each)" in out
    cli.ok("switch", "amend-2")
    got = combatants(cli)
    assert list(got) == ["Goblin Boss"] and got["Goblin Boss"]["own"]["ac"] == 17
    assert json.loads(cli.ok("state", "--json"))["xp"] == 200
    cli.ok("verify")
