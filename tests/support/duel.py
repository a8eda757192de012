"""How the shared invariant suite drives the duel, the example third-party ruleset
(tests/toy/toy_duel.py; see tests/support/rulesets.py)."""

from __future__ import annotations

from skirmish.eventlog.commands import (
    AddCombatant,
    Command,
    Declare,
    Heal,
    Leave,
    Next,
    Return,
    StartRound,
)
from skirmish.projections.write.engine import Encounter

from support.rulesets import core_commands, core_invalid, support

NAMES = ("Ann", "Bob", "Cid")


@support("duel")
class DuelSupport:
    @staticmethod
    def commands(enc: Encounter) -> list[Command]:
        view = enc.view()
        names = [c.name for c in view.combatants]
        turn = view.head
        out: list[Command] = core_commands(enc)[turn % 2:][:1] if turn % 3 == 0 else []
        if len(names) < len(NAMES) and not view.clock.running:
            name = NAMES[len(names)]
            out += [AddCombatant(name=name, side="a" if len(names) % 2 else "b",
                                 stats={"hp": "9", "speed": str(len(names))})]
        out += [Next()] * 3 if view.clock.running else [StartRound()] * 3
        for c in view.combatants:
            others = [n for n in names if n != c.name]
            if c.acting and others:
                out += [Declare(who=c.name, action="strike", target=others[turn % len(others)])] * 3
                out += [Declare(who=c.name, action="guard")]
            out += [Heal(who=c.name, amount=4)]
            out += [Return(who=c.name)] if c.status == "left" else [Leave(who=c.name, reason="flees")]
        return out

    @staticmethod
    def invalid(enc: Encounter) -> list[Command]:
        view = enc.view()
        out: list[Command] = core_invalid(enc)
        out += [
            AddCombatant(name="Nameless", stats={"hp": "3"}),  # speed missing
            AddCombatant(name="Ghost", stats={"hp": "0", "speed": "1"}),  # HP at least 1
        ]
        out += [StartRound()] if view.clock.running else [Next()]
        for c in view.combatants:
            out += [Declare(who=c.name, action="kick"), Declare(who=c.name, action="strike", target=c.name),
                    Heal(who=c.name, amount=0), AddCombatant(name=c.name.lower(), stats={"hp": "1", "speed": "1"})]
            if not c.acting:
                out += [Declare(who=c.name, action="guard")]
            if c.status == "left":
                out += [Leave(who=c.name)]
            else:
                out += [Return(who=c.name)]
        return out
