"""Stat blocks and saved fights read from the files GMs have (formats.md, sections 1 to 3).

The fixtures in tests/fixtures/imports/ were written by hand from formats.md; every figure
expected here is worked from the fixture's fields (a modifier is (score - 10) / 2, rounded down)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skirmish.eventlog.errors import BadInput
from skirmish.projections import roster
from skirmish.projections.write.imports import read, srd_entries
from skirmish.projections.write.imports.mapping import rolled_hp, stats_for
from skirmish.projections.write.imports.record import HitDice, Tag
from skirmish.projections.ruleset import BUILT_IN, get_ruleset

from support.cli import Cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"


def srd(name: str) -> dict[str, dict[str, int | str]]:
    """File -> entries in the srd-5.2 ruleset's stat names (the pure mapping)."""
    return srd_entries(FIXTURES / name)


# The Marsh Wyrm of every monster fixture: Con 22 with a Con save of +10 listed (con is the save),
# Multiattack "makes two Bite attacks", Bite +7 reach 10 ft. 2d10 + 4 piercing, Mud Spit Recharge 5-6
# DC 12 Dex 6d6 acid half on a success, Roar 1/Day DC 12 Wis; immune to acid and poisoned.
WYRM = ("Multiattack: 2 attacks; Bite: melee +7, reach 10, 2d10+4 piercing; "
        "Mud Spit: 6d6 acid, DC 12 dex, half, recharge 5; Roar: DC 12 wis, 1/day")
WYRM_2024 = {"hp": 150, "ac": 18, "dex": -1, "init": -1, "speed": 40, "legendary": 0, "pc": 0,
             "immune": "acid, poisoned", "con": 10, "saves": "dex +3, con +10", "actions": WYRM, "senses": "passive 10"}


def test_5e_database_2014_monsters() -> None:
    found = read(FIXTURES / "5e-database-2014.json")
    assert found.format == "5e-database (2014)"
    assert srd("5e-database-2014.json") == {
        # Dex 12: +1, the initiative modifier too (5e-database has no initiative field).
        # Con 13: +1 (no Con save listed); Mud Spit's usage, dc and damage fields.
        "Bog Lurker": {"hp": 22, "ac": 13, "dex": 1, "init": 1, "speed": 20, "legendary": 0, "pc": 0, "resist": "cold",
                       "con": 1, "actions": "Mud Spit: 3d6 acid, DC 11 dex, half, recharge 5", "senses": "passive 10"},
        # Dex 9: (9 - 10) / 2 rounded down = -1; legendary actions and no count: the SRD's 3.
        "Marsh Wyrm": {"hp": 150, "ac": 18, "dex": -1, "init": -1, "speed": 40, "legendary": 3, "pc": 0,
                       "vulnerable": "fire", "immune": "acid, poison, poisoned", "con": 10,
                       "saves": "dex +3, con +10", "actions": WYRM + "; Tail Attack: legendary; Wing Attack: legendary 2",
                       "senses": "passive 10, darkvision 60"},  # senses {"passive_perception": 10, "darkvision": "60 ft."}
    }
    assert found.creatures["Marsh Wyrm"].hit_dice == HitDice(12, 12, 72)


def test_5e_database_2024_monsters() -> None:
    found = read(FIXTURES / "5e-database-2024.json")
    assert found.format == "5e-database (2024)"
    assert srd("5e-database-2024.json") == {
        "Reed Stalker": {"hp": 33, "ac": 15, "dex": 3, "init": 3, "speed": 30, "legendary": 0, "pc": 0,
                         "resist": "psychic", "con": 1, "actions": "Vanish: bonus",
                         "senses": "passive 14"},
        "Marsh Wyrm": WYRM_2024,
    }


def test_open5e_v1_page() -> None:
    found = read(FIXTURES / "open5e-v1.json")
    assert found.format == "Open5e v1"
    assert srd("open5e-v1.json") == {
        # legendary_desc says "can take 2 legendary actions"; the damage string splits on ; and ,
        "Fen Hag": {"hp": 82, "ac": 17, "dex": 2, "init": 2, "speed": 30, "legendary": 2, "pc": 0,
                    "resist": "cold, bludgeoning, piercing", "con": 3, "immune": "charmed",
                    "actions": "Claws: melee +6; Curse: legendary", "senses": "darkvision 60"},
        "Mire Rat": {"hp": 1, "ac": 10, "dex": 0, "init": 0, "speed": 20, "legendary": 0, "pc": 0, "con": -1,
                     "senses": "passive 10"},  # "passive Perception 10"
        "Marsh Wyrm": {**WYRM_2024, "senses": "darkvision 60, passive 10"},
    }
    assert found.creatures["Mire Rat"].hit_dice == HitDice(1, 4, -1)


def test_open5e_v2_page() -> None:
    found = read(FIXTURES / "open5e-v2.json")
    assert found.format == "Open5e v2"
    # initiative_bonus 3 wins over the Dex modifier (+1); a LEGENDARY_ACTION row: 3 a round.
    assert srd("open5e-v2.json") == {
        "Bog Lurker": {"hp": 22, "ac": 13, "dex": 1, "init": 3, "speed": 20, "legendary": 3, "pc": 0,
                       "resist": "Cold", "vulnerable": "Fire", "con": 1, "actions": "Mud Spit: recharge 5; Sink: legendary",
                       "senses": "passive 10"},
        # initiative_bonus -1; damage immunities keep the file's case (Acid), conditions are lower-cased.
        "Marsh Wyrm": {**WYRM_2024, "immune": "Acid, poisoned"},
    }


def test_improved_initiative_stat_blocks_and_characters() -> None:
    found = read(FIXTURES / "improved-initiative.json")
    assert found.format == "Improved Initiative"
    assert srd("improved-initiative.json") == {
        # Mud Spit's Content ("A glob.") says nothing the fight uses: the name alone.
        "Bog Lurker": {"hp": 22, "ac": 13, "dex": 1, "init": 1, "speed": 20, "legendary": 0, "pc": 0, "resist": "cold",
                       "con": 1, "actions": "Mud Spit"},
        # Free text in the SRD's wording; LegendaryActions and no count: 3.
        "Marsh Wyrm": {**WYRM_2024, "legendary": 3,
                       "actions": WYRM + "; Tail Attack: legendary; Wing Attack: legendary 2", "senses": "darkvision 60"},
        # Dex 16: +3, plus InitiativeModifier 2 = 5; a persistent character is a player character.
        "Aldra": {"hp": 31, "ac": 16, "dex": 3, "init": 5, "speed": 30, "legendary": 0, "pc": 1, "con": 1},
    }
    assert found.creatures["Bog Lurker"].hit_dice == HitDice(4, 8, 4)  # from HP.Notes "(4d8+4)"
    assert found.creatures["Aldra"].current == 20


def test_improved_initiative_fight_in_progress() -> None:
    fight = read(FIXTURES / "improved-initiative.json").fights["default"]
    assert (fight.round, fight.acting) == (2, "Aldra")
    lurker, aldra = fight.seats
    assert (lurker.name, lurker.hp, lurker.temp_hp, lurker.initiative) == ("Bog Lurker 1", 5, 0, 14)
    assert lurker.tags == (Tag("Prone", 1, "StartOfTurn", "Bog Lurker 1"),)
    assert (aldra.name, aldra.hp, aldra.temp_hp, aldra.initiative) == ("Aldra", 20, 4, 17)
    assert aldra.tags == (Tag("Blessed"),)  # DurationRemaining -1: untimed
    saved = read(FIXTURES / "improved-initiative.json").fights["Causeway"]
    assert [(s.name, s.hp) for s in saved.seats] == [("Bog Lurker 1", 22), ("Bog Lurker 2", 22)]


# The vital figure's stat in each ruleset, from its `stats` (docs/rulesets/): what 22 hit points become.
VITAL_STATS = {"ap-countdown": "hits", "percent-activity": "hits", "modular": "health", "crisis": "health"}


@pytest.mark.parametrize("ruleset_id", sorted(BUILT_IN))
def test_each_ruleset_takes_the_vital_figure_and_names_the_rest(ruleset_id: str) -> None:
    creature = read(FIXTURES / "5e-database-2014.json").creatures["Bog Lurker"]
    stats, lines = stats_for(creature, get_ruleset(ruleset_id))
    if ruleset_id == "srd-5.2":  # its stats are the stat block's: nothing left to name
        # hit_points 22, armor_class 13, dexterity 12: (12 - 10) // 2 = +1, the initiative modifier too
        # (no initiative field in the 2014 shape), speed.walk "20 ft.", damage_resistances ["cold"].
        assert stats == {"hp": "22", "ac": "13", "dex": "1", "init": "1", "speed": "20", "legendary": "0",
                         "pc": "0", "resist": "cold", "con": "1",
                         "actions": "Mud Spit: 3d6 acid, DC 11 dex, half, recharge 5", "senses": "passive 10"}
        assert lines == []
        return
    if ruleset_id in VITAL_STATS:
        assert stats == {VITAL_STATS[ruleset_id]: "22"}
    else:  # phases counts wounds against Initiative: no hit points
        assert stats == {}
        assert "Bog Lurker: hit points (hp 22) not mapped: phases has no such stat" in lines
    # Each field it could not map, one line each: ac, dex, init, speed, resist (and hp in phases).
    named = [line.split("(")[1].split(" ")[0] for line in lines]
    assert sorted(named) == sorted(["ac", "dex", "init", "speed", "resist", "con", "actions", "senses"] + (["hp"] if ruleset_id == "phases" else []))


def test_a_stat_of_the_same_name_elsewhere_is_not_taken() -> None:
    """crisis's `speed` is a modifier: 30 feet must not become Speed +30."""
    creature = read(FIXTURES / "improved-initiative.json").creatures["Aldra"]
    stats, lines = stats_for(creature, get_ruleset("crisis"))
    assert "speed" not in stats
    assert "Aldra: speed in feet (speed 30) not mapped: crisis has no such stat" in lines


def test_rolled_hit_points_are_the_typed_faces_plus_the_bonus() -> None:
    lurker = read(FIXTURES / "5e-database-2014.json").creatures["Bog Lurker"]  # 4d8+4
    assert rolled_hp(lurker, (1, 2, 3, 4)) == 14  # 1 + 2 + 3 + 4 + 4
    rat = read(FIXTURES / "open5e-v1.json").creatures["Mire Rat"]  # 1d4-1
    assert rolled_hp(rat, (1,)) == 1  # 1 - 1 = 0, and a monster has at least 1
    with pytest.raises(BadInput, match=r"takes 4 faces from 1 to 8 \(4d8\+4\), not 1,2,3"):
        rolled_hp(lurker, (1, 2, 3))
    with pytest.raises(BadInput, match="not 1,2,3,9"):
        rolled_hp(lurker, (1, 2, 3, 9))


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.json")))
def test_roster_check_reads_every_format(name: str) -> None:
    entries = roster.load(FIXTURES / name)
    assert entries and all(e.imported is not None for e in entries.values())
    assert roster.check(FIXTURES / name, get_ruleset("percent-activity")) != []  # qu is not in any stat block


def test_add_from_a_stat_block_file(cli: Cli) -> None:
    cli.ok("new", "Causeway", "--rules", "modular", "--seed", "1")
    out = cli.ok("add", "Marsh Wyrm", "--from", str(FIXTURES / "5e-database-2014.json"), "--stat", "agility=20",
                 "--stat", "dodge=10", "--hp", "rolled", "--roll", "Marsh Wyrm=1,1,1,1,1,1,1,1,1,1,1,2")
    # 12d12+72 with eleven 1s and a 2: 13 + 72 = 85 health.
    assert "Marsh Wyrm joins the foes side (health 85, agility 20, dodge 10" in out
    assert "Marsh Wyrm: legendary actions a round (legendary 3) not mapped: modular has no such stat" in out
    out = cli.ok("add", "Aldra", "--from", str(FIXTURES / "improved-initiative.json"), "--stat", "agility=30",
                 "--stat", "dodge=12")
    assert "Aldra joins the players side" in out
    assert "Aldra comes in from Improved Initiative, PersistentCharacters.pc1 (its current hit points), vital figure 20" in out
    state = json.loads(cli.ok("state", "--json"))
    vitals = {c["name"]: (c["vital"]["value"], c["vital"]["maximum"]) for c in state["combatants"]}
    assert vitals == {"Marsh Wyrm": (85, 85), "Aldra": (20, 31)}


def test_set_up_a_saved_fight_in_progress(cli: Cli) -> None:
    out = cli.ok("new", "Bog", "--rules", "ap-countdown", "--from", str(FIXTURES / "improved-initiative.json"),
                 "--stat", "qu=0")
    for line in ("the fight was at round 2, Aldra acting: ap-countdown cannot take up a round under way, so it "
                 "starts before its first `round`",
                 "Bog Lurker 1: initiative 14 not mapped: ap-countdown rolls its own",
                 "Aldra: temporary hit points 4 not mapped: ap-countdown has none",
                 "Aldra: tag 'blessed' not mapped: "):
        assert line in out
    state = json.loads(cli.ok("state", "--json"))
    got = {c["name"]: (c["side"], c["vital"]["value"], c["vital"]["maximum"], [(e["kind"], e["left"]) for e in c["effects"]])
           for c in state["combatants"]}
    assert got == {"Bog Lurker 1": ("foes", 5, 22, [("prone", 1)]), "Aldra": ("players", 20, 31, [])}
    log = cli.ok("log")
    assert "Bog Lurker 1 comes in from Improved Initiative file 'improved-initiative.json', fight 'default', vital figure 5" in log


def test_a_saved_fight_in_progress_into_srd_holds_temporary_hit_points_and_initiative(cli: Cli) -> None:
    """The fixture's autosaved fight: Bog Lurker CurrentHP 5 of 22, Initiative 14, Prone for 1;
    Aldra CurrentHP 20 of 31, TemporaryHP 4, Initiative 17, Blessed; round 2, Aldra (c2) acting.
    srd-5.2 holds temporary hit points (srd-5.2-combat.md §8) and a fixed initiative order (§2):
    they come in, unnamed, and the fight is taken up at round 2, Aldra's turn under way
    (tests/imports/test_resume.py)."""
    out = cli.ok("new", "Bog", "--rules", "srd-5.2", "--from", str(FIXTURES / "improved-initiative.json"))
    assert "the fight was at round" not in out and "cannot take up" not in out
    assert "not mapped: srd-5.2 rolls its own" not in out and "temporary hit points" not in out
    got = {c["name"]: c for c in json.loads(cli.ok("state", "--json"))["combatants"]}
    assert (got["Aldra"]["vital"]["value"], got["Aldra"]["vital"]["maximum"], got["Aldra"]["own"]["temp"]) == (20, 31, 4)
    assert (got["Aldra"]["own"]["initiative"], got["Bog Lurker 1"]["own"]["initiative"]) == (17, 14)
    assert (got["Bog Lurker 1"]["vital"]["value"], got["Bog Lurker 1"]["own"]["temp"]) == (5, 0)
    assert "Aldra comes in from Improved Initiative file 'improved-initiative.json', fight 'default', " \
           "vital figure 20, initiative 17, temp 4" in cli.ok("log")
    # Taken up in the order of the held scores, though the file lists the Lurker first: 17 before 14.
    assert "Round 2 begins: initiative Aldra 17, Bog Lurker 1 14; order Aldra, Bog Lurker 1; taken up" in out
    assert json.loads(cli.ok("state", "--json"))["clock"]["now"] == ["Aldra"]
    # With the resumption undone, the first round places them by the held scores, no d20 typed or rolled.
    cli.ok("undo")
    cli.ok("round")
    assert "Round 1 begins: initiative Bog Lurker 1 14, Aldra 17; order Aldra, Bog Lurker 1" in cli.ok("log")
    assert json.loads(cli.ok("state", "--json"))["clock"]["now"] == ["Aldra"]


def test_an_unknown_json_file_is_one_error_and_records_nothing(cli: Cli, tmp_path: Path) -> None:
    cli.ok("new", "Causeway", "--rules", "ap-countdown")
    path = tmp_path / "x.json"
    path.write_text('{"monsters": []}')
    before = cli.ok("log", "--all")
    error = cli.fails("add", "Orc", "--from", str(path))
    assert cli.ok("log", "--all") == before
    assert "is JSON in no format skirmish reads (5e-database or Open5e monsters, an Improved Initiative export)" in error


def _lurker() -> dict[str, Any]:
    data: list[dict[str, Any]] = json.loads((FIXTURES / "5e-database-2014.json").read_text())
    return data[0]


@pytest.mark.parametrize(("field", "value", "error"), [
    ("hit_points", "22", "entry 1 ('Bog Lurker'): hit_points must be a whole number, not '22'"),
    ("hit_points", 0, "entry 1 ('Bog Lurker'): hit_points is out of range (1 to 1,000,000), not 0"),
    ("hit_points", 10**7, "hit_points is out of range"),
    ("name", "Bog\x1b[2JLurker", "entry 1: name 'Bog\\x1b[2JLurker' holds \\x1b"),
    ("name", "=x", "entry 1 ('=x'): name '=x' cannot be a combatant's name"),
    ("hit_points_roll", "4d7+4", "hit_points_roll '4d7+4' is not dice a stat block rolls"),
    ("armor_class", [], "armor_class must be a list of {type, value}"),
    ("damage_resistances", ["cold\u202e"], "damage_resistances 'cold\\u202e' holds"),
    ("speed", {"walk": "fast"}, "speed.walk is not a speed in feet: 'fast'"),
])
def test_a_malformed_entry_is_one_error_naming_entry_and_field(tmp_path: Path, field: str, value: Any, error: str) -> None:
    entry = _lurker() | {field: value}
    path = tmp_path / "m.json"
    path.write_text(json.dumps([entry]))
    with pytest.raises(BadInput) as caught:
        read(path)
    assert error in str(caught.value)
    assert "\n" not in str(caught.value)


def test_players_page_hides_a_carried_foes_figure(cli: Cli, tmp_path: Path) -> None:
    cli.ok("new", "Bog", "--rules", "ap-countdown", "--from", str(FIXTURES / "improved-initiative.json"),
           "--stat", "qu=0")
    page = tmp_path / "players.html"
    cli.ok("export", "--format", "html", "--for", "players", "--out", str(page))
    html = page.read_text()
    assert "Bog Lurker 1 comes in from an earlier fight" in html
    assert "vital figure 5" not in html  # the foe's hit points there are the GM's
    assert "Aldra comes in from Improved Initiative file" in html  # the party's own figure is theirs


def test_the_cut_down_fight_of_formats_md_takes_the_files_stat_block() -> None:
    """formats.md's example: the combatant's StatBlock is only its name; II fills the rest."""
    found = read(FIXTURES / "improved-initiative-cut.json")
    fight = found.fights["default"]
    assert (fight.round, fight.acting) == (2, "Bog Lurker")  # ActiveCombatantId c1
    (seat,) = fight.seats
    assert (seat.name, seat.hp, seat.creature.hp, seat.initiative) == ("Bog Lurker", 5, 22, 14)
    assert seat.tags == (Tag("Prone", 1, "StartOfTurn", "Bog Lurker"),)


def test_a_fight_that_cannot_be_set_up_records_nothing(cli: Cli) -> None:
    cli.ok("new", "Before", "--rules", "ap-countdown")
    before = (cli.ok("encounters"), cli.ok("log", "--all"))
    # No --stat qu: the second combatant's add is refused after the first was decided.
    error = cli.fails("new", "Bog", "--rules", "ap-countdown", "--from", str(FIXTURES / "improved-initiative.json"))
    assert error == "Error: Bog Lurker 1 needs --stat qu=N (Quickness bonus, added to initiative)"
    assert (cli.ok("encounters"), cli.ok("log", "--all")) == before
    error = cli.fails("new", "Bog", "--rules", "ap-countdown", "--from", str(FIXTURES / "improved-initiative.json"),
                      "--fight", "Brawl")
    assert error == f"Error: {str(FIXTURES / 'improved-initiative.json')!r} has no saved fight 'Brawl' (fights: Causeway, default)"


@pytest.mark.parametrize(("args", "error"), [
    (("--hp", "rolled"), "Error: --hp rolled takes the GM's faces for Bog Lurker's 4d8+4: --roll 'Bog Lurker'=FACES"),
    (("--hp", "rolled", "--roll", "Bog Lurker=1,2,3,4", "--count", "2"),
     "Error: --count adds copies of one stat block; rolled hit points come in one at a time"),
    (("--roll", "Bog Lurker=1,2,3,4"), "Error: --roll goes with --hp rolled on an imported stat block"),
    (("--hp", "max"), "Error: --hp takes average or rolled, not 'max'"),
])
def test_hit_point_refusals(cli: Cli, args: tuple[str, ...], error: str) -> None:
    cli.ok("new", "Causeway", "--rules", "ap-countdown")
    assert cli.fails("add", "Bog Lurker", "--from", str(FIXTURES / "5e-database-2014.json"), "--stat", "qu=0",
                     *args) == error


def test_a_rolled_hit_point_add_from_a_toml_roster_is_refused(cli: Cli) -> None:
    cli.ok("new", "Causeway", "--rules", "ap-countdown")
    roster_file = Path(__file__).resolve().parents[2] / "samples" / "rosters" / "bestiary.toml"
    assert cli.fails("add", "Orc", "--from", str(roster_file), "--hp", "rolled") == (
        "Error: --hp and --roll go with a stat block imported --from a JSON file")


def test_roster_check_of_a_stat_block_file_names_what_is_left_out(cli: Cli) -> None:
    error = cli.fails("roster", "check", str(FIXTURES / "open5e-v2.json"), "--rules", "crisis")
    # crisis needs int, speed and endurance, which no stat block gives (typed with --stat at `add`)
    assert "Bog Lurker needs --stat int=N" in error
    assert [line for line in cli.out.splitlines() if line.startswith("Bog Lurker:")] == [
        f"Bog Lurker: {what} not mapped: crisis has no such stat" for what in (
            "armour class (ac 13)", "Dexterity modifier (dex 1)", "initiative modifier (init 3)", "speed in feet (speed 20)",
            "Constitution saving throw modifier (con 1)", "legendary actions a round (legendary 3)",
            "damage resistances (resist Cold)", "damage vulnerabilities (vulnerable Fire)",
            "stat block actions (actions Mud Spit, Sink)", "senses (senses passive 10)")
    ]


def test_a_character_in_the_library_and_among_persistent_characters_is_the_persistent_one(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "improved-initiative.json").read_text())
    data["Creatures.al1"] = {"Id": "al1", "Name": "Aldra", "Player": "player", "HP": {"Value": 31, "Notes": ""}}
    path = tmp_path / "ii.json"
    path.write_text(json.dumps(data))
    assert read(path).creatures["Aldra"].current == 20
    data["PersistentCharacters.pc2"] = data["PersistentCharacters.pc1"] | {"Id": "pc2"}
    path.write_text(json.dumps(data))
    with pytest.raises(BadInput, match="'PersistentCharacters.pc2': Name is given twice in the export"):
        read(path)


def test_a_stat_block_file_has_no_fight_to_set_up(cli: Cli) -> None:
    path = FIXTURES / "open5e-v1.json"
    assert cli.fails("new", "Bog", "--rules", "modular", "--from", str(path)) == (
        f"Error: {str(path)!r} holds no saved fight (Open5e v1): `add NAME --from` takes its stat blocks")


def test_a_characters_current_hit_points_are_named_where_the_ruleset_has_none(cli: Cli) -> None:
    cli.ok("new", "Gate", "--rules", "phases")
    out = cli.ok("add", "Aldra", "--from", str(FIXTURES / "improved-initiative.json"), "--stat", "initiative=4")
    assert "Aldra: current hit points 20 not mapped: phases has none" in out
    assert "Aldra: hit points (hp 31) not mapped: phases has no such stat" in out


def test_a_stat_block_file_the_size_of_the_whole_5e_database_is_read_and_a_larger_one_refused(
        cli: Cli, tmp_path: Path) -> None:
    """The 5e-database 2014 monster list is about 1.34 MB: read whole. JSON stat block files stop at
    8,000,000 bytes, refused unread; a TOML roster still stops at 1,000,000 bytes."""
    lurker = json.loads((FIXTURES / "5e-database-2014.json").read_text())[0]
    assert lurker["name"] == "Bog Lurker"
    many = [lurker | {"index": f"bog-lurker-{i}", "name": f"Bog Lurker {i:04}", "desc": "A lurker. " * 50}
            for i in range(1500)]
    big = tmp_path / "monsters.json"
    big.write_text(json.dumps(many, indent=2))
    assert 1_340_000 < big.stat().st_size < 8_000_000
    cli.ok("new", "Bog", "--rules", "srd-5.2")
    cli.ok("add", "Bog Lurker 1499", "--from", str(big))
    got = json.loads(cli.ok("state", "--json"))["combatants"]
    assert [(c["name"], c["vital"]["value"], c["own"]["ac"]) for c in got] == [("Bog Lurker 1499", 22, 13)]
    huge = tmp_path / "huge.json"
    huge.write_bytes(b'[{"name": "Bog Lurker"}' + b" " * 8_000_000 + b"]")
    before = cli.ok("log")
    assert cli.fails("add", "Bog Lurker", "--from", str(huge)) == (
        f"Error: file {str(huge)!r} is over 8,000,000 bytes: not a roster or stat block file")
    toml = tmp_path / "party.toml"
    toml.write_bytes(b"#" + b"x" * 1_000_000 + b"\n")
    assert cli.fails("add", "Hauser", "--from", str(toml)) == (
        f"Error: roster {str(toml)!r} is over 1,000,000 bytes: not a roster")
    assert cli.ok("log") == before


@pytest.mark.parametrize(("text", "shape"), [
    ('[["Orc", 12], ["Goblin", 7]]', "a list of lists"),
    ("[1, 2, 3]", "a list of numbers"),
    ('["Orc", "Goblin"]', "a list of text"),
    ("42", "a number"),
])
def test_json_of_another_shape_is_named_as_json_not_as_broken_toml(
    cli: Cli, tmp_path: Path, text: str, shape: str
) -> None:
    """Before: "roster 'F' is not valid TOML" for a JSON list of lists (issue 38, item 5)."""
    cli.ok("new", "Causeway", "--rules", "ap-countdown")
    path = tmp_path / "party.json"
    path.write_text(text)
    expected = (f"Error: file {str(path)!r} is JSON, but not a stat block file skirmish reads ({shape}; "
                "5e-database, Open5e or Improved Initiative JSON expected)")
    assert cli.fails("add", "Orc", "--from", str(path)) == expected
    assert cli.fails("roster", "check", str(path), "--rules", "ap-countdown") == expected
    path.write_text("[Orc]\nap-countdown = { qu = ")  # broken TOML is still said as that
    assert "is not valid TOML" in cli.fails("add", "Orc", "--from", str(path))
