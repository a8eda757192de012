"""Plain-text state renders whatever figures a ruleset's view holds."""

from __future__ import annotations

from skirmish.projections.render import render_state, view_changes


def view(**clock: object) -> dict[str, object]:
    return {
        "encounter": "Fight", "ruleset": "any", "branch": "main", "head": 3, "at": 3, "round": 1,
        "clock": clock,
        "combatants": [
            {"name": "Jack", "side": "players", "order": ["Jack", "Drone"], "slots": {"primary": "evade"},
             "effects": [{"kind": "prone", "per_round": None, "rounds": None}]},
        ],
        "pending": [], "environment": [],
    }


def test_lists_of_plain_values_and_dicts_render_as_text() -> None:
    text = render_state(view(order=["Jack", "Drone"], acting=[]))
    assert "round 1, order Jack, Drone, acting -" in text
    row = text.splitlines()[-1]
    assert "Jack, Drone" in row and "primary evade" in row and "prone" in row


def test_changes_name_the_figure() -> None:
    before, after = view(), view()
    after["combatants"] = [{**after["combatants"][0], "order": ["Drone"]}]  # type: ignore[index]
    assert view_changes(before, after) == ["Jack: order Jack, Drone -> Drone"]
