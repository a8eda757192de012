"""percent-activity's state: the fighters, their actions and effects, the order of the round."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

import msgspec

from skirmish.projections.rulesets.percent_activity.vocabulary import Step


# Mutable: the fold applies each event in place on a working copy (STYLE 7; the engine
# copies a state before it is changed where the old one is still wanted).
class Effect(msgspec.Struct):
    kind: str
    per_round: int = 0
    rounds: int | None = None
    serial: int = 0  # which of the combatant's effects this is, in order of application


class Action(msgspec.Struct):
    name: str
    cost: int
    step: Step
    penalty: int = 0
    target: str | None = None
    trigger: str | None = None
    progress: int = 0  # % put into a round-to-round action at past upkeeps


class Fighter(msgspec.Struct):
    name: str
    side: str
    qu: int
    hits: int
    damage: int = 0
    initiative: int | None = None
    used: int = 0
    melee: int = 0
    instants: int = 0
    action: Action | None = None
    # Serial -> effect, in order of application: an upkeep tick finds its effect at once.
    effects: dict[int, Effect] = {}
    effects_applied: int = 0
    left: bool = False  # has left the fight (`leave`); back with `return`

    @property
    def wounded(self) -> bool:
        # "taken more than 50% of hits" (Initiative Step)
        return 2 * self.damage > self.hits


class PaState(msgspec.Struct):
    options: dict[str, str]
    seed: int
    round: int = 0
    in_round: bool = False
    order: tuple[str, ...] = ()
    turn: int = 0
    fighters: dict[str, Fighter] = {}  # by name, in the order they were added

    def names(self) -> list[str]:
        return list(self.fighters)

    def fighter(self, name: str) -> Fighter:
        return self.fighters[name]

    def acting(self) -> str | None:
        return self.order[self.turn] if self.in_round and self.turn < len(self.order) else None
