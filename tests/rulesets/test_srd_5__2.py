"""The srd-5.2 ruleset (shared/rules/srd-5.2-combat.md): its §17 worked examples, then each rule.

Every expected figure is worked by hand from the text in a comment beside it (the dice
typed, the formula computed). Refusals check the exact message and that nothing was
appended.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest

from skirmish.eventlog.commands import (
    AddCombatant,
    ApplyEffect,
    Cancel,
    Damage,
    Declare,
    Heal,
    Next,
    Resolve,
    StartRound,
)
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Event
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.rulesets.srd_5__2.events import (
    Attacked,
    ConcentrationEnded,
    ConcentrationSaved,
    Damaged,
    DeathSave,
    Fell,
    Healed,
    MarkEnded,
    Recharged,
    RoundStarted,
)

from support.cli import Cli, start
from support.encounter import combatant, do, effects, one, refused, who
from support.fight import fight as new_fight


def R(n: int) -> str:
    return f"srd-5.2-combat.md §{n}"


fight = partial(new_fight, rules="srd-5.2", cast=())


def to_turn(enc: Encounter, name: str, **rolls: tuple[int, ...]) -> list[Event]:
    events: list[Event] = []
    while enc.view().clock.now != (name,):
        events += do(enc, Next(rolls=dict(rolls)))
    return events


def attack(enc: Encounter, who_: str, target: str, d20: tuple[int, ...], dmg: tuple[int, ...] = (),
           **details: str) -> list[Event]:
    rolls = {who_: d20} | ({f"dmg:{who_}": dmg} if dmg else {})
    return do(enc, Declare(who=who_, action="attack", target=target, rolls=rolls, details=details))


# --- §17 worked examples -------------------------------------------------------------------


def _example_one(store: Store, **options: str) -> Encounter:
    enc = start(store, "srd-5.2", **options)
    do(enc, AddCombatant(name="Aria", side="party", stats={"hp": "20", "ac": "14", "dex": "3"}))
    do(enc, AddCombatant(name="Goblin", side="foes", stats={"hp": "7", "ac": "15", "dex": "2"}, count=3))
    do(enc, AddCombatant(name="Bram", side="party", stats={"hp": "20", "ac": "16"}))
    do(enc, AddCombatant(name="Ogre", side="foes", stats={"hp": "59", "ac": "11", "dex": "-1"}))
    return enc


def test_initiative_with_a_tie_worked_example(memory_store: Store) -> None:
    # §17.1: Aria 12 + 3 = 15; the goblins share 13 + 2 = 15; Bram 9 + 0 = 9; the ogre 17 - 1 = 16.
    # The GM breaks the Aria/goblins tie (ties=ask): goblins first here.
    enc = _example_one(memory_store, rounds="roll-on")
    rolls = {"Aria": (12,), "Goblin": (13,), "Bram": (9,), "Ogre": (17,)}
    refused(enc, StartRound(rolls=rolls), RuleViolation,
            "a tie at 15: Aria, Goblin (3); give the order with --with order=A+B "
            f"(option ties=ask: the GM and the players settle it) ({R(2)})")
    started = one(do(enc, StartRound(rolls=rolls, details={"order": "Goblin+Aria"})), RoundStarted)
    assert started.order == ("Ogre", "Goblin 1", "Goblin 2", "Goblin 3", "Aria", "Bram")
    assert {i.who: i.score.value for i in started.rolled} == {
        ("Aria",): 15, ("Goblin 1", "Goblin 2", "Goblin 3"): 15, ("Bram",): 9, ("Ogre",): 16}
    # The order holds for the whole fight (§2) and the next round starts when all have acted
    # (§1, option rounds=roll-on): the last `next` starts round 2, rolling nothing.
    for _ in range(5):
        assert not [e for e in do(enc, Next()) if isinstance(e, RoundStarted)]
    again = one(do(enc, Next()), RoundStarted)
    assert again.round == 2 and again.order == started.order and again.rolled == ()
    assert enc.view().clock.now == ("Ogre",)


@pytest.mark.parametrize("rounds", ["stop", "reroll"])
def test_a_round_that_stops_waits_for_round(memory_store: Store, rounds: str) -> None:
    # rounds=stop: round 2 keeps the order and rolls nothing; rounds=reroll (a house rule)
    # rolls every Initiative again: Bram 20 + 0, Aria 1 + 3 = 4, the goblins 1 + 2 = 3, the
    # ogre 2 - 1 = 1.
    enc = _example_one(memory_store, rounds=rounds)
    rolls = {"Aria": (12,), "Goblin": (13,), "Bram": (9,), "Ogre": (17,)}
    started = one(do(enc, StartRound(rolls=rolls, details={"order": "Goblin+Aria"})), RoundStarted)
    for _ in range(6):
        do(enc, Next())
    assert not enc.view().clock.running
    refused(enc, Next(), RuleViolation, f"no round is under way (`skirmish round` starts one) ({R(1)})")
    rolled = {"Aria": (1,), "Goblin": (1,), "Bram": (20,), "Ogre": (2,)}
    again = one(do(enc, StartRound(rolls={} if rounds == "stop" else rolled)), RoundStarted)
    if rounds == "stop":
        assert again.order == started.order and again.rolled == ()
    else:
        assert again.order == ("Bram", "Aria", "Goblin 1", "Goblin 2", "Goblin 3", "Ogre")


def test_initiative_by_scores_worked_example(memory_store: Store) -> None:
    # §17.1 by scores (10 + modifier): Aria 13, goblins 12, Bram 10, ogre 9.
    enc = _example_one(memory_store, initiative="score")
    started = one(do(enc, StartRound()), RoundStarted)
    assert started.order == ("Aria", "Goblin 1", "Goblin 2", "Goblin 3", "Bram", "Ogre")
    assert [i.score.value for i in started.rolled] == [13, 12, 10, 9]


def test_surprised_bram_worked_example(memory_store: Store) -> None:
    # §17.1: a surprised Bram rolls 9 and 4 with Disadvantage (§1, 5.2): Initiative 4 + 0 = 4.
    enc = _example_one(memory_store, ties="dex")
    rolls = {"Aria": (12,), "Goblin": (13,), "Bram": (9, 4), "Ogre": (17,)}
    started = one(do(enc, StartRound(rolls=rolls, details={"surprised": "Bram"})), RoundStarted)
    assert {i.who[0]: i.score.value for i in started.rolled}["Bram"] == 4
    # ties=dex: Aria (Dex +3) before the goblins (+2) at 15.
    assert started.order == ("Ogre", "Aria", "Goblin 1", "Goblin 2", "Goblin 3", "Bram")


@pytest.mark.parametrize(("damage", "dc"), [(23, 11), (15, 10), (70, 30)])
def test_concentration_dc_worked_example(memory_store: Store, damage: int, dc: int) -> None:
    # §17.2: 23 -> floor(23/2) = 11 -> DC 11; 15 -> 7 -> DC 10; 70 -> 35 -> capped at 30.
    enc = fight(memory_store, ("Mage", "party", {"hp": "100", "ac": "12", "con": "1"}))
    do(enc, ApplyEffect(who="Mage", kind="concentration", details={"spell": "Bless"}))
    events = do(enc, Damage(who="Mage", amount=damage, rolls={"con:Mage": (10,)}))
    save = one(events, ConcentrationSaved)
    # The save: d20 10 + Con 1 = 11: kept against DC 10 and 11 (a tie meets the DC), lost against 30.
    assert (save.dc.value, save.save.value, save.kept) == (dc, 11, dc <= 11)


def test_concentration_dc_has_no_cap_under_the_option(memory_store: Store) -> None:
    # 70 damage: max(10, 35) = 35 without the 5.2 cap; a save of 20 + 1 = 21 < 35 loses it.
    enc = fight(memory_store, ("Mage", "party", {"hp": "100", "ac": "12", "con": "1"}), **{"dc-cap": "none"})
    do(enc, ApplyEffect(who="Mage", kind="concentration", details={"spell": "Bless"}))
    events = do(enc, Damage(who="Mage", amount=70, rolls={"con:Mage": (20,)}))
    assert one(events, ConcentrationSaved).dc.value == 35
    assert one(events, ConcentrationEnded).why == "failed the save, DC 35"
    assert who(enc, "Mage").concentration == ""


def _cleric_at_0(store: Store) -> Encounter:
    # The Orc (15) acts before the Cleric (5): her death saves come at the start of her turns.
    enc = fight(store, ("Cleric", "party", {"hp": "12", "ac": "16"}), ("Orc", "foes", {"hp": "15", "ac": "13"}))
    do(enc, StartRound(rolls={"Cleric": (5,), "Orc": (15,)}))
    fell = one(do(enc, Damage(who="Cleric", amount=12)), Fell)
    assert not fell.dead and combatant(enc, "Cleric").status == "down"
    return enc


def test_death_saves_worked_example(memory_store: Store) -> None:
    # §17.3: turn 1 rolls 8: one failure; turn 2 rolls 14: one success; a Critical Hit for 5:
    # two failures -> three: dead.
    enc = _cleric_at_0(memory_store)
    save = one(do(enc, Next(rolls={"death:Cleric": (8,)})), DeathSave)
    assert (save.successes, save.failures, save.outcome) == (0, 1, "failure")
    do(enc, Next())  # round 1 ends and round 2 starts in the same order (rounds=roll-on, §1): the Orc's turn
    save = one(do(enc, Next(rolls={"death:Cleric": (14,)})), DeathSave)
    assert (save.successes, save.failures) == (1, 1)
    events = do(enc, Damage(who="Cleric", amount=5, details={"crit": "yes"}))
    assert one(events, DeathSave).failures == 3
    assert one(events, Fell).dead and combatant(enc, "Cleric").status == "dead"


def test_death_save_natural_20_worked_example(memory_store: Store) -> None:
    # §17.3: had turn 2 been a natural 20: 1 HP, awake but Prone, tallies 0.
    enc = _cleric_at_0(memory_store)
    do(enc, Next(rolls={"death:Cleric": (8,)}))
    do(enc, Next())  # round 2 starts: the Orc's turn
    events = do(enc, Next(rolls={"death:Cleric": (20,)}))
    assert one(events, Healed).hp_left == 1
    assert combatant(enc, "Cleric").vital.value == 1 and combatant(enc, "Cleric").status == "fighting"
    assert [k for k, _ in effects(enc, "Cleric")] == ["prone", "bloodied"]
    assert who(enc, "Cleric").death == ""


def test_massive_damage_worked_example(memory_store: Store) -> None:
    # §17.3: at 6 HP she takes 18: 18 - 6 = 12 left over >= 12 (HP maximum): dead.
    enc = fight(memory_store, ("Cleric", "party", {"hp": "12", "ac": "16"}))
    do(enc, Damage(who="Cleric", amount=6))
    fell = one(do(enc, Damage(who="Cleric", amount=18)), Fell)
    assert fell.dead and fell.why == "massive damage: 12 left over >= HP maximum 12"


def test_temporary_hp_worked_example(memory_store: Store) -> None:
    # §17.4: 5 temporary + 20 HP, 7 damage: 5 absorbed, 2 off HP: 0 temporary, 18 HP.
    enc = fight(memory_store, ("Bram", "party", {"hp": "20", "ac": "16"}))
    do(enc, Heal(who="Bram", amount=5, details={"temp": "yes"}))
    hurt = one(do(enc, Damage(who="Bram", amount=7)), Damaged)
    assert (hurt.temp_left, hurt.hp_left) == (0, 18)
    # Offered 12 while holding 10: 12 in place of 10, never 22.
    do(enc, Heal(who="Bram", amount=10, details={"temp": "yes"}))
    do(enc, Heal(who="Bram", amount=12, details={"temp": "yes"}))
    assert who(enc, "Bram").temp == 12


@pytest.mark.parametrize(("keep", "expected", "line"), [
    # §8: no stacking; the creature keeps the old grant or takes the new. Holding 8, offered 3.
    (None, 8, "Bram keeps 8 temporary HP, not 3 (the higher, §8)"),
    ("higher", 8, "Bram keeps 8 temporary HP, not 3 (the higher, §8)"),
    ("old", 8, "Bram keeps 8 temporary HP, not 3 (keep=old, §8)"),
    ("new", 3, "Bram has 3 temporary HP in place of 8 (keep=new, §8)"),
])
def test_a_second_grant_of_temporary_hp_keeps_the_one_chosen(memory_store: Store, keep: str | None, expected: int,
                                                              line: str) -> None:
    enc = fight(memory_store, ("Bram", "party", {"hp": "20", "ac": "16"}))
    do(enc, Heal(who="Bram", amount=8, details={"temp": "yes"}))
    details = {"temp": "yes"} | ({"keep": keep} if keep else {})
    events = do(enc, Heal(who="Bram", amount=3, details=details))
    assert who(enc, "Bram").temp == expected
    assert [enc.ruleset.describe(e) for e in events] == [line]


@pytest.mark.parametrize(("trait", "details", "expected"), [
    ("resist", {}, 5),  # 4 + 5 + 2 = 11, halved: 5
    ("vulnerable", {}, 22),  # 11 doubled: 22
    ("both", {"adjust": "-3"}, 8),  # 11 - 3 = 8, halved 4, doubled 8
    # Not in §17, the order §7 gives: 11 halved first (5), then doubled: 10 (doubling first: 22 -> 11).
    ("both", {}, 10),
])
def test_resistance_and_a_crit_worked_example(memory_store: Store, trait: str, details: dict[str, str],
                                              expected: int) -> None:
    # §17.5: a scimitar 1d6+2 crits: the d6 twice (4, 5) + 2 = 11, then §7's order.
    stats = {"hp": "40", "ac": "12"}
    stats |= {"resist": "slashing", "vulnerable": "slashing"} if trait == "both" else {trait: "slashing"}
    enc = fight(memory_store, ("Goblin", "foes", {"hp": "7", "ac": "15", "dex": "2"}), ("Target", "party", stats))
    do(enc, StartRound(rolls={"Goblin": (15,), "Target": (2,)}))
    events = attack(enc, "Goblin", "Target", (20,), (4, 5), hit="4", damage="1d6+2", type="slashing", **details)
    assert one(events, Attacked).crit
    assert one(events, Damaged).damage.value == expected


def test_legendary_and_recharge_worked_example(memory_store: Store) -> None:
    # §17.6: the dragon (3 uses) breathes (Recharge 5-6) on its turn, spends one use after each
    # of the next three creatures' turns, none left for the fourth; its next turn: 3 uses,
    # recharge roll 4: still spent; the turn after, 5: ready.
    # rounds=stop: "none left for the fourth" is the moment after D's turn and before the
    # dragon's, which is between rounds only when a round waits for `round`; under roll-on
    # D's `next` starts the dragon's turn at once.
    cast = [("Dragon", "foes", {"hp": "200", "ac": "18", "legendary": "3", "recharge": "5"})]
    cast += [(n, "party", {"hp": "30", "ac": "15"}) for n in ("A", "B", "C", "D")]
    enc = fight(memory_store, *cast, rounds="stop")
    do(enc, StartRound(rolls={"Dragon": (20,), "A": (15,), "B": (12,), "C": (9,), "D": (5,)}))
    do(enc, Declare(who="Dragon", action="magic", details={"spell": "Fire Breath", "recharge": "yes"}))
    do(enc, Next())  # A's turn
    for _ in range(3):  # after A's, B's and C's turns
        do(enc, Next())
        do(enc, Declare(who="Dragon", action="legendary"))
    assert who(enc, "Dragon").legendary == "0/3"
    do(enc, Next())  # after D's turn: round 1 ends, round 2 waits for `round` (rounds=stop)
    refused(enc, Declare(who="Dragon", action="legendary"), RuleViolation,
            f"Dragon has 0 legendary use(s) left of 3, not 1 ({R(14)})")
    do(enc, StartRound(rolls={"recharge:Dragon": (4,)}))
    assert who(enc, "Dragon").legendary == "3/3"
    refused(enc, Declare(who="Dragon", action="magic", details={"recharge": "yes"}), RuleViolation,
            f"Dragon's Recharge ability is spent until a recharge roll of 5-6 ({R(14)})")
    to_turn(enc, "D")
    do(enc, Next())  # round 2 ends
    events = do(enc, StartRound(rolls={"recharge:Dragon": (5,)}))
    assert one(events, Recharged).ready


def test_roll_on_pauses_after_the_last_turn_for_a_legendary_creature_acting_first(memory_store: Store) -> None:
    # rounds=roll-on (§1) with §14: the dragon acts first, so after the last creature's turn
    # (B's) the round ends and waits: the dragon may spend a use after B's turn, and the next
    # `next` starts round 2 in the same order, its recharge rolled at its turn's start.
    cast = [("Dragon", "foes", {"hp": "200", "ac": "18", "legendary": "3", "recharge": "5"}),
            ("A", "party", {"hp": "30", "ac": "15"}), ("B", "party", {"hp": "30", "ac": "15"})]
    enc = fight(memory_store, *cast)
    started = one(do(enc, StartRound(rolls={"Dragon": (20,), "A": (15,), "B": (12,)})), RoundStarted)
    do(enc, Declare(who="Dragon", action="magic", details={"spell": "Fire Breath", "recharge": "yes"}))
    do(enc, Next())  # A's turn
    ended = do(enc, Next())  # B's turn
    assert not [e for e in ended if isinstance(e, RoundStarted)]
    ended = do(enc, Next())  # after B's turn: round 1 ends and waits for the dragon's use
    assert not [e for e in ended if isinstance(e, RoundStarted)] and not enc.view().clock.running
    do(enc, Declare(who="Dragon", action="legendary"))
    assert who(enc, "Dragon").legendary == "2/3"
    events = do(enc, Next(rolls={"recharge:Dragon": (6,)}))
    again = one(events, RoundStarted)
    assert (again.round, again.order, again.rolled) == (2, started.order, ())
    assert one(events, Recharged).ready and enc.view().clock.now == ("Dragon",)
    assert who(enc, "Dragon").legendary == "3/3"  # its uses come back at its turn's start (§14)


def test_roll_on_does_not_pause_when_no_legendary_creature_acts_first(memory_store: Store) -> None:
    cast = [("Dragon", "foes", {"hp": "200", "ac": "18", "legendary": "3"}),
            ("A", "party", {"hp": "30", "ac": "15"})]
    enc = fight(memory_store, *cast)
    do(enc, StartRound(rolls={"Dragon": (2,), "A": (15,)}))  # A 15, the dragon 2
    do(enc, Next())  # the dragon's turn
    assert one(do(enc, Next()), RoundStarted).round == 2  # the round rolls on: A acts first
    assert enc.view().clock.now == ("A",)


# --- the rules, one by one --------------------------------------------------------------------


def test_legendary_once_after_each_turn_and_never_on_its_own(memory_store: Store) -> None:
    enc = fight(memory_store, ("Dragon", "foes", {"hp": "200", "ac": "18", "legendary": "3"}),
                ("A", "party", {"hp": "30", "ac": "15"}), ("B", "party", {"hp": "30", "ac": "15"}))
    do(enc, StartRound(rolls={"Dragon": (20,), "A": (15,), "B": (12,)}))
    refused(enc, Declare(who="Dragon", action="legendary"), RuleViolation,
            f"a legendary use comes after another creature's turn, never its own ({R(14)})")
    do(enc, Next())  # A's turn: the Dragon's own turn was the last to end
    refused(enc, Declare(who="Dragon", action="legendary"), RuleViolation,
            f"no other creature's turn has ended for Dragon to follow ({R(14)})")
    do(enc, Next())  # B's turn: after A's
    do(enc, Declare(who="Dragon", action="legendary"))
    refused(enc, Declare(who="Dragon", action="legendary"), RuleViolation,
            f"Dragon has used a legendary use after this turn (option legendary-repeat=1) ({R(14)})")


def test_attack_natural_1_misses_and_natural_20_hits_whatever_the_ac(memory_store: Store) -> None:
    enc = fight(memory_store, ("Orc", "foes", {"hp": "15", "ac": "13"}), ("Knight", "party", {"hp": "50", "ac": "30"}))
    do(enc, StartRound(rolls={"Orc": (15,), "Knight": (2,)}))
    # 1 + 20 = 21 >= 13 would hit; a natural 1 misses (§6).
    assert not one(attack(enc, "Orc", "Knight", (1,), hit="20"), Attacked).hit


def test_advantage_keeps_the_higher_and_both_cancel(memory_store: Store) -> None:
    enc = fight(memory_store, ("Orc", "foes", {"hp": "15", "ac": "13", "attacks": "2"}),
                ("Bram", "party", {"hp": "50", "ac": "15"}))
    do(enc, StartRound(rolls={"Orc": (15,), "Bram": (2,)}))
    do(enc, ApplyEffect(who="Bram", kind="restrained"))
    # Restrained target: Advantage; 6 and 14: 14 + 2 = 16 >= 15 hits (§6, §13).
    hit = one(attack(enc, "Orc", "Bram", (6, 14), hit="2"), Attacked)
    assert (hit.advantage, hit.roll.value, hit.hit) == ("advantage", 16, True)
    do(enc, ApplyEffect(who="Orc", kind="poisoned"))
    # Poisoned attacker too: Advantage and Disadvantage cancel: one d20, 12 + 2 = 14 < 15.
    second = one(attack(enc, "Orc", "Bram", (12,), hit="2"), Attacked)
    assert (second.advantage, second.roll.value, second.hit) == ("", 14, False)
    # Two attack rolls in its one Attack action (attacks=2), then the action is spent.
    refused(enc, Declare(who="Orc", action="attack", target="Bram", rolls={"Orc": (3,)}), RuleViolation,
            f"Orc has taken its action this turn ({R(3)})")


@pytest.mark.parametrize(("option", "dead", "status"), [("instant", True, "dead"), ("as-character", False, "down")])
def test_a_monster_dies_at_0_hp_or_falls_as_a_character_per_option(memory_store: Store, option: str, dead: bool,
                                                                    status: str) -> None:
    enc = fight(memory_store, ("Orc", "foes", {"hp": "15", "ac": "13"}), **{"monster-death": option})
    assert one(do(enc, Damage(who="Orc", amount=15)), Fell).dead is dead
    assert combatant(enc, "Orc").status == status


def test_pc_defaults_by_side_and_init_by_dex(memory_store: Store) -> None:
    enc = fight(memory_store)
    ann = do(enc, AddCombatant(name="Ann", side="party", stats={"hp": "9", "ac": "12", "dex": "4"}))
    imp = do(enc, AddCombatant(name="Imp", side="foes", stats={"hp": "9", "ac": "12", "dex": "3", "init": "5"}))
    assert [(e.stats["pc"], e.stats["init"]) for e in ann + imp] == [(1, 4), (0, 5)]  # type: ignore[attr-defined]


def test_healing_wakes_a_character_and_the_dead_stay_dead(memory_store: Store) -> None:
    enc = _cleric_at_0(memory_store)
    healed = one(do(enc, Heal(who="Cleric", amount=20)), Healed)
    # 20 offered, 12 of maximum: 12 regained (§10: excess lost).
    assert (healed.amount, healed.hp_left, healed.woke) == (12, 12, True)
    assert [k for k, _ in effects(enc, "Cleric")] == ["prone"]
    do(enc, Damage(who="Cleric", amount=30))  # 30 - 12 = 18 >= 12: massive damage
    refused(enc, Heal(who="Cleric", amount=1), RuleViolation, f"Cleric is dead: only revival magic brings it back ({R(10)})")


def test_help_stabilises_a_dying_ally_with_dc_10_medicine(memory_store: Store) -> None:
    enc = _cleric_at_0(memory_store)
    do(enc, AddCombatant(name="Bard", side="party", stats={"hp": "10", "ac": "12"}))
    do(enc, Next(rolls={"death:Cleric": (12,)}))  # the Cleric's turn: a success
    # Round 1 ends and round 2 starts (rounds=roll-on): the Bard rolls 10 and acts before her (5),
    # after the Orc (15).
    do(enc, Next(rolls={"Bard": (10,)}))
    do(enc, Next())
    assert enc.view().clock.now == ("Bard",)
    # 7 + 3 = 10 >= DC 10: Stable (§9), tallies reset.
    do(enc, Declare(who="Bard", action="help", target="Cleric", rolls={"Bard": (7,)}, details={"bonus": "3"}))
    assert ("stable", None) in effects(enc, "Cleric") and who(enc, "Cleric").death == "0/0"
    # A Stable character rolls no death save (§9): her turn starts without dice.
    do(enc, Next())
    # Damage ends Stable and counts a failure (stable-damage=yes).
    save = one(do(enc, Damage(who="Cleric", amount=1)), DeathSave)
    assert save.failures == 1 and ("stable", None) not in effects(enc, "Cleric")


def test_conditions_anchored_to_a_turn_expire_as_events_and_come_back_on_undo(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), ("Orc", "foes", {"hp": "9", "ac": "12"}))
    do(enc, StartRound(rolls={"Ann": (15,), "Orc": (5,)}))
    # On Ann's turn: the Orc is Frightened until the end of Ann's next turn (--rounds 1 --with at=end):
    # the end of this turn does not count.
    do(enc, ApplyEffect(who="Orc", kind="frightened", rounds=1, details={"at": "end"}))
    do(enc, Next())
    assert effects(enc, "Orc") == [("frightened", 1)]
    do(enc, Next())  # the Orc's turn ends, round 2 starts: Ann's turn 2
    ended = do(enc, Next())  # Ann's turn 2 ends
    assert one(ended, MarkEnded).why == "the end of Ann's turn, §12"
    assert effects(enc, "Orc") == []
    do(enc, ApplyEffect(who="Ann", kind="prone"))  # something after, then undo both
    enc.undo(2, "undo 2")
    assert effects(enc, "Orc") == [("frightened", 1)]  # as before that `next`: one turn end to go


def test_exhaustion_levels_lower_d20_tests_and_six_is_death(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12", "dex": "2"}))
    do(enc, ApplyEffect(who="Ann", kind="exhaustion"))
    do(enc, ApplyEffect(who="Ann", kind="exhaustion"))
    # d20 10 + 2 - 2 x 2 = 8 (§13); Speed 30 - 5 x 2 = 20.
    started = one(do(enc, StartRound(rolls={"Ann": (10,)})), RoundStarted)
    assert started.rolled[0].score.value == 8 and who(enc, "Ann").move == 20
    for _ in range(4):
        do(enc, ApplyEffect(who="Ann", kind="exhaustion"))
    assert combatant(enc, "Ann").status == "dead"


def test_a_ready_fires_on_its_trigger_spending_the_reaction(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), ("Orc", "foes", {"hp": "9", "ac": "12"}))
    do(enc, StartRound(rolls={"Ann": (15,), "Orc": (5,)}))
    do(enc, Declare(who="Ann", action="ready", trigger="the orc moves", details={"then": "attack"}))
    do(enc, Next())
    do(enc, Resolve(who="Ann"))
    assert who(enc, "Ann").reaction
    events = attack(enc, "Ann", "Orc", (15,), hit="3", **{"as": "ready"})
    assert one(events, Attacked).hit  # 15 + 3 = 18 >= 12
    refused(enc, Cancel(who="Ann"), RuleViolation, f"Ann has no Ready held ({R(4)})")


def test_a_bonus_action_needs_a_grant(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}))
    do(enc, StartRound(rolls={"Ann": (15,)}))
    refused(enc, Declare(who="Ann", action="bonus"), RuleViolation,
            f"a Bonus Action needs a feature, spell or stat block granting it: --with by=WHAT ({R(3)})")
    do(enc, Declare(who="Ann", action="bonus", details={"by": "Cunning Action"}))
    assert who(enc, "Ann").bonus


def test_movement_splits_around_the_action_up_to_speed_and_dash(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12", "speed": "30"}))
    do(enc, StartRound(rolls={"Ann": (15,)}))
    do(enc, Declare(who="Ann", action="move", amount=10))
    do(enc, Declare(who="Ann", action="dash"))
    do(enc, Declare(who="Ann", action="move", amount=15, details={"terrain": "difficult"}))
    # 30 x 2 (Dash) - 10 - 2 x 15 = 20 left (§3, §4).
    assert who(enc, "Ann").move == 20
    refused(enc, Declare(who="Ann", action="move", amount=25), RuleViolation,
            f"Ann has 20 ft of movement left, not 25 ({R(3)})")


def test_resist_names_damage_types(memory_store: Store) -> None:
    enc = fight(memory_store)
    refused(enc, AddCombatant(name="Imp", stats={"hp": "5", "ac": "10", "resist": "fire, lava"}), BadInput,
            f"resist=fire, lava: 'lava' is no damage type ({R(7)})")


def test_the_cli_plays_a_turn_with_typed_dice(cli: Cli) -> None:
    cli.ok("new", "Yard", "--rules", "srd-5.2")
    cli.ok("add", "Ann", "--side", "party", "--stat", "hp=12", "--stat", "ac=12", "--stat", "dex=2")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "hp=15", "--stat", "ac=13", "--stat", "resist=fire,cold")
    cli.ok("round", "--roll", "Ann=14", "--roll", "Orc=3")
    out = cli.ok("declare", "Ann", "attack", "--target", "Orc", "--with", "hit=5", "--with", "damage=2d6+3",
                 "--with", "type=fire", "--roll", "Ann=9", "--roll", "dmg:Ann=4,6")
    # 9 + 5 = 14 >= 13: hit; 4 + 6 + 3 = 13 fire, resisted: 6; 15 - 6 = 9 HP.
    assert "Orc takes 6 fire damage (9 HP left)" in out
    assert cli.fails("declare", "Ann", "dash") == "Error: Ann has taken its action this turn (srd-5.2-combat.md §3)"


def test_a_lair_action_at_count_20_losing_ties(memory_store: Store) -> None:
    # §14 (5.1): count 20, after everyone at 20 or more: Ann 20 acts before the lair, Bob 19 after.
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), ("Bob", "party", {"hp": "9", "ac": "12"}),
                ("Drake", "foes", {"hp": "50", "ac": "17", "lair": "1"}), lair="count-20")
    started = one(do(enc, StartRound(rolls={"Ann": (20,), "Bob": (19,), "Drake": (5,)})), RoundStarted)
    assert started.order == ("Ann", "", "Bob", "Drake")
    do(enc, Next())
    assert enc.view().clock.moment == "count 20 (lair)"
    do(enc, Declare(who="Drake", action="lair"))
    refused(enc, Declare(who="Drake", action="lair"), RuleViolation,
            f"Drake has taken its lair action this round ({R(14)})")


def test_no_lair_action_under_5_2(memory_store: Store) -> None:
    enc = fight(memory_store, ("Drake", "foes", {"hp": "50", "ac": "17", "lair": "1"}))
    do(enc, StartRound(rolls={"Drake": (5,)}))
    refused(enc, Declare(who="Drake", action="lair"), RuleViolation,
            f"5.2 has no lair action (option lair=count-20 gives one at count 20) ({R(14)})")


def test_surprised_under_5_1_cannot_act_on_its_first_turn(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), ("Orc", "foes", {"hp": "9", "ac": "12"}),
                surprise="5.1")
    # 5.1: no Disadvantage on the roll, one d20 each.
    do(enc, StartRound(rolls={"Ann": (15,), "Orc": (5,)}, details={"surprised": "Ann"}))
    refused(enc, Declare(who="Ann", action="dash"), RuleViolation,
            f"Ann is surprised: no move or action on its first turn (option surprise=5.1) ({R(1)})")
    do(enc, Next())  # its first turn ended: it may react again
    do(enc, Declare(who="Ann", action="attack", target="Orc", rolls={"Ann": (3,)}, details={"as": "reaction"}))
    assert who(enc, "Ann").reaction


@pytest.mark.parametrize(("option", "move"), [("5.2", 30), ("5.1", 0)])
def test_stunned_may_move_under_5_2_not_5_1(memory_store: Store, option: str, move: int) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), stunned=option)
    do(enc, ApplyEffect(who="Ann", kind="stunned"))
    assert who(enc, "Ann").move == move


def test_help_gives_an_allys_next_attack_advantage_and_is_used_up(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), ("Bob", "party", {"hp": "9", "ac": "12"}),
                ("Orc", "foes", {"hp": "30", "ac": "15"}))
    do(enc, StartRound(rolls={"Ann": (15,), "Bob": (10,), "Orc": (5,)}))
    do(enc, Declare(who="Ann", action="help", target="Orc"))
    do(enc, Next())
    # Advantage: 4 and 13, 13 kept: 13 + 2 = 15 >= 15.
    hit = one(attack(enc, "Bob", "Orc", (4, 13), hit="2"), Attacked)
    assert (hit.advantage, hit.roll.value, hit.hit) == ("advantage", 15, True)
    assert [k for k, _ in effects(enc, "Orc")] == []


def test_an_immune_creature_takes_no_such_damage_nor_condition(memory_store: Store) -> None:
    enc = fight(memory_store, ("Golem", "foes", {"hp": "30", "ac": "15", "immune": "poison,poisoned"}))
    assert one(do(enc, Damage(who="Golem", amount=12, details={"type": "poison"})), Damaged).hp_left == 30
    refused(enc, ApplyEffect(who="Golem", kind="poisoned"), RuleViolation, f"Golem is immune to poisoned ({R(7)})")


def test_concentration_ends_when_incapacitated(memory_store: Store) -> None:
    enc = fight(memory_store, ("Mage", "party", {"hp": "20", "ac": "12"}))
    do(enc, ApplyEffect(who="Mage", kind="concentration", details={"spell": "Bless"}))
    events = do(enc, ApplyEffect(who="Mage", kind="stunned"))
    assert one(events, ConcentrationEnded).why == "Incapacitated (stunned)"
    assert combatant(enc, "Mage").status == "out"


@pytest.mark.parametrize(("option", "failures"), [("failure", 1), ("none", 0)])
def test_damage_absorbed_by_temporary_hp_at_0_per_option(memory_store: Store, option: str, failures: int) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), **{"temp-at-0": option})
    do(enc, Damage(who="Ann", amount=9))
    do(enc, Heal(who="Ann", amount=5, details={"temp": "yes"}))  # temporary HP wake no one (§8)
    assert combatant(enc, "Ann").status == "down"
    do(enc, Damage(who="Ann", amount=3))  # all 3 absorbed: 2 temporary left
    assert who(enc, "Ann").temp == 2 and who(enc, "Ann").death == f"0/{failures}"


# --- every point of §16, one test each where the CLI reaches it ---------------------------------


def test_every_option_of_section_16_is_recorded_in_the_first_event(memory_store: Store) -> None:
    from skirmish.projections.ruleset import get_ruleset

    enc = fight(memory_store)
    recorded = enc.started.options
    assert set(recorded) == set(get_ruleset("srd-5.2").options) and len(recorded) == 22


def test_identical_none_rolls_each_creature_alone(memory_store: Store) -> None:
    enc = start(memory_store, "srd-5.2", identical="none", ties="dex")
    do(enc, AddCombatant(name="Goblin", side="foes", stats={"hp": "7", "ac": "15", "dex": "2"}, count=2))
    started = one(do(enc, StartRound(rolls={"Goblin 1": (4,), "Goblin 2": (18,)})), RoundStarted)
    # 4 + 2 = 6 and 18 + 2 = 20: Goblin 2 first.
    assert started.order == ("Goblin 2", "Goblin 1")


def test_initiative_score_with_advantage_is_plus_5(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12", "dex": "3"}), initiative="score")
    do(enc, ApplyEffect(who="Ann", kind="invisible"))
    # 10 + 3 + 5 (Invisible: Advantage) = 18 (§2).
    assert one(do(enc, StartRound()), RoundStarted).rolled[0].score.value == 18


def test_ties_roll_off_higher_first(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), ("Orc", "foes", {"hp": "9", "ac": "12"}),
                ties="rolloff")
    # Both 10; the roll-off: Ann 3, the Orc 17: the Orc first.
    started = one(do(enc, StartRound(rolls={"Ann": (10,), "Orc": (10,), "tie:Ann": (3,), "tie:Orc": (17,)})),
                  RoundStarted)
    assert started.order == ("Orc", "Ann")


@pytest.mark.parametrize(("option", "order"), [("roll", ("Ann", "Late", "Orc")), ("last", ("Ann", "Orc", "Late"))])
def test_a_late_arrival_rolls_in_or_acts_last(memory_store: Store, option: str, order: tuple[str, ...]) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), ("Orc", "foes", {"hp": "9", "ac": "12"}),
                late=option)
    do(enc, StartRound(rolls={"Ann": (15,), "Orc": (5,)}))
    do(enc, AddCombatant(name="Late", side="party", stats={"hp": "9", "ac": "12"}))
    do(enc, Next())
    # Round 2 starts at the Orc's `next` (rounds=roll-on): Late rolls 10: between Ann 15 and
    # the Orc 5 (roll), or after them (last).
    rolls = {"Late": (10,)} if option == "roll" else {}
    assert one(do(enc, Next(rolls=rolls)), RoundStarted).order == order


@pytest.mark.parametrize(("option", "uses"), [("full", "2/2"), ("none", "0/2")])
def test_legendary_uses_before_its_first_turn_per_option(memory_store: Store, option: str, uses: str) -> None:
    enc = fight(memory_store, ("Drake", "foes", {"hp": "50", "ac": "17", "legendary": "2"}),
                **{"legendary-start": option})
    assert who(enc, "Drake").legendary == uses


def test_legendary_any_allows_several_uses_after_one_turn(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}),
                ("Drake", "foes", {"hp": "50", "ac": "17", "legendary": "3"}), ("Bob", "party", {"hp": "9", "ac": "12"}),
                **{"legendary-repeat": "any"})
    do(enc, StartRound(rolls={"Drake": (20,), "Ann": (15,), "Bob": (5,)}))
    do(enc, Next())
    do(enc, Next())  # Bob's turn: after Ann's, all three uses at once (§16, option any)
    for _ in range(3):
        do(enc, Declare(who="Drake", action="legendary"))
    assert who(enc, "Drake").legendary == "0/3"


@pytest.mark.parametrize(("option", "allowed"), [("yes", True), ("no", False)])
def test_a_legendary_use_after_a_skipped_turn_per_option(memory_store: Store, option: str, allowed: bool) -> None:
    enc = fight(memory_store, ("Drake", "foes", {"hp": "50", "ac": "17", "legendary": "3"}),
                ("Ann", "party", {"hp": "9", "ac": "12"}), ("Orc", "foes", {"hp": "9", "ac": "12"}),
                ("Bob", "party", {"hp": "9", "ac": "12"}), **{"legendary-skipped": option})
    do(enc, StartRound(rolls={"Drake": (20,), "Ann": (15,), "Orc": (10,), "Bob": (5,)}))
    do(enc, Damage(who="Orc", amount=9))  # dead: its turn will be passed by
    do(enc, Next())  # Ann's turn
    do(enc, Next())  # after Ann's turn, the Orc's passed by: Bob's
    do(enc, Declare(who="Drake", action="legendary"))  # after Ann's or the Orc's
    if allowed:
        do(enc, Declare(who="Drake", action="legendary"))  # the skipped Orc's turn counts as one more
    else:
        refused(enc, Declare(who="Drake", action="legendary"), RuleViolation,
                f"Drake has used a legendary use after this turn (option legendary-repeat=1) ({R(14)})")


@pytest.mark.parametrize(("option", "left"), [("start", [("blessed", 10)]), ("end", [("blessed", 10)])])
def test_one_minute_is_ten_of_the_creators_turns(memory_store: Store, option: str, left: Any) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), **{"minute-ends": option})
    do(enc, StartRound(rolls={"Ann": (15,)}))
    do(enc, ApplyEffect(who="Ann", kind="blessed", custom=True, details={"minutes": "1"}))
    assert effects(enc, "Ann") == left
    # 10 rounds on: under start it ends as Ann's 11th turn starts; under end, as that 11th turn ends
    # (the end of the turn it was cast in does not count).
    for _ in range(10):  # each `next` ends Ann's turn and its round, and starts the next (rounds=roll-on)
        do(enc, Next())
    assert effects(enc, "Ann") == ([] if option == "start" else [("blessed", 1)])
    do(enc, Next())
    assert effects(enc, "Ann") == []


@pytest.mark.parametrize(("option", "left"), [("round-end", []), ("lasts", [("blinded", 1)])])
def test_an_effect_anchored_to_a_turn_that_never_comes(memory_store: Store, option: str, left: Any) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), ("Orc", "foes", {"hp": "9", "ac": "12"}),
                **{"missed-turn": option})
    do(enc, StartRound(rolls={"Ann": (15,), "Orc": (5,)}))
    # The Orc blinds Ann "until the end of its next turn" (a reaction in Ann's turn); then it
    # flees before that turn comes.
    do(enc, ApplyEffect(who="Ann", kind="blinded", rounds=1, details={"at": "end", "of": "Orc"}))
    from skirmish.eventlog.commands import Leave
    do(enc, Leave(who="Orc", reason="flees"))
    do(enc, Next())  # Ann's turn ends, the Orc's never comes: the round ends
    assert effects(enc, "Ann") == left


@pytest.mark.parametrize(("option", "failures"), [("yes", 1), ("no", 0)])
def test_the_damage_that_ends_stable_per_option(memory_store: Store, option: str, failures: int) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), ("Bob", "party", {"hp": "9", "ac": "12"}),
                **{"stable-damage": option})
    do(enc, Damage(who="Ann", amount=9))
    # Ann at 0 HP is Incapacitated: Disadvantage on Initiative (§2), 5 and 6, the 5 kept.
    do(enc, StartRound(rolls={"Bob": (15,), "Ann": (5, 6)}))
    do(enc, Declare(who="Bob", action="help", target="Ann", rolls={"Bob": (10,)}))  # 10 + 0 >= DC 10
    do(enc, Damage(who="Ann", amount=2))
    assert who(enc, "Ann").death == f"0/{failures}"


@pytest.mark.parametrize(("option", "outcome"), [("yes", "failure"), ("no", "success")])
def test_exhaustion_lowers_death_saves_per_option(memory_store: Store, option: str, outcome: str) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), **{"exhaustion-saves": option})
    do(enc, ApplyEffect(who="Ann", kind="exhaustion"))
    do(enc, Damage(who="Ann", amount=9))
    # 11 - 2 (Exhaustion 1) = 9 < 10: a failure; without the option 11 >= 10: a success.
    # Her Initiative: Disadvantage, at 0 HP (§2); her turn starts the round with a death save.
    events = do(enc, StartRound(rolls={"Ann": (4, 9), "death:Ann": (11,)}))
    assert one(events, DeathSave).outcome == outcome


def test_exhaustion_5_1_halves_speed_at_2_and_hp_maximum_at_4(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "21", "ac": "12"}), exhaustion="5.1")
    for _ in range(2):
        do(enc, ApplyEffect(who="Ann", kind="exhaustion"))
    assert who(enc, "Ann").move == 15  # floor(30 / 2)
    for _ in range(2):
        do(enc, ApplyEffect(who="Ann", kind="exhaustion"))
    assert combatant(enc, "Ann").vital.value == 10 and combatant(enc, "Ann").vital.maximum == 10  # floor(21 / 2)


@pytest.mark.parametrize(("option", "saves"), [("save", 1), ("no-save", 0)])
def test_concentration_when_temporary_hp_absorb_it_all(memory_store: Store, option: str, saves: int) -> None:
    enc = fight(memory_store, ("Mage", "party", {"hp": "20", "ac": "12"}), **{"concentration-temp": option})
    do(enc, ApplyEffect(who="Mage", kind="concentration", details={"spell": "Bless"}))
    do(enc, Heal(who="Mage", amount=10, details={"temp": "yes"}))
    rolls = {"con:Mage": (15,)} if saves else {}
    events = do(enc, Damage(who="Mage", amount=6, rolls=rolls))
    assert len([e for e in events if isinstance(e, ConcentrationSaved)]) == saves


@pytest.mark.parametrize(("option", "rolled"), [("roll", 1), ("skip", 0)])
def test_recharge_while_incapacitated_per_option(memory_store: Store, option: str, rolled: int) -> None:
    enc = fight(memory_store, ("Drake", "foes", {"hp": "50", "ac": "17", "recharge": "5"}),
                **{"recharge-incapacitated": option})
    do(enc, StartRound(rolls={"Drake": (10,)}))
    do(enc, Declare(who="Drake", action="magic", details={"recharge": "yes"}))
    do(enc, ApplyEffect(who="Drake", kind="stunned"))
    rolls = {"recharge:Drake": (6,)} if rolled else {}
    events = do(enc, Next(rolls=rolls))  # round 2 starts (rounds=roll-on): the Drake's turn
    assert len([e for e in events if isinstance(e, Recharged)]) == rolled


@pytest.mark.parametrize(("option", "dcs"), [("per-hit", [16]), ("per-type", [10, 12])])
def test_concentration_saves_per_hit_or_per_damage_type(memory_store: Store, option: str, dcs: list[int]) -> None:
    # A hit of 1d8 slashing (8) and 4d6 fire (6 + 6 + 6 + 6 = 24): per hit, 32 -> DC 16;
    # per type, 8 -> max(10, 4) = 10 and 24 -> 12 (§11).
    enc = fight(memory_store, ("Mage", "party", {"hp": "60", "ac": "10"}), ("Orc", "foes", {"hp": "9", "ac": "12"}),
                **{"concentration-save": option})
    do(enc, ApplyEffect(who="Mage", kind="concentration", details={"spell": "Bless"}))
    do(enc, StartRound(rolls={"Orc": (15,), "Mage": (5,)}))
    rolls = {"Orc": (15,), "dmg:Orc": (8,), "extra:Orc": (6, 6, 6, 6), "con:Mage": (19,), "con2:Mage": (19,)}
    if option == "per-hit":
        del rolls["con2:Mage"]
    events = do(enc, Declare(who="Orc", action="attack", target="Mage", rolls=rolls,
                             details={"hit": "0", "damage": "1d8", "type": "slashing", "extra": "4d6:fire"}))
    assert one(events, Damaged).damage.value == 32
    assert [e.dc.value for e in events if isinstance(e, ConcentrationSaved)] == dcs


def test_cover_raises_ac_and_total_cover_cannot_be_targeted(memory_store: Store) -> None:
    enc = fight(memory_store, ("Orc", "foes", {"hp": "15", "ac": "13", "attacks": "2"}),
                ("Bram", "party", {"hp": "50", "ac": "15"}))
    do(enc, StartRound(rolls={"Orc": (15,), "Bram": (2,)}))
    # 12 + 4 = 16 >= 15 would hit; Three-Quarters Cover: AC 15 + 5 = 20, a miss (§6).
    missed = one(attack(enc, "Orc", "Bram", (12,), hit="4", cover="three-quarters"), Attacked)
    assert (missed.ac, missed.hit) == (20, False)
    refused(enc, Declare(who="Orc", action="attack", target="Bram", rolls={"Orc": (12,)},
                         details={"cover": "total"}), RuleViolation, f"Bram has Total Cover: it can't be targeted ({R(6)})")


def test_no_opportunity_attack_against_a_disengage(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), ("Orc", "foes", {"hp": "9", "ac": "12"}))
    do(enc, StartRound(rolls={"Ann": (15,), "Orc": (5,)}))
    do(enc, Declare(who="Ann", action="disengage"))
    refused(enc, Declare(who="Orc", action="attack", target="Ann", rolls={"Orc": (15,)},
                         details={"as": "reaction", "opportunity": "yes"}), RuleViolation,
            f"Ann took Disengage: its movement provokes no opportunity attacks ({R(5)})")
    do(enc, Next())  # Ann's turn ends, and its Disengage with it
    do(enc, Next())  # round 2 starts (rounds=roll-on): Ann's turn, the Orc's Reaction unspent
    do(enc, Declare(who="Orc", action="attack", target="Ann", rolls={"Orc": (15,)},
                    details={"as": "reaction", "opportunity": "yes"}))
    assert who(enc, "Orc").reaction


def test_knocking_out_leaves_1_hp_and_unconscious_until_healed_or_first_aid(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), ("Bob", "party", {"hp": "9", "ac": "12"}),
                ("Orc", "foes", {"hp": "9", "ac": "12"}))
    do(enc, StartRound(rolls={"Ann": (15,), "Bob": (10,), "Orc": (5,)}))
    # 15 + 3 = 18 >= 12; 6 + 3 = 9 would drop the Orc to 0: knocked out instead, at 1 HP (§9).
    events = attack(enc, "Ann", "Orc", (15,), (6,), hit="3", damage="1d6+3", knockout="yes")
    assert one(events, Damaged).hp_left == 1 and not [e for e in events if isinstance(e, Fell)]
    assert combatant(enc, "Orc").status == "out" and ("unconscious", None) in effects(enc, "Orc")
    do(enc, Next())
    # Bob's first aid: 8 + 2 = 10 >= DC 10: awake.
    do(enc, Declare(who="Bob", action="help", target="Orc", rolls={"Bob": (8,)}, details={"bonus": "2"}))
    assert combatant(enc, "Orc").status == "fighting"


def test_the_effects_a_concentration_holds_end_with_it(memory_store: Store) -> None:
    enc = fight(memory_store, ("Tamsin", "party", {"hp": "18", "ac": "13"}), ("Ogre", "foes", {"hp": "59", "ac": "11"}))
    do(enc, ApplyEffect(who="Tamsin", kind="concentration", details={"spell": "Hold Monster"}))
    do(enc, ApplyEffect(who="Ogre", kind="paralyzed", details={"minutes": "1", "by": "Tamsin", "spell": "Hold Monster"}))
    do(enc, ApplyEffect(who="Ogre", kind="frightened", details={"by": "Tamsin"}))  # not held by the spell
    refused(enc, ApplyEffect(who="Ogre", kind="blinded", details={"by": "Tamsin", "spell": "Bless"}), RuleViolation,
            "--with spell=Bless holds the effect by the Concentration of --with by=NAME, and Tamsin is not "
            f"concentrating on it ({R(11)})")
    # 12 damage: DC max(10, floor(12 / 2) = 6) = 10; 4 + 0 = 4 < 10: lost, and the paralysis with it.
    do(enc, Damage(who="Tamsin", amount=12, rolls={"con:Tamsin": (4,)}))
    assert [k for k, _ in effects(enc, "Ogre")] == ["frightened"]


@pytest.mark.parametrize(("details", "message"), [
    ({"damage": "abc"}, "--with damage= takes dice and a modifier (1d6+2) or a number, not 'abc'"),
    ({"damage": "99d6"}, "--with damage=99d6: 1 to 40 dice of 2 to 100 sides"),
    ({"damage": "1d6", "extra": "2d6"}, "--with extra= takes dice and a damage type (2d6:fire) beside --with damage=, "
                                        "not '2d6'"),
    ({"hit": "abc"}, "--with hit= takes a whole number, not 'abc'"),
])
def test_a_bad_attack_is_refused_before_any_die_even_a_miss(memory_store: Store, details: dict[str, str],
                                                            message: str) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), ("Orc", "foes", {"hp": "9", "ac": "12"}))
    do(enc, StartRound(rolls={"Ann": (15,), "Orc": (5,)}))
    # A natural 1 would miss and never read the damage: the spec is refused all the same.
    refused(enc, Declare(who="Ann", action="attack", target="Orc", rolls={"Ann": (1,)}, details=details), BadInput,
            message)


def test_a_late_arrival_tying_with_one_in_the_order_acts_after_it(memory_store: Store) -> None:
    enc = fight(memory_store, ("Ann", "party", {"hp": "9", "ac": "12"}), ("Orc", "foes", {"hp": "9", "ac": "12"}))
    do(enc, StartRound(rolls={"Ann": (15,), "Orc": (5,)}))
    do(enc, AddCombatant(name="Late", side="foes", stats={"hp": "9", "ac": "12"}))
    do(enc, Next())
    # Round 2 starts at the Orc's `next` (rounds=roll-on). Late rolls 15 + 0, Ann's 15: no order
    # asked (ties=ask), the order already fixed goes first (§2).
    assert one(do(enc, Next(rolls={"Late": (15,)})), RoundStarted).order == ("Ann", "Late", "Orc")


def test_state_of_the_sample_fits_80_columns_with_what_the_gm_tracks(cli: Cli) -> None:
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "samples" / "chapel-drake.skirmish"
    cli.ok("run", str(sample))
    out = cli.ok("state")
    assert all(len(line) <= 80 for line in out.splitlines()), out
    # Hauser at 0 HP after one death save of 11 (a success); the Ogre held for 10 starts of
    # Tamsin's turn, none passed yet (her round-2 turn comes after Hauser's).
    assert "0/30" in out and "death saves (1S 0F)" in out
    assert "paralyzed (start Tamsin, 10 left)" in out
    assert "concentration (Hold-Monster)" in out
    assert "Goblin 1  foes   dead" in out
    cli.ok("declare", "Tamsin", "attack", "--target", "Drake", "--with", "as=reaction", "--with", "hit=5",
           "--roll", "Tamsin=2")
    out = cli.ok("state")
    assert "reaction used" in out
    cli.ok("next")  # Tamsin's turn starts: her Reaction back, one start of her turn passed
    out = cli.ok("state")
    assert "reaction used" not in out and "paralyzed (start Tamsin, 9 left)" in out


def test_a_renamed_combatant_keeps_its_place_and_its_anchored_effect(cli: Cli) -> None:
    """§2: the order holds for the whole fight; §12: an effect anchored to the end of a named
    creature's turn runs out there. A rename mid-fight keeps both under the new name."""
    cli.ok("new", "Renames", "--rules", "srd-5.2", "--seed", "9")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "hp=40", "--stat", "ac=15")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "hp=30", "--stat", "ac=13")
    cli.ok("round", "--roll", "Hauser=15", "--roll", "Orc=8")  # Hauser 15, Orc 8
    cli.ok("effect", "Hauser", "blinded", "--rounds", "1", "--with", "at=end", "--with", "of=Orc")
    cli.ok("rename", "Orc", "Big Urk")
    cli.ok("next")  # Big Urk's turn
    # Its turn ends: the blindness anchored to it runs out; round 2 starts in the same order
    # (rounds=roll-on): no new roll, the scores kept under the new name.
    cli.ok("next")
    hauser = next(c for c in json.loads(cli.ok("state", "--json"))["combatants"] if c["name"] == "Hauser")
    assert "blinded" not in [e["kind"] for e in hauser["effects"]]
    assert "Round 2 begins: order Hauser, Big Urk" in cli.ok("log")
