"""The decisions every ruleset gets for `set` and `rename` (projections/ruleset.py, gm.py), on
the toy duel ruleset as a third-party ruleset would have them: its stats set in the fields
of their names, and a ruleset keeping a stat elsewhere refused in one line, not a traceback."""

from __future__ import annotations

import pytest
from toy_duel import Duel

from skirmish.eventlog.commands import AddCombatant, Rename, SetStats
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import EncounterStarted
from skirmish.projections.ruleset import Dice


def _duel(ruleset: Duel) -> object:
    state = ruleset.initial(EncounterStarted(name="Duel", ruleset="duel", options={}, seed=1))
    for name in ("Ann", "Bob"):
        for event in ruleset.decide(state, AddCombatant(name=name, stats={"hp": "10", "speed": "3"}), Dice(1, "x")):
            ruleset.apply(state, event)
    return state


def test_set_and_rename_in_a_third_party_ruleset() -> None:
    duel = Duel()
    state = _duel(duel)
    for event in duel.decide(state, SetStats(who="ann", stats={"hp": "14"}), Dice(1, "x")):
        duel.apply(state, event)
    for event in duel.decide(state, Rename(who="Bob", to="Robert"), Dice(1, "x")):
        duel.apply(state, event)
    fighters = state.fighters  # type: ignore[attr-defined]
    assert list(fighters) == ["Ann", "Robert"]
    assert (fighters["Ann"].hp, fighters["Robert"].name) == (14, "Robert")


def test_a_ruleset_keeping_a_stat_under_another_name_refuses_set_in_one_line() -> None:
    odd = type("OddDuel", (Duel,), {"stat_fields": {"hp": "health"}})()
    state = _duel(odd)
    with pytest.raises(RuleViolation) as refused:
        odd.decide(state, SetStats(who="Ann", stats={"hp": "14"}), Dice(1, "x"))
    assert str(refused.value).startswith("duel cannot `set` this: Fighter keeps stat 'hp' in no field 'health'")
