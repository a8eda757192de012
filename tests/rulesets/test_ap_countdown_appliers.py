"""ap-countdown's appliers write a fighter's field only where it changes (a round start's
resets are tested first, projections/rulesets/ap_countdown/fold.py): whatever a fighter held,
the state after an event is the one the rules give.

The fighters are built by hand, each field of the round set as a round of play leaves it,
and the event applied to them; the state expected is the fighter as it was with the rules'
figures put in by hand (``replace``), never read back from the applier. Hauser: Qu +1,
rolls 6 + 8 = 14, base 15; with 4 AP his initiative is 15 + 4 x 5 = 35 (ap-countdown.md,
Initiative, its example).
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from skirmish.eventlog.events import Derivation, EncounterStarted, Event
from skirmish.projections.rulesets.ap_countdown import RULESET
from skirmish.projections.rulesets.ap_countdown.vocabulary import R_INIT
from skirmish.projections.rulesets.ap_countdown.state import Action, ApState, Effect, Fighter
from skirmish.projections.rulesets.ap_countdown.events import (
    ActionDeclared,
    ActionResolved,
    Initiative,
    RoundEnded,
    RoundStarted,
    UpkeepTick,
)

BASE = Derivation(15, "2d10 + Qu - 1 per -10 penalty", rule=R_INIT)  # 14 + 1 (Initiative)
OLD_BASE = Derivation(12, "2d10 + Qu - 1 per -10 penalty", rule=R_INIT)  # last round's

# Each figure a round leaves on a fighter, and what a new round puts back (Initiative:
# AP anew every round; Parry: announced each round; Instantaneous actions: "that round";
# Canceling action: the Orientation Maneuver's delay and failure last the round).
ROUND_FIGURES: dict[str, tuple[Any, Any]] = {
    "spent": (3, 0),
    "instants": (2, 0),
    "delay": (-20, 0),
    "out": (True, False),
    "parry": (10, None),
    "parry_against": ("Orc", None),
    "parry_used": (True, False),
    "parry_owes_melee": (True, False),
    "declared_this_round": (True, False),
}
LEFT_BY_A_ROUND = {name: left for name, (left, _) in ROUND_FIGURES.items()}
RESET = {name: reset for name, (_, reset) in ROUND_FIGURES.items()}


def state_of(*fighters: Fighter, carry: str = "no") -> ApState:
    started = EncounterStarted(name="t", ruleset="ap-countdown", options={"carry-ap": carry}, seed=1)
    state = RULESET.initial(started)
    for f in fighters:
        state.fighters[f.name] = f
    return state


def fighter(name: str, **fields: Any) -> Fighter:
    return Fighter(name=name, side="players", qu=1, hits=40, penalty=0, **fields)


def round_two(budgets: bool = True, ap: int = 4) -> RoundStarted:
    """Round 2: Hauser rolls (base 15, ``ap`` AP), the Orc sits it out (down or gone)."""
    actual = Derivation(15 + 5 * ap, "base + 5 x AP", rule=R_INIT)
    return RoundStarted(round=2, count=15 + 5 * ap, initiatives=(Initiative("Hauser", BASE, ap, actual),),
                        idle=("Orc",), budgets=budgets)


def apply(state: ApState, *events: Event) -> None:
    for event in events:
        RULESET.apply(state, event)


def same(a: Any, b: Any) -> bool:
    return msgspec.msgpack.encode(a) == msgspec.msgpack.encode(b)


# --- a round start (Initiative) ------------------------------------------------------------------


def test_a_round_start_resets_every_figure_of_the_round_for_the_roller_and_the_idle() -> None:
    """Every figure left by round 1 at once: Hauser rolls (base 15, 4 AP, 35), the Orc is
    idle (no initiative, no AP); both start the round with nothing spent, declared or parried."""
    before = {"base": 12, "base_derivation": OLD_BASE, "ap": 1, "had": 4, **LEFT_BY_A_ROUND}
    hauser, orc = fighter("Hauser", **before), fighter("Orc", **before)
    state = state_of(replace(hauser), replace(orc))
    apply(state, round_two())
    assert same(state.fighters["Hauser"], replace(hauser, **RESET, base=15, base_derivation=BASE, ap=4, had=4))
    assert same(state.fighters["Orc"], replace(orc, **RESET, base=None, ap=0, had=0))  # its derivation kept
    assert (state.fighters["Hauser"].initiative, state.fighters["Orc"].initiative) == (35, None)
    assert (state.round, state.in_round, state.count) == (2, True, 35)


@pytest.mark.parametrize("name", ROUND_FIGURES)
def test_a_round_start_resets_a_figure_left_alone_by_the_others(name: str) -> None:
    """One figure of round 1 left, the others at nothing: that one is reset, for the roller
    and for the idle, and nothing else moves."""
    left = {name: ROUND_FIGURES[name][0]}
    hauser, orc = fighter("Hauser", base=12, base_derivation=OLD_BASE, had=4, **left), fighter("Orc", had=4, **left)
    state = state_of(replace(hauser), replace(orc))
    apply(state, round_two())
    assert same(state.fighters["Hauser"], replace(hauser, **RESET, base=15, base_derivation=BASE, ap=4, had=4))
    assert same(state.fighters["Orc"], replace(orc, **RESET, base=None, ap=0, had=0))


def test_a_round_start_on_fighters_with_nothing_to_reset_sets_their_initiative_alone() -> None:
    """A fresh fighter (nothing spent) rolls; one idle the round before stays idle as it was."""
    hauser = fighter("Hauser")
    orc = fighter("Orc", base=None, ap=0, had=0, base_derivation=OLD_BASE)
    state = state_of(replace(hauser), replace(orc))
    apply(state, round_two())
    assert same(state.fighters["Hauser"], replace(hauser, base=15, base_derivation=BASE, ap=4, had=4))
    assert same(state.fighters["Orc"], orc)


@pytest.mark.parametrize(("budgets", "had", "orc_had"), [(True, 4, 0), (False, None, None)])
def test_the_ap_a_fighter_had_is_kept_only_by_a_round_start_that_records_it(
    budgets: bool, had: int | None, orc_had: int | None
) -> None:
    """A round start with budgets keeps the AP each had (4 for the roller, 0 for the idle);
    an older one without them keeps none (None), whatever the round before kept."""
    state = state_of(fighter("Hauser", had=4, ap=0), fighter("Orc", had=4))
    apply(state, round_two(budgets=budgets))
    assert (state.fighters["Hauser"].had, state.fighters["Orc"].had) == (had, orc_had)
    assert (state.fighters["Hauser"].ap, state.fighters["Orc"].ap) == (4, 0)


def test_carried_ap_held_at_a_round_start_are_the_rounds_ap() -> None:
    """Option carry-ap: 2 AP left from round 1 and 4 new, 6 AP (held 6 already: unchanged);
    initiative 15 + 6 x 5 = 45 (Initiative)."""
    state = state_of(fighter("Hauser", ap=6, had=6, spent=2), fighter("Orc"), carry="yes")
    apply(state, round_two(ap=6))
    hauser = state.fighters["Hauser"]
    assert (hauser.ap, hauser.had, hauser.spent, hauser.initiative) == (6, 6, 0, 45)


# --- a round's end (Action Points) ---------------------------------------------------------------


@pytest.mark.parametrize(("carry", "left"), [("no", (0, 0, 0)), ("yes", (2, 4, 0))])
def test_ap_left_at_a_round_end_are_lost_unless_carried(carry: str, left: tuple[int, int, int]) -> None:
    """Hauser has 2 AP left of 4, the Orc held all 4 back, the Troll spent its 4: without
    carry-ap all hold 0 after the round (Action Points: 4 "every round")."""
    state = state_of(fighter("Hauser", ap=2, spent=2), fighter("Orc", ap=4), fighter("Troll", spent=4), carry=carry)
    state.in_round, state.count = True, 5
    apply(state, RoundEnded(round=1, ap_lost={"Hauser": 2, "Orc": 4} if carry == "no" else {}))
    assert tuple(f.ap for f in state.fighters.values()) == left
    assert (state.fighters["Hauser"].spent, state.in_round, state.count) == (2, False, None)


# --- declaring and resolving (Resolution, Instantaneous actions) ---------------------------------


def declared(action: str, cost: int, count: int, at: int, instant: bool = False) -> ActionDeclared:
    return ActionDeclared(
        who="Hauser", action=action, cost=Derivation(cost, "cost"), count=count, step="resolves",
        at=Derivation(at, "at"), penalty=Derivation(0, "penalty"), instant=instant,
    )


def test_a_second_declaration_in_a_round_leaves_the_first_ones_marks() -> None:
    """Hauser drops an item at 35 (instantaneous, free), then declares a 3 AP melee attack at
    35 resolving at 20 (the Resolution example): declared once marked, one instant counted."""
    state = state_of(fighter("Hauser", base=15, ap=4, had=4), fighter("Orc"))
    state.round, state.in_round, state.count = 1, True, 35
    apply(state, declared("drop-item", 0, 35, 35, instant=True))
    apply(state, ActionResolved(who="Hauser", action="drop-item", paid=0, count=35))
    hauser = state.fighters["Hauser"]
    assert (hauser.declared_this_round, hauser.instants, hauser.ap, hauser.spent, hauser.action) == (
        True, 1, 4, 0, None)
    apply(state, declared("melee-attack", 3, 35, 20))
    assert hauser.declared_this_round and hauser.instants == 1
    assert hauser.action == Action("melee-attack", 3, 35, 1, "resolves", 20)
    apply(state, ActionResolved(who="Hauser", action="melee-attack", paid=3, count=20))
    assert (hauser.ap, hauser.spent, hauser.action, hauser.initiative) == (1, 3, None, 20)


# --- an upkeep tick on one effect of several (Upkeep) --------------------------------------------


def three_effects() -> tuple[Effect, ...]:
    # Three of the GM's own timed effects, applied in this order (serials 0, 1, 2).
    return (Effect("blinded", rounds=3, serial=0, custom=True), Effect("slowed", rounds=2, serial=1, custom=True),
            Effect("hasted", rounds=3, serial=2, custom=True))


def test_an_upkeep_tick_on_the_middle_effect_of_three_changes_that_one_alone() -> None:
    """Upkeep: "Reduce the remaining duration of ... timed effects by 1 round": slowed, 2
    rounds, has 1 left; blinded and hasted are left as they were (ticked by their own ticks)."""
    first, middle, last = three_effects()
    state = state_of(fighter("Hauser", effects=(first, middle, last), effects_applied=3), fighter("Orc"))
    apply(state, UpkeepTick(step="timed", who="Hauser", effect="slowed", change=-1, serial=1, rounds_left=1))
    after = state.fighters["Hauser"].effects
    assert after == (first, replace(middle, rounds=1, fresh=False), last)
    assert after[0] is first and after[2] is last
    apply(state, UpkeepTick(step="timed", who="Hauser", effect="slowed", change=-1, serial=1, rounds_left=0,
                            removed=True))
    assert state.fighters["Hauser"].effects == (first, last)


def test_an_upkeep_tick_on_a_fighters_one_effect_reduces_then_removes_it() -> None:
    """Upkeep: stunned for 2 rounds (spent 0 AP before it) has 1 left after one upkeep, and
    ends at the next; its fresh mark goes with the first."""
    stunned = Effect("stunned", rounds=2, serial=0)
    state = state_of(fighter("Hauser", effects=(stunned,), effects_applied=1), fighter("Orc"))
    apply(state, UpkeepTick(step="stun", who="Hauser", effect="stunned", change=-1, serial=0, rounds_left=1))
    assert state.fighters["Hauser"].effects == (replace(stunned, rounds=1, fresh=False),)
    apply(state, UpkeepTick(step="stun", who="Hauser", effect="stunned", change=-1, serial=0, rounds_left=0,
                            removed=True))
    assert state.fighters["Hauser"].effects == ()
