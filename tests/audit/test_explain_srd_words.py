"""`explain` of srd-5.2 events says what the rules did (issue 39): the d20 kept of two, the
numbers of a massive-damage death, no options line repeated on every explanation."""

from __future__ import annotations

import re

from support.cli import Cli


def ids(reply: str) -> list[int]:
    return [int(n) for n in re.findall(r"^#(\d+) ", reply, re.M)]


def chapel(cli: Cli) -> None:
    cli.ok("new", "Chapel", "--rules", "srd-5.2")
    cli.ok("add", "Mira", "--side", "party", "--stat", "hp=22", "--stat", "ac=15", "--stat", "dex=4")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "hp=15", "--stat", "ac=13", "--stat", "dex=1")
    cli.ok("round", "--roll", "Mira=16", "--roll", "Orc=3")


def test_explain_of_an_attack_with_advantage_keeps_the_higher_d20(cli: Cli) -> None:
    # srd-5.2-combat.md §6 (Advantage): two d20s, the higher used. 14 and 17: 17 + 6 = 23.
    chapel(cli)
    reply = cli.ok("declare", "Mira", "attack", "--target", "Orc", "--with", "hit=6", "--with", "damage=1d8",
                   "--with", "adv=yes", "--roll", "Mira=14,17", "--roll", "dmg:Mira=3")
    text = cli.ok("explain", str(ids(reply)[0]))
    assert "  roll: 23 = d20 + attack bonus vs AC 13" in text
    assert "      dice: 2d20 = 14, 17: the higher kept, 17 (the GM's dice)" in text
    assert "14 + 17" not in text and "= 31" not in text  # the two dice were once added (not "31" alone: a time holds it)


def test_explain_of_an_attack_with_disadvantage_keeps_the_lower_d20(cli: Cli) -> None:
    # srd-5.2-combat.md §6 (Disadvantage): the lower used. 14 and 17: 14 + 6 = 20.
    chapel(cli)
    reply = cli.ok("declare", "Mira", "attack", "--target", "Orc", "--with", "hit=6", "--with", "damage=1d8",
                   "--with", "dis=yes", "--roll", "Mira=17,14", "--roll", "dmg:Mira=3")
    text = cli.ok("explain", str(ids(reply)[0]))
    assert "  roll: 20 = d20 + attack bonus vs AC 13" in text
    assert "      dice: 2d20 = 17, 14: the lower kept, 14 (the GM's dice)" in text


def test_a_dice_error_says_advantage_from_the_unconscious_target_is_why_two_faces(cli: Cli) -> None:
    # srd-5.2-combat.md §13 (Unconscious): attacks against it have Advantage; §6: two d20s.
    chapel(cli)
    cli.ok("effect", "Orc", "unconscious")
    error = cli.fails("declare", "Mira", "attack", "--target", "Orc", "--with", "hit=6", "--with", "damage=1d8",
                      "--roll", "Mira=12", "--roll", "dmg:Mira=3")
    assert error == ("Error: 2d20 for Mira takes 2 faces from 1 to 20, not 12: Advantage (Orc Unconscious) "
                     "rolls two d20s and keeps the higher (srd-5.2-combat.md §6)")


def test_the_log_words_exhaustion_a_bonus_action_and_an_untyped_hit_with_extra_fire(cli: Cli) -> None:
    # Issue 39, finding 12. Exhaustion is a level the creature has (srd-5.2-combat.md §13);
    # 1d8+3 (4 + 3 = 7, untyped) and 2d6 fire (5 + 6 = 11) are 18 damage, only 11 of it fire.
    cli.ok("new", "Chapel", "--rules", "srd-5.2")
    cli.ok("add", "Brakka", "--side", "party", "--stat", "hp=12", "--stat", "ac=15")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "hp=30", "--stat", "ac=13")
    assert cli.ok("effect", "Brakka", "exhaustion").splitlines()[0].endswith(" Brakka has Exhaustion (level 1)")
    cli.ok("round", "--roll", "Brakka=15", "--roll", "Orc=2")
    assert cli.ok("declare", "Brakka", "bonus", "--with", "by=Second Wind").splitlines()[0].endswith(
        " Brakka acts: a Bonus Action (Second Wind)")
    reply = cli.ok("declare", "Brakka", "attack", "--target", "Orc", "--with", "hit=5", "--with", "damage=1d8+3",
                   "--with", "extra=2d6:fire", "--roll", "Brakka=15", "--roll", "dmg:Brakka=4",
                   "--roll", "extra:Brakka=5,6")
    assert " Orc takes 18 damage (7 untyped + 11 fire) (12 HP left)" in reply


def test_one_death_save_success_is_one_success() -> None:
    from skirmish.projections.rulesets.srd_5__2 import RULESET
    from skirmish.projections.rulesets.srd_5__2.events import DeathSave

    line = RULESET.describe(DeathSave(who="Lirael", save=None, successes=1, failures=1, outcome="failure"))
    assert line == "Lirael takes damage at 0 HP: death save failure (1 success, 1 failure)"


def test_explain_lists_the_options_once_at_the_first_event(cli: Cli) -> None:
    # Issue 39, finding 12: srd-5.2's 22 options are printed by `explain 1`, named by count after.
    chapel(cli)
    first = cli.ok("explain", "1").splitlines()[2]
    assert first.startswith("  ruleset: srd-5.2 (") and "options: surprise=5.2, ties=ask" in first
    later = cli.ok("explain", "3").splitlines()[2]
    assert later.endswith("22 options, as the encounter's first event records them (its `explain` lists them)")
    assert "surprise=" not in later


def explain_death(cli: Cli, reply: str) -> str:
    """`explain` of the death among the events of ``reply``, which has numbers to show."""
    fell = next(n for n, line in zip(ids(reply), reply.splitlines(), strict=False) if "dies" in line)
    text = cli.ok("explain", str(fell))
    assert "nothing was computed" not in text
    return text


def test_explain_of_a_massive_damage_death_gives_its_numbers(cli: Cli) -> None:
    # srd-5.2-combat.md §9 (Instant death): damage left over at 0 HP >= the HP maximum.
    # Mira at 22 of 22 takes 44: 44 - 22 = 22 left over, 22 >= 22.
    chapel(cli)
    text = explain_death(cli, cli.ok("damage", "Mira", "44"))
    assert "  left over: 22 = damage past 0 HP vs HP maximum 22" in text
    assert "      damage after temporary HP +44, HP before -22" in text


def test_why_says_no_death_save_was_made_rather_than_a_tally_of_none(cli: Cli) -> None:
    # Issue 39, finding 12. Lirael at 10 HP takes 12: 0 HP, Unconscious, death saves begin
    # (srd-5.2-combat.md §9) but none is rolled: her death figure is "0/0", a tally of nothing.
    # Events: #1 the start, #2 her add, #3 the damage, #4 her fall.
    cli.ok("new", "Chapel", "--rules", "srd-5.2")
    cli.ok("add", "Lirael", "--side", "party", "--stat", "hp=10", "--stat", "ac=15")
    cli.ok("damage", "Lirael", "12")
    for text in (cli.ok("why", "Lirael"), cli.ok("why", "Lirael", "death")):
        assert "Lirael death: no death save made (branch main, at #4)" in text
        assert "0/0" not in text.replace("(0S 0F)", "")  # the effects name the death saves begun
    assert "Lirael HP: 10 at the start, now 0 (branch main, at #4)" in cli.ok("why", "Lirael")


def test_why_shows_the_death_saves_once_one_is_made(cli: Cli) -> None:
    # Lirael at 0 HP rolls a death save at the start of her turn (§9): 12, a success (10 or
    # more): 0/0 -> 1/0.
    cli.ok("new", "Chapel", "--rules", "srd-5.2")
    cli.ok("add", "Lirael", "--side", "party", "--stat", "hp=10", "--stat", "ac=15")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "hp=10", "--stat", "ac=10")
    cli.ok("damage", "Lirael", "12")
    # Unconscious, she rolls Initiative with Disadvantage (§13, §2): two d20s.
    cli.ok("round", "--roll", "Lirael=15,15", "--roll", "Orc=3", "--roll", "death:Lirael=12")
    text = cli.ok("why", "Lirael", "death")
    assert text.startswith("Lirael death: - at the start, now 1/0 (branch main, at #")
    assert "   - -> 0/0" in text and "   0/0 -> 1/0" in text
    assert "no death save made" not in text


def test_explain_of_a_death_from_damage_at_0_hp_gives_its_numbers(cli: Cli) -> None:
    # srd-5.2-combat.md §9 (Damage at 0 HP): dead if the damage >= the HP maximum. Lirael, 10 HP
    # maximum, drops to 0 on 12 (12 - 10 = 2 left over: not massive), then takes 10 at 0 HP:
    # nothing of it is held by HP, 10 >= 10.
    cli.ok("new", "Chapel", "--rules", "srd-5.2")
    cli.ok("add", "Lirael", "--side", "party", "--stat", "hp=10", "--stat", "ac=15")
    cli.ok("damage", "Lirael", "12")
    text = explain_death(cli, cli.ok("damage", "Lirael", "10"))
    assert "  left over: 10 = damage at 0 HP vs HP maximum 10" in text
    assert "      damage after temporary HP +10" in text
    assert "      rule: srd-5.2-combat.md §9" in text
