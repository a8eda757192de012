"""How the shared invariant suite drives crisis (see tests/support/rulesets.py)."""

from __future__ import annotations

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

NAMES = ("Jack", "Drone", "Mira", "Sentry")
STATS = (
    {"int": "1", "speed": "2", "endurance": "10", "health": "8", "melee": "3", "might": "1",
     "armour": "1", "dr": "2", "durability": "2"},
    {"int": "0", "speed": "1", "endurance": "3", "health": "4", "order-bonus": "1"},
)


@support("crisis")
class CrisisSupport:
    # crisis.md, damage: Endurance first; once it is 0, damage goes to Health (the board's
    # vital figure). Vera's 8 Endurance go in the setup; 2 then leave 4 of 6 Health.
    console = Fight(
        ('new "Hangar" --rules crisis --seed 1',
         "add Jack --side players --stat int=1 --stat speed=2 --stat endurance=10 --stat health=8",
         "add Vera --side foes --stat int=2 --stat speed=1 --stat endurance=8 --stat health=6",
         "damage Vera 8", "round --roll Jack=5,5,5 --roll Vera=4,4,4"),
        "Vera", "###### 6/6", "damage Vera 2", "####.. 4/6",
        "damage Vera 2", "Vera", "##.... 2/6", "####.. 4/6")

    @staticmethod
    def commands(enc: Encounter) -> list[Command]:
        """Weighted by repetition so fights pass whole turns: next and round come often."""
        view = enc.view()
        clock = view.clock
        fighters = view.combatants
        names = [f.name for f in fighters]
        pending = {p.who: p for p in view.pending}
        turn = view.head
        out: list[Command] = core_commands(enc)[turn % 2:][:1] if turn % 3 == 0 else []
        if not clock.running:
            if len(fighters) < len(NAMES):
                name = NAMES[len(fighters)]
                out += [AddCombatant(name=name, side=side, stats=stats)
                        for side, stats in zip(("players", "foes"), STATS, strict=True)]
            if fighters:
                out += [StartRound()] * 3
                if clock.round == 0:
                    out += [StartRound(rolls={names[0].lower(): (3, 3, 3)})]
                    if len(fighters) > 1:
                        out.append(StartRound(details={"surprise": names[0]}))
        else:
            out += [Next()] * 3 + [Upkeep()]
        side: list[Command] = []
        for f in fighters:
            who = f.name
            others = [n for n in names if n != who]
            target = others[turn % len(others)] if others else None
            action = pending.get(who)
            if f.acting:
                if target is not None:
                    out += [
                        Declare(who=who, action="attack", target=target, details={"skill": "2", "ability": "1"}),
                        Declare(who=who, action="attack", target=target,
                                details={"range": "ranged", "cover": "heavy", "defence": "-1"}),
                        Declare(who=who, action="attack", target=target, rolls={who: (6, 6, 6)},
                                details={"enemies": "3"}),
                    ] * 2
                out += [
                    Declare(who=who, action="move"), Declare(who=who, action="sneak"),
                    Declare(who=who, action="draw"), Declare(who=who, action="hide"),
                    Declare(who=who, action="stand-up"),
                    Declare(who=who, action="custom", details={"ap": "10", "what": "reload the musket"}),
                    Declare(who=who, action="use-item", details={"ap": "3"}),
                ]
            if action is not None:
                resolves = [Resolve(who=who, hits=5), Resolve(who=who, hits=9, details={"critical": "yes"})] \
                    if action.resolves == "awaits damage" else [Resolve(who=who)]
                # A spanning action is carried on in its owner's turn: weight it up then.
                weight = 8 if f.acting and action.resolves == "spans turns" else 3
                out += resolves * weight + [Cancel(who=who)]
            side += [
                Damage(who=who, amount=4),
                Damage(who=who.upper(), amount=7, details={"critical": "yes"}),
                ApplyEffect(who=who, kind="drunk"),
                ApplyEffect(who=who, kind="prone"),
                ApplyEffect(who=who, kind="stunned"),
                ApplyEffect(who=who, kind="prone", end=True),
                ApplyEffect(who=who, kind="stunned", end=True),
                ApplyEffect(who=who, kind="shaken", custom=True),
                Heal(who=who, amount=3),
                Return(who=who) if f.status == "left" else Leave(who=who, reason="flees"),
            ]
        return out + [side[(turn + i * 5) % len(side)] for i in range(2)] if side else out

    @staticmethod
    def invalid(enc: Encounter) -> list[Command]:
        view = enc.view()
        fighters = view.combatants
        pending = {p.who for p in view.pending}
        out: list[Command] = core_invalid(enc)
        out += [
            AddCombatant(name="Nameless", stats={"int": "1", "speed": "1", "endurance": "3"}),  # health missing
            AddCombatant(name="Ghost", stats={"int": "1", "speed": "1", "endurance": "3", "health": "0"}),
            AddCombatant(name="Brute", stats={"int": "x", "speed": "1", "endurance": "3", "health": "3"}),
            AddCombatant(name="Brute", stats={"int": "1", "speed": "1", "endurance": "3", "health": "3", "qu": "1"}),
            ApplyEffect(who="scene", kind="fire", per_round=1),
        ]
        if view.clock.running:
            out += [StartRound()]
        else:
            out += [Next(), Upkeep()]
            if not fighters:
                out += [StartRound()]
            if view.clock.round > 0 and fighters:
                out += [StartRound(details={"surprise": fighters[0].name})]
        for f in fighters:
            who = f.name
            out += [
                AddCombatant(name=who.lower(), stats={"int": "1", "speed": "1", "endurance": "3", "health": "3"}),
                Damage(who=who, amount=-1),
                Heal(who=who, amount=0),
                ApplyEffect(who=who, kind="prnoe"),  # a typo: did you mean prone?
                Leave(who=who) if f.status == "left" else Return(who=who),
                Declare(who=who, action="somersault"),
                Declare(who=who, action="move", details={"percent": "50"}),
                Declare(who=who, action="custom"),  # needs --ap
                ApplyEffect(who=who, kind="bleeding", per_round=1),
                ApplyEffect(who=who, kind="drunk", rounds=2),
                Cancel(who=who, details={"orientation": "near"}),
            ]
            if not f.acting:
                out += [Declare(who=who, action="draw")]  # not its turn
            else:
                out += [
                    Declare(who=who, action="attack", target=who),
                    Declare(who=who, action="attack"),  # no target
                    Declare(who=who, action="draw", details={"skill": "2"}),
                    Declare(who=who, action="hide", details={"ap": "7", "cover": "total"}),
                ]
            if f.budget.left < 6:
                out += [Declare(who=who, action="use-item", details={"ap": "6"})]
            if who not in pending:
                out += [Resolve(who=who), Cancel(who=who)]
            if f.status == "dead":
                out += [Damage(who=who, amount=1)]
            if not any(e.kind == "prone" for e in f.effects):
                out += [ApplyEffect(who=who, kind="prone", end=True)]
        return out
