"""The narration's shortcuts say what the plain reading says.

The replay keeps the line of a figure's change for the next time the same change comes
(projections/text/narration.py ``_change_lines``), and ap-countdown tells each kind of
event by a function found by its type (``ApCountdown.describe``). Each test here names the
slip it would catch: a kept line that skipped the escaping of a hostile name, a yes/no
figure read as the number it equals, a forgotten line told wrong, a kind of event told
by the wrong function.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skirmish.projections.text.narration as narration
from skirmish.eventlog.events import Derivation
from skirmish.eventlog.store import Store
from skirmish.projections.notes import notes_shown
from skirmish.projections.rulesets.ap_countdown import ApCountdown
from skirmish.projections.rulesets.ap_countdown import events as ap
from skirmish.projections.text.board import combatant_changes
from skirmish.projections.text.narration import _change_lines, replay_text
from skirmish.projections.view import Budget, Combatant, Gauge, Own

from support.examples import examples
from test_replay_fixtures import played

INDENT = "\n" + " " * 9


class Odd(Own, frozen=True, kw_only=True):
    """An own part whose one figure is a number at one moment and yes/no at another."""

    x: Any = 0


def row(name: str, hits: int, x: Any = 0) -> Combatant:
    return Combatant(name=name, side="foes", vital=Gauge(name="hits", value=hits), budget=Budget(name="AP", left=2),
                     own=Odd(x=x))


def test_a_hostile_name_is_escaped_each_time_its_change_comes() -> None:
    name = "Orc\x1b[2J\u202e"
    before, after = row(name, 5), row(name, 3)
    read: dict[str, Any] = {}
    told: dict[Any, str] = {}
    expected = INDENT + "Orc\\x1b[2J\\u202e: hits 5 -> 3"
    assert _change_lines([(before, after)], read, told) == expected  # told the first time
    again_before, again_after = row(name, 5), row(name, 3)  # the same change, other rows
    assert _change_lines([(again_before, again_after)], read, told) == expected  # the line kept
    assert expected == INDENT + combatant_changes(before, after)[0]


def test_a_yes_or_no_figure_is_not_told_as_the_number_it_equals() -> None:
    # True == 1 and False == 0, with the same hash: a line kept for "x 0 -> 1" must not
    # be the line of "x no -> yes".
    read: dict[str, Any] = {}
    told: dict[Any, str] = {}
    assert _change_lines([(row("Orc", 5, 0), row("Orc", 5, 1))], read, told) == INDENT + "Orc: x 0 -> 1"
    assert _change_lines([(row("Orc", 5, False), row("Orc", 5, True))], read, told) == INDENT + "Orc: x no -> yes"
    assert _change_lines([(row("Orc", 5, None), row("Orc", 5, 0))], read, told) == INDENT + "Orc: x - -> 0"
    assert _change_lines([(row("Orc", 5, "0"), row("Orc", 5, 0))], read, told) == INDENT + "Orc: x 0 -> 0"


@settings(max_examples=examples(6), deadline=None)
@given(seed=st.integers(0, 10_000), commands=st.integers(20, 120), keep=st.integers(1, 5))
def test_lines_forgotten_past_the_bound_are_told_again_the_same(seed: int, commands: int, keep: int) -> None:
    store = Store(":memory:")
    try:
        enc = played(store, "ap-countdown", seed, commands)
        notes = notes_shown(enc)
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(narration, "TOLD_AT_MOST", keep)  # forgotten every few lines
            assert list(replay_text(enc, notes)) == list(replay_text(enc, notes, whole=True))
    finally:
        store.close()


def d(value: int) -> Derivation:
    return Derivation(value=value, formula=str(value))


# Each kind's text as the rules' log reads it, written out by hand, with the branches a
# sample fight seldom reaches.
TOLD = [
    (ap.ClockAdvanced(count=12), "Count 12"),
    (ap.ClockAdvanced(count=12, declaring=("Mira", "Orc")), "Count 12: Mira, Orc to declare"),
    (ap.ClockAdvanced(count=9, resolving=("Orc",)), "Count 9: Orc to resolve"),
    (ap.ClockAdvanced(count=9, declaring=("Mira",), resolving=("Orc",)), "Count 9: Mira to declare; Orc to resolve"),
    (ap.ActionResolved(who="Brakk", action="charge", paid=3, count=None, outcome="hit", target="Troll",
                       charge=d(2), critical_bonus=10, penalty=d(-20)),
     "Brakk resolves charge on Troll (charge x2, critical +10), 3 AP, penalty now -20 (pace): hit"),
    (ap.ActionResolved(who="Mira", action="dodge", paid=1, count=7), "Mira resolves dodge at 7, 1 AP"),
    (ap.ActionDeclared(who="Mira", action="shoot", cost=d(2), count=20, step="readies", at=d(18), penalty=d(0),
                       trigger="the door opens"),
     "Mira declares shoot (2 AP) at 20: ready at 18, then held until: the door opens"),
    (ap.ActionDeclared(who="Orc", action="climb", cost=d(6), count=20, step="progresses", at=d(0),
                       penalty=d(-10), target="wall"),
     "Orc declares climb on wall (6 AP, penalty -10) at 20: round-to-round, this round's share ends at 0"),
    (ap.UpkeepTick(step="timed", who="Troll", effect="stunned", rounds_left=1), "Upkeep: Troll's stunned has 1 round left"),
    (ap.UpkeepTick(step="timed", who="Troll", effect="stunned", rounds_left=2), "Upkeep: Troll's stunned has 2 rounds left"),
    (ap.UpkeepTick(step="stun", who="Troll", effect="stunned", reason="wears off"), "Upkeep: Troll's stunned wears off"),
    (ap.UpkeepTick(step="stagger", who="Troll", effect="staggered", removed=True), "Upkeep: Troll's staggered ends"),
    (ap.UpkeepTick(step="bleeding", who="Orc", effect="bleeding", change=-3), "Upkeep: Orc bleeds 3 hits"),
    (ap.UpkeepTick(step="environment", who="", effect="fire", reason="fire 3 -> 4"), "Upkeep: fire 3 -> 4"),
    (ap.EffectApplied(who="Orc", kind="bleeding", per_round=2), "Orc is bleeding (2 a round)"),
    (ap.EffectApplied(who="Orc", kind="stunned", rounds=1), "Orc is stunned (1 round)"),
    (ap.EffectApplied(who="Orc", kind="dazed"), "Orc is dazed (until upkeep)"),
    (ap.CounterSet(name="fire", value=3, per_round=1), "The scene's fire stands at 3, +1 each upkeep"),
    (ap.CounterSet(name="fire", value=0, per_round=0, ended=True), "The scene's fire stops"),
    (ap.RoundEnded(round=3, ap_lost={"Mira": 2, "Orc": 1}), "Round 3 ends; unspent AP lost: Mira 2, Orc 1"),
    (ap.RoundEnded(round=3), "Round 3 ends"),
    (ap.DamageTaken(who="Orc", hits=d(7), hits_left=28), "Orc takes 7 hits (28 left)"),
    (ap.HitsHealed(who="Orc", hits=d(5), hits_left=33), "Orc is healed 5 hits (33 left)"),
    (ap.ParryUsed(who="Mira", against="Orc", paid=0), "Mira parries Orc's attack"),
    (ap.ActionCancelled(who="Mira", action="shoot", reason="is cancelled", orientation="passed", delay=3),
     "Mira's shoot is cancelled (Orientation Maneuver passed: delay 3)"),
]


@pytest.mark.parametrize(("event", "text"), TOLD, ids=[text for _, text in TOLD])
def test_each_kind_of_event_is_told_by_its_own_words(event: Any, text: str) -> None:
    assert ApCountdown().describe(event) == text


def test_a_kind_made_from_one_of_the_events_is_told_as_that_event() -> None:
    class Bled(ap.DamageTaken, frozen=True, tag="test.bled"):
        pass

    assert ApCountdown().describe(Bled(who="Orc", hits=d(2), hits_left=9)) == "Orc takes 2 hits (9 left)"


def test_the_lines_kept_stay_within_their_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(narration, "TOLD_AT_MOST", 3)
    read: dict[str, Any] = {}
    told: dict[Any, str] = {}
    for hits in range(10, 0, -1):
        assert _change_lines([(row("Orc", hits), row("Orc", hits - 1))], read, told) == (
            INDENT + f"Orc: hits {hits} -> {hits - 1}")
        assert len(told) <= 3
