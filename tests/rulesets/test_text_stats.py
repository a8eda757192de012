"""Text stats (``Stat(kind=str)``): recorded in CombatantAdded.traits, only when given."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from skirmish.eventlog.commands import AddCombatant
from skirmish.eventlog.errors import BadInput
from skirmish.eventlog.events import CombatantAdded
from skirmish.projections.ruleset import Rules, Stat, check_stats, check_traits, decide_add

from support.cli import Cli


class _Tiny(Rules[msgspec.Struct]):  # type: ignore[type-var]
    id = "tiny"
    stats = {"hp": Stat("hit points", minimum=1), "resist": Stat("damage types", kind=str)}


TINY = _Tiny()


def test_a_text_stat_is_recorded_as_a_trait_and_not_as_a_number() -> None:
    [added] = decide_add(TINY, [], AddCombatant(name="Ogre", stats={"hp": "59", "resist": "  fire,   cold "}))
    assert isinstance(added, CombatantAdded)
    assert added.stats == {"hp": 59}
    assert added.traits == {"resist": "fire, cold"}


def test_an_event_without_traits_is_stored_as_before() -> None:
    # An old row has no "traits" key: encoding a new one without any must give the same bytes.
    body = msgspec.json.encode(CombatantAdded(name="Ann", side="a", stats={"hp": 3}))
    assert body == b'{"type":"combatant-added","name":"Ann","side":"a","stats":{"hp":3}}'
    back = msgspec.json.decode(body, type=CombatantAdded)
    assert back == CombatantAdded(name="Ann", side="a", stats={"hp": 3})


def test_a_text_stat_is_never_required_and_refuses_control_characters() -> None:
    assert check_stats(TINY, "Ann", {"hp": "4"}) == {"hp": 4}
    assert check_traits(TINY, "Ann", {"hp": "4"}) == {}
    with pytest.raises(BadInput, match="--stat resist="):
        check_traits(TINY, "Ann", {"resist": "fire\x1b[2J"})


def test_a_ruleset_id_with_a_dot_has_a_module_name_and_back() -> None:
    from skirmish.projections.ruleset import module_of, ruleset_id_of

    assert module_of("srd-5.2") == "srd_5__2" and ruleset_id_of("srd_5__2") == "srd-5.2"
    assert module_of("ap-countdown") == "ap_countdown" and ruleset_id_of("ap_countdown") == "ap-countdown"


def test_a_roster_gives_a_text_stat_as_a_string_or_a_list(tmp_path: Path) -> None:
    from skirmish.projections import roster
    from skirmish.projections.ruleset import get_ruleset

    path = tmp_path / "r.toml"
    path.write_text('[Drone]\n"srd-5.2" = { hp = 20, ac = 17, resist = ["piercing", "slashing"], immune = "poison" }\n')
    srd = get_ruleset("srd-5.2")
    typed = roster.stats_for(roster.load(path)["Drone"], srd, path)
    assert typed == {"hp": "20", "ac": "17", "resist": "piercing,slashing", "immune": "poison"}
    assert check_traits(srd, "Drone", typed) == {"resist": "piercing,slashing", "immune": "poison"}
    path.write_text('[Drone]\n"srd-5.2" = { hp = 20, ac = 17, resist = 3.5 }\n')
    with pytest.raises(BadInput, match="srd-5.2 stat 'resist' is text or a list of texts, not '3.5'"):
        roster.load(path)
    # A number stat given as text is refused as before.
    path.write_text('[Drone]\n"srd-5.2" = { hp = "many", ac = 17 }\n')
    with pytest.raises(BadInput, match="srd-5.2 stat 'hp' must be a whole number, not 'many'"):
        roster.load(path)


def test_set_changes_resistances_and_immunities_mid_fight(cli: Cli) -> None:
    # Issue 39, finding 8. srd-5.2-combat.md §7: Resistance halves (rounded down), Immunity
    # takes none; a condition immunity refuses the condition (§7, §13).
    cli.ok("new", "Mire", "--rules", "srd-5.2")
    cli.ok("add", "Mire Rat", "--side", "foes", "--stat", "hp=20", "--stat", "ac=12")
    reply = cli.ok("set", "Mire Rat", "resist=fire,cold", "immune=charmed")
    assert "Mire Rat's stats are set: resist fire, cold, immune charmed" in reply
    assert cli.fails("effect", "Mire Rat", "charmed").startswith("Error: Mire Rat is immune to charmed")
    # 9 fire halved, rounded down: 4; 20 - 4 = 16.
    assert "Mire Rat takes 4 fire damage (16 HP left)" in cli.ok("damage", "Mire Rat", "9", "--with", "type=fire")
    again = cli.ok("set", "Mire Rat", "resist=cold")
    assert "resist fire, cold -> cold" in again
    assert cli.fails("set", "Mire Rat", "resist=cold") == "Error: Mire Rat has resist=cold already: nothing to set"
    assert cli.fails("set", "Mire Rat", "resist=lava").startswith("Error: resist=lava: 'lava' is no damage type")
    cli.ok("undo")
    assert "resist fire, cold -> cold" not in cli.ok("log")


def test_a_foes_resistances_set_mid_fight_are_not_told_to_the_players(cli: Cli, tmp_path: Path) -> None:
    from skirmish.cli.main import run_cli

    cli.ok("new", "Mire", "--rules", "srd-5.2")
    cli.ok("add", "Mire Rat", "--side", "foes", "--stat", "hp=20", "--stat", "ac=12")
    cli.ok("set", "Mire Rat", "resist=fire")
    out = tmp_path / "players.md"
    assert run_cli(["--db", cli.db, "export", "--format", "md", "--for", "players", "--out", str(out)]) == 0
    assert "- #3 Mire Rat's stats are set\n" in out.read_text()
