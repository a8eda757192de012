"""How the shared invariant suite drives percent-activity (see tests/support/rulesets.py)."""

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
from skirmish.projections.rulesets.percent_activity.view import PaPending

from support.rulesets import Fight, core_commands, core_invalid, support

NAMES = ("Hauser", "Orc", "Mira")
# (action, % values worth trying): the table's ends, one in between, one off the table.
DECLARES: tuple[tuple[str, tuple[int | None, ...]], ...] = (
    ("melee-attack", (60, 80, None, 50)),
    ("parry", (60,)),
    ("ranged-attack", (30, None)),
    ("dodge", (50,)),
    ("ammo-reload", (None,)),
    ("draw", (None, 30)),
    ("perception", (10, 30)),
    ("move", (10, 40)),
    ("static-maneuver", (100, 250)),
    ("complex-action", (20,)),
    ("instantaneous", (None,)),
)


@support("percent-activity")
class PercentActivitySupport:
    # percent-activity.md: the same hits. 15/30 of 6 cells is 3.
    console = Fight(
        ('new "Gate" --rules percent-activity --seed 1', "add Hauser --side players --stat qu=1 --stat hits=40",
         "add Orc --side foes --stat qu=0 --stat hits=30", "round --roll Hauser=6,8 --roll Orc=5,5"),
        "Orc", "###### 30/30", "damage Orc 5", "#####. 25/30",
        "damage Orc 10", "Orc", "###... 15/30", "#####. 25/30")

    @staticmethod
    def commands(enc: Encounter) -> list[Command]:
        """Weighted by repetition: hypothesis picks uniformly, and a fight must get through
        round, declare, resolve and next often enough to reach the upkeep."""
        view = enc.view()
        in_round = view.clock.running
        turn_of = view.clock.now[0] if view.clock.now else None
        fighters = view.combatants
        names = [f.name for f in fighters]
        pending = {p.who: p.own for p in view.pending}
        turn = view.head
        out: list[Command] = core_commands(enc)[turn % 2:][:1] if turn % 3 == 0 else []
        if not in_round:
            if len(fighters) < len(NAMES):
                name = NAMES[len(fighters)]
                out += [
                    AddCombatant(name=name, side="players", stats={"qu": "1", "hits": "40"}),
                    AddCombatant(name=name, side="foes", stats={"qu": "-2", "hits": "12"}),
                ]
            if fighters:
                first = names[0]
                out += [StartRound()] * 3 + [
                    StartRound(rolls={first.lower(): (6, 8)}, details={"surprised": first}),
                    StartRound(details={"ready": ",".join(names)}),  # refused after round 1
                ]
        else:
            out += [Next()] * 4 + [Upkeep()]
        side: list[Command] = []
        gone = {f.name for f in fighters if f.status == "left"}
        for who in names:
            others = [n for n in names if n != who]
            target = others[turn % len(others)] if others else None
            action = pending.get(who)
            if in_round and who == turn_of:
                for name, percents in DECLARES:
                    out += [Declare(who=who, action=name, target=target, details={"percent": str(p)}) for p in percents]
                out += [Declare(who=who, action="ranged-attack", target=target, trigger="if the door opens", details={"percent": "40"})]
            elif in_round:
                out.append(Declare(who=who, action="dodge"))  # out of turn: refused
            if action is not None:
                resolves = [Resolve(who=who), Resolve(who=who, outcome="hit", hits=3)]
                assert isinstance(action, PaPending)
                out += resolves * (3 if action.step in ("resolves", "held") else 1)
                out.append(Cancel(who=who))
            side += [
                Damage(who=who, amount=7),
                ApplyEffect(who=who, kind="bleeding", per_round=2),
                ApplyEffect(who=who, kind="bleeding", end=True),
                ApplyEffect(who=who, kind="stunned", rounds=2),
                ApplyEffect(who=who, kind="stunned-unable-to-parry", rounds=1),
                ApplyEffect(who=who, kind="dazed", rounds=1),
                ApplyEffect(who=who, kind="staggered"),
                ApplyEffect(who=who, kind="encumbered"),
                ApplyEffect(who=who, kind="encumbered", end=True),
                ApplyEffect(who=who, kind="blinded", rounds=3, custom=True),
                Heal(who=who, amount=5),
                Return(who=who) if who in gone else Leave(who=who, reason="flees"),
            ]
        return out + [side[(turn + i * 7) % len(side)] for i in range(2)] if side else out

    @staticmethod
    def invalid(enc: Encounter) -> list[Command]:
        view = enc.view()
        in_round = view.clock.running
        fighters = view.combatants
        pending = {p.who for p in view.pending}
        out: list[Command] = core_invalid(enc)
        out += [
            AddCombatant(name="Nameless", stats={"qu": "1"}),  # hits missing
            AddCombatant(name="Ghost", stats={"qu": "1", "hits": "0"}),  # at least 1 hit
            AddCombatant(name="Brute", stats={"qu": "x", "hits": "10"}),
            AddCombatant(name="Brute", stats={"qu": "1", "hits": "10", "penalty": "-5"}),  # no such stat
        ]
        if in_round:
            out += [StartRound()]
        else:
            out += [Next(), Upkeep()]
            if not fighters:
                out += [StartRound()]
            else:
                out += [StartRound(details={"surprised": "Nobody-at-all"}), StartRound(details={"tired": "x"})]
        for who in (f.name for f in fighters):
            out += [
                AddCombatant(name=who.lower(), stats={"qu": "1", "hits": "10"}),  # name taken
                Damage(who=who, amount=0),
                Heal(who=who, amount=0),
                ApplyEffect(who=who, kind="bleedng", per_round=1),  # a typo: did you mean bleeding?
                Declare(who=who, action="somersault"),
                Declare(who=who, action="melee-attack", details={"ap": "2"}),  # flags it does not read (check_flags)
                Declare(who=who, action="move", details={"pace": "run"}),
                Resolve(who=who, details={"charge": "3"}),
                Cancel(who=who, details={"orientation": "left"}),
                ApplyEffect(who=who, kind="stunned", rounds=1, details={"start": "2"}),
                Declare(who=who, action="melee-attack", details={"percent": "101"}),
                Declare(who=who, action="draw", details={"percent": "10"}),
                Declare(who=who, action="instantaneous", details={"percent": "5"}),
                ApplyEffect(who=who, kind="bleeding", per_round=0),
                ApplyEffect(who=who, kind="stunned"),  # needs --rounds
                ApplyEffect(who=who, kind="staggered", rounds=2),
                ApplyEffect(who=who, kind="wounded"),  # derived from damage
                ApplyEffect(who=who, kind="surprised", rounds=1),  # typed on `round`
            ]
            if not in_round:
                out += [Declare(who=who, action="dodge")]  # no round under way
            if who not in pending:
                out += [Resolve(who=who), Cancel(who=who)]
        return out
