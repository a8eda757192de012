"""Every rule of the ap-countdown ruleset (shared/rules/ap-countdown.md), one test or more each.

Each test is named after the rule and cites the section of the rules text it checks.
Refusals check the exact message and that nothing was appended. The usual fight:
Hauser (Qu +1, 40 hits) rolls 6 + 8 = 14, base 15, 35 with 4 AP; the Orc (Qu 0, 30
hits) rolls 5 + 5, base 10, 30 with 4 AP.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from skirmish.eventlog.commands import (
    AddCombatant,
    ApplyEffect,
    Cancel,
    Damage,
    Declare,
    Heal,
    Leave,
    Next,
    Resolve,
    Return,
    StartRound,
    Upkeep,
)
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import EncounterStarted, Event, Term
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.rulesets.ap_countdown.events import (
    ActionCancelled,
    ActionContinued,
    ActionDeclared,
    ActionProgressed,
    ActionReadied,
    ActionResolved,
    BleedingStaunched,
    ClockAdvanced,
    DamageTaken,
    EffectApplied,
    HitsHealed,
    ParryDeclared,
    ParryUsed,
    RoundEnded,
    RoundStarted,
    UpkeepTick,
)

from support.cli import Cli, start
from support.encounter import combatant, do, effects, one, pending, refused, stored, who
from support.fight import fight

DICE = {"Hauser": (6, 8), "Orc": (5, 5)}


# --- the library side ------------------------------------------------------------------------


def new_round(enc: Encounter, rolls: dict[str, tuple[int, ...]] | None = None) -> list[Event]:
    return do(enc, StartRound(rolls=DICE if rolls is None else rolls))


def hauser_melee_resolved(enc: Encounter) -> None:
    """Round 1: Hauser's 3 AP melee attack declared at 35 resolves at 20 (he has spent 3 AP)."""
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"}))
    do(enc, Next())
    do(enc, Next())
    do(enc, Resolve(who="Hauser"))


# --- the command-line side -------------------------------------------------------------------


def cli_fight(cli: Cli, *options: str) -> None:
    opts = [w for o in options for w in ("--option", o)]
    cli.ok("new", "Bridge ambush", "--rules", "ap-countdown", "--seed", "3", *opts)
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")


def cli_round(cli: Cli) -> None:
    cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")


def logged(cli: Cli) -> list[dict[str, Any]]:
    return [json.loads(line) for line in cli.ok("log", "--all", "--json").splitlines()]


def state(cli: Cli) -> dict[str, Any]:
    """`state --json` (the typed view, docs/tutorial.md) with each combatant's and pending action's
    own figures beside its core ones, the clock's count and the scene's counters at hand."""
    data: dict[str, Any] = json.loads(cli.ok("state", "--json"))
    data["round"] = data["clock"]["round"]
    data["clock"] = {"in_round": data["clock"]["running"], "count": data["clock"]["own"]["count"]}
    data["combatants"] = [{**c, **c["own"], "hits_left": c["vital"]["value"]} for c in data["combatants"]]
    data["pending"] = [{**p, **p["own"]} for p in data["pending"]]
    data["environment"] = data["own"]["environment"]
    return data


def cli_who(cli: Cli, name: str) -> dict[str, Any]:
    return next(c for c in state(cli)["combatants"] if c["name"] == name)


def cli_refused(cli: Cli, *args: str, error: str, code: int = 1) -> None:
    """`skirmish ARGS` fails with this one Error line and exit code, and appends nothing."""
    before = len(logged(cli))
    assert cli.fails(*args) == error
    assert cli.code == code
    assert len(logged(cli)) == before


# --- Initiative -------------------------------------------------------------------------------


def test_base_initiative_is_2d10_plus_qu_less_1_per_full_minus_10_penalty(memory_store: Store) -> None:
    """ap-countdown.md, Initiative: Base Initiative = 2d10 + Qu - (1 for every -10 penalty)."""
    enc = start(memory_store)
    for name, qu, penalty in (("Scratched", "0", "-9"), ("Hurt", "0", "-10"), ("Lame", "2", "-25")):
        do(enc, AddCombatant(name=name, stats={"qu": qu, "hits": "20", "penalty": penalty}))
    started = one(new_round(enc, {"Scratched": (5, 5), "Hurt": (5, 5), "Lame": (6, 8)}), RoundStarted)
    lame = next(i for i in started.initiatives if i.who == "Lame")
    assert lame.base.value == 14  # 14 + 2 - 2
    assert lame.base.terms == (Term("2d10", 14), Term("Qu", 2), Term("1 per -10 penalty", -2))
    assert lame.base.rule == "ap-countdown.md, Initiative"
    assert [(who(enc, n).base_initiative, who(enc, n).initiative) for n in ("Scratched", "Hurt", "Lame")] == [
        (10, 30), (9, 29), (14, 34),
    ]


def test_penalty_stat_is_zero_or_less(cli: Cli) -> None:
    """ap-countdown.md, Initiative: the penalty that lowers initiative is a negative figure."""
    cli_fight(cli)
    cli_refused(cli, "add", "Odd", "--stat", "qu=0", "--stat", "hits=10", "--stat", "penalty=5",
                error="Error: stat penalty of Odd must be at most 0, not 5", code=2)


def test_typed_dice_are_recorded_as_the_gms_faces(cli: Cli) -> None:
    """ap-countdown.md, Initiative: 2d10 typed from the GM's dice; the rest rolled by the tool."""
    cli_fight(cli)
    cli.ok("round", "--roll", "Hauser=6,8")
    started = [e for e in logged(cli) if e["kind"] == "ap.round-started"]
    assert len(started) == 1
    inits = {i["who"]: i for i in started[0]["initiatives"]}
    assert inits["Hauser"]["base"]["roll"] == {"dice": "2d10", "faces": [6, 8], "source": "gm"}
    assert (inits["Hauser"]["base"]["value"], inits["Hauser"]["actual"]["value"]) == (15, 35)
    orc = inits["Orc"]["base"]
    assert orc["roll"]["source"] == "tool"
    assert len(orc["roll"]["faces"]) == 2 and all(1 <= f <= 10 for f in orc["roll"]["faces"])
    assert orc["value"] == sum(orc["roll"]["faces"])
    assert inits["Orc"]["actual"]["value"] == orc["value"] + 20


@pytest.mark.parametrize("faces", ["11,3", "0,5", "6,-2"])
def test_dice_faces_out_of_range_are_refused(cli: Cli, faces: str) -> None:
    """ap-countdown.md, Initiative: 2d10 faces run from 1 to 10; nothing is appended otherwise."""
    cli_fight(cli)
    cli_refused(cli, "round", "--roll", f"Hauser={faces}",
                error=f"Error: 2d10 for Hauser takes 2 faces from 1 to 10, not {faces}", code=2)
    assert state(cli)["round"] == 0


@pytest.mark.parametrize("faces", ["6", "6,8,2"])
def test_wrong_count_of_dice_faces_is_refused(cli: Cli, faces: str) -> None:
    """ap-countdown.md, Initiative: 2d10 is exactly two faces."""
    cli_fight(cli)
    cli_refused(cli, "round", "--roll", f"Hauser={faces}",
                error=f"Error: 2d10 for Hauser takes 2 faces from 1 to 10, not {faces}", code=2)


def test_actual_initiative_is_base_plus_5_per_ap_left(memory_store: Store) -> None:
    """ap-countdown.md, Initiative: Actual Initiative = Base Initiative + remaining AP x 5."""
    enc = fight(memory_store)
    started = one(new_round(enc), RoundStarted)
    hauser = next(i for i in started.initiatives if i.who == "Hauser")
    assert hauser.actual.value == 35
    assert hauser.actual.terms == (Term("base initiative", 15), Term("5 x AP left", 20))
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"}))
    # Declared before the AP are spent: still 35 until the attack resolves.
    assert (who(enc, "Hauser").ap, who(enc, "Hauser").initiative) == (4, 35)
    do(enc, Next())
    do(enc, Next())
    do(enc, Resolve(who="Hauser"))
    assert (who(enc, "Hauser").ap, who(enc, "Hauser").initiative) == (1, 20)  # 15 + 1 x 5
    assert (who(enc, "Orc").ap, who(enc, "Orc").initiative) == (4, 30)


def test_hauser_worked_example(cli: Cli) -> None:
    """ap-countdown.md, Resolution (Example): 14 + Qu 1 = 15; 4 AP gives 35; 3 AP melee at 35 resolves at 20."""
    cli_fight(cli)
    cli_round(cli)
    assert (cli_who(cli, "Hauser")["base_initiative"], cli_who(cli, "Hauser")["initiative"]) == (15, 35)
    assert state(cli)["clock"] == {"in_round": True, "count": 35}
    cli.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")
    declared = logged(cli)[-1]
    assert declared["kind"] == "ap.action-declared"
    assert (declared["count"], declared["cost"]["value"], declared["at"]["value"]) == (35, 3, 20)
    cli.ok("next")
    cli.ok("next")
    assert state(cli)["clock"]["count"] == 20
    cli.ok("resolve", "Hauser")
    resolved = logged(cli)[-1]
    assert (resolved["kind"], resolved["count"], resolved["paid"]) == ("ap.action-resolved", 20, 3)
    assert (cli_who(cli, "Hauser")["ap"], cli_who(cli, "Hauser")["initiative"]) == (1, 20)


# --- Initiative: the open point, re-roll every round or once ---------------------------------


def test_initiative_each_round_rolls_anew_by_default(memory_store: Store) -> None:
    """ap-countdown.md, Initiative: "rolled anew every round" (option initiative=each-round, the default)."""
    enc = fight(memory_store)
    first = enc.path(enc.head().event_id)[0].event
    assert isinstance(first, EncounterStarted)
    assert first.options == {"initiative": "each-round", "carry-ap": "no", "goes-down": "at-0", "pace-penalty": "worst"}
    new_round(enc)
    assert who(enc, "Hauser").base_initiative == 15
    do(enc, Upkeep())
    new_round(enc, {"Hauser": (2, 3), "Orc": (1, 1)})
    assert [(who(enc, n).base_initiative, who(enc, n).initiative) for n in ("Hauser", "Orc")] == [
        (6, 26), (2, 22),
    ]
    do(enc, Upkeep())
    third = one(new_round(enc, {}), RoundStarted)
    hauser = next(i for i in third.initiatives if i.who == "Hauser").base
    assert hauser.roll is not None and hauser.roll.source == "tool"
    assert hauser.value == sum(hauser.roll.faces) + 1


def test_initiative_once_keeps_the_base_of_round_1(memory_store: Store) -> None:
    """ap-countdown.md, Initiative: "Base initiative is rolled once at the start" (option initiative=once)."""
    enc = fight(memory_store, initiative="once")
    first = one(new_round(enc), RoundStarted)
    do(enc, Upkeep())
    second = one(new_round(enc, {}), RoundStarted)
    assert second.initiatives == first.initiatives  # same faces (6, 8; 5, 5), same GM source
    assert [(who(enc, n).base_initiative, who(enc, n).initiative) for n in ("Hauser", "Orc")] == [
        (15, 35), (10, 30),
    ]


def test_initiative_once_refuses_typed_dice_in_a_later_round(cli: Cli) -> None:
    """ap-countdown.md, Initiative: with initiative=once there is no second roll to type in."""
    cli_fight(cli, "initiative=once")
    cli_round(cli)
    cli.ok("upkeep")
    cli_refused(
        cli, "round", "--roll", "Hauser=2,3",
        error="Error: Hauser's base initiative was rolled once, at the start "
        "(option initiative=once) (ap-countdown.md, Initiative)",
    )
    assert state(cli)["round"] == 1
    assert state(cli)["clock"]["in_round"] is False


# --- Action Points ------------------------------------------------------------------------------


def test_four_action_points_every_round(memory_store: Store) -> None:
    """ap-countdown.md, Action Points: "Combatants receive 4 Action Points every round"."""
    enc = fight(memory_store)
    started = one(new_round(enc), RoundStarted)
    assert [(i.who, i.ap) for i in started.initiatives] == [("Hauser", 4), ("Orc", 4)]
    assert started.count == 35


def test_unspent_ap_are_lost_by_default(memory_store: Store) -> None:
    """ap-countdown.md, Action Points: 4 AP every round; unspent AP lost (option carry-ap=no, the default)."""
    enc = fight(memory_store)
    hauser_melee_resolved(enc)
    ended = one(do(enc, Upkeep()), RoundEnded)
    assert ended.ap_lost == {"Hauser": 1, "Orc": 4}
    assert who(enc, "Hauser").ap == 0
    new_round(enc)
    assert (who(enc, "Hauser").ap, who(enc, "Hauser").initiative) == (4, 35)


def test_unspent_ap_carry_over_with_carry_ap_yes(memory_store: Store) -> None:
    """ap-countdown.md, Action Points: option carry-ap=yes adds the leftover AP to the next round's 4."""
    enc = fight(memory_store, **{"carry-ap": "yes"})
    hauser_melee_resolved(enc)
    ended = one(do(enc, Upkeep()), RoundEnded)
    assert ended.ap_lost == {}
    started = one(new_round(enc), RoundStarted)
    assert [(i.who, i.ap, i.actual.value) for i in started.initiatives] == [("Hauser", 5, 40), ("Orc", 8, 50)]
    assert started.count == 50


def test_carried_ap_are_capped_at_one_rounds_worth(memory_store: Store) -> None:
    """ap-countdown.md, Action Points: with carry-ap=yes at most 4 AP carry, so they never pile up."""
    enc = fight(memory_store, **{"carry-ap": "yes"})
    new_round(enc)
    do(enc, Upkeep())
    assert [i.ap for i in one(new_round(enc), RoundStarted).initiatives] == [8, 8]
    do(enc, Upkeep())
    assert [i.ap for i in one(new_round(enc), RoundStarted).initiatives] == [8, 8]


def test_carried_ap_pay_a_six_ap_reload_within_the_round(memory_store: Store) -> None:
    """ap-countdown.md, Resolution: an action is "paid for (in AP) and resolved on the initiative
    when [it is] completed". With carry-ap=yes a fighter holding 7 AP pays a 6 AP reload this
    round: it is no round-to-round action (those "require more than 4 AP" of a round's 4).

    Worked by hand: round 1, the Orc (base 5 + 5 + Qu 0 = 10, 4 AP: 30) draws (1 AP) at 30,
    resolved at 25, and keeps 3 AP; Hauser does nothing and keeps 4. Round 2 (same dice):
    the Orc has 4 + 3 = 7 AP, initiative 10 + 5 x 7 = 45; Hauser 4 + 4 = 8, 15 + 40 = 55.
    The reload declared at 45 resolves at 45 - 5 x 6 = 15 and leaves the Orc 7 - 6 = 1 AP."""
    enc = fight(memory_store, **{"carry-ap": "yes"})
    new_round(enc)
    do(enc, Next())  # 30: the Orc's count
    do(enc, Declare(who="Orc", action="draw"))
    do(enc, Next())  # 25: the draw resolves
    do(enc, Resolve(who="Orc"))
    do(enc, Upkeep())
    started = one(new_round(enc), RoundStarted)
    assert [(i.who, i.ap, i.actual.value) for i in started.initiatives] == [("Hauser", 8, 55), ("Orc", 7, 45)]
    assert one(do(enc, Next()), ClockAdvanced).count == 45
    declared = one(do(enc, Declare(who="Orc", action="ammo-reload")), ActionDeclared)
    assert (declared.step, declared.at.value) == ("resolves", 15)
    assert do(enc, Next()) == [ClockAdvanced(count=15, resolving=("Orc",))]
    assert one(do(enc, Resolve(who="Orc")), ActionResolved).paid == 6
    assert (who(enc, "Orc").ap, who(enc, "Orc").ap_spent) == (1, 6)
    assert pending(enc, "Orc") is None


def test_declaring_more_ap_than_left_is_refused(cli: Cli) -> None:
    """ap-countdown.md, Action Points: an action cannot cost more AP than the combatant has left."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")
    cli.ok("next")
    cli.ok("next")
    cli.ok("resolve", "Hauser")
    cli_refused(cli, "declare", "Hauser", "sheath",
                error="Error: Hauser has 1 AP left, sheath needs 2 (ap-countdown.md, Action Points)")
    cli_refused(cli, "declare", "Hauser", "melee-attack", "--ap", "2", "--target", "Orc",
                error="Error: Hauser has 1 AP left, melee-attack needs 2 (ap-countdown.md, Action Points)")
    cli.ok("declare", "Hauser", "draw")
    assert logged(cli)[-1]["at"]["value"] == 15


def test_declaring_out_of_turn_is_refused(cli: Cli) -> None:
    """ap-countdown.md, Resolution: combatants declare from the highest initiative down."""
    cli_fight(cli)
    cli_round(cli)
    cli_refused(cli, "declare", "Orc", "ranged-attack", "--ap", "1",
                error="Error: not Orc's turn: initiative 30, the count is 35 (ap-countdown.md, Resolution)")


def test_declaring_while_an_action_is_pending_is_refused(memory_store: Store) -> None:
    """ap-countdown.md, Resolution: the next action is declared once the last one has resolved."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"}))
    refused(enc, Declare(who="Hauser", action="draw"), RuleViolation,
            "Hauser's melee-attack is still under way (resolves at 20): resolve or cancel it first "
            "(ap-countdown.md, Resolution)")


def test_declaring_late_is_allowed(memory_store: Store) -> None:
    """ap-countdown.md, Resolution: a combatant may wait and declare at a count below his initiative."""
    enc = fight(memory_store)
    new_round(enc)
    assert one(do(enc, Next()), ClockAdvanced) == ClockAdvanced(count=30, declaring=("Orc",))
    declared = one(do(enc, Declare(who="Hauser", action="draw")), ActionDeclared)
    assert (declared.count, declared.at.value) == (30, 25)
    assert one(do(enc, Next()), ClockAdvanced) == ClockAdvanced(count=25, resolving=("Hauser",))
    do(enc, Resolve(who="Hauser"))
    assert (who(enc, "Hauser").ap, who(enc, "Hauser").initiative) == (3, 30)


# --- Actions: AP ranges and fixed costs ---------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "ap", "cost", "penalty"),
    [
        ("ranged-attack", 1, 1, -50),
        ("ranged-attack", 2, 2, -25),
        ("ranged-attack", 3, 3, 0),
        ("ranged-attack", None, 3, 0),
        ("melee-attack", 2, 2, -50),
        ("melee-attack", 4, 4, 0),
        ("thrown-attack", 3, 3, -25),
        ("perception", 1, 1, -25),
    ],
)
def test_faster_action_in_a_range_takes_minus_25_per_ap_under_the_maximum(
    memory_store: Store, action: str, ap: int | None, cost: int, penalty: int
) -> None:
    """ap-countdown.md, Actions: "-25 for each AP less than the normal maximum", recorded on the declaration."""
    enc = fight(memory_store)
    new_round(enc)
    details = {} if ap is None else {"ap": str(ap)}
    declared = one(do(enc, Declare(who="Hauser", action=action, target="Orc", details=details)), ActionDeclared)
    assert (declared.cost.value, declared.penalty.value, declared.at.value) == (cost, penalty, 35 - 5 * cost)
    assert declared.penalty.rule == "ap-countdown.md, Actions"
    row = pending(enc, "Hauser")
    assert row is not None and (row.own.ap, row.own.penalty, row.own.resolves_at) == (cost, penalty, 35 - 5 * cost)  # type: ignore[attr-defined]
    assert row.resolves == f"count {35 - 5 * cost}"


def test_ap_outside_an_actions_range_is_refused(cli: Cli) -> None:
    """ap-countdown.md, Actions: melee 2-4 AP, ranged 1-3 AP; other figures are refused."""
    cli_fight(cli)
    cli_round(cli)
    cli_refused(cli, "declare", "Hauser", "melee-attack", "--ap", "1", "--target", "Orc",
                error="Error: melee-attack costs 2-4 AP, not 1 (ap-countdown.md, Actions)")
    cli_refused(cli, "declare", "Hauser", "melee-attack", "--ap", "5", "--target", "Orc",
                error="Error: melee-attack costs 2-4 AP, not 5 (ap-countdown.md, Actions)")
    cli_refused(cli, "declare", "Hauser", "ranged-attack", "--ap", "4", "--target", "Orc",
                error="Error: ranged-attack costs 1-3 AP, not 4 (ap-countdown.md, Actions)")
    assert state(cli)["pending"] == []


@pytest.mark.parametrize(
    ("action", "cost"),
    [("draw", 1), ("prone", 1), ("shift-item", 1), ("sheath", 2), ("eat-drink", 2), ("rapid-dismount", 2),
     ("get-item", 3), ("dodge", 4), ("mount", 4)],
)
def test_fixed_cost_actions(memory_store: Store, action: str, cost: int) -> None:
    """ap-countdown.md, Actions: fixed AP costs from the action table, no range penalty."""
    enc = fight(memory_store)
    new_round(enc)
    declared = one(do(enc, Declare(who="Hauser", action=action)), ActionDeclared)
    assert (declared.cost.value, declared.penalty.value, declared.at.value) == (cost, 0, 35 - 5 * cost)


def test_fixed_cost_cannot_be_changed(memory_store: Store) -> None:
    """ap-countdown.md, Actions: Dodge costs 4 AP, not less."""
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, Declare(who="Hauser", action="dodge", details={"ap": "3"}), RuleViolation,
            "dodge costs 4 AP, not 3 (ap-countdown.md, Actions)")


def test_static_action_costs_8_or_more(memory_store: Store) -> None:
    """ap-countdown.md, Actions: Misc. Static Action, 8+ AP (no maximum, so no range penalty)."""
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, Declare(who="Hauser", action="static-action", details={"ap": "7"}), RuleViolation,
            "static-action costs 8+ AP, not 7 (ap-countdown.md, Actions)")
    long = one(do(enc, Declare(who="Hauser", action="static-action", details={"ap": "12"})), ActionDeclared)
    assert (long.cost.value, long.penalty.value, long.step, long.at.value) == (12, 0, "progresses", 15)
    do(enc, Next())
    least = one(do(enc, Declare(who="Orc", action="static-action")), ActionDeclared)
    assert (least.cost.value, least.penalty.value, least.at.value) == (8, 0, 10)


def test_unknown_action_is_refused(memory_store: Store) -> None:
    """ap-countdown.md, Actions: only actions of the table can be declared."""
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, Declare(who="Hauser", action="mele-attack"), BadInput,
            "no action 'mele-attack' in the ap-countdown table (did you mean melee-attack?)")


# --- Instantaneous actions -----------------------------------------------------------------------


def test_first_instantaneous_action_is_free_and_resolves_on_the_same_count(memory_store: Store) -> None:
    """ap-countdown.md, Instantaneous actions: the first costs 0 AP, declared and resolved on one count."""
    enc = fight(memory_store)
    new_round(enc)
    declared = one(do(enc, Declare(who="Hauser", action="drop-item")), ActionDeclared)
    assert (declared.cost.value, declared.count, declared.at.value) == (0, 35, 35)
    assert declared.cost.rule == "ap-countdown.md, Instantaneous actions"
    resolved = one(do(enc, Resolve(who="Hauser")), ActionResolved)
    assert (resolved.paid, resolved.count) == (0, 35)
    assert (who(enc, "Hauser").ap, who(enc, "Hauser").initiative) == (4, 35)
    refused(enc, Declare(who="Hauser", action="use-shield", details={"ap": "0"}), BadInput, "use-shield is instantaneous: no --ap")


def test_further_instantaneous_actions_cost_1_ap_each(memory_store: Store) -> None:
    """ap-countdown.md, Instantaneous actions: "any further instantaneous actions ... take 1 AP each"."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="drop-item"))
    do(enc, Resolve(who="Hauser"))
    second = one(do(enc, Declare(who="Hauser", action="use-shield")), ActionDeclared)
    assert (second.cost.value, second.at.value) == (1, 30)
    assert second.cost.terms == (Term("instantaneous actions before", 1),)
    do(enc, Next())
    assert one(do(enc, Resolve(who="Hauser")), ActionResolved).paid == 1
    third = one(do(enc, Declare(who="Hauser", action="drop-item")), ActionDeclared)
    assert (third.cost.value, third.count, third.at.value) == (1, 30, 25)
    do(enc, Cancel(who="Hauser"))
    do(enc, Upkeep())
    new_round(enc)
    assert one(do(enc, Declare(who="Hauser", action="drop-item")), ActionDeclared).cost.value == 0  # a new round


# --- Round to Round Actions ------------------------------------------------------------------------


def test_round_to_round_action_pays_each_rounds_share_and_resolves_when_complete(memory_store: Store) -> None:
    """ap-countdown.md, Round to Round Actions: ammo reload (6 AP) spans two rounds, 4 + 2 AP."""
    enc = fight(memory_store)
    new_round(enc)
    declared = one(do(enc, Declare(who="Hauser", action="ammo-reload")), ActionDeclared)
    assert (declared.cost.value, declared.step, declared.at.value) == (6, "progresses", 15)
    refused(enc, Resolve(who="Hauser"), RuleViolation,
            "Hauser's ammo-reload has 6 AP to go: it completes in a later round (ap-countdown.md, Round to Round Actions)")
    do(enc, Next())
    share = do(enc, Next())
    assert share == [ClockAdvanced(count=15), ActionProgressed(who="Hauser", action="ammo-reload", paid=4, progress=4, cost=6)]
    assert (who(enc, "Hauser").ap, who(enc, "Hauser").ap_spent) == (0, 4)
    refused(enc, Resolve(who="Hauser"), RuleViolation,
            "Hauser's ammo-reload has 2 AP to go: it completes in a later round (ap-countdown.md, Round to Round Actions)")
    assert one(do(enc, Next()), RoundEnded).ap_lost == {"Orc": 4}  # Hauser's 4 AP went into the reload
    continued = one(new_round(enc), ActionContinued)
    assert (continued.step, continued.at.value) == ("resolves", 25)  # 35 - 2 AP x 5
    do(enc, Next())
    assert one(do(enc, Next()), ClockAdvanced) == ClockAdvanced(count=25, resolving=("Hauser",))
    assert one(do(enc, Resolve(who="Hauser")), ActionResolved).paid == 2
    assert (who(enc, "Hauser").ap, who(enc, "Hauser").initiative) == (2, 25)
    assert pending(enc, "Hauser") is None


def test_round_to_round_action_started_late_pays_the_ap_left_this_round(memory_store: Store) -> None:
    """ap-countdown.md, Round to Round Actions: begun with 3 AP left, a 6 AP reload pays 3 now and 3 next round."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="draw"))
    do(enc, Next())  # 30: the draw resolves, Hauser has 3 AP, initiative 30
    do(enc, Resolve(who="Hauser"))
    declared = one(do(enc, Declare(who="Hauser", action="ammo-reload")), ActionDeclared)
    assert (declared.count, declared.at.value) == (30, 15)  # 30 - 3 AP x 5
    progressed = one(do(enc, Next()), ActionProgressed)
    assert (progressed.paid, progressed.progress) == (3, 3)
    assert (who(enc, "Hauser").ap, who(enc, "Hauser").ap_spent) == (0, 4)
    do(enc, Next())  # the upkeep
    continued = one(new_round(enc), ActionContinued)
    assert (continued.step, continued.at.value) == ("resolves", 20)  # 35 - 3 AP x 5
    do(enc, Next())
    do(enc, Next())
    assert one(do(enc, Resolve(who="Hauser")), ActionResolved).paid == 3
    assert (who(enc, "Hauser").ap, who(enc, "Hauser").initiative) == (1, 20)


def test_pick_lock_takes_five_rounds(cli: Cli) -> None:
    """ap-countdown.md, Round to Round Actions: Pick Lock (20 AP) completes after 5 rounds of 4 AP."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "pick-lock")
    progress = []
    for _ in range(4):
        cli.ok("next")  # 30, the Orc's count
        cli.ok("next")  # 15, this round's share
        progress.append(state(cli)["pending"][0]["progress"])
        cli.ok("next")  # the upkeep
        cli_round(cli)
    assert progress == [4, 8, 12, 16]
    row = state(cli)["pending"][0]
    assert (row["step"], row["resolves_at"], row["progress"]) == ("resolves", 15, 16)
    cli_refused(cli, "resolve", "Hauser",
                error="Error: Hauser's pick-lock resolves at 15; the count is 35 (ap-countdown.md, Resolution)")
    cli.ok("next")
    cli.ok("next")
    cli.ok("resolve", "Hauser")
    resolved = logged(cli)[-1]
    assert (resolved["kind"], resolved["action"], resolved["paid"], resolved["count"]) == (
        "ap.action-resolved", "pick-lock", 4, 15,
    )
    assert state(cli)["round"] == 5


def test_round_to_round_action_is_cancelled_by_declaring_another_action(memory_store: Store) -> None:
    """ap-countdown.md, Round to Round Actions: "performed uninterrupted by other actions"."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="ammo-reload"))
    for _ in range(3):
        do(enc, Next())
    new_round(enc)
    events = do(enc, Declare(who="Hauser", action="draw"))
    assert [type(e) for e in events] == [ActionCancelled, ActionDeclared]
    cancelled = one(events, ActionCancelled)
    assert cancelled.action == "ammo-reload"
    assert cancelled.reason.startswith("interrupted by draw: a round-to-round action ends")
    row = pending(enc, "Hauser")
    assert row is not None and (row.action, row.own.ap, row.own.resolves_at) == ("draw", 1, 30)  # type: ignore[attr-defined]


def test_round_to_round_action_is_not_cancelled_by_movement(cli: Cli) -> None:
    """ap-countdown.md, Round to Round Actions: they "may be combined with other actions such as movement"."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "pick-lock")
    cli.ok("declare", "Hauser", "move", "--pace", "run", "--penalty", "-10")
    assert cli_who(cli, "Hauser")["pace"] == "run"
    assert [(p["action"], p["step"], p["resolves_at"]) for p in state(cli)["pending"]] == [("pick-lock", "progresses", 15)]
    cli.ok("next")
    cli.ok("next")
    assert state(cli)["pending"][0]["progress"] == 4
    assert not any(e["kind"] == "ap.action-cancelled" for e in logged(cli))


# --- Conditional Actions -------------------------------------------------------------------------


def test_held_action_readies_at_its_count_and_is_held_across_rounds(memory_store: Store) -> None:
    """ap-countdown.md, Conditional Actions: ready (AP spent) when it would resolve; resolved when triggered."""
    enc = fight(memory_store)
    new_round(enc)
    declared = one(do(enc, Declare(who="Hauser", action="ranged-attack", target="Orc",
                                   trigger="the orc steps onto the bridge", details={"ap": "3"})), ActionDeclared)
    assert (declared.step, declared.at.value) == ("readies", 20)
    refused(enc, Resolve(who="Hauser"), RuleViolation,
            "Hauser's held ranged-attack is ready at count 20, not yet (ap-countdown.md, Conditional Actions)")
    do(enc, Next())
    events = do(enc, Next())
    assert events == [ClockAdvanced(count=20), ActionReadied(who="Hauser", action="ranged-attack", paid=3,
                                                             trigger="the orc steps onto the bridge")]
    assert (who(enc, "Hauser").ap, who(enc, "Hauser").initiative) == (1, 20)
    assert one(do(enc, Next()), RoundEnded).ap_lost == {"Hauser": 1, "Orc": 4}
    new_round(enc)  # round 2: still held, nothing more to pay
    row = pending(enc, "Hauser")
    assert row is not None and (row.own.step, row.own.trigger, row.own.progress) == ("ready", "the orc steps onto the bridge", 3)  # type: ignore[attr-defined]
    assert row.resolves == "held until: the orc steps onto the bridge"
    do(enc, Next())
    do(enc, Declare(who="Orc", action="melee-attack", target="Hauser", details={"ap": "4"}))
    events = do(enc, Resolve(who="Hauser", hits=5))  # the trigger happens on the Orc's count
    resolved = one(events, ActionResolved)
    assert (resolved.paid, resolved.count, resolved.target) == (0, 30, "Orc")
    assert one(events, DamageTaken).hits_left == 25
    assert (who(enc, "Hauser").ap, pending(enc, "Hauser")) == (4, None)


def test_held_action_must_be_ready_within_this_round(memory_store: Store) -> None:
    """ap-countdown.md, Conditional Actions: the held action is ready (AP spent) when it would resolve."""
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, Declare(who="Hauser", action="pick-lock", trigger="the guard leaves"), RuleViolation,
            "Hauser has 4 AP left; a held pick-lock must be ready this round and needs 20 "
            "(ap-countdown.md, Conditional Actions)")


def test_held_action_is_broken_by_declaring_another_action(memory_store: Store) -> None:
    """ap-countdown.md, Conditional Actions: held only with unbroken concentration."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="ranged-attack", target="Orc", trigger="the orc moves", details={"ap": "1"}))
    assert one(do(enc, Next()), ActionReadied).paid == 1
    events = do(enc, Declare(who="Hauser", action="draw"))
    assert [type(e) for e in events] == [ActionCancelled, ActionDeclared]
    assert one(events, ActionCancelled).reason.startswith("interrupted by draw: a held action ends")
    assert (who(enc, "Hauser").ap, pending(enc, "Hauser").action) == (3, "draw")  # type: ignore[index]


def test_held_instantaneous_action_is_ready_at_once(memory_store: Store) -> None:
    """ap-countdown.md, Conditional Actions; Instantaneous actions: a 0 AP hold is ready on its own count."""
    enc = fight(memory_store)
    new_round(enc)
    events = do(enc, Declare(who="Hauser", action="drop-item", trigger="the rope snaps"))
    assert events[1:] == [ActionReadied(who="Hauser", action="drop-item", paid=0, trigger="the rope snaps")]
    resolved = one(do(enc, Resolve(who="Hauser")), ActionResolved)
    assert (resolved.paid, resolved.count) == (0, 35)


def test_upkeep_readies_a_hold_and_loses_the_ap_left_over(memory_store: Store) -> None:
    """ap-countdown.md, Conditional Actions; Action Points: a hold readied at the upkeep pays its AP, the rest are lost."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="ranged-attack", target="Orc", trigger="the orc moves", details={"ap": "1"}))
    events = do(enc, Upkeep())  # the GM ends the round at 35
    assert one(events, ActionReadied).paid == 1
    assert one(events, RoundEnded).ap_lost == {"Hauser": 3, "Orc": 4}


# --- Canceling action -----------------------------------------------------------------------------


def test_cancel_with_failed_orientation_allows_no_more_actions_this_round(cli: Cli) -> None:
    """ap-countdown.md, Actions (Orientation Maneuver) and Canceling action: Failure = no actions in round."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")
    cli.ok("cancel", "Hauser", "--orientation", "failure")
    assert (cli_who(cli, "Hauser")["out_of_round"], state(cli)["pending"]) == (True, [])
    message = "Error: Hauser failed an Orientation Maneuver: no more actions this round (ap-countdown.md, Canceling action)"
    cli_refused(cli, "declare", "Hauser", "draw", error=message)
    cli_refused(cli, "declare", "Hauser", "move", "--pace", "walk", "--penalty", "-5", error=message)
    cli.ok("upkeep")
    cli_round(cli)
    assert cli_who(cli, "Hauser")["out_of_round"] is False
    cli.ok("declare", "Hauser", "draw")


@pytest.mark.parametrize(
    ("result", "delay", "initiative"),
    [("partial", -20, 15), ("near", -10, 25), ("success", 0, 35), (None, 0, 35)],
)
def test_cancel_with_orientation_delays_initiative(
    memory_store: Store, result: str | None, delay: int, initiative: int
) -> None:
    """ap-countdown.md, Actions (Orientation Maneuver): Partial -20, Near -10, Success 0 delay."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"}))
    cancelled = one(do(enc, Cancel(who="Hauser", details={"orientation": result} if result else {})), ActionCancelled)
    assert (cancelled.delay, cancelled.out) == (delay, False)
    assert (who(enc, "Hauser").delay, who(enc, "Hauser").initiative, who(enc, "Hauser").ap) == (delay, initiative, 4)
    if initiative < 35:
        refused(enc, Declare(who="Hauser", action="draw"), RuleViolation,
                f"not Hauser's turn: initiative {initiative}, the count is 35 (ap-countdown.md, Resolution)")
    else:
        assert one(do(enc, Declare(who="Hauser", action="draw")), ActionDeclared).at.value == 30


def test_unknown_orientation_result_is_refused(cli: Cli) -> None:
    """ap-countdown.md, Actions (Orientation Maneuver): the results are Failure, Partial, Near, Success."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")
    cli_refused(cli, "cancel", "Hauser", "--orientation", "great",
                error="Error: an Orientation Maneuver is failure, partial, near, success, not 'great'", code=2)
    assert state(cli)["pending"][0]["action"] == "melee-attack"


def test_cancel_needs_an_action_under_way(memory_store: Store) -> None:
    """ap-countdown.md, Canceling action: an action may be cancelled before it is resolved."""
    enc = fight(memory_store)
    new_round(enc)
    refused(enc, Cancel(who="Hauser"), RuleViolation,
            "Hauser has no action under way to cancel (ap-countdown.md, Canceling action)")


# --- Movement --------------------------------------------------------------------------------------


def test_one_pace_change_per_tick(cli: Cli) -> None:
    """ap-countdown.md, Actions (Movement): "1 pace change allowed per tick" (a tick is one count)."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "move", "--pace", "walk", "--penalty", "-5")
    cli_refused(cli, "declare", "Hauser", "move", "--pace", "run", "--penalty", "-10",
                error="Error: Hauser already changed pace at count 35: 1 pace change per tick (ap-countdown.md, Actions)")
    assert cli_who(cli, "Hauser")["pace"] == "walk"
    cli.ok("next")
    cli.ok("declare", "Hauser", "move", "--pace", "run", "--penalty", "-10")
    assert cli_who(cli, "Hauser")["pace"] == "run"
    changed = logged(cli)[-1]
    assert (changed["kind"], changed["count"], changed["penalty"]) == ("ap.pace-changed", 30, -10)


def test_pace_penalty_applies_to_later_actions(memory_store: Store) -> None:
    """ap-countdown.md, Movement: the pace's action penalty applies to all other actions."""
    enc = fight(memory_store)
    new_round(enc)
    assert one(do(enc, Declare(who="Hauser", action="draw")), ActionDeclared).penalty.value == 0
    do(enc, Next())
    do(enc, Resolve(who="Hauser"))
    do(enc, Declare(who="Hauser", action="move", details={"pace": "run", "penalty": "-10"}))
    declared = one(do(enc, Declare(who="Hauser", action="ranged-attack", target="Orc", details={"ap": "2"})), ActionDeclared)
    assert declared.penalty.value == -35
    assert declared.penalty.terms == (Term("1 AP under the maximum", -25), Term("run pace", -10))
    assert pending(enc, "Hauser").own.penalty == -35  # type: ignore[index]


# --- Parry -----------------------------------------------------------------------------------------


def test_parry_is_declared_before_the_first_action_of_the_round(cli: Cli) -> None:
    """ap-countdown.md, Parry: "announced at the beginning of the round, or as soon as
    melee ensues". Hauser's first action is a shot, not melee: too late for a parry."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Orc", "parry", "--amount", "10", "--target", "Hauser")
    assert cli_who(cli, "Orc")["parry"] == 10
    cli.ok("declare", "Hauser", "ranged-attack", "--ap", "3", "--target", "Orc")
    cli_refused(cli, "declare", "Hauser", "parry", "--amount", "5",
                error="Error: Hauser's parry had to be announced at the beginning of the round, or as soon as "
                      "melee ensues: no melee attack involves Hauser now (ap-countdown.md, Parry)")
    cli_refused(cli, "declare", "Orc", "parry", "--amount", "5",
                error="Error: Orc has announced a parry this round already (ap-countdown.md, Parry)")
    assert (cli_who(cli, "Hauser")["parry"], cli_who(cli, "Orc")["parry"]) == (None, 10)


def test_used_parry_spends_the_pending_melee_attacks_ap_at_once(memory_store: Store) -> None:
    """ap-countdown.md, Parry: the AP of a melee action using parry are spent once the parry is used."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Orc", action="parry", amount=10))
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"}))
    do(enc, Next())
    do(enc, Declare(who="Orc", action="melee-attack", target="Hauser", details={"ap": "2"}))
    do(enc, Next())
    events = do(enc, Resolve(who="Hauser", hits=3))
    assert [type(e) for e in events] == [ParryUsed, ActionResolved, DamageTaken]
    assert one(events, ParryUsed) == ParryUsed(who="Orc", against="Hauser", paid=2)
    assert (who(enc, "Orc").ap, who(enc, "Orc").ap_spent, who(enc, "Orc").initiative) == (2, 2, 20)
    refused(enc, Cancel(who="Orc"), RuleViolation, "Orc used a parry: the melee attack's AP are spent (ap-countdown.md, Parry)")
    # The attack itself still happens at its normal count, already paid for.
    resolved = one(do(enc, Resolve(who="Orc")), ActionResolved)
    assert (resolved.paid, resolved.count) == (0, 20)
    assert who(enc, "Orc").ap == 2
    # The AP left over after that melee attack are the Orc's to use.
    assert one(do(enc, Declare(who="Orc", action="draw")), ActionDeclared).at.value == 15


def test_used_parry_pays_a_held_melee_attack_once(memory_store: Store) -> None:
    """ap-countdown.md, Parry; Conditional Actions: AP spent at the parry are not paid again when the hold readies."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Orc", action="parry", amount=10))
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "2"}))
    do(enc, Next())
    do(enc, Declare(who="Orc", action="melee-attack", target="Hauser", trigger="Hauser steps in", details={"ap": "2"}))
    do(enc, Next())
    assert one(do(enc, Resolve(who="Hauser")), ParryUsed).paid == 2
    assert one(do(enc, Next()), ActionReadied).paid == 0
    assert (who(enc, "Orc").ap, who(enc, "Orc").ap_spent) == (2, 2)
    assert one(do(enc, Resolve(who="Orc")), ActionResolved).paid == 0


def test_used_parry_with_no_melee_pending_makes_the_next_action_a_melee_attack(memory_store: Store) -> None:
    """ap-countdown.md, Parry: parrying, then deciding to do something else, is not allowed."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Orc", action="parry", amount=10))
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "2"}))
    do(enc, Next())  # 30: the Orc waits
    do(enc, Next())  # 25: Hauser's attack
    assert one(do(enc, Resolve(who="Hauser")), ParryUsed).paid == 0
    refused(enc, Declare(who="Orc", action="draw"), RuleViolation,
            "Orc used a parry this round: the AP are spent on a melee attack (ap-countdown.md, Parry)")
    assert one(do(enc, Declare(who="Orc", action="melee-attack", target="Hauser", details={"ap": "2"})), ActionDeclared).at.value == 15
    assert one(do(enc, Next()), ClockAdvanced).count == 15
    do(enc, Resolve(who="Orc"))
    assert (who(enc, "Orc").ap, who(enc, "Orc").initiative) == (2, 20)
    assert one(do(enc, Declare(who="Orc", action="draw")), ActionDeclared).at.value == 10


# --- Charging --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("speed", "multiplier", "critical"),
    [(0, 1, 0), (2, 1, 0), (3, 2, 1), (5, 2, 1), (6, 3, 2), (11, 3, 2), (12, 4, 3), (30, 4, 3)],
)
def test_charge_multiplies_hits_by_relative_speed(memory_store: Store, speed: int, multiplier: int, critical: int) -> None:
    """ap-countdown.md, Charging: 3 m/s x2 +1, 6 m/s x3 +2, 12 m/s x4 +3; under 3 m/s no bonus."""
    enc = fight(memory_store)
    hauser_attack = Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"})
    new_round(enc)
    do(enc, hauser_attack)
    do(enc, Next())
    do(enc, Next())
    events = do(enc, Resolve(who="Hauser", hits=5, details={"charge": str(speed)}))
    resolved = one(events, ActionResolved)
    assert resolved.charge is not None
    assert (resolved.charge.value, resolved.critical_bonus) == (multiplier, critical)
    damage = one(events, DamageTaken)
    assert (damage.hits.value, damage.hits_left) == (5 * multiplier, 30 - 5 * multiplier)
    assert combatant(enc, "Orc").vital.value == 30 - 5 * multiplier


def test_charge_through_the_cli(cli: Cli) -> None:
    """ap-countdown.md, Charging: `resolve --hits N --charge SPEED` deals hits x multiplier."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")
    cli.ok("next")
    cli.ok("next")
    cli.ok("resolve", "Hauser", "--hits", "4", "--charge", "6")
    assert (cli_who(cli, "Orc")["damage"], cli_who(cli, "Orc")["hits_left"]) == (12, 18)


def test_charge_is_refused_for_a_non_melee_action(cli: Cli) -> None:
    """ap-countdown.md, Charging: a charge is a melee blow."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "ranged-attack", "--ap", "3", "--target", "Orc")
    cli.ok("next")
    cli.ok("next")
    cli_refused(cli, "resolve", "Hauser", "--hits", "3", "--charge", "6",
                error="Error: only a melee attack can be a charge, not ranged-attack (ap-countdown.md, Charging)")
    assert cli_who(cli, "Orc")["hits_left"] == 30
    cli.ok("resolve", "Hauser", "--hits", "3")
    assert cli_who(cli, "Orc")["hits_left"] == 27


# --- Resolution: the countdown ----------------------------------------------------------------------


def test_next_moves_to_the_next_count_where_someone_declares_or_resolves(memory_store: Store) -> None:
    """ap-countdown.md, Resolution: the GM counts down; actions are declared and resolved on their counts."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"}))
    assert do(enc, Next()) == [ClockAdvanced(count=30, declaring=("Orc",))]
    do(enc, Declare(who="Orc", action="ranged-attack", target="Hauser", details={"ap": "1"}))
    assert do(enc, Next()) == [ClockAdvanced(count=25, resolving=("Orc",))]
    do(enc, Resolve(who="Orc"))
    assert who(enc, "Orc").initiative == 25
    assert do(enc, Next()) == [ClockAdvanced(count=20, resolving=("Hauser",))]
    assert (enc.view().clock.running, enc.view().clock.own.count) == (True, 20)


def test_next_refuses_to_pass_an_unresolved_action(cli: Cli) -> None:
    """ap-countdown.md, Resolution: an action is resolved on the count where it completes."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")
    cli.ok("next")
    cli.ok("next")
    cli_refused(cli, "next",
                error="Error: Hauser's melee-attack resolves at 20: `skirmish resolve Hauser` or "
                "`skirmish cancel Hauser` first (ap-countdown.md, Resolution)")
    assert state(cli)["clock"]["count"] == 20


def test_next_at_the_end_of_the_countdown_runs_the_upkeep(memory_store: Store) -> None:
    """ap-countdown.md, Tactical round: Initiative, Resolution, then Upkeep ends the round."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, ApplyEffect(who="Hauser", kind="bleeding", per_round=2))
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "4"}))
    do(enc, Next())
    do(enc, Declare(who="Orc", action="dodge"))
    assert one(do(enc, Next()), ClockAdvanced).count == 15
    do(enc, Resolve(who="Hauser"))
    assert one(do(enc, Next()), ClockAdvanced).count == 10
    do(enc, Resolve(who="Orc"))
    events = do(enc, Next())
    assert events == [
        UpkeepTick(step="bleeding", who="Hauser", effect="bleeding", change=-2, reason="bleeding 2 a round"),
        RoundEnded(round=1, ap_lost={}),
    ]
    assert (enc.view().clock.running, enc.view().clock.own.count) == (False, None)
    assert combatant(enc, "Hauser").vital.value == 38


# --- Upkeep ------------------------------------------------------------------------------------------


def test_upkeep_records_one_event_per_tick(memory_store: Store) -> None:
    """ap-countdown.md, Upkeep: bleeding, timed effects, stun, stagger, environment, each its own event."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, ApplyEffect(who="Hauser", kind="bleeding", per_round=2))
    do(enc, ApplyEffect(who="Orc", kind="bleeding", per_round=1))
    do(enc, ApplyEffect(who="Orc", kind="blessed", rounds=3, custom=True))  # a spell: the GM's own
    do(enc, ApplyEffect(who="Hauser", kind="stunned", rounds=2))
    do(enc, ApplyEffect(who="Orc", kind="staggered"))
    do(enc, ApplyEffect(who="scene", kind="tide", per_round=1))
    before = stored(enc)
    events = do(enc, Upkeep())
    assert stored(enc) == before + 7
    ticks = [(e.step, e.who, e.effect, e.change, e.removed) for e in events if isinstance(e, UpkeepTick)]
    assert ticks == [
        ("bleeding", "Hauser", "bleeding", -2, False),
        ("bleeding", "Orc", "bleeding", -1, False),
        ("timed", "Orc", "blessed", -1, False),
        ("stun", "Hauser", "stunned", -1, False),
        ("stagger", "Orc", "staggered", 0, True),
        ("environment", "scene", "tide", 1, False),
    ]
    assert isinstance(events[-1], RoundEnded)


def test_upkeep_subtracts_hits_due_to_bleeding(memory_store: Store) -> None:
    """ap-countdown.md, Upkeep: "Subtract hits due to bleeding"."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, ApplyEffect(who="Hauser", kind="bleeding", per_round=2))
    do(enc, ApplyEffect(who="Hauser", kind="bleeding", per_round=1))  # wounds add up: 3 a round
    assert [(e.kind, e.detail) for e in combatant(enc, "Hauser").effects] == [("bleeding", "3 a round")]
    do(enc, Upkeep())
    assert (who(enc, "Hauser").damage, combatant(enc, "Hauser").vital.value) == (3, 37)
    new_round(enc)
    do(enc, Upkeep())
    assert combatant(enc, "Hauser").vital.value == 34
    assert combatant(enc, "Orc").vital.value == 30


def test_timed_effects_lose_a_round_each_upkeep_and_expire(memory_store: Store) -> None:
    """ap-countdown.md, Upkeep: non-stun timed effects lose 1 round each upkeep."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, ApplyEffect(who="Orc", kind="blessed", rounds=2, custom=True))
    tick = one(do(enc, Upkeep()), UpkeepTick)
    assert (tick.rounds_left, tick.removed) == (1, False)
    assert effects(enc, "Orc") == [("blessed", 1)]
    new_round(enc)
    tick = one(do(enc, Upkeep()), UpkeepTick)
    assert (tick.rounds_left, tick.removed) == (0, True)
    assert effects(enc, "Orc") == []


def test_only_the_most_severe_stun_is_reduced(memory_store: Store) -> None:
    """ap-countdown.md, Upkeep: stun effects lose 1 round from the most severe (Unable to Parry, Stunned, Dazed)."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, ApplyEffect(who="Hauser", kind="dazed", rounds=2))
    do(enc, ApplyEffect(who="Hauser", kind="stunned", rounds=2))
    do(enc, ApplyEffect(who="Hauser", kind="stunned-unable-to-parry", rounds=1))
    seen = []
    for _ in range(5):
        ticks = [e for e in do(enc, Upkeep()) if isinstance(e, UpkeepTick)]
        assert len(ticks) == 1
        seen.append(effects(enc, "Hauser"))
        new_round(enc)
    assert seen == [
        [("dazed", 2), ("stunned", 2)],
        [("dazed", 2), ("stunned", 1)],
        [("dazed", 2)],
        [("dazed", 1)],
        [],
    ]


def test_stun_is_not_reduced_at_the_first_upkeep_after_2_ap_spent(memory_store: Store) -> None:
    """ap-countdown.md, Upkeep: stun is reduced "if the combatant had spent less than 2 AP before being stunned"."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "2"}))
    do(enc, Next())
    do(enc, Declare(who="Orc", action="ranged-attack", target="Hauser", details={"ap": "1"}))
    assert one(do(enc, Next()), ClockAdvanced) == ClockAdvanced(count=25, resolving=("Hauser", "Orc"))
    do(enc, Resolve(who="Orc"))  # the Orc has spent 1 AP
    do(enc, Resolve(who="Hauser"))  # Hauser has spent 2 AP: not "less than 2"
    applied = one(do(enc, ApplyEffect(who="Hauser", kind="stunned", rounds=2)), EffectApplied)
    assert applied.spent_before is not None and applied.spent_before.value == 2
    assert one(do(enc, ApplyEffect(who="Orc", kind="stunned", rounds=2)), EffectApplied).spent_before.value == 1  # type: ignore[union-attr]
    ticks = {e.who: e for e in do(enc, Upkeep()) if isinstance(e, UpkeepTick)}
    assert (ticks["Hauser"].change, ticks["Hauser"].rounds_left) == (0, 2)
    assert ticks["Hauser"].reason == "not reduced: Hauser had spent 2 AP before being stunned"
    assert (ticks["Orc"].change, ticks["Orc"].rounds_left) == (-1, 1)
    new_round(enc)
    do(enc, Upkeep())
    assert (effects(enc, "Hauser"), effects(enc, "Orc")) == ([("stunned", 1)], [])


def test_late_milder_stun_is_reduced_normally_once_it_is_the_most_severe(memory_store: Store) -> None:
    """ap-countdown.md, Upkeep: the 2 AP check governs only the first upkeep after the stun."""
    enc = fight(memory_store)
    hauser_melee_resolved(enc)  # 3 AP spent
    do(enc, ApplyEffect(who="Hauser", kind="stunned", rounds=1))
    do(enc, ApplyEffect(who="Hauser", kind="dazed", rounds=2))
    seen = []
    for _ in range(3):
        do(enc, Upkeep())
        seen.append(effects(enc, "Hauser"))
        new_round(enc)
    # Round 1 kept the stun (late); round 2 ended it; round 3 reduces the dazed, two upkeeps old.
    assert seen == [[("stunned", 1), ("dazed", 2)], [("dazed", 2)], [("dazed", 1)]]


def test_stun_applied_between_rounds_counts_no_ap_spent(memory_store: Store) -> None:
    """ap-countdown.md, Upkeep: after the upkeep, nothing of the coming round is spent yet."""
    enc = fight(memory_store)
    hauser_melee_resolved(enc)
    do(enc, Upkeep())
    applied = one(do(enc, ApplyEffect(who="Hauser", kind="stunned", rounds=2)), EffectApplied)
    assert applied.spent_before is not None and applied.spent_before.value == 0
    new_round(enc)
    do(enc, Upkeep())
    assert effects(enc, "Hauser") == [("stunned", 1)]


def test_stagger_is_removed_unless_2_ap_were_spent_before(memory_store: Store) -> None:
    """ap-countdown.md, Upkeep: staggered is removed if less than 2 AP were spent before it."""
    enc = fight(memory_store)
    hauser_melee_resolved(enc)
    do(enc, ApplyEffect(who="Hauser", kind="staggered"))
    do(enc, ApplyEffect(who="Orc", kind="staggered"))
    ticks = {e.who: e for e in do(enc, Upkeep()) if isinstance(e, UpkeepTick)}
    assert (ticks["Hauser"].removed, ticks["Orc"].removed) == (False, True)
    assert ticks["Hauser"].reason == "stays: Hauser had spent 3 AP before being staggered"
    assert (effects(enc, "Hauser"), effects(enc, "Orc")) == ([("staggered", None)], [])
    new_round(enc)
    assert one(do(enc, Upkeep()), UpkeepTick).removed is True
    assert effects(enc, "Hauser") == []


def test_scene_counters_advance_each_upkeep(cli: Cli) -> None:
    """ap-countdown.md, Upkeep: "Advance any environmental or other effects (e.g., a rising tide)"."""
    cli_fight(cli)
    cli.ok("effect", "scene", "tide", "--per-round", "1")
    cli.ok("effect", "scene", "fire", "--per-round", "2", "--start", "5")
    values = []
    for _ in range(2):
        cli_round(cli)
        cli.ok("upkeep")
        values.append({e["name"]: e["value"] for e in state(cli)["environment"]})
    assert values == [{"tide": 1, "fire": 7}, {"tide": 2, "fire": 9}]
    cli_refused(cli, "effect", "scene", "tide",
                error="Error: an environmental counter needs --per-round N (how much tide advances each upkeep)", code=2)


def test_upkeep_is_refused_while_an_action_is_still_to_resolve(cli: Cli) -> None:
    """ap-countdown.md, Upkeep: the last step of the round, after every action has resolved."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")
    cli_refused(cli, "upkeep",
                error="Error: Hauser's melee-attack is still to resolve at 20: resolve or cancel it before the "
                "upkeep (ap-countdown.md, Upkeep)")
    assert state(cli)["clock"] == {"in_round": True, "count": 35}


def test_first_aid_reduces_bleeding_by_1(memory_store: Store) -> None:
    """ap-countdown.md, Actions: Apply first aid, 8 AP, per hit/round (Upkeep: bleeding)."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, ApplyEffect(who="Orc", kind="bleeding", per_round=3))
    assert one(do(enc, Declare(who="Hauser", action="first-aid", target="Orc")), ActionDeclared).step == "progresses"
    for _ in range(3):
        do(enc, Next())  # 30, 15 (first share), the upkeep
    assert combatant(enc, "Orc").vital.value == 27
    new_round(enc)
    do(enc, Next())
    do(enc, Next())
    events = do(enc, Resolve(who="Hauser"))
    assert one(events, ActionResolved).paid == 4
    assert one(events, BleedingStaunched) == BleedingStaunched(who="Orc", by="Hauser", per_round=2)
    do(enc, Next())
    assert combatant(enc, "Orc").vital.value == 25
    assert [(e.kind, e.detail) for e in combatant(enc, "Orc").effects] == [("bleeding", "2 a round")]


def test_undo_of_an_upkeep_brings_expired_effects_back_exactly(cli: Cli) -> None:
    """ap-countdown.md, Upkeep: each tick is an event; undoing the upkeep restores every effect as it was."""
    cli_fight(cli)
    cli_round(cli)
    cli.ok("effect", "Hauser", "blessed", "--rounds", "1", "--custom")
    cli.ok("effect", "Hauser", "stunned", "--rounds", "1")
    cli.ok("effect", "Hauser", "dazed", "--rounds", "3")
    cli.ok("effect", "Orc", "staggered")
    cli.ok("effect", "Orc", "bleeding", "--per-round", "2")
    cli.ok("effect", "scene", "tide", "--per-round", "1")
    before = state(cli)
    cli.ok("upkeep")
    after = state(cli)
    assert [(e["kind"], e["left"]) for e in cli_who(cli, "Hauser")["effects"]] == [("dazed", 3)]
    assert [e["kind"] for e in cli_who(cli, "Orc")["effects"]] == ["bleeding"]
    assert (cli_who(cli, "Orc")["hits_left"], after["environment"][0]["value"]) == (28, 1)
    cli.ok("undo")
    assert state(cli) == before
    # The restored effects tick again exactly as the first time.
    cli.ok("upkeep")
    again = state(cli)
    assert {k: v for k, v in again.items() if k not in ("head", "at")} == {
        k: v for k, v in after.items() if k not in ("head", "at")
    }


# --- the clock in the view --------------------------------------------------------------------


def test_the_clock_says_who_acts_at_each_count_and_who_is_next(memory_store: Store) -> None:
    """Hauser 6 + 8 + Qu 1 = 15, Orc 5 + 5 = 10; actual initiative + 5 x 4 AP: 35 and 30
    (Initiative). Hauser's 3 AP attack declared at 35 resolves at 20, the Orc's 4 AP one
    declared at 30 at 10 (Resolution)."""
    enc = fight(memory_store)
    new_round(enc)
    view = enc.view()
    assert (view.clock.moment, view.clock.now, view.clock.next) == ("count 35", ("Hauser",), ("Orc",))
    assert [(c.name, c.acting) for c in view.combatants] == [("Hauser", True), ("Orc", False)]
    assert (view.combatants[0].budget.left, view.combatants[0].budget.of) == (4, 4)
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"}))
    view = enc.view()
    assert (view.clock.now, view.clock.next) == ((), ("Orc",))
    assert [(p.who, p.target, p.resolves) for p in view.pending] == [("Hauser", "Orc", "count 20")]
    do(enc, Next())
    assert (enc.view().clock.moment, enc.view().clock.now, enc.view().clock.next) == ("count 30", ("Orc",), ("Hauser",))
    do(enc, Declare(who="Orc", action="melee-attack", target="Hauser"))
    do(enc, Next())
    view = enc.view()
    assert (view.clock.moment, view.clock.now, view.clock.next) == ("count 20", ("Hauser",), ("Orc",))
    do(enc, Resolve(who="Hauser"))
    # Hauser has 1 AP left: initiative 15 + 5 = 20, the count he is at: he may declare again.
    assert enc.view().clock.now == ("Hauser",)
    assert [c.name for c in enc.view().combatants] == ["Orc", "Hauser"], "Orc 30 now above Hauser's 20"


def test_a_failed_orientation_maneuver_puts_the_combatant_out_for_the_round(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"}))
    do(enc, Cancel(who="Hauser", details={"orientation": "failure"}))
    view = enc.view()
    assert view.combatant("Hauser").status == "out" and "Hauser" not in view.clock.now + view.clock.next


def test_a_parry_may_be_announced_as_soon_as_melee_ensues(memory_store: Store) -> None:
    """ap-countdown.md, Parry: "or as soon as melee ensues". Hauser (35) acts first, a
    shot; the Orc (30) then attacks him in melee: Hauser may announce a parry now,
    against the Orc, though he has acted this round."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="ranged-attack", target="Orc", details={"ap": "1"}))  # resolves at 30
    do(enc, Next())
    do(enc, Resolve(who="Hauser"))
    do(enc, Declare(who="Orc", action="melee-attack", target="Hauser", details={"ap": "4"}))  # resolves at 10
    parry = one(do(enc, Declare(who="Hauser", action="parry", amount=10)), ParryDeclared)
    assert (parry.amount, parry.against) == (10, "Orc")


def test_an_attack_resolved_at_a_harder_pace_takes_that_paces_penalty(memory_store: Store) -> None:
    """ap-countdown.md, Movement: the pace's penalty "applies to all other actions
    performed in the round". Hauser declares a 3 AP melee attack at 35 standing still
    (-25 for 1 AP under the maximum), then starts to run (-20): the attack, performed at
    20 while running, is at -25 + -20 = -45."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"}))
    do(enc, Declare(who="Hauser", action="move", details={"pace": "run", "penalty": "-20"}))
    do(enc, Next())
    do(enc, Next())
    resolved = one(do(enc, Resolve(who="Hauser")), ActionResolved)
    assert resolved.penalty is not None and resolved.penalty.value == -45
    assert [t.value for t in resolved.penalty.terms] == [-25, -20]


def test_the_declared_penalty_stands_under_pace_penalty_declared(memory_store: Store) -> None:
    enc = fight(memory_store, **{"pace-penalty": "declared"})
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"}))
    do(enc, Declare(who="Hauser", action="move", details={"pace": "run", "penalty": "-20"}))
    do(enc, Next())
    do(enc, Next())
    assert one(do(enc, Resolve(who="Hauser")), ActionResolved).penalty is None


# --- down, out, left, healed --------------------------------------------------------------------


def test_goes_down_at_0_by_default(memory_store: Store) -> None:
    """The text never says when a combatant is down: at 0 hits left by default (option
    goes-down). The Orc (30 hits) takes 30 with its attack under way: the attack ends,
    the countdown passes it by, its declarations are refused; healed, it stands again."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Next())  # count 30: the Orc declares
    do(enc, Declare(who="Orc", action="melee-attack", target="Hauser", details={"ap": "4"}))
    events = do(enc, Damage(who="Orc", amount=30))
    cancelled = one(events, ActionCancelled)
    assert cancelled.reason == "ends: Orc is down (0 hits left, option goes-down=at-0)"
    view = enc.view()
    assert view.combatant("Orc").status == "down" and [c.name for c in view.combatants] == ["Hauser", "Orc"]
    assert "Orc" not in view.clock.now + view.clock.next
    refused(enc, Declare(who="Orc", action="dodge", details={"ap": "4"}), RuleViolation,
            "Orc is down (0 hits left, option goes-down=at-0): it cannot act")
    healed = one(do(enc, Heal(who="Orc", amount=5)), HitsHealed)
    assert (healed.hits.value, healed.hits_left) == (5, 5)
    assert enc.view().combatant("Orc").status == "fighting"
    refused(enc, Heal(who="Hauser", amount=3), RuleViolation, "Hauser has all its 40 hits: nothing to heal")
    refused(enc, Heal(who="Orc", amount=0), BadInput, "heal takes at least 1 hit, not 0")
    assert one(do(enc, Heal(who="Orc", amount=99)), HitsHealed).hits.value == 25, "never above its hits"


def test_a_down_or_departed_combatant_rolls_no_initiative_and_gets_no_ap(memory_store: Store) -> None:
    """ap-countdown.md, Initiative: initiative "is rolled anew every round by every combatant"
    and Action Points: "Combatants receive 4 Action Points every round". The Orc, down (30 of
    its 30 hits taken, option goes-down=at-0) when round 2 begins, is no combatant acting in
    it: no roll, no AP, so nothing to lose at the upkeep. Worked by hand: Hauser alone rolls,
    6 + 8 + Qu 1 = 15, + 5 x 4 AP = 35; his 4 unspent AP are the only ones lost."""
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Damage(who="Orc", amount=30))
    do(enc, Upkeep())
    refused(enc, StartRound(rolls={"Hauser": (6, 8), "Orc": (5, 5)}), RuleViolation,
            "Orc is down: it rolls no initiative this round (ap-countdown.md, Initiative)")
    events = do(enc, StartRound(rolls={"Hauser": (6, 8)}))
    started = one(events, RoundStarted)
    assert [(i.who, i.ap, i.actual.value) for i in started.initiatives] == [("Hauser", 4, 35)]
    assert started.idle == ("Orc",)
    assert enc.ruleset.describe(started) == "Round 2 begins: initiative Hauser 35; the count starts at 35; sitting it out: Orc"
    orc = combatant(enc, "Orc")
    assert (orc.budget.left, orc.budget.of, orc.own.initiative) == (0, 0, None)  # type: ignore[attr-defined]
    do(enc, Heal(who="Orc", amount=5))  # back up mid-round: it waits for the next round
    refused(enc, Declare(who="Orc", action="dodge"), RuleViolation,
            "Orc has no initiative this round (it joined, or was down or away, when it began): "
            "wait for the next round (ap-countdown.md, Initiative)")
    assert one(do(enc, Next()), RoundEnded).ap_lost == {"Hauser": 4}
    do(enc, Leave(who="Orc"))
    assert one(do(enc, StartRound(rolls={"Hauser": (6, 8)})), RoundStarted).idle == ("Orc",)
    do(enc, Upkeep())
    do(enc, Leave(who="Hauser"))
    refused(enc, StartRound(), RuleViolation,
            "nobody can act: every combatant is down or has left (ap-countdown.md, Initiative)")


def test_the_budget_is_of_the_ap_had_this_round_after_the_upkeep(memory_store: Store) -> None:
    """ap-countdown.md, Action Points: Hauser had 4 AP in round 1, spent 3 on his melee attack
    and lost 1 at the upkeep (option carry-ap=no): his budget reads 0 of the 4 he had, not 0/3."""
    enc = fight(memory_store)
    hauser_melee_resolved(enc)
    assert (combatant(enc, "Hauser").budget.left, combatant(enc, "Hauser").budget.of) == (1, 4)
    do(enc, Upkeep())
    assert (combatant(enc, "Hauser").budget.left, combatant(enc, "Hauser").budget.of) == (0, 4)
    assert (combatant(enc, "Orc").budget.left, combatant(enc, "Orc").budget.of) == (0, 4)


@pytest.mark.parametrize(("rule", "hits", "down"), [
    ("at-0", 0, True), ("at-0", 1, False), ("below-0", 0, False), ("below-0", -1, True), ("never", -50, False),
])
def test_the_goes_down_option(memory_store: Store, rule: str, hits: int, down: bool) -> None:
    enc = fight(memory_store, **{"goes-down": rule})
    do(enc, Damage(who="Orc", amount=30 - hits))
    assert (enc.view().combatant("Orc").status == "down") is down


def test_leave_and_return(memory_store: Store) -> None:
    enc = fight(memory_store)
    new_round(enc)
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"}))
    events = do(enc, Leave(who="Hauser", reason="flees over the bridge"))
    assert [type(e).__name__ for e in events] == ["CombatantLeft", "ActionCancelled"]
    view = enc.view()
    assert view.combatant("Hauser").status == "left" and view.pending == ()
    assert view.clock.now == () and view.clock.next == ("Orc",)
    refused(enc, Declare(who="Hauser", action="dodge", details={"ap": "4"}), RuleViolation,
            "Hauser has left the fight: it cannot act until `skirmish return Hauser`")
    refused(enc, Leave(who="Hauser"), RuleViolation, "Hauser has already left the fight (`skirmish return Hauser`)")
    do(enc, Return(who="Hauser"))
    assert enc.view().combatant("Hauser").status == "fighting"
    refused(enc, Return(who="Orc"), RuleViolation, "Orc has not left the fight: nothing to return from")
    enc.undo(1, "undo")
    assert enc.view().combatant("Hauser").status == "left"
