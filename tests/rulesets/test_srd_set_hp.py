"""`set WHO hp=N` in srd-5.2: ``hp`` is the Hit Point maximum (srd-5.2-combat.md §9), and the
damage taken is kept, as docs/tutorial.md ("set") says of every ruleset. Figures by hand."""

from __future__ import annotations

import json

from support.cli import Cli


def hp(cli: Cli, who: str) -> tuple[int, int | None]:
    combatant = next(c for c in json.loads(cli.ok("state", "--json"))["combatants"] if c["name"] == who)
    return combatant["vital"]["value"], combatant["vital"]["maximum"]


def test_a_raised_maximum_moves_what_is_left(cli: Cli) -> None:
    cli.ok("new", "t", "--rules", "srd-5.2")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "hp=15", "--stat", "ac=13")
    cli.ok("damage", "Orc", "4")
    assert hp(cli, "Orc") == (11, 15)
    assert "hp 15 -> 20" in cli.ok("set", "Orc", "hp=20")
    assert hp(cli, "Orc") == (16, 20)  # 4 taken: 20 - 4
    cli.ok("set", "Orc", "hp=10")
    assert hp(cli, "Orc") == (6, 10)  # still 4 taken
    cli.ok("set", "Orc", "hp=3")
    assert hp(cli, "Orc") == (0, 3)  # 3 - 4 is below 0: none left
    cli.ok("undo")
    cli.ok("undo")
    assert hp(cli, "Orc") == (16, 20)


def test_a_creature_at_0_stays_at_0(cli: Cli) -> None:
    cli.ok("new", "t", "--rules", "srd-5.2")
    cli.ok("add", "Ann", "--side", "party", "--stat", "hp=10", "--stat", "ac=13", "--stat", "pc=1")
    cli.ok("damage", "Ann", "10")
    cli.ok("set", "Ann", "hp=15")
    assert hp(cli, "Ann") == (0, 15)  # raising the maximum heals no one
