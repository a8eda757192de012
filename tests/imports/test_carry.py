"""The party between fights: `new NEXT --carry PREVIOUS`, figures worked by hand from the commands typed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skirmish.projections.write.carry import carry_from
from skirmish.projections.write.engine import new_encounter
from skirmish.projections.ruleset import BUILT_IN

from support.cli import Cli
from support.invariants import INVARIANTS, Run, fresh

PARTY = str(Path(__file__).resolve().parents[2] / "samples" / "rosters" / "party.toml")


def combatants(cli: Cli) -> dict[str, Any]:
    return {c["name"]: c for c in json.loads(cli.ok("state", "--json"))["combatants"]}


def test_carry_in_ap_countdown_takes_hits_left_and_bleeding(cli: Cli) -> None:
    cli.ok("new", "Bridge ambush", "--rules", "ap-countdown", "--seed", "5")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Mira", "--side", "players", "--stat", "qu=2", "--stat", "hits=32")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    cli.ok("damage", "Hauser", "17")
    cli.ok("effect", "Hauser", "bleeding", "--per-round", "2")
    cli.ok("effect", "Mira", "dazed", "--rounds", "2")
    head = json.loads(cli.ok("state", "--json"))["head"]
    out = cli.ok("new", "Ford", "--rules", "ap-countdown", "--carry", "Bridge ambush")
    assert "Mira: dazed (2 rounds left) ends with the fight: not carried" in out
    got = combatants(cli)
    assert set(got) == {"Hauser", "Mira"}  # the players' side; the Orc stays behind
    assert (got["Hauser"]["vital"]["value"], got["Hauser"]["vital"]["maximum"]) == (23, 40)  # 40 - 17
    assert [e["kind"] for e in got["Hauser"]["effects"]] == ["bleeding"]
    assert (got["Mira"]["vital"]["value"], got["Mira"]["effects"]) == (32, [])
    conn = sqlite3.connect(cli.db)
    digest = conn.execute("SELECT hash FROM events WHERE id = ?", (head,)).fetchone()[0]
    log = cli.ok("log")
    assert f"Hauser comes in from encounter 'Bridge ambush' at #{head} (branch 'main'), hash {digest[:12]}, vital figure 23" in log
    assert "Mira comes in from encounter 'Bridge ambush'" in log and "vital figure at its maximum" in log
    replay = cli.ok("replay")
    assert f"Hauser comes in from encounter 'Bridge ambush' at #{head}" in replay
    # The first upkeep of the new fight bleeds Hauser 2: 23 - 2 = 21.
    cli.ok("round", "--roll", "Hauser=5,5", "--roll", "Mira=5,5")
    cli.ok("upkeep")
    assert combatants(cli)["Hauser"]["vital"]["value"] == 21


def test_carry_named_combatants_and_undo_restores(cli: Cli) -> None:
    cli.ok("new", "Pit", "--rules", "modular", "--seed", "2")
    cli.ok("add", "Ogre", "--side", "foes", "--stat", "agility=10", "--stat", "dodge=5", "--stat", "health=40")
    cli.ok("damage", "Ogre", "12")
    cli.ok("new", "Pit again", "--rules", "modular", "--carry", "Pit", "--who", "ogre")
    assert combatants(cli)["Ogre"]["vital"]["value"] == 28  # 40 - 12
    cli.ok("undo")
    assert "Ogre" not in combatants(cli)


def test_carry_in_crisis_keeps_health_and_lasting_conditions(cli: Cli) -> None:
    cli.ok("new", "Alley", "--rules", "crisis", "--seed", "3")
    cli.ok("add", "Hauser", "--from", PARTY)  # health 8, endurance 10
    cli.ok("effect", "Hauser", "drunk")
    cli.ok("effect", "Hauser", "stunned")
    cli.ok("add", "Mira", "--from", PARTY)  # endurance 8, health 6, no armour
    cli.ok("damage", "Mira", "5")  # Damage reduces Endurance first (crisis.md, Damage): 8 - 5 = 3
    cli.ok("new", "Roof", "--rules", "crisis", "--carry", "Alley")
    got = combatants(cli)
    assert [e["kind"] for e in got["Hauser"]["effects"]] == ["drunk"]  # stunned runs to a turn of the fight it was in
    assert (got["Mira"]["own"]["endurance"], got["Mira"]["vital"]["value"]) == (3, 6)
    assert "Mira comes in from encounter 'Alley'" in cli.ok("log") and "endurance 3, durability 0" in cli.ok("log")


def test_carry_in_phases_brings_the_wounds_that_are_its_vital_figure(cli: Cli) -> None:
    cli.ok("new", "Gate", "--rules", "phases", "--seed", "4")
    cli.ok("add", "Hauser", "--from", PARTY)  # Initiative 4
    cli.ok("effect", "Hauser", "slight-wound")
    cli.ok("new", "Keep", "--rules", "phases", "--carry", "Gate")
    got = combatants(cli)["Hauser"]
    assert (got["vital"]["value"], got["vital"]["maximum"]) == (3, 4)  # a slight wound: Initiative -1 (Wounds)
    assert [e["kind"] for e in got["effects"]] == ["slight-wound"]


def test_carry_in_percent_activity(cli: Cli) -> None:
    cli.ok("new", "Mill", "--rules", "percent-activity", "--seed", "6")
    cli.ok("add", "Mira", "--from", PARTY)  # hits 32
    cli.ok("damage", "Mira", "9")
    cli.ok("effect", "Mira", "encumbered")
    cli.ok("new", "Mill 2", "--rules", "percent-activity", "--carry", "Mill")
    got = combatants(cli)["Mira"]
    assert got["vital"]["value"] == 23  # 32 - 9
    assert [e["kind"] for e in got["effects"]] == ["encumbered"]


@pytest.mark.parametrize(("args", "error"), [
    (("new", "Next", "--rules", "modular", "--carry", "Bridge"), "Error: encounter 'Bridge' is played under ap-countdown: its stats do not hold under modular"),
    (("new", "Next", "--rules", "ap-countdown", "--carry", "Nowhere"), "Error: no encounter named 'Nowhere'"),
    (("new", "Next", "--rules", "ap-countdown", "--carry", "Bridge", "--who", "Nobody"), "Error: no combatant named 'Nobody'"),
    (("new", "Next", "--rules", "ap-countdown", "--who", "Orc"), "Error: --who goes with --carry"),
    (("new", "Next", "--rules", "ap-countdown", "--fight", "Causeway"), "Error: --fight goes with --from"),
    (("new", "Next", "--rules", "ap-countdown", "--stat", "qu=1"), "Error: --stat on `new` goes with --from"),
    (("new", "Next", "--rules", "ap-countdown", "--carry", "Bridge", "--from", "x.json"),
     "Error: a new encounter takes --carry or --from, not both"),
    (("new", "Next", "--rules", "ap-countdown", "--carry", "Bridge"),
     "Error: encounter 'Bridge' has nobody on the players side to carry (name them with --who)"),
])
def test_carry_refusals_record_nothing(cli: Cli, args: tuple[str, ...], error: str) -> None:
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    before = cli.ok("encounters")
    assert cli.fails(*args).startswith(error)
    assert cli.ok("encounters") == before


# --- every ruleset: whatever was played, a carried combatant stands as it stood -------------------


@pytest.mark.parametrize("ruleset_id", sorted(BUILT_IN))  # a house ruleset opts in (docs/adding-a-ruleset.md)
@INVARIANTS
@given(data=st.data())
def test_whatever_was_played_the_carried_stand_as_they_stood(ruleset_id: str, data: st.DataObject) -> None:
    run = Run(data, ruleset_id)
    try:
        run.wander(max_steps=30, moves=False)
        before = run.enc.view()
        names = [c.name for c in before.combatants]
        if not names:
            return
        commands, _ = carry_from(run.enc, names)
        after = new_encounter(run.store, "Next fight", ruleset_id, run.enc.started.options, "new", seed=1)
        for command in commands:
            after.execute(command, "new --carry")
        now = after.view()
        lasting = {name: [e.kind for e in run.ruleset.lasting(run.enc.state_at(run.enc.head().event_id), name)]  # type: ignore[attr-defined]
                   for name in names}
        for c in before.combatants:
            carried = now.combatant(c.name)
            assert (carried.side, carried.vital) == (c.side, c.vital)
            assert run.ruleset.carried_figures(after.state_at(after.head().event_id), c.name) == (  # type: ignore[attr-defined]
                run.ruleset.carried_figures(run.enc.state_at(run.enc.head().event_id), c.name))  # type: ignore[attr-defined]
            if c.status in ("down", "dead"):  # the vital figure's reading: it carries over
                assert carried.status == c.status, (c, carried)
            if hasattr(run.ruleset, "left_behind"):  # its view shows figures beside the effects (srd-5.2's temp HP)
                after_state = after.state_at(after.head().event_id)
                assert sorted(e.kind for e in run.ruleset.lasting(after_state, c.name)) == sorted(lasting[c.name])  # type: ignore[attr-defined]
                assert {e.kind for e in carried.effects} <= {e.kind for e in c.effects}, (c, carried)
            else:
                assert sorted(e.kind for e in carried.effects) == sorted(lasting[c.name])
        # The carried encounter's stored log folds to what was shown live.
        assert fresh(run.store, after).state_at(after.head().event_id) == after.state_at(after.head().event_id)
    finally:
        run.close()


def test_carry_in_srd_keeps_hit_points_temp_exhaustion_and_resistances(cli: Cli) -> None:
    """srd-5.2-combat.md §8: temporary HP last until used up or a Long Rest; §13: Exhaustion is
    cumulative, a level a receipt; §7: Resistance halves (round down). Figures worked by hand."""
    cli.ok("new", "Crypt", "--rules", "srd-5.2", "--seed", "7")
    cli.ok("add", "Aldra", "--side", "party", "--stat", "hp=31", "--stat", "ac=16", "--stat", "resist=fire")
    cli.ok("add", "Ghoul", "--side", "foes", "--stat", "hp=22", "--stat", "ac=12")
    cli.ok("damage", "Aldra", "9")  # 31 - 9 = 22
    cli.ok("heal", "Aldra", "5", "--with", "temp=yes")  # 5 temporary HP
    cli.ok("effect", "Aldra", "exhaustion")
    cli.ok("effect", "Aldra", "exhaustion")  # level 2
    cli.ok("effect", "Aldra", "prone")  # until she stands: lasting
    cli.ok("effect", "Aldra", "blinded", "--rounds", "2")  # on a turn's clock: ends with the fight
    out = cli.ok("new", "Catacomb", "--rules", "srd-5.2", "--carry", "Crypt")
    assert "Aldra: blinded (2 rounds left) ends with the fight: not carried" in out
    got = combatants(cli)
    assert set(got) == {"Aldra"}  # the party's side only (srd-5.2's characters' sides)
    aldra = got["Aldra"]
    assert (aldra["vital"]["value"], aldra["vital"]["maximum"]) == (22, 31)
    assert aldra["own"]["temp"] == 5
    assert sorted(e["kind"] for e in aldra["effects"]) == ["exhaustion 2", "prone", "temp 5"]  # 22 > 31 // 2: not Bloodied
    assert "temp 5, exhaustion 2" in cli.ok("log")  # the figures named in the combatant-carried line
    # Her Resistance came with her stats: 10 fire is halved to 5, taken from the 5 temporary HP first (§8).
    cli.ok("damage", "Aldra", "10", "--with", "type=fire")
    aldra = combatants(cli)["Aldra"]
    assert (aldra["vital"]["value"], aldra["own"]["temp"]) == (22, 0)
    # Exhaustion 2 goes down one level at a time: --end leaves level 1.
    cli.ok("effect", "Aldra", "exhaustion", "--end")
    assert "exhaustion 1" in [e["kind"] for e in combatants(cli)["Aldra"]["effects"]]


def test_carry_in_srd_a_dying_character_keeps_her_death_saves(cli: Cli) -> None:
    """§9: at 0 HP a character is Unconscious and rolls death saves; a carried one is still dying,
    her successes and failures as they stood; healing from 0 wakes her (§10)."""
    cli.ok("new", "Crypt", "--rules", "srd-5.2", "--seed", "7")
    cli.ok("add", "Aldra", "--side", "players", "--stat", "hp=12", "--stat", "ac=16")
    cli.ok("round", "--roll", "Aldra=10")
    cli.ok("damage", "Aldra", "12")  # 12 - 12 = 0: down, not massive damage (12 < 12 + 12)
    # Her turn ends, and round 1 with it; round 2 starts (rounds=roll-on): her turn again, 4 < 10,
    # one failure.
    cli.ok("next", "--roll", "death:Aldra=4")
    cli.ok("new", "Catacomb", "--rules", "srd-5.2", "--carry", "Crypt")
    aldra = combatants(cli)["Aldra"]
    assert (aldra["status"], aldra["vital"]["value"], aldra["own"]["death"]) == ("down", 0, "0/1")
    assert {"unconscious", "prone"} <= {e["kind"] for e in aldra["effects"]}
    cli.ok("heal", "Aldra", "3")
    aldra = combatants(cli)["Aldra"]
    assert (aldra["status"], aldra["vital"]["value"]) == ("fighting", 3)
    assert "unconscious" not in {e["kind"] for e in aldra["effects"]}


def test_the_srd_sample_party_carried_into_the_next_fight(cli: Cli) -> None:
    """samples/chapel-drake.skirmish ends (its comments work the figures): Mira down at 0 of 22,
    no death save rolled yet; Hauser down at 0 of 30 after one death save success (11, §9);
    Tamsin 13 of 18, concentrating on Hold-Monster; Oswin unhurt, 24."""
    sample = Path(__file__).resolve().parents[2] / "samples" / "chapel-drake.skirmish"
    cli.ok("run", str(sample))
    out = cli.ok("new", "Crypt", "--rules", "srd-5.2", "--carry", "Chapel of the drake")
    assert "Tamsin: concentration on Hold-Monster ends with the fight: not carried" in out  # §11: it ends
    got = combatants(cli)
    assert set(got) == {"Mira", "Hauser", "Tamsin", "Oswin"}  # the party side, not the foes
    figures = {n: (c["status"], c["vital"]["value"], c["vital"]["maximum"], c["own"]["death"]) for n, c in got.items()}
    assert figures == {"Mira": ("down", 0, 22, "0/0"), "Hauser": ("down", 0, 30, "1/0"),
                       "Tamsin": ("fighting", 13, 18, ""), "Oswin": ("fighting", 24, 24, "")}
    assert got["Tamsin"]["own"]["concentration"] == ""
