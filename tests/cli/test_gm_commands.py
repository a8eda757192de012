"""What GMs expect of a tracker, through the command line in every ruleset: `roll`, `end`,
`set`, `rename` and `note --on`, each with what `state --json`, `log` and `explain` show,
its undo and redo, and its refusals in one line. Expected figures are worked by hand from
the stats typed here and the rules named beside them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from skirmish.projections.ruleset import BUILT_IN

from support.cli import Cli


def state(cli: Cli, *args: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(cli.ok("state", "--json", *args))
    return data


def row(cli: Cli, name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in state(cli)["combatants"] if c["name"] == name)
    return found


def ap_fight(cli: Cli) -> None:
    cli.ok("new", "Bridge", "--rules", "ap-countdown", "--seed", "11")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")


# --- roll ---------------------------------------------------------------------------------


def test_roll_with_the_gms_faces_is_logged_and_explained_and_changes_nothing(cli: Cli) -> None:
    ap_fight(cli)
    before = state(cli)
    out = cli.ok("roll", "2d6+3", "--for", "orc", "--why", "morale", "--roll", "4,5")
    # 4 + 5 + 3 = 12, the GM's dice; the name as stored (Orc), whatever its case as typed.
    assert out.splitlines() == ["#4 Roll for Orc (morale): 2d6+3 = 4 + 5 + 3 = 12 (the GM's dice)"]
    after = state(cli)
    assert {k: v for k, v in after.items() if k not in ("at", "head")} == \
        {k: v for k, v in before.items() if k not in ("at", "head")}
    explained = json.loads(cli.ok("explain", "4", "--json"))
    (number,) = explained["numbers"]
    assert (number["figure"], number["value"], number["formula"]) == ("total", 12, "2d6 + 3")
    assert number["roll"] == {"dice": "2d6", "faces": [4, 5], "total": 9, "source": "gm"}
    assert number["terms"] == [{"name": "modifier", "value": 3}]
    assert "Roll for Orc (morale): 2d6+3 = 4 + 5 + 3 = 12" in cli.ok("log")
    (line,) = [json.loads(x) for x in cli.ok("log", "--json").splitlines() if '"dice-rolled"' in x]
    assert (line["who"], line["why"], line["total"]["value"]) == ("Orc", "morale", 12)


def test_a_tool_roll_is_seeded_recorded_and_undone_and_redone(cli: Cli) -> None:
    ap_fight(cli)
    first = cli.ok("roll", "3d6-1")
    event = json.loads(cli.ok("log", "--json").splitlines()[-1])
    faces = event["total"]["roll"]["faces"]
    assert len(faces) == 3 and all(1 <= f <= 6 for f in faces) and event["total"]["roll"]["source"] == "tool"
    assert event["total"]["value"] == sum(faces) - 1
    assert "Undid `roll 3d6-1`" in cli.ok("undo")
    assert "dice-rolled" not in cli.ok("log", "--json")
    cli.ok("redo")
    assert json.loads(cli.ok("log", "--json").splitlines()[-1])["total"] == event["total"]
    # Decided again at the same place (a what-if from the same moment), the tool rolls the same faces.
    cli.ok("undo")
    assert cli.ok("roll", "3d6-1").split(": ", 1)[1] == first.split(": ", 1)[1]
    single = cli.ok("roll", "d20", "--roll", "17")
    assert single.strip().endswith("Roll: 1d20 = 17 (the GM's dice)")


@pytest.mark.parametrize(("words", "error"), [
    (("roll", "2x6"), "Error: DICE takes dice like 2d6+3 or d20, not '2x6'"),
    (("roll", "0d6"), "Error: DICE rolls 1 to 100 dice at once, not 0"),
    (("roll", "2d1"), "Error: DICE takes dice of 2 to 1000 sides, not d1"),
    (("roll", "2d6", "--roll", "4,7"), "Error: roll 2d6 takes 2 face(s) from 1 to 6 (--roll N,N), not 4,7"),
    (("roll", "2d6", "--roll", "4"), "Error: roll 2d6 takes 2 face(s) from 1 to 6 (--roll N,N), not 4"),
    (("roll", "d6", "--roll", "x"), "Error: --roll takes the faces as numbers, e.g. 4,5; not 'x'"),
    (("roll", "d6", "--for", "Nobody"), "Error: no combatant named 'Nobody' (combatants: Hauser, Orc)"),
])
def test_roll_refusals_are_one_line_and_record_nothing(cli: Cli, words: tuple[str, ...], error: str) -> None:
    ap_fight(cli)
    log = cli.ok("log", "--all", "--json")
    assert cli.fails(*words) == error
    assert cli.ok("log", "--all", "--json") == log


# --- end ----------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", sorted(BUILT_IN))
def test_end_refuses_play_until_undo_reopens_it(cli: Cli, ruleset: str) -> None:
    cli.ok("new", "Ends", "--rules", ruleset, "--seed", "3")
    stats = {"ap-countdown": ["qu=0", "hits=9"], "percent-activity": ["qu=0", "hits=9"],
             "crisis": ["int=0", "speed=0", "endurance=3", "health=3"],
             "modular": ["agility=10", "dodge=5", "health=9"], "phases": ["initiative=3"],
             "srd-5.2": ["hp=9", "ac=12"]}[ruleset]
    cli.ok("add", "Orc", "--side", "foes", *(w for s in stats for w in ("--stat", s)))
    assert "ended" not in state(cli)
    out = cli.ok("end", "--reason", "the orcs flee")
    assert out.splitlines()[0].endswith("The encounter ends: the orcs flee")
    ended_at = int(out.split()[0][1:])
    assert state(cli)["ended"] == {"event": ended_at, "reason": "the orcs flee"}
    assert f"ENDED at #{ended_at}: the orcs flee (`skirmish undo` reopens it)" in cli.ok("state").splitlines()
    refusal = (f"Error: the encounter ended at #{ended_at} (the orcs flee): nothing plays on after it; "
               "`skirmish undo` reopens it")
    for words in (("round",), ("add", "Goblin", "--stat", stats[0]), ("leave", "Orc"), ("end",),
                  ("rename", "Orc", "Urk"), ("set", "Orc", stats[0])):
        assert cli.fails(*words) == refusal
    cli.ok("note", "--on", "Orc", "fled north")  # notes and rolls still go in the log
    cli.ok("roll", "d6")
    cli.ok("undo", "2")
    assert "Undid `end --reason 'the orcs flee'`" in cli.ok("undo")
    assert "ended" not in state(cli)
    cli.ok("round")  # it plays on
    cli.ok("undo")
    cli.ok("redo")
    assert "ended" not in state(cli)  # the redo is the round's; the end stays undone
    assert state(cli, "--at", str(ended_at))["ended"]["event"] == ended_at


# --- set ----------------------------------------------------------------------------------

# ruleset -> (add's stats, damage typed, `set` words, the vital figure after: value, maximum).
# The damage taken is kept when a maximum changes: ap-countdown and percent-activity count
# hits taken (30 - 12 = 18 left; hits=35 gives 35 - 12 = 23); modular health the same
# (25 - 5 = 20; health=30: 25); phases' initiative is lowered by a slight wound by 1
# (phases.md, Initiative: 6 - 1 = 5; initiative=4: 4 - 1 = 3).
SETS = {
    "ap-countdown": (["qu=0", "hits=30"], ("damage", "Orc", "12"), ["hits=35", "qu=2"], (23, 35)),
    "percent-activity": (["qu=0", "hits=30"], ("damage", "Orc", "12"), ["hits=35"], (23, 35)),
    "modular": (["agility=20", "dodge=10", "health=25"], ("damage", "Orc", "5"), ["health=30"], (25, 30)),
    "phases": (["initiative=6"], ("effect", "Orc", "slight-wound"), ["initiative=4"], (3, 4)),
}


@pytest.mark.parametrize("ruleset", sorted(SETS))
def test_set_changes_stats_keeping_the_damage_taken(cli: Cli, ruleset: str) -> None:
    added, hurt, words, (value, maximum) = SETS[ruleset]
    cli.ok("new", "Sets", "--rules", ruleset, "--seed", "3")
    cli.ok("add", "Orc", "--side", "foes", *(w for s in added for w in ("--stat", s)))
    cli.ok(*hurt)
    before = row(cli, "Orc")["vital"]
    out = cli.ok("set", "orc", *words)
    assert "Orc's stats are set: " in out
    vital = row(cli, "Orc")["vital"]
    assert (vital["value"], vital["maximum"]) == (value, maximum)
    cli.ok("undo")
    assert row(cli, "Orc")["vital"] == before
    cli.ok("redo")
    assert (row(cli, "Orc")["vital"]["value"], row(cli, "Orc")["vital"]["maximum"]) == (value, maximum)


def test_set_in_crisis_moves_the_pools_by_their_new_size(cli: Cli) -> None:
    """crisis.md, Damage: Endurance then Health are pools. 2 damage takes Endurance 6 to 4;
    endurance=10 keeps the 2 taken (8 left); health=5 raises Health 4 to 5; a pool lowered
    below what was taken stops at 0 (endurance=1: 1 - 2, so 0)."""
    cli.ok("new", "Hangar", "--rules", "crisis", "--seed", "3")
    cli.ok("add", "Drone", "--side", "foes", "--stat", "int=0", "--stat", "speed=1",
           "--stat", "endurance=6", "--stat", "health=4")
    cli.ok("damage", "Drone", "2")
    assert row(cli, "Drone")["own"]["endurance"] == 4
    out = cli.ok("set", "Drone", "endurance=10", "health=5")
    assert "Drone's stats are set: endurance 6 -> 10, health 4 -> 5" in out
    drone = row(cli, "Drone")
    assert (drone["own"]["endurance"], drone["vital"]["value"], drone["vital"]["maximum"]) == (8, 5, 5)
    explained = json.loads(cli.ok("explain", out.split()[0][1:], "--json"))
    recorded = {n["figure"]: n["value"] for n in explained["numbers"]}
    assert recorded == {"stats[endurance]": 10, "stats[health]": 5, "was[endurance]": 6, "was[health]": 4}
    cli.ok("set", "Drone", "endurance=1")
    assert row(cli, "Drone")["own"]["endurance"] == 0


@pytest.mark.parametrize(("words", "error"), [
    (("set", "Orc", "speed=3"), "Error: ap-countdown has no stat 'speed' for Orc (stats: qu, hits, penalty)"),
    (("set", "Orc", "hits=0"), "Error: stat hits of Orc must be at least 1, not 0"),
    (("set", "Orc", "hits=many"), "Error: stat hits of Orc must be a whole number, not 'many'"),
    (("set", "Orc", "hits"), "Error: set takes KEY=VALUE, not 'hits'"),
    (("set", "Orc", "hits=30"), "Error: Orc has hits=30 already: nothing to set"),
    (("set", "Ork", "hits=3"), "Error: no combatant named 'Ork' (did you mean Orc?)"),
    (("set", "Orc"), "Error: set Orc takes one or more KEY=N (stats: qu, hits, penalty)"),
])
def test_set_refusals(cli: Cli, words: tuple[str, ...], error: str) -> None:
    ap_fight(cli)
    assert cli.fails(*words) == error


# --- rename -------------------------------------------------------------------------------


def test_rename_carries_the_fight_over_and_the_log_keeps_the_old_name(cli: Cli) -> None:
    ap_fight(cli)
    cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")
    cli.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")
    cli.ok("note", "--on", "Orc", "carries the bridge key")
    assert cli.ok("rename", "orc", "Urgash").strip().endswith("Orc is renamed Urgash")
    shown = state(cli)
    assert [c["name"] for c in shown["combatants"]] == ["Hauser", "Urgash"]
    assert shown["pending"][0]["target"] == "Urgash"
    assert [n["text"] for n in row(cli, "Urgash")["notes"]] == ["carries the bridge key"]
    assert cli.fails("damage", "Orc", "3") == "Error: no combatant named 'Orc' (combatants: Hauser, Urgash)"
    cli.ok("next")  # count 30: the Orc (now Urgash) declares
    cli.ok("declare", "Urgash", "melee-attack", "--target", "Hauser")
    cli.ok("next")  # count 20: Hauser's attack resolves, on Urgash
    assert "on Urgash" in cli.ok("resolve", "Hauser", "--outcome", "hit", "--hits", "12")
    assert row(cli, "Urgash")["vital"]["value"] == 30 - 12
    log = cli.ok("log")
    assert "Hauser declares melee-attack on Orc" in log  # as decided then
    cli.ok("undo", "5")
    assert [c["name"] for c in state(cli)["combatants"]] == ["Hauser", "Orc"]
    assert state(cli)["pending"][0]["target"] == "Orc"
    assert [n["text"] for n in row(cli, "Orc")["notes"]] == ["carries the bridge key"]


@pytest.mark.parametrize(("words", "error"), [
    (("rename", "Orc", "hauser"), "Error: there is already a combatant named hauser"),
    (("rename", "Orc", "Orc"), "Error: Orc is named Orc already: nothing to rename"),
    (("rename", "Orc", "scene"), "Error: 'scene' is reserved (it names the scene's own counters)"),
    (("rename", "Orc", "12"), "Error: '12' cannot be a combatant's name (printable, not a number, no '=' or leading '-')"),
    (("rename", "Orc", "a=b"), "Error: 'a=b' cannot be a combatant's name (printable, not a number, no '=' or leading '-')"),
])
def test_rename_refusals(cli: Cli, words: tuple[str, ...], error: str) -> None:
    ap_fight(cli)
    assert cli.fails(*words) == error


def test_rename_to_another_case_of_its_own_name(cli: Cli) -> None:
    ap_fight(cli)
    cli.ok("rename", "Orc", "ORC")
    assert [c["name"] for c in state(cli)["combatants"]] == ["Hauser", "ORC"]


# --- notes on a combatant -------------------------------------------------------------------


def test_notes_on_a_combatant_in_state_and_log_private_ones_marked(cli: Cli) -> None:
    ap_fight(cli)
    out = cli.ok("note", "--on", "orc", "carries the bridge key")
    assert out.strip() == "#4 Note on Orc (at #3): carries the bridge key"
    cli.ok("note", "--on", "Hauser", "--private", "cursed, does not know it")
    table = cli.ok("state").splitlines()
    assert any(line.startswith("Orc *") for line in table) and any(line.startswith("Hauser *") for line in table)
    assert "* noted (`state --wide` shows the notes)" in table
    wide = cli.ok("state", "--wide").splitlines()
    assert "note on Orc (#4): carries the bridge key" in wide
    assert "private note on Hauser (#5): cursed, does not know it" in wide
    assert row(cli, "Orc")["notes"] == [{"id": 4, "at": 3, "text": "carries the bridge key"}]
    assert row(cli, "Hauser")["notes"] == [{"id": 5, "at": 4, "text": "cursed, does not know it", "private": True}]
    # A note on a combatant is not a note about the event it was written at.
    assert json.loads(cli.ok("explain", "3", "--json"))["notes"] == []
    cli.ok("undo")
    assert "notes" not in row(cli, "Hauser")
    assert cli.fails("note", "--on", "Nobody", "x") == "Error: no combatant named 'Nobody' (combatants: Hauser, Orc)"
    assert cli.fails("note", "--on", "Orc", "3", "x") == \
        "Error: note --on WHO takes the TEXT alone, not an EVENT (it is written at the head)"
    assert cli.fails("note", "3") == "Error: note takes EVENT TEXT, or --on WHO TEXT"


def test_a_private_note_on_a_combatant_stays_off_the_players_page(cli: Cli, tmp_path: Any) -> None:
    ap_fight(cli)
    cli.ok("note", "--on", "Orc", "--private", "secretly the baron")
    cli.ok("note", "--on", "Orc", "wears a red cloak")
    players, gm = tmp_path / "players.html", tmp_path / "gm.html"
    cli.ok("export", "--format", "html", "--for", "players", "--out", str(players))
    cli.ok("export", "--format", "html", "--out", str(gm))
    assert "secretly the baron" not in players.read_text(encoding="utf-8")
    assert "wears a red cloak" in players.read_text(encoding="utf-8")
    assert "secretly the baron" in gm.read_text(encoding="utf-8")


def test_the_new_commands_run_in_a_script(cli: Cli, tmp_path: Any) -> None:
    script = tmp_path / "fight.skirmish"
    script.write_text("\n".join([
        "new Script --rules ap-countdown --seed 4",
        "add Orc --side foes --stat qu=0 --stat hits=30",
        "set Orc hits=20",
        "rename Orc Urk",
        "note --on Urk 'from a script'",
        "roll 1d6+1 --roll 6 --why loot",
        "end --reason done",
    ]) + "\n", encoding="utf-8")
    out = cli.ok("run", str(script))
    assert "Roll (loot): 1d6+1 = 6 + 1 = 7 (the GM's dice)" in out
    urk = row(cli, "Urk")
    assert urk["vital"]["maximum"] == 20 and urk["notes"][0]["text"] == "from a script"
    assert state(cli)["ended"]["reason"] == "done"


ROSTER_STATS = {
    "ap-countdown": (["qu=1", "hits=40"], ["qu=0", "hits=30"]),
    "percent-activity": (["qu=1", "hits=40"], ["qu=0", "hits=30"]),
    "crisis": (["int=1", "speed=2", "endurance=10", "health=8"], ["int=0", "speed=1", "endurance=6", "health=4"]),
    "modular": (["agility=47", "dodge=13", "health=30"], ["agility=20", "dodge=10", "health=25"]),
    "phases": (["initiative=4"], ["initiative=6"]),
    "srd-5.2": (["hp=40", "ac=15", "dex=1"], ["hp=30", "ac=13"]),
}


@pytest.mark.parametrize("ruleset", sorted(BUILT_IN))
def test_a_rename_mid_round_is_the_same_state_under_the_new_name(cli: Cli, ruleset: str) -> None:
    """Whatever a ruleset keeps (turn order, who acts, targets), the view after a rename is
    the view before with the old name, wherever it stood (a name, "Orc's turn"), replaced by the new one."""
    hauser, orc = ROSTER_STATS[ruleset]
    cli.ok("new", "Renames", "--rules", ruleset, "--seed", "9")
    cli.ok("add", "Hauser", "--side", "players", *(w for s in hauser for w in ("--stat", s)))
    cli.ok("add", "Orc", "--side", "foes", *(w for s in orc for w in ("--stat", s)))
    cli.ok("round")
    cli.ok("next")
    before = state(cli)
    cli.ok("rename", "Orc", "Big Urk")
    after = state(cli)
    expected = json.loads(json.dumps({k: v for k, v in before.items() if k not in ("at", "head")})
                          .replace("Orc", "Big Urk"))
    assert {k: v for k, v in after.items() if k not in ("at", "head")} == expected
    cli.ok("next")  # the clock goes on with the renamed combatant
    assert "Orc" not in json.dumps(state(cli)["combatants"])


def test_the_report_says_the_encounter_ended_and_lists_the_notes_on_combatants(cli: Cli, tmp_path: Any) -> None:
    ap_fight(cli)
    cli.ok("note", "--on", "Orc", "--private", "secretly the baron")
    cli.ok("end", "--reason", "truce")
    report = tmp_path / "report.md"
    cli.ok("export", "--format", "md", "--out", str(report))
    final = report.read_text(encoding="utf-8").split("## Final state", 1)[1].splitlines()
    assert "ENDED at #5: truce (`skirmish undo` reopens it)" in final
    assert "private note on Orc (#4): secretly the baron" in final
    assert any(line.startswith("Orc *") for line in final)


def test_damage_after_a_rename_is_dealt_by_the_new_name(cli: Cli) -> None:
    """The report's damage dealt goes to the actor of the `resolve` (docs/database.md, Damage dealt and
    taken): after `rename Orc Urgash`, Urgash's 7 hits on Hauser are Urgash's, and
    Hauser's 12 on him are taken by Urgash."""
    from skirmish.projections.write.engine import LogFile
    from skirmish.projections.report.data import build

    ap_fight(cli)
    cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")  # Hauser 35, Orc 30
    cli.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")  # resolves at 20
    cli.ok("rename", "Orc", "Urgash")
    cli.ok("next")  # 30
    cli.ok("declare", "Urgash", "melee-attack", "--target", "Hauser")  # 4 AP: resolves at 10
    cli.ok("next")  # 20
    cli.ok("resolve", "Hauser", "--outcome", "hit", "--hits", "12")
    cli.ok("next")  # 10
    cli.ok("resolve", "Urgash", "--outcome", "hit", "--hits", "7")
    with LogFile(cli.db) as log_file:
        figures = {f.name: (f.dealt, f.taken) for f in build(log_file.open()).figures}
    assert figures["Urgash"] == (7, 12) and figures["Hauser"] == (12, 7)
    assert "Orc" not in figures  # one row a combatant, under the name it has at the end


def test_the_report_keeps_one_row_through_a_rename(cli: Cli) -> None:
    """30 hits, 3 taken as the Orc and 4 as Urgash: one row, 30 -> 23, 7 taken."""
    ap_fight(cli)
    cli.ok("damage", "Orc", "3")
    cli.ok("rename", "Orc", "Urgash")
    cli.ok("damage", "Urgash", "4")
    report = cli.ok("export", "--format", "md")
    rows = [line for line in report.splitlines() if line.startswith(("| Orc ", "| Urgash ")) and line.count("|") == 8]
    assert rows == ["| Urgash | foes | 30 -> 23 | 0 | 7 | 0 | 0 |"]


def test_why_follows_a_combatant_through_its_rename(cli: Cli) -> None:
    """hits left: 30 at `add`; 3 taken as the Orc (27), 4 as Urgash (23); hits=35 keeps the 7
    taken (28). `why` reads the history under both names."""
    ap_fight(cli)
    cli.ok("damage", "Orc", "3")
    cli.ok("rename", "Orc", "Urgash")
    cli.ok("damage", "Urgash", "4")
    cli.ok("set", "Urgash", "hits=35")
    (figure,) = json.loads(cli.ok("why", "Urgash", "hits left", "--json"))["figures"]
    assert (figure["start"], figure["now"]) == (30, 28)
    changes = [(link["id"], link["before"], link["after"]) for link in figure["chain"] if link["role"] == "change"]
    assert changes == [(4, 30, 27), (6, 27, 23), (7, 23, 28)]


@pytest.mark.slow
def test_the_new_commands_complete_in_a_real_bash(tmp_path: Any) -> None:
    """The installed script's bash completion gives the new commands and the names they take."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).with_name("skirmish")
    env = {**os.environ, "SKIRMISH_DB": str(tmp_path / "c.db"), "PATH": f"{script.parent}:{os.environ['PATH']}"}
    for words in (["new", "C", "--rules", "ap-countdown"], ["add", "Hauser", "--stat", "qu=1", "--stat", "hits=40"],
                  ["add", "Orc", "--stat", "qu=0", "--stat", "hits=30"]):
        subprocess.run([script, *words], env=env, check=True, capture_output=True)

    def complete(*words: str) -> list[str]:
        program = (
            'source <(skirmish --show-completion bash)\n'
            f'COMP_WORDS=({" ".join(words)}); COMP_CWORD={len(words) - 1}\n'
            '_skirmish_completion skirmish\n'
            'printf "%s\\n" "${COMPREPLY[@]}"\n'
        )
        done = subprocess.run(["bash", "-c", program], env=env, capture_output=True, text=True, check=True)
        return done.stdout.split()

    assert complete("skirmish", "ren") == ["rename"]
    assert complete("skirmish", "rename", "O") == ["Orc"]
    assert complete("skirmish", "set", "H") == ["Hauser"]
    assert complete("skirmish", "roll", "2d6", "--for", "O") == ["Orc"]
    assert complete("skirmish", "note", "--on", "H") == ["Hauser"]
    assert complete("skirmish", "en") == ["encounters", "end"]


def test_why_tells_a_renamed_combatant_from_a_newcomer_under_its_old_name(cli: Cli) -> None:
    """Orc takes 3 and becomes Urgash; a new Orc joins (#6) and takes 5: the new Orc's hits
    left went 30 -> 25 at #7 alone; Urgash's 30 -> 27 at #4."""
    ap_fight(cli)
    cli.ok("damage", "Orc", "3")  # 4
    cli.ok("rename", "Orc", "Urgash")  # 5
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")  # 6
    cli.ok("damage", "Orc", "5")  # 7
    (orc,) = json.loads(cli.ok("why", "Orc", "hits left", "--json"))["figures"]
    assert (orc["start"], orc["now"]) == (30, 25)
    assert [(c["id"], c["before"], c["after"]) for c in orc["chain"] if c["role"] == "change"] == [(7, 30, 25)]
    (urgash,) = json.loads(cli.ok("why", "Urgash", "hits left", "--json"))["figures"]
    assert [(c["id"], c["before"], c["after"]) for c in urgash["chain"] if c["role"] == "change"] == [(4, 30, 27)]


@pytest.mark.parametrize(("words", "said", "shows"), [
    (("rename", "Orc", "Urgash"), "Orc is renamed Urgash", lambda s: [c["name"] for c in s["combatants"]] == ["Hauser", "Urgash"]),
    (("end", "--reason", "truce"), "The encounter ends: truce", lambda s: s.get("ended", {}).get("reason") == "truce"),
    (("note", "--on", "Orc", "has the key"), "Note on Orc (at #3): has the key",
     lambda s: [n["text"] for n in s["combatants"][1].get("notes", [])] == ["has the key"]),
    (("set", "Orc", "hits=20"), "Orc's stats are set: hits 30 -> 20",
     lambda s: s["combatants"][1]["vital"] == {"name": "hits left", "value": 20, "maximum": 20}),
])
def test_each_is_undone_redone_and_explained(cli: Cli, words: tuple[str, ...], said: str, shows: Any) -> None:
    ap_fight(cli)
    before = state(cli)
    assert cli.ok(*words).strip() == f"#4 {said}"
    assert shows(state(cli))
    explained = json.loads(cli.ok("explain", "4", "--json"))
    assert (explained["description"], explained["command"]) == (said, " ".join(
        w if " " not in w else f"'{w}'" for w in words))
    cli.ok("undo")
    assert {k: v for k, v in state(cli).items() if k not in ("at", "head")} == \
        {k: v for k, v in before.items() if k not in ("at", "head")}
    cli.ok("redo")
    assert shows(state(cli))
