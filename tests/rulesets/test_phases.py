"""Every rule of the phases ruleset (shared/rules/phases.md), one test or more each.

Each test is named after the rule and cites the section of the rules text it checks.
Refusals check the exact message and that nothing was appended.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
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
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.ruleset import Dice
from skirmish.projections.rulesets.phases.events import (
    ActionResolved,
    ActionTaken,
    ClockAdvanced,
    EffectApplied,
    RepetitionInterrupted,
    TurnEnded,
    TurnStarted,
)
from skirmish.projections.rulesets.phases.view import PhasesClock, PhasesPending
from skirmish.projections.view import Budget, Shown
from skirmish.projections.text.words import event_line

from support.cli import Cli, start
from support.encounter import combatant, do, effects, one, pending, refused, who
from support.phases import figures, place

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "farmhouse-ambush.skirmish"


# --- helpers ---------------------------------------------------------------------------------


def encounter(store: Store, fighters: dict[str, tuple[str, int, int, int]], **options: str) -> Encounter:
    """fighters: name -> (side, initiative, agility, bulk)."""
    enc = start(store, "phases", **options)
    for name, (side, init, agility, bulk) in fighters.items():
        stats = {"initiative": str(init), "agility": str(agility), "bulk": str(bulk)}
        do(enc, AddCombatant(name=name, side=side, stats=stats))
    return enc


def duel(store: Store, **options: str) -> Encounter:
    """Ann (initiative 4, Agility 7, bulk 2) and the Orc (initiative 4, Agility 6), Gob (6)."""
    return encounter(store, {
        "Ann": ("players", 4, 7, 2), "Orc": ("foes", 4, 6, 0), "Gob": ("foes", 6, 3, 0),
    }, **options)


def clock(enc: Encounter) -> tuple[int | None, int | None]:
    """The clock's phase and call (0: the start of the phase); None, None between turns."""
    own = place(enc.view().clock)
    return own.phase, own.call


def next_until(enc: Encounter, phase: int, call: int) -> None:
    """`next` until the clock reaches (phase, call); fails if the turn ends first."""
    for _ in range(40):
        if clock(enc) == (phase, call):
            return
        events = do(enc, Next())
        assert not any(isinstance(e, TurnEnded) for e in events), f"the turn ended before phase {phase} call {call}"
    raise AssertionError("clock never got there")


def walk_turn(enc: Encounter) -> list[tuple[int, tuple[str, ...]]]:
    """`next` through the rest of the turn: each phase's calls as (phase, who acts)."""
    calls: list[tuple[int, tuple[str, ...]]] = []
    while True:
        events = do(enc, Next())
        for e in events:
            if isinstance(e, ClockAdvanced):
                calls.append((e.phase, e.acting))
        if any(isinstance(e, TurnEnded) for e in events):
            return calls


# --- the actions budget -------------------------------------------------------------------------


def test_the_actions_budget_is_of_the_actions_had_this_turn(memory_store: Store) -> None:
    """phases.md, Turn Sequence: "limit the number of actions a character can perform to his
    or her Initiative rating". Gob (initiative 6) has 6 actions this turn, in phases 6 to 1;
    letting phases 6 and 5 pass loses 2, so at phase 4, call 4, Gob has 4 left of the 6 it
    had (not 4 of 4). Ann (initiative 4) has all 4 of her 4 there."""
    enc = duel(memory_store)
    do(enc, StartRound())
    assert (combatant(enc, "Gob").budget.left, combatant(enc, "Gob").budget.of) == (6, 6)
    next_until(enc, 4, 4)
    assert (combatant(enc, "Gob").budget.left, combatant(enc, "Gob").budget.of) == (4, 6)
    assert (combatant(enc, "Ann").budget.left, combatant(enc, "Ann").budget.of) == (4, 4)
    next_until(enc, 4, 6)
    do(enc, Declare(who="Gob", action="ready"))  # 1 action taken, 2 let pass: lost, not spent
    gob = combatant(enc, "Gob").budget
    assert (gob.left, gob.of, gob.lost) == (3, 6, 2)
    walk_turn(enc)
    from skirmish.projections.report.data import build

    assert {f.name: f.spent for f in build(enc).figures}["Gob"] == 1


# --- Turn Sequence: the worked example --------------------------------------------------------


def test_phase_table_worked_example(memory_store: Store) -> None:
    """phases.md, Turn Sequence: phase 6: 6 acts; phase 5: 5, 6; ... phase 1: 1, 2, 3, 4, 5, 6."""
    enc = encounter(memory_store, {f"I{i}": ("all", i, 0, 0) for i in range(1, 7)})
    do(enc, StartRound())
    assert clock(enc) == (6, 0)
    calls = walk_turn(enc)
    table: dict[int, list[str]] = {}
    for phase, acting in calls:
        table.setdefault(phase, []).extend(acting)
    assert table == {
        6: ["I6"],
        5: ["I5", "I6"],
        4: ["I4", "I5", "I6"],
        3: ["I3", "I4", "I5", "I6"],
        2: ["I2", "I3", "I4", "I5", "I6"],
        1: ["I1", "I2", "I3", "I4", "I5", "I6"],
    }
    # One call per initiative value, initiative N first in phase N, then each higher value.
    assert [p for p, _ in calls] == [6, 5, 5, 4, 4, 4, 3, 3, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1]


def test_a_character_acts_as_many_times_a_turn_as_its_initiative(memory_store: Store) -> None:
    """phases.md, Turn Sequence: the sequence limits the actions to the Initiative rating."""
    enc = encounter(memory_store, {"Ann": ("a", 3, 0, 0), "Orc": ("b", 5, 0, 0)})
    do(enc, StartRound())
    assert who(enc, "Ann").acts_in == (3, 2, 1) and who(enc, "Orc").acts_in == (5, 4, 3, 2, 1)
    assert combatant(enc, "Ann").budget.left == 3 and combatant(enc, "Orc").budget.left == 5
    for _ in range(12):
        phase, call = clock(enc)
        for name in ("Ann", "Orc"):
            if call == combatant(enc, name).vital.value and phase in who(enc, name).acts_in:
                do(enc, Declare(who=name, action="walk"))
        if any(isinstance(e, TurnEnded) for e in do(enc, Next())):
            break
    ended = enc.view().clock
    assert not ended.running and clock(enc) == (None, None)
    log = [rec.event for rec in enc.path(enc.head().event_id)]
    assert one(log, TurnEnded).actions == {"Ann": 3, "Orc": 5}
    assert [e.phase for e in log if isinstance(e, ActionTaken) and e.who == "Ann"] == [3, 2, 1]


def test_declaring_out_of_call_is_refused(memory_store: Store) -> None:
    """phases.md, Turn Sequence: a character acts when its Initiative number is called."""
    enc = duel(memory_store)
    do(enc, StartRound())
    refused(enc, Declare(who="Gob", action="walk"), RuleViolation,
            "not Gob's call: phase 6 is at the start of the phase, Gob acts at initiative 6 (phases.md, Turn Sequence)")
    refused(enc, Declare(who="Ann", action="walk"), RuleViolation,
            "Ann (initiative 4) does not act in phase 6 (phases.md, Turn Sequence)")
    next_until(enc, 4, 6)
    refused(enc, Declare(who="Ann", action="walk"), RuleViolation,
            "not Ann's call: phase 4 is at initiative 6, Ann acts at initiative 4 (phases.md, Turn Sequence)")


def test_one_action_a_phase(memory_store: Store) -> None:
    """phases.md, Actions: one action per combat phase."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    do(enc, Declare(who="Gob", action="ready"))
    refused(enc, Declare(who="Gob", action="walk"), RuleViolation,
            "Gob has already acted in phase 6: one action a phase (phases.md, Actions)")
    assert who(enc, "Gob").actions == 1 and combatant(enc, "Gob").budget.left == 5


def test_a_character_who_does_not_declare_passes(memory_store: Store) -> None:
    """phases.md, Turn Sequence: the Handler calls the numbers; `next` moves past a silent one."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    events = do(enc, Next())
    assert one(events, ClockAdvanced).phase == 5
    assert who(enc, "Gob").actions == 0 and who(enc, "Gob").acts_in == (5, 4, 3, 2, 1)


def test_next_ends_the_turn_after_phase_1_and_a_new_turn_starts_at_phase_6(memory_store: Store) -> None:
    """phases.md, The Combat Turn: six phases, numbered 6 down to 1 (Turn Sequence)."""
    enc = duel(memory_store)
    do(enc, StartRound())
    walk_turn(enc)
    refused(enc, Next(), RuleViolation, "no turn under way: start one with `skirmish round` (phases.md, Turn Sequence)")
    events = do(enc, StartRound())
    assert one(events, TurnStarted).turn == 2 and clock(enc) == (6, 0)
    assert enc.view().clock.round == 2


def test_starting_a_turn_during_one_is_refused(memory_store: Store) -> None:
    enc = duel(memory_store)
    do(enc, StartRound())
    refused(enc, StartRound(), RuleViolation,
            "turn 1 is still under way (phase 6): `skirmish next` walks it to its end (phases.md, Turn Sequence)")


def test_upkeep_ends_the_turn_in_phase_1_only(memory_store: Store) -> None:
    """phases.md, Turn Sequence: the turn is over after phase 1."""
    enc = duel(memory_store)
    do(enc, StartRound())
    refused(enc, Upkeep(), RuleViolation,
            "phase 6 is under way: the turn ends after phase 1 (`skirmish next`) (phases.md, Turn Sequence)")
    next_until(enc, 1, 4)
    do(enc, Declare(who="Ann", action="walk"))
    assert one(do(enc, Upkeep()), TurnEnded).actions == {"Ann": 1}


def test_no_dice_are_rolled_and_typed_dice_are_refused(memory_store: Store) -> None:
    """phases.md, Initiative: initiative is a rating, not a roll."""
    enc = duel(memory_store)
    refused(enc, StartRound(rolls={"Ann": (3,)}), BadInput, "no roll of this command uses the dice typed for Ann")


# --- Initiative ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["0", "7"])
def test_initiative_stat_is_1_to_6(cli: Cli, value: str) -> None:
    """phases.md, Initiative: values range from 1 to 6 initially."""
    cli.ok("new", "Farm", "--rules", "phases")
    bound = "at least 1" if value == "0" else "at most 6"
    assert cli.fails("add", "Ann", "--stat", f"initiative={value}") == (
        f"Error: stat initiative of Ann must be {bound}, not {value}")


def test_slight_wound_lowers_initiative_by_1_and_serious_by_3(memory_store: Store) -> None:
    """phases.md, Initiative: slightly wounded -1, seriously wounded -3."""
    enc = encounter(memory_store, {"Ann": ("a", 5, 0, 0), "Bob": ("a", 5, 0, 0)})
    slight = one(do(enc, ApplyEffect(who="Ann", kind="slight-wound")), EffectApplied)
    assert slight.initiative.value == 4 and slight.initiative.rule == "phases.md, Initiative"
    assert [(t.name, t.value) for t in slight.initiative.terms] == [("initiative", 5), ("slightly wounded", -1)]
    do(enc, ApplyEffect(who="Bob", kind="serious-wound"))
    assert combatant(enc, "Bob").vital.value == 2 and combatant(enc, "Bob").vital.maximum == 5


def test_worst_wound_counts_by_default(memory_store: Store) -> None:
    """Option wounds=worst: the character's state counts, not the number of wounds (Initiative)."""
    enc = encounter(memory_store, {"Ann": ("a", 6, 0, 0)})
    do(enc, ApplyEffect(who="Ann", kind="slight-wound"))
    do(enc, ApplyEffect(who="Ann", kind="slight-wound"))
    assert combatant(enc, "Ann").vital.value == 5
    do(enc, ApplyEffect(who="Ann", kind="serious-wound"))
    assert combatant(enc, "Ann").vital.value == 3


def test_each_wound_counts_with_wounds_each(memory_store: Store) -> None:
    """Option wounds=each: -1 per slight and -3 per serious wound (Initiative)."""
    enc = encounter(memory_store, {"Ann": ("a", 6, 0, 0)}, wounds="each")
    do(enc, ApplyEffect(who="Ann", kind="slight-wound"))
    do(enc, ApplyEffect(who="Ann", kind="slight-wound"))
    assert combatant(enc, "Ann").vital.value == 4
    do(enc, ApplyEffect(who="Ann", kind="serious-wound"))
    assert combatant(enc, "Ann").vital.value == 1


def test_initiative_0_may_not_act_at_all(memory_store: Store) -> None:
    """phases.md, Initiative: reduced to 0, the character may not act at all."""
    enc = encounter(memory_store, {"Ann": ("a", 3, 0, 0), "Bob": ("a", 2, 0, 0)}, wounds="each")
    do(enc, ApplyEffect(who="Ann", kind="serious-wound"))
    assert combatant(enc, "Ann").vital.value == 0 and who(enc, "Ann").acts_in == ()
    refused(enc, Declare(who="Ann", action="aim", target="Bob"), RuleViolation,
            "Ann's initiative is 0: Ann may not act at all (phases.md, Initiative)")
    do(enc, StartRound())
    refused(enc, Declare(who="Ann", action="walk", details={"repeat": "yes"}), RuleViolation,
            "Ann's initiative is 0: Ann may not act at all (phases.md, Initiative)")
    assert all("Ann" not in acting for _, acting in walk_turn(enc))


def test_a_wound_mid_turn_takes_effect_at_once(memory_store: Store) -> None:
    """phases.md, Initiative: the lowered initiative governs the calls still to come."""
    enc = encounter(memory_store, {"Ann": ("a", 5, 0, 0), "Orc": ("b", 6, 0, 0)})
    do(enc, StartRound())
    next_until(enc, 5, 5)
    do(enc, Declare(who="Ann", action="walk"))
    do(enc, ApplyEffect(who="Ann", kind="serious-wound"))
    assert who(enc, "Ann").acts_in == (2, 1)
    assert [(p, a) for p, a in walk_turn(enc) if "Ann" in a] == [(2, ("Ann",)), (1, ("Ann",))]


def test_panic_lowers_initiative_by_what_the_gm_rules(memory_store: Store) -> None:
    """phases.md, Initiative: panic reduces initiative (by how much: the GM's call)."""
    enc = encounter(memory_store, {"Ann": ("a", 5, 0, 0)})
    do(enc, ApplyEffect(who="Ann", kind="panic", details={"by": "2"}))
    assert combatant(enc, "Ann").vital.value == 3
    refused(enc, ApplyEffect(who="Ann", kind="panic"), BadInput,
            "panic needs --with by=N: the initiative points the GM rules it costs")
    do(enc, ApplyEffect(who="Ann", kind="panic", end=True))
    assert combatant(enc, "Ann").vital.value == 5


def test_ending_a_wound_and_undo_restore_initiative_exactly(memory_store: Store) -> None:
    enc = encounter(memory_store, {"Ann": ("a", 5, 0, 0)})
    do(enc, ApplyEffect(who="Ann", kind="serious-wound"))
    before = enc.view()
    do(enc, ApplyEffect(who="Ann", kind="serious-wound", end=True))
    assert combatant(enc, "Ann").vital.value == 5 and effects(enc, "Ann") == []
    enc.undo(1, "undo")
    assert enc.view().combatants == before.combatants
    refused(enc, ApplyEffect(who="Ann", kind="slight-wound", end=True), RuleViolation,
            "Ann has no slight-wound to end")


def test_damage_is_refused_wounds_are_effects(memory_store: Store) -> None:
    enc = duel(memory_store)
    refused(enc, Damage(who="Ann", amount=3), RuleViolation,
            "phases.md counts wounds, not hits: `skirmish effect WHO slight-wound` or `serious-wound` "
            "(phases.md, Initiative)")
    refused(enc, ApplyEffect(who="Ann", kind="bleeding"), BadInput,
            "no effect 'bleeding' in phases (known: slight-wound, serious-wound, panic); --custom records it as your own")
    refused(enc, ApplyEffect(who="Ann", kind="bleeding", custom=True), BadInput,
            "phases effects are slight-wound, serious-wound and panic, not 'bleeding'")


# --- Agility and Weapon Bulks -------------------------------------------------------------


def test_equal_initiative_is_called_in_agility_less_bulk_order(memory_store: Store) -> None:
    """phases.md, Agility and Weapon Bulks: highest Agility, less weapon bulk, first."""
    enc = duel(memory_store)  # Ann 7 - 2 = 5, Orc 6 - 0 = 6
    do(enc, StartRound())
    next_until(enc, 4, 4)
    assert enc.view().clock.now == ("Orc", "Ann")


def test_interfering_actions_at_the_same_call_record_who_goes_first(memory_store: Store) -> None:
    """phases.md, Agility and Weapon Bulks: firing at each other, the higher Agility - bulk goes first."""
    enc = duel(memory_store)
    do(enc, StartRound())
    next_until(enc, 4, 4)
    ann = one(do(enc, Declare(who="Ann", action="fire", target="Orc")), ActionTaken)
    assert ann.first == "Orc" and ann.order is not None and ann.order.value == -1
    assert ann.order.rule == "phases.md, Agility and Weapon Bulks"
    orc = one(do(enc, Declare(who="Orc", action="fire", target="Ann")), ActionTaken)
    assert orc.first == "Orc" and orc.order is not None and orc.order.value == 1
    # Gob acts at another call: no question of order.
    next_until(enc, 4, 6)
    assert one(do(enc, Declare(who="Gob", action="fire", target="Ann")), ActionTaken).order is None


def test_readying_a_bulkier_weapon_changes_the_order(memory_store: Store) -> None:
    """phases.md, Agility and Weapon Bulks; Actions: Ready/Change Equipment."""
    enc = duel(memory_store)
    do(enc, StartRound())
    next_until(enc, 4, 4)
    taken = one(do(enc, Declare(who="Orc", action="ready", details={"bulk": "3"})), ActionTaken)
    assert taken.bulk == 3 and who(enc, "Orc").agility_less_bulk == 3
    next_until(enc, 3, 4)
    assert enc.view().clock.now == ("Ann", "Orc")


def test_equal_agility_less_bulk_act_at_the_same_time(memory_store: Store) -> None:
    enc = encounter(memory_store, {"Ann": ("a", 6, 4, 1), "Orc": ("b", 6, 3, 0)})
    do(enc, StartRound())
    do(enc, Next())
    taken = one(do(enc, Declare(who="Ann", action="melee", target="Orc")), ActionTaken)
    assert taken.first is None and taken.order is not None and taken.order.value == 0


# --- Actions ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("move", "metres"), [("crawl", 2), ("walk", 8), ("trot", 15), ("run", 30)])
def test_movement_distances(memory_store: Store, move: str, metres: int) -> None:
    """phases.md, Actions: crawl 2 m, walk 8 m, trot 15 m, run 30 m."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    taken = one(do(enc, Declare(who="Gob", action=move)), ActionTaken)
    assert taken.distance is not None and taken.distance.value == metres
    assert taken.distance.rule == "phases.md, Actions"
    assert who(enc, "Gob").moved_m == metres and who(enc, "Gob").prone == (move == "crawl")


def test_standing_up_as_part_of_a_move_halves_it(memory_store: Store) -> None:
    """phases.md, Actions: Go Prone/Stand Up: standing cuts the distance in half."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    do(enc, Declare(who="Gob", action="prone"))
    next_until(enc, 5, 6)
    refused(enc, Declare(who="Gob", action="prone"), RuleViolation, "Gob is already prone (phases.md, Actions)")
    taken = one(do(enc, Declare(who="Gob", action="run")), ActionTaken)
    assert taken.distance is not None and taken.distance.amount == 15 and not who(enc, "Gob").prone
    assert "Gob acts: run, 15 m (stands up: halved) (phase 5)" in event_line(enc, enc.log()[-1][0])


def test_stand_up_as_an_action_and_only_when_prone(memory_store: Store) -> None:
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    refused(enc, Declare(who="Gob", action="stand"), RuleViolation,
            "Gob is not prone: nothing to stand up from (phases.md, Actions)")
    do(enc, Declare(who="Gob", action="crawl"))
    next_until(enc, 5, 6)
    do(enc, Declare(who="Gob", action="stand"))
    assert not who(enc, "Gob").prone


def test_mount_and_dismount(memory_store: Store) -> None:
    """phases.md, Actions: Mount/Dismount."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    refused(enc, Declare(who="Gob", action="dismount"), RuleViolation, "Gob is not mounted (phases.md, Actions)")
    do(enc, Declare(who="Gob", action="mount"))
    assert who(enc, "Gob").mounted
    next_until(enc, 5, 6)
    refused(enc, Declare(who="Gob", action="mount"), RuleViolation, "Gob is already mounted (phases.md, Actions)")


def test_fire_combines_with_a_walk_or_trot_not_a_run(memory_store: Store) -> None:
    """phases.md, Actions: Fire may be combined with a walk or trot (some weapons)."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    refused(enc, Declare(who="Gob", action="fire", target="Ann", details={"move": "run"}), RuleViolation,
            "fire combines with walk or trot, not run (phases.md, Actions)")
    taken = one(do(enc, Declare(who="Gob", action="fire", target="Ann", details={"move": "trot"})), ActionTaken)
    assert taken.distance is not None and taken.distance.value == 15


def test_melee_kinds_and_their_moves(memory_store: Store) -> None:
    """phases.md, Actions: strike, grapple, escape with a walk or trot; a diving blow also with a run."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    refused(enc, Declare(who="Gob", action="melee", target="Ann", details={"melee": "strike", "move": "run"}),
            RuleViolation, "a strike attack combines with walk or trot, not run (phases.md, Actions)")
    taken = one(do(enc, Declare(who="Gob", action="melee", target="Ann",
                                details={"melee": "diving-blow", "move": "run"})), ActionTaken)
    assert taken.melee == "diving-blow" and taken.distance is not None and taken.distance.value == 30


def test_other_actions_cannot_be_combined_with_a_move(memory_store: Store) -> None:
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    refused(enc, Declare(who="Gob", action="reload", details={"move": "walk"}), RuleViolation,
            "reload cannot be combined with a move: only fire and melee can (phases.md, Actions)")


def test_talk_combines_with_anything_but_fire(memory_store: Store) -> None:
    """phases.md, Actions: Talk cannot be combined with firing."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    refused(enc, Declare(who="Gob", action="fire", target="Ann", details={"talk": "Die!"}), RuleViolation,
            "talking cannot be combined with firing (phases.md, Actions)")
    taken = one(do(enc, Declare(who="Gob", action="walk", details={"talk": "Follow me"})), ActionTaken)
    assert taken.talk == "Follow me"
    next_until(enc, 5, 6)
    assert one(do(enc, Declare(who="Gob", action="talk", target="Orc")), ActionTaken).action == "talk"


def test_a_slow_reload_takes_several_reload_actions(memory_store: Store) -> None:
    """phases.md, Actions: Reload: some weapons require several reload actions."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    assert one(do(enc, Declare(who="Gob", action="reload", details={"reloads": "3"})), ActionTaken).reload == (1, 3)
    assert who(enc, "Gob").reload == "1/3"
    reload = pending(enc, "Gob")
    assert reload is not None and reload.action == "reload" and reload.resolves == "after 2 more reload actions"
    next_until(enc, 5, 6)
    refused(enc, Declare(who="Gob", action="reload", details={"reloads": "2"}), RuleViolation,
            "Gob's reload is under way (1/3): no new --with reloads= (phases.md, Actions)")
    do(enc, Declare(who="Gob", action="walk"))  # progress is kept in between
    next_until(enc, 4, 6)
    do(enc, Declare(who="Gob", action="reload"))
    next_until(enc, 3, 6)
    assert one(do(enc, Declare(who="Gob", action="reload")), ActionTaken).reload == (3, 3)
    assert who(enc, "Gob").reload is None and enc.view().pending == ()


def test_unknown_action_and_foreign_flags_are_refused(memory_store: Store) -> None:
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    refused(enc, Declare(who="Gob", action="somersault"), BadInput,
            "no action 'somersault' in the phases list (known: fire, aim, reload, melee, ready, crawl, walk, "
            "trot, run, prone, stand, mount, dismount, talk)")
    refused(enc, Declare(who="Gob", action="fire", details={"ap": "2"}), BadInput,
            "phases `declare` has no detail 'ap' (it takes: repeat, move, melee, talk, reloads, bulk, area, cover, auto)")
    refused(enc, Declare(who="Gob", action="aim"), BadInput,
            "aim takes --target NAME or --with area=TEXT (one of them)")


# --- Repetition ------------------------------------------------------------------------------


def test_repetition_acts_every_phase_at_the_start_of_the_phase(memory_store: Store) -> None:
    """phases.md, Repetition: the same action all turn, in every phase, before the calls."""
    enc = encounter(memory_store, {"Slow": ("a", 1, 0, 0), "Orc": ("b", 6, 0, 0)})
    do(enc, StartRound())
    taken = one(do(enc, Declare(who="Slow", action="walk", details={"repeat": "yes"})), ActionTaken)
    assert taken.repeat and taken.phase == 6
    events = do(enc, Next())  # phase 6, initiative 6
    assert one(events, ClockAdvanced).call == 6
    events = do(enc, Next())
    advanced = one(events, ClockAdvanced)
    assert (advanced.phase, advanced.call, advanced.acting) == (5, 0, ("Slow",))
    assert one(events, ActionTaken).how == "repeated"
    walk_turn(enc)
    # Six walks of 8 m: as far as the initiative-6 character could go (Turn Sequence).
    log = [rec.event for rec in enc.path(enc.head().event_id)]
    assert sum(e.distance.value for e in log if isinstance(e, ActionTaken) and e.who == "Slow" and e.distance) == 48
    assert who(enc, "Slow").repeating is None  # it lasts the turn


def test_repetition_is_chosen_in_phase_6_before_any_action(memory_store: Store) -> None:
    """phases.md, Repetition: the same thing for an entire turn."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    do(enc, Declare(who="Gob", action="walk"))
    message = "repetition is chosen for the whole turn: in phase 6, before {}'s first action (phases.md, Repetition)"
    refused(enc, Declare(who="Gob", action="walk", details={"repeat": "yes"}), RuleViolation, message.format("Gob"))
    next_until(enc, 4, 4)
    refused(enc, Declare(who="Ann", action="walk", details={"repeat": "yes"}), RuleViolation, message.format("Ann"))


def test_a_repeating_character_takes_no_other_action(memory_store: Store) -> None:
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Declare(who="Ann", action="fire", target="Orc", details={"repeat": "yes"}))
    next_until(enc, 4, 4)
    refused(enc, Declare(who="Ann", action="walk"), RuleViolation,
            "Ann repeats fire every phase this turn: `skirmish cancel Ann` interrupts it (phases.md, Repetition)")


def test_after_interrupting_repetition_only_prone_or_cover_at_the_next_call(memory_store: Store) -> None:
    """phases.md, Repetition: after an interruption, no action until the next regular call, and
    that one only to go prone or duck behind cover (option after-interrupt=prone-or-cover)."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Declare(who="Ann", action="walk", details={"repeat": "yes"}))
    do(enc, Next())
    do(enc, Next())  # phase 5 starts: Ann walks again
    assert one(do(enc, Cancel(who="Ann")), RepetitionInterrupted).phase == 5
    assert who(enc, "Ann").restricted
    next_until(enc, 4, 4)
    limited = "Ann interrupted a repetitive action: the next action may only be to {} (phases.md, Repetition)"
    refused(enc, Declare(who="Ann", action="fire", target="Orc"), RuleViolation,
            limited.format("go prone, or move to cover (--with cover=yes)"))
    refused(enc, Declare(who="Ann", action="trot"), RuleViolation,
            limited.format("go prone, or move to cover (--with cover=yes)"))
    taken = one(do(enc, Declare(who="Ann", action="trot", details={"cover": "yes"})), ActionTaken)
    assert taken.cover and not who(enc, "Ann").restricted
    next_until(enc, 3, 4)
    do(enc, Declare(who="Ann", action="fire", target="Orc"))


def test_an_interrupted_character_takes_no_opportunity_fire_before_its_limited_action(memory_store: Store) -> None:
    """phases.md, Repetition: no other action until the next regular opportunity, opportunity fire included."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Declare(who="Ann", action="aim", target="Orc", details={"repeat": "yes"}))
    do(enc, Declare(who="Orc", action="walk", details={"repeat": "yes"}))
    next_until(enc, 5, 0)  # Ann aims again, the Orc walks again
    do(enc, Cancel(who="Ann"))
    next_until(enc, 4, 0)  # the Orc walks through Ann's sights
    assert who(enc, "Ann").aiming == "Orc"
    refused(enc, Declare(who="Ann", action="fire", target="Orc"), RuleViolation,
            "Ann interrupted a repetitive action: the next action may only be to go prone, or move to cover "
            "(--with cover=yes) (phases.md, Repetition)")


def test_after_interrupt_prone_only_refuses_the_move_to_cover(memory_store: Store) -> None:
    """Option after-interrupt=prone-only: go prone is the one listed action (Repetition)."""
    enc = duel(memory_store, **{"after-interrupt": "prone-only"})
    do(enc, StartRound())
    do(enc, Declare(who="Ann", action="walk", details={"repeat": "yes"}))
    do(enc, Cancel(who="Ann"))
    next_until(enc, 4, 4)
    refused(enc, Declare(who="Ann", action="trot", details={"cover": "yes"}), RuleViolation,
            "Ann interrupted a repetitive action: the next action may only be to go prone (phases.md, Repetition)")
    do(enc, Declare(who="Ann", action="prone"))


def test_interrupting_without_repetition_is_refused(memory_store: Store) -> None:
    enc = duel(memory_store)
    do(enc, StartRound())
    refused(enc, Cancel(who="Ann"), RuleViolation,
            "Ann is not repeating an action: nothing to interrupt (phases.md, Repetition)")


# --- Opportunity Fire ------------------------------------------------------------------------


def aiming_ann(store: Store) -> Encounter:
    """Ann aims at the Orc in phase 4; in phase 3 Gob (initiative 6) trots across."""
    enc = duel(store)
    do(enc, StartRound())
    next_until(enc, 4, 4)
    do(enc, Declare(who="Ann", action="aim", target="Orc"))
    return enc


def test_opportunity_fire_needs_an_aim_from_an_earlier_phase(memory_store: Store) -> None:
    """phases.md, Aim; Opportunity Fire: aiming enables fire in a later phase."""
    enc = aiming_ann(memory_store)
    next_until(enc, 4, 6)
    do(enc, Declare(who="Gob", action="walk"))
    refused(enc, Declare(who="Ann", action="fire", target="Gob"), RuleViolation,
            "Ann has already acted in phase 4: one action a phase (phases.md, Actions)")


def test_opportunity_fire_at_a_target_crossing_the_line_of_sight(memory_store: Store) -> None:
    """phases.md, Opportunity Fire: the aiming character fires as the target moves, out of its call;
    it counts as its action for the phase, and aiming goes on."""
    enc = aiming_ann(memory_store)
    next_until(enc, 3, 6)
    refused(enc, Declare(who="Ann", action="fire", target="Gob"), RuleViolation,
            "Gob has not moved this phase: opportunity fire is at a target passing through the line of sight "
            "(phases.md, Opportunity Fire)")
    do(enc, Declare(who="Gob", action="trot"))
    taken = one(do(enc, Declare(who="Ann", action="fire", target="Gob")), ActionTaken)
    assert taken.how == "opportunity" and taken.keeps_aim
    # Gob was not the target in sight when the aim began: quick shots.
    assert taken.aimed is not None and taken.aimed.value == 0 and taken.aimed.rule == "phases.md, Opportunity Fire"
    refused(enc, Declare(who="Ann", action="fire", target="Gob"), RuleViolation,
            "Ann fired opportunity fire this phase: that was its action for phase 3 (phases.md, Opportunity Fire)")
    assert who(enc, "Ann").aiming == "Orc" and who(enc, "Ann").acts_in == (2, 1)


def test_opportunity_fire_in_a_phase_it_could_not_act_in_uses_the_aim_up(memory_store: Store) -> None:
    """phases.md, Opportunity Fire: fired in a phase it could not act in, it must aim again."""
    enc = duel(memory_store)
    do(enc, Declare(who="Ann", action="aim", target="Orc"))  # before the fight: an ambush laid
    do(enc, StartRound())
    do(enc, Next())
    do(enc, Declare(who="Gob", action="walk"))
    taken = one(do(enc, Declare(who="Ann", action="fire", target="Gob")), ActionTaken)
    assert taken.how == "opportunity" and not taken.keeps_aim
    assert who(enc, "Ann").aiming is None and who(enc, "Ann").acts_in == (4, 3, 2, 1)
    next_until(enc, 5, 6)
    do(enc, Declare(who="Gob", action="walk"))
    refused(enc, Declare(who="Ann", action="fire", target="Gob"), RuleViolation,
            "Ann (initiative 4) does not act in phase 5 (phases.md, Turn Sequence)")


def test_first_shot_is_aimed_only_at_the_target_in_sight_when_the_aim_began(memory_store: Store) -> None:
    """phases.md, Opportunity Fire: the first shot counts as aimed if the target was visible at
    the beginning of the aim; automatic fire is never aimed."""
    enc = duel(memory_store)
    do(enc, Declare(who="Ann", action="aim", target="Orc"))
    do(enc, StartRound(details={"ambush": "foes"}))  # the Orc walks on, every phase
    taken = one(do(enc, Declare(who="Ann", action="fire", target="Orc")), ActionTaken)
    assert taken.aimed is not None and taken.aimed.value == 1
    assert "Ann fires opportunity fire at Orc, first shot aimed" in event_line(enc, enc.log()[-1][0])

    auto = duel(Store(":memory:"))
    do(auto, Declare(who="Ann", action="aim", target="Orc"))
    do(auto, StartRound(details={"ambush": "foes"}))
    shot = one(do(auto, Declare(who="Ann", action="fire", target="Orc", details={"auto": "yes"})), ActionTaken)
    assert shot.aimed is not None and shot.aimed.value == 0 and shot.aimed.formula.startswith("automatic fire")


def test_an_aim_at_an_area_gives_quick_shots(memory_store: Store) -> None:
    enc = duel(memory_store)
    do(enc, Declare(who="Ann", action="aim", details={"area": "the barn door"}))
    assert who(enc, "Ann").aiming == "the barn door"
    do(enc, StartRound(details={"ambush": "foes"}))
    taken = one(do(enc, Declare(who="Ann", action="fire", target="Orc")), ActionTaken)
    assert taken.aimed is not None and taken.aimed.value == 0


def test_any_other_action_ends_the_aim(memory_store: Store) -> None:
    """phases.md, Opportunity Fire: still aiming until the character takes some other action."""
    enc = aiming_ann(memory_store)
    next_until(enc, 3, 4)
    assert who(enc, "Ann").aiming == "Orc"
    fired = one(do(enc, Declare(who="Ann", action="fire", target="Orc")), ActionTaken)
    assert fired.how == "call" and fired.aimed is not None and fired.aimed.value == 1
    assert who(enc, "Ann").aiming is None and enc.view().pending == ()


def test_fire_without_an_aim_out_of_call_is_refused(memory_store: Store) -> None:
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    do(enc, Declare(who="Gob", action="walk"))
    refused(enc, Declare(who="Ann", action="fire", target="Gob"), RuleViolation,
            "Ann (initiative 4) does not act in phase 6 (phases.md, Turn Sequence)")


def test_aiming_before_the_fight_only_before_the_first_turn(memory_store: Store) -> None:
    enc = duel(memory_store)
    refused(enc, Declare(who="Ann", action="walk"), RuleViolation,
            "no turn under way: start one with `skirmish round` (phases.md, Turn Sequence)")
    do(enc, StartRound())
    walk_turn(enc)
    refused(enc, Declare(who="Ann", action="aim", target="Orc"), RuleViolation,
            "no turn under way: start one with `skirmish round` (phases.md, Turn Sequence)")


# --- Ambush ----------------------------------------------------------------------------------


def test_ambush_puts_the_moving_force_on_repetitive_movement_except_initiative_6(memory_store: Store) -> None:
    """phases.md, Ambush: in the first turn, the moving force with initiative other than 6 moves every phase."""
    enc = duel(memory_store)
    events = do(enc, StartRound(details={"ambush": "FOES"}))
    assert one(events, TurnStarted).ambush == "foes"
    walking = one(events, ActionTaken)
    assert (walking.who, walking.action, walking.repeat) == ("Orc", "walk", True)
    assert who(enc, "Gob").repeating is None  # initiative 6 acts normally
    do(enc, Next())
    do(enc, Declare(who="Gob", action="fire", target="Ann"))
    walk_turn(enc)
    log = [rec.event for rec in enc.path(enc.head().event_id)]
    assert [e.phase for e in log if isinstance(e, ActionTaken) and e.who == "Orc"] == [6, 5, 4, 3, 2, 1]


def test_ambush_move_and_first_turn_only(memory_store: Store) -> None:
    enc = duel(memory_store)
    refused(enc, StartRound(details={"ambush": "elves"}), BadInput, "no side 'elves' to ambush (sides: foes, players)")
    events = do(enc, StartRound(details={"ambush": "foes", "ambush-move": "trot"}))
    assert one(events, ActionTaken).distance.value == 15  # type: ignore[union-attr]
    walk_turn(enc)
    refused(enc, StartRound(details={"ambush": "foes"}), RuleViolation,
            "an ambush is sprung on the first combat turn (phases.md, Ambush)")


# --- the typed view: clock, acting order, status, pending ------------------------------------


def moment(enc: Encounter) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    c = enc.view().clock
    return c.moment, c.now, c.next


def test_the_clock_names_who_acts_now_and_next_through_a_turn(memory_store: Store) -> None:
    """phases.md, Turn Sequence: "In each phase all characters with an Initiative equal to or
    greater than the phase number may conduct an action", the phase's own number first, then
    each higher one; equal initiative by Agility less bulk (Agility and Weapon Bulks): here
    the Orc (6 - 0) before Ann (7 - 2); Gob (6) alone in phase 6, then in every phase."""
    enc = duel(memory_store)
    view = enc.view().clock
    assert (view.round, view.unit, view.running) == (0, "turn", False)
    assert moment(enc) == ("before the first turn", (), ("Gob",))
    do(enc, StartRound())
    assert enc.view().clock.running and moment(enc) == ("phase 6, start", (), ("Gob",))
    do(enc, Next())
    assert moment(enc) == ("phase 6, call 6", ("Gob",), ("Gob",))  # phase 5 calls 5 (nobody), then 6
    do(enc, Declare(who="Gob", action="walk"))
    assert moment(enc) == ("phase 6, call 6", ("Gob",), ("Gob",))  # his action belongs to this call
    assert combatant(enc, "Gob").acting and not combatant(enc, "Ann").acting
    do(enc, Next())
    assert moment(enc) == ("phase 5, call 6", ("Gob",), ("Orc", "Ann"))
    do(enc, Next())
    assert moment(enc) == ("phase 4, call 4", ("Orc", "Ann"), ("Gob",))
    assert combatant(enc, "Ann").acting and combatant(enc, "Orc").acting
    do(enc, Next())
    assert moment(enc) == ("phase 4, call 6", ("Gob",), ("Orc", "Ann"))  # phase 3 calls 3 (nobody), then 4
    next_until(enc, 1, 4)
    assert moment(enc) == ("phase 1, call 4", ("Orc", "Ann"), ("Gob",))
    do(enc, Next())
    assert moment(enc) == ("phase 1, call 6", ("Gob",), ())  # the turn would end next
    do(enc, Next())
    view = enc.view().clock
    assert (view.round, view.running) == (1, False)
    assert moment(enc) == ("between turns", (), ("Gob",))


def test_the_clock_at_the_start_of_a_phase_names_the_repetitive_actions(memory_store: Store) -> None:
    """phases.md, Repetition: "All repetitive actions are conducted at the beginning of the
    phase, regardless of the Initiative level of the characters conducting them"."""
    enc = encounter(memory_store, {"Slow": ("a", 1, 0, 0), "Orc": ("b", 6, 0, 0)})
    do(enc, StartRound())
    do(enc, Declare(who="Slow", action="walk", details={"repeat": "yes"}))
    assert moment(enc) == ("phase 6, start", ("Slow",), ("Orc",))
    do(enc, Next())
    assert moment(enc) == ("phase 6, call 6", ("Orc",), ("Slow",))
    do(enc, Next())
    assert moment(enc) == ("phase 5, start", ("Slow",), ("Orc",))
    assert clock(enc) == (5, 0)


def test_combatants_are_listed_in_the_calling_order_of_the_phase(memory_store: Store) -> None:
    """phases.md, Turn Sequence: "Characters with the same Initiative as the phase number go
    first, followed by the next higher Initiative"; equal ones by Agility less bulk (Agility
    and Weapon Bulks); repetitive actions at the beginning of the phase (Repetition). Those
    who do not act in the phase come after, in the order added."""
    enc = encounter(memory_store, {
        "Slow": ("a", 1, 0, 0), "Cat": ("a", 5, 0, 0), "Bea": ("b", 3, 2, 0),
        "Dan": ("b", 3, 5, 1), "Eve": ("a", 6, 0, 0), "Two": ("b", 2, 0, 0),
    })

    def order() -> list[str]:
        return [c.name for c in enc.view().combatants]

    # Between turns: phase 6 of the turn to come, where only initiative 6 acts.
    assert order() == ["Eve", "Slow", "Cat", "Bea", "Dan", "Two"]
    do(enc, StartRound())
    do(enc, Declare(who="Slow", action="walk", details={"repeat": "yes"}))
    next_until(enc, 3, 0)
    # Phase 3: Slow's walk at its start; 3 acts (Dan 5 - 1 before Bea 2 - 0), 5 acts, 6 acts; Two (2) not.
    assert order() == ["Slow", "Dan", "Bea", "Cat", "Eve", "Two"]
    next_until(enc, 1, 0)
    # Phase 1: 1 acts (Slow, repeating, at its start), 2 acts, 3 acts, 4 acts, 5 acts, 6 acts.
    assert order() == ["Slow", "Two", "Dan", "Bea", "Cat", "Eve"]


def test_initiative_0_puts_a_character_out(memory_store: Store) -> None:
    """phases.md, Initiative: "Characters who have had their Initiative level reduced to 0 may
    not act at all. (They are not necessarily unconscious ...)": out, not dead."""
    enc = encounter(memory_store, {"Ann": ("a", 3, 0, 0), "Bob": ("b", 2, 0, 0)}, wounds="each")
    assert combatant(enc, "Ann").status == "fighting"
    do(enc, ApplyEffect(who="Ann", kind="serious-wound"))  # 3 - 3 = 0
    ann = combatant(enc, "Ann")
    assert (ann.status, ann.vital.value, ann.vital.maximum, ann.budget.left) == ("out", 0, 3, 0)
    assert effects(enc, "Ann") == [("serious-wound", None)]
    assert combatant(enc, "Bob").status == "fighting"
    do(enc, StartRound())
    next_until(enc, 2, 2)
    assert [c.name for c in enc.view().combatants] == ["Bob", "Ann"] and enc.view().clock.now == ("Bob",)


def test_pending_shows_a_repetition_an_aim_and_a_slow_reload_with_when_they_resolve(memory_store: Store) -> None:
    """phases.md, Repetition ("conduct that action in every phase of the turn"), Aim
    ("enables characters to fire at any target which moves through their line of sight in a
    later phase") and Reload ("several reload actions to finish")."""
    enc = duel(memory_store)
    do(enc, Declare(who="Ann", action="aim", details={"area": "the gate"}))
    aim = pending(enc, "Ann")
    assert aim is not None and (aim.action, aim.target) == ("aim", None)
    assert aim.resolves == "at a later call, or on trigger: a target crosses the line of sight"
    assert aim.own == PhasesPending(area="the gate")
    do(enc, StartRound())
    do(enc, Declare(who="Orc", action="walk", details={"repeat": "yes"}))
    walk = pending(enc, "Orc")
    assert walk is not None and (walk.action, walk.resolves) == ("walk", "start of each phase, this turn")
    assert walk.own == PhasesPending(repeat=True)
    do(enc, Next())
    do(enc, Declare(who="Gob", action="reload", details={"reloads": "2"}))
    reload = pending(enc, "Gob")
    assert reload is not None and reload.resolves == "after 1 more reload action"
    assert reload.own == PhasesPending(progress="1/2")


def test_shared_flags_phases_does_not_read_are_refused_in_one_message(memory_store: Store) -> None:
    """phases.md, Actions: "A character may only perform one action per combat phase": no AP,
    percentages, paces or triggers; no hits (wounds are effects), no timed effects."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    refused(enc, Declare(who="Gob", action="walk", amount=2), BadInput,
            "phases `declare` takes no --amount (it takes: --target)")
    refused(enc, Declare(who="Gob", action="walk", trigger="the door opens"), BadInput,
            "phases `declare` takes no --trigger (it takes: --target)")
    do(enc, Declare(who="Gob", action="fire", target="Ann"))
    refused(enc, Resolve(who="Gob", outcome="hit", hits=3), BadInput,
            "phases `resolve` takes no --hits (it takes: --outcome)")
    refused(enc, Cancel(who="Gob", details={"orientation": "left"}), BadInput,
            "phases `cancel` has no detail 'orientation' (it takes none)")
    refused(enc, ApplyEffect(who="Ann", kind="slight-wound", per_round=1, rounds=2), BadInput,
            "phases `effect` takes no --per-round, --rounds (it takes: --end)")


def test_deciding_leaves_the_state_as_it_was(memory_store: Store) -> None:
    """Every decision of a short fight, accepted or refused, leaves the state it is given
    byte for byte as it was (the fold changes its working copy in place)."""
    enc = duel(memory_store)
    script = [
        Declare(who="Ann", action="aim", target="Orc"),
        StartRound(details={"ambush": "foes"}),  # the Orc walks every phase (Ambush)
        Declare(who="Ann", action="fire", target="Orc"),  # opportunity fire
        Resolve(who="Ann", outcome="hit"),
        ApplyEffect(who="Orc", kind="slight-wound"),
        Upkeep(),  # refused: phase 6
        Next(),
        Declare(who="Gob", action="fire", target="Ann", details={"move": "walk"}),
        Declare(who="Gob", action="walk"),  # refused: one action a phase
        Next(),
        Cancel(who="Orc"),
        Next(),
        Declare(who="Gob", action="reload", details={"reloads": "2"}),
        ApplyEffect(who="Orc", kind="slight-wound", end=True),
        ApplyEffect(who="Gob", kind="panic", details={"by": "2"}),
        Damage(who="Ann", amount=3),  # refused: wounds are effects
        Next(),
        Declare(who="Orc", action="prone"),
        Declare(who="Ann", action="melee", target="Orc"),
        *[Next()] * 5,  # the fourth ends the turn; the fifth is refused
        StartRound(),
    ]
    ruleset = enc.ruleset
    for command in script:
        state = enc.fold_to(enc.head().event_id)[0]
        before = msgspec.msgpack.encode(state)
        try:
            ruleset.decide(state, command, Dice.of(enc.started, "test"))
        except SkirmishError:
            assert msgspec.msgpack.encode(state) == before, command
            continue
        assert msgspec.msgpack.encode(state) == before, command
        do(enc, command)
    assert enc.view().clock.round == 2


# --- resolve, view, CLI --------------------------------------------------------------------


def test_resolve_records_the_outcome_of_the_latest_action(memory_store: Store) -> None:
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    refused(enc, Resolve(who="Gob", outcome="hit"), RuleViolation,
            "Gob has taken no action this turn to resolve (phases.md, Actions)")
    do(enc, Declare(who="Gob", action="fire", target="Ann"))
    assert one(do(enc, Resolve(who="Gob", outcome="hit")), ActionResolved).action == "fire"
    refused(enc, Resolve(who="Gob", outcome="hit"), RuleViolation, "Gob's fire is already resolved (phases.md, Actions)")
    refused(enc, Resolve(who="Ann", outcome="x", hits=3), BadInput,
            "phases `resolve` takes no --hits (it takes: --outcome)")


def shown(cli: Cli, at: int | None = None) -> Shown:
    """The view `state --json` prints, read through the library: the CLI's printing of the
    typed view is not ported yet."""
    store = Store(cli.db)
    try:
        return Encounter.open(store).view(at)
    finally:
        store.close()


def test_the_view_shows_the_phase_the_call_and_what_each_may_still_do(cli: Cli) -> None:
    cli.ok("new", "Farm", "--rules", "phases")
    cli.ok("add", "Ann", "--side", "players", "--stat", "initiative=4", "--stat", "agility=7")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "initiative=6")
    cli.ok("round")
    cli.ok("next")
    view = shown(cli)
    assert (view.clock.round, view.clock.unit, view.clock.running) == (1, "turn", True)
    assert view.clock.own == PhasesClock(phase=6, call=6)
    assert view.clock.moment == "phase 6, call 6" and view.clock.now == ("Orc",)
    assert figures(view.combatant("Ann")).acts_in == (4, 3, 2, 1)
    assert view.combatant("Orc").budget == Budget(name="actions", left=6, of=6)
    out = cli.ok("declare", "Orc", "trot", "--with", "talk=Over here")
    assert 'Orc acts: trot, 15 m, saying "Over here" (phase 6)' in out
    assert cli.fails("declare", "Orc", "walk", "--with", "pace=fast") == (
        "Error: phases `declare` has no detail 'pace' (it takes: repeat, move, melee, talk, reloads, bulk, area, "
        "cover, auto)")


def test_sample_fight_ends_as_its_comments_say(cli: Cli) -> None:
    cli.ok("run", str(SAMPLE))
    out = cli.out
    assert "Bauer acts: aim at Rook (before the fight)" in out
    assert "Rook acts: walk, 8 m (phase 6), every phase this turn: ambushed with initiative 3, not 6" in out
    assert "Phase 6: Bauer fires opportunity fire at Rook, first shot aimed" in out
    assert "Bauer acts: fire at Vance, first shot aimed (phase 2); Bauer goes first (Agility - bulk 5 vs 4)" in out
    assert "Vance acts: run, 30 m, to cover (phase 4)" in out
    assert "Sarge acts: reload, 2 of 2: done (phase 3)" in out
    assert "Turn 1 ends; actions taken: Bauer 4, Kestrel 3, Rook 5, Vance 4, Sarge 4" in out
    view = shown(cli)
    assert view.clock.round == 2 and view.branch == "main"
    # Sarge (6) has fired at his call in phase 6 of turn 2; phase 5 calls only him again.
    assert view.clock.running and view.clock.own == PhasesClock(phase=6, call=6)
    assert view.clock.now == ("Sarge",) and view.clock.next == ("Sarge",)
    rows = {c.name: c for c in view.combatants}
    # Rook: 3, slightly and seriously wounded: the worst counts (wounds=worst), 3 - 3 = 0.
    assert rows["Rook"].vital.value == 0 and figures(rows["Rook"]).acts_in == ()
    assert rows["Rook"].status == "out"
    assert rows["Vance"].vital.value == 3 and rows["Kestrel"].vital.value == 4
    assert figures(rows["Bauer"]).aiming is None and figures(rows["Kestrel"]).prone
    assert "Vance: serious-wound (-3), initiative now 1  (undone)" in cli.ok("log", "--all")
    branches = {b["name"]: b for b in json.loads(cli.ok("branches", "--json"))}
    assert set(branches) == {"main", "what-if"}
    what_if = shown(cli, branches["what-if"]["head"])
    assert figures(what_if.combatant("Vance")).repeating == "run"
    assert figures(rows["Vance"]).repeating is None


def test_standing_up_halves_a_trot_exactly(memory_store: Store) -> None:
    """phases.md, Actions: "Standing up cuts the distance moved in an action in half": a
    trot's 15 m from prone is 7.5 m (the text never rounds), and the turn's metres moved
    keep the half."""
    enc = duel(memory_store)
    do(enc, StartRound())
    do(enc, Next())
    do(enc, Declare(who="Gob", action="prone"))
    next_until(enc, 5, 6)
    taken = one(do(enc, Declare(who="Gob", action="trot")), ActionTaken)
    assert taken.distance is not None and (taken.distance.amount, taken.distance.shown()) == (7.5, "7.5")
    assert who(enc, "Gob").moved_m == 7.5
    assert "7.5 m (stands up: halved)" in enc.ruleset.describe(taken)


def test_a_fight_where_one_is_out_healed_of_a_wound_and_one_leaves_and_returns(memory_store: Store) -> None:
    """phases.md, Initiative: "Characters who have had their Initiative level reduced to 0
    may not act at all". Under wounds=each the Orc (4) takes a serious (-3) and a slight
    (-1) wound: 0, out; a slight wound taken off (the text has no hits to heal) puts it at
    1, back in. Gob (6) leaves: no call names it until it returns."""
    from skirmish.eventlog.commands import Heal, Leave, Return

    enc = duel(memory_store, wounds="each")
    do(enc, StartRound())
    do(enc, Next())
    assert enc.view().clock.now == ("Gob",)
    do(enc, ApplyEffect(who="Orc", kind="serious-wound"))
    do(enc, ApplyEffect(who="Orc", kind="slight-wound"))
    orc = enc.view().combatant("Orc")
    assert (orc.vital.value, orc.status) == (0, "out")
    refused(enc, Heal(who="Orc", amount=1), RuleViolation,
            "phases.md counts wounds, not hits: `skirmish effect Orc slight-wound --end` (or serious-wound) "
            "takes a wound off (phases.md, Initiative)")
    do(enc, ApplyEffect(who="Orc", kind="slight-wound", end=True))
    assert enc.view().combatant("Orc").status == "fighting"
    do(enc, Leave(who="Gob", reason="flees into the barn"))
    assert enc.view().combatant("Gob").status == "left" and enc.view().combatants[-1].name == "Gob"
    refused(enc, Declare(who="Gob", action="walk"), RuleViolation,
            "Gob has left the fight: it cannot act until `skirmish return Gob`")
    called = [name for _, names in walk_turn(enc) for name in names]
    assert "Gob" not in called and "Ann" in called
    do(enc, Return(who="Gob"))
    assert enc.view().combatant("Gob").status == "fighting"
    enc.undo(1, "undo")
    assert enc.view().combatant("Gob").status == "left"
