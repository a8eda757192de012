"""Rulesets come from the `skirmish.rulesets` entry points: the built-in ones and any other."""

from __future__ import annotations

from importlib.metadata import EntryPoint
from typing import Any

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


def _probe(ruleset_id: str) -> tuple[Any, Any]:
    from skirmish.eventlog.store import Store
    from skirmish.projections.ruleset import get_ruleset

    from support.cli import start

    ruleset = get_ruleset(ruleset_id)
    store = Store(":memory:")
    enc = start(store, ruleset_id)
    stats = {k: str(max(10, s.minimum or 0) if s.maximum is None else s.maximum)
             for k, s in ruleset.stats.items() if s.required}
    enc.execute(AddCombatant(name="Probe", stats=stats), "add Probe")
    return store, enc


@pytest.mark.parametrize("ruleset_id", sorted(registry()))
def test_every_rulesets_view_is_the_typed_contract(ruleset_id: str) -> None:
    """Every surface reads the same core whatever the ruleset (projections/view.py)."""
    from skirmish.projections.view import STATUSES, Budget, Clock, Gauge, Own, Shown

    store, enc = _probe(ruleset_id)
    try:
        assert enc.ruleset.actions, f"{ruleset_id} declares no actions"
        view = enc.view()
        assert isinstance(view, Shown) and isinstance(view.clock, Clock)
        assert isinstance(view.own, Own) and isinstance(view.clock.own, Own)
        (probe,) = view.combatants
        assert probe.name == "Probe" and probe.status in STATUSES
        assert isinstance(probe.vital, Gauge) and isinstance(probe.budget, Budget) and isinstance(probe.own, Own)
        assert probe.vital.name and probe.budget.name
    finally:
        store.close()


@pytest.mark.parametrize("ruleset_id", sorted(registry()))
def test_flags_a_ruleset_does_not_declare_are_refused_in_one_line(ruleset_id: str) -> None:
    """Each shared flag a ruleset does not read on a command is refused by the engine,
    naming it and what the command does take, and nothing is appended."""
    from skirmish.eventlog import commands as c
    from skirmish.eventlog.errors import BadInput
    from skirmish.projections.ruleset import flag_name, flags_on, optional_fields

    store, enc = _probe(ruleset_id)
    samples: dict[str, Any] = {"ap": 2, "percent": 20, "target": "Probe", "trigger": "the door opens",
                               "pace": "run", "penalty": 1, "amount": 5, "outcome": "hit", "hits": 3,
                               "charge_speed": 4, "orientation": "success", "per_round": 1, "rounds": 2,
                               "start": 3, "end": True}
    required = {"who": "Probe", "action": "x", "kind": "prone", "amount": 1}
    try:
        for command_type in (c.StartRound, c.Next, c.Declare, c.Resolve, c.Cancel, c.Damage, c.ApplyEffect, c.Upkeep):
            tag = str(command_type.__struct_config__.tag)
            declared = flags_on(enc.ruleset, tag)
            known = [name for name, _ in optional_fields(command_type)]
            fixed = {k: v for k, v in required.items() if k in command_type.__struct_fields__ and k not in known}
            takes = ", ".join(flag_name(n) for n in declared) or "none of the shared flags"
            for name in known:
                if name in declared:
                    continue
                head = enc.head().event_id
                with pytest.raises(BadInput) as refused:
                    enc.execute(command_type(**fixed, **{name: samples[name]}), "probe")
                assert str(refused.value) == f"{ruleset_id} `{tag}` takes no {flag_name(name)} (it takes: {takes})"
                assert enc.head().event_id == head
    finally:
        store.close()


def test_a_flag_of_a_rulesets_own_travels_in_details_and_is_checked_against_its_kind() -> None:
    """`--NAME` of a ruleset's own arrives as `--with NAME=VALUE` would (cli/app.py): the
    engine takes it on the commands declared, of the kind declared."""
    from types import SimpleNamespace

    from skirmish.eventlog.commands import Declare, Resolve
    from skirmish.eventlog.errors import BadInput
    from skirmish.projections.ruleset import Flag, check_details, own_flags

    house: Any = SimpleNamespace(id="house", details={}, flags={
        "target": Flag("whom", ("declare",)),
        "stance": Flag("how high", ("declare",), int),
        "feint": Flag("a feint", ("declare",), bool),
    })
    assert list(own_flags(house, Declare)) == ["stance", "feint"]
    check_details(house, Declare(who="A", action="x", details={"stance": "-3", "feint": "yes"}))
    for details, refusal in (
        ({"stance": "high"}, "--with stance= takes a whole number, not 'high'"),
        ({"stance": "2000000"}, "--with stance=2000000 is out of range (at most 1,000,000 either way)"),
        ({"feint": "no"}, "--with feint= takes yes, not 'no' (or --feint)"),
    ):
        with pytest.raises(BadInput) as refused:
            check_details(house, Declare(who="A", action="x", details=details))
        assert str(refused.value) == refusal
    with pytest.raises(BadInput) as refused:
        check_details(house, Resolve(who="A", details={"stance": "1"}))
    assert str(refused.value) == "house `resolve` has no detail 'stance' (it takes none)"
