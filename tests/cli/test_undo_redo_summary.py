"""`undo N` and `redo N` over more than three commands say how many, the latest and the earliest
(or the first and the last), in three lines; up to three they name each, as before (issue 38,
item 4: `undo 100000` on a fight of 5,000 commands printed one line of 123 KB)."""

from __future__ import annotations

import pytest

from skirmish.eventlog.commands import AddCombatant, Damage
from skirmish.projections.write.engine import LogFile

from support.cli import Cli

DAMAGES = 4_998  # with `new` and `add`: a fight of 5,000 commands


@pytest.fixture(scope="module")
def long_fight(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The file of a fight of 5,000 commands, made once: the library appends the damages in
    one transaction (a command line each would take minutes)."""
    db = tmp_path_factory.mktemp("long") / "long.db"
    with LogFile(str(db), create=True) as log_file:
        log_file.new("Long", "ap-countdown", {}, "new Long --rules ap-countdown", seed=1)
        enc = log_file.open()
        enc.execute(AddCombatant(name="Orc", stats={"qu": "1", "hits": "100000"}), "add Orc --stat qu=1 --stat hits=100000")
        with log_file.batch():
            for i in range(DAMAGES):
                amount = 1 + i % 7
                enc.execute(Damage(who="Orc", amount=amount), f"damage Orc {amount}")
    return db.read_bytes()


@pytest.mark.slow
def test_undo_and_redo_of_a_whole_long_fight_say_it_in_three_short_lines(cli: Cli, long_fight: bytes) -> None:
    with open(cli.db, "wb") as f:
        f.write(long_fight)
    last = 2 + DAMAGES  # the last damage's event: one event a command after `new`
    last_text = f"damage Orc {1 + (DAMAGES - 1) % 7}"
    out = cli.ok("undo", "100000")
    assert out.splitlines() == [
        "Undid 4,999 commands: branch 'main' is back at #1",
        f"  the latest: `{last_text}` (#{last})",
        "  the earliest: `add Orc --stat qu=1 --stat hits=100000` (#2)",
    ]
    out = cli.ok("redo", "100000")
    assert out.splitlines() == [
        f"Redid 4,999 commands: branch 'main' is at #{last}",
        "  the first: `add Orc --stat qu=1 --stat hits=100000` (#2)",
        f"  the last: `{last_text}` (#{last})",
    ]
    assert cli.ok("state").startswith(f"Long (ap-countdown), branch main, at #{last}")


def test_up_to_three_commands_are_named_each_and_four_are_summed_up(cli: Cli) -> None:
    cli.ok("new", "Fight", "--rules", "ap-countdown")
    cli.ok("add", "Orc", "--stat", "qu=1", "--stat", "hits=90")
    for amount in (1, 2, 3, 4):
        cli.ok("damage", "Orc", str(amount))  # events 3 to 6
    assert cli.ok("undo", "3") == (
        "Undid `damage Orc 4`; `damage Orc 3`; `damage Orc 2`: branch 'main' is back at #3\n")
    assert cli.ok("redo", "3") == "Redid `damage Orc 2`; `damage Orc 3`; `damage Orc 4`: branch 'main' is at #6\n"
    assert cli.ok("undo", "4") == (
        "Undid 4 commands: branch 'main' is back at #2\n"
        "  the latest: `damage Orc 4` (#6)\n"
        "  the earliest: `damage Orc 1` (#3)\n")
    assert cli.ok("redo", "4") == (
        "Redid 4 commands: branch 'main' is at #6\n"
        "  the first: `damage Orc 1` (#3)\n"
        "  the last: `damage Orc 4` (#6)\n")
