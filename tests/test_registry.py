"""Rulesets come from the `skirmish.rulesets` entry points: the built-in ones and any other."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

from skirmish.projections import ruleset as registry_module
from skirmish.projections.rulesets.ap_countdown import RULESET


def test_the_built_in_ruleset_is_an_entry_point_of_skirmish() -> None:
    assert "ap-countdown" in registry_module.registry()
    assert registry_module.get_ruleset("ap-countdown") is RULESET


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
