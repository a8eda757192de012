"""How the shared invariant suite drives srd-5.2 (see tests/support/rulesets.py)."""

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

# (name, side, stats): two characters, a monster and a legendary one with a recharge.
CAST = (
    ("Aria", "party", {"hp": "12", "ac": "14", "dex": "3", "con": "2"}),
    ("Orc", "foes", {"hp": "15", "ac": "13", "dex": "1", "resist": "fire"}),
    ("Bram", "party", {"hp": "20", "ac": "16"}),
    ("Drake", "foes", {"hp": "30", "ac": "15", "legendary": "2", "recharge": "5", "pc": "1"}),
)
TURN = (
    Declare(who="", action="dash"), Declare(who="", action="dodge"), Declare(who="", action="disengage"),
    Declare(who="", action="interact"), Declare(who="", action="interact"),
    Declare(who="", action="move", amount=10), Declare(who="", action="move", amount=40),
    Declare(who="", action="prone"), Declare(who="", action="stand"),
    Declare(who="", action="magic", details={"spell": "Bless", "concentration": "yes"}),
    Declare(who="", action="bonus", details={"by": "Cunning Action"}),
    Declare(who="", action="ready", trigger="the door opens", details={"then": "attack"}),
    Declare(who="", action="hide", details={"bonus": "5"}), Declare(who="", action="search"),
    Declare(who="", action="magic", details={"spell": "Breath", "recharge": "yes"}),
    Declare(who="", action="help"),
)


@support("srd-5.2")
class SrdSupport:
    # srd-5.2-combat.md §7: 15 - 5 = 10 of 15 HP, 6 x 10/15 = 4 marks; 12 - 4 = 8 of 12, 6 x 8/12 = 4.
    console = Fight(
        ('new "Yard" --rules srd-5.2 --seed 1', "add Ann --side party --stat hp=12 --stat ac=12",
         "add Orc --side foes --stat hp=15 --stat ac=13", "round --roll Ann=15 --roll Orc=5"),
        "Orc", "###### 15/15", "damage Orc 5", "####.. 10/15",
        "damage Ann 4", "Ann", "####.. 8/12", "###### 12/12")

    @staticmethod
    def commands(enc: Encounter) -> list[Command]:
        view = enc.view()
        names = [c.name for c in view.combatants]
        turn = view.head
        out: list[Command] = core_commands(enc)[turn % 2:][:1] if turn % 3 == 0 else []
        if len(names) < len(CAST) and not view.clock.running:
            name, side, stats = CAST[len(names)]
            out.append(AddCombatant(name=name, side=side, stats=stats))
        out += [Next()] * 4 if view.clock.running else [StartRound(details={"order": "+".join(names)})] * 3
        for c in view.combatants:
            others = [n for n in names if n != c.name]
            target = others[turn % len(others)] if others else None
            if c.acting:
                out += [Declare(who=c.name, action="attack", target=target,
                                details={"hit": "4", "damage": "1d8+2", "type": "fire"})] * 3
                out += [Declare(who=c.name, action="attack", target=target,
                                details={"hit": "6", "damage": "1d6", "type": "slashing", "extra": "1d4:cold",
                                         "knockout": "yes", "cover": "half"})]
                out += [Declare(who=c.name, action=d.action, amount=d.amount, trigger=d.trigger, details=d.details,
                                target=target if d.action == "help" else None)
                        for d in TURN[turn % 4::4]]
            elif target:
                out += [Declare(who=c.name, action="legendary"),
                        Declare(who=c.name, action="attack", target=target, details={"as": "reaction", "hit": "2"})]
            out += [Resolve(who=c.name), Cancel(who=c.name)] if any(p.who == c.name for p in view.pending) else []
            out += [Damage(who=c.name, amount=(turn % 9) + 1, details={"type": "fire"} if turn % 2 else {}),
                    Heal(who=c.name, amount=3), Heal(who=c.name, amount=4, details={"temp": "yes"}),
                    ApplyEffect(who=c.name, kind=("prone", "poisoned", "stunned", "exhaustion")[turn % 4], rounds=1),
                    ApplyEffect(who=c.name, kind="frightened", rounds=1 + turn % 2,
                                details={"at": ("start", "end")[turn % 2], "of": names[turn % len(names)]}),
                    ApplyEffect(who=c.name, kind="concentration", details={"spell": "Bless"}),
                    ApplyEffect(who=c.name, kind="prone", end=True)]
            out += [Return(who=c.name)] if c.status == "left" else [Leave(who=c.name, reason="flees")]
        return out

    @staticmethod
    def invalid(enc: Encounter) -> list[Command]:
        view = enc.view()
        out: list[Command] = core_invalid(enc)
        out += [
            AddCombatant(name="Nameless", stats={"hp": "3"}),  # ac missing (§6)
            AddCombatant(name="Ghost", stats={"hp": "0", "ac": "10"}),  # HP maximum at least 1
            AddCombatant(name="Salamander", stats={"hp": "5", "ac": "10", "resist": "lava"}),  # no such type (§7)
            Upkeep(),  # no end-of-round step (§12)
        ]
        out += [StartRound()] if view.clock.running else [Next()]
        for c in view.combatants:
            if not c.acting and view.clock.running:
                out.append(Declare(who=c.name, action="dash"))  # not its turn (§3)
            out.append(Declare(who=c.name, action="bonus"))  # nothing grants it (§3)
        return out
