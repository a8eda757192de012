"""srd-5.2 at its edges: a death save of every d20 face and at exactly 10 whatever lowers it,
and a legendary use of every cost against every count of uses left, however it is declared.

Then the other checks met exactly (a Hide of 15, §4; first aid of 10, §9), an attack on itself,
and a legendary use stored before its cost was: read as cost 1.

Rules: shared/rules/srd-5.2-combat.md (SRD 5.2 by Wizards of the Coast LLC, CC-BY-4.0),
§9 (Death Saving Throws: d20, 10 or higher a success, else a failure; a natural 1 two
failures, a natural 20 regains 1 HP; the third success Stable), §13 and §16 (Exhaustion:
-2 a level on D20 Tests, death saves included under option exhaustion-saves=yes), §14
(Legendary Action uses; 5.1's options cost 2-3 of them). Every expected figure is worked by
hand in the parametrize lists below, from those sections, never read from a run.
"""

from __future__ import annotations

import msgspec
import pytest

from skirmish.eventlog.commands import AddCombatant, ApplyEffect, Damage, Declare, Next, StartRound
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Event
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.rulesets.srd_5__2.events import Acted, Attacked, DeathSave, Healed, Stabilised

from support.cli import start
from support.encounter import combatant, do, one, refused, who


def R(n: int) -> str:
    return f"srd-5.2-combat.md §{n}"


def ann_at_0(store: Store, exhaustion: int = 0) -> Encounter:
    """Ann (9 HP), alone, at Exhaustion ``exhaustion``, dropped to 0 HP by 9 damage (9 - 9
    left over < her 9 maximum: not massive damage, §9): down, her tallies 0 and 0."""
    enc = start(store, "srd-5.2")
    do(enc, AddCombatant(name="Ann", side="party", stats={"hp": "9", "ac": "12"}))
    for _ in range(exhaustion):
        do(enc, ApplyEffect(who="Ann", kind="exhaustion"))
    do(enc, Damage(who="Ann", amount=9))
    assert combatant(enc, "Ann").status == "down"
    return enc


def her_turn(enc: Encounter, face: int) -> list[Event]:
    """A round starts; alone, hers is its first turn, which starts with a death save of
    ``face`` (her Initiative at 0 HP: Disadvantage, 4 and 9, §2)."""
    return do(enc, StartRound(rolls={"Ann": (4, 9), "death:Ann": (face,)}))


# (d20 face, successes, failures, outcome) after a first death save, §9: 1 is two failures;
# 2 to 9 are below 10, one failure; 10 to 19 are 10 or higher, one success; 20 is revived.
FACES = ([(1, 0, 2, "failure")] + [(face, 0, 1, "failure") for face in range(2, 10)]
         + [(face, 1, 0, "success") for face in range(10, 20)])


@pytest.mark.parametrize(("face", "successes", "failures", "outcome"), FACES, ids=[f"d20={f[0]}" for f in FACES])
def test_a_first_death_save_of_each_d20_face(memory_store: Store, face: int, successes: int, failures: int,
                                             outcome: str) -> None:
    enc = ann_at_0(memory_store)
    save = one(her_turn(enc, face), DeathSave)
    assert (save.successes, save.failures, save.outcome) == (successes, failures, outcome)
    assert save.save is not None and save.save.value == face
    assert who(enc, "Ann").death == f"{successes}/{failures}"
    assert combatant(enc, "Ann").status == "down"


def test_a_death_save_of_a_natural_20_regains_1_hp(memory_store: Store) -> None:
    enc = ann_at_0(memory_store)
    events = her_turn(enc, 20)
    assert one(events, DeathSave).outcome == "revived"
    assert one(events, Healed).hp_left == 1
    assert combatant(enc, "Ann").status == "fighting" and combatant(enc, "Ann").vital.value == 1


# (Exhaustion level, d20 face, total, outcome): the total is the face - 2 x the level (§13,
# option exhaustion-saves=yes, the default); 10 or higher succeeds (§9). Each level's face
# that makes exactly 10, and the face below it (9). At level 5 the face that would make 10 is
# 20, a natural 20 whatever the total: 19 - 10 = 9 fails.
EXHAUSTED = [(level, 10 + 2 * level, 10, "success") for level in range(1, 5)]
EXHAUSTED += [(level, 9 + 2 * level, 9, "failure") for level in range(1, 6)]


@pytest.mark.parametrize(("level", "face", "total", "outcome"), EXHAUSTED,
                         ids=[f"exhaustion-{e[0]}-d20={e[1]}" for e in EXHAUSTED])
def test_a_death_save_lowered_by_exhaustion_to_exactly_10_succeeds_and_to_9_fails(
    memory_store: Store, level: int, face: int, total: int, outcome: str
) -> None:
    enc = ann_at_0(memory_store, exhaustion=level)
    save = one(her_turn(enc, face), DeathSave)
    assert save.save is not None and save.save.value == total
    assert save.outcome == outcome
    assert (save.successes, save.failures) == ((1, 0) if outcome == "success" else (0, 1))


def test_three_death_saves_of_exactly_10_make_her_stable(memory_store: Store) -> None:
    """Three 10s: three successes, the third Stable (§9); a Stable character rolls no more."""
    enc = ann_at_0(memory_store)
    save = one(her_turn(enc, 10), DeathSave)
    assert (save.successes, save.failures, save.outcome) == (1, 0, "success")
    # Her turn ends, and the round with it; her Initiative holds for the fight (§2): the
    # next rounds start at her `next` (rounds=roll-on, §1) and roll only her death saves.
    save = one(do(enc, Next(rolls={"death:Ann": (10,)})), DeathSave)
    assert (save.successes, save.failures, save.outcome) == (2, 0, "success")
    events = do(enc, Next(rolls={"death:Ann": (10,)}))
    assert one(events, DeathSave).outcome == "stable"
    assert one(events, Stabilised).by == "three successes"
    assert who(enc, "Ann").death == "0/0"  # the tallies reset on becoming Stable (§9)


# --- legendary uses: cost against what is left (§14) ---------------------------------------------

# Each way a legendary use is declared: the legendary action itself, and an action taken as
# one (an attack option, a spell option), with what that action needs besides.
WAYS = {
    "legendary": ("legendary", {}, {}),
    "attack-as-legendary": ("attack", {"as": "legendary", "hit": "5", "damage": "1d6+2", "type": "slashing"},
                            {"Drake": (10,), "dmg:Drake": (3,)}),
    "magic-as-legendary": ("magic", {"as": "legendary", "spell": "Frightful Presence"}, {}),
    "dodge-as-legendary": ("dodge", {"as": "legendary"}, {}),
    "hide-as-legendary": ("hide", {"as": "legendary"}, {"Drake": (10,)}),
    "help-as-legendary": ("help", {"as": "legendary"}, {}),
}
TARGETS = {"attack": "Ann", "help": "Bob"}  # an attack on Ann; help against Bob (its allies' next attack on him)


def drake_with(store: Store, left: int) -> Encounter:
    """Drake (3 legendary uses) with ``left`` of them left, in Bob's turn after Ann's ended
    (legendary-repeat=any: several uses may follow that one turn, §16); 3 - left uses of
    cost 1 spent to get there."""
    enc = start(store, "srd-5.2", **{"legendary-repeat": "any"})
    do(enc, AddCombatant(name="Ann", side="party", stats={"hp": "30", "ac": "12"}))
    do(enc, AddCombatant(name="Drake", side="foes", stats={"hp": "50", "ac": "17", "legendary": "3"}))
    do(enc, AddCombatant(name="Bob", side="party", stats={"hp": "30", "ac": "12"}))
    do(enc, StartRound(rolls={"Drake": (20,), "Ann": (15,), "Bob": (5,)}))
    do(enc, Next())  # Ann's turn: the Drake's own just ended
    do(enc, Next())  # Bob's turn: Ann's ended, a legendary use may follow it
    for _ in range(3 - left):
        do(enc, Declare(who="Drake", action="legendary"))
    assert who(enc, "Drake").legendary == f"{left}/3"
    return enc


# (uses left, cost): a use of cost N needs N left and leaves left - N (§14: uses are spent;
# 5.1's "Costs 2 Actions" options take 2 of them).
COSTS = [(left, cost) for left in range(0, 4) for cost in (1, 2, 3)]


@pytest.mark.parametrize("way", list(WAYS))
@pytest.mark.parametrize(("left", "cost"), COSTS, ids=[f"left-{c[0]}-cost-{c[1]}" for c in COSTS])
def test_a_legendary_use_costs_what_it_says_of_the_uses_left(memory_store: Store, way: str, left: int,
                                                              cost: int) -> None:
    action, details, rolls = WAYS[way]
    enc = drake_with(memory_store, left)
    target = TARGETS.get(action)
    command = Declare(who="Drake", action=action, target=target, rolls=rolls, details={**details, "cost": str(cost)})
    if cost > left:
        refused(enc, command, RuleViolation, f"Drake has {left} legendary use(s) left of 3, not {cost} ({R(14)})")
        assert who(enc, "Drake").legendary == f"{left}/3"
    else:
        do(enc, command)
        assert who(enc, "Drake").legendary == f"{left - cost}/3"


# --- checks against a DC: meeting it succeeds (§4 Hide, DC 15; §9 first aid, DC 10) ------------------


def alone_with(store: Store, *others: str) -> Encounter:
    """Ann's turn (15), then each of ``others`` (9 HP, AC 12, on her side), in that order."""
    enc = start(store, "srd-5.2")
    for name in ("Ann", *others):
        do(enc, AddCombatant(name=name, side="party", stats={"hp": "9", "ac": "12"}))
    do(enc, StartRound(rolls={"Ann": (15,), **{name: (10 - n,) for n, name in enumerate(others)}}))
    return enc


# (d20, Stealth bonus, total, hidden): d20 + bonus against DC 15 (§4, Hide).
HIDES = [(12, 3, 15, True), (11, 3, 14, False), (15, 0, 15, True), (20, -6, 14, False)]


@pytest.mark.parametrize(("face", "bonus", "total", "hidden"), HIDES, ids=[f"{h[2]}-from-{h[0]}" for h in HIDES])
def test_a_hide_of_exactly_15_hides_and_of_14_does_not(memory_store: Store, face: int, bonus: int, total: int,
                                                        hidden: bool) -> None:
    enc = alone_with(memory_store)
    events = do(enc, Declare(who="Ann", action="hide", rolls={"Ann": (face,)}, details={"bonus": str(bonus)}))
    acted = one(events, Acted)
    assert acted.check is not None and acted.check.value == total
    assert acted.detail == ("hidden" if hidden else "not hidden")
    assert ("invisible" in {e.kind for e in combatant(enc, "Ann").effects}) is hidden


def knocked_out_bob(store: Store) -> Encounter:
    """Bob knocked out by Ann's blow (15 + 3 = 18 hits AC 12; 6 + 3 = 9 would drop his 9 HP to
    0: left at 1 HP and Unconscious instead, §9), in Ann's turn still."""
    enc = alone_with(store, "Bob")
    attack = Declare(who="Ann", action="attack", target="Bob", rolls={"Ann": (15,), "dmg:Ann": (6,)},
                     details={"hit": "3", "damage": "1d6+3", "knockout": "yes"})
    do(enc, attack)
    assert combatant(enc, "Bob").status == "out"
    do(enc, Next())  # Bob's turn; Ann acts again in the next round
    do(enc, Next())  # round 2 starts (rounds=roll-on): Ann's turn
    return enc


@pytest.mark.parametrize(("face", "awake"), [(8, True), (7, False), (20, True), (1, False)],
                         ids=["10-wakes", "9-does-not", "d20-top-face", "d20-bottom-face"])
def test_first_aid_of_exactly_10_wakes_one_knocked_out(memory_store: Store, face: int, awake: bool) -> None:
    enc = knocked_out_bob(memory_store)
    # d20 + Medicine 2 against DC 10 (§9): 8 + 2 = 10 wakes him, 7 + 2 = 9 does not; the
    # die's faces run 1 to 20: 20 + 2 = 22 wakes him, 1 + 2 = 3 does not.
    do(enc, Declare(who="Ann", action="help", target="Bob", rolls={"Ann": (face,)}, details={"bonus": "2"}))
    assert (combatant(enc, "Bob").status == "fighting") is awake


def test_first_aid_rolls_a_d20(memory_store: Store) -> None:
    """A face the die does not have is refused, nothing recorded."""
    enc = knocked_out_bob(memory_store)
    with pytest.raises(BadInput):
        enc.execute(Declare(who="Ann", action="help", target="Bob", rolls={"Ann": (21,)}, details={"bonus": "2"}),
                    "test")
    assert combatant(enc, "Bob").status == "out"


def test_an_attack_on_itself_is_refused_by_its_section(memory_store: Store) -> None:
    enc = alone_with(memory_store)
    refused(enc, Declare(who="Ann", action="attack", target="Ann", rolls={"Ann": (15,)}, details={"hit": "3"}),
            RuleViolation, f"Ann cannot attack itself ({R(6)})")


# --- logs kept before cost was stored ---------------------------------------------------------------


@pytest.mark.parametrize("kind", [Acted, Attacked])
def test_a_legendary_use_stored_without_its_cost_spends_one(kind: type[Event]) -> None:
    """A use of cost 1 is stored as before, with no cost field (omitted at its default), and a
    stored one without it reads as cost 1: logs kept before a cost could be given fold alike."""
    fields: dict[str, object] = {"who": "Drake", "use": "legendary"}
    if kind is Acted:
        fields["action"] = "legendary"
    else:
        fields.update(target="Ann", roll={"value": 15, "formula": "d20", "terms": [], "rule": R(6)}, ac=12, hit=True,
                      crit=False)
    stored = msgspec.json.encode(msgspec.convert(fields, kind))
    assert b'"cost"' not in stored
    assert msgspec.json.decode(stored, type=kind).cost == 1  # type: ignore[attr-defined]
