"""Every field of every import format that may hold 0, an empty list or 0 rounds reads as that,
never as a missing field: 0 is a value, not "use the default".

The formats are those of formats.md (sections 1 to 3); each case below changes one field of a
fixture in tests/fixtures/imports/ (written by hand from formats.md) and says by hand what the
field means there, the other figures worked as in test_formats.py (a modifier is
(score - 10) / 2, rounded down). What each means:

- 5e-database: `armor_class[0].value` (or an old file's number) is the AC; `dexterity` the
  score, whose modifier is the initiative modifier too (no initiative field); `speed.walk`
  the speed; `legendary_actions` the options (none: no uses); damage lists the traits.
- Open5e v1: the same numbers flat; `legendary_desc` names the uses a round.
- Open5e v2: `initiative_bonus` is the initiative modifier ("Dex modifier unless set": 0 is
  set); `actions` with no LEGENDARY_ACTION row: no uses.
- Improved Initiative: `InitiativeModifier` is added to the Dex modifier; `CurrentHP` is the
  hit points now (0: down); `TemporaryHP` the temporary ones; `Initiative` the rolled score;
  a tag's `DurationRemaining` counts down and II drops the tag at 0 (-1: untimed).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skirmish.projections.write.imports import read, srd_entries
from skirmish.projections.write.imports.record import HitDice, Tag

from support.cli import Cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"
IN_PROGRESS = "ImprovedInitiative.AutoSavedEncounters.default"

# Each fixture's stat block as test_formats.py works it out from the fixture's fields.
# Each with its Con modifier (no Con save listed in these) and its actions line (actions.py).
LURKER_2014 = {"hp": 22, "ac": 13, "dex": 1, "init": 1, "speed": 20, "legendary": 0, "pc": 0, "resist": "cold",
               "con": 1, "actions": "Mud Spit: 3d6 acid, DC 11 dex, half, recharge 5", "senses": "passive 10"}
WYRM_2014 = {"hp": 150, "ac": 18, "dex": -1, "init": -1, "speed": 40, "legendary": 3, "pc": 0,
             "vulnerable": "fire", "immune": "acid, poison, poisoned", "con": 10, "saves": "dex +3, con +10",
             "actions": "Multiattack: 2 attacks; Bite: melee +7, reach 10, 2d10+4 piercing; Mud Spit: 6d6 acid, "
                        "DC 12 dex, half, recharge 5; Roar: DC 12 wis, 1/day; Tail Attack: legendary; "
                        "Wing Attack: legendary 2", "senses": "passive 10, darkvision 60"}
STALKER_2024 = {"hp": 33, "ac": 15, "dex": 3, "init": 3, "speed": 30, "legendary": 0, "pc": 0, "resist": "psychic",
                "con": 1, "actions": "Vanish: bonus", "senses": "passive 14"}
HAG_V1 = {"hp": 82, "ac": 17, "dex": 2, "init": 2, "speed": 30, "legendary": 2, "pc": 0,
          "resist": "cold, bludgeoning, piercing", "con": 3, "immune": "charmed",
          "actions": "Claws: melee +6; Curse: legendary", "senses": "darkvision 60"}
RAT_V1 = {"hp": 1, "ac": 10, "dex": 0, "init": 0, "speed": 20, "legendary": 0, "pc": 0, "con": -1,
          "senses": "passive 10"}  # Dex 11: +0
LURKER_V2 = {"hp": 22, "ac": 13, "dex": 1, "init": 3, "speed": 20, "legendary": 3, "pc": 0, "resist": "Cold",
             "vulnerable": "Fire", "con": 1, "actions": "Mud Spit: recharge 5; Sink: legendary",
             "senses": "passive 10"}
LURKER_II = {"hp": 22, "ac": 13, "dex": 1, "init": 1, "speed": 20, "legendary": 0, "pc": 0, "resist": "cold",
             "con": 1, "actions": "Mud Spit"}
ALDRA_II = {"hp": 31, "ac": 16, "dex": 3, "init": 5, "speed": 30, "legendary": 0, "pc": 1, "con": 1}


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def entry(data: Any, name: str) -> dict[str, Any]:
    """A monster list's entry by its name (a 5e-database list, or an Open5e page's results)."""
    entries = data["results"] if isinstance(data, dict) else data
    found: dict[str, Any] = next(e for e in entries if e["name"] == name)
    return found


def edited(tmp_path: Path, name: str, change: Callable[[Any], None]) -> Path:
    data = copy.deepcopy(fixture(name))
    change(data)
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def setting(name: str, key: str, value: Any, *, under: str | None = None) -> Callable[[Any], None]:
    """A change to one monster's field (``under``: inside that table of it)."""
    def change(data: Any) -> None:
        target = entry(data, name)
        (target[under] if under else target)[key] = value
    return change


def library(key: str, field: str, value: Any, *, under: str | None = None) -> Callable[[Any], None]:
    """A change to one Improved Initiative stat block of the library (``Creatures.<id>``) or a
    persistent character's (``PersistentCharacters.<id>``, its ``StatBlock``)."""
    def change(data: Any) -> None:
        block = data[key]["StatBlock"] if key.startswith("PersistentCharacters.") and field != "CurrentHP" else data[key]
        (block[under] if under else block)[field] = value
    return change



# (case, fixture, change, stat block, its srd-5.2 stats): the stats are the fixture's above,
# with what the one changed field means.
STAT_BLOCKS: list[tuple[str, str, Callable[[Any], None], str, dict[str, Any]]] = [
    # 5e-database 2014
    ("5e-2014-armor_class-value-0", "5e-database-2014.json",
     setting("Bog Lurker", "armor_class", [{"type": "natural", "value": 0}]), "Bog Lurker", {**LURKER_2014, "ac": 0}),
    ("5e-2014-armor_class-number-0", "5e-database-2014.json", setting("Bog Lurker", "armor_class", 0), "Bog Lurker",
     {**LURKER_2014, "ac": 0}),
    ("5e-2014-speed-walk-0-ft", "5e-database-2014.json", setting("Bog Lurker", "walk", "0 ft.", under="speed"),
     "Bog Lurker", {**LURKER_2014, "speed": 0}),
    # Dex 10 and 11: +0, the initiative modifier too.
    ("5e-2014-dexterity-10", "5e-database-2014.json", setting("Bog Lurker", "dexterity", 10), "Bog Lurker",
     {**LURKER_2014, "dex": 0, "init": 0}),
    ("5e-2014-dexterity-11", "5e-database-2014.json", setting("Marsh Wyrm", "dexterity", 11), "Marsh Wyrm",
     {**WYRM_2014, "dex": 0, "init": 0}),
    ("5e-2014-legendary_actions-empty", "5e-database-2014.json", setting("Marsh Wyrm", "legendary_actions", []),
     "Marsh Wyrm", {**WYRM_2014, "legendary": 0, "actions": WYRM_2014["actions"].split("; Tail")[0]}),
    ("5e-2014-damage_resistances-empty", "5e-database-2014.json", setting("Bog Lurker", "damage_resistances", []),
     "Bog Lurker", {k: v for k, v in LURKER_2014.items() if k != "resist"}),
    ("5e-2014-damage_immunities-empty", "5e-database-2014.json", setting("Marsh Wyrm", "damage_immunities", []),
     "Marsh Wyrm", {**WYRM_2014, "immune": "poisoned"}),  # the condition immunity stays
    # 5e-database 2024
    ("5e-2024-dexterity-10", "5e-database-2024.json", setting("Reed Stalker", "dexterity", 10), "Reed Stalker",
     {**STALKER_2024, "dex": 0, "init": 0}),
    ("5e-2024-armor_class-value-0", "5e-database-2024.json",
     setting("Reed Stalker", "armor_class", [{"type": "dex", "value": 0}]), "Reed Stalker", {**STALKER_2024, "ac": 0}),
    ("5e-2024-damage_resistances-empty", "5e-database-2024.json", setting("Reed Stalker", "damage_resistances", []),
     "Reed Stalker", {k: v for k, v in STALKER_2024.items() if k != "resist"}),
    # Open5e v1
    ("open5e-v1-armor_class-0", "open5e-v1.json", setting("Fen Hag", "armor_class", 0), "Fen Hag", {**HAG_V1, "ac": 0}),
    ("open5e-v1-speed-walk-0", "open5e-v1.json", setting("Fen Hag", "walk", 0, under="speed"), "Fen Hag",
     {**HAG_V1, "speed": 0}),
    ("open5e-v1-dexterity-10", "open5e-v1.json", setting("Fen Hag", "dexterity", 10), "Fen Hag",
     {**HAG_V1, "dex": 0, "init": 0}),
    ("open5e-v1-damage_resistances-empty-text", "open5e-v1.json", setting("Fen Hag", "damage_resistances", ""),
     "Fen Hag", {k: v for k, v in HAG_V1.items() if k != "resist"}),
    # "can take 0 legendary actions": 0 a round, not the SRD's default of 3 for options with no count.
    ("open5e-v1-legendary_desc-0", "open5e-v1.json",
     setting("Fen Hag", "legendary_desc", "The hag can take 0 legendary actions."), "Fen Hag",
     {**HAG_V1, "legendary": 0}),
    ("open5e-v1-legendary_actions-empty", "open5e-v1.json",
     lambda d: entry(d, "Fen Hag").update(legendary_desc="", legendary_actions=[]), "Fen Hag",
     {**HAG_V1, "legendary": 0, "actions": "Claws: melee +6"}),
    ("open5e-v1-mire-rat-as-it-is", "open5e-v1.json", lambda d: None, "Mire Rat", RAT_V1),
    # Open5e v2: initiative_bonus 0 is set; the Dex modifier (+1) is not taken.
    ("open5e-v2-initiative_bonus-0", "open5e-v2.json", setting("Bog Lurker", "initiative_bonus", 0), "Bog Lurker",
     {**LURKER_V2, "init": 0}),
    ("open5e-v2-initiative_bonus-null", "open5e-v2.json", setting("Bog Lurker", "initiative_bonus", None),
     "Bog Lurker", {**LURKER_V2, "init": 1}),
    ("open5e-v2-dexterity-10", "open5e-v2.json", setting("Bog Lurker", "dexterity", 10, under="ability_scores"),
     "Bog Lurker", {**LURKER_V2, "dex": 0}),
    ("open5e-v2-dexterity-10-initiative_bonus-0", "open5e-v2.json",
     lambda d: (entry(d, "Bog Lurker")["ability_scores"].update(dexterity=10),
                entry(d, "Bog Lurker").update(initiative_bonus=0)), "Bog Lurker", {**LURKER_V2, "dex": 0, "init": 0}),
    ("open5e-v2-armor_class-0", "open5e-v2.json", setting("Bog Lurker", "armor_class", 0), "Bog Lurker",
     {**LURKER_V2, "ac": 0}),
    ("open5e-v2-speed-walk-0", "open5e-v2.json", setting("Bog Lurker", "walk", 0, under="speed"), "Bog Lurker",
     {**LURKER_V2, "speed": 0}),
    ("open5e-v2-actions-empty", "open5e-v2.json", setting("Bog Lurker", "actions", []), "Bog Lurker",
     {k: v for k, v in LURKER_V2.items() if k != "actions"} | {"legendary": 0}),
    ("open5e-v2-resistances-empty", "open5e-v2.json",
     setting("Bog Lurker", "damage_resistances", [], under="resistances_and_immunities"), "Bog Lurker",
     {k: v for k, v in LURKER_V2.items() if k != "resist"}),
    # Improved Initiative stat blocks: InitiativeModifier 0 adds nothing to Dex 12 (+1).
    ("ii-InitiativeModifier-0", "improved-initiative.json", library("Creatures.bl1", "InitiativeModifier", 0),
     "Bog Lurker", LURKER_II),
    ("ii-Dex-10-InitiativeModifier-0", "improved-initiative.json",
     library("Creatures.bl1", "Dex", 10, under="Abilities"), "Bog Lurker", {**LURKER_II, "dex": 0, "init": 0}),
    # Dex 16 (+3) and InitiativeModifier -3: 0.
    ("ii-InitiativeModifier-cancels-Dex", "improved-initiative.json",
     library("PersistentCharacters.pc1", "InitiativeModifier", -3), "Aldra", {**ALDRA_II, "init": 0}),
    ("ii-AC-0", "improved-initiative.json", library("Creatures.bl1", "Value", 0, under="AC"), "Bog Lurker",
     {**LURKER_II, "ac": 0}),
    ("ii-Speed-0-ft", "improved-initiative.json", library("Creatures.bl1", "Speed", ["0 ft."]), "Bog Lurker",
     {**LURKER_II, "speed": 0}),
    ("ii-Speed-empty", "improved-initiative.json", library("Creatures.bl1", "Speed", []), "Bog Lurker",
     {k: v for k, v in LURKER_II.items() if k != "speed"}),
    ("ii-DamageResistances-empty", "improved-initiative.json", library("Creatures.bl1", "DamageResistances", []),
     "Bog Lurker", {k: v for k, v in LURKER_II.items() if k != "resist"}),
    ("ii-LegendaryActions-empty", "improved-initiative.json", library("Creatures.bl1", "LegendaryActions", []),
     "Bog Lurker", LURKER_II),
]


@pytest.mark.parametrize(("fixture_name", "change", "name", "expected"), [c[1:] for c in STAT_BLOCKS],
                         ids=[c[0] for c in STAT_BLOCKS])
def test_a_stat_blocks_falsy_field_reads_as_itself(tmp_path: Path, fixture_name: str, change: Callable[[Any], None],
                                                   name: str, expected: dict[str, Any]) -> None:
    path = edited(tmp_path, fixture_name, change)
    assert srd_entries(path)[name] == expected


def test_an_empty_hit_points_roll_falls_back_to_the_hit_dice(tmp_path: Path) -> None:
    # 5e-database 2014: hit_points_roll "" says nothing; hit_dice "4d8" is the dice, no bonus.
    path = edited(tmp_path, "5e-database-2014.json", setting("Bog Lurker", "hit_points_roll", ""))
    assert read(path).creatures["Bog Lurker"].hit_dice == HitDice(4, 8, 0)


def test_a_2024_file_with_empty_2024_fields_is_still_2024(tmp_path: Path) -> None:
    # bonus_actions [] and xp_in_lair 0 are 2024 fields however empty (formats.md, section 1).
    def change(data: Any) -> None:
        stalker = entry(data, "Reed Stalker")
        stalker.update(bonus_actions=[], xp_in_lair=0)
        del stalker["url"]
    assert read(edited(tmp_path, "5e-database-2024.json", change)).format == "5e-database (2024)"


def test_an_open5e_v2_monster_with_initiative_bonus_0_is_added_with_initiative_0(cli: Cli, tmp_path: Path) -> None:
    path = edited(tmp_path, "open5e-v2.json", setting("Bog Lurker", "initiative_bonus", 0))
    cli.ok("new", "Bog", "--rules", "srd-5.2")
    cli.ok("add", "Bog Lurker", "--from", str(path))
    joined = next(line for line in cli.ok("log").splitlines() if "Bog Lurker joins" in line)
    assert "dex 1, init 0," in joined
    # Its Initiative: d20 14 + 0 = 14 (§2), not 14 + 1.
    cli.ok("round", "--roll", "Bog Lurker=14")
    assert "initiative Bog Lurker 14;" in cli.ok("log")


# --- Improved Initiative: a character and a saved fight ------------------------------------------


def fight(data: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(data[IN_PROGRESS])
    return found


def seat_change(number: int, **fields: Any) -> Callable[[Any], None]:
    """A change to combatant ``number`` (1: the Bog Lurker, 2: Aldra) of the fight in progress."""
    def change(data: Any) -> None:
        saved = fight(data)
        saved["Combatants"][number - 1].update(fields)
        data[IN_PROGRESS] = json.dumps(saved)
    return change


def test_a_persistent_character_at_0_hp_is_at_0(tmp_path: Path) -> None:
    path = edited(tmp_path, "improved-initiative.json", library("PersistentCharacters.pc1", "CurrentHP", 0))
    found = read(path)
    assert found.current["Aldra"] == 0 and found.creatures["Aldra"].current == 0


def test_a_persistent_character_at_0_hp_comes_in_at_0_hp(cli: Cli, tmp_path: Path) -> None:
    path = edited(tmp_path, "improved-initiative.json", library("PersistentCharacters.pc1", "CurrentHP", 0))
    cli.ok("new", "Bog", "--rules", "srd-5.2")
    cli.ok("add", "Aldra", "--from", str(path))
    aldra = {c["name"]: c for c in json.loads(cli.ok("state", "--json"))["combatants"]}["Aldra"]
    # A character at 0 HP is down and Unconscious (§9), her maximum still 31.
    assert (aldra["status"], aldra["vital"]["value"], aldra["vital"]["maximum"]) == ("down", 0, 31)


# (case, change, seat, what the seat reads as): one field of the fight in progress.
SEATS: list[tuple[str, Callable[[Any], None], int, dict[str, Any]]] = [
    ("CurrentHP-0", seat_change(1, CurrentHP=0), 1, {"hp": 0}),
    ("CurrentHP-0-character", seat_change(2, CurrentHP=0), 2, {"hp": 0}),
    ("TemporaryHP-0", seat_change(2, TemporaryHP=0), 2, {"temp_hp": 0}),
    ("Initiative-0", seat_change(1, Initiative=0), 1, {"initiative": 0}),
    ("Tags-empty", seat_change(1, Tags=[]), 1, {"tags": ()}),
    ("tag-DurationRemaining-0", seat_change(1, Tags=[{"Text": "Prone", "DurationRemaining": 0,
                                                      "DurationTiming": "StartOfTurn", "DurationCombatantId": "c1"}]),
     1, {"tags": (Tag("Prone", 0, "StartOfTurn", "Bog Lurker 1"),)}),
]


@pytest.mark.parametrize(("change", "number", "expected"), [c[1:] for c in SEATS], ids=[c[0] for c in SEATS])
def test_a_saved_fights_falsy_field_reads_as_itself(tmp_path: Path, change: Callable[[Any], None], number: int,
                                                    expected: dict[str, Any]) -> None:
    seat = read(edited(tmp_path, "improved-initiative.json", change)).fights["default"].seats[number - 1]
    assert {key: getattr(seat, key) for key in expected} == expected


def test_a_fight_at_round_0_with_nobody_acting_says_neither(cli: Cli, tmp_path: Path) -> None:
    def change(data: Any) -> None:
        saved = fight(data)
        saved.update(RoundCounter=0, ActiveCombatantId=None)
        data[IN_PROGRESS] = json.dumps(saved)
    path = edited(tmp_path, "improved-initiative.json", change)
    assert (read(path).fights["default"].round, read(path).fights["default"].acting) == (0, None)
    out = cli.ok("new", "Bog", "--rules", "srd-5.2", "--from", str(path))
    assert "the fight was at round" not in out and "was acting" not in out


# The stats each ruleset needs beside what a stat block gives, and what it calls hit points
# (mapping.py's VITAL; phases holds none).
RULESETS = {
    "srd-5.2": (), "ap-countdown": ("--stat", "qu=0"), "percent-activity": ("--stat", "qu=0"),
    "modular": ("--stat", "agility=10", "--stat", "dodge=10"),
    "crisis": ("--stat", "int=0", "--stat", "speed=0", "--stat", "endurance=10"),
    "phases": ("--stat", "initiative=4", "--stat", "agility=10", "--stat", "bulk=1"),
}


def state(cli: Cli) -> dict[str, Any]:
    return {c["name"]: c for c in json.loads(cli.ok("state", "--json"))["combatants"]}


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_a_combatant_saved_at_0_hp_comes_in_at_0_hp(cli: Cli, tmp_path: Path, ruleset_id: str) -> None:
    """The Bog Lurker at CurrentHP 0 of its 22: at 0 of 22 wherever hit points are held."""
    path = edited(tmp_path, "improved-initiative.json", seat_change(1, CurrentHP=0))
    out = cli.ok("new", "Bog", "--rules", ruleset_id, "--from", str(path), *RULESETS[ruleset_id])
    lurker = state(cli)["Bog Lurker 1"]
    if ruleset_id == "phases":
        assert "Bog Lurker 1: hit points 0 of 22 not mapped: phases has none" in out
    else:
        assert (lurker["vital"]["value"], lurker["vital"]["maximum"]) == (0, 22)
        assert "Bog Lurker 1 comes in from Improved Initiative file 'improved-initiative.json', fight 'default', " \
               "vital figure 0" in cli.ok("log")


def test_a_character_saved_at_0_hp_comes_into_srd_down(cli: Cli, tmp_path: Path) -> None:
    """Aldra at CurrentHP 0 of 31: a character at 0 HP is down, Unconscious, rolling death
    saves (§9), her tallies 0 and 0."""
    path = edited(tmp_path, "improved-initiative.json", seat_change(2, CurrentHP=0))
    cli.ok("new", "Bog", "--rules", "srd-5.2", "--from", str(path))
    aldra = state(cli)["Aldra"]
    assert (aldra["status"], aldra["vital"]["value"], aldra["own"]["death"]) == ("down", 0, "0/0")
    assert "unconscious" in {e["kind"] for e in aldra["effects"]}


def test_temporary_hp_0_and_initiative_0_come_into_srd_as_they_are(cli: Cli, tmp_path: Path) -> None:
    """Aldra's TemporaryHP 0: none (§8); the Bog Lurker's Initiative 0: a score held in the
    order (§2), placed after Aldra's 17 without a d20 rolled for it, as the fight is taken up."""
    def change(data: Any) -> None:
        seat_change(2, TemporaryHP=0)(data)
        seat_change(1, Initiative=0)(data)
    path = edited(tmp_path, "improved-initiative.json", change)
    out = cli.ok("new", "Bog", "--rules", "srd-5.2", "--from", str(path))
    assert "not mapped" not in out
    got = state(cli)
    assert got["Aldra"]["own"]["temp"] == 0 and got["Bog Lurker 1"]["own"]["initiative"] == 0
    log = cli.ok("log")
    assert re.search(r"Bog Lurker 1 comes in from .*, vital figure 5, initiative 0$", log, re.M), log
    assert re.search(r"Aldra comes in from .*, vital figure 20, initiative 17$", log, re.M), log
    # No dice typed: none is rolled, both held.
    assert "Round 2 begins: initiative Aldra 17, Bog Lurker 1 0; order Aldra, Bog Lurker 1; taken up" in log


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_a_tag_with_0_rounds_left_does_not_come_in_as_lasting(cli: Cli, tmp_path: Path, ruleset_id: str) -> None:
    """The Bog Lurker's Prone at DurationRemaining 0: II drops a tag at 0, so it has run out:
    it is not on the combatant here, least of all as a condition with no end."""
    path = edited(tmp_path, "improved-initiative.json", seat_change(1, Tags=[
        {"Text": "Prone", "DurationRemaining": 0, "DurationTiming": "StartOfTurn", "DurationCombatantId": "c1"}]))
    cli.ok("new", "Bog", "--rules", ruleset_id, "--from", str(path), *RULESETS[ruleset_id])
    assert "prone" not in {e["kind"] for e in state(cli)["Bog Lurker 1"]["effects"]}


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_an_empty_tag_list_brings_no_condition(cli: Cli, tmp_path: Path, ruleset_id: str) -> None:
    path = edited(tmp_path, "improved-initiative.json", seat_change(1, Tags=[]))
    out = cli.ok("new", "Bog", "--rules", ruleset_id, "--from", str(path), *RULESETS[ruleset_id])
    assert "Bog Lurker 1: tag" not in out
    kinds = {e["kind"] for e in state(cli)["Bog Lurker 1"]["effects"]}
    assert not kinds & {"prone", "blessed"}
