"""`state` at 80 columns cuts nothing a GM needs: the effects wrap under their column, or
under the row beside a long name, and every line fits."""

from __future__ import annotations

from support.cli import Cli
from support.fight import cli_fight

# ap-countdown.md: bleeding N a round and stunned for rounds are its effects; the kinds
# and details read "bleeding (2 a round)" and "stunned (1 left)" on the board.
BOTH = "bleeding (2 a round), stunned (1 left)"


def fight(cli: Cli, foe: str) -> list[str]:
    """The shared fight with both on bleeding and stunned, its board at 80 columns."""
    cli_fight(cli, "Ford", seed=None, foe=foe)
    for who in ("Hauser", foe):
        cli.ok("effect", who, "bleeding", "--per-round", "2")
        cli.ok("effect", who, "stunned", "--rounds", "1")
    lines = cli.ok("state").splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    assert not any("…" in line for line in lines), lines
    return lines


def row_and_under(lines: list[str], name: str) -> str:
    """A combatant's row and the lines that carry on its effects, joined as one text."""
    at = next(i for i, line in enumerate(lines) if line.startswith(name + " "))
    parts = [lines[at]]
    for line in lines[at + 1:]:
        if not line.startswith(" "):
            break
        parts.append(line)
    return " ".join(" ".join(parts).split())


def test_effects_wrap_under_their_column_at_80(cli: Cli) -> None:
    lines = fight(cli, "Orc")
    for name in ("Hauser", "Orc"):
        assert row_and_under(lines, name).endswith(BOTH), lines


def test_beside_a_long_name_the_effects_go_under_the_row(cli: Cli) -> None:
    long = "Orc chieftain of the Broken Tusk"
    lines = fight(cli, long)
    at = next(i for i, line in enumerate(lines) if line.startswith(long))
    assert lines[at + 1] == "    " + BOTH, lines
    assert row_and_under(lines, long).endswith(BOTH)
