"""Rulesets come from the `skirmish.rulesets` entry points: the built-in ones and any other."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

from skirmish.eventlog.commands import AddCombatant
from skirmish.projections import ruleset as registry_module
from skirmish.projections.ruleset import registry
from skirmish.projections.rulesets.ap_countdown import RULESET


def test_the_built_in_ruleset_is_an_entry_point_of_skirmish() -> None:
    assert "ap-countdown" in registry_module.registry()
    assert registry_module.get_ruleset("ap-countdown") is RULESET


def test_the_built_in_table_is_skirmishs_own_entry_points() -> None:
    """get_ruleset's shortcut for built-in rulesets names exactly what pyproject registers."""
    from importlib.metadata import distribution

    own = distribution(registry_module.DISTRIBUTION).entry_points.select(group=registry_module.ENTRY_POINT_GROUP)
    assert {ep.name: ep.value for ep in own} == registry_module.BUILT_IN
    for ruleset_id, entry in registry_module.BUILT_IN.items():
        assert registry_module.get_ruleset(ruleset_id) is registry_module.registry()[ruleset_id].load()
        assert get_ruleset_id(entry) == ruleset_id


def get_ruleset_id(entry: str) -> str:
    from importlib import import_module

    module, _, attribute = entry.partition(":")
    return str(getattr(import_module(module), attribute).id)


def test_a_third_party_ruleset_is_found_through_its_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    foreign = EntryPoint(
        name="house-rules", value="skirmish.projections.rulesets.ap_countdown:RULESET",
        group=registry_module.ENTRY_POINT_GROUP,
    )
    monkeypatch.setattr(registry_module, "registry", lambda: {"house-rules": foreign})
    registry_module.get_ruleset.cache_clear()
    try:
        assert registry_module.get_ruleset("house-rules") is RULESET
    finally:
        registry_module.get_ruleset.cache_clear()


@pytest.mark.parametrize("ruleset_id", sorted(registry()))
def test_every_ruleset_declares_figures_its_view_has(ruleset_id: str) -> None:
    """`vital` and `budget` name keys of every combatant row of the ruleset's view."""
    from conftest import start
    from skirmish.eventlog.store import Store
    from skirmish.projections.ruleset import get_ruleset

    ruleset = get_ruleset(ruleset_id)
    assert ruleset.actions, f"{ruleset_id} declares no actions"
    store = Store(":memory:")
    enc = start(store, ruleset_id)
    stats = {k: str(max(10, s.minimum or 0) if s.maximum is None else s.maximum)
             for k, s in ruleset.stats.items() if s.required}
    enc.execute(AddCombatant(name="Probe", stats=stats), "add Probe")
    view = enc.view()
    assert set(view) >= {"round", "clock", "combatants", "pending", "environment"}
    row = view["combatants"][0]
    assert ruleset.vital in row and ruleset.budget in row, sorted(row)
    store.close()
