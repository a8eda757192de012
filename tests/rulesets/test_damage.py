"""Damage dealt and taken, in each ruleset's own count, with the attacker worked out from
the events and the commands they were recorded under (projections/damage.py).

Every figure is worked by hand from the sample's script and its rules text."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.cli import Cli

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def figures(cli: Cli, sample: str) -> dict[str, tuple[int, int]]:
    """Each combatant's (dealt, taken) from the Markdown report of the sample's main branch."""
    cli.ok("run", str(SAMPLES / sample))
    table = cli.ok("export", "--format", "md").split("## Combatants")[1].split("\n\n")[1].splitlines()
    header, *cells = [[c.strip() for c in row.strip("|").split("|")] for row in table[:1] + table[2:]]
    # By name: crisis's table has Endurance beside Health.
    dealt, taken = header.index("damage dealt"), header.index("damage taken")
    return {c[0]: (int(c[dealt]), int(c[taken])) for c in cells}


@pytest.mark.parametrize(("sample", "expected"), [
    # ap-countdown.md: Hauser's 12 + 9 + 2 + 4 (charge) on the Orc; the Orc's 6 on Hauser;
    # Mira's held shot 7 and melee 4 on the Archer; the Orc bleeds 3 x 2 at the Upkeeps (no one's).
    ("bridge-ambush.skirmish", {"Hauser": (25, 6), "Mira": (11, 0), "Orc": (6, 31), "Archer": (0, 11)}),
    # modular.md: `damage Orc 6` after Hauser's sword, `damage Orc 8` after Mira's readied
    # strike resolves; the mistyped 16 was undone.
    ("courtyard-brawl.skirmish", {"Hauser": (6, 0), "Mira": (8, 0), "Orc": (0, 14)}),
    # phases.md counts wounds: Bauer wounds Rook and Vance (the serious wound on Vance was
    # undone), Kestrel wounds Rook, Sarge wounds Kestrel. Initiative lost is not damage.
    ("farmhouse-ambush.skirmish", {"Bauer": (2, 0), "Kestrel": (1, 1), "Rook": (0, 2), "Vance": (0, 1),
                                   "Sarge": (1, 0)}),
    # crisis.md, Damage: Vera's 6 on Alpha fills its 4 Endurance (2 lost past it, spill=no);
    # Jack's 4 + ability 2 on Alpha go to Health (6); Beta's 7 on Jack less DR 2 is 5 to
    # Endurance; Jack's critical 5 on Beta goes to Health less DR 1: 4. Endurance counts.
    ("hangar-breach.skirmish", {"Jack": (10, 5), "Vera": (4, 0), "Alpha": (0, 10), "Beta": (5, 4)}),
    # percent-activity.md: Hauser 12 and Mira 6 on the Orc, which bleeds 2 at each of two
    # upkeeps (no one's); the Orc's 8 on Hauser (the 20 typed after it was undone).
    ("gatehouse-percent.skirmish", {"Hauser": (12, 8), "Mira": (6, 0), "Orc": (8, 22)}),
])
def test_dealt_and_taken_in_every_ruleset(cli: Cli, sample: str, expected: dict[str, tuple[int, int]]) -> None:
    assert figures(cli, sample) == expected


def test_damage_typed_after_the_clock_moved_on_is_no_ones(cli: Cli) -> None:
    cli.ok("new", "Gate", "--rules", "percent-activity")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=2,3")
    cli.ok("declare", "Hauser", "melee-attack", "--percent", "80", "--target", "Orc")
    cli.ok("damage", "Orc", "5")  # right after Hauser's attack on the Orc: his
    cli.ok("damage", "Hauser", "3")  # Hauser's own action was aimed at the Orc: no one's
    cli.ok("resolve", "Hauser", "--outcome", "miss")
    cli.ok("next")
    cli.ok("damage", "Orc", "2")  # after the clock moved on: no one's
    md = cli.ok("export", "--format", "md")
    assert "| Hauser | players | 40 -> 37 | 5 | 3 |" in md
    assert "| Orc | foes | 30 -> 23 | 0 | 7 |" in md
