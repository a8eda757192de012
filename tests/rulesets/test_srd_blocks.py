"""Stat blocks that act (srd-5.2): an attack, a save, a recharge, a use a day, a legendary
cost and a spell slot taken from the block by the action's name.

Every figure below is worked by hand from the block typed (or the bundled bestiary's SRD 5.2
block, projections/write/imports/data) and the faces typed; the rules are srd-5.2-combat.md §4, §6, §7, §13
and §14 (This work includes material from the System Reference Document 5.2 ("SRD 5.2") by
Wizards of the Coast LLC, available at https://www.dndbeyond.com/srd. The SRD 5.2 is licensed
under the Creative Commons Attribution 4.0 International License, available at
https://creativecommons.org/licenses/by/4.0/legalcode.)
"""

from __future__ import annotations

from functools import partial

import pytest

from skirmish.eventlog.commands import AddCombatant, ApplyEffect, Declare, Next, StartRound
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.rulesets.srd_5__2.events import Attacked, Damaged, Recharged, Saved
from skirmish.projections.rulesets.srd_5__2.block import (
    BlockAction,
    Part,
    format_actions,
    parse_actions,
    parse_saves,
    parse_slots,
)

from support.cli import start
from support.encounter import combatant, do, one, refused, who
from support.fight import fight as new_fight

ANN = ("Ann", "party", {"hp": "60", "ac": "14", "saves": "dex +3, wis +1"})
WYRM = ("Wyrm", "foes", {
    "hp": "120", "ac": "17", "legendary": "3",
    "actions": "Multiattack: 2 attacks; Bite: melee +7, reach 10, 2d10+4 piercing, 1d6 fire; "
               "Fire Breath: 6d6 fire, DC 15 dex, half, recharge 5; Tail: legendary 2, melee +7, 1d8+4 bludgeoning; "
               "Web: DC 12 dex, 1/day"})


def R(n: int) -> str:
    return f"srd-5.2-combat.md §{n}"


fight = partial(new_fight, rules="srd-5.2", cast=(), rolls=10)  # each rolls 10; `order` is the round's


def hp(enc: Encounter, name: str) -> int:
    return combatant(enc, name).vital.value


# --- the notation ----------------------------------------------------------------------------


def test_an_actions_line_reads_each_clause() -> None:
    bite, breath, tail, web = parse_actions(WYRM[2]["actions"])[1:]
    assert bite == BlockAction(name="Bite", attack="melee", hit=7, reach=10,
                               damage=(Part("2d10+4", "piercing"), Part("1d6", "fire")))
    assert breath == BlockAction(name="Fire Breath", damage=(Part("6d6", "fire"),), save="dex", dc=15, half=True,
                                 recharge=5)
    assert tail == BlockAction(name="Tail", use="legendary", cost=2, attack="melee", hit=7,
                               damage=(Part("1d8+4", "bludgeoning"),))
    assert web == BlockAction(name="Web", save="dex", dc=12, per_day=1)
    assert parse_actions(format_actions(parse_actions(WYRM[2]["actions"]))) == parse_actions(WYRM[2]["actions"])
    assert parse_saves("dex +3, WIS -1") == {"dex": 3, "wis": -1}
    assert parse_slots("1:4, 3:2") == {1: 4, 3: 2}


@pytest.mark.parametrize(("line", "message"), [
    ("Bite: melee +7, 2d10+4 stabbing", "actions=: Bite: 'stabbing' is no damage type (srd-5.2-combat.md §7)"),
    ("Bite: swings hard", "actions=: Bite: 'swings hard' is no clause"),
    ("Bite: legendary 5", "actions=: Bite: 'legendary 5' takes a number from 1 to 3"),
    ("Bite; bite", "actions=: 'bite' is listed twice"),
    ("Roar: half", "actions=: Roar: 'half' is for a saving throw (DC N ABILITY)"),
])
def test_a_line_that_is_no_block_is_refused_naming_the_action_and_clause(line: str, message: str) -> None:
    with pytest.raises(BadInput) as info:
        parse_actions(line)
    assert str(info.value).startswith(message)


def test_add_refuses_a_bad_block_before_anything_is_recorded(memory_store: Store) -> None:
    enc = start(memory_store, "srd-5.2")
    refused(enc, AddCombatant(name="Orc", stats={"hp": "15", "ac": "13", "actions": "Axe: melee +5, 1d12+3 sharp"}),
            BadInput, "actions=: Axe: 'sharp' is no damage type (srd-5.2-combat.md §7)")


# --- attacks by name -------------------------------------------------------------------------


def test_an_attack_by_name_rolls_the_blocks_bonus_and_damage(memory_store: Store) -> None:
    enc = fight(memory_store, WYRM, ANN, order="Wyrm+Ann")
    # d20 9 + 7 = 16 vs AC 14: a hit; 2d10+4 = 3 + 5 + 4 = 12 piercing, 1d6 = 2 fire: 14.
    events = do(enc, Declare(who="Wyrm", action="bite", target="Ann",
                             rolls={"Wyrm": (9,), "dmg:Wyrm": (3, 5), "extra:Wyrm": (2,)}))
    attack = one(events, Attacked)
    assert (attack.roll.value, attack.hit, attack.block) == (16, True, "Bite")
    assert one(events, Damaged).damage.value == 14
    assert hp(enc, "Ann") == 60 - 14
    assert enc.ruleset.describe(attack) == "Wyrm attacks Ann with Bite: 16 (d20 + attack bonus vs AC 14), hits"


def test_multiattack_gives_the_attack_action_its_attacks(memory_store: Store) -> None:
    enc = fight(memory_store, WYRM, ANN, order="Wyrm+Ann")
    # Multiattack: 2 attacks, so the add recorded attacks=2; a third is refused (§4, §14).
    for _ in range(2):
        do(enc, Declare(who="Wyrm", action="Bite", target="Ann", rolls={"Wyrm": (1,)}))  # natural 1s: misses
    refused(enc, Declare(who="Wyrm", action="Bite", target="Ann", rolls={"Wyrm": (1,)}), RuleViolation,
            f"Wyrm has taken its action this turn ({R(3)})")
    refused(enc, Declare(who="Wyrm", action="Multiattack", target="Ann"), BadInput,
            "Multiattack is 2 attack rolls in one Attack action: declare each by name (Bite, Tail) (§4, §14)")


def test_an_advantage_only_part_is_dealt_with_advantage_alone(memory_store: Store) -> None:
    gob = ("Gob", "foes", {"hp": "10", "ac": "15", "actions": "Scimitar: melee +4, 1d6+2 slashing, "
                                                                "1d4 slashing if advantage"})
    enc = fight(memory_store, gob, ANN, order="Gob+Ann")
    # Without Advantage the 1d4 is no roll of this attack: faces typed for it are refused.
    refused(enc, Declare(who="Gob", action="Scimitar", target="Ann",
                         rolls={"Gob": (12,), "dmg:Gob": (4,), "extra:Gob": (3,)}), BadInput,
            "no roll of this command uses the dice typed for extra:Gob")
    # With Advantage (typed): d20s 3 and 18, the 18 kept: 22 hits; 4 + 2 = 6, and 3: 9 slashing.
    events = do(enc, Declare(who="Gob", action="Scimitar", target="Ann", details={"adv": "yes"},
                             rolls={"Gob": (3, 18), "dmg:Gob": (4,), "extra:Gob": (3,)}))
    assert one(events, Damaged).damage.value == 9
    assert hp(enc, "Ann") == 51


# --- saves ------------------------------------------------------------------------------------


def test_a_save_action_rolls_damage_once_and_halves_it_on_a_success(memory_store: Store) -> None:
    bo = ("Bo", "party", {"hp": "30", "ac": "12", "dex": "1", "init": "0"})
    enc = fight(memory_store, WYRM, ANN, bo, order="Wyrm+Ann+Bo")
    # 6d6 = 1+2+3+4+5+6 = 21 fire. Ann: 12 + 3 (her dex save) = 15 vs DC 15 saves: 10 (21 / 2
    # rounded down). Bo: 13 + 1 (Dex, no save listed) = 14 fails: 21.
    events = do(enc, Declare(who="Wyrm", action="Fire Breath", target="Ann+Bo",
                             rolls={"dmg:Wyrm": (1, 2, 3, 4, 5, 6), "save:Ann": (12,), "save:Bo": (13,)}))
    saves = {e.who: (e.save.value if e.save else None, e.success) for e in events if isinstance(e, Saved)}
    assert saves == {"Ann": (15, True), "Bo": (14, False)}
    assert (hp(enc, "Ann"), hp(enc, "Bo")) == (60 - 10, 30 - 21)


def test_a_paralyzed_target_fails_a_dex_save_without_a_roll(memory_store: Store) -> None:
    enc = fight(memory_store, WYRM, ANN, order="Wyrm+Ann")
    do(enc, ApplyEffect(who="Ann", kind="paralyzed"))
    refused(enc, Declare(who="Wyrm", action="fire breath", target="Ann",
                         rolls={"dmg:Wyrm": (6,) * 6, "save:Ann": (20,)}), BadInput,
            "no roll of this command uses the dice typed for save:Ann")
    events = do(enc, Declare(who="Wyrm", action="fire breath", target="Ann", rolls={"dmg:Wyrm": (6,) * 6}))
    saved = one(events, Saved)
    assert saved.save is None and not saved.success and "Paralyzed" in saved.why
    assert hp(enc, "Ann") == 60 - 36


def test_half_no_at_the_table_overrides_the_block(memory_store: Store) -> None:
    enc = fight(memory_store, WYRM, ANN, order="Wyrm+Ann")
    do(enc, Declare(who="Wyrm", action="Fire Breath", target="Ann", details={"half": "no"},
                    rolls={"dmg:Wyrm": (6,) * 6, "save:Ann": (19,)}))  # 19 + 3 = 22 saves: none taken
    assert hp(enc, "Ann") == 60


# --- limited uses -------------------------------------------------------------------------------


def test_recharge_is_spent_and_rolled_back_at_the_monsters_turn(memory_store: Store) -> None:
    enc = fight(memory_store, WYRM, ANN, order="Wyrm+Ann")
    do(enc, Declare(who="Wyrm", action="Fire Breath", target="Ann", rolls={"dmg:Wyrm": (1,) * 6, "save:Ann": (1,)}))
    do(enc, Next())  # Ann's turn
    do(enc, Next())  # Ann's turn ends, and round 1: it waits for the Wyrm's legendary use (§14)
    # The next `next` starts round 2 (rounds=roll-on): the Wyrm's turn. Recharge 5: a d6 of 4 at
    # its turn's start leaves it spent (§14).
    recharged = one(do(enc, Next(rolls={"recharge:Wyrm": (4,)})), Recharged)
    assert recharged.roll.faces == (4,) and not recharged.ready
    refused(enc, Declare(who="Wyrm", action="Fire Breath", target="Ann"), RuleViolation,
            f"Wyrm's Recharge ability is spent until a recharge roll of 5-6 ({R(14)})")


def test_a_use_a_day_is_refused_once_spent(memory_store: Store) -> None:
    enc = fight(memory_store, WYRM, ANN, order="Wyrm+Ann")
    do(enc, Declare(who="Wyrm", action="Web", target="Ann", rolls={"save:Ann": (2,)}))
    for _ in range(3):  # Ann's turn, round 1's end (a pause for the Wyrm's legendary use), round 2
        do(enc, Next())
    refused(enc, Declare(who="Wyrm", action="Web", target="Ann"), RuleViolation,
            f"Wyrm has used Web 1 time(s): its 1/Day are spent ({R(14)})")


def test_a_legendary_action_costs_what_its_block_says(memory_store: Store) -> None:
    # rounds=stop: with two in the fight the one moment after another creature's turn is after
    # Ann's, between rounds; under roll-on her `next` starts the Wyrm's own turn at once.
    enc = fight(memory_store, WYRM, ANN, order="Wyrm+Ann", rounds="stop")
    do(enc, Next())  # the Wyrm's turn ends: Ann's
    do(enc, Next())  # Ann's turn ends; round 1 ends
    # Tail costs 2 of its 3 uses; d20 1 misses.
    attack = one(do(enc, Declare(who="Wyrm", action="Tail", target="Ann", rolls={"Wyrm": (1,)})), Attacked)
    assert (attack.use, attack.cost) == ("legendary", 2)
    assert who(enc, "Wyrm").legendary == "1/3"


def test_spell_slots_are_counted_and_refused_once_spent(memory_store: Store) -> None:
    mage = ("Mira", "party", {"hp": "20", "ac": "12", "slots": "1:2, 2:1"})
    enc = fight(memory_store, mage, ANN, order="Mira+Ann")
    do(enc, Declare(who="Mira", action="magic", details={"spell": "Shield", "slot": "1", "as": "reaction"}))
    do(enc, Declare(who="Mira", action="magic", details={"spell": "Magic Missile", "slot": "1"}))
    do(enc, Next())
    do(enc, Next())  # round 2 starts (rounds=roll-on): Mira's turn
    refused(enc, Declare(who="Mira", action="magic", details={"spell": "Magic Missile", "slot": "1"}),
            RuleViolation, f"Mira has spent its 2 level 1 spell slot(s) ({R(4)})")
    refused(enc, Declare(who="Mira", action="magic", details={"spell": "Fireball", "slot": "3"}), BadInput,
            "Mira has no level 3 spell slots (its slots: 1:2, 2:1)")
    do(enc, Declare(who="Mira", action="magic", details={"spell": "Hold Person", "slot": "2"}))


def test_an_unknown_action_lists_the_blocks_own(memory_store: Store) -> None:
    enc = fight(memory_store, WYRM, ANN, order="Wyrm+Ann")
    with pytest.raises(BadInput) as info:
        enc.execute(Declare(who="Wyrm", action="Claw", target="Ann"), "test")
    assert str(info.value).endswith("; Wyrm's stat block: Multiattack, Bite, Fire Breath, Tail, Web)")


# --- the bundled bestiary brings its blocks -----------------------------------------------------


def test_a_bestiary_goblin_warrior_attacks_from_its_block(memory_store: Store) -> None:
    from skirmish.projections.write.imports.bestiary import complete
    from skirmish.projections.ruleset import get_ruleset

    command, _ = complete(AddCombatant(name="Goblin Warrior"), get_ruleset("srd-5.2"))
    # The SRD 5.2 Goblin Warrior: Scimitar +4, reach 5, 5 (1d6 + 2) slashing, plus 2 (1d4)
    # slashing with Advantage; Shortbow +4, range 80/320, the same in piercing.
    assert command.stats["actions"] == (
        "Scimitar: melee +4, reach 5, 1d6+2 slashing, 1d4 slashing if advantage; "
        "Shortbow: ranged +4, range 80/320, 1d6+2 piercing, 1d4 piercing if advantage; Nimble Escape: bonus")
    enc = start(memory_store, "srd-5.2")
    do(enc, command)
    do(enc, AddCombatant(name=ANN[0], side=ANN[1], stats=ANN[2]))
    do(enc, StartRound(rolls={"Goblin Warrior": (10,), "Ann": (2,)}))
    refused(enc, Declare(who="Goblin Warrior", action="Scimitar", target="Ann", details={"range": "ranged"}),
            BadInput, "Scimitar is a melee attack (its stat block)")
    # Shortbow at range: d20 10 + 4 = 14 vs AC 14 hits; 1d6+2 = 5 + 2 = 7 piercing.
    events = do(enc, Declare(who="Goblin Warrior", action="Shortbow", target="Ann",
                             rolls={"Goblin Warrior": (10,), "dmg:Goblin Warrior": (5,)}))
    assert one(events, Damaged).damage.value == 7


def test_undo_gives_a_spent_use_back(memory_store: Store) -> None:
    enc = fight(memory_store, WYRM, ANN, order="Wyrm+Ann")
    # Web (1/day, DC 12 Dex): Ann 2 + 3 = 5 fails. Undone, it is there again a round later
    # (kept spent, `test_a_use_a_day_is_refused_once_spent` refuses it there).
    do(enc, Declare(who="Wyrm", action="Web", target="Ann", rolls={"save:Ann": (2,)}))
    enc.undo(1, "undo")
    for _ in range(2):
        do(enc, Next())
    do(enc, StartRound())
    saved = one(do(enc, Declare(who="Wyrm", action="Web", target="Ann", rolls={"save:Ann": (9,)})), Saved)
    assert saved.save is not None and saved.save.value == 12 and saved.success  # 9 + 3 = 12 vs DC 12
