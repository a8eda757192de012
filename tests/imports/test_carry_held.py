"""`new --carry` leaves behind what another creature holds: every srd-5.2 condition put on
with its source (``--with by=NAME``: the grappler, the charmer) or held by a Concentration
ends with the fight, named in one line, while the same condition with no source comes along.

Rules: shared/rules/srd-5.2-combat.md (SRD 5.2 by Wizards of the Coast LLC, CC-BY-4.0), §13
(a condition held by a creature, as Grappled by the grappler, lasts while it holds it; the
grappler is not in the next fight) and §11 (an effect held by Concentration ends with it,
and Concentration does not outlast the fight).
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from skirmish.eventlog.commands import CarriedEffect
from skirmish.projections.ruleset import lasting_from_view
from skirmish.projections.rulesets.srd_5__2.vocabulary import CONDITIONS
from skirmish.projections.view import Effect

from support.cli import Cli

# Every condition the effect command puts on but Exhaustion, which is a level and comes in
# the carried figures (test_carry.py).
HELD = sorted(set(CONDITIONS) - {"exhaustion"})


def combatants(cli: Cli) -> dict[str, Any]:
    return {c["name"]: c for c in json.loads(cli.ok("state", "--json"))["combatants"]}


def crypt(cli: Cli) -> None:
    cli.ok("new", "Crypt", "--rules", "srd-5.2", "--seed", "7")
    cli.ok("add", "Aldra", "--side", "party", "--stat", "hp=31", "--stat", "ac=16")
    cli.ok("add", "Ogre", "--side", "foes", "--stat", "hp=59", "--stat", "ac=11")


@pytest.mark.parametrize("kind", HELD)
def test_a_condition_held_by_a_foe_is_not_carried(cli: Cli, kind: str) -> None:
    crypt(cli)
    cli.ok("effect", "Aldra", kind, "--with", "by=Ogre")
    out = cli.ok("new", "Catacomb", "--rules", "srd-5.2", "--carry", "Crypt")
    assert f"Aldra: {kind} (by Ogre) ends with the fight: not carried" in out
    got = combatants(cli)
    assert set(got) == {"Aldra"}  # the party's side: the Ogre stays behind
    assert kind not in {e["kind"] for e in got["Aldra"]["effects"]}
    assert (got["Aldra"]["status"], got["Aldra"]["vital"]["value"]) == ("fighting", 31)


@pytest.mark.parametrize("kind", HELD)
def test_the_same_condition_with_no_source_is_carried(cli: Cli, kind: str) -> None:
    crypt(cli)
    cli.ok("effect", "Aldra", kind)
    out = cli.ok("new", "Catacomb", "--rules", "srd-5.2", "--carry", "Crypt")
    assert "ends with the fight" not in out
    effects = {e["kind"]: e["left"] for e in combatants(cli)["Aldra"]["effects"]}
    assert kind in effects and effects[kind] is None  # until ended, as it stood


def test_a_condition_held_by_a_carried_allys_concentration_is_not_carried(cli: Cli) -> None:
    """Tamsin's Hold Person holds Aldra (§11): her Concentration ends with the fight, and what
    it held with it, though both come along."""
    crypt(cli)
    cli.ok("add", "Tamsin", "--side", "party", "--stat", "hp=18", "--stat", "ac=12")
    cli.ok("effect", "Tamsin", "concentration", "--with", "spell=Hold-Person")
    cli.ok("effect", "Aldra", "paralyzed", "--with", "by=Tamsin", "--with", "spell=Hold-Person")
    out = cli.ok("new", "Catacomb", "--rules", "srd-5.2", "--carry", "Crypt")
    assert "Tamsin: concentration on Hold-Person ends with the fight: not carried" in out
    assert "Aldra: paralyzed (by Tamsin) ends with the fight: not carried" in out
    got = combatants(cli)
    assert set(got) == {"Aldra", "Tamsin"}
    assert "paralyzed" not in {e["kind"] for e in got["Aldra"]["effects"]}
    assert got["Tamsin"]["own"]["concentration"] == ""


def test_a_ruleset_without_its_own_lasting_carries_its_kinds_and_the_gms_that_run_no_rounds() -> None:
    """The default a third-party ruleset gets (projections/write/carry.py, docs/adding-a-ruleset.md):
    what `effect` put on with no rounds to run, the ruleset's own kinds and the GM's custom
    ones; an effect with rounds left ends with the fight, and an entry of the ruleset's clock
    (a guard) is no condition."""
    effects = (
        Effect(kind="prone"),  # the ruleset's, until ended: carried
        Effect(kind="dazed", left=2),  # the ruleset's, 2 rounds left: not
        Effect(kind="blessed", custom=True),  # the GM's own, until ended: carried
        Effect(kind="hexed", left=3, custom=True),  # the GM's own, 3 rounds left: not
        Effect(kind="guarded", detail="until its next turn"),  # the clock's: not
    )
    view = SimpleNamespace(combatant=lambda who: SimpleNamespace(effects=effects))
    ruleset = SimpleNamespace(effects={"prone": "", "dazed": ""})
    assert lasting_from_view(ruleset, view, "Aldra") == [
        CarriedEffect(kind="prone", custom=False), CarriedEffect(kind="blessed", custom=True)]
