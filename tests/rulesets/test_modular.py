"""Every rule of the modular ruleset (shared/rules/modular.md, Combat Rules), one test or more each.

Each test is named after the rule and cites the paragraph of the rules text it checks.
Refusals check the exact message and that nothing was appended. The usual fight: Hauser
(Agility 47: Speed 50, dodge class 13) rolls 40 for initiative 87, Mira (Agility 35:
Speed 45) rolls 20 for 55, the Orc (Agility 20: Speed 40, dodge class 10) rolls 30 for 50.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

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
from skirmish.eventlog.errors import BadInput, SkirmishError
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Event, Term
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.rulesets.modular.events import (
    ActionTaken,
    EvadeEnded,
    Moved,
    ReadyResolved,
    RoundEnded,
    RoundStarted,
    TurnStarted,
    UpkeepTick,
)
from skirmish.projections.rulesets.modular.view import ModularClock, ReadyFigures
from skirmish.projections.view import Budget, Gauge, Pending
from skirmish.projections.text.words import event_line

from support.cli import Cli, start
from support.encounter import combatant, do, effects, one, refused, who
from support.fight import fight as new_fight

DICE = {"Hauser": (40,), "Mira": (20,), "Orc": (30,)}
STATS = {
    "Hauser": {"agility": "47", "dodge": "13", "health": "30"},
    "Mira": {"agility": "35", "dodge": "12", "health": "20"},
    "Orc": {"agility": "20", "dodge": "10", "health": "25"},
}
R = "modular.md, Combat Rules"


# --- helpers -----------------------------------------------------------------------------------


def fight(store: Store, names: tuple[str, ...] = ("Hauser", "Mira", "Orc"), **options: str) -> Encounter:
    """The shared fight cast by name (the Orc a foe); `names` is a tuple, not a cast."""
    return new_fight(store, *((n, "foes" if n == "Orc" else "players", STATS[n]) for n in names), rules="modular",
                     cast=(), **options)


def new_round(enc: Encounter, rolls: dict[str, tuple[int, ...]] | None = None) -> list[Event]:
    """A round with the usual dice for whoever of the usual fight is there."""
    if rolls is None:
        present = {c.name for c in enc.view().combatants}
        rolls = {name: faces for name, faces in DICE.items() if name in present}
    return do(enc, StartRound(rolls=rolls))


def act(enc: Encounter, name: str, action: str, **fields: Any) -> list[Event]:
    return do(enc, Declare(who=name, action=action, **fields))


def to_turn(enc: Encounter, name: str) -> None:
    while enc.view().clock.now != (name,):
        do(enc, Next())


# --- worked examples -------------------------------------------------------------------------


@pytest.mark.parametrize(("agility", "speed"), [(0, 30), (9, 30), (10, 35), (47, 50), (99, 75), (100, 80)])
def test_speed_worked_example(memory_store: Store, agility: int, speed: int) -> None:
    """Combat Rules: Speed = 30 + (5 * floor(Agility / 10))."""
    enc = start(memory_store, "modular")
    do(enc, AddCombatant(name="Runner", stats={"agility": str(agility), "dodge": "10", "health": "10"}))
    assert who(enc, "Runner").speed == speed
    derived = one(new_round(enc, {}), RoundStarted).initiatives[0].speed
    assert derived is not None and (derived.value, derived.rule) == (speed, f"{R}, Speed")
    assert derived.terms == (Term("base", 30), Term("5 x floor(Agility / 10)", speed - 30))
    dash = one(act(enc, "Runner", "dash"), ActionTaken).movement
    assert dash is not None and dash.value == 2 * speed
    assert dash.terms == (Term("Speed", speed),)


@pytest.mark.parametrize(("dodge", "evading"), [(13, 19), (10, 15), (7, 10), (0, 0)])
def test_evade_worked_example(memory_store: Store, dodge: int, evading: int) -> None:
    """Combat Rules, Evade: Evade Dodge Class = Dodge Class + floor(Dodge Class / 2)."""
    enc = start(memory_store, "modular")
    do(enc, AddCombatant(name="Dodger", stats={"agility": "10", "dodge": str(dodge), "health": "10"}))
    new_round(enc, {})
    taken = one(act(enc, "Dodger", "evade"), ActionTaken)
    assert taken.dodge is not None and taken.dodge.value == evading
    assert taken.dodge.terms == (Term("dodge class", dodge), Term("floor(dodge class / 2)", dodge // 2))
    assert taken.dodge.rule == f"{R}, Evade"
    assert who(enc, "Dodger").dodge_class == evading


# --- Speed and initiative ------------------------------------------------------------------------


def test_speed_override_for_quirks_and_perks(cli: Cli) -> None:
    """Combat Rules, Speed: subject to quirks and perks, given as a stat of at least 5 feet."""
    cli.ok("new", "Yard", "--rules", "modular")
    cli.ok("add", "Quick", "--stat", "agility=10", "--stat", "dodge=10", "--stat", "health=9", "--stat", "speed=45")
    assert cli.fails("add", "Slow", "--stat", "agility=10", "--stat", "dodge=10", "--stat", "health=9",
                     "--stat", "speed=0") == "Error: stat speed of Slow must be at least 5, not 0"
    cli.ok("round")
    assert "Quick takes dash as the primary action: movement 90 ft this round" in cli.ok("declare", "Quick", "dash")


def test_initiative_is_1d100_plus_agility(memory_store: Store) -> None:
    """Combat Rules, Initiative: 1d100 + Agility, subject to quirks and perks; typed dice are the GM's."""
    enc = fight(memory_store, ("Hauser",))
    do(enc, AddCombatant(name="Lucky", stats={"agility": "5", "dodge": "5", "health": "5", "init-bonus": "10"}))
    started = one(new_round(enc, {"Hauser": (40,)}), RoundStarted)
    inits = {i.who: i.value for i in started.initiatives}
    assert inits["Hauser"].value == 87
    assert inits["Hauser"].terms == (Term("1d100", 40), Term("Agility", 47), Term("quirks and perks", 0))
    assert inits["Hauser"].roll is not None and inits["Hauser"].roll.source == "gm"
    assert inits["Hauser"].rule == f"{R}, Initiative"
    lucky = inits["Lucky"]
    assert lucky.roll is not None and lucky.roll.source == "tool" and 1 <= lucky.roll.total <= 100
    assert lucky.value == lucky.roll.total + 15


@pytest.mark.parametrize("faces", ["0", "101", "40,2"])
def test_initiative_dice_out_of_range_are_refused(cli: Cli, faces: str) -> None:
    """Combat Rules, Initiative: one d100, faces 1 to 100."""
    cli.ok("new", "Yard", "--rules", "modular")
    cli.ok("add", "Hauser", "--stat", "agility=47", "--stat", "dodge=13", "--stat", "health=30")
    assert cli.fails("round", "--roll", f"Hauser={faces}") == (
        f"Error: 1d100 for Hauser takes 1 faces from 1 to 100, not {faces}")
    assert json.loads(cli.ok("state", "--json"))["clock"]["round"] == 0


def test_greatest_initiative_goes_first_and_next_walks_the_turns(memory_store: Store) -> None:
    """Combat Rules, Initiative: ordered from greatest to least; `next` passes the turn on."""
    enc = fight(memory_store)
    events = new_round(enc)
    assert one(events, RoundStarted).order == ("Hauser", "Mira", "Orc")
    assert one(events, TurnStarted).who == "Hauser"
    clock = enc.view().clock
    assert (clock.round, clock.running, clock.moment, clock.now, clock.next) == (
        1, True, "Hauser's turn", ("Hauser",), ("Mira",))
    assert clock.own == ModularClock(order="Hauser 87, Mira 55, Orc 50", combat_over=False)
    assert [c.name for c in enc.view().combatants] == ["Hauser", "Mira", "Orc"]
    assert [c.name for c in enc.view().combatants if c.acting] == ["Hauser"]
    assert one(do(enc, Next()), TurnStarted).who == "Mira"
    assert one(do(enc, Next()), TurnStarted).who == "Orc"
    # The last turn: nobody after the Orc this round.
    assert (enc.view().clock.now, enc.view().clock.next) == (("Orc",), ())
    assert one(do(enc, Next()), RoundEnded).round == 1
    clock = enc.view().clock
    assert (clock.running, clock.moment, clock.now, clock.next) == (False, "after round 1", (), ())


def test_initiative_is_rerolled_every_round(memory_store: Store) -> None:
    """Combat Rules, Initiative: rerolled each round."""
    enc = fight(memory_store)
    new_round(enc)
    to_turn(enc, "Orc")
    do(enc, Next())
    started = one(new_round(enc, {"Hauser": (1,), "Mira": (10,), "Orc": (90,)}), RoundStarted)
    assert started.round == 2 and started.order == ("Orc", "Hauser", "Mira")
    # 90 + 20 = 110, 1 + 47 = 48, 10 + 35 = 45: acting order, greatest first.
    assert [(c.name, c.own.initiative) for c in enc.view().combatants] == [
        ("Orc", 110), ("Hauser", 48), ("Mira", 45)]


def test_initiative_ties_go_to_higher_agility_by_default(memory_store: Store) -> None:
    """Open point (rules/README.md): ties. Default initiative-ties=agility, recorded in the first event."""
    enc = fight(memory_store)
    events = new_round(enc, {"Hauser": (8,), "Mira": (20,), "Orc": (35,)})  # 55, 55, 55
    started = one(events, RoundStarted)
    assert started.order == ("Hauser", "Mira", "Orc") and started.ties == ()
    assert enc.path(enc.head().event_id)[0].event.options["initiative-ties"] == "agility"  # type: ignore[attr-defined]
    assert "ties: initiative-ties=agility" in event_line(enc, enc.path(enc.head().event_id)[-2])


def test_initiative_ties_of_equal_agility_roll_off(memory_store: Store) -> None:
    """Open point: still tied on Agility, the tied roll 1d100 off, higher first (typed as tie:NAME)."""
    enc = start(memory_store, "modular")
    for name in ("Castor", "Pollux"):
        do(enc, AddCombatant(name=name, stats={"agility": "30", "dodge": "10", "health": "10"}))
    started = one(new_round(enc, {"Castor": (50,), "Pollux": (50,), "tie:Castor": (12,), "tie:Pollux": (77,)}),
                  RoundStarted)
    assert started.order == ("Pollux", "Castor")
    assert [(t.who, t.attempt, t.roll.total, t.roll.source) for t in started.ties] == [
        ("Castor", 1, 12, "gm"), ("Pollux", 1, 77, "gm")]


def test_initiative_ties_roll_off_option_ignores_agility(memory_store: Store) -> None:
    """Open point: initiative-ties=roll-off settles every tie with the dice alone."""
    enc = fight(memory_store, ("Hauser", "Orc"), **{"initiative-ties": "roll-off"})
    rolls = {"Hauser": (13,), "Orc": (40,), "tie:Hauser": (5,), "tie:Orc": (6,)}
    assert one(new_round(enc, rolls), RoundStarted).order == ("Orc", "Hauser")


def test_acting_out_of_turn_is_refused(memory_store: Store) -> None:
    """Combat Rules: each actor performs its actions on its own turn."""
    enc = fight(memory_store)
    refused(enc, Declare(who="Orc", action="skill"), RuleViolation,
            f"no round under way: start one with `skirmish round` ({R}, Initiative)")
    new_round(enc)
    refused(enc, Declare(who="Orc", action="skill"), RuleViolation,
            f"not Orc's turn: it is Hauser's turn ({R}, Turn)")


def test_a_combatant_added_during_a_round_acts_from_the_next(memory_store: Store) -> None:
    """Combat Rules, Initiative: rolled at the start of each round, so a latecomer waits for one."""
    enc = fight(memory_store, ("Hauser",))
    new_round(enc)
    do(enc, AddCombatant(name="Orc", stats=STATS["Orc"]))
    assert who(enc, "Orc").initiative is None and who(enc, "Orc").may_still == "-"
    assert one(do(enc, Next()), RoundEnded).round == 1
    assert set(one(new_round(enc), RoundStarted).order) == {"Hauser", "Orc"}


# --- Movement -------------------------------------------------------------------------------------


def test_movement_up_to_speed_split_between_actions(memory_store: Store) -> None:
    """Combat Rules, Movement: up to Speed a round, at any point, broken up between actions."""
    enc = fight(memory_store)
    new_round(enc)
    left = one(act(enc, "Hauser", "move", amount=20), Moved).left
    assert left.value == 30 and left.rule == f"{R}, Movement"
    assert left.terms == (Term("movement this round", 50), Term("moved before", 0), Term("held for a Ready", 0),
                          Term("this move", -20))
    act(enc, "Hauser", "skill", target="Orc")
    assert one(act(enc, "Hauser", "move", amount=30), Moved).left.value == 0
    refused(enc, Declare(who="Hauser", action="move", amount=5), RuleViolation,
            f"Hauser has 0 ft of movement left, not 5 ({R}, Movement)")
    assert (who(enc, "Hauser").feet_moved, who(enc, "Hauser").feet_left) == (50, 0)


def test_move_needs_feet(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, Declare(who="Hauser", action="move"), BadInput,
            "a move needs the feet moved, 1 or more (--amount FEET), not None")


def test_difficult_terrain_costs_double(cli: Cli) -> None:
    """Combat Rules, Movement: difficult terrain costs twice as much speed."""
    cli.ok("new", "Bog", "--rules", "modular")
    cli.ok("add", "Orc", "--stat", "agility=20", "--stat", "dodge=10", "--stat", "health=25")
    cli.ok("round")
    out = cli.ok("declare", "Orc", "move", "--amount", "15", "--with", "terrain=difficult")
    assert "Orc moves 15 ft through difficult terrain (30 ft of movement), 10 ft left" in out
    assert cli.fails("declare", "Orc", "move", "--amount", "10", "--with", "terrain=difficult") == (
        f"Error: Orc has 10 ft of movement left, not 20 ({R}, Difficult terrain)")
    cli.ok("declare", "Orc", "move", "--amount", "10")
    moved = [json.loads(line) for line in cli.ok("log", "--json").splitlines() if "modular.moved" in line]
    assert moved[0]["cost"]["formula"] == "feet x 2 (difficult terrain)" and moved[0]["cost"]["value"] == 30


# --- Action slots -------------------------------------------------------------------------------


@pytest.mark.parametrize(("first", "second", "slot", "rule"), [
    ("skill", "dash", "primary", "Dash"),
    ("evade", "skill", "primary", "Primary actions"),
    ("retrieve-item", "use-item", "secondary", "Secondary actions"),
    ("five-foot-step", "secondary-skill", "secondary", "Secondary actions"),
    ("drop-item", "tertiary-skill", "tertiary", "Tertiary actions"),
])
def test_one_action_of_each_kind_a_turn(memory_store: Store, first: str, second: str, slot: str, rule: str) -> None:
    """Combat Rules: a turn is movement plus one primary, one secondary and one tertiary action."""
    enc = fight(memory_store)
    new_round(enc)
    act(enc, "Hauser", first)
    refused(enc, Declare(who="Hauser", action=second), RuleViolation,
            f"Hauser already took a {slot} action this turn ({first}), not {second} ({R}, {rule})")


def test_all_three_slots_and_movement_in_one_turn(memory_store: Store) -> None:
    """Combat Rules: the four parts of a turn together; state shows what is left."""
    enc = fight(memory_store)
    new_round(enc)
    assert who(enc, "Hauser").may_still == "move 50 ft, primary, secondary, tertiary"
    act(enc, "Hauser", "retrieve-item")
    act(enc, "Hauser", "skill", target="Orc", details={"skill": "sword"})
    assert who(enc, "Hauser").may_still == "move 50 ft, tertiary"
    act(enc, "Hauser", "drop-item")
    act(enc, "Hauser", "move", amount=50)
    row = who(enc, "Hauser")
    # Turn: one primary, one secondary, one tertiary: all three spent, none left of 3.
    assert row.may_still == "nothing" and combatant(enc, "Hauser").budget == Budget(name="slots", left=0, of=3)
    assert (row.primary, row.secondary, row.tertiary) == ("skill", "retrieve-item", "drop-item")
    assert who(enc, "Mira").may_still == "move 45 ft, primary, secondary, tertiary"
    do(enc, Next())
    assert who(enc, "Hauser").may_still == "-"  # his turn is over


def test_unknown_action_is_refused(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, Declare(who="Hauser", action="sprint"), BadInput,
            "no action 'sprint' in modular (known: move, skill, dash, evade, ready, secondary-skill, five-foot-step, "
            "retrieve-item, stash-item, use-item, tertiary-skill, drop-item)")
    # Combat Rules, Turn: movement plus one primary, one secondary and one tertiary action: no AP.
    refused(enc, Declare(who="Hauser", action="skill", details={"ap": "2"}), BadInput,
            "modular `declare` has no detail 'ap' (it takes: terrain, skill, then, else)")
    refused(enc, Resolve(who="Hauser", hits=4), BadInput,
            "modular `resolve` takes no --hits (it takes: --outcome)")
    refused(enc, ApplyEffect(who="Hauser", kind="prone", per_round=2), BadInput,
            "modular `effect` takes no --per-round (it takes: --rounds, --end)")


def test_dash_doubles_the_rounds_movement(memory_store: Store) -> None:
    """Combat Rules, Dash: a second movement, double Speed in the round; earlier movement counts."""
    enc = fight(memory_store)
    new_round(enc)
    act(enc, "Hauser", "move", amount=30)
    taken = one(act(enc, "Hauser", "dash"), ActionTaken)
    assert taken.movement is not None and (taken.movement.value, taken.movement.rule) == (100, f"{R}, Dash")
    assert who(enc, "Hauser").feet_left == 70
    act(enc, "Hauser", "move", amount=70)
    refused(enc, Declare(who="Hauser", action="move", amount=5), RuleViolation,
            f"Hauser has 0 ft of movement left, not 5 ({R}, Movement)")


def test_five_foot_step_is_not_movement_and_leaves_dash_alone(memory_store: Store) -> None:
    """Combat Rules, Five Foot Step: a secondary action, not movement for Dash, movement untouched."""
    enc = fight(memory_store)
    new_round(enc)
    taken = one(act(enc, "Hauser", "five-foot-step"), ActionTaken)
    assert (taken.slot, taken.rule) == ("secondary", f"{R}, Five Foot Step")
    assert (who(enc, "Hauser").feet_moved, who(enc, "Hauser").feet_left) == (0, 50)
    act(enc, "Hauser", "dash")
    assert who(enc, "Hauser").feet_left == 100


def test_secondary_list_option_reads_the_typo_literally(memory_store: Store) -> None:
    """Open point: the list under Secondary actions is introduced as primary options.
    Default secondary-list=secondary; secondary-list=primary puts them in the primary slot."""
    enc = fight(memory_store, **{"secondary-list": "primary"})
    new_round(enc)
    taken = one(act(enc, "Hauser", "use-item"), ActionTaken)
    assert taken.slot == "primary"
    refused(enc, Declare(who="Hauser", action="skill"), RuleViolation,
            f"Hauser already took a primary action this turn (use-item), not skill ({R}, Primary actions)")
    act(enc, "Hauser", "secondary-skill")


# --- Evade ----------------------------------------------------------------------------------------


def test_evade_lasts_until_the_actors_next_turn(memory_store: Store) -> None:
    """Combat Rules, Evade: until the actor's next turn; derived from events, so undo restores it."""
    enc = fight(memory_store)
    new_round(enc)
    to_turn(enc, "Orc")
    act(enc, "Orc", "evade")
    do(enc, Next())
    assert who(enc, "Orc").dodge_class == 15  # through the upkeep
    new_round(enc)  # Hauser 87, Mira 55, Orc 50 again: the Orc's Evade holds through both turns
    do(enc, Next())
    assert effects(enc, "Orc") == [("evading", None)]
    ended = do(enc, Next())
    assert one(ended, EvadeEnded).reason == "Orc's next turn" and one(ended, TurnStarted).who == "Orc"
    assert who(enc, "Orc").dodge_class == 10 and effects(enc, "Orc") == []
    enc.undo(1, "undo")
    assert who(enc, "Orc").dodge_class == 15


def test_evade_ends_when_combat_ends(cli: Cli) -> None:
    """Combat Rules, Evade: or until combat ends (`upkeep --with combat=over`); no round after it."""
    cli.ok("new", "Yard", "--rules", "modular")
    cli.ok("add", "Orc", "--stat", "agility=20", "--stat", "dodge=10", "--stat", "health=25")
    cli.ok("round")
    cli.ok("declare", "Orc", "evade")
    cli.ok("next")
    out = cli.ok("upkeep", "--with", "combat=over")
    assert "Orc's Evade ends (the combat is over)" in out and "the combat is over" in out
    view = json.loads(cli.ok("state", "--json"))
    assert view["clock"]["own"]["combat_over"] is True and view["combatants"][0]["own"]["dodge_class"] == 10
    assert view["clock"]["moment"] == "the combat is over"
    assert cli.fails("round") == f"Error: the combat is over: no more rounds ({R})"


def test_the_combat_can_end_mid_round(memory_store: Store) -> None:
    """Combat Rules, Evade and Ready: whatever lasts until combat ends, ends with it, even mid-round."""
    enc = fight(memory_store)
    new_round(enc)
    act(enc, "Hauser", "evade")
    do(enc, Next())
    ready(enc, "Mira", "skill", "evade")
    events = do(enc, Upkeep(details={"combat": "over"}))
    assert [type(e).__name__ for e in events] == ["EvadeEnded", "ReadyCancelled", "RoundEnded"]
    assert enc.view().pending == () and who(enc, "Hauser").dodge_class == 13
    refused(enc, Upkeep(details={"combat": "over"}), RuleViolation, f"the combat is over ({R})")


def test_skill_names_go_with_skill_checks(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, Declare(who="Hauser", action="dash", details={"skill": "athletics"}), BadInput,
            "--with skill= names the skill of a skill check, not of dash")
    taken = one(act(enc, "Hauser", "tertiary-skill", details={"skill": "shout"}), ActionTaken)
    assert (taken.skill, taken.slot) == ("shout", "tertiary")


# --- Ready ----------------------------------------------------------------------------------------


def ready(enc: Encounter, name: str, then: str, otherwise: str, trigger: str = "the Orc charges") -> list[Event]:
    return act(enc, name, "ready", trigger=trigger, details={"then": then, "else": otherwise})


@pytest.mark.parametrize(("then", "otherwise", "error", "message"), [
    ("skill", None, BadInput, "ready needs both courses of play: --with then=COURSE --with else=COURSE"),
    ("drop-item+move", "skill", RuleViolation,
     f"each course of play needs one primary action: 'drop-item+move' has none ({R}, Ready)"),
    ("skill+dash", "skill", RuleViolation,
     f"a course of play has at most one primary action: skill and dash ({R}, Ready)"),
    ("skill", "evade+use-item+stash-item", RuleViolation,
     f"a course of play has at most one secondary action: use-item and stash-item ({R}, Ready)"),
    ("ready", "skill", RuleViolation, f"a course of play cannot itself be a Ready ({R}, Ready)"),
    ("skill+move+move", "skill", RuleViolation,
     f"a course of play takes Hauser's remaining movement once, and only if some is left (50 ft) ({R}, Ready)"),
    ("skill+dahs", "skill", BadInput, "no action 'dahs' for a course of play (did you mean dash?)"),
])
def test_ready_courses_have_one_primary_and_at_most_one_of_the_rest(
    memory_store: Store, then: str, otherwise: str | None, error: type[SkirmishError], message: str
) -> None:
    """Combat Rules, Ready: each course has one primary, may add a secondary, a tertiary and movement."""
    enc = fight(memory_store)
    new_round(enc)
    details = {"then": then} | ({"else": otherwise} if otherwise else {})
    refused(enc, Declare(who="Hauser", action="ready", trigger="x", details=details), error, message)


def test_ready_courses_only_use_what_was_not_used_before(memory_store: Store) -> None:
    """Combat Rules, Ready: secondary, tertiary and movement only if not used prior to taking Ready."""
    enc = fight(memory_store)
    new_round(enc)
    act(enc, "Hauser", "use-item")
    act(enc, "Hauser", "move", amount=50)
    refused(enc, Declare(who="Hauser", action="ready", trigger="x", details={"then": "skill+stash-item", "else": "evade"}),
            RuleViolation, f"Hauser already used the secondary action (use-item) before Ready ({R}, Ready)")
    refused(enc, Declare(who="Hauser", action="ready", trigger="x", details={"then": "skill+move", "else": "evade"}),
            RuleViolation,
            f"a course of play takes Hauser's remaining movement once, and only if some is left (0 ft) ({R}, Ready)")
    refused(enc, Declare(who="Hauser", action="ready", details={"then": "skill", "else": "evade"}), BadInput,
            "--trigger, --with then= and --with else= go with ready only")


def test_ready_holds_the_slots_and_movement_its_courses_name(memory_store: Store) -> None:
    """Combat Rules, Ready: the courses carry the secondary, tertiary and remaining movement."""
    enc = fight(memory_store)
    new_round(enc)
    act(enc, "Hauser", "move", amount=20)
    ready(enc, "Hauser", "skill+drop-item+move", "evade")
    row = who(enc, "Hauser")
    assert (row.primary, row.tertiary, row.secondary, row.feet_left) == ("ready", "ready", None, 0)
    assert enc.view().pending == (Pending(
        who="Hauser", action="ready", resolves="on trigger: the Orc charges",
        own=ReadyFigures(then="skill+drop-item+move", otherwise="evade", feet_held=30, declared_round=1),
    ),)
    refused(enc, Declare(who="Hauser", action="drop-item"), RuleViolation,
            f"Hauser already took a tertiary action this turn (ready (held for a Ready)), not drop-item "
            f"({R}, Tertiary actions)")
    refused(enc, Declare(who="Hauser", action="move", amount=5), RuleViolation,
            f"Hauser has 0 ft of movement left (30 ft held for a Ready), not 5 ({R}, Movement)")
    act(enc, "Hauser", "stash-item")  # the secondary is still his


def test_ready_fires_when_the_gm_records_the_trigger(memory_store: Store) -> None:
    """Combat Rules, Ready: when the trigger occurs, the course happens at that instant, in any turn."""
    enc = fight(memory_store)
    new_round(enc)
    act(enc, "Hauser", "move", amount=20)
    ready(enc, "Hauser", "skill+move", "evade")
    to_turn(enc, "Orc")
    act(enc, "Orc", "move", amount=30)
    refused(enc, Resolve(who="Hauser", details={"feet": "35"}), RuleViolation,
            f"Hauser's course skill+move may move 30 ft, not 35 ({R}, Ready)")
    fired = one(do(enc, Resolve(who="Hauser", outcome="cuts the Orc down", details={"feet": "10"})), ReadyResolved)
    assert (fired.course, fired.played.words(), fired.feet and fired.feet.value) == ("triggered", "skill+move", 10)
    assert enc.view().pending == () and enc.view().clock.now == ("Orc",)
    refused(enc, Resolve(who="Hauser"), RuleViolation,
            f"Hauser has no Ready pending: modular actions take effect when declared ({R}, Ready)")


def test_ready_not_triggered_is_prompted_before_the_actors_next_turn(cli: Cli) -> None:
    """Combat Rules, Ready: the other course must happen before the actor's next turn; the tool says so."""
    cli.ok("new", "Yard", "--rules", "modular")
    for name in ("Hauser", "Orc"):
        cli.ok("add", name, *[w for k, v in STATS[name].items() for w in ("--stat", f"{k}={v}")])
    cli.ok("round", "--roll", "Hauser=40", "--roll", "Orc=30")
    cli.ok("declare", "Hauser", "ready", "--trigger", "the Orc charges", "--with", "then=skill",
           "--with", "else=dash+move")
    cli.ok("next")
    cli.ok("next")
    # Round 2: the Orc goes first, then Hauser: his Ready may still fire during the Orc's turn.
    cli.ok("round", "--roll", "Hauser=1", "--roll", "Orc=90")
    assert cli.fails("next") == (
        "Error: Hauser's Ready did not trigger before Hauser's next turn: play its other course first, "
        f"`skirmish resolve Hauser --with course=untriggered` ({R}, Ready)")
    out = cli.ok("resolve", "Hauser", "--with", "course=untriggered", "--with", "feet=90")
    assert "Hauser's Ready plays its untriggered course: dash+move, moves 90 ft" in out
    assert "Hauser's turn" in cli.ok("next")
    view = json.loads(cli.ok("state", "--json"))
    assert view["clock"]["now"] == ["Hauser"] and view["pending"] == []
    assert next(c for c in view["combatants"] if c["name"] == "Hauser")["own"]["may_still"] == (
        "move 50 ft, primary, secondary, tertiary")


def test_ready_prompt_also_stops_a_round_that_starts_with_the_actor(memory_store: Store) -> None:
    """Combat Rules, Ready: a round whose first turn is the readied actor's waits for the other course."""
    enc = fight(memory_store, ("Hauser", "Orc"))
    new_round(enc)
    ready(enc, "Hauser", "skill", "evade")
    do(enc, Next())
    do(enc, Next())
    refused(enc, StartRound(rolls={"Hauser": (40,), "Orc": (30,)}), RuleViolation,
            "Hauser's Ready did not trigger before Hauser's next turn: play its other course first, "
            f"`skirmish resolve Hauser --with course=untriggered` ({R}, Ready)")
    resolved = one(do(enc, Resolve(who="Hauser", details={"course": "untriggered"})), ReadyResolved)
    assert resolved.dodge is not None and resolved.dodge.value == 19
    events = new_round(enc)
    assert one(events, EvadeEnded).who == "Hauser"  # the course's Evade ends as his turn starts


def test_cancel_drops_a_ready(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, Cancel(who="Hauser"), RuleViolation, f"Hauser has no Ready pending to cancel ({R}, Ready)")
    ready(enc, "Hauser", "skill", "evade")
    do(enc, Cancel(who="Hauser"))
    assert enc.view().pending == () and who(enc, "Hauser").primary == "ready"


# --- Upkeep, damage ---------------------------------------------------------------------------


def test_next_after_the_last_turn_runs_the_upkeep(memory_store: Store) -> None:
    """The end of the round: timed effects lose a round each, one event per tick."""
    enc = fight(memory_store)
    do(enc, ApplyEffect(who="Orc", kind="prone", rounds=2, custom=True))  # the text names no conditions
    do(enc, ApplyEffect(who="Mira", kind="blinded", rounds=1, custom=True))
    new_round(enc)
    refused(enc, Upkeep(), RuleViolation,
            f"round 1 has turns left (Mira, Orc): `skirmish next` to reach its end ({R}, Turn)")
    to_turn(enc, "Orc")
    events = do(enc, Next())
    assert [(t.who, t.effect, t.rounds_left, t.removed) for t in events if isinstance(t, UpkeepTick)] == [
        ("Mira", "blinded", 0, True), ("Orc", "prone", 1, False)]
    assert isinstance(events[-1], RoundEnded)
    assert effects(enc, "Orc") == [("prone", 1)]
    assert effects(enc, "Mira") == []
    enc.undo(1, "undo")
    assert effects(enc, "Mira") == [("blinded", 1)]


def test_damage_lowers_health(memory_store: Store) -> None:
    """Reading where the text is silent: health, lowered by the damage the GM reads off the tables."""
    enc = fight(memory_store)
    do(enc, Damage(who="orc", amount=9))
    assert who(enc, "Orc").damage == 9
    assert combatant(enc, "Orc").vital == Gauge(name="health left", value=16, maximum=25)
    refused(enc, Damage(who="Orc", amount=0), BadInput, "damage must be at least 1, not 0")


def test_rules_lists_the_options_and_actions(cli: Cli) -> None:
    out = cli.ok("rules", "modular")
    assert "initiative-ties=agility|roll-off (default agility)" in out
    assert "secondary-list=secondary|primary (default secondary)" in out
    assert "five-foot-step (secondary, see option secondary-list)" in out


# --- the sample -------------------------------------------------------------------------------


SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "courtyard-brawl.skirmish"


def test_courtyard_brawl_ends_as_its_comments_say(cli: Cli) -> None:
    cli.ok("run", str(SAMPLE))
    out = cli.out
    assert "Round 1 begins: initiative Hauser 87, Mira 55, Orc 55; ties: initiative-ties=agility" in out
    assert "Orc takes evade as the primary action: dodge class 15 until the next turn" in out
    assert "Orc moves 10 ft through difficult terrain (20 ft of movement), 20 ft left" in out
    assert "Mira's Ready plays its triggered course: skill+move, moves 15 ft: hits the Orc" in out
    assert "Orc's Evade ends (Orc's next turn)" in out
    assert "Upkeep: Hauser's prone ends" in out
    view = json.loads(cli.ok("state", "--json"))
    assert view["clock"]["round"] == 2 and view["branch"] == "main" and view["clock"]["running"] is False
    figures = {c["name"]: c for c in view["combatants"]}
    # The 16 typed by mistake was undone: the Orc took 6 + 8 of its 25.
    assert figures["Orc"]["vital"] == {"name": "health left", "value": 11, "maximum": 25}
    assert figures["Hauser"]["effects"] == []
    assert "Orc takes 16 damage (9 health left)  (undone)" in cli.ok("log", "--all")
    branches = {b["name"]: b for b in json.loads(cli.ok("branches", "--json"))}
    assert set(branches) == {"main", "what-if"}
    what_if = json.loads(cli.ok("state", "--json", "--at", str(branches["what-if"]["head"])))
    orc = next(c for c in what_if["combatants"] if c["name"] == "Orc")
    assert orc["own"]["primary"] == "dash" and orc["own"]["movement"] == 80


# --- down, healed, gone and back (goes-down; leave and return) -------------------------------


def test_a_fight_where_the_orc_goes_down_is_healed_and_mira_leaves_and_returns(memory_store: Store) -> None:
    """The text gives no health, so going down is the goes-down option (at 0 by default).
    Round 1: Hauser 87, Mira 55, the Orc 55 (Mira first on Agility). Mira readies; the
    Orc (25 health) takes 25: down, its turn is passed by; Mira takes 20 of her 20: down,
    her Ready dropped."""
    from skirmish.eventlog.commands import Heal, Leave, Return
    from skirmish.projections.rulesets.modular.events import ReadyCancelled

    enc = fight(memory_store)
    new_round(enc)
    assert enc.view().clock.now == ("Hauser",)
    do(enc, Damage(who="Orc", amount=25))
    view = enc.view()
    assert view.combatant("Orc").status == "down" and view.combatants[-1].name == "Orc"
    do(enc, Next())  # Mira's turn
    act(enc, "Mira", "ready", trigger="the Orc stands", details={"then": "skill", "else": "evade"})
    assert enc.view().clock.next == (), "the Orc is down: nobody acts after Mira"
    events = do(enc, Damage(who="Mira", amount=20))
    assert one(events, ReadyCancelled).reason == "Mira is down (0 health left, option goes-down=at-0)"
    refused(enc, Declare(who="Orc", action="skill"), RuleViolation,
            "Orc is down (0 health left, option goes-down=at-0): it cannot act")
    do(enc, Next())  # the Orc's turn is passed by: the round ends
    assert not enc.view().clock.running
    do(enc, Heal(who="Orc", amount=10))
    assert (combatant(enc, "Orc").status, combatant(enc, "Orc").vital.value) == ("fighting", 10)
    refused(enc, Heal(who="Hauser", amount=1), RuleViolation, "Hauser has all its 30 health: nothing to heal")
    # Round 2: Mira is down and rolls no initiative; Hauser 87, the Orc 55.
    started = one(new_round(enc, {"Hauser": (40,), "Orc": (35,)}), RoundStarted)
    assert started.order == ("Hauser", "Orc")
    do(enc, Leave(who="Hauser", reason="runs for help"))
    assert combatant(enc, "Hauser").status == "left"
    do(enc, Next())
    assert enc.view().clock.now == ("Orc",)
    do(enc, Return(who="Hauser"))
    do(enc, Next())  # the round ends; Hauser acts again from the next one
    assert one(new_round(enc, {"Hauser": (40,), "Orc": (35,)}), RoundStarted).order == ("Hauser", "Orc")
    enc.undo(1, "undo")
    assert not enc.view().clock.running


@pytest.mark.parametrize(("rule", "damage", "down"), [
    ("at-0", 25, True), ("at-0", 24, False), ("below-0", 25, False), ("below-0", 26, True), ("never", 90, False),
])
def test_the_goes_down_option(memory_store: Store, rule: str, damage: int, down: bool) -> None:
    enc = fight(memory_store, **{"goes-down": rule})
    do(enc, Damage(who="Orc", amount=damage))
    assert (combatant(enc, "Orc").status == "down") is down


def test_every_effect_is_the_gms_own_and_a_typo_of_one_in_use_is_caught(memory_store: Store) -> None:
    enc = fight(memory_store)
    refused(enc, ApplyEffect(who="Orc", kind="prone", rounds=1), BadInput,
            "no effect 'prone' in modular; --custom records it as your own")
    do(enc, ApplyEffect(who="Orc", kind="prone", rounds=1, custom=True))
    assert [(e.kind, e.custom) for e in combatant(enc, "Orc").effects] == [("prone", True)]
    refused(enc, ApplyEffect(who="Mira", kind="prnoe", rounds=1), BadInput,
            "no effect 'prnoe' in modular: did you mean prone? (--custom records it as your own)")
    do(enc, ApplyEffect(who="Mira", kind="prone", rounds=1))  # on the table already: no --custom needed
