"""Every rule of the crisis ruleset (shared/rules/crisis.md), one test or more each.

Each test is named after the rule and cites the section of the rules text it checks.
Refusals check the exact message and that nothing was appended. The usual fight: Jack
(Int +1, Speed +2, Endurance 10, Health 8, Melee +3, Might +2, armour +1, DR 2,
Durability 3; defence vs melee 16) rolls 5 + 5 + 5 = 15 for turn order 18; the Drone
(Int 0, Speed +1, Endurance 4, Health 4) rolls 2 + 2 + 2 = 6 for 7.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
import pytest

from skirmish.eventlog.commands import (
    AddCombatant,
    ApplyEffect,
    Cancel,
    Command,
    Damage,
    Declare,
    Next,
    Resolve,
    StartRound,
    Upkeep,
    command_decoder,
)
from skirmish.eventlog.errors import BadInput, SkirmishError
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Term
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.ruleset import Dice
from skirmish.projections.rulesets.crisis.events import (
    ActionCancelled,
    ActionProgressed,
    ActionTaken,
    AttackRolled,
    ConditionEnded,
    DamageTaken,
    TurnEnded,
    TurnPassed,
    TurnStarted,
)
from skirmish.projections.rulesets.crisis.view import CrisisClock, CrisisPending
from skirmish.projections.view import (
    Budget,
    Clock,
    Combatant,
    Effect,
    Gauge,
    NoOwn,
    Pending,
    Shown,
)

from support.cli import Cli, start
from support.encounter import combatant, do, effects, pending, refused, who
from support.encounter import one as only
from support.fight import fight as new_fight

JACK = {"int": "1", "speed": "2", "endurance": "10", "health": "8", "melee": "3", "might": "2",
        "armour": "1", "dr": "2", "durability": "3"}
DRONE = {"int": "0", "speed": "1", "endurance": "4", "health": "4"}
DICE = {"Jack": (5, 5, 5), "Drone": (2, 2, 2)}
SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "hangar-breach.skirmish"


# --- helpers ---------------------------------------------------------------------------------


fight = partial(new_fight, rules="crisis", cast=(("Jack", "players", JACK), ("Drone", "foes", DRONE)))


def turn(enc: Encounter, rolls: dict[str, tuple[int, ...]] | None = None, **details: str) -> TurnStarted:
    return only(do(enc, StartRound(rolls=DICE if rolls is None else rolls, details=details)), TurnStarted)


def ap(enc: Encounter, name: str) -> int:
    return combatant(enc, name).budget.left


def health(enc: Encounter, name: str) -> int:
    return combatant(enc, name).vital.value


def attack(enc: Encounter, by: str, target: str, faces: tuple[int, int, int], **details: str) -> AttackRolled:
    return only(do(enc, Declare(who=by, action="attack", target=target, rolls={by: faces}, details=details)),
                AttackRolled)


def end_turn(enc: Encounter) -> None:
    do(enc, Upkeep())


def cli_view(cli: Cli, at: int | None = None) -> Shown:
    """The typed view of the CLI's encounter, read through the library: `state --json` is
    the CLI's to print, and is not ported to the typed view in this tree yet."""
    store = Store(cli.db)
    try:
        return Encounter.open(store).view(at)
    finally:
        store.close()


def who_in(c: Combatant) -> Any:
    """A combatant's own figures (CrisisFigures) from a view already read."""
    return c.own


def cli_fight(cli: Cli, *options: str) -> None:
    cli.ok("new", "Drones", "--rules", "crisis", "--seed", "5", *options)
    cli.ok("add", "Jack", "--side", "players", *[f"--stat={k}={v}" for k, v in JACK.items()])
    cli.ok("add", "Drone", "--side", "foes", *[f"--stat={k}={v}" for k, v in DRONE.items()])


# --- Turn Order ------------------------------------------------------------------------------


def test_turn_order_is_3d6_plus_intelligence_plus_speed_plus_circumstance(memory_store: Store) -> None:
    # crisis.md, Turn Order
    enc = fight(memory_store)
    do(enc, AddCombatant(name="Elf", side="players", stats={**DRONE, "order-bonus": "2"}))
    started = turn(enc, {**DICE, "Elf": (1, 2, 3)})
    totals = {r.who: r.total for r in started.rolls}
    assert totals["Jack"].value == 18
    assert totals["Jack"].terms == (Term("3d6", 15), Term("Intelligence", 1), Term("Speed", 2), Term("circumstance", 0))
    assert totals["Jack"].roll is not None and totals["Jack"].roll.faces == (5, 5, 5)
    assert totals["Jack"].roll.source == "gm" and totals["Jack"].rule == "crisis.md, Turn Order"
    assert totals["Elf"].value == 6 + 0 + 1 + 2
    assert who(enc, "Elf").turn_order == 9


def test_highest_turn_order_acts_first(memory_store: Store) -> None:
    # crisis.md, Turn Order: highest result first
    enc = fight(memory_store)
    started = turn(enc, {"Jack": (1, 1, 1), "Drone": (6, 6, 6)})
    assert started.sequence == ("Drone", "Jack") and started.acting == "Drone"
    assert enc.view().clock.now == ("Drone",)


def test_tie_goes_to_the_higher_intelligence(memory_store: Store) -> None:
    # crisis.md, Turn Order: Drone 3d6 = 10 + 1 = 11, Jack 8 + 3 = 11; Jack's Int is higher
    enc = fight(memory_store)
    started = turn(enc, {"Jack": (2, 3, 3), "Drone": (3, 3, 4)})
    assert [r.total.value for r in started.rolls] == [11, 11]
    assert started.sequence == ("Jack", "Drone")
    assert all(r.rerolls == () for r in started.rolls)


def test_tie_with_the_same_intelligence_goes_to_the_higher_speed(memory_store: Store) -> None:
    # crisis.md, Turn Order
    enc = start(memory_store, "crisis")
    do(enc, AddCombatant(name="Slow", stats={**DRONE, "speed": "0"}))
    do(enc, AddCombatant(name="Quick", stats={**DRONE, "speed": "3"}))
    started = turn(enc, {"Slow": (4, 4, 4), "Quick": (3, 3, 3)})
    assert {r.who: r.total.value for r in started.rolls} == {"Slow": 12, "Quick": 12}
    assert started.sequence == ("Quick", "Slow")


def test_a_tie_still_standing_is_rolled_again_and_the_rerolls_are_recorded(memory_store: Store) -> None:
    # crisis.md, Turn Order: "If there is still a tie, roll again" -- here twice
    enc = start(memory_store, "crisis")
    do(enc, AddCombatant(name="Twin A", stats=DRONE))
    do(enc, AddCombatant(name="Twin B", stats=DRONE))
    started = turn(enc, {
        "Twin A": (3, 3, 3), "Twin B": (3, 3, 3),
        "Twin A-reroll": (4, 4, 4), "Twin B-reroll": (4, 4, 4),
        "Twin A-reroll2": (1, 1, 1), "Twin B-reroll2": (6, 5, 4),
    })
    assert started.sequence == ("Twin B", "Twin A")
    rerolls = {r.who: [x.faces for x in r.rerolls] for r in started.rolls}
    assert rerolls == {"Twin A": [(4, 4, 4), (1, 1, 1)], "Twin B": [(4, 4, 4), (6, 5, 4)]}
    # The re-roll orders the tied among themselves: their turn order stays 10.
    assert who(enc, "Twin A").turn_order == who(enc, "Twin B").turn_order == 10


def test_turn_order_is_rolled_once_per_crisis_by_default(memory_store: Store) -> None:
    # crisis.md, Turn Order; option turn-order=once
    enc = fight(memory_store)
    turn(enc)
    end_turn(enc)
    second = turn(enc, {})
    assert second.rolls == () and second.sequence == ("Jack", "Drone")
    assert who(enc, "Jack").turn_order == 18


def test_turn_order_each_turn_rolls_anew(memory_store: Store) -> None:
    # option turn-order=each-turn
    enc = fight(memory_store, **{"turn-order": "each-turn"})
    turn(enc)
    end_turn(enc)
    second = turn(enc, {"Jack": (1, 1, 1), "Drone": (6, 6, 6)})
    assert second.sequence == ("Drone", "Jack")
    assert who(enc, "Jack").turn_order == 6


def test_turn_order_once_refuses_typed_dice_in_a_later_turn(cli: Cli) -> None:
    cli_fight(cli)
    cli.ok("round", "--roll", "Jack=5,5,5", "--roll", "Drone=2,2,2")
    cli.ok("upkeep")
    assert cli.fails("round", "--roll", "Jack=6,6,6") == (
        "Error: Jack's turn order was rolled when the crisis began (option turn-order=once) (crisis.md, Turn Order)"
    )


def test_a_combatant_joining_later_rolls_at_the_next_turn_and_takes_its_place(memory_store: Store) -> None:
    # crisis.md, Turn Order (reading: a late joiner rolls when the next turn starts)
    enc = fight(memory_store)
    turn(enc)
    do(enc, AddCombatant(name="Mira", side="players", stats=DRONE))
    refused(enc, Declare(who="Mira", action="draw"), RuleViolation,
            "not Mira's turn: Jack acts now (crisis.md, Turn Order)")
    end_turn(enc)
    second = turn(enc, {"Mira": (4, 4, 4)})
    assert [r.who for r in second.rolls] == ["Mira"]
    assert second.sequence == ("Jack", "Mira", "Drone")


def test_declaring_out_of_turn_is_refused_and_next_passes_the_turn(cli: Cli) -> None:
    # crisis.md, Turn Order: each acts in order; a new turn once everyone has acted
    cli_fight(cli)
    cli.ok("round", "--roll", "Jack=5,5,5", "--roll", "Drone=2,2,2")
    assert cli.fails("declare", "Drone", "draw") == "Error: not Drone's turn: Jack acts now (crisis.md, Turn Order)"
    assert "Jack is done; Drone acts" in cli.ok("next")
    cli.ok("declare", "Drone", "draw")
    out = cli.ok("next")
    assert "Drone is done: everyone has acted" in out and "Turn 1 ends" in out
    assert cli.fails("next") == "Error: no turn under way: start one with `skirmish round` (crisis.md, Turn Order)"


def test_ap_on_the_command_line_is_crisis_own_flag_and_travels_in_details(cli: Cli) -> None:
    """crisis.md, Available Actions: a custom action takes the AP the GM gives (`--ap N`),
    a flag crisis declares itself: stored in the declaration's details, as `--with ap=N`."""
    cli_fight(cli)
    cli.ok("round", "--roll", "Jack=5,5,5", "--roll", "Drone=2,2,2")
    assert cli.fails("declare", "Jack", "custom") == "Error: custom needs --ap N, the AP it takes"
    assert "--ap" in cli.fails("declare", "Jack", "custom", "--ap", "two")
    cli.ok("declare", "Jack", "custom", "--ap", "2")
    store = Store(cli.db)
    try:
        (body,) = store.conn.execute("SELECT body FROM commands ORDER BY id DESC LIMIT 1").fetchone()
    finally:
        store.close()
    stored = body.encode() if isinstance(body, str) else bytes(body)
    assert command_decoder.decode(stored) == Declare(who="Jack", action="custom", details={"ap": "2"})
    assert b'"ap"' not in stored.replace(b'"details":{"ap":"2"}', b"")  # no field of its own


def test_a_new_turn_waits_until_the_turn_is_over(cli: Cli) -> None:
    cli_fight(cli)
    cli.ok("round")
    assert cli.fails("round") == (
        "Error: turn 1 is still under way: `skirmish next` through it or `skirmish upkeep` (crisis.md, Turn Order)"
    )


# --- Surprise Round --------------------------------------------------------------------------


def test_surprise_round_gives_only_the_attacker_a_turn_before_combat(memory_store: Store) -> None:
    # crisis.md, Surprise Round
    enc = fight(memory_store)
    surprise = turn(enc, {"Jack": (1, 1, 1), "Drone": (6, 6, 6)}, surprise="jack")
    assert surprise.turn == 1 and surprise.surprise == ("Jack",)
    assert surprise.sequence == ("Drone", "Jack") and surprise.acting == "Jack"
    assert {g.who: g.ap.value for g in surprise.gains} == {"Jack": 4, "Drone": 0}
    assert enc.view().clock.own == CrisisClock(surprise_round=True)
    refused(enc, Declare(who="Drone", action="draw"), RuleViolation,
            "not Drone's turn: Jack acts now (crisis.md, Turn Order)")
    do(enc, Declare(who="Jack", action="draw"))
    events = do(enc, Next())
    assert only(events, TurnPassed).to is None and only(events, TurnEnded).turn == 1
    first = turn(enc, {})
    assert first.turn == 2 and first.surprise == () and first.acting == "Drone"
    assert {g.who: g.ap.value for g in first.gains} == {"Jack": 6, "Drone": 4}


def test_surprise_round_only_before_combat_starts(cli: Cli) -> None:
    cli_fight(cli)
    cli.ok("round")
    cli.ok("upkeep")
    assert cli.fails("round", "--with", "surprise=Jack") == (
        "Error: a surprise round comes before combat starts: only on the first turn (crisis.md, Surprise Round)"
    )


def test_surprise_round_needs_someone_surprised(cli: Cli) -> None:
    cli_fight(cli)
    assert cli.fails("round", "--with", "surprise=Jack,Drone") == (
        "Error: a surprise round needs someone who has not noticed the attackers (crisis.md, Surprise Round)"
    )


# --- Actions ---------------------------------------------------------------------------------


def test_four_ap_at_the_start_of_each_turn_including_the_first(memory_store: Store) -> None:
    # crisis.md, Actions
    enc = fight(memory_store)
    first = turn(enc)
    gain = next(g for g in first.gains if g.who == "Jack").ap
    assert gain.value == 4 and gain.terms == (Term("AP left", 0), Term("start of turn", 4), Term("over 6, lost", 0))
    do(enc, Declare(who="Jack", action="attack", target="Drone", rolls={"Jack": (1, 1, 1)}))
    do(enc, Declare(who="Jack", action="move"))
    assert ap(enc, "Jack") == 1 and who(enc, "Jack").ap_spent == 3
    end_turn(enc)
    turn(enc, {})
    assert ap(enc, "Jack") == 5 and who(enc, "Jack").ap_spent == 0


def test_ap_never_exceed_6_and_the_excess_is_lost(memory_store: Store) -> None:
    # crisis.md, Actions: capped at 6
    enc = fight(memory_store)
    turn(enc)
    end_turn(enc)
    second = turn(enc, {})
    gain = next(g for g in second.gains if g.who == "Jack").ap
    assert gain.value == 6 and Term("over 6, lost", -2) in gain.terms


@pytest.mark.parametrize(("action", "cost"), [
    ("attack", 2), ("draw", 1), ("hide", 3), ("move", 1), ("sneak", 1), ("use-item", 2),
])
def test_available_actions_cost_the_tables_ap(memory_store: Store, action: str, cost: int) -> None:
    # crisis.md, Available Actions
    enc = fight(memory_store)
    turn(enc)
    target = "Drone" if action == "attack" else None
    events = do(enc, Declare(who="Jack", action=action, target=target, rolls={"Jack": (1, 1, 1)} if target else {}))
    assert only(events, ActionTaken).paid == cost
    assert ap(enc, "Jack") == 4 - cost


def test_stated_ap_override_the_table_and_custom_needs_them(memory_store: Store) -> None:
    # crisis.md, Available Actions: "unless stated otherwise"
    enc = fight(memory_store)
    turn(enc)
    taken = only(do(enc, Declare(who="Jack", action="use-item", details={"ap": "3", "what": "stim pack"})), ActionTaken)
    assert taken.paid == 3 and taken.what == "stim pack"
    refused(enc, Declare(who="Jack", action="custom"), BadInput, "custom needs --ap N, the AP it takes")


def test_action_needing_more_ap_than_left_is_refused(cli: Cli) -> None:
    # crisis.md, Actions: disabled until enough AP are accumulated
    cli_fight(cli)
    cli.ok("round", "--roll", "Jack=5,5,5", "--roll", "Drone=2,2,2")
    cli.ok("declare", "Jack", "hide")
    assert cli.fails("declare", "Jack", "attack", "--target", "Drone") == (
        "Error: Jack has 1 AP left, attack needs 2 (crisis.md, Actions)"
    )


def test_move_and_sneak_distances(memory_store: Store) -> None:
    # crisis.md, Available Actions: Speed + 5 m; sneak half of it (option sneak)
    enc = fight(memory_store)
    turn(enc)
    move = only(do(enc, Declare(who="Jack", action="move")), ActionTaken).distance
    sneak = only(do(enc, Declare(who="Jack", action="sneak")), ActionTaken).distance
    assert move is not None and move.value == 7
    # Sneak: "Move up to half the character's Speed modifier + 5 in meters": the text never
    # rounds, so Jack's (2 + 5) / 2 is 3.5 m, not 3.
    assert sneak is not None and sneak.amount == 3.5 and sneak.shown() == "3.5"


def test_sneak_half_speed_option(memory_store: Store) -> None:
    enc = fight(memory_store, sneak="half-speed")
    turn(enc)
    sneak = only(do(enc, Declare(who="Jack", action="sneak")), ActionTaken).distance
    assert sneak is not None and sneak.amount == 2 / 2 + 5


def test_reloading_a_flintlock_musket_example(memory_store: Store) -> None:
    # crisis.md, Actions, "Reloading a flintlock musket": 10 AP begun with 3 AP left;
    # after 2 more turns 3 + 4 + 4 = 11 AP accumulated: reloaded with 1 AP left.
    enc = fight(memory_store)
    turn(enc)
    do(enc, Declare(who="Jack", action="draw"))
    started = only(do(enc, Declare(who="Jack", action="custom", details={"ap": "10", "what": "reload"})), ActionTaken)
    assert started.spans and started.paid == 3
    assert pending(enc, "Jack") == Pending(
        who="Jack", action="custom", resolves="spans turns", own=CrisisPending(ap=10, progress=3)
    )
    end_turn(enc)
    turn(enc, {})
    second = only(do(enc, Resolve(who="Jack")), ActionProgressed)
    assert (second.paid, second.progress, second.done) == (4, 7, False)
    end_turn(enc)
    turn(enc, {})
    third = only(do(enc, Resolve(who="Jack")), ActionProgressed)
    assert (third.paid, third.progress, third.done) == (3, 10, True)
    assert ap(enc, "Jack") == 1 and enc.view().pending == ()


def test_an_action_over_6_ap_is_cancelled_by_any_other_action(memory_store: Store) -> None:
    # crisis.md, Actions: executing any other action cancels it
    enc = fight(memory_store)
    turn(enc)
    do(enc, Declare(who="Jack", action="custom", details={"ap": "8"}))
    end_turn(enc)
    turn(enc, {})
    events = do(enc, Declare(who="Jack", action="move"))
    assert only(events, ActionCancelled).action == "custom"
    assert enc.view().pending == () and ap(enc, "Jack") == 3


def test_an_action_over_6_ap_is_carried_on_only_in_its_own_turn(memory_store: Store) -> None:
    enc = fight(memory_store)
    turn(enc)
    do(enc, Declare(who="Jack", action="custom", details={"ap": "8"}))
    do(enc, Next())
    refused(enc, Resolve(who="Jack"), RuleViolation,
            "not Jack's turn: custom is carried on in its own turn (crisis.md, Turn Order)")


# --- Conditions ------------------------------------------------------------------------------


def test_drunk_takes_2_off_abilities_and_skills(memory_store: Store) -> None:
    # crisis.md, Conditions: Drunk
    enc = fight(memory_store)
    do(enc, ApplyEffect(who="Jack", kind="drunk"))
    do(enc, ApplyEffect(who="Drone", kind="drunk"))
    started = turn(enc)
    jack = next(r.total for r in started.rolls if r.who == "Jack")
    assert jack.value == 15 - 1 - 0  # Int 1 - 2, Speed 2 - 2
    rolled = attack(enc, "Jack", "Drone", (4, 4, 4), skill="3", ability="1")
    assert Term("drunk: skill", -2) in rolled.attack.terms and rolled.attack.value == 12 + 3 + 1 - 4
    assert Term("Melee", -2) in rolled.defence.terms and Term("Might", -2) in rolled.defence.terms


def test_prone_cannot_melee_attack_but_may_shoot(cli: Cli) -> None:
    # crisis.md, Conditions: Prone
    cli_fight(cli)
    cli.ok("effect", "Jack", "prone")
    cli.ok("round", "--roll", "Jack=5,5,5", "--roll", "Drone=2,2,2")
    assert cli.fails("declare", "Jack", "attack", "--target", "Drone") == (
        "Error: Jack is prone and cannot melee attack (crisis.md, Conditions)"
    )
    cli.ok("declare", "Jack", "attack", "--target", "Drone", "--with", "range=ranged", "--roll", "Jack=1,1,1")


def test_stand_up_is_for_the_prone_and_ends_prone(memory_store: Store) -> None:
    # crisis.md, Available Actions: Stand Up, 2 AP, when prone
    enc = fight(memory_store)
    turn(enc)
    refused(enc, Declare(who="Jack", action="stand-up"), RuleViolation,
            "Jack is not prone (crisis.md, Available Actions)")
    do(enc, ApplyEffect(who="Jack", kind="prone"))
    events = do(enc, Declare(who="Jack", action="stand-up"))
    assert only(events, ActionTaken).paid == 2 and only(events, ConditionEnded).kind == "prone"
    assert effects(enc, "Jack") == []


def test_stunned_cannot_act_this_turn_and_gains_no_ap(memory_store: Store) -> None:
    # crisis.md, Conditions: Stunned (option stun=rest-of-turn)
    enc = fight(memory_store)
    turn(enc)
    do(enc, ApplyEffect(who="Jack", kind="stunned"))
    refused(enc, Declare(who="Jack", action="draw"), RuleViolation,
            "Jack is stunned and cannot act this turn (crisis.md, Conditions)")
    events = do(enc, Upkeep())
    assert only(events, ConditionEnded).kind == "stunned"
    second = turn(enc, {})
    gain = next(g for g in second.gains if g.who == "Jack").ap
    assert gain.value == 4 and Term("stunned: no AP regained", 0) in gain.terms
    assert second.acting == "Jack"  # the stun is over: Jack acts on what he had


def test_stun_next_turn_option_also_stops_the_next_turn(memory_store: Store) -> None:
    enc = fight(memory_store, stun="next-turn")
    turn(enc)
    do(enc, ApplyEffect(who="Jack", kind="stunned"))
    end_turn(enc)
    second = turn(enc, {})
    assert second.acting == "Drone"
    assert next(g for g in second.gains if g.who == "Jack").ap.value == 4
    events = do(enc, Next())
    assert only(events, ConditionEnded).who == "Jack"
    third = turn(enc, {})
    assert third.acting == "Jack" and next(g for g in third.gains if g.who == "Jack").ap.value == 6


def test_unknown_condition_is_refused(cli: Cli) -> None:
    cli_fight(cli)
    assert cli.fails("effect", "Jack", "drunkk") == (
        "Error: no effect 'drunkk' in crisis: did you mean drunk? (--custom records it as your own)")
    cli.ok("effect", "Jack", "drunkk", "--custom")  # the GM's own, shown so
    jack = next(c for c in json.loads(cli.ok("state", "--json"))["combatants"] if c["name"] == "Jack")
    assert {"kind": "drunkk", "left": None, "detail": "", "custom": True} in jack["effects"]


def test_undo_brings_an_ended_condition_back_exactly(memory_store: Store) -> None:
    enc = fight(memory_store)
    turn(enc)
    do(enc, ApplyEffect(who="Jack", kind="stunned"))
    before = combatant(enc, "Jack").effects
    do(enc, Upkeep())
    assert combatant(enc, "Jack").effects == ()
    enc.undo(1, "undo")
    assert combatant(enc, "Jack").effects == before == (
        Effect(kind="stunned", left=1, detail="cannot act through turn 1"),
    )


# --- Combat ----------------------------------------------------------------------------------


def test_attack_is_3d6_plus_skill_ability_hit_and_circumstance(memory_store: Store) -> None:
    # crisis.md, Attacking
    enc = fight(memory_store)
    turn(enc)
    rolled = attack(enc, "Jack", "Drone", (2, 3, 4), skill="2", ability="1", hit="1", circumstance="-1")
    assert rolled.attack.value == 9 + 2 + 1 + 1 - 1
    assert [t.name for t in rolled.attack.terms] == ["3d6", "skill", "ability", "weapon hit", "circumstance"]
    assert rolled.attack.roll is not None and rolled.attack.roll.faces == (2, 3, 4)
    assert rolled.attack.rule == "crisis.md, Attacking"


def test_hit_or_miss_is_computed_from_the_roll(memory_store: Store) -> None:
    # crisis.md, Attacking against Defence vs melee (Drone: 10)
    enc = fight(memory_store)
    turn(enc)
    assert attack(enc, "Jack", "Drone", (3, 3, 3)).hit is False  # 9 < 10
    assert enc.view().pending == ()
    assert attack(enc, "Jack", "Drone", (3, 3, 4)).hit is True  # 10 = 10
    assert pending(enc, "Jack") == Pending(
        who="Jack", action="attack", target="Drone", resolves="awaits damage", own=CrisisPending(ap=0, progress=0)
    )


def test_hit_on_tie_no_needs_more_than_the_defence(memory_store: Store) -> None:
    enc = fight(memory_store, **{"hit-on-tie": "no"})
    turn(enc)
    assert attack(enc, "Jack", "Drone", (3, 3, 4)).hit is False


def test_melee_combat_example_jack_against_three_drones(memory_store: Store) -> None:
    # crisis.md, Melee Combat, "Melee combat": Jack's defence vs melee is 16 against one
    # enemy; three security drones in his melee range take it to 12.
    enc = fight(memory_store)
    do(enc, AddCombatant(name="Drone 2", side="foes", stats=DRONE))
    do(enc, AddCombatant(name="Drone 3", side="foes", stats=DRONE))
    turn(enc, {"Jack": (1, 1, 1), "Drone": (6, 6, 6), "Drone 2": (6, 6, 5), "Drone 3": (6, 6, 4)})
    alone = attack(enc, "Drone", "Jack", (1, 1, 1))
    assert alone.defence.value == 16 and alone.defence.rule == "crisis.md, Melee Combat"
    one = attack(enc, "Drone", "Jack", (1, 1, 1), enemies="1")
    assert one.defence == alone.defence  # the -2 applies only with more than one enemy
    do(enc, Next())
    three = attack(enc, "Drone 2", "Jack", (1, 1, 1), enemies="3")
    assert three.defence.value == 12
    assert Term("2 more enemies in melee range", -4) in three.defence.terms


def test_defence_vs_ranged_is_10_plus_speed_armour_circumstance(memory_store: Store) -> None:
    # crisis.md, Ranged Combat
    enc = fight(memory_store)
    turn(enc, {"Jack": (1, 1, 1), "Drone": (6, 6, 6)})
    rolled = attack(enc, "Drone", "Jack", (1, 1, 1), range="ranged", defence="1")
    assert rolled.defence.value == 10 + 2 + 1 + 1 and rolled.defence.rule == "crisis.md, Ranged Combat"


@pytest.mark.parametrize(("cover", "bonus"), [("cover", 1), ("heavy", 3)])
def test_cover_adds_to_defence(memory_store: Store, cover: str, bonus: int) -> None:
    # crisis.md, Cover
    enc = fight(memory_store)
    turn(enc)
    rolled = attack(enc, "Jack", "Drone", (1, 1, 1), range="ranged", cover=cover)
    assert rolled.defence.value == 11 + bonus and Term("cover", bonus) in rolled.defence.terms


def test_total_cover_is_unhittable(cli: Cli) -> None:
    cli_fight(cli)
    cli.ok("round", "--roll", "Jack=5,5,5", "--roll", "Drone=2,2,2")
    assert cli.fails("declare", "Jack", "attack", "--target", "Drone", "--with", "cover=total") == (
        "Error: Drone is in total cover from Jack: unhittable (crisis.md, Cover)"
    )
    assert cli_view(cli).combatant("Jack").budget.left == 4


def test_a_hit_awaits_its_damage_before_the_turn_passes(cli: Cli) -> None:
    cli_fight(cli)
    cli.ok("round", "--roll", "Jack=5,5,5", "--roll", "Drone=2,2,2")
    cli.ok("declare", "Jack", "attack", "--target", "Drone", "--roll", "Jack=6,6,6")
    assert cli.fails("next") == (
        "Error: Jack's hit on Drone awaits its damage: `skirmish resolve Jack --hits N` or "
        "`skirmish cancel Jack` (crisis.md, Damage)"
    )
    assert cli.ok("resolve", "Jack", "--hits", "5").endswith(
        "Drone takes 5 damage: 4 to Endurance (0 left), past emptied Endurance, lost (option spill) -1; "
        "Endurance spent: 2 AP a turn\n"
    )
    cli.ok("next")


# --- Damage ----------------------------------------------------------------------------------


def test_damage_is_weapon_damage_plus_ability_plus_circumstance(memory_store: Store) -> None:
    # crisis.md, Damage: "Dealing damage"
    enc = fight(memory_store)
    turn(enc)
    attack(enc, "Jack", "Drone", (6, 6, 6))
    taken = only(do(enc, Resolve(who="Jack", hits=1, details={"ability": "2", "circumstance": "-1"})), DamageTaken)
    assert taken.amount.value == 2 and taken.by == "Jack"
    assert taken.amount.terms == (Term("weapon damage", 1), Term("ability", 2), Term("circumstance", -1))
    assert who(enc, "Drone").endurance == 2 and enc.view().pending == ()


def test_armour_reduces_damage_by_dr_and_loses_1_durability(memory_store: Store) -> None:
    # crisis.md, Damage: armour with Durability left
    enc = fight(memory_store)
    taken = only(do(enc, Damage(who="Jack", amount=5)), DamageTaken)
    assert taken.taken.value == 3 and Term("armour DR", -2) in taken.taken.terms
    assert (who(enc, "Jack").endurance, who(enc, "Jack").durability) == (7, 2)


def test_spent_armour_reduces_nothing(memory_store: Store) -> None:
    enc = fight(memory_store)
    for _ in range(3):
        do(enc, Damage(who="Jack", amount=2))
    assert who(enc, "Jack").durability == 0 and who(enc, "Jack").endurance == 10
    taken = only(do(enc, Damage(who="Jack", amount=2)), DamageTaken)
    assert taken.taken.value == 2 and taken.durability_lost == 0


def test_endurance_first_and_the_excess_of_the_emptying_hit_is_lost_by_default(memory_store: Store) -> None:
    # crisis.md, Damage: once Endurance has reached 0, subsequent damage goes to Health (option spill)
    enc = fight(memory_store)
    taken = only(do(enc, Damage(who="Drone", amount=6)), DamageTaken)
    assert (taken.to_endurance, taken.to_health) == (4, 0)
    assert Term("past emptied Endurance, lost (option spill)", -2) in taken.taken.terms
    later = only(do(enc, Damage(who="Drone", amount=3)), DamageTaken)
    assert (later.to_endurance, later.to_health, later.health_left) == (0, 3, 1)


def test_spill_yes_sends_the_excess_on_to_health(memory_store: Store) -> None:
    enc = fight(memory_store, spill="yes")
    taken = only(do(enc, Damage(who="Drone", amount=6)), DamageTaken)
    assert (taken.to_endurance, taken.to_health) == (4, 2)
    assert (who(enc, "Drone").endurance, health(enc, "Drone")) == (0, 2)


def test_armour_dr_health_only_option(memory_store: Store) -> None:
    # crisis.md, Damage: DR reducing only damage to Health (option armour-dr=health-only)
    enc = fight(memory_store, **{"armour-dr": "health-only", "spill": "yes"})
    first = only(do(enc, Damage(who="Jack", amount=6)), DamageTaken)
    assert (first.to_endurance, first.durability_lost) == (6, 0)
    second = only(do(enc, Damage(who="Jack", amount=7)), DamageTaken)
    # 4 empty Endurance, 3 reach Health, less DR 2: 1 to Health, Durability -1.
    assert (second.to_endurance, second.to_health, second.durability_lost) == (4, 1, 1)


def test_critical_damage_goes_to_health_and_wears_armour_by_2(memory_store: Store) -> None:
    # crisis.md, Critical damage
    enc = fight(memory_store)
    turn(enc, {"Jack": (1, 1, 1), "Drone": (6, 6, 6)})
    attack(enc, "Drone", "Jack", (6, 6, 6))
    taken = only(do(enc, Resolve(who="Drone", hits=5, details={"critical": "yes"})), DamageTaken)
    assert taken.critical and taken.amount.rule == "crisis.md, Critical damage"
    assert (taken.to_endurance, taken.to_health, taken.durability_lost) == (0, 3, 2)
    assert (who(enc, "Jack").endurance, health(enc, "Jack"), who(enc, "Jack").durability) == (10, 5, 1)


def test_endurance_at_0_cuts_the_ap_gain_to_2(memory_store: Store) -> None:
    # crisis.md, Damage
    enc = fight(memory_store)
    turn(enc)
    do(enc, Damage(who="Drone", amount=4))
    end_turn(enc)
    second = turn(enc, {})
    gain = next(g for g in second.gains if g.who == "Drone").ap
    assert gain.value == 6 and Term("Endurance 0", 2) in gain.terms and gain.rule == "crisis.md, Damage"


def test_health_at_0_is_death(memory_store: Store) -> None:
    # crisis.md, Damage: the dead gain no AP, are skipped, cannot be hit again
    enc = fight(memory_store, spill="yes")
    turn(enc, {"Jack": (1, 1, 1), "Drone": (6, 6, 6)})
    do(enc, Damage(who="Drone", amount=8))
    assert combatant(enc, "Drone").status == "dead" and health(enc, "Drone") == 0
    refused(enc, Declare(who="Drone", action="draw"), RuleViolation, "Drone is dead (crisis.md, Damage)")
    refused(enc, Damage(who="Drone", amount=1), RuleViolation, "Drone is already dead (crisis.md, Damage)")
    end_turn(enc)
    second = turn(enc, {})
    drone = next(g for g in second.gains if g.who == "Drone").ap
    assert second.acting == "Jack" and drone.value == 0 and Term("dead: no AP", -4) in drone.terms
    refused(enc, Declare(who="Jack", action="attack", target="Drone"), RuleViolation,
            "Drone is dead (crisis.md, Damage)")


def test_the_dead_roll_no_turn_order_and_gain_nothing_each_turn(memory_store: Store) -> None:
    """crisis.md, Turn Order: "every involved character" rolls; the dead are out of it (Damage:
    Health 0 is death). Option turn-order=each-turn rolls anew every turn, so the Drone, dead
    in turn 1 (8 damage, spill=yes: 4 to Endurance, 4 to Health), rolls no more; its 4 AP of
    turn 1 are taken at turn 2 (Damage: "dead: no AP") and after that nothing is listed."""
    enc = fight(memory_store, spill="yes", **{"turn-order": "each-turn"})
    turn(enc)
    do(enc, Damage(who="Drone", amount=8))
    end_turn(enc)
    refused(enc, StartRound(rolls={"Jack": (5, 5, 5), "Drone": (2, 2, 2)}), RuleViolation,
            "Drone is dead: it rolls no turn order (crisis.md, Turn Order)")
    second = turn(enc, {"Jack": (4, 4, 4)})
    assert [r.who for r in second.rolls] == ["Jack"]
    assert [(g.who, g.ap.value) for g in second.gains] == [("Jack", 6), ("Drone", 0)]  # Jack: 4 + 4, at most 6
    end_turn(enc)
    third = turn(enc, {"Jack": (3, 3, 3)})
    assert [r.who for r in third.rolls] == ["Jack"] and [g.who for g in third.gains] == ["Jack"]
    assert "Drone" not in enc.ruleset.describe(third).split("; AP ")[1]


def test_the_dead_keep_their_place_and_never_tie_a_fresh_roll(memory_store: Store) -> None:
    """crisis.md, Turn Order: ties go to Intelligence, then Speed, then "roll again": among
    those involved. The Drone (2 + 2 + 2 + Int 0 + Speed 1 = 7) dies in turn 1; in turn 2
    (each-turn) Drone 2, just joined with its stats, rolls 2 + 2 + 2 = 7 too: no re-roll
    for the dead one, Drone 2 goes before it and only Jack and Drone 2 rolled."""
    enc = fight(memory_store, spill="yes", **{"turn-order": "each-turn"})
    turn(enc)
    do(enc, Damage(who="Drone", amount=8))
    end_turn(enc)
    do(enc, AddCombatant(name="Drone 2", side="foes", stats=DRONE))
    second = turn(enc, {"Jack": (5, 5, 5), "Drone 2": (2, 2, 2)})
    assert [(r.who, r.total.value, r.rerolls) for r in second.rolls] == [("Jack", 18, ()), ("Drone 2", 7, ())]
    assert second.sequence == ("Jack", "Drone 2", "Drone")


def test_the_ap_budget_is_of_the_ap_had_this_turn(memory_store: Store) -> None:
    """crisis.md, Actions: 4 AP gained at each turn's start, carried, at most 6. Jack gains 4
    in turn 1 and attacks (2 AP): 2 of 4 left. In turn 2 he has 2 + 4 = 6: 6 of 6. The Drone
    does nothing: 4 of 4, then 4 + 4 = 8, capped: 6 of 6."""
    enc = fight(memory_store)
    turn(enc)
    attack(enc, "Jack", "Drone", (1, 1, 1))  # 3 + 0 + 0 + 0 + 0 = 3 against 10 + ... : a miss
    budget = combatant(enc, "Jack").budget
    assert (budget.left, budget.of) == (2, 4)
    assert (combatant(enc, "Drone").budget.left, combatant(enc, "Drone").budget.of) == (4, 4)
    end_turn(enc)
    assert (combatant(enc, "Jack").budget.left, combatant(enc, "Jack").budget.of) == (2, 4)  # between turns
    turn(enc, {})
    assert (combatant(enc, "Jack").budget.left, combatant(enc, "Jack").budget.of) == (6, 6)
    assert (combatant(enc, "Drone").budget.left, combatant(enc, "Drone").budget.of) == (6, 6)


def test_the_report_sums_the_ap_spent_each_turn_from_what_was_had(memory_store: Store) -> None:
    """crisis.md, Actions: the report's "AP spent (summed over rounds)" is what each spent of
    the AP it had each turn, the set-up before turn 1 not counted. Jack spends 2 (an attack)
    in turn 1 and 1 (a move) in turn 2: 3. The Drone does nothing: 0 (the AP cap of 6 less
    its 4 left, plus the set-up's 6, once made it 8)."""
    from skirmish.projections.report.data import build

    enc = fight(memory_store)
    turn(enc)
    attack(enc, "Jack", "Drone", (1, 1, 1))
    end_turn(enc)
    turn(enc, {})
    do(enc, Declare(who="Jack", action="move"))
    end_turn(enc)
    spent = {f.name: f.spent for f in build(enc).figures}
    assert spent == {"Jack": 3, "Drone": 0}


def test_the_view_is_the_typed_core_with_crisis_figures_in_its_own_part(memory_store: Store) -> None:
    # crisis.md, Actions (4 AP gained at the turn's start: the budget is of those, 6 at most)
    # and Damage (Health); the rest under today's names
    enc = fight(memory_store)
    turn(enc)
    view = enc.view()
    assert view.clock == Clock(round=1, unit="turn", running=True, moment="Jack's turn", now=("Jack",),
                               next=("Drone",), own=CrisisClock(surprise_round=False))
    jack = view.combatant("Jack")
    assert (jack.side, jack.status, jack.acting) == ("players", "fighting", True)
    assert jack.vital == Gauge(name="Health", value=8, maximum=8)
    assert jack.budget == Budget(name="AP", left=4, of=4)
    assert msgspec.to_builtins(jack.own) == {"turn_order": 18, "ap_spent": 0, "endurance": 10, "durability": 3}
    assert view.combatant("Drone").acting is False
    assert view.own == NoOwn()  # crisis keeps no scene counters


def test_shared_flags_crisis_does_not_read_are_refused_by_the_engine_in_one_message(memory_store: Store) -> None:
    enc = fight(memory_store)
    turn(enc)
    refused(enc, Declare(who="Jack", action="move", trigger="the door opens", amount=20), BadInput,
            "crisis `declare` takes no --trigger, --amount (it takes: --ap, --target)")
    refused(enc, Resolve(who="Jack", outcome="hit", hits=3), BadInput,
            "crisis `resolve` takes no --outcome (it takes: --hits)")
    refused(enc, Cancel(who="Jack", details={"orientation": "near"}), BadInput,
            "crisis `cancel` has no detail 'orientation' (it takes none)")
    # crisis.md, Conditions: they last until ended (a stun: option stun), so no durations.
    refused(enc, ApplyEffect(who="Jack", kind="drunk", rounds=2), BadInput,
            "crisis `effect` takes no --rounds (it takes: --end)")


def test_an_action_specific_input_is_still_refused_by_the_ruleset(memory_store: Store) -> None:
    enc = fight(memory_store)
    turn(enc)
    refused(enc, Declare(who="Jack", action="draw", details={"skill": "2"}), BadInput,
            "--with skill= goes with attack only")
    refused(enc, Declare(who="Jack", action="draw", target="Drone"), BadInput, "draw takes no --target")


# --- the view --------------------------------------------------------------------------------


def test_the_clock_follows_the_turn_order_through_two_turns(memory_store: Store) -> None:
    # crisis.md, Turn Order: "The character with the highest result acts first. Once every
    # character has acted, a new turn begins." Jack 15 + 1 + 2 = 18, Mira 12 + 0 + 1 = 13,
    # Drone 6 + 0 + 1 = 7: Jack, Mira, Drone.
    enc = fight(memory_store)
    do(enc, AddCombatant(name="Mira", side="players", stats=DRONE))

    def clock() -> tuple[int, bool, str, tuple[str, ...], tuple[str, ...]]:
        c = enc.view().clock
        assert c.unit == "turn"
        return c.round, c.running, c.moment, c.now, c.next

    assert clock() == (0, False, "before the first turn", (), ())
    turn(enc, {**DICE, "Mira": (4, 4, 4)})
    assert clock() == (1, True, "Jack's turn", ("Jack",), ("Mira",))
    do(enc, Next())
    assert clock() == (1, True, "Mira's turn", ("Mira",), ("Drone",))
    # Conditions, Stunned: "Can't act on current turn": Mira is the last to act in turn 1.
    do(enc, ApplyEffect(who="Drone", kind="stunned"))
    assert clock() == (1, True, "Mira's turn", ("Mira",), ())
    do(enc, Next())
    assert clock() == (1, False, "between turns", (), ())
    turn(enc, {})
    assert clock() == (2, True, "Jack's turn", ("Jack",), ("Mira",))
    # Damage: at Health 0 "the character is dead": the dead are skipped.
    do(enc, Damage(who="Mira", amount=4))
    do(enc, Damage(who="Mira", amount=4))
    assert clock() == (2, True, "Jack's turn", ("Jack",), ("Drone",))
    do(enc, Next())
    assert clock() == (2, True, "Drone's turn", ("Drone",), ())


def test_the_clock_of_a_surprise_round(memory_store: Store) -> None:
    # crisis.md, Surprise Round: the attacker "gain[s] an additional turn before actual
    # combat starts"; Jack (18) has not noticed the Drone (7), so only the Drone acts.
    enc = fight(memory_store)
    turn(enc, surprise="Drone")
    assert enc.view().clock == Clock(round=1, unit="turn", running=True, moment="surprise round, Drone's turn",
                                     now=("Drone",), next=(), own=CrisisClock(surprise_round=True))
    do(enc, Next())
    turn(enc, {})
    assert enc.view().clock == Clock(round=2, unit="turn", running=True, moment="Jack's turn",
                                     now=("Jack",), next=("Drone",), own=CrisisClock(surprise_round=False))


def test_combatants_are_listed_in_the_turn_order_late_joiners_after(memory_store: Store) -> None:
    # crisis.md, Turn Order: highest result first. Jack 3 + 1 + 2 = 6, Drone 18 + 0 + 1 = 19,
    # Mira 12 + 0 + 1 = 13; Vex joins during turn 1 and rolls 9 + 0 + 1 = 10 at turn 2.
    enc = fight(memory_store)
    do(enc, AddCombatant(name="Mira", side="players", stats=DRONE))

    def names() -> list[str]:
        return [c.name for c in enc.view().combatants]

    assert names() == ["Jack", "Drone", "Mira"]  # no order yet: as they were added
    turn(enc, {"Jack": (1, 1, 1), "Drone": (6, 6, 6), "Mira": (4, 4, 4)})
    assert names() == ["Drone", "Mira", "Jack"]
    do(enc, AddCombatant(name="Vex", side="foes", stats=DRONE))
    assert names() == ["Drone", "Mira", "Jack", "Vex"]
    do(enc, Damage(who="Mira", amount=4))
    do(enc, Damage(who="Mira", amount=4))
    assert names() == ["Drone", "Mira", "Jack", "Vex"]  # the dead keep their place
    end_turn(enc)
    turn(enc, {"Vex": (3, 3, 3)})
    assert names() == ["Drone", "Mira", "Vex", "Jack"]


def test_status_dead_at_health_0_and_a_stunned_one_still_fights(memory_store: Store) -> None:
    # crisis.md, Damage: "When the Health pool reaches zero, the character is dead";
    # Conditions: Stunned "Can't act on current turn" (the fight goes on for it).
    enc = fight(memory_store, spill="yes")
    turn(enc)
    do(enc, ApplyEffect(who="Jack", kind="stunned"))
    do(enc, Damage(who="Drone", amount=8))  # 4 to Endurance, 4 to Health: 0 left
    view = enc.view()
    assert [(c.name, c.status) for c in view.combatants] == [("Jack", "fighting"), ("Drone", "dead")]
    assert view.standing() == {"players": ["Jack"], "foes": []}


def test_a_stun_counts_down_the_turns_it_covers(memory_store: Store) -> None:
    # crisis.md, Conditions: Stunned "Can't act on current turn"; option stun=next-turn
    # stops the next turn too: stunned in turn 1, Jack cannot act through turn 2.
    enc = fight(memory_store, stun="next-turn")
    assert effects(enc, "Jack") == []
    turn(enc)
    do(enc, ApplyEffect(who="Jack", kind="stunned"))
    do(enc, ApplyEffect(who="Jack", kind="drunk"))
    assert combatant(enc, "Jack").effects == (
        Effect(kind="stunned", left=2, detail="cannot act through turn 2"), Effect(kind="drunk"),
    )
    end_turn(enc)
    assert effects(enc, "Jack") == [("stunned", 1), ("drunk", None)]
    turn(enc, {})
    assert effects(enc, "Jack") == [("stunned", 1), ("drunk", None)]
    end_turn(enc)
    assert effects(enc, "Jack") == [("drunk", None)]


def test_deciding_leaves_the_state_as_it_was(memory_store: Store) -> None:
    # The engine folds one working copy and applies the decided events to it in place: a
    # decision (refused or not) that changed it would corrupt the state written next.
    enc = fight(memory_store)
    script: list[tuple[Command, bool]] = [
        (StartRound(rolls=DICE), True),
        (Declare(who="Jack", action="custom", details={"ap": "12"}), True),  # spans turns: 4 AP in now
        (Declare(who="Jack", action="draw"), False),  # would cancel the custom, but 0 AP left
        (Next(), True),
        (Declare(who="Drone", action="attack", target="Jack", rolls={"Drone": (6, 6, 6)}), True),
        (Next(), False),  # the hit awaits its damage
        (Resolve(who="Drone", hits=5), True),
        (ApplyEffect(who="Drone", kind="prone"), True),
        (Upkeep(), True),
        (ApplyEffect(who="Drone", kind="stunned"), True),
        (StartRound(), True),
        (Resolve(who="Jack"), True),  # 8 of 12
        (Next(), True),  # the stunned Drone is skipped: the turn ends
        (StartRound(), True),
        (Declare(who="Jack", action="move"), True),  # cancels the custom
        (Damage(who="Drone", amount=9, details={"critical": "yes"}), True),
        (AddCombatant(name="Mira", stats=DRONE), True),
        (Next(), True),
    ]
    for command, allowed in script:
        at = enc.head().event_id
        state = enc.fold_to(at)[0]
        before = msgspec.msgpack.encode(state)
        dice = Dice.of(enc.started, str(at), getattr(command, "rolls", None))
        try:
            enc.ruleset.decide(state, command, dice)
            decided = True
        except SkirmishError:
            decided = False
        assert decided == allowed, command
        assert msgspec.msgpack.encode(state) == before, command
        if allowed:
            do(enc, command)


# --- the sample ------------------------------------------------------------------------------


def test_hangar_breach_ends_as_its_comments_say(cli: Cli) -> None:
    out = cli.ok("run", str(SAMPLE))
    assert "Alpha 10 (re-roll 15), Beta 10 (re-roll 6); AP Jack 0, Vera 4, Alpha 0, Beta 0; Vera acts" in out
    assert "Vera attacks Alpha: 19 against defence 11: hit" in out
    assert "Alpha takes 6 damage: 4 to Endurance (0 left), past emptied Endurance, lost (option spill) -2" in out
    assert "Turn 2 begins: order Jack, Vera, Alpha, Beta; AP Jack 4, Vera 4, Alpha 2, Beta 4; Jack acts" in out
    assert "Vera is done; Beta acts" in out  # dead Alpha is skipped
    assert "Jack takes 7 damage: 5 to Endurance (5 left), armour DR -2, armour loses 1 Durability" in out
    assert "Beta takes 5 critical damage: 4 to Health (0 left), armour DR -1, armour loses 2 Durability; dead" in out
    assert "Vera puts 4 AP into custom (10 of 10): done" in out
    view = cli_view(cli)
    assert view.clock.round == 3 and view.branch == "main" and view.clock.running is False
    assert [c.name for c in view.combatants] == ["Jack", "Vera", "Alpha", "Beta"]  # the turn order
    jack, alpha, beta = view.combatant("Jack"), view.combatant("Alpha"), view.combatant("Beta")
    assert (who_in(jack).endurance, who_in(jack).durability, jack.budget.left) == (5, 2, 1)
    assert jack.effects == ()  # stood up
    assert alpha.status == "dead" and alpha.vital.value == -2  # the undone 40 never counted
    assert beta.status == "dead" and who_in(beta).durability == 0
    assert view.pending == ()  # the flintlock is loaded
    assert "Alpha takes 40 damage: 40 to Health (-36 left); dead  (undone)" in cli.ok("log", "--all")
    branches = {b["name"]: b for b in json.loads(cli.ok("branches", "--json"))}
    assert set(branches) == {"main", "what-if"}
    what_if = cli_view(cli, branches["what-if"]["head"])
    beta = what_if.combatant("Beta")
    # Stunned between turns 2 and 3: it covers turn 3, the one under way (option stun).
    assert beta.budget.left == 0 and beta.effects == (Effect(kind="stunned", left=1, detail="cannot act through turn 3"),)
    assert what_if.clock.now == ("Jack",) and what_if.clock.next == ("Vera",)


def test_cancel_forgoes_a_hits_damage_and_needs_an_action_under_way(memory_store: Store) -> None:
    # crisis.md, Actions (reading: the GM may drop an action under way)
    enc = fight(memory_store)
    turn(enc)
    refused(enc, Cancel(who="Jack"), RuleViolation, "Jack has no action under way to cancel (crisis.md, Actions)")
    attack(enc, "Jack", "Drone", (6, 6, 6))
    assert only(do(enc, Cancel(who="Jack")), ActionCancelled).action == "attack"
    assert enc.view().pending == () and who(enc, "Drone").endurance == 4
    assert only(do(enc, Next()), TurnPassed).to == "Drone"


# --- to the end: healed, dead, gone and back ---------------------------------------------------


def test_a_fight_to_the_end_healed_dead_gone_and_back(memory_store: Store) -> None:
    """Jack 15 + 1 + 2 = 18 acts before the Drone 6 + 0 + 1 = 7 (Turn Order). The Drone
    (Endurance 4, Health 4): 3 damage leaves Endurance 1 (Damage: Endurance first); healed
    2, Health is full so Endurance takes them (3); 10 more empty Endurance and the rest is
    lost (option spill=no); 4 more put Health at 0: dead, and the dead are not healed."""
    from skirmish.eventlog.commands import Heal, Leave, Return
    from skirmish.projections.rulesets.crisis.events import Healed

    enc = fight(memory_store)
    turn(enc)
    do(enc, Damage(who="Drone", amount=3))
    healed = only(do(enc, Heal(who="Drone", amount=2)), Healed)
    assert (healed.to_health, healed.to_endurance) == (0, 2)
    assert (who(enc, "Drone").endurance, health(enc, "Drone")) == (3, 4)
    do(enc, Damage(who="Drone", amount=10))
    assert (who(enc, "Drone").endurance, health(enc, "Drone")) == (0, 4)
    do(enc, Damage(who="Drone", amount=4))
    assert combatant(enc, "Drone").status == "dead"
    refused(enc, Heal(who="Drone", amount=1), RuleViolation,
            "Drone is dead: nothing in the text brings the dead back (crisis.md, Damage)")
    refused(enc, Heal(who="Jack", amount=1), RuleViolation, "Jack has all its Health and Endurance: nothing to heal")
    do(enc, Leave(who="Jack", reason="runs for the airlock"))
    assert combatant(enc, "Jack").status == "left"
    refused(enc, Declare(who="Jack", action="move"), RuleViolation,
            "Jack has left the fight: it cannot act until `skirmish return Jack`")
    do(enc, Next())  # nobody else: the turn ends
    started = turn(enc, {})
    # Gone, Jack gains nothing: his 4 AP of turn 1 stay 4 (else 4 + 4, capped at 6).
    assert started.acting is None and "Jack" not in {g.who for g in started.gains}  # nothing gained, none listed
    assert combatant(enc, "Jack").budget.left == 4
    do(enc, Return(who="Jack"))
    assert combatant(enc, "Jack").status == "fighting"
    enc.undo(1, "undo")
    assert combatant(enc, "Jack").status == "left"
