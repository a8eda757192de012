"""How the shared invariant suite drives phases (see tests/support/rulesets.py)."""

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
from skirmish.projections.rulesets.phases.view import PhasesClock, PhasesFigures
from skirmish.projections.view import Clock, Combatant

from support.rulesets import Fight, core_commands, core_invalid, support

# name, side, initiative, agility, bulk: two share initiative 4 so the Agility order matters.
PHASE_FIGHTERS = (
    ("Bauer", "players", "4", "7", "2"),
    ("Rook", "foes", "4", "6", "0"),
    ("Vance", "players", "2", "5", "1"),
    ("Gob", "foes", "6", "3", "0"),
)


def figures(c: Combatant) -> PhasesFigures:
    """A combatant's own figures under phases (the view's ``own`` part), typed."""
    assert isinstance(c.own, PhasesFigures)
    return c.own


def place(clock: Clock) -> PhasesClock:
    """The phase and call of the clock (its ``own`` part), typed."""
    assert isinstance(clock.own, PhasesClock)
    return clock.own


def _declares(who: str, target: str | None, phase: int | None) -> list[Command]:
    """What a character may plausibly do at its call (some still break a rule: refused, fine)."""
    out: list[Command] = [
        Declare(who=who, action="fire", target=target),
        Declare(who=who, action="fire", target=target, details={"move": "walk"}),
        Declare(who=who, action="fire", target=target, details={"auto": "yes"}),
        Declare(who=who, action="aim", target=target),
        Declare(who=who, action="aim", details={"area": "the gate"}),
        Declare(who=who, action="reload", details={"reloads": "2"}),
        Declare(who=who, action="melee", target=target, details={"melee": "diving-blow", "move": "run"}),
        Declare(who=who, action="ready", details={"bulk": "3"}),
        Declare(who=who, action="crawl"),
        Declare(who=who, action="walk", details={"talk": "Move!"}),
        Declare(who=who, action="trot", details={"cover": "yes"}),
        Declare(who=who, action="run"),
        Declare(who=who, action="prone"),
        Declare(who=who, action="stand"),
        Declare(who=who, action="mount"),
        Declare(who=who, action="dismount"),
        Declare(who=who, action="talk", target=target),
    ]
    if phase == 6:
        out += [Declare(who=who, action="walk", details={"repeat": "yes"})] * 2
    return out


@support("phases")
class PhasesSupport:
    # phases.md, Initiative: a slight wound takes 1 off Initiative. Rook 3 -> 2 (4 cells of
    # 6), Kestrel 5 -> 4 (4.8 cells -> 5).
    console = Fight(
        ('new "Farm" --rules phases --seed 1', "add Kestrel --side players --stat initiative=5 --stat agility=8",
         "add Rook --side foes --stat initiative=3 --stat agility=5", "round"),
        "Rook", "###### 3/3", "effect Rook slight-wound", "####.. 2/3",
        "effect Kestrel slight-wound", "Kestrel", "#####. 4/5", "###### 5/5")

    @staticmethod
    def commands(enc: Encounter) -> list[Command]:
        """Weighted by repetition: `next` often enough for turns to end, declares at each call."""
        view = enc.view()
        clock = view.clock
        phase = place(clock).phase
        fighters = view.combatants
        names = [c.name for c in fighters]
        turn = view.head
        out: list[Command] = core_commands(enc)[turn % 2:][:1] if turn % 3 == 0 else []
        if not clock.running:
            if len(fighters) < len(PHASE_FIGHTERS):
                name, side, init, agility, bulk = PHASE_FIGHTERS[len(fighters)]
                out.append(AddCombatant(name=name, side=side, stats={
                    "initiative": init, "agility": agility, "bulk": bulk}))
            if fighters:
                out += [StartRound()] * 3 + [StartRound(details={"ambush": "foes"})]
                out += [Declare(who=names[0], action="aim", target=names[-1])]
        else:
            out += [Next()] * 4
            if phase == 1:
                out.append(Upkeep())
        extras: list[Command] = []
        for c in fighters:
            who, own = c.name, figures(c)
            others = [n for n in names if n != who]
            target = others[turn % len(others)] if others else None
            if clock.running and (c.acting or phase == 6):
                out += _declares(who, target, phase)
            if own.aiming is not None and target is not None:
                out += [Declare(who=who, action="fire", target=target)] * 2  # opportunity fire, maybe
            if own.repeating is not None:
                out.append(Cancel(who=who))
            out.append(Resolve(who=who, outcome="hit"))
            extras += [
                ApplyEffect(who=who, kind="slight-wound"),
                ApplyEffect(who=who, kind="serious-wound"),
                ApplyEffect(who=who, kind="serious-wound", end=True),
                ApplyEffect(who=who, kind="panic", details={"by": "2"}),
                ApplyEffect(who=who, kind="panic", end=True),
                ApplyEffect(who=who, kind="slight-wound", end=True),
                Return(who=who) if c.status == "left" else Leave(who=who, reason="flees"),
            ]
        if extras:
            out += [extras[(turn + i * 7) % len(extras)] for i in range(2)]
        return out

    @staticmethod
    def invalid(enc: Encounter) -> list[Command]:
        view = enc.view()
        in_turn = view.clock.running
        fighters = view.combatants
        out: list[Command] = core_invalid(enc)
        out += [
            AddCombatant(name="Nameless", stats={"agility": "3"}),  # initiative missing
            AddCombatant(name="Ghost", stats={"initiative": "0"}),
            AddCombatant(name="Giant", stats={"initiative": "7"}),
            AddCombatant(name="Brute", stats={"initiative": "3", "bulk": "-1"}),
            AddCombatant(name="Brute", stats={"initiative": "3", "hits": "10"}),
            ApplyEffect(who="scene", kind="fire", per_round=1),
        ]
        if in_turn:
            out += [StartRound(), StartRound(details={"ambush": "foes"})]
        else:
            out += [Next(), Upkeep(), StartRound(details={"ambush": "nobody-side"})]
            if not fighters:
                out += [StartRound()]
        for c in fighters:
            who = c.name
            out += [
                AddCombatant(name=who.upper(), stats={"initiative": "3"}),  # name taken
                Damage(who=who, amount=2),  # no hits in phases.md
                Heal(who=who, amount=2),  # nor hits to heal: a wound is taken off with effect --end
                Leave(who=who) if c.status == "left" else Return(who=who),
                Declare(who=who, action="somersault"),
                Declare(who=who, action="walk", details={"ap": "2"}),
                Declare(who=who, action="aim"),  # needs a target or an area
                Declare(who=who, action="fire", target=who),
                Declare(who=who, action="reload", details={"move": "walk"}),
                ApplyEffect(who=who, kind="panic"),  # needs --with by=N
                ApplyEffect(who=who, kind="slight-wound", rounds=2),
                Resolve(who=who, outcome="hit", hits=3),
            ]
            if figures(c).repeating is None:
                out.append(Cancel(who=who))
            if not in_turn:
                out.append(Declare(who=who, action="walk"))
        return out
