"""Imports where a slip went unnoticed (mutation testing, docs/contributing.md): the limits of what a file's
field may hold and how a refusal quotes it, the lines naming what a ruleset leaves out, and
a saved fight's tags and seat names as they come into another ruleset.

Each case changes one field of a fixture of tests/fixtures/imports/ (formats.md, sections 1 to
3); what it must read as, or the one line refusing it, is worked by hand from the field:
a quoted input is its repr cut to the limit the message gives it (40 characters of a
value, 60 of a key), then "… (N characters)".
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from skirmish.eventlog.errors import BadInput
from skirmish.projections.write.imports import read
from skirmish.projections.write.imports.mapping import rolled_hp, stats_for
from skirmish.projections.write.imports.record import HitDice
from skirmish.projections.ruleset import LARGEST, get_ruleset

from support.cli import Cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"


def written(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def fixture(name: str) -> Any:
    return copy.deepcopy(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def refusal(path: Path) -> str:
    with pytest.raises(BadInput) as info:
        read(path)
    return str(info.value)


# --- Improved Initiative: hit points and Dexterity at their floor -------------------------------------


@pytest.mark.parametrize(("field", "value", "reads"), [("HP", 1, 1), ("Dex", 1, -5)])
def test_an_improved_initiative_floor_is_taken(tmp_path: Path, field: str, value: int, reads: int) -> None:
    """1 hit point is a creature; Dexterity 1 is the lowest score, modifier (1 - 10) / 2 = -5 (rounded down)."""
    data = fixture("improved-initiative.json")
    if field == "HP":
        data["Creatures.bl1"]["HP"]["Value"] = value
    else:
        data["Creatures.bl1"]["Abilities"]["Dex"] = value
    lurker = read(written(tmp_path, "ii.json", data)).creatures["Bog Lurker"]
    assert (lurker.hp if field == "HP" else lurker.dex) == reads


@pytest.mark.parametrize(("field", "low"), [("HP", 1), ("Dex", 1)])
def test_an_improved_initiative_value_below_its_floor_is_refused(tmp_path: Path, field: str, low: int) -> None:
    data = fixture("improved-initiative.json")
    if field == "HP":
        data["Creatures.bl1"]["HP"]["Value"] = low - 1
    else:
        data["Creatures.bl1"]["Abilities"]["Dex"] = low - 1
    path = written(tmp_path, "ii.json", data)
    key = "Value" if field == "HP" else "Dex"
    assert refusal(path) == (f"Improved Initiative export {str(path)!r}, entry 'Creatures.bl1': {key} is out of range "
                             f"({low} to {LARGEST:,}), not {low - 1}")


LONG_ID = "x" * 52  # "Creatures." + 52 characters: a key of 62, one past the 60 a message quotes


def test_a_long_key_is_quoted_to_60_characters(tmp_path: Path) -> None:
    key = f"Creatures.{LONG_ID}"
    cut = f"{key[:60]!r}… (62 characters)"
    not_json = written(tmp_path, "a.json", {key: "{not json"})
    assert refusal(not_json) == f"Improved Initiative export {str(not_json)!r}, {cut}: its text is not valid JSON"
    not_object = written(tmp_path, "b.json", {key: [1]})
    assert refusal(not_object) == f"Improved Initiative export {str(not_object)!r}, {cut}: an entry is an object"
    no_hp = written(tmp_path, "c.json", {key: {"Name": "Bog Lurker"}})
    assert refusal(no_hp) == f"Improved Initiative export {str(no_hp)!r}, entry {cut}: HP must be an object, not 'None'"


# --- the fields of a monster list ---------------------------------------------------------------------


def lurker_2014(tmp_path: Path, **fields: Any) -> Path:
    data = fixture("5e-database-2014.json")
    data[0].update(fields)
    return written(tmp_path, "m.json", data)


WHERE = "5e-database (2014) file {path!r}, entry 1 ('Bog Lurker'): "


def test_a_value_that_is_no_number_is_quoted_to_40_characters(tmp_path: Path) -> None:
    path = lurker_2014(tmp_path, dexterity="y" * 41)
    cut = f"{'y' * 40!r}… (41 characters)"
    assert refusal(path) == WHERE.format(path=str(path)) + f"dexterity must be a whole number, not {cut}"


@pytest.mark.parametrize(("value", "shown"), [({"a": 1}, "'dict'"), ([12], "'list'"), (True, "'True'"), (1.5, "'1.5'")])
def test_a_value_that_is_no_number_is_named_by_its_kind_or_shown(tmp_path: Path, value: Any, shown: str) -> None:
    """An object or a list is named by its kind (its contents may be long); a bool or a
    fraction is shown as it is."""
    path = lurker_2014(tmp_path, dexterity=value)
    assert refusal(path) == WHERE.format(path=str(path)) + f"dexterity must be a whole number, not {shown}"


def test_a_speed_below_0_is_refused(tmp_path: Path) -> None:
    data = fixture("open5e-v1.json")
    data["results"][0]["speed"]["walk"] = -1
    path = written(tmp_path, "v1.json", data)
    assert refusal(path) == (f"Open5e v1 file {str(path)!r}, entry 1 ('Fen Hag'): speed.walk is out of range "
                             f"(0 to {LARGEST:,}), not -1")


@pytest.mark.parametrize(("dice", "read_as"), [("3d10+3", HitDice(3, 10, 3)), ("2d4", HitDice(2, 4)),
                                               ("1d20-1", HitDice(1, 20, -1))])
def test_hit_dice_of_every_die_a_stat_block_rolls_are_read(tmp_path: Path, dice: str, read_as: HitDice) -> None:
    assert read(lurker_2014(tmp_path, hit_points_roll=dice)).creatures["Bog Lurker"].hit_dice == read_as


def test_hit_dice_of_a_die_no_stat_block_rolls_are_refused_quoted_to_40(tmp_path: Path) -> None:
    short = lurker_2014(tmp_path, hit_points_roll="3d11")
    assert refusal(short) == WHERE.format(path=str(short)) + (
        "hit_points_roll '3d11' is not dice a stat block rolls (1 to 100 of d4 to d20)")
    spaced = "3" + " " * 39 + "d11"  # 43 characters, the hit dice's spaces and all
    long = lurker_2014(tmp_path, hit_points_roll=spaced)
    assert refusal(long) == WHERE.format(path=str(long)) + (
        f"hit_points_roll {spaced[:40]!r}… (43 characters) is not dice a stat block rolls (1 to 100 of d4 to d20)")


@pytest.mark.parametrize(("length", "taken"), [(200, True), (201, False)])
def test_a_damage_type_is_200_characters_at_most(tmp_path: Path, length: int, taken: bool) -> None:
    text = "c" * length
    path = lurker_2014(tmp_path, damage_resistances=[text])
    if taken:
        assert read(path).creatures["Bog Lurker"].resist == (text,)
    else:
        assert refusal(path) == WHERE.format(path=str(path)) + "damage_resistances is over 200 characters"


def test_a_later_entry_missing_its_hit_points_is_named_not_the_file_taken_for_another_format(tmp_path: Path) -> None:
    data = fixture("5e-database-2014.json")
    del data[1]["hit_points"]
    path = written(tmp_path, "m.json", data)
    assert refusal(path) == f"5e-database (2014) file {str(path)!r}, entry 2 ('Marsh Wyrm'): hit_points is missing"


# --- what a ruleset leaves out, said --------------------------------------------------------------------


def test_every_field_a_ruleset_cannot_hold_is_named_zeros_too_and_no_legendary_uses_are_not() -> None:
    """The Mire Rat (Open5e v1): hp 1, ac 10, Dex 11 (+0, the initiative modifier too), speed 20,
    no legendary actions. ap-countdown holds its hit points as hits; each other field is one
    line, a 0 as any other value; no legendary uses is nothing left out, and the player
    character flag is the side."""
    rat = read(FIXTURES / "open5e-v1.json").creatures["Mire Rat"]
    stats, lines = stats_for(rat, get_ruleset("ap-countdown"))
    assert stats == {"hits": "1"}
    assert lines == [f"Mire Rat: {what} not mapped: ap-countdown has no such stat" for what in (
        "armour class (ac 10)", "Dexterity modifier (dex 0)", "initiative modifier (init 0)", "speed in feet (speed 20)",
        "Constitution saving throw modifier (con -1)", "senses (senses passive 10)")]


def test_the_fields_after_the_side_are_named_too() -> None:
    """The Bog Lurker (5e-database 2014) resists cold and has an action: named after the fields before the side."""
    lurker = read(FIXTURES / "5e-database-2014.json").creatures["Bog Lurker"]
    _, lines = stats_for(lurker, get_ruleset("ap-countdown"))
    assert lines[-3:] == ["Bog Lurker: damage resistances (resist cold) not mapped: ap-countdown has no such stat",
                          "Bog Lurker: stat block actions (actions Mud Spit) not mapped: ap-countdown has no such stat",
                          "Bog Lurker: senses (senses passive 10) not mapped: ap-countdown has no such stat"]


def test_rolled_hit_points_name_the_faces_typed_or_none() -> None:
    lurker = read(FIXTURES / "5e-database-2014.json").creatures["Bog Lurker"]  # 4d8+4
    for faces, shown in (((1, 2, 3), "1,2,3"), ((), "none")):
        with pytest.raises(BadInput) as info:
            rolled_hp(lurker, faces)
        assert str(info.value) == f"--hp rolled for Bog Lurker takes 4 faces from 1 to 8 (4d8+4), not {shown}"


def test_a_saved_fights_seats_are_named_in_its_lines_and_keep_their_tags(cli: Cli) -> None:
    """The fixture's fight in progress into ap-countdown: the Bog Lurker's seat is "Bog Lurker 1"
    (IndexLabel 1), named so in each line; its Prone for 1 round comes in; Aldra's Blessed,
    with no end, is no condition ap-countdown takes without rounds: named, left out."""
    out = cli.ok("new", "Bog", "--rules", "ap-countdown", "--from", str(FIXTURES / "improved-initiative.json"),
                 "--stat", "qu=0")
    assert "Bog Lurker 1: armour class (ac 13) not mapped: ap-countdown has no such stat" in out
    assert "Bog Lurker: armour class" not in out
    assert "Aldra: tag 'blessed' not mapped: " in out
    got = {c["name"]: [(e["kind"], e["left"]) for e in c["effects"]] for c in json.loads(cli.ok("state", "--json"))["combatants"]}
    assert got == {"Bog Lurker 1": [("prone", 1)], "Aldra": []}


def test_a_monster_of_0_hit_points_is_refused(tmp_path: Path) -> None:
    """A stat block's hit points are at least 1 (the Mire Rat of open5e-v1.json has 1)."""
    path = lurker_2014(tmp_path, hit_points=0)
    assert refusal(path) == WHERE.format(path=str(path)) + f"hit_points is out of range (1 to {LARGEST:,}), not 0"
    assert read(FIXTURES / "open5e-v1.json").creatures["Mire Rat"].hp == 1
