"""A stand-in for the srd-5.2 ruleset's side of the contract the imports read (its stats, by
name; a combatant started below its hit points; effects that take rounds), so the ready
end-to-end check (tests/support/imports.py) is run before that ruleset lands. It plays no
rules: no round, no action; it only holds what an import brings."""

from __future__ import annotations

import msgspec

from skirmish.eventlog.commands import ApplyEffect
from skirmish.eventlog.events import CombatantAdded, CombatantCarried, EncounterStarted, Event
from skirmish.projections.ruleset import ActionInfo, Detail, Dice, Flag, Option, Rules, Ruleset, Stat, applies, decides, find_name
from skirmish.projections.view import Budget, Clock, Combatant, Effect, Gauge, View

STAND_IN = "srd-stand-in"


class Fighter(msgspec.Struct):
    name: str
    side: str
    hp: int
    damage: int = 0
    effects: dict[str, int | None] = {}
    left: bool = False


class StandInState(msgspec.Struct):
    fighters: dict[str, Fighter] = {}

    def names(self) -> list[str]:
        return list(self.fighters)


class EffectOn(Event, frozen=True, tag="stand-in.effect-on"):
    who: str
    kind: str
    rounds: int | None = None


class StandIn(Rules[StandInState]):
    id = STAND_IN
    state_type = StandInState
    rules_file = "none: a stand-in for tests"
    options: dict[str, Option] = {}
    stats = {
        "hp": Stat("hit points", minimum=1), "ac": Stat("armour class", required=False),
        "dex": Stat("Dexterity modifier", required=False), "init": Stat("initiative modifier", required=False),
        "legendary": Stat("legendary actions a round", required=False, minimum=0),
        "pc": Stat("1 for a player character", required=False, minimum=0, maximum=1),
        "speed": Stat("speed in feet", required=False, minimum=0),
    }
    actions: dict[str, ActionInfo] = {}
    flags = {"rounds": Flag("rounds it lasts", ("effect",)), "custom": Flag("the GM's own", ("effect",))}
    details: dict[str, Detail] = {}
    state_version = 1

    def initial(self, started: EncounterStarted) -> StandInState:
        return StandInState()

    @applies(CombatantAdded)
    def _added(self, state: StandInState, event: CombatantAdded) -> None:
        state.fighters[event.name] = Fighter(name=event.name, side=event.side, hp=event.stats["hp"])

    @applies(CombatantCarried)
    def _carried(self, state: StandInState, event: CombatantCarried) -> None:
        f = state.fighters[event.who]
        if event.vital is not None:
            f.damage = f.hp - event.vital

    @decides(ApplyEffect)
    def _effect(self, state: StandInState, command: ApplyEffect, dice: Dice) -> list[Event]:
        return [EffectOn(who=find_name(state.names(), command.who), kind=command.kind, rounds=command.rounds)]

    @applies(EffectOn)
    def _effect_on(self, state: StandInState, event: EffectOn) -> None:
        state.fighters[event.who].effects[event.kind] = event.rounds

    def view(self, state: StandInState) -> View:
        return View(clock=Clock(round=0), combatants=tuple(
            Combatant(name=f.name, side=f.side, vital=Gauge(name="hit points", value=f.hp - f.damage, maximum=f.hp),
                      budget=Budget(name="actions", left=0),
                      effects=tuple(Effect(kind=k, left=r, custom=True) for k, r in f.effects.items()))
            for f in state.fighters.values()))

    def describe(self, event: Event) -> str:
        if isinstance(event, EffectOn):
            return f"{event.who} is {event.kind}"
        return type(event).__name__


RULESET: Ruleset[StandInState] = StandIn()
