"""Every rule of the percent-activity ruleset (shared/rules/percent-activity.md), one test or more each.

Each test is named after the rule and cites the section of the rules text it checks.
Refusals check the exact message and that nothing was appended. The usual fight:
Hauser (Qu +1, 40 hits) rolls 6 + 8, initiative 15; the Orc (Qu 0, 30 hits) rolls
5 + 5, initiative 10. Hauser acts first.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

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
)
from skirmish.eventlog.errors import BadInput, SkirmishError
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Event, Term
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.ruleset import Dice
from skirmish.projections.rulesets.percent_activity.events import (
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
from skirmish.projections.rulesets.percent_activity.view import PaClock, PaFigures, PaPending
from skirmish.projections.view import (
    VIEW_VERSION,
    Budget,
    Clock,
    Effect,
    Gauge,
    NoOwn,
    Pending,
    Shown,
)
from skirmish.projections.view import figures as own_figures

from support.cli import Cli, start

# The generic encounter helpers (run a command, refuse one exactly, read a combatant's row).
from support.encounter import combatant, do, effects, one, pending, refused, who
from support.fight import fight as new_fight

DICE = {"Hauser": (6, 8), "Orc": (5, 5)}
RULES = "percent-activity"


# --- the library side ------------------------------------------------------------------------


fight = partial(new_fight, rules=RULES)


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


def state(cli: Cli, at: int | None = None) -> Shown:
    """The typed view of the CLI's encounter, read through the library (typed, where
    `state --json` would give plain JSON)."""
    store = Store(cli.db)
    try:
        return Encounter.open(store).view(at)
    finally:
        store.close()


def figures(view: Shown, name: str) -> PaFigures:
    own = view.combatant(name).own
    assert isinstance(own, PaFigures)
    return own


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
    assert who(enc, "Hauser").initiative == 15 and who(enc, "Orc").initiative == 10


def test_initiative_is_rolled_anew_every_round(memory_store: Store) -> None:
    """Round: initiative is determined each round."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Upkeep())
    events = new_round(enc, {"Hauser": (1, 1), "Orc": (9, 9)})
    assert one(events, RoundStarted).order == ("Orc", "Hauser")
    assert who(enc, "Hauser").initiative == 3 and enc.view().clock.now == ("Orc",)


def test_tool_rolls_initiative_when_no_dice_are_typed(memory_store: Store) -> None:
    enc = fight(memory_store)
    events = new_round(enc, {})
    for init in one(events, RoundStarted).initiatives:
        assert init.value.roll is not None and init.value.roll.source == "tool"
        assert all(1 <= f <= 10 for f in init.value.roll.faces) and len(init.value.roll.faces) == 2


def test_weapon_ready_adds_4_in_the_first_round_only(cli: Cli) -> None:
    """Initiative Step: weapon ready, +4, first round of combat only."""
    cli_fight(cli)
    assert "Round 1 begins: initiative Hauser 19, Orc 10" in cli_round(cli, "--with", "ready=hauser")
    cli.ok("upkeep")
    assert cli.fails("round", "--with", "ready=Hauser") == (
        "Error: weapon ready counts in the first round of combat only (percent-activity.md, Initiative Step)"
    )


def test_surprised_takes_4(cli: Cli) -> None:
    """Initiative Step: surprised, -4."""
    cli_fight(cli)
    assert "Round 1 begins: initiative Hauser 11, Orc 10" in cli_round(cli, "--with", "surprised=Hauser")
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
    assert who(enc, "Orc").wounded is False
    assert initiative_terms(new_round(enc), "Orc")[0] == 10
    do(enc, Upkeep())
    taken = one(do(enc, Damage(who="Orc", amount=1)), DamageTaken)
    assert taken.wounded and taken.hits_left == 14
    value, terms = initiative_terms(new_round(enc), "Orc")
    assert value == 6 and Term("wounded (16 of 30 hits taken)", -4) in terms


def test_wounded_and_weapon_ready_cannot_be_typed_as_effects(memory_store: Store) -> None:
    enc = fight(memory_store)
    # Not effects of the ruleset: refused as a likely typo; marked as the GM's own, the
    # ruleset says what they are instead.
    refused(enc, ApplyEffect(who="Orc", kind="wounded"), BadInput,
            "no effect 'wounded' in percent-activity (known: bleeding, stunned-unable-to-parry, stunned, dazed, "
            "staggered, encumbered); --custom records it as your own")
    refused(enc, ApplyEffect(who="Orc", kind="wounded", custom=True), BadInput,
            "wounded is not an effect here: it is derived from the damage recorded")
    refused(enc, ApplyEffect(who="Orc", kind="surprised", rounds=1, custom=True), BadInput,
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
    clock = enc.view().clock
    assert (clock.running, clock.now, clock.own) == (True, ("Mira",), PaClock(order=("Mira", "Hauser", "Orc")))
    assert one(do(enc, Next()), TurnPassed) == TurnPassed(who="Mira", to="Hauser")
    do(enc, Next())
    assert enc.view().clock.now == ("Orc",)


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
    clock = enc.view().clock
    assert (clock.running, clock.now, clock.own) == (False, (), PaClock(order=("Hauser", "Orc")))
    refused(enc, Next(), RuleViolation, "no round under way: start one with `skirmish round` (percent-activity.md, Round)")


def test_a_round_cannot_start_while_one_is_under_way(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, StartRound(), RuleViolation,
            "round 1 is still under way: finish it with `skirmish upkeep` (percent-activity.md, Round)")


def names(enc: Encounter) -> list[str]:
    return [c.name for c in enc.view().combatants]


def test_the_clock_shows_whose_turn_it_is_and_whose_comes_next(memory_store: Store) -> None:
    """Round: "combatants take turns to perform actions, in order from highest to lowest
    initiative", and "Initiative is determined each round"; after the last turn, the upkeep."""
    enc = fight(memory_store)
    do(enc, AddCombatant(name="Mira", side="players", stats={"qu": "2", "hits": "30"}))
    assert enc.view().clock == Clock(round=0, running=False, moment="before round 1", own=PaClock())
    # Mira 10 + 10 + 2 = 22, Hauser 6 + 8 + 1 = 15, Orc 5 + 5 + 0 = 10.
    new_round(enc, {"Hauser": (6, 8), "Orc": (5, 5), "Mira": (10, 10)})
    order = PaClock(order=("Mira", "Hauser", "Orc"))
    assert enc.view().clock == Clock(
        round=1, running=True, moment="Mira's turn", now=("Mira",), next=("Hauser",), own=order,
    )
    do(enc, Next())
    assert enc.view().clock == Clock(
        round=1, running=True, moment="Hauser's turn", now=("Hauser",), next=("Orc",), own=order,
    )
    do(enc, Declare(who="Hauser", action="ranged-attack", target="Orc", trigger="the Orc moves", details={"percent": "30"}))
    do(enc, Next())
    # The last turn: no one after the Orc, the round would end.
    assert enc.view().clock == Clock(round=1, running=True, moment="Orc's turn", now=("Orc",), own=order)
    do(enc, Declare(who="Orc", action="move", details={"percent": "10"}))
    # Conditional Action: the held shot interrupts the Orc's turn; the turn stays his.
    do(enc, Resolve(who="Hauser", outcome="hit", hits=2))
    assert enc.view().clock.now == ("Orc",)
    do(enc, Next())  # the upkeep
    assert enc.view().clock == Clock(round=1, running=False, moment="between rounds", own=order)
    # Round 2, rolled anew: Orc 9 + 9 = 18, Mira 1 + 2 + 2 = 5, Hauser 1 + 1 + 1 = 3.
    new_round(enc, {"Hauser": (1, 1), "Orc": (9, 9), "Mira": (1, 2)})
    assert enc.view().clock == Clock(
        round=2, running=True, moment="Orc's turn", now=("Orc",), next=("Mira",),
        own=PaClock(order=("Orc", "Mira", "Hauser")),
    )


def test_combatants_are_listed_in_this_rounds_order_then_those_added_since(memory_store: Store) -> None:
    """Round: turns go from highest to lowest initiative, rolled each round; one who joins
    mid-round has no initiative until the next round (Initiative Step)."""
    enc = fight(memory_store)
    do(enc, AddCombatant(name="Mira", side="players", stats={"qu": "2", "hits": "30"}))
    assert names(enc) == ["Hauser", "Orc", "Mira"]  # no round yet: as added
    new_round(enc, {"Hauser": (6, 8), "Orc": (5, 5), "Mira": (10, 10)})  # 15, 10, 22
    assert names(enc) == ["Mira", "Hauser", "Orc"]
    assert [c.acting for c in enc.view().combatants] == [True, False, False]
    do(enc, AddCombatant(name="Vera", side="foes", stats={"qu": "5", "hits": "20"}))
    assert names(enc) == ["Mira", "Hauser", "Orc", "Vera"]
    do(enc, Next())
    assert [c.name for c in enc.view().combatants if c.acting] == ["Hauser"]
    do(enc, Next())
    do(enc, Next())  # the upkeep: until the next round, the last one's order
    assert names(enc) == ["Mira", "Hauser", "Orc", "Vera"]
    assert not any(c.acting for c in enc.view().combatants)
    # Vera 10 + 9 + 5 = 24, Hauser 15, Orc 10, Mira 1 + 1 + 2 = 4.
    new_round(enc, {"Hauser": (6, 8), "Orc": (5, 5), "Mira": (1, 1), "Vera": (10, 9)})
    assert names(enc) == ["Vera", "Hauser", "Orc", "Mira"]


def test_a_combatant_past_its_hits_is_down_under_the_default_table_rule(memory_store: Store) -> None:
    """Initiative Step: "Wounded (taken more than 50% of hits)" is all the text says of hits
    taken; going down is the goes-down option, at 0 hits left by default. Under
    goes-down=never nobody goes down (the earlier reading: the GM decides)."""
    enc = fight(memory_store)
    do(enc, Damage(who="Orc", amount=31))
    orc = combatant(enc, "Orc")
    assert (orc.status, orc.vital.value, who(enc, "Orc").wounded) == ("down", -1, True)
    never = fight(Store(":memory:"), **{"goes-down": "never"})
    do(never, Damage(who="Orc", amount=31))
    assert combatant(never, "Orc").status == "fighting"
    assert enc.view().standing() == {"players": ["Hauser"], "foes": []}


# --- Resolve Actions step: activity ------------------------------------------------------------


def test_a_round_gives_100_percent_activity(memory_store: Store) -> None:
    """Resolve Actions step: up to a total of 100% activity in a single round."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"percent": "70"}))
    do(enc, Resolve(who="Hauser"))
    assert who(enc, "Hauser").activity_used == 70
    assert combatant(enc, "Hauser").budget == Budget(name="activity %", left=30, of=100)
    refused(enc, Declare(who="Hauser", action="ranged-attack"), RuleViolation,
            "Hauser has 30 % activity left, ranged-attack takes 60 % (percent-activity.md, Resolve Actions step)")
    do(enc, Declare(who="Hauser", action="ranged-attack", details={"percent": "30"}))
    assert combatant(enc, "Hauser").budget.left == 0


def test_activity_comes_back_each_round(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="dodge"))
    do(enc, Resolve(who="Hauser"))
    do(enc, Upkeep())
    new_round(enc)
    assert who(enc, "Hauser").activity_used == 0


def test_dodge_range_example_costs_minus_1_per_percent_under_100(memory_store: Store) -> None:
    """Resolve Actions step: a % range (e.g. 50%-100%) done faster at -1 per % under its maximum."""
    enc = fight(memory_store)
    new_round(enc)
    declared = one(do(enc, Declare(who="Hauser", action="dodge", details={"percent": "80"})), ActionDeclared)
    assert declared.cost.value == 80
    assert declared.penalty.value == -20 and declared.penalty.terms == (Term("20 % under the maximum", -20),)
    assert declared.penalty.rule == "percent-activity.md, Resolve Actions step"
    do(enc, Resolve(who="Hauser"))
    fast = one(do(enc, Declare(who="Hauser", action="perception", details={"percent": "10"})), ActionDeclared)
    assert fast.penalty.value == -20  # perception 10%-30%


def test_a_range_action_without_percent_takes_its_maximum(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    declared = one(do(enc, Declare(who="Hauser", action="melee-attack", target="Orc")), ActionDeclared)
    assert declared.cost.value == 100 and declared.penalty.value == 0
    assert pending(enc, "Hauser") == Pending(
        who="Hauser", action="melee-attack", target="Orc", resolves="in Hauser's turn",
        own=PaPending(percent=100, step="resolves", penalty=0, trigger=None, progress=0),
    )


@pytest.mark.parametrize(("action", "percent"), [
    ("melee-attack", 59), ("melee-attack", 101), ("ranged-attack", 61), ("dodge", 49),
    ("perception", 5), ("simple-action", 31), ("complex-action", 19), ("move", 5),
])
def test_percent_outside_an_actions_range_is_refused(memory_store: Store, action: str, percent: int) -> None:
    enc = fight(memory_store)
    new_round(enc)
    with pytest.raises(RuleViolation, match=rf"^{action} takes \d+[-+]?\d* %, not {percent} % "):
        enc.execute(Declare(who="Hauser", action=action, details={"percent": str(percent)}), "test")


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
    declared = one(do(enc, Declare(who="Hauser", action="move", details={"percent": "45"})), ActionDeclared)
    assert declared.step == "done" and declared.penalty.value == 0
    assert pending(enc, "Hauser") is None and who(enc, "Hauser").activity_used == 55


def test_static_maneuver_takes_at_least_100_percent(memory_store: Store) -> None:
    """Resolve Actions step: Static Maneuver, minimum 100%."""
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, Declare(who="Hauser", action="static-maneuver", details={"percent": "90"}), RuleViolation,
            "static-maneuver takes 100+ %, not 90 % (percent-activity.md, Resolve Actions step)")
    do(enc, Declare(who="Hauser", action="move", details={"percent": "10"}))
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
    assert figures(state(cli), "Hauser").melee_attacks == 1
    cli.ok("upkeep")
    cli_round(cli)
    assert figures(state(cli), "Hauser").melee_attacks == 0
    cli.ok("declare", "Hauser", "melee-attack", "--percent", "60", "--target", "Orc")


def test_a_cancelled_melee_attack_still_counts_as_declared(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"percent": "60"}))
    do(enc, Cancel(who="Hauser"))
    assert who(enc, "Hauser").activity_used == 60  # its activity stays spent
    with pytest.raises(RuleViolation, match="declared a melee attack this round already"):
        enc.execute(Declare(who="Hauser", action="melee-attack", target="Orc", details={"percent": "60"}), "test")


def test_unknown_action_and_flags_it_does_not_read_are_refused(cli: Cli) -> None:
    """Resolve Actions step: actions come from the activity table, costs in % (no AP,
    and the penalty follows from the %); the engine refuses flags the ruleset does not read."""
    cli_fight(cli)
    cli_round(cli)
    assert cli.fails("declare", "Hauser", "meele-attack") == (
        "Error: no action 'meele-attack' in the activity table (did you mean melee-attack?)"
    )
    takes = "(it takes: --percent, --target, --trigger)"
    assert cli.fails("declare", "Hauser", "dodge", "--amount", "2") == (
        f"Error: percent-activity `declare` takes no --amount {takes}"
    )
    # ap-countdown's (and crisis's) own flags are no options of a percent-activity encounter's commands.
    assert cli.fails("declare", "Hauser", "dodge", "--ap", "2").startswith("Error: No such option: --ap ")
    assert cli.fails("declare", "Hauser", "move", "--pace", "run") == (
        "Error: No such option: --pace (Possible options: --percent) (see `skirmish --help`)"
    )
    assert cli.fails("declare", "Hauser", "dodge", "--penalty", "-10") == (
        "Error: Got unexpected extra argument(s) (--penalty -10) (see `skirmish --help`)"
    )


def test_flags_the_ruleset_does_not_read_are_refused_in_one_message(memory_store: Store) -> None:
    """The ruleset reads --percent, --target and --trigger on `declare` (Resolve Actions step,
    Conditional Action), --outcome and --hits on `resolve`, --per-round, --rounds and --end on
    `effect` (Upkeep step); the engine refuses any other, all named at once."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"percent": "60"}))
    refused(enc, Declare(who="Hauser", action="dodge", amount=3, trigger="the door opens"), BadInput,
            "percent-activity `declare` takes no --amount (it takes: --percent, --target, --trigger)")
    # ap-countdown's own flags (--ap, --pace, --charge, --orientation, --start) are no flags here:
    # sent as details (`--with`), they are refused as details this ruleset does not declare.
    refused(enc, Declare(who="Hauser", action="dodge", details={"ap": "2"}), BadInput,
            "percent-activity `declare` has no detail 'ap' (it takes none)")
    refused(enc, Declare(who="Hauser", action="dodge", details={"pace": "run"}), BadInput,
            "percent-activity `declare` has no detail 'pace' (it takes none)")
    refused(enc, Resolve(who="Hauser", hits=4, details={"charge": "10"}), BadInput,
            "percent-activity `resolve` has no detail 'charge' (it takes none)")
    refused(enc, Cancel(who="Hauser", details={"orientation": "left"}), BadInput,
            "percent-activity `cancel` has no detail 'orientation' (it takes none)")
    refused(enc, ApplyEffect(who="Orc", kind="stunned", rounds=2, details={"start": "1"}), BadInput,
            "percent-activity `effect` has no detail 'start' (it takes none)")
    do(enc, Resolve(who="Hauser", outcome="hit", hits=4))
    do(enc, ApplyEffect(who="Orc", kind="bleeding", per_round=1))
    do(enc, ApplyEffect(who="Orc", kind="bleeding", end=True))


def test_resolving_with_hits_damages_the_target(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", target="orc", details={"percent": "80"}))
    events = do(enc, Resolve(who="Hauser", outcome="hit", hits=9))
    assert one(events, DamageTaken).hits_left == 21
    assert combatant(enc, "Orc").vital == Gauge(name="hits left", value=21, maximum=30)
    do(enc, Declare(who="Hauser", action="perception", details={"percent": "20"}))
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
    assert who(enc, "Hauser").activity_used == further
    do(enc, Resolve(who="Hauser"))
    do(enc, Upkeep())
    new_round(enc)
    assert one(do(enc, Declare(who="Hauser", action="instantaneous")), ActionDeclared).cost.value == 0


def test_the_instant_cost_option_is_recorded_in_the_first_event(cli: Cli) -> None:
    cli_fight(cli, "instant-cost=25")
    first = json.loads(cli.ok("log", "--json").splitlines()[0])
    assert first["options"] == {"instant-cost": "25", "goes-down": "at-0"}
    assert cli.fails("new", "Other", "--rules", RULES, "--option", "instant-cost=2") == (
        "Error: option instant-cost takes 1 or 10 or 25, not '2'"
    )


# --- Conditional Action ------------------------------------------------------------------------


def test_held_action_resolves_when_triggered_interrupting_another_turn(memory_store: Store) -> None:
    """Conditional Action: held, resolved if and when its trigger happens, interrupting."""
    enc = fight(memory_store)
    new_round(enc)
    declared = one(do(enc, Declare(who="Hauser", action="ranged-attack", target="Orc", trigger="the Orc charges", details={"percent": "40"})), ActionDeclared)
    assert declared.step == "held" and declared.paid == 40
    do(enc, Next())  # Hauser's turn ends with the shot held
    do(enc, Declare(who="Orc", action="move", details={"percent": "30"}))
    do(enc, Declare(who="Orc", action="melee-attack", target="Hauser", details={"percent": "60"}))
    do(enc, Resolve(who="Hauser", outcome="hit", hits=5))  # the held shot goes off first
    assert pending(enc, "Hauser") is None and combatant(enc, "Orc").vital.value == 25


def test_held_action_is_lost_at_the_upkeep(memory_store: Store) -> None:
    """Conditional Action: never triggered, the action is lost at the end of the round."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="dodge", trigger="the Orc attacks", details={"percent": "50"}))
    events = do(enc, Upkeep())
    lost = one(events, ActionCancelled)
    assert lost.reason == "lost: never triggered this round (percent-activity.md, Conditional Action)"
    assert pending(enc, "Hauser") is None


def test_held_action_must_fit_in_this_rounds_activity(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="move", details={"percent": "60"}))
    refused(enc, Declare(who="Hauser", action="ranged-attack", trigger="he shows"), RuleViolation,
            "Hauser has 40 % activity left, ranged-attack takes 60 % (percent-activity.md, Conditional Action)")


def test_held_action_is_broken_by_declaring_another_action_but_not_by_movement(memory_store: Store) -> None:
    """Conditional Action: held only while concentration is unbroken."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="ranged-attack", trigger="the door opens", details={"percent": "30"}))
    do(enc, Declare(who="Hauser", action="move", details={"percent": "20"}))
    assert pending(enc, "Hauser") is not None
    events = do(enc, Declare(who="Hauser", action="perception", details={"percent": "20"}))
    assert one(events, ActionCancelled).reason.startswith("interrupted by perception: a held action ends")
    now = pending(enc, "Hauser")
    assert now is not None and now.action == "perception"
    assert who(enc, "Hauser").activity_used == 70


# --- Round to Round Actions --------------------------------------------------------------------


def test_round_to_round_action_carries_across_rounds(memory_store: Store) -> None:
    """Round to Round Actions: more than 100%, over several rounds; the last share leaves the rest."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="move", details={"percent": "20"}))
    declared = one(do(enc, Declare(who="Hauser", action="static-maneuver", details={"percent": "250"})), ActionDeclared)
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
    assert combatant(enc, "Hauser").budget.left == 30
    refused(enc, Upkeep(), RuleViolation,
            "Hauser's static-maneuver is still to resolve: `skirmish resolve Hauser` or `skirmish cancel Hauser` "
            "before you run the upkeep (percent-activity.md, Upkeep step)")
    do(enc, Resolve(who="Hauser", outcome="the lock opens"))
    do(enc, Declare(who="Hauser", action="ranged-attack", details={"percent": "30"}))


def test_round_to_round_action_is_cancelled_by_another_action(cli: Cli) -> None:
    """Round to Round Actions: performed uninterrupted by other actions."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "static-maneuver", "--percent", "300")
    cli.ok("upkeep")
    cli_round(cli)
    out = cli.ok("declare", "Hauser", "draw")
    assert "Hauser's static-maneuver interrupted by draw: a round-to-round action ends when another action is taken" in out
    assert [p.action for p in state(cli).pending] == ["draw"]


def test_round_to_round_action_needs_some_activity_left_to_start(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="move", details={"percent": "100"}))
    refused(enc, Declare(who="Hauser", action="static-maneuver", details={"percent": "200"}), RuleViolation,
            "Hauser has no activity left to start static-maneuver this round (percent-activity.md, Round to Round Actions)")
    refused(enc, Declare(who="Hauser", action="move", details={"percent": "120"}), RuleViolation,
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
    assert who(enc, "Orc").damage == 5
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
    do(enc, ApplyEffect(who="Hauser", kind="blinded", rounds=2, custom=True))
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
    assert state(cli).combatant("Orc").effects == (Effect(kind="bleeding", left=None, detail="2/round"),)
    cli.ok("undo")
    after = state(cli)
    assert (after.clock, after.combatants, after.pending, after.own) == (
        before.clock, before.combatants, before.pending, before.own
    )


def test_pending_actions_say_when_they_resolve(memory_store: Store) -> None:
    """Resolve Actions step: in its combatant's turn; Conditional Action: "if and when the
    trigger condition occurs"; Round to Round Actions: over several rounds, then due in the
    turn of the round its rest fits in."""
    enc = fight(memory_store)
    do(enc, AddCombatant(name="Mira", side="players", stats={"qu": "2", "hits": "30"}))
    new_round(enc, {"Hauser": (6, 8), "Orc": (5, 5), "Mira": (10, 10)})  # Mira 22, Hauser 15, Orc 10
    do(enc, Declare(who="Mira", action="static-maneuver", details={"percent": "150"}))
    do(enc, Next())
    do(enc, Declare(who="Hauser", action="dodge", trigger="the Orc swings", details={"percent": "50"}))
    do(enc, Next())
    do(enc, Declare(who="Orc", action="melee-attack", target="Hauser"))
    assert [(p.who, p.resolves) for p in enc.view().pending] == [
        ("Mira", "spans rounds"), ("Hauser", "on trigger: the Orc swings"), ("Orc", "in Orc's turn"),
    ]
    do(enc, Resolve(who="Orc", outcome="miss"))
    do(enc, Next())  # the upkeep: the dodge is lost, Mira puts her 100 % into the winch
    # Round 2: Hauser 15, Orc 10, Mira 1 + 1 + 2 = 4; her last 50 % is set aside, due in her turn.
    new_round(enc, {"Hauser": (6, 8), "Orc": (5, 5), "Mira": (1, 1)})
    assert enc.view().pending == (Pending(
        who="Mira", action="static-maneuver", resolves="in Mira's turn",
        own=PaPending(percent=150, step="resolves", progress=100),
    ),)
    assert combatant(enc, "Mira").budget.left == 50


# A short fight touching every command and event of the ruleset, refusals among them.
EVERY_COMMAND: tuple[Command, ...] = (
    AddCombatant(name="Hauser", side="players", stats={"qu": "1", "hits": "40"}),
    AddCombatant(name="Orc", side="foes", stats={"qu": "0", "hits": "30"}),
    ApplyEffect(who="Orc", kind="bleeding", per_round=2),
    ApplyEffect(who="Orc", kind="stunned", rounds=2),
    ApplyEffect(who="Orc", kind="staggered"),
    StartRound(rolls=DICE),
    Declare(who="Hauser", action="ranged-attack", trigger="the Orc charges", details={"percent": "30"}),
    Declare(who="Hauser", action="perception", details={"percent": "20"}),  # breaks the held shot
    Resolve(who="Hauser"),
    Declare(who="Hauser", action="static-maneuver", details={"percent": "150"}),
    Declare(who="Hauser", action="dodge"),  # refused: 50 % left
    Next(),
    Declare(who="Orc", action="melee-attack", target="Hauser", details={"percent": "60"}),
    Resolve(who="Orc", outcome="hit", hits=5),
    Damage(who="Hauser", amount=3),
    Declare(who="Orc", action="move", details={"percent": "20"}),
    Declare(who="Orc", action="instantaneous"),
    Cancel(who="Orc"),
    Next(),  # the upkeep: progress, bleeding, stun, stagger
    StartRound(rolls=DICE),  # the static maneuver is due
    ApplyEffect(who="Orc", kind="bleeding", end=True),
    Upkeep(),  # refused: the maneuver is still to resolve
    Resolve(who="Hauser", outcome="done"),
    Upkeep(),
)


def test_deciding_never_changes_the_state_it_is_given(memory_store: Store) -> None:
    """Ruleset.decide leaves the state as it was: the engine applies the decided events to
    that same state (projections/write/engine.py), so a decision that changed it counts twice."""
    enc = start(memory_store, RULES)
    ruleset = enc.ruleset
    for command in EVERY_COMMAND:
        state = enc.fold_to(enc.head().event_id)[0]
        before = msgspec.msgpack.encode(state)
        dice = Dice.of(enc.started, "test", getattr(command, "rolls", None))
        try:
            ruleset.decide(state, command, dice)
        except SkirmishError:
            assert msgspec.msgpack.encode(state) == before, command
            continue
        assert msgspec.msgpack.encode(state) == before, command
        do(enc, command)
    # The Orc's 5 and the GM's 3 on Hauser; the Orc bled 2 at the first upkeep only, and the
    # second upkeep took his stun's last round (Upkeep step).
    assert (who(enc, "Hauser").damage, who(enc, "Orc").damage, effects(enc, "Orc")) == (8, 2, [])
    assert enc.view().clock.round == 2


# --- shape and sample --------------------------------------------------------------------------


def test_the_view_is_typed_with_the_rulesets_figures_under_todays_names(cli: Cli) -> None:
    """projections/view.py: the core (hits left, activity %) by attribute; what is this
    ruleset's own under the key names `state --json` has always printed."""
    cli_fight(cli)
    cli_round(cli)
    view = state(cli)
    assert (view.ruleset, view.clock.unit, view.own) == (RULES, "round", NoOwn())
    hauser = view.combatant("Hauser")
    assert hauser.vital == Gauge(name="hits left", value=40, maximum=40)
    assert hauser.budget == Budget(name="activity %", left=100, of=100)
    assert hauser.own == PaFigures(
        initiative=15, activity_used=0, melee_attacks=0, instantaneous_actions=0, damage=0, wounded=False,
    )
    assert list(own_figures(hauser.own)) == [
        "initiative", "activity_used", "melee_attacks", "instantaneous_actions", "damage", "wounded",
    ]
    printed = msgspec.json.decode(msgspec.json.encode(view))  # as `state --json` is to print it
    assert printed["view"] == VIEW_VERSION and printed["combatants"][0]["own"]["initiative"] == 15
    for line in cli.ok("log", "--json").splitlines():
        assert {"id", "parent", "kind", "recorded_at"} <= set(json.loads(line))
    cli.ok("declare", "Hauser", "dodge", "--percent", "70", "--trigger", "the Orc swings")
    assert state(cli).pending == (Pending(
        who="Hauser", action="dodge", resolves="on trigger: the Orc swings",
        own=PaPending(percent=70, step="held", penalty=-30, trigger="the Orc swings"),
    ),)


SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "gatehouse-percent.skirmish"


def test_gatehouse_sample_ends_as_its_comments_say(cli: Cli) -> None:
    cli.ok("run", str(SAMPLE))
    out = cli.out
    assert "Round 1 begins: initiative Hauser 19, Mira 17, Orc 6" in out
    assert "Hauser declares melee-attack on Orc (80 %, penalty -20)" in out
    assert "Mira resolves ranged-attack on Orc: hit, 6 hits" in out
    assert "Orc's dodge lost: never triggered this round (percent-activity.md, Conditional Action)" in out
    assert "Mira puts 60 % into static-maneuver (60 of 150)" in out
    assert "Mira's static-maneuver completes this round: 90 % set aside" in out
    assert "Upkeep: Orc's stunned has 1 round left" in out
    view = state(cli)
    assert (view.clock.round, view.branch) == (2, "main")
    # Round 2's order: Orc 14, Hauser 11, Mira 9; Mira's last `next` ran the upkeep.
    assert [c.name for c in view.combatants] == ["Orc", "Hauser", "Mira"]
    assert (view.clock.running, view.clock.moment, view.clock.now) == (False, "between rounds", ())
    # Orc: 12 (Hauser) + 6 (Mira) + 2 bleeding at each of two upkeeps = 22 of 30 hits.
    assert figures(view, "Orc").damage == 22 and figures(view, "Orc").wounded is True
    assert view.combatant("Orc").vital == Gauge(name="hits left", value=8, maximum=30)
    assert view.combatant("Orc").effects == (Effect(kind="bleeding", left=None, detail="2/round"),)
    # The 20 typed by mistake was undone: Hauser took only the Orc's 8.
    assert figures(view, "Hauser").damage == 8
    assert "Hauser takes 20 hits (12 left), wounded  (undone)" in cli.ok("log", "--all")
    branches = {b["name"]: b for b in json.loads(cli.ok("branches", "--json"))}
    assert set(branches) == {"main", "what-if"}
    what_if = state(cli, at=branches["what-if"]["head"])
    assert what_if.combatant("Orc").vital.value == 0 and figures(what_if, "Orc").damage == 30


def test_a_fight_to_the_end_down_healed_gone_and_back(memory_store: Store) -> None:
    """Hauser 6 + 8 + 1 = 15, Orc 5 + 5 = 10 (Initiative Step): Hauser's turn first. The
    Orc (30 hits) is hit for 30: down (goes-down=at-0); `next` after Hauser's turn finds
    nobody able and runs the upkeep. Next round the Orc rolls no initiative; healed, it
    rolls again the round after. Hauser leaves mid-round: his turn is passed by."""
    from skirmish.eventlog.commands import Heal, Leave, Return
    from skirmish.projections.rulesets.percent_activity.events import HitsHealed

    enc = fight(memory_store)
    new_round(enc, {"Hauser": (6, 8), "Orc": (5, 5)})
    assert enc.view().clock.next == ("Orc",)
    do(enc, Damage(who="Orc", amount=30))
    assert enc.view().clock.next == (), "the Orc is down: its turn is passed by"
    refused(enc, Declare(who="Orc", action="perception", details={"percent": "10"}), RuleViolation,
            "Orc is down (0 hits left, option goes-down=at-0): it cannot act")
    do(enc, Next())  # nobody else can act: the upkeep
    assert not enc.view().clock.running
    started = one(new_round(enc, {"Hauser": (6, 8)}), RoundStarted)
    assert started.order == ("Hauser",)
    do(enc, Next())
    healed = one(do(enc, Heal(who="Orc", amount=40)), HitsHealed)
    assert (healed.amount.value, healed.hits_left) == (30, 30), "never above its hits"
    started = one(new_round(enc, {"Hauser": (6, 8), "Orc": (5, 5)}), RoundStarted)
    assert started.order == ("Hauser", "Orc")
    do(enc, Declare(who="Hauser", action="perception", trigger="the Orc moves", details={"percent": "10"}))
    events = do(enc, Leave(who="Hauser", reason="flees"))
    assert one(events, ActionCancelled).reason == "ends: Hauser leaves the fight"
    assert combatant(enc, "Hauser").status == "left" and enc.view().combatants[-1].name == "Hauser"
    do(enc, Next())
    assert enc.view().clock.now == ("Orc",)
    do(enc, Return(who="Hauser"))
    assert combatant(enc, "Hauser").status == "fighting"
    enc.undo(1, "undo")
    assert combatant(enc, "Hauser").status == "left"
