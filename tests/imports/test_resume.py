"""An Improved Initiative fight in progress comes into srd-5.2 where its table stopped (issue 39,
finding 10): its round under way, its initiative order held, the acting combatant's turn
started; a ruleset that cannot take up a round under way says so in one line.

The fixture, tests/fixtures/imports/improved-initiative-round-2.json (written by hand from
formats.md, section 3), holds one fight in progress: RoundCounter 2, ActiveCombatantId "c3".
Its combatants, in the file's order, with Initiative and CurrentHP:

- c1 Aldra (the persistent character pc1): 17, 20 of 31;
- c2 "Goblin" IndexLabel 1, so Goblin 1: 12, 7 of 7 (the library's Goblin, 2d6 = 7 HP);
- c3 "Goblin" IndexLabel 2, so Goblin 2: 12, 3 of 7; tag Frightened, 1 left, counted down at
  the start of c3's own turn;
- c4 Bog Lurker (no IndexLabel): 9, 22 of 22;
- c5 Tamsin (a player's stat block, 18 HP): 4, 11 of 18.

So, by hand: round 2; the order by initiative, highest first, is Aldra 17, Goblin 1 12,
Goblin 2 12, Bog Lurker 9, Tamsin 4 (the tie at 12 as the file, and II's sort by IndexLabel,
order it: Goblin 1 first, with no `--with order` asked for under ties=ask); Goblin 2 (c3)
acts; Aldra and Goblin 1 have had their turns this round; after Goblin 2 come Bog Lurker,
then Tamsin, then round 3 opens with Aldra (srd-5.2-combat.md §2: the order holds for the
whole fight; §1: a round is every creature's turn once). II counted Goblin 2's Frightened
down when its turn started (2 to 1), so 1 is left until the start of its next turn (§12).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from skirmish.eventlog.commands import Carry, Leave, Resume
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.store import Store

from support.cli import Cli, start

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "imports" / "improved-initiative-round-2.json"
ORDER = ["Aldra", "Goblin 1", "Goblin 2", "Bog Lurker", "Tamsin"]
SOURCE = "Improved Initiative file 'improved-initiative-round-2.json', fight 'default'"


def state(cli: Cli) -> dict[str, Any]:
    got: dict[str, Any] = json.loads(cli.ok("state", "--json"))
    return got


def clock(cli: Cli) -> tuple[int, bool, list[str], list[str]]:
    c = state(cli)["clock"]
    return c["round"], c["running"], c["now"], c["next"]


def effects(cli: Cli, who: str) -> dict[str, Any]:
    fighter = next(c for c in state(cli)["combatants"] if c["name"] == who)
    return {e["kind"]: e["left"] for e in fighter["effects"]}


def take_up(cli: Cli) -> str:
    return cli.ok("new", "Ford", "--rules", "srd-5.2", "--from", str(FIXTURE))


def test_a_fight_in_progress_comes_in_at_its_round_with_the_acting_combatants_turn_under_way(cli: Cli) -> None:
    out = take_up(cli)
    assert "the fight was at round" not in out and "cannot take up" not in out
    assert clock(cli) == (2, True, ["Goblin 2"], ["Bog Lurker"])
    got = state(cli)
    assert got["clock"]["moment"] == "Goblin 2's turn"
    assert [c["name"] for c in got["combatants"]] == ORDER
    assert [c["own"]["initiative"] for c in got["combatants"]] == [17, 12, 12, 9, 4]
    assert [c["name"] for c in got["combatants"] if c["acting"]] == ["Goblin 2"]
    assert [c["vital"]["value"] for c in got["combatants"]] == [20, 7, 3, 22, 11]
    assert "#14 Goblin 2's turn, under way where the fight was taken up (Aldra, Goblin 1 had theirs this round)" in out


def test_next_passes_to_the_combatant_after_the_acting_one_in_the_held_order(cli: Cli) -> None:
    take_up(cli)
    cli.ok("next")
    assert clock(cli) == (2, True, ["Bog Lurker"], ["Tamsin"])
    cli.ok("next")
    assert clock(cli) == (2, True, ["Tamsin"], [])
    # Aldra and Goblin 1 had theirs before the file was saved: the round ends, and round 3
    # starts at once (rounds=roll-on, §1) with no dice: the order holds (§2).
    out = cli.ok("next")
    assert "Round 2 ends" in out and "Round 3 begins: order Aldra, Goblin 1" in out
    assert clock(cli) == (3, True, ["Aldra"], ["Goblin 1"])


def test_the_acting_combatants_effects_are_not_counted_down_again(cli: Cli) -> None:
    """Goblin 2's Frightened, 1 left: its turn's start was counted in II, so it is on until the
    start of its next turn, round 3's (§12)."""
    take_up(cli)
    assert effects(cli, "Goblin 2")["frightened"] == 1
    for _ in range(3):  # Goblin 2's, Bog Lurker's and Tamsin's turns end; round 3 starts: Aldra's turn
        cli.ok("next")
    assert effects(cli, "Goblin 2")["frightened"] == 1
    cli.ok("next")  # Goblin 1's
    out = cli.ok("next")  # Goblin 2's turn starts
    assert "Goblin 2 is no longer frightened (the start of Goblin 2's turn, §12)" in out
    assert "frightened" not in effects(cli, "Goblin 2")


def test_those_who_acted_before_it_had_their_turn_this_round(cli: Cli) -> None:
    """An effect that lasts to the end of Goblin 1's turn ends with round 2 under
    missed-turn=round-end only if Goblin 1's turn never came (§16): it came, before the file
    was saved, so the effect runs on to the end of its turn in round 3."""
    take_up(cli)
    cli.ok("effect", "Tamsin", "prone", "--rounds", "1", "--with", "at=end", "--with", "of=Goblin 1")
    for _ in range(3):  # the third ends round 2 and starts round 3 (rounds=roll-on): Aldra's turn
        out = cli.ok("next")
    assert "Round 2 ends" in out and "never came" not in out
    assert effects(cli, "Tamsin")["prone"] == 1
    out = cli.ok("next")  # Aldra's ends, Goblin 1's starts
    out = cli.ok("next")  # Goblin 1's ends
    assert "Tamsin is no longer prone (the end of Goblin 1's turn, §12)" in out


def test_the_resumption_is_recorded_explained_and_undone(cli: Cli) -> None:
    out = take_up(cli)
    started = next(line for line in out.splitlines() if "Round 2 begins" in line)
    assert started == (f"#13 Round 2 begins: initiative Aldra 17, Goblin 1 12, Goblin 2 12, Bog Lurker 9, Tamsin 4; "
                       f"order {', '.join(ORDER)}; taken up from {SOURCE}, in its order")
    text = cli.ok("explain", "13")
    assert text.count("= initiative held from where it was carried in") == 5
    assert "      rule: srd-5.2-combat.md §2" in text
    assert "Undid " in cli.ok("undo")  # the resumption alone: the combatants stay, as they stood
    assert clock(cli) == (0, False, [], [])
    assert [c["vital"]["value"] for c in state(cli)["combatants"]] == [20, 7, 3, 22, 11]
    cli.ok("redo")
    assert clock(cli) == (2, True, ["Goblin 2"], ["Bog Lurker"])


def test_the_report_of_a_fight_taken_up_has_a_column_for_each_round_it_holds(cli: Cli, tmp_path: Path) -> None:
    """Set-up, then round 2: no round 1 was played here. Goblin 2, at 3 HP, takes 3 in round 2
    and dies (a monster at 0 HP, §9); the others keep their hit points from the file."""
    take_up(cli)
    cli.ok("damage", "Goblin 2", "3")
    report = tmp_path / "ford.md"
    cli.ok("export", "--format", "md", "--out", str(report))
    table = report.read_text(encoding="utf-8").split("## HP over rounds\n\n")[1].split("\n\n")[0].splitlines()
    assert table == ["| combatant | Set-up | round 2 |", "|---|---|---|", "| Aldra | 20 | 20 |", "| Goblin 1 | 7 | 7 |",
                     "| Goblin 2 | 3 | 0 |", "| Bog Lurker | 22 | 22 |", "| Tamsin | 11 | 11 |"]


def test_a_combatant_with_no_initiative_in_the_file_holds_iis_0(cli: Cli, tmp_path: Path) -> None:
    """Goblin 1 (c2) saved with no Initiative: II's default 0 places it last, after Tamsin's 4;
    only Aldra, 17, comes before Goblin 2 now."""
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    key = "ImprovedInitiative.AutoSavedEncounters.default"
    fight = json.loads(data[key])
    del fight["Combatants"][1]["Initiative"]
    data[key] = json.dumps(fight)
    path = tmp_path / FIXTURE.name
    path.write_text(json.dumps(data), encoding="utf-8")
    out = cli.ok("new", "Ford", "--rules", "srd-5.2", "--from", str(path))
    assert "Goblin 2's turn, under way where the fight was taken up (Aldra had theirs this round)" in out
    assert [c["name"] for c in state(cli)["combatants"]] == ["Aldra", "Goblin 2", "Bog Lurker", "Tamsin", "Goblin 1"]
    assert [c["own"]["initiative"] for c in state(cli)["combatants"]] == [17, 12, 9, 4, 0]
    for _ in range(3):
        cli.ok("next")
    assert clock(cli) == (2, True, ["Goblin 1"], [])  # its turn has not come this round


# The stats each ruleset needs beside what a stat block gives (as test_falsy_fields.py).
OTHERS = {
    "ap-countdown": ("--stat", "qu=0"), "percent-activity": ("--stat", "qu=0"),
    "modular": ("--stat", "agility=10", "--stat", "dodge=10"),
    "crisis": ("--stat", "int=0", "--stat", "speed=0", "--stat", "endurance=10"),
    "phases": ("--stat", "initiative=4", "--stat", "agility=10", "--stat", "bulk=1"),
}


@pytest.mark.parametrize("ruleset_id", sorted(OTHERS))
def test_a_ruleset_that_cannot_take_it_up_says_so_in_one_line(cli: Cli, ruleset_id: str) -> None:
    out = cli.ok("new", "Ford", "--rules", ruleset_id, "--from", str(FIXTURE), *OTHERS[ruleset_id])
    said = [line for line in out.splitlines() if "the fight" in line or "acting" in line]
    assert said == [f"the fight was at round 2, Goblin 2 acting: {ruleset_id} cannot take up a round under way, "
                    "so it starts before its first `round`"]
    assert "was acting" not in out
    assert clock(cli)[:3] == (0, False, [])


def _seated(memory_store: Store) -> Any:
    enc = start(memory_store, "srd-5.2")
    for name, score in (("Ann", 15), ("Orc", 10)):
        enc.execute(Carry(name=name, stats={"hp": "10", "ac": "12"}, figures={"initiative": score}, source="a file"),
                    "carry")
    return enc


@pytest.mark.parametrize(("resume", "error"), [
    (Resume(round=1, acting="Orc", order=("Orc", "Ann"), source="a file"),
     (RuleViolation, "the order puts Orc (10) before Ann (15): an initiative order runs from the highest")),
    (Resume(round=1, acting="Orc", order=("Ann",), source="a file"),
     (BadInput, "names each combatant once (Ann, Orc), not Ann")),
    (Resume(round=0, acting="Orc", order=("Ann", "Orc"), source="a file"),
     (BadInput, "a saved fight is taken up at round 1 or later, not 0")),
])
def test_a_resumption_that_does_not_hold_is_refused(memory_store: Store, resume: Resume,
                                                   error: tuple[type[Exception], str]) -> None:
    enc = _seated(memory_store)
    with pytest.raises(error[0], match=re.escape(error[1])):
        enc.execute(resume, "resume")


def test_a_turn_is_not_under_way_for_one_who_has_left(memory_store: Store) -> None:
    enc = _seated(memory_store)
    enc.execute(Leave(who="Orc"), "leave Orc")
    with pytest.raises(RuleViolation, match="Orc has left the fight: its turn cannot be under way"):
        enc.execute(Resume(round=2, acting="Orc", order=("Ann",), source="a file"), "resume")


def test_a_fight_under_way_is_not_taken_up_again(memory_store: Store) -> None:
    enc = _seated(memory_store)
    enc.execute(Resume(round=3, acting="Orc", order=("Ann", "Orc"), source="a file"), "resume")
    assert (enc.view().clock.round, enc.view().clock.now) == (3, ("Orc",))
    with pytest.raises(RuleViolation, match="a saved fight is taken up before the first round, not at round 3"):
        enc.execute(Resume(round=3, acting="Orc", order=("Ann", "Orc"), source="a file"), "resume")
