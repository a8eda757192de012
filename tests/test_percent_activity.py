"""Every rule of the percent-activity ruleset (shared/rules/percent-activity.md), one test or more each.

Each test is named after the rule and cites the section of the rules text it checks.
Refusals check the exact message and that nothing was appended. The usual fight:
Hauser (Qu +1, 40 hits) rolls 6 + 8, initiative 15; the Orc (Qu 0, 30 hits) rolls
5 + 5, initiative 10. Hauser acts first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, start

# The generic encounter helpers (run a command, refuse one exactly, read a combatant's row).
from encounter_helpers import do, effects, one, pending, refused, who

from skirmish.eventlog.commands import (
    AddCombatant,
    ApplyEffect,
    Cancel,
    Damage,
    Declare,
    Next,
    Resolve,
    StartRound,
    Upkeep,
)
from skirmish.eventlog.errors import BadInput, RuleViolation, SkirmishError
from skirmish.eventlog.events import Event, Term
from skirmish.eventlog.store import Store
from skirmish.projections.engine import Encounter
from skirmish.projections.rulesets.percent_activity import (
    ActionCancelled,
    ActionContinued,
    ActionDeclared,
    ActionProgressed,
    DamageTaken,
    RoundEnded,
    RoundStarted,
    TurnPassed,
    UpkeepTick,
)

DICE = {"Hauser": (6, 8), "Orc": (5, 5)}
RULES = "percent-activity"


# --- the library side ------------------------------------------------------------------------


def fight(store: Store, **options: str) -> Encounter:
    enc = start(store, RULES, **options)
    do(enc, AddCombatant(name="Hauser", side="players", stats={"qu": "1", "hits": "40"}))
    do(enc, AddCombatant(name="Orc", side="foes", stats={"qu": "0", "hits": "30"}))
    return enc


def new_round(enc: Encounter, rolls: dict[str, tuple[int, ...]] | None = None, **details: str) -> list[Event]:
    return do(enc, StartRound(rolls=DICE if rolls is None else rolls, details=details))


def initiative_terms(events: list[Event], name: str) -> tuple[int, tuple[Term, ...]]:
    init = next(i for i in one(events, RoundStarted).initiatives if i.who == name)
    return init.value.value, init.value.terms


# --- the command-line side -------------------------------------------------------------------


def cli_fight(cli: Cli, *options: str) -> None:
    opts = [w for o in options for w in ("--option", o)]
    cli.ok("new", "Gatehouse", "--rules", RULES, "--seed", "3", *opts)
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")


def cli_round(cli: Cli, *extra: str) -> str:
    return cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5", *extra)


def state(cli: Cli) -> dict[str, Any]:
    view: dict[str, Any] = json.loads(cli.ok("state", "--json"))
    return view


# --- Initiative Step ---------------------------------------------------------------------------


def test_initiative_is_2d10_plus_quickness_bonus(memory_store: Store) -> None:
    """Initiative Step: 2d10 + Quickness Bonus + Modifiers, the GM's faces recorded."""
    enc = fight(memory_store)
    events = new_round(enc)
    value, terms = initiative_terms(events, "Hauser")
    assert value == 15 and terms == (Term("2d10", 14), Term("Quickness bonus", 1))
    init = one(events, RoundStarted).initiatives[0].value
    assert init.roll is not None and init.roll.faces == (6, 8) and init.roll.source == "gm"
    assert init.rule == "percent-activity.md, Initiative Step"
    assert who(enc, "Hauser")["initiative"] == 15 and who(enc, "Orc")["initiative"] == 10


def test_initiative_is_rolled_anew_every_round(memory_store: Store) -> None:
    """Round: initiative is determined each round."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Upkeep())
    events = new_round(enc, {"Hauser": (1, 1), "Orc": (9, 9)})
    assert one(events, RoundStarted).order == ("Orc", "Hauser")
    assert who(enc, "Hauser")["initiative"] == 3 and enc.view()["clock"]["turn"] == "Orc"


def test_tool_rolls_initiative_when_no_dice_are_typed(memory_store: Store) -> None:
    enc = fight(memory_store)
    events = new_round(enc, {})
    for init in one(events, RoundStarted).initiatives:
        assert init.value.roll is not None and init.value.roll.source == "tool"
        assert all(1 <= f <= 10 for f in init.value.roll.faces) and len(init.value.roll.faces) == 2


def test_weapon_ready_adds_4_in_the_first_round_only(cli: Cli) -> None:
    """Initiative Step: weapon ready, +4, first round of combat only."""
    cli_fight(cli)
    assert "Round 1 begins: Hauser 19, Orc 10" in cli_round(cli, "--with", "ready=hauser")
    cli.ok("upkeep")
    assert cli.fails("round", "--with", "ready=Hauser") == (
        "Error: weapon ready counts in the first round of combat only (percent-activity.md, Initiative Step)"
    )


def test_surprised_takes_4(cli: Cli) -> None:
    """Initiative Step: surprised, -4."""
    cli_fight(cli)
    assert "Round 1 begins: Hauser 11, Orc 10" in cli_round(cli, "--with", "surprised=Hauser")
    cli.ok("upkeep")
    assert cli.fails("round", "--with", "surprised=Hauzer") == (
        "Error: no combatant named 'Hauzer' (did you mean Hauser?)"
    )


def test_surprised_names_must_be_combatants(memory_store: Store) -> None:
    enc = fight(memory_store)
    refused(enc, StartRound(rolls=DICE, details={"surprised": "Hauser,Goblin"}), SkirmishError,
            "no combatant named 'Goblin' (combatants: Hauser, Orc)")


def test_encumbered_takes_4_until_ended(memory_store: Store) -> None:
    """Initiative Step: encumbered, -4, a condition kept until the GM ends it."""
    enc = fight(memory_store)
    do(enc, ApplyEffect(who="Orc", kind="encumbered"))
    value, terms = initiative_terms(new_round(enc), "Orc")
    assert value == 6 and Term("encumbered", -4) in terms
    do(enc, Upkeep())
    assert effects(enc, "Orc") == [("encumbered", None)]  # no round wears it off
    do(enc, ApplyEffect(who="Orc", kind="encumbered", end=True))
    assert initiative_terms(new_round(enc), "Orc")[0] == 10


def test_wounded_takes_4_once_more_than_half_the_hits_are_taken(memory_store: Store) -> None:
    """Initiative Step: wounded (more than 50% of hits taken), derived from recorded damage."""
    enc = fight(memory_store)
    do(enc, Damage(who="Orc", amount=15))  # exactly half of 30: not yet wounded
    assert who(enc, "Orc")["wounded"] is False
    assert initiative_terms(new_round(enc), "Orc")[0] == 10
    do(enc, Upkeep())
    taken = one(do(enc, Damage(who="Orc", amount=1)), DamageTaken)
    assert taken.wounded and taken.hits_left == 14
    value, terms = initiative_terms(new_round(enc), "Orc")
    assert value == 6 and Term("wounded (16 of 30 hits taken)", -4) in terms


def test_wounded_and_weapon_ready_cannot_be_typed_as_effects(memory_store: Store) -> None:
    enc = fight(memory_store)
    refused(enc, ApplyEffect(who="Orc", kind="wounded"), BadInput,
            "wounded is not an effect here: it is derived from the damage recorded")
    refused(enc, ApplyEffect(who="Orc", kind="surprised", rounds=1), BadInput,
            "surprised is not an effect here: it is given when the round starts: "
            "`skirmish round --with surprised=NAME`")


def test_all_modifiers_add_up(memory_store: Store) -> None:
    enc = fight(memory_store)
    do(enc, Damage(who="Hauser", amount=30))
    do(enc, ApplyEffect(who="Hauser", kind="encumbered"))
    value, terms = initiative_terms(new_round(enc, ready="Hauser", surprised="Hauser"), "Hauser")
    assert [t.name for t in terms] == [
        "2d10", "Quickness bonus", "weapon ready", "surprised", "encumbered", "wounded (30 of 40 hits taken)",
    ]
    assert value == 14 + 1 + 4 - 4 - 4 - 4


# --- Round: order and turns --------------------------------------------------------------------


def test_turns_go_from_highest_to_lowest_initiative(memory_store: Store) -> None:
    """Round: combatants act from highest to lowest initiative; `next` passes the turn."""
    enc = fight(memory_store)
    do(enc, AddCombatant(name="Mira", side="players", stats={"qu": "2", "hits": "30"}))
    events = new_round(enc, {"Hauser": (6, 8), "Orc": (5, 5), "Mira": (10, 10)})
    assert one(events, RoundStarted).order == ("Mira", "Hauser", "Orc")
    assert enc.view()["clock"] == {"in_round": True, "turn": "Mira", "order": "Mira, Hauser, Orc"}
    assert one(do(enc, Next()), TurnPassed) == TurnPassed(who="Mira", to="Hauser")
    do(enc, Next())
    assert enc.view()["clock"]["turn"] == "Orc"


def test_initiative_ties_go_to_the_higher_quickness_then_the_first_added(memory_store: Store) -> None:
    enc = fight(memory_store)
    do(enc, AddCombatant(name="Mira", side="players", stats={"qu": "1", "hits": "30"}))
    events = new_round(enc, {"Hauser": (5, 5), "Orc": (6, 5), "Mira": (5, 5)})
    # All three at 11: the higher Quickness bonus first (Hauser and Mira, +1), then the one added first.
    assert one(events, RoundStarted).order == ("Hauser", "Mira", "Orc")


def test_declaring_out_of_turn_is_refused(memory_store: Store) -> None:
    """Resolve Actions step: combatants take turns in initiative order."""
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, Declare(who="Orc", action="dodge"), RuleViolation,
            "not Orc's turn: it is Hauser's turn (percent-activity.md, Resolve Actions step)")
    do(enc, Next())
    do(enc, Declare(who="Orc", action="dodge"))
    do(enc, Resolve(who="Orc"))
    refused(enc, Declare(who="Hauser", action="dodge"), RuleViolation,
            "not Hauser's turn: it is Orc's turn (percent-activity.md, Resolve Actions step)")


def test_a_combatant_added_mid_round_waits_for_the_next_round(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, AddCombatant(name="Mira", stats={"qu": "2", "hits": "30"}))
    refused(enc, Declare(who="Mira", action="dodge"), RuleViolation,
            "Mira joined after this round's initiative: wait for the next round "
            "(percent-activity.md, Initiative Step)")


def test_next_refuses_to_pass_an_unresolved_action(cli: Cli) -> None:
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "melee-attack", "--target", "Orc")
    assert cli.fails("next") == (
        "Error: Hauser's melee-attack is still to resolve: `skirmish resolve Hauser` or "
        "`skirmish cancel Hauser` before you pass the turn (percent-activity.md, Resolve Actions step)"
    )


def test_next_after_the_last_turn_runs_the_upkeep(memory_store: Store) -> None:
    """Round: after all actions, the upkeep step."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, ApplyEffect(who="Orc", kind="bleeding", per_round=3))
    do(enc, Next())
    events = do(enc, Next())
    assert one(events, UpkeepTick).change == -3
    assert one(events, RoundEnded).round == 1
    assert enc.view()["clock"] == {"in_round": False, "turn": None, "order": "Hauser, Orc"}
    refused(enc, Next(), RuleViolation, "no round under way: start one with `skirmish round` (percent-activity.md, Round)")


def test_a_round_cannot_start_while_one_is_under_way(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, StartRound(), RuleViolation,
            "round 1 is still under way: finish it with `skirmish upkeep` (percent-activity.md, Round)")


# --- Resolve Actions step: activity ------------------------------------------------------------


def test_a_round_gives_100_percent_activity(memory_store: Store) -> None:
    """Resolve Actions step: up to a total of 100% activity in a single round."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", percent=70, target="Orc"))
    do(enc, Resolve(who="Hauser"))
    assert who(enc, "Hauser")["activity_used"] == 70 and who(enc, "Hauser")["activity_left"] == 30
    refused(enc, Declare(who="Hauser", action="ranged-attack"), RuleViolation,
            "Hauser has 30 % activity left, ranged-attack takes 60 % (percent-activity.md, Resolve Actions step)")
    do(enc, Declare(who="Hauser", action="ranged-attack", percent=30))
    assert who(enc, "Hauser")["activity_left"] == 0


def test_activity_comes_back_each_round(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="dodge"))
    do(enc, Resolve(who="Hauser"))
    do(enc, Upkeep())
    new_round(enc)
    assert who(enc, "Hauser")["activity_used"] == 0


def test_dodge_range_example_costs_minus_1_per_percent_under_100(memory_store: Store) -> None:
    """Resolve Actions step: a % range (e.g. 50%-100%) done faster at -1 per % under its maximum."""
    enc = fight(memory_store)
    new_round(enc)
    declared = one(do(enc, Declare(who="Hauser", action="dodge", percent=80)), ActionDeclared)
    assert declared.cost.value == 80
    assert declared.penalty.value == -20 and declared.penalty.terms == (Term("20 % under the maximum", -20),)
    assert declared.penalty.rule == "percent-activity.md, Resolve Actions step"
    do(enc, Resolve(who="Hauser"))
    fast = one(do(enc, Declare(who="Hauser", action="perception", percent=10)), ActionDeclared)
    assert fast.penalty.value == -20  # perception 10%-30%


def test_a_range_action_without_percent_takes_its_maximum(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    declared = one(do(enc, Declare(who="Hauser", action="melee-attack", target="Orc")), ActionDeclared)
    assert declared.cost.value == 100 and declared.penalty.value == 0
    assert pending(enc, "Hauser") == {
        "who": "Hauser", "action": "melee-attack", "percent": 100, "step": "resolves", "penalty": 0,
        "target": "Orc", "trigger": None, "progress": 0,
    }


@pytest.mark.parametrize(("action", "percent"), [
    ("melee-attack", 59), ("melee-attack", 101), ("ranged-attack", 61), ("dodge", 49),
    ("perception", 5), ("simple-action", 31), ("complex-action", 19), ("move", 5),
])
def test_percent_outside_an_actions_range_is_refused(memory_store: Store, action: str, percent: int) -> None:
    enc = fight(memory_store)
    new_round(enc)
    with pytest.raises(RuleViolation, match=rf"^{action} takes \d+[-+]?\d* %, not {percent} % "):
        enc.execute(Declare(who="Hauser", action=action, percent=percent), "test")


@pytest.mark.parametrize(("action", "share"), [("ammo-reload", 60), ("draw", 20), ("change-weapons", 50)])
def test_fixed_share_actions(memory_store: Store, action: str, share: int) -> None:
    """Resolve Actions step: the table's fixed shares."""
    enc = fight(memory_store)
    new_round(enc)
    declared = one(do(enc, Declare(who="Hauser", action=action)), ActionDeclared)
    assert declared.cost.value == share and declared.penalty.value == 0


def test_fixed_share_cannot_be_changed(cli: Cli) -> None:
    cli_fight(cli)
    cli_round(cli)
    assert cli.fails("declare", "Hauser", "draw", "--percent", "10") == (
        "Error: draw takes 20 %, not 10 % (percent-activity.md, Resolve Actions step)"
    )


def test_movement_takes_at_least_10_percent_and_is_done_as_declared(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    assert one(do(enc, Declare(who="Hauser", action="move")), ActionDeclared).cost.value == 10
    declared = one(do(enc, Declare(who="Hauser", action="move", percent=45)), ActionDeclared)
    assert declared.step == "done" and declared.penalty.value == 0
    assert pending(enc, "Hauser") is None and who(enc, "Hauser")["activity_used"] == 55


def test_static_maneuver_takes_at_least_100_percent(memory_store: Store) -> None:
    """Resolve Actions step: Static Maneuver, minimum 100%."""
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, Declare(who="Hauser", action="static-maneuver", percent=90), RuleViolation,
            "static-maneuver takes 100+ %, not 90 % (percent-activity.md, Resolve Actions step)")
    do(enc, Declare(who="Hauser", action="move", percent=10))
    refused(enc, Declare(who="Hauser", action="static-maneuver"), RuleViolation,
            "Hauser has 90 % activity left, static-maneuver takes 100 % (percent-activity.md, Resolve Actions step)")


def test_one_melee_attack_a_round(cli: Cli) -> None:
    """Resolve Actions step: only 1 melee attack action per round."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "melee-attack", "--percent", "60", "--target", "Orc")
    cli.ok("resolve", "Hauser", "--outcome", "miss")
    assert cli.fails("declare", "Hauser", "melee-attack", "--percent", "60", "--target", "Orc") == (
        "Error: Hauser has declared a melee attack this round already: one a round "
        "(percent-activity.md, Resolve Actions step)"
    )
    assert state(cli)["combatants"][0]["melee_attacks"] == 1
    cli.ok("upkeep")
    cli_round(cli)
    assert state(cli)["combatants"][0]["melee_attacks"] == 0
    cli.ok("declare", "Hauser", "melee-attack", "--percent", "60", "--target", "Orc")


def test_a_cancelled_melee_attack_still_counts_as_declared(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", percent=60, target="Orc"))
    do(enc, Cancel(who="Hauser"))
    assert who(enc, "Hauser")["activity_used"] == 60  # its activity stays spent
    with pytest.raises(RuleViolation, match="declared a melee attack this round already"):
        enc.execute(Declare(who="Hauser", action="melee-attack", percent=60, target="Orc"), "test")


def test_unknown_action_and_ap_are_refused(cli: Cli) -> None:
    cli_fight(cli)
    cli_round(cli)
    assert cli.fails("declare", "Hauser", "meele-attack") == (
        "Error: no action 'meele-attack' in the activity table (did you mean melee-attack?)"
    )
    assert cli.fails("declare", "Hauser", "dodge", "--ap", "2") == (
        "Error: percent-activity counts activity: use --percent, not --ap"
    )
    assert cli.fails("declare", "Hauser", "dodge", "--penalty", "-10") == (
        "Error: percent-activity has no use for --penalty: the penalty follows from --percent"
    )
    assert cli.fails("declare", "Hauser", "move", "--pace", "run") == "Error: percent-activity has no use for --pace"


def test_resolving_with_hits_damages_the_target(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", percent=80, target="orc"))
    events = do(enc, Resolve(who="Hauser", outcome="hit", hits=9))
    assert one(events, DamageTaken).hits_left == 21
    assert who(enc, "Orc")["hits_left"] == 21
    do(enc, Declare(who="Hauser", action="perception", percent=20))
    refused(enc, Resolve(who="Hauser", hits=2), BadInput,
            "--hits needs a target: Hauser's perception was declared without --target")


# --- Instantaneous actions ---------------------------------------------------------------------


@pytest.mark.parametrize(("option", "further"), [(None, 10), ("1", 1), ("25", 25)])
def test_first_instantaneous_action_is_free_and_further_ones_take_the_option(
    memory_store: Store, option: str | None, further: int
) -> None:
    """Instantaneous actions: the first a round is free, each further one costs (option instant-cost)."""
    enc = fight(memory_store, **({"instant-cost": option} if option else {}))
    new_round(enc)
    first = one(do(enc, Declare(who="Hauser", action="instantaneous")), ActionDeclared)
    assert first.cost.value == 0 and first.cost.rule == "percent-activity.md, Instantaneous actions"
    do(enc, Resolve(who="Hauser"))
    second = one(do(enc, Declare(who="Hauser", action="instantaneous")), ActionDeclared)
    assert second.cost.value == further and second.cost.terms == (Term("instantaneous actions before", 1),)
    assert who(enc, "Hauser")["activity_used"] == further
    do(enc, Resolve(who="Hauser"))
    do(enc, Upkeep())
    new_round(enc)
    assert one(do(enc, Declare(who="Hauser", action="instantaneous")), ActionDeclared).cost.value == 0


def test_the_instant_cost_option_is_recorded_in_the_first_event(cli: Cli) -> None:
    cli_fight(cli, "instant-cost=25")
    first = json.loads(cli.ok("log", "--json").splitlines()[0])
    assert first["options"] == {"instant-cost": "25"}
    assert cli.fails("new", "Other", "--rules", RULES, "--option", "instant-cost=2") == (
        "Error: option instant-cost takes 1 or 10 or 25, not '2'"
    )


# --- Conditional Action ------------------------------------------------------------------------


def test_held_action_resolves_when_triggered_interrupting_another_turn(memory_store: Store) -> None:
    """Conditional Action: held, resolved if and when its trigger happens, interrupting."""
    enc = fight(memory_store)
    new_round(enc)
    declared = one(do(enc, Declare(who="Hauser", action="ranged-attack", percent=40, target="Orc",
                                   trigger="the Orc charges")), ActionDeclared)
    assert declared.step == "held" and declared.paid == 40
    do(enc, Next())  # Hauser's turn ends with the shot held
    do(enc, Declare(who="Orc", action="move", percent=30))
    do(enc, Declare(who="Orc", action="melee-attack", target="Hauser", percent=60))
    do(enc, Resolve(who="Hauser", outcome="hit", hits=5))  # the held shot goes off first
    assert pending(enc, "Hauser") is None and who(enc, "Orc")["hits_left"] == 25


def test_held_action_is_lost_at_the_upkeep(memory_store: Store) -> None:
    """Conditional Action: never triggered, the action is lost at the end of the round."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="dodge", percent=50, trigger="the Orc attacks"))
    events = do(enc, Upkeep())
    lost = one(events, ActionCancelled)
    assert lost.reason == "lost: never triggered this round (percent-activity.md, Conditional Action)"
    assert pending(enc, "Hauser") is None


def test_held_action_must_fit_in_this_rounds_activity(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="move", percent=60))
    refused(enc, Declare(who="Hauser", action="ranged-attack", trigger="he shows"), RuleViolation,
            "Hauser has 40 % activity left, ranged-attack takes 60 % (percent-activity.md, Conditional Action)")


def test_held_action_is_broken_by_declaring_another_action_but_not_by_movement(memory_store: Store) -> None:
    """Conditional Action: held only while concentration is unbroken."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="ranged-attack", percent=30, trigger="the door opens"))
    do(enc, Declare(who="Hauser", action="move", percent=20))
    assert pending(enc, "Hauser") is not None
    events = do(enc, Declare(who="Hauser", action="perception", percent=20))
    assert one(events, ActionCancelled).reason.startswith("interrupted by perception: a held action ends")
    assert pending(enc, "Hauser") is not None and pending(enc, "Hauser")["action"] == "perception"  # type: ignore[index]
    assert who(enc, "Hauser")["activity_used"] == 70


# --- Round to Round Actions --------------------------------------------------------------------


def test_round_to_round_action_carries_across_rounds(memory_store: Store) -> None:
    """Round to Round Actions: more than 100%, over several rounds; the last share leaves the rest."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="move", percent=20))
    declared = one(do(enc, Declare(who="Hauser", action="static-maneuver", percent=250)), ActionDeclared)
    assert declared.step == "progresses" and declared.cost.rule == "percent-activity.md, Round to Round Actions"
    progressed = one(do(enc, Upkeep()), ActionProgressed)
    assert (progressed.paid, progressed.progress) == (80, 80)
    going = one(new_round(enc), ActionContinued)
    assert (going.step, going.remaining.value) == ("progresses", 170)
    refused(enc, Resolve(who="Hauser"), RuleViolation,
            "Hauser's static-maneuver has 170 % to go: it completes in a later round "
            "(percent-activity.md, Round to Round Actions)")
    assert one(do(enc, Upkeep()), ActionProgressed).progress == 180
    due = one(new_round(enc), ActionContinued)
    assert (due.step, due.remaining.value, due.paid) == ("resolves", 70, 70)
    assert who(enc, "Hauser")["activity_left"] == 30
    refused(enc, Upkeep(), RuleViolation,
            "Hauser's static-maneuver is still to resolve: `skirmish resolve Hauser` or `skirmish cancel Hauser` "
            "before you run the upkeep (percent-activity.md, Upkeep step)")
    do(enc, Resolve(who="Hauser", outcome="the lock opens"))
    do(enc, Declare(who="Hauser", action="ranged-attack", percent=30))


def test_round_to_round_action_is_cancelled_by_another_action(cli: Cli) -> None:
    """Round to Round Actions: performed uninterrupted by other actions."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "static-maneuver", "--percent", "300")
    cli.ok("upkeep")
    cli_round(cli)
    out = cli.ok("declare", "Hauser", "draw")
    assert "Hauser's static-maneuver interrupted by draw: a round-to-round action ends when another action is taken" in out
    assert [p["action"] for p in state(cli)["pending"]] == ["draw"]


def test_round_to_round_action_needs_some_activity_left_to_start(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="move", percent=100))
    refused(enc, Declare(who="Hauser", action="static-maneuver", percent=200), RuleViolation,
            "Hauser has no activity left to start static-maneuver this round (percent-activity.md, Round to Round Actions)")
    refused(enc, Declare(who="Hauser", action="move", percent=120), RuleViolation,
            "move at 120 % spans rounds: it cannot be held or done at once (percent-activity.md, Round to Round Actions)")


# --- Upkeep step -------------------------------------------------------------------------------


def test_upkeep_subtracts_hits_due_to_bleeding(memory_store: Store) -> None:
    """Upkeep step: subtract hits due to bleeding."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, ApplyEffect(who="Orc", kind="bleeding", per_round=2))
    do(enc, ApplyEffect(who="Orc", kind="bleeding", per_round=3))
    ticks = [e for e in do(enc, Upkeep()) if isinstance(e, UpkeepTick)]
    assert [(t.step, t.change) for t in ticks] == [("bleeding", -2), ("bleeding", -3)]
    assert who(enc, "Orc")["damage"] == 5
    do(enc, ApplyEffect(who="Orc", kind="bleeding", end=True))
    assert effects(enc, "Orc") == []


def test_only_the_most_severe_stun_is_reduced(memory_store: Store) -> None:
    """Upkeep step: stun effects lose 1 round, the most severe first."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, ApplyEffect(who="Orc", kind="dazed", rounds=1))
    do(enc, ApplyEffect(who="Orc", kind="stunned", rounds=1))
    do(enc, ApplyEffect(who="Orc", kind="stunned-unable-to-parry", rounds=2))
    do(enc, Upkeep())
    assert effects(enc, "Orc") == [("dazed", 1), ("stunned", 1), ("stunned-unable-to-parry", 1)]
    new_round(enc)
    do(enc, Upkeep())
    assert effects(enc, "Orc") == [("dazed", 1), ("stunned", 1)]
    new_round(enc)
    do(enc, Upkeep())
    assert effects(enc, "Orc") == [("dazed", 1)]
    new_round(enc)
    do(enc, Upkeep())
    assert effects(enc, "Orc") == []


def test_upkeep_removes_stagger(memory_store: Store) -> None:
    """Upkeep step: remove any staggered effect."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, ApplyEffect(who="Hauser", kind="staggered"))
    tick = one(do(enc, Upkeep()), UpkeepTick)
    assert (tick.step, tick.removed, tick.rule) == ("stagger", True, "percent-activity.md, Upkeep step")
    assert effects(enc, "Hauser") == []


def test_other_timed_effects_lose_a_round_each_upkeep(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, ApplyEffect(who="Hauser", kind="blinded", rounds=2))
    do(enc, Upkeep())
    assert effects(enc, "Hauser") == [("blinded", 1)]
    new_round(enc)
    do(enc, Upkeep())
    assert effects(enc, "Hauser") == []


def test_upkeep_is_refused_while_an_action_is_still_to_resolve(cli: Cli) -> None:
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "dodge")
    assert cli.fails("upkeep").startswith("Error: Hauser's dodge is still to resolve")


def test_effect_inputs_are_checked(memory_store: Store) -> None:
    enc = fight(memory_store)
    refused(enc, ApplyEffect(who="Orc", kind="bleeding"), BadInput, "bleeding needs --per-round N, the hits lost each upkeep")
    refused(enc, ApplyEffect(who="Orc", kind="stunned"), BadInput, "stunned needs --rounds N (1 or more)")
    refused(enc, ApplyEffect(who="Orc", kind="staggered", rounds=1), BadInput,
            "staggered has no duration: the upkeep removes it")
    refused(enc, ApplyEffect(who="Orc", kind="dazed", end=True), RuleViolation, "Orc has no dazed effect to end")


def test_undo_of_an_upkeep_brings_expired_effects_back_exactly(cli: Cli) -> None:
    cli_fight(cli)
    cli_round(cli)
    cli.ok("effect", "Orc", "stunned", "--rounds", "1")
    cli.ok("effect", "Orc", "staggered")
    cli.ok("effect", "Orc", "bleeding", "--per-round", "2")
    before = state(cli)
    cli.ok("upkeep")
    assert next(c for c in state(cli)["combatants"] if c["name"] == "Orc")["effects"] == [
        {"kind": "bleeding", "per_round": 2, "rounds": None},
    ]
    cli.ok("undo")
    after = state(cli)
    assert {k: v for k, v in after.items() if k not in ("head", "at")} == {
        k: v for k, v in before.items() if k not in ("head", "at")
    }


# --- shape and sample --------------------------------------------------------------------------


def test_state_json_keeps_the_shared_shape(cli: Cli) -> None:
    cli_fight(cli)
    cli_round(cli)
    view = state(cli)
    assert list(view) == ["encounter", "ruleset", "branch", "head", "at", "round", "clock", "combatants",
                          "pending", "environment"]
    row = view["combatants"][0]
    assert row["hits_left"] == 40 and row["activity_used"] == 0
    for line in cli.ok("log", "--json").splitlines():
        assert {"id", "parent", "kind", "recorded_at"} <= set(json.loads(line))
    text = cli.ok("state")
    assert "round 1, in round yes, turn Hauser, order Hauser, Orc" in text
    cli.ok("declare", "Hauser", "dodge", "--percent", "70", "--trigger", "the Orc swings")
    assert "pending: Hauser dodge (percent 70, step held, penalty -30, trigger the Orc swings)" in cli.ok("state")


SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "gatehouse-percent.skirmish"


def test_gatehouse_sample_ends_as_its_comments_say(cli: Cli) -> None:
    cli.ok("run", str(SAMPLE))
    out = cli.out
    assert "Round 1 begins: Hauser 19, Mira 17, Orc 6" in out
    assert "Hauser declares melee-attack on Orc (80 %, penalty -20)" in out
    assert "Mira resolves ranged-attack on Orc: hit, 6 hits" in out
    assert "Orc's dodge lost: never triggered this round (percent-activity.md, Conditional Action)" in out
    assert "Mira puts 60 % into static-maneuver (60 of 150)" in out
    assert "Mira's static-maneuver completes this round: 90 % set aside" in out
    assert "Upkeep: Orc's stunned has 1 round left" in out
    view = state(cli)
    assert view["round"] == 2 and view["branch"] == "main"
    figures = {c["name"]: c for c in view["combatants"]}
    # Orc: 12 (Hauser) + 6 (Mira) + 2 bleeding at each of two upkeeps = 22 of 30 hits.
    assert figures["Orc"]["damage"] == 22 and figures["Orc"]["wounded"] is True
    assert figures["Orc"]["effects"] == [{"kind": "bleeding", "per_round": 2, "rounds": None}]
    # The 20 typed by mistake was undone: Hauser took only the Orc's 8.
    assert figures["Hauser"]["damage"] == 8
    assert "Hauser takes 20 hits (12 left), wounded  (undone)" in cli.ok("log", "--all")
    branches = {b["name"]: b for b in json.loads(cli.ok("branches", "--json"))}
    assert set(branches) == {"main", "what-if"}
    what_if = json.loads(cli.ok("state", "--json", "--at", str(branches["what-if"]["head"])))
    orc = next(c for c in what_if["combatants"] if c["name"] == "Orc")
    assert orc["hits_left"] == 0 and orc["damage"] == 30
