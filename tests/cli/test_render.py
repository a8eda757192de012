"""Plain-text state renders the typed view of any ruleset: the core in 80 columns, every figure wide."""

from __future__ import annotations

import msgspec

from skirmish.projections.text.board import (
    WIDTH,
    clock_label,
    render_state,
    view_changes,
)
from skirmish.projections.view import (
    Budget,
    Clock,
    Combatant,
    Effect,
    Gauge,
    Own,
    Pending,
    Shown,
)


class Slots(Own, frozen=True, kw_only=True):
    order: tuple[str, ...]
    slots: dict[str, str]


def shown(*, effects: tuple[Effect, ...] = (), vital: int = 30, name: str = "Jack") -> Shown:
    clock = Clock(round=2, running=True, moment="Jack's turn", now=(name,), next=("Drone",))
    jack = Combatant(
        name=name, side="players", acting=True, vital=Gauge(name="hits left", value=vital, maximum=40),
        budget=Budget(name="AP", left=2, of=6), effects=effects,
        own=Slots(order=("Jack", "Drone"), slots={"primary": "evade"}),
    )
    drone = Combatant(name="Drone", side="foes", status="dead", vital=Gauge(name="hits left", value=0, maximum=9),
                      budget=Budget(name="AP", left=0, of=6), own=Slots(order=(), slots={}))
    return Shown(encounter="Fight", ruleset="any", branch="main", head=3, at=3, clock=clock,
                 combatants=(jack, drone), pending=(Pending(who="Drone", action="shoot", target=name,
                                                            resolves="count 20"),))


def test_the_first_lines_say_where_when_and_who_acts() -> None:
    lines = render_state(shown()).splitlines()
    assert lines[0] == "Fight (any), branch main, at #3"
    assert lines[1] == "round 2, Jack's turn; now: Jack; next: Drone"


def test_the_default_table_is_the_core_and_marks_who_acts_without_colour() -> None:
    lines = render_state(shown(effects=(Effect(kind="bleeding", detail="2/round"), Effect(kind="stunned", left=2)))
                         ).splitlines()
    assert lines[2].split() == ["name", "side", "status", "hits", "left", "AP", "left", "effects"]
    assert lines[3].split()[:5] == [">", "Jack", "players", "fighting", "30/40"]
    # At 80 columns the effects wrap under their column, between effects, never cut.
    assert lines[3].endswith("bleeding (2/round),")
    assert lines[4] == " " * lines[2].index("effects") + "stunned (2 left)"
    assert lines[5].split()[:4] == ["Drone", "foes", "dead", "0/9"]
    assert lines[6] == "pending: Drone shoot (on Jack, count 20)"


def test_the_default_table_fits_80_columns_however_long_the_effects() -> None:
    many = tuple(Effect(kind=f"condition-{i}", left=i) for i in range(12))
    text = render_state(shown(effects=many))
    assert max(len(line) for line in text.splitlines()) <= WIDTH
    assert "…" not in text
    said = " ".join(text.split())
    assert all(f"condition-{i} ({i} left)" in said for i in range(12))


def test_wide_shows_the_rulesets_own_figures() -> None:
    text = render_state(shown(), wide=True)
    header = text.splitlines()[2]
    assert "order" in header and "slots" in header
    assert "Jack, Drone" in text.splitlines()[3] and "primary evade" in text.splitlines()[3]


def test_changes_name_the_figure_by_its_label() -> None:
    before, after = shown(vital=30), shown(vital=18, effects=(Effect(kind="prone"),))
    assert view_changes(before, after) == ["Jack: hits left 30 -> 18", "Jack: effects - -> prone"]


def test_before_the_first_round_the_clock_says_so() -> None:
    assert clock_label(Clock(round=0)) == "before the first round"
    assert clock_label(Clock(round=3, unit="turn", moment="surprise round")) == "turn 3, surprise round"


def test_state_json_keeps_the_versioned_shape() -> None:
    data = msgspec.to_builtins(shown())
    assert data["view"] == 2
    assert {"encounter", "ruleset", "branch", "head", "at", "clock", "combatants", "pending", "own"} <= set(data)
    assert data["combatants"][0]["vital"] == {"name": "hits left", "value": 30, "maximum": 40}


def test_the_clock_label_names_the_round_once() -> None:
    assert clock_label(Clock(round=2, moment="after round 2")) == "after round 2"
    assert clock_label(Clock(round=1, moment="after round 12")) == "round 1, after round 12"
    assert clock_label(Clock(round=4, moment="Ann's turn")) == "round 4, Ann's turn"
