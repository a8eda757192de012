"""How the shared invariant suite drives ap-countdown (see tests/support/rulesets.py)."""

from __future__ import annotations

from typing import Any

import msgspec

from skirmish.eventlog.commands import (
    AddCombatant,
    ApplyEffect,
    Cancel,
    Command,
    Damage,
    Declare,
    Heal,
    Leave,
    Next,
    Resolve,
    Return,
    StartRound,
    Upkeep,
)
from skirmish.projections.write.engine import Encounter

from support.rulesets import Fight, core_commands, core_invalid, support

# --- ap-countdown -----------------------------------------------------------------------------

AP_NAMES = ("Hauser", "Orc", "Mira", "Troll")
# (action, AP values worth trying): the table's ends, one in between, one off the table.
AP_DECLARES: tuple[tuple[str, tuple[int | None, ...]], ...] = (
    ("melee-attack", (2, 3, 4, 5)),
    ("ranged-attack", (1, 3)),
    ("thrown-attack", (2,)),
    ("dodge", (4,)),
    ("prone", (1,)),
    ("draw", (None,)),
    ("perception", (1, 2)),
    ("use-shield", (None,)),
    ("drop-item", (None,)),
    ("ammo-reload", (6,)),
    ("first-aid", (8,)),
    ("static-action", (8, 12)),
)


def flat(enc: Encounter) -> dict[str, Any]:
    """The typed view with each combatant's and pending action's own figures at hand."""
    view = enc.view()
    return {
        "in_round": view.clock.running, "count": view.clock.own.count,  # type: ignore[attr-defined]
        "head": view.head,
        "left": {c.name for c in view.combatants if c.status == "left"},
        "combatants": [{"name": c.name, **msgspec.structs.asdict(c.own)} for c in view.combatants],
        "pending": [{"who": p.who, "action": p.action, **msgspec.structs.asdict(p.own)} for p in view.pending],
    }


@support("ap-countdown")
class ApCountdownSupport:
    # ap-countdown.md: hits are subtracted as read off the tables. Orc: 30 hits.
    console = Fight(
        ('new "Bridge" --rules ap-countdown --seed 1', "add Hauser --side players --stat qu=1 --stat hits=40",
         "add Orc --side foes --stat qu=0 --stat hits=30", "round --roll Hauser=6,8 --roll Orc=5,5"),
        "Orc", "###### 30/30", "damage Orc 5", "#####. 25/30",
        "damage Orc 10", "Orc", "###... 15/30", "#####. 25/30")

    @staticmethod
    def commands(enc: Encounter) -> list[Command]:
        """Weighted by repetition: hypothesis picks uniformly, and a fight must get through
        round, declare, next and resolve often enough to reach the upkeep."""
        view = flat(enc)
        in_round: bool = view["in_round"]
        count: int | None = view["count"]
        fighters: list[dict[str, Any]] = view["combatants"]
        left: set[str] = view["left"]
        names = [f["name"] for f in fighters]
        pending = {p["who"]: p for p in view["pending"]}
        # Rotate the side commands (damage, effects) with the head, so each state offers a few.
        turn = view["head"]
        out: list[Command] = core_commands(enc)[turn % 2:][:1] if turn % 3 == 0 else []
        if not in_round:
            if len(fighters) < len(AP_NAMES):
                name = AP_NAMES[len(fighters)]
                out += [
                    AddCombatant(name=name, side="players", stats={"qu": "1", "hits": "40"}),
                    AddCombatant(name=name, side="foes", stats={"qu": "-2", "hits": "12", "penalty": "-25"}),
                ]
            if fighters:
                out += [StartRound()] * 3 + [StartRound(rolls={names[0].lower(): (6, 8)})]
        else:
            out += [Next()] * 4 + [Upkeep()]
        side: list[Command] = [
            ApplyEffect(who="scene", kind="fire", per_round=2, details={"start": "1"}),
            ApplyEffect(who="scene", kind="fire", end=True),
        ]
        for f in fighters:
            who = f["name"]
            others = [n for n in names if n != who]
            target = others[turn % len(others)] if others else None
            action = pending.get(who)
            busy = action is not None and action["ap"] <= 4 and action["trigger"] is None
            if in_round and not f["out_of_round"] and f["ap"] > 0 and not busy:
                if f["initiative"] is not None and count is not None and f["initiative"] >= count:
                    for name, aps in AP_DECLARES:
                        out += [Declare(who=who, action=name, target=target, details={} if ap is None else {"ap": str(ap)})
                                for ap in aps]
                    out += [
                        Declare(who=who, action="ranged-attack", target=target, trigger="if the door opens", details={"ap": "2"}),
                        Declare(who=who, action="move", details={"pace": "run", "penalty": "-20"}),
                        Declare(who=who, action="move", details={"pace": "walk"}),
                        Declare(who=who.lower(), action="parry", amount=10, target=target),
                    ]
                else:
                    out.append(Declare(who=who, action="dodge", details={"ap": "4"}))  # out of turn, mostly
            if action is not None:
                due = action["step"] == "ready" or (
                    action["resolves_at"] is not None and count is not None and action["resolves_at"] >= count
                )
                resolves = [Resolve(who=who), Resolve(who=who, outcome="hit", hits=3)]
                if action["action"] == "melee-attack":
                    resolves.append(Resolve(who=who, hits=5, details={"charge": "7"}))
                out += resolves * 3 if due else resolves[:1]
                cancels = [Cancel(who=who), Cancel(who=who, details={"orientation": "near"}), Cancel(who=who, details={"orientation": "failure"})]
                out.append(cancels[turn % 3])
            side += [
                Damage(who=who, amount=4),
                Damage(who=who.upper(), amount=1),
                ApplyEffect(who=who, kind="bleeding", per_round=2),
                ApplyEffect(who=who, kind="bleeding", end=True),
                ApplyEffect(who=who, kind="stunned", rounds=2),
                ApplyEffect(who=who, kind="stunned-unable-to-parry", rounds=1),
                ApplyEffect(who=who, kind="dazed", rounds=1),
                ApplyEffect(who=who, kind="staggered"),
                ApplyEffect(who=who, kind="blinded", rounds=3, custom=True),
                Heal(who=who, amount=5),
                Leave(who=who, reason="flees") if f["name"] not in left else Return(who=who),
                ApplyEffect(who=who, kind="stunned", end=True),
            ]
        return out + [side[(turn + i * 7) % len(side)] for i in range(2)]

    @staticmethod
    def invalid(enc: Encounter) -> list[Command]:
        view = flat(enc)
        in_round: bool = view["in_round"]
        fighters: list[dict[str, Any]] = view["combatants"]
        pending = {p["who"] for p in view["pending"]}
        out: list[Command] = core_invalid(enc)
        out += [
            AddCombatant(name="Nameless", stats={"qu": "1"}),  # hits missing
            AddCombatant(name="Ghost", stats={"qu": "1", "hits": "0"}),  # at least 1 hit
            AddCombatant(name="Brute", stats={"qu": "x", "hits": "10"}),
            AddCombatant(name="Brute", stats={"qu": "1", "hits": "10", "penalty": "5"}),  # at most 0
            AddCombatant(name="Brute", stats={"qu": "1", "hits": "10", "speed": "3"}),
            AddCombatant(name="scene", stats={"qu": "1", "hits": "10"}),
            AddCombatant(name="12", stats={"qu": "1", "hits": "10"}),
            ApplyEffect(who="scene", kind="smoke-that-never-was", end=True),
        ]
        if in_round:
            out += [StartRound()]
        else:
            out += [Next(), Upkeep()]
            if not fighters:
                out += [StartRound()]
        for f in fighters:
            who = f["name"]
            out += [
                AddCombatant(name=who.lower(), stats={"qu": "1", "hits": "10"}),  # name taken
                Damage(who=who, amount=0),
                Declare(who=who, action="somersault"),
                Declare(who=who, action="melee-attack", details={"percent": "50"}),
                ApplyEffect(who=who, kind="bleeding", per_round=0),
                ApplyEffect(who=who, kind="stunned"),  # needs --rounds
                ApplyEffect(who=who, kind="staggered", rounds=2),
                ApplyEffect(who=who, kind="bleedng", per_round=1),  # a typo: did you mean bleeding?
                Heal(who=who, amount=0),
                Return(who=who) if who not in view["left"] else Leave(who=who),
            ]
            if in_round:
                out += [Declare(who=who, action="move")]  # needs --pace
            else:
                out += [Declare(who=who, action="dodge", details={"ap": "4"})]  # no round under way
            if who not in pending:
                out += [Resolve(who=who), Cancel(who=who)]
        return out
