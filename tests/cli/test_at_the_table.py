"""At the table, in every ruleset: rosters, the 80-column state with who acts now and
next, heal / leave / return through the CLI with explain and why, the word when a side
has nobody standing, and shell completion in a real bash."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skirmish.projections.ruleset import BUILT_IN

from support.cli import Cli

ROSTERS = Path(__file__).resolve().parents[2] / "samples" / "rosters"
PARTY, BESTIARY = ROSTERS / "party.toml", ROSTERS / "bestiary.toml"
# A round's dice for whoever is there are rolled by the tool (seeded): these tests read
# the clock, not the numbers.


def view(cli: Cli) -> dict[str, object]:
    data: dict[str, object] = json.loads(cli.ok("state", "--json"))
    return data


@pytest.mark.parametrize("ruleset", sorted(BUILT_IN))
def test_a_fight_from_the_roster_samples_reads_in_80_columns(cli: Cli, ruleset: str) -> None:
    """The party and the bestiary hold stats for every ruleset: a fight set up from them
    alone starts, and its state fits 80 columns with who acts now and who is next."""
    cli.ok("roster", "check", str(PARTY), "--rules", ruleset)
    cli.ok("roster", "check", str(BESTIARY), "--rules", ruleset)
    cli.ok("new", "From the rosters", "--rules", ruleset, "--seed", "5")
    cli.ok("add", "Hauser", "--from", str(PARTY))
    cli.ok("add", "Mira", "--from", str(PARTY))
    cli.ok("add", "Goblin", "--from", str(BESTIARY), "--count", "4")
    if ruleset != "phases":  # phases takes only its wounds and panic
        rounds = [] if ruleset == "crisis" else ["--rounds", "3"]
        cli.ok("effect", "Goblin 1", "a-very-long-effect-of-the-gms-own-making", "--custom", *rounds)
    cli.ok("round")
    names = [c["name"] for c in view(cli)["combatants"]]  # type: ignore[index]
    assert sorted(names) == ["Goblin 1", "Goblin 2", "Goblin 3", "Goblin 4", "Hauser", "Mira"]
    sides = {c["name"]: c["side"] for c in view(cli)["combatants"]}  # type: ignore[index]
    assert sides["Hauser"] == "players" and sides["Goblin 3"] == "foes"
    table = cli.ok("state")
    assert max(len(line) for line in table.splitlines()) <= 80, table
    clock = view(cli)["clock"]
    assert f"now: {', '.join(clock['now']) or '-'}" in table.splitlines()[1]  # type: ignore[index]
    assert "next: " in table.splitlines()[1]
    # Nobody declares: the clock runs the round (or turn) out to its end; in srd-5.2 the last
    # `next` of round 1 starts round 2 at once (option rounds=roll-on, srd-5.2-combat.md §1).
    rolls_on = ruleset == "srd-5.2"
    for _ in range(60):
        clock = view(cli)["clock"]
        if not clock["running"] or (rolls_on and clock["round"] == 2):  # type: ignore[index]
            break
        cli.ok("next")
    clock = view(cli)["clock"]
    if rolls_on:
        assert (clock["running"], clock["round"]) == (True, 2)  # type: ignore[index]
    else:
        assert not clock["running"]  # type: ignore[index]
    assert max(len(line) for line in cli.ok("state").splitlines()) <= 80


def test_stats_typed_on_the_line_override_the_rosters(cli: Cli) -> None:
    cli.ok("new", "Override", "--rules", "ap-countdown")
    cli.ok("add", "Orc", "--from", str(BESTIARY), "--stat", "hits=35", "--side", "bandits")
    orc = view(cli)["combatants"][0]  # type: ignore[index]
    assert (orc["side"], orc["vital"]["maximum"], orc["own"]["hits"]) == ("bandits", 35, 35)


def test_roster_refusals_name_the_entry_and_the_file(cli: Cli, tmp_path: Path) -> None:
    cli.ok("new", "Refusals", "--rules", "crisis")
    assert cli.fails("add", "Ogre", "--from", str(BESTIARY)).startswith(
        f"Error: roster {str(BESTIARY)!r} has no entry 'Ogre'")
    broken = tmp_path / "broken.toml"
    broken.write_text('[Brute]\nside = "foes"\ncrisis = { int = 1 }\n')
    refused = cli.fails("roster", "check", str(broken), "--rules", "crisis")
    assert refused.startswith(f"Error: roster {str(broken)!r} under crisis: Brute: Brute needs --stat speed=N")


def test_heal_leave_and_return_are_events_explained_and_undone(cli: Cli) -> None:
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    cli.ok("damage", "Orc", "12")
    healed = cli.ok("heal", "Orc", "5")
    assert healed.startswith("#") and healed.split(" ", 1)[1].strip() == "Orc is healed 5 hits (23 left)"
    event = healed.split()[0][1:]
    explained = cli.ok("explain", event)
    assert "hits: 5 = hits given back by the GM, at most the hits taken" in explained
    why = cli.ok("why", "Orc", "hits left")
    assert "30 -> 18" in why and "18 -> 23" in why and "by `heal Orc 5`" in why
    left = cli.ok("leave", "Orc", "--reason", "flees over the bridge").splitlines()
    assert left[0].endswith("Orc leaves the fight: flees over the bridge")
    assert left[1] == "Nobody on the foes side is standing (the encounter goes on until you end it: `skirmish end`)"
    assert view(cli)["combatants"][1]["status"] == "left"  # type: ignore[index]
    cli.ok("return", "Orc")
    assert cli.ok("undo").startswith("Undid `return Orc`")
    assert view(cli)["combatants"][1]["status"] == "left"  # type: ignore[index]


def test_the_reply_says_when_a_side_has_nobody_standing(cli: Cli) -> None:
    cli.ok("new", "Last stand", "--rules", "modular")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "agility=47", "--stat", "dodge=13", "--stat", "health=30")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "agility=20", "--stat", "dodge=10", "--stat", "health=25")
    assert "standing" not in cli.ok("damage", "Orc", "10")
    out = cli.ok("damage", "Orc", "15")  # 25 of 25: down (goes-down=at-0)
    assert "Nobody on the foes side is standing (the encounter goes on until you end it: `skirmish end`)" in out
    assert "standing" not in cli.ok("heal", "Orc", "3")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_completion_in_a_real_bash(tmp_path: Path) -> None:
    """The installed script's bash completion (`skirmish --show-completion bash`, what
    `--install-completion` installs) completes commands and names from the database."""
    script = Path(sys.executable).with_name("skirmish")
    env = {**os.environ, "SKIRMISH_DB": str(tmp_path / "c.db"), "PATH": f"{script.parent}:{os.environ['PATH']}"}
    for words in (["new", "C", "--rules", "ap-countdown"], ["add", "Hauser", "--stat", "qu=1", "--stat", "hits=40"],
                  ["add", "Orc", "--stat", "qu=0", "--stat", "hits=30"]):
        subprocess.run([script, *words], env=env, check=True, capture_output=True)

    def complete(*words: str) -> list[str]:
        line = " ".join(words)
        program = (
            'source <(skirmish --show-completion bash)\n'
            f'COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}\n'
            '_skirmish_completion skirmish\n'  # as bash calls it: the command's name first
            'printf "%s\\n" "${COMPREPLY[@]}"\n'
        )
        done = subprocess.run(["bash", "-c", program], env=env, capture_output=True, text=True, check=True)
        return done.stdout.split()

    assert complete("skirmish", "dam") == ["damage"]
    assert complete("skirmish", "damage", "O") == ["Orc"]
    assert complete("skirmish", "declare", "Hauser", "melee") == ["melee-attack"]
    assert complete("skirmish", "effect", "Orc", "stu") == ["stunned-unable-to-parry", "stunned"]
    assert complete("skirmish", "switch", "ma") == ["main"]


def test_explain_names_the_branches_an_event_is_on(cli: Cli) -> None:
    cli.ok("new", "Branches", "--rules", "ap-countdown")
    cli.ok("add", "Orc", "--stat", "qu=0", "--stat", "hits=30")  # #2
    cli.ok("damage", "Orc", "3")  # #3
    cli.ok("branch", "what-if", "--at", "2")
    assert "(recorded on main, " in cli.ok("explain", "2") and "; on main, what-if)" in cli.out
    assert "; on main)" in cli.ok("explain", "3")
    cli.ok("undo")
    assert "; undone: on no branch)" in cli.ok("explain", "3")
    assert json.loads(cli.ok("explain", "3", "--json"))["on"] == []
