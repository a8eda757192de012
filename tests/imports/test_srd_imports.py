"""Stat blocks of every JSON format played in an srd-5.2 fight, figures worked by hand from the
fixture files (tests/fixtures/imports/) and the formats as docs/imports.md gives them, then checked by `state --json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.cli import Cli
from support.imports import srd_end_to_end

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"


def combatants(cli: Cli) -> dict[str, Any]:
    return {c["name"]: c for c in json.loads(cli.ok("state", "--json"))["combatants"]}


def test_the_end_to_end_check_runs_on_srd_5_2(cli: Cli) -> None:
    srd_end_to_end(cli, "srd-5.2")


def test_monsters_of_each_format_in_an_srd_fight(cli: Cli) -> None:
    cli.ok("new", "Marsh", "--rules", "srd-5.2", "--seed", "3")
    # 5e-database 2014: Marsh Wyrm, armor_class 18, hit_points 150, dexterity 9: (9 - 10) // 2 = -1;
    # no uses per round in the file: the SRD 5.1 default 3 (formats.md); fire vulnerable, acid and poison immune.
    cli.ok("add", "Marsh Wyrm", "--from", str(FIXTURES / "5e-database-2014.json"))
    # 5e-database 2024: Reed Stalker rolled on 6d8+6 with faces 1..6: 21 + 6 = 27; AC 15; dexterity 17: +3.
    cli.ok("add", "Reed Stalker", "--from", str(FIXTURES / "5e-database-2024.json"), "--hp", "rolled",
           "--roll", "Reed Stalker=1,2,3,4,5,6")
    # Open5e v1: Fen Hag, armor_class 17, hit_points 82, dexterity 14: +2, "can take 2 legendary actions",
    # resistances "cold; bludgeoning, piercing". Mire Rat rolled on 1d4-1 with a 1: 0, and at least 1.
    cli.ok("add", "Fen Hag", "--from", str(FIXTURES / "open5e-v1.json"))
    cli.ok("add", "Mire Rat", "--from", str(FIXTURES / "open5e-v1.json"), "--hp", "rolled", "--roll", "Mire Rat=1")
    # Open5e v2: Bog Lurker, armor_class 13, hit_points 22, initiative_bonus 3 (its Dex modifier is 1),
    # a LEGENDARY_ACTION with no uses a round: 3 again; resists Cold, vulnerable to Fire.
    cli.ok("add", "Bog Lurker", "--from", str(FIXTURES / "open5e-v2.json"))
    got = combatants(cli)
    figures = {name: (c["vital"]["value"], c["own"]["ac"], c["own"]["legendary"]) for name, c in got.items()}
    assert figures == {"Marsh Wyrm": (150, 18, "3/3"), "Reed Stalker": (27, 15, ""), "Fen Hag": (82, 17, "2/2"),
                       "Mire Rat": (1, 10, ""), "Bog Lurker": (22, 13, "3/3")}  # legendary-start=full
    # Initiative: d20 + the modifier (srd-5.2-combat.md §2), the d20s typed apart so no two tie.
    cli.ok("round", "--roll", "Marsh Wyrm=10", "--roll", "Reed Stalker=10", "--roll", "Fen Hag=5",
           "--roll", "Mire Rat=2", "--roll", "Bog Lurker=14")
    scores = {name: c["own"]["initiative"] for name, c in combatants(cli).items()}
    assert scores == {"Marsh Wyrm": 9, "Reed Stalker": 13, "Fen Hag": 7, "Mire Rat": 2, "Bog Lurker": 17}
    # Damage with the imported traits (§7): vulnerable doubles, immune is 0, resistance halves rounding down.
    cli.ok("damage", "Marsh Wyrm", "10", "--with", "type=fire")  # 150 - 20 = 130
    cli.ok("damage", "Marsh Wyrm", "10", "--with", "type=acid")  # immune: 130
    cli.ok("damage", "Reed Stalker", "9", "--with", "type=psychic")  # 27 - 4 = 23
    cli.ok("damage", "Fen Hag", "7", "--with", "type=piercing")  # 82 - 3 = 79
    cli.ok("damage", "Bog Lurker", "5", "--with", "type=fire")  # 22 - 10 = 12
    cli.ok("damage", "Bog Lurker", "5", "--with", "type=cold")  # 12 - 2 = 10
    vitals = {name: c["vital"]["value"] for name, c in combatants(cli).items()}
    assert vitals == {"Marsh Wyrm": 130, "Reed Stalker": 23, "Fen Hag": 79, "Mire Rat": 1, "Bog Lurker": 10}


def test_a_qualified_resistance_is_named_not_taken(cli: Cli, tmp_path: Path) -> None:
    """Resistance to "bludgeoning, piercing, and slashing from nonmagical weapons" is no plain
    damage type (srd-5.2-combat.md §7 halves a type): the clause is named, "cold" is taken."""
    lurker = json.loads((FIXTURES / "5e-database-2014.json").read_text())[0]
    ghoul = lurker | {"name": "Grave Ghoul", "damage_resistances": [
        "cold", "bludgeoning, piercing, and slashing from nonmagical weapons"]}
    path = tmp_path / "2014.json"
    path.write_text(json.dumps([ghoul]))
    rat = json.loads((FIXTURES / "open5e-v1.json").read_text())
    rows = rat["results"] if isinstance(rat, dict) else rat
    rows = [r | {"name": "Barrow Rat", "damage_resistances": "cold; bludgeoning, piercing, and slashing from "
                                                            "nonmagical attacks"} for r in rows[:1]]
    v1 = tmp_path / "v1.json"
    v1.write_text(json.dumps(rat | {"results": rows} if isinstance(rat, dict) else rows))
    cli.ok("new", "Barrow", "--rules", "srd-5.2")
    out = cli.ok("add", "Grave Ghoul", "--from", str(path))
    assert ("Grave Ghoul: damage resistances (resist bludgeoning, piercing, and slashing from nonmagical weapons) "
            "not mapped: srd-5.2 takes damage types only") in out
    out = cli.ok("add", "Barrow Rat", "--from", str(v1))
    assert "Barrow Rat: damage resistances (resist bludgeoning, piercing, and slashing from nonmagical attacks)" in out
    cli.ok("damage", "Grave Ghoul", "9", "--with", "type=cold")  # resisted: 22 - 4 = 18
    cli.ok("damage", "Grave Ghoul", "5", "--with", "type=slashing")  # not resisted here: 18 - 5 = 13
    cli.ok("damage", "Barrow Rat", "7", "--with", "type=cold")
    vitals = {c["name"]: c["vital"]["value"] for c in json.loads(cli.ok("state", "--json"))["combatants"]}
    hp = rows[0]["hit_points"]
    assert vitals == {"Grave Ghoul": 13, "Barrow Rat": max(0, hp - 3)}  # 7 cold halved: 3
