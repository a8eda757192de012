"""Each ruleset's numbers against the rules text, computed here from the text's formulas.

Hypothesis draws the stats and the GM's dice; they are typed through the command line
as a GM types them (`--stat`, `--roll NAME=FACES`, `--with`, `effect`, `damage`), and
`state --json` is read back and compared with what the formula in the rules file gives,
worked out in the test. The expected numbers never come from the program: a wrong sign,
a term left out, a rounding the other way or an order reversed shows here, whatever
the ruleset's own derivations say about themselves.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.cli import Cli
from support.examples import examples

ORACLE = settings(max_examples=examples(30), deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
NAMES = ("Ash", "Bram", "Cole", "Dara")
_files = itertools.count()


def table(cli: Cli, tmp_path: Path, ruleset_id: str, *options: str) -> Cli:
    """A new encounter in a file of its own (one per hypothesis example)."""
    cli.db = str(tmp_path / f"oracle-{next(_files)}.db")
    opts = [w for o in options for w in ("--option", o)]
    cli.ok("new", "Oracle", "--rules", ruleset_id, *opts)
    return cli


def add(cli: Cli, name: str, **stats: int) -> None:
    cli.ok("add", name, *(w for k, v in stats.items() for w in ("--stat", f"{k.replace('_', '-')}={v}")))


def rolls(faces: dict[str, tuple[int, ...]]) -> list[str]:
    return [w for name, f in faces.items() for w in ("--roll", f"{name}={','.join(map(str, f))}")]


def view(cli: Cli) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(cli.ok("state", "--json"))
    return data


def row(v: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in v["combatants"] if c["name"] == name)
    return found


def in_order(names: list[str], key: dict[str, tuple[int, ...]]) -> bool:
    """Whether ``names`` run from the greatest key to the least (equal keys in any order)."""
    return all(key[a] >= key[b] for a, b in itertools.pairwise(names))


# --- ap-countdown ----------------------------------------------------------------------------

D10 = st.integers(1, 10)


@given(data=st.data())
@ORACLE
def test_ap_countdown_initiative_is_2d10_plus_qu_less_1_per_10_penalty_plus_5_per_ap(
    cli: Cli, tmp_path: Path, data: st.DataObject
) -> None:
    """ap-countdown.md, Initiative: Base = 2d10 + Qu - (1 for every -10 penalty); Actual =
    Base + 5 x AP left, 4 AP at the round's start; Resolution (Hauser's example): an action
    of N AP declared at the count resolves 5 x N lower. Tactical round: highest first."""
    table(cli, tmp_path, "ap-countdown")
    count = data.draw(st.integers(1, 4), label="combatants")
    fighters = {}
    for name in NAMES[:count]:
        stats = {"qu": data.draw(st.integers(-5, 5), label=f"{name} qu"), "hits": 30,
                 "penalty": data.draw(st.integers(-60, 0), label=f"{name} penalty")}
        add(cli, name, **stats)
        fighters[name] = stats
    dice = {name: (data.draw(D10), data.draw(D10)) for name in fighters}
    cli.ok("round", *rolls(dice))
    v = view(cli)
    expected = {}
    for name, s in fighters.items():
        base = sum(dice[name]) + s["qu"] - (-s["penalty"]) // 10
        expected[name] = base + 5 * 4
        own = row(v, name)["own"]
        assert (own["base_initiative"], own["initiative"]) == (base, expected[name]), (name, s, dice[name])
    order = [c["name"] for c in v["combatants"]]
    assert in_order(order, {n: (i,) for n, i in expected.items()}), (order, expected)
    # The first to act declares at its count; the action resolves 5 x AP lower.
    first = order[0]
    assert v["clock"]["own"]["count"] == expected[first]
    ap = data.draw(st.integers(2, 4), label="melee AP")
    cli.ok("declare", first, "melee-attack", "--ap", str(ap))
    pending = next(p for p in view(cli)["pending"] if p["who"] == first)
    assert pending["own"]["resolves_at"] == expected[first] - 5 * ap


# --- percent-activity ------------------------------------------------------------------------


@given(data=st.data())
@ORACLE
def test_percent_activity_initiative_is_2d10_plus_qu_plus_the_tables_modifiers(
    cli: Cli, tmp_path: Path, data: st.DataObject
) -> None:
    """percent-activity.md, Initiative Step: 2d10 + Quickness Bonus + Modifiers (weapon ready
    +4 in the first round only, surprised -4, encumbered -4, wounded -4 once more than 50 %
    of the hits are taken); Round: turns from the highest initiative to the lowest."""
    table(cli, tmp_path, "percent-activity")
    count = data.draw(st.integers(1, 4), label="combatants")
    fighters: dict[str, dict[str, Any]] = {}
    for name in NAMES[:count]:
        hits = data.draw(st.integers(4, 40), label=f"{name} hits")
        f = {"qu": data.draw(st.integers(-5, 5), label=f"{name} qu"), "hits": hits,
             # Half exactly is not "more than 50 %"; all of them would put it down.
             "taken": data.draw(st.sampled_from([0, hits // 2, hits // 2 + 1, hits - 1]), label=f"{name} taken"),
             "ready": data.draw(st.booleans(), label=f"{name} ready"),
             "surprised": data.draw(st.booleans(), label=f"{name} surprised"),
             "encumbered": data.draw(st.booleans(), label=f"{name} encumbered")}
        add(cli, name, qu=f["qu"], hits=hits)
        if f["taken"]:
            cli.ok("damage", name, str(f["taken"]))
        if f["encumbered"]:
            cli.ok("effect", name, "encumbered")
        fighters[name] = f
    dice = {name: (data.draw(D10), data.draw(D10)) for name in fighters}
    details = []
    for key in ("ready", "surprised"):
        named = [n for n, f in fighters.items() if f[key]]
        details += ["--with", f"{key}={','.join(named)}"] if named else []
    cli.ok("round", *rolls(dice), *details)

    def expected(round_one: bool) -> dict[str, int]:
        out = {}
        for name, f in fighters.items():
            out[name] = (sum(dice[name]) + f["qu"] + (4 if f["ready"] and round_one else 0)
                         - (4 if f["surprised"] else 0) - (4 if f["encumbered"] else 0)
                         - (4 if 2 * f["taken"] > f["hits"] else 0))
        return out

    v = view(cli)
    first = expected(round_one=True)
    assert {c["name"]: c["own"]["initiative"] for c in v["combatants"]} == first, (fighters, dice)
    assert in_order([c["name"] for c in v["combatants"]], {n: (i,) for n, i in first.items()})
    # Round two: the ready bonus is gone; surprise is given anew each round (none now).
    cli.ok("upkeep")
    dice = {name: (data.draw(D10), data.draw(D10)) for name in fighters}
    for f in fighters.values():
        f["surprised"] = False
    cli.ok("round", *rolls(dice))
    v = view(cli)
    assert {c["name"]: c["own"]["initiative"] for c in v["combatants"]} == expected(round_one=False)


# --- crisis ----------------------------------------------------------------------------------

D6 = st.integers(1, 6)


@given(data=st.data())
@ORACLE
def test_crisis_turn_order_is_3d6_plus_int_plus_speed_ties_by_int_then_speed(
    cli: Cli, tmp_path: Path, data: st.DataObject
) -> None:
    """crisis.md, Turn Order: 3d6 + Intelligence + Speed + circumstance, highest first; ties
    by the higher Intelligence, then the higher Speed (then a re-roll); Conditions: Drunk
    takes 2 off every ability (Intelligence and Speed here)."""
    table(cli, tmp_path, "crisis")
    count = data.draw(st.integers(2, 4), label="combatants")
    fighters = {}
    for name in NAMES[:count]:
        s = {"int": data.draw(st.integers(-2, 3), label=f"{name} int"),
             "speed": data.draw(st.integers(-2, 3), label=f"{name} speed"),
             "order_bonus": data.draw(st.integers(-2, 2), label=f"{name} bonus")}
        add(cli, name, endurance=5, health=5, **s)
        drunk = data.draw(st.booleans(), label=f"{name} drunk")
        if drunk:
            cli.ok("effect", name, "drunk")
        fighters[name] = (s, drunk)
    dice = {name: (data.draw(D6), data.draw(D6), data.draw(D6)) for name in fighters}
    cli.ok("round", *rolls(dice))
    v = view(cli)
    keys = {}
    for name, (s, drunk) in fighters.items():
        intelligence, speed = s["int"] - 2 * drunk, s["speed"] - 2 * drunk
        value = sum(dice[name]) + intelligence + speed + s["order_bonus"]
        assert row(v, name)["own"]["turn_order"] == value, (name, s, drunk, dice[name])
        keys[name] = (value, intelligence, speed)
    order = [c["name"] for c in v["combatants"]]
    assert in_order(order, keys), (order, keys)
    assert v["clock"]["now"] == [order[0]]


def through_armour(fighter: dict[str, int], hit: int, armour_dr: str, spill: str) -> None:
    """crisis.md, Damage, as the two options read it (the ruleset's docstring says which
    paragraph each follows): DR off the hit while Durability lasts (1 Durability a hit),
    Endurance first, then Health once Endurance is 0; the hit that empties Endurance spills
    its excess on to Health only with spill=yes."""
    def armour(amount: int) -> int:
        if fighter["durability"] > 0:
            fighter["durability"] -= 1
            return max(0, amount - fighter["dr"])
        return amount

    if armour_dr == "all-damage":
        hit = armour(hit)
    if fighter["endurance"] > 0:
        to_endurance = min(fighter["endurance"], hit)
        fighter["endurance"] -= to_endurance
        to_health = hit - to_endurance if spill == "yes" else 0
    else:
        to_health = hit
    if armour_dr == "health-only" and to_health > 0:
        to_health = armour(to_health)
    fighter["health"] -= to_health


@given(data=st.data())
@ORACLE
def test_crisis_damage_goes_through_armour_to_endurance_then_health(
    cli: Cli, tmp_path: Path, data: st.DataObject
) -> None:
    """crisis.md, Damage: armour DR and Durability, Endurance then Health, dead at Health 0;
    Actions and Damage: +4 AP a turn, kept within 0..6, only 2 once Endurance is 0."""
    armour_dr = data.draw(st.sampled_from(["all-damage", "health-only"]), label="armour-dr")
    spill = data.draw(st.sampled_from(["no", "yes"]), label="spill")
    table(cli, tmp_path, "crisis", f"armour-dr={armour_dr}", f"spill={spill}")
    jack = {"endurance": data.draw(st.integers(0, 12), label="endurance"),
            "health": data.draw(st.integers(1, 12), label="health"),
            "dr": data.draw(st.integers(0, 4), label="dr"),
            "durability": data.draw(st.integers(0, 3), label="durability")}
    add(cli, "Jack", int=5, speed=5, **jack)  # first in the order whatever the dice
    add(cli, "Drone", int=0, speed=0, endurance=3, health=3)
    cli.ok("round", "--roll", "Jack=1,1,1", "--roll", "Drone=1,1,1")
    ap = 2 if jack["endurance"] == 0 else 4
    assert row(view(cli), "Jack")["budget"]["left"] == ap
    spent = data.draw(st.integers(0, ap), label="AP spent")
    if spent:
        cli.ok("declare", "Jack", "custom", "--ap", str(spent), "--with", "what=digs in")
    for hit in data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=5), label="hits"):
        if jack["health"] <= 0:
            cli.fails("damage", "Jack", str(hit))  # the dead take no more
            continue
        cli.ok("damage", "Jack", str(hit))
        through_armour(jack, hit, armour_dr, spill)
        j = row(view(cli), "Jack")
        assert (j["own"]["endurance"], j["vital"]["value"], j["own"]["durability"]) == (
            jack["endurance"], jack["health"], jack["durability"]), (hit, jack)
        assert j["status"] == ("dead" if jack["health"] <= 0 else "fighting")
    cli.ok("upkeep")
    cli.ok("round")
    gain = 0 if jack["health"] <= 0 else 2 if jack["endurance"] == 0 else 4
    assert row(view(cli), "Jack")["budget"]["left"] == (0 if jack["health"] <= 0 else min(6, ap - spent + gain))


# --- modular ---------------------------------------------------------------------------------


@given(data=st.data())
@ORACLE
def test_modular_initiative_is_1d100_plus_agility_and_speed_30_plus_5_per_10_agility(
    cli: Cli, tmp_path: Path, data: st.DataObject
) -> None:
    """modular.md, Combat Rules: Speed = 30 + 5 x floor(Agility / 10); Initiative = 1d100 +
    Agility, greatest first, rerolled each round (both "subject to Quirks and Perks": the
    speed and init-bonus stats)."""
    table(cli, tmp_path, "modular")
    count = data.draw(st.integers(1, 4), label="combatants")
    fighters = {}
    for name in NAMES[:count]:
        s = {"agility": data.draw(st.integers(0, 120), label=f"{name} agility"), "dodge": 10, "health": 20,
             "init_bonus": data.draw(st.sampled_from([0, 0, -5, 7]), label=f"{name} bonus")}
        speed = data.draw(st.sampled_from([0, 0, 25]), label=f"{name} speed")
        if speed:
            s["speed"] = speed
        add(cli, name, **s)
        fighters[name] = s
    for _ in range(2):
        dice = {name: (data.draw(st.integers(1, 100)),) for name in fighters}
        cli.ok("round", *rolls(dice))
        v = view(cli)
        keys = {}
        for name, s in fighters.items():
            own = row(v, name)["own"]
            initiative = dice[name][0] + s["agility"] + s["init_bonus"]
            speed = s.get("speed") or 30 + 5 * (s["agility"] // 10)
            assert (own["initiative"], own["speed"]) == (initiative, speed), (name, s, dice[name])
            keys[name] = (initiative,)
        assert in_order([c["name"] for c in v["combatants"]], keys)
        for _ in fighters:  # every turn, then past the last one: the round's end
            cli.ok("next")
        assert view(cli)["clock"]["running"] is False


# --- phases ----------------------------------------------------------------------------------


@given(data=st.data())
@ORACLE
def test_phases_calls_every_initiative_from_the_phase_up_after_wounds(
    cli: Cli, tmp_path: Path, data: st.DataObject
) -> None:
    """phases.md, Initiative: slightly wounded -1, seriously wounded -3, at 0 no action;
    Turn Sequence: phases 6 down to 1, in phase N everyone with Initiative N or more acts,
    Initiative N first, then each higher one; equal Initiatives by Agility less weapon bulk."""
    wounds = data.draw(st.sampled_from(["worst", "each"]), label="wounds")
    table(cli, tmp_path, "phases", f"wounds={wounds}")
    count = data.draw(st.integers(1, 4), label="combatants")
    effective, agility = {}, {}
    for name in NAMES[:count]:
        # Initiatives drawn from few values, so that equal ones (ordered by Agility less bulk) are common.
        s = {"initiative": data.draw(st.sampled_from([6, 4, 3, 1]), label=f"{name} initiative"),
             "agility": data.draw(st.integers(0, 9), label=f"{name} agility"),
             "bulk": data.draw(st.integers(0, 5), label=f"{name} bulk")}
        add(cli, name, **s)
        slight = data.draw(st.integers(0, 2), label=f"{name} slight wounds")
        serious = data.draw(st.integers(0, 1), label=f"{name} serious wounds")
        for kind in ["slight-wound"] * slight + ["serious-wound"] * serious:
            cli.ok("effect", name, kind)
        if wounds == "each":
            lost = slight + 3 * serious
        else:
            lost = 3 if serious else 1 if slight else 0
        effective[name] = max(0, s["initiative"] - lost)
        agility[name] = s["agility"] - s["bulk"]
        assert row(view(cli), name)["vital"]["value"] == effective[name], (name, s, slight, serious)
    # The turn as the text's table runs it: each phase, each initiative from the phase up.
    calls = [(phase, call, {n for n, i in effective.items() if i == call})
             for phase in range(6, 0, -1) for call in range(phase, 7)]
    expected = [c for c in calls if c[2]]
    cli.ok("round")
    seen = []
    for _ in range(len(expected)):
        cli.ok("next")
        clock = view(cli)["clock"]
        seen.append((clock["own"]["phase"], clock["own"]["call"], set(clock["now"])))
        assert in_order(clock["now"], {n: (agility[n],) for n in clock["now"]}), clock
    assert seen == expected, effective
    cli.ok("next")  # past phase 1's last call: the turn ends
    assert view(cli)["clock"]["running"] is False
