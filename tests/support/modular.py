"""How the shared invariant suite drives modular (see tests/support/rulesets.py)."""

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

NAMES = ("Hauser", "Orc", "Mira", "Troll")
# Actions a combatant may take on its turn, some of them twice (the second is refused).
TURN_ACTIONS = (
    "skill", "dash", "evade", "secondary-skill", "five-foot-step", "retrieve-item", "stash-item",
    "use-item", "tertiary-skill", "drop-item",
)


@support("modular")
class ModularSupport:
    # modular.md: damage comes off Health. 19/25 of 6 is 4.56 -> 5; 13/25 of 6 is 3.12 -> 3.
    console = Fight(
        ('new "Yard" --rules modular --seed 1', "add Hauser --side players --stat agility=47 --stat dodge=13 --stat health=30",
         "add Orc --side foes --stat agility=20 --stat dodge=10 --stat health=25", "round --roll Hauser=40 --roll Orc=35"),
        "Orc", "###### 25/25", "damage Orc 6", "#####. 19/25",
        "damage Orc 6", "Orc", "###... 13/25", "#####. 19/25")

    @staticmethod
    def commands(enc: Encounter) -> list[Command]:
        """Weighted by repetition so fights get through whole rounds, Readies and the upkeep."""
        view = enc.view()
        clock = view.clock
        fighters = view.combatants
        names = [f.name for f in fighters]
        pending = {p.who for p in view.pending}
        turn = view.head
        out: list[Command] = core_commands(enc)[turn % 2:][:1] if turn % 3 == 0 else []
        if not clock.running:
            if len(fighters) < len(NAMES):
                name = NAMES[len(fighters)]
                out += [
                    AddCombatant(name=name, side="players", stats={"agility": "47", "dodge": "13", "health": "30"}),
                    AddCombatant(name=name, side="foes", stats={
                        "agility": "20", "dodge": "10", "health": "12", "speed": "25", "init-bonus": "30"}),
                ]
            if fighters:
                out += [StartRound()] * 4 + [StartRound(rolls={names[0]: (50,), names[-1]: (50,)})]
            out += [Upkeep(details={"combat": "over"})] if turn % 31 == 0 else []
        else:
            out += [Next()] * 4
            if turn % 37 == 0:
                out.append(Upkeep(details={"combat": "over"}))
        current = clock.now[0] if clock.now else None
        for f in fighters:
            who = f.name
            others = [n for n in names if n != who]
            target = others[turn % len(others)] if others else None
            if who == current:
                out += [Declare(who=who, action=a, target=target if a == "skill" else None) for a in TURN_ACTIONS]
                out += [
                    Declare(who=who, action="move", amount=10),
                    Declare(who=who, action="move", amount=15, details={"terrain": "difficult"}),
                    Declare(who=who, action="move", amount=60),
                    Declare(who=who, action="ready", trigger="the door opens",
                            details={"then": "skill+move", "else": "evade"}),
                    Declare(who=who, action="ready", trigger="someone charges",
                            details={"then": "dash+drop-item", "else": "skill+five-foot-step"}),
                ]
            if who in pending:
                out += [
                    Resolve(who=who, outcome="the trigger came"),
                    Resolve(who=who, details={"course": "untriggered", "feet": "10"}),
                    Resolve(who=who, details={"course": "untriggered"}),
                ] * 2 + [Cancel(who=who)]
        side: list[Command] = []
        for f in fighters:
            who = f.name
            side += [
                Damage(who=who, amount=4),
                ApplyEffect(who=who, kind="prone", rounds=2, custom=True),
                ApplyEffect(who=who, kind="blinded", rounds=1, custom=True),
                ApplyEffect(who=who, kind="prone", end=True),
                Heal(who=who, amount=3),
                Return(who=who) if f.status == "left" else Leave(who=who, reason="flees"),
            ]
        return out + [side[(turn + i * 5) % len(side)] for i in range(2)] if side else out

    @staticmethod
    def invalid(enc: Encounter) -> list[Command]:
        view = enc.view()
        clock = view.clock
        fighters = view.combatants
        pending = {p.who for p in view.pending}
        out: list[Command] = core_invalid(enc)
        out += [
            AddCombatant(name="Nameless", stats={"agility": "10", "dodge": "10"}),  # health missing
            AddCombatant(name="Snail", stats={"agility": "10", "dodge": "10", "health": "5", "speed": "0"}),
            AddCombatant(name="Brute", stats={"agility": "x", "dodge": "10", "health": "5"}),
            AddCombatant(name="Brute", stats={"agility": "10", "dodge": "10", "health": "5", "qu": "3"}),
            ApplyEffect(who="scene", kind="smoke", per_round=1),
            Upkeep(details={"combat": "soon"}),
        ]
        if clock.running:
            out += [StartRound()]
            if clock.next:
                out += [Upkeep()]  # turns left
        else:
            out += [Next()]
            if not fighters or clock.moment == "the combat is over":
                out += [StartRound()]
        current = clock.now[0] if clock.now else None
        for f in fighters:
            who = f.name
            out += [
                AddCombatant(name=who.upper(), stats={"agility": "1", "dodge": "1", "health": "1"}),
                Damage(who=who, amount=0),
                Heal(who=who, amount=0),
                Leave(who=who) if f.status == "left" else Return(who=who),
                Declare(who=who, action="somersault"),
                Declare(who=who, action="skill", details={"ap": "2"}),
                Declare(who=who, action="move"),  # no --amount
                ApplyEffect(who=who, kind="prone"),  # needs --rounds
                ApplyEffect(who=who, kind="evade", rounds=1),
                Declare(who=who, action="ready", trigger="x", details={"then": "skill"}),  # no else
                Declare(who=who, action="ready", trigger="x", details={"then": "drop-item", "else": "skill"}),
                Declare(who=who, action="ready", trigger="x", details={"then": "skill+dash", "else": "skill"}),
            ]
            if who != current:
                out += [Declare(who=who, action="skill"), Declare(who=who, action="move", amount=5)]
            else:
                if f.own.primary is not None:  # type: ignore[attr-defined]
                    out += [Declare(who=who, action="evade")]
                if f.own.tertiary is not None:  # type: ignore[attr-defined]
                    out += [Declare(who=who, action="drop-item")]
                out += [Declare(who=who, action="move", amount=f.own.feet_left + 5)]  # type: ignore[attr-defined]
            if who not in pending:
                out += [Resolve(who=who), Cancel(who=who)]
        return out
