"""A sixth ruleset, installed as a third-party package installs one, runs everywhere.

tests/toy holds the duel ruleset (tests/toy/toy_duel.py, rules text tests/toy/duel.md)
and a dist-info directory whose entry point registers it; nothing in skirmish names it.
tests/conftest.py puts tests/toy on the path, so the shared invariants, the view
contract and the flag refusals run it with the built-in rulesets; these tests play it
through the CLI and every audit and report command: what docs/adding-a-ruleset.md
promises a newcomer. Expected figures are
worked by hand from duel.md with the dice typed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skirmish.eventlog.commands import Heal
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.text.words import event_line

from support.cli import Cli

TOY = Path(__file__).resolve().parents[1] / "toy"


def play(cli: Cli) -> None:
    """duel.md by hand: Ann (HP 8, Speed 3), Cid (HP 5, Speed 3, joined after Ann: Rounds
    keeps the order they joined), Bob (HP 12, Speed 1)."""
    cli.ok("new", "Toy duel", "--rules", "duel", "--seed", "7")
    cli.ok("add", "Ann", "--side", "heroes", "--stat", "hp=8", "--stat", "speed=3")
    cli.ok("add", "Bob", "--side", "foes", "--stat", "hp=12", "--stat", "speed=1")
    cli.ok("add", "Cid", "--side", "heroes", "--stat", "hp=5", "--stat", "speed=3")
    cli.ok("round")
    cli.ok("declare", "Ann", "strike", "--target", "Bob", "--roll", "Ann=4")  # 4 + (3 - 1) = 6: Bob 6
    cli.ok("next")
    cli.ok("declare", "Cid", "guard")
    cli.ok("next")
    cli.ok("declare", "Bob", "strike", "--target", "Cid", "--roll", "Bob=5")  # 5, guarded: 2: Cid 3
    cli.ok("next")  # the round ends
    cli.ok("round")
    cli.ok("declare", "Ann", "strike", "--target", "Bob", "--roll", "Ann=6")  # 6 + 2 = 8: Bob -2, down
    cli.ok("next")  # Cid's turn: its guard ends
    cli.ok("declare", "Cid", "strike", "--target", "Ann", "--roll", "Cid=3")  # 3 + 0: Ann 5


def test_the_entry_point_alone_makes_it_a_ruleset(cli: Cli) -> None:
    listed = cli.ok("rules")
    assert "duel" in listed
    assert "hp (required)" in cli.ok("rules", "duel")


def test_played_through_the_cli_it_reads_as_duel_md_says(cli: Cli) -> None:
    play(cli)
    view = json.loads(cli.ok("state", "--json"))
    assert view["view"] == 2 and view["ruleset"] == "duel"
    assert view["clock"]["round"] == 2 and view["clock"]["now"] == ["Cid"]
    assert view["clock"]["next"] == [], "Bob is down: nobody acts after Cid"
    rows = {c["name"]: c for c in view["combatants"]}
    assert [c["name"] for c in view["combatants"]] == ["Ann", "Cid", "Bob"]
    assert (rows["Ann"]["vital"]["value"], rows["Bob"]["vital"]["value"], rows["Cid"]["vital"]["value"]) == (5, -2, 3)
    assert [rows[n]["status"] for n in ("Ann", "Bob", "Cid")] == ["fighting", "down", "fighting"]
    assert rows["Cid"]["effects"] == [], "the guard ends when Cid's next turn starts"
    assert rows["Ann"]["own"] == {"speed": 3}
    table = cli.ok("state")
    assert "round 2, Cid's turn" in table and "Bob" in table and "down" in table
    cli.ok("next")
    cli.ok("round")
    assert json.loads(cli.ok("state", "--json"))["clock"]["now"] == ["Ann"]
    refused = cli.fails("declare", "Bob", "strike", "--target", "Ann")
    assert refused == "Error: it is not Bob's turn: it is Ann's (duel.md, Turns)"


def test_undeclared_flags_and_actions_are_refused_in_one_line(cli: Cli) -> None:
    play(cli)
    assert cli.fails("declare", "Cid", "strike", "--target", "Ann", "--amount", "3") == (
        "Error: duel `declare` takes no --amount (it takes: --target, --feint)"
    )
    assert "has no use for `upkeep`" in cli.fails("upkeep")
    assert "no action 'kick'" in cli.fails("declare", "Cid", "kick")


def test_a_flag_of_the_duels_own_is_taken_in_its_encounters_alone(cli: Cli, tmp_path: Path) -> None:
    """`--feint` is declared in tests/toy/toy_duel.py and nowhere in skirmish: the command
    line takes it in a duel (duel.md, Feint: 1 less, and a guard does not halve it), lists
    it, refuses it where the duel does not read it, and knows nothing of it elsewhere."""
    play(cli)
    cli.ok("next")  # round 2 ends
    assert "--feint on declare: strike: a feint" in cli.ok("rules", "duel")
    assert "--feint" in cli.ok("declare", "--help")
    cli.ok("round")  # round 3: Ann, Cid (Bob is down)
    cli.ok("declare", "Ann", "guard")
    cli.ok("next")
    # Cid feints at the guarded Ann: 4 + 0 - 1 = 3, not halved (Ann 5 -> 2).
    cli.ok("declare", "Cid", "strike", "--target", "Ann", "--feint", "--roll", "Cid=4")
    struck = json.loads(cli.ok("log", "--json").splitlines()[-1])
    assert (struck["damage"]["value"], struck["damage"]["rule"], struck["hp_left"]) == (3, "duel.md, Feint", 2)
    assert cli.fails("resolve", "Cid", "--feint").startswith("Error: No such option: --feint")
    assert cli.fails("declare", "Cid", "strike", "--with", "feint=no") == (
        "Error: --with feint= takes yes, not 'no' (or --feint)"
    )
    other = Cli(str(tmp_path / "other.db"), cli.capsys)
    other.ok("new", "Bridge", "--rules", "ap-countdown")
    assert other.fails("declare", "Ann", "strike", "--feint").startswith("Error: No such option: --feint")


def test_the_console_completes_a_flag_of_the_duels_own(cli: Cli) -> None:
    from skirmish.cli.session import Completer, Session

    play(cli)
    session = Session(cli.db)
    try:
        assert Completer(session).candidates("declare Ann strike --fe") == ["declare Ann strike --feint"]
        assert Completer(session).candidates("resolve Ann --fe") == []
    finally:
        session.close()


def test_explain_why_and_the_report_of_a_duel(cli: Cli) -> None:
    play(cli)
    log = [json.loads(line) for line in cli.ok("log", "--json").splitlines()]
    guarded_hit = next(e for e in log if e["kind"] == "duel.struck" and e["target"] == "Cid")
    explained = cli.ok("explain", str(guarded_hit["id"]))
    assert "damage: 2 = floor((1d6) / 2), guarded" in explained
    assert "1d6 = 5 = 5 (the GM's dice)" in explained and "rule: duel.md, Guard" in explained
    why = cli.ok("why", "Bob", "HP")
    assert why.startswith("Bob HP: 12 at the start, now -2")
    assert "12 -> 6" in why and "6 -> -2" in why
    report = cli.ok("export", "--format", "md")
    dealt_taken = {}
    for line in report.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) > 4 and cells[0] in ("Ann", "Bob", "Cid") and "->" in cells[2]:
            dealt_taken[cells[0]] = (cells[2], int(cells[3]), int(cells[4]))
    assert dealt_taken == {
        "Ann": ("8 -> 5", 6 + 8, 3),
        "Bob": ("12 -> -2", 2, 6 + 8),
        "Cid": ("5 -> 3", 3, 2),
    }
    assert "## HP over rounds" in report
    assert '<script type="application/json" id="replay-data">' in cli.ok("export", "--format", "html")


def test_export_and_import_keep_the_duel_whole(cli: Cli, tmp_path: Path) -> None:
    play(cli)
    before = json.loads(cli.ok("state", "--json"))
    digest = cli.ok("verify").split()[-1]
    dump = tmp_path / "duel.jsonl"
    cli.ok("export", "--out", str(dump))
    other = Cli(str(tmp_path / "other.db"), cli.capsys)
    other.ok("import", str(dump))
    assert json.loads(other.ok("state", "--json")) == before
    assert other.ok("verify").split()[-1] == digest


def test_heal_brings_a_downed_combatant_back_to_its_turn(cli: Cli) -> None:
    play(cli)
    store = Store(cli.db)
    try:
        enc = Encounter.open(store)
        (healed,) = enc.execute(Heal(who="bob", amount=5), "heal bob 5")
        assert event_line(enc, healed) == "Bob is healed 5 HP (3 HP left)"  # -2 + 5
        assert enc.view().combatant("Bob").status == "fighting"
    finally:
        store.close()
    # Still round 2: Bob's turn comes after Cid's, since it is no longer down.
    assert json.loads(cli.ok("state", "--json"))["clock"]["next"] == ["Bob"]
    cli.ok("next")
    assert json.loads(cli.ok("state", "--json"))["clock"]["now"] == ["Bob"]


@pytest.mark.slow
def test_the_installed_command_finds_it_through_the_entry_point(tmp_path: Path) -> None:
    """No monkeypatching: the console script, with tests/toy on PYTHONPATH, as a user's
    installed package would be found."""
    script = Path(sys.executable).with_name("skirmish")
    env = {**os.environ, "PYTHONPATH": str(TOY), "SKIRMISH_DB": str(tmp_path / "x.db")}
    found = subprocess.run([script, "rules", "duel"], capture_output=True, text=True, env=env, check=False)
    assert found.returncode == 0 and found.stdout.startswith("duel (duel.md)"), found.stderr
    env.pop("PYTHONPATH")
    missing = subprocess.run([script, "new", "x", "--rules", "duel"], capture_output=True, text=True, env=env,
                             check=False)
    assert missing.returncode != 0 and "no ruleset 'duel'" in missing.stderr


def test_a_what_if_branch_diffed_and_a_strike_amended(cli: Cli) -> None:
    play(cli)
    log = [json.loads(line) for line in cli.ok("log", "--json").splitlines()]
    second_strike = next(e for e in log if e["kind"] == "duel.struck" and e["damage"]["value"] == 8)
    # What if Ann had rolled a 1 there: 1 + 2 = 3, Bob at 6 - 3 = 3 and still standing.
    cli.ok("amend", str(second_strike["id"]), "--branch", "low-roll", "--",
           "declare", "Ann", "strike", "--target", "Bob", "--roll", "Ann=1")
    cli.ok("switch", "low-roll")
    bob = next(c for c in json.loads(cli.ok("state", "--json"))["combatants"] if c["name"] == "Bob")
    assert (bob["vital"]["value"], bob["status"]) == (3, "fighting")
    diff = cli.ok("diff", "main", "low-roll")
    assert " split after #" in diff and "Bob" in diff and "-2" in diff and "3" in diff
