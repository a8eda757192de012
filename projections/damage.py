"""Who dealt what to whom: each event's damage with its attacker, for any ruleset.

The ruleset says what an event did in its rules' own count (``Ruleset.harm``: hits,
Endurance and Health, wounds) and what an action was aimed at (``Ruleset.aim``); this
fold says who dealt it, reading the commands the events were recorded under:

- the attacker the event records, if it records one (crisis, the duel);
- else the actor of the action command (`declare`, `resolve`) that produced it, unless
  the damage is the actor's own;
- else, for damage the GM typed after an action (`damage`, `effect`: a wound in phases,
  the health an attack cost in modular), the actor of the latest action command on the
  branch before it, with only `damage`, `effect`, `heal` and `note` between them, and
  if that action was aimed at someone, only when it was aimed at the victim;
- else no one: an upkeep tick (bleeding), damage typed after the clock moved on.
"""

from __future__ import annotations

from typing import Any

import msgspec

from skirmish.eventlog.events import CombatantAdded, CombatantRenamed, Event
from skirmish.projections.ruleset import Harm, Ruleset

ACTIONS = frozenset({"declare", "resolve"})
# Commands the GM types about an action just played: they leave the latest action in force.
AFTERMATH = frozenset({"damage", "effect", "heal", "note"})


class Attribution:
    """Folds a branch's events in order; :meth:`step` gives the event's damage with its attacker."""

    def __init__(self, ruleset: Ruleset[Any]) -> None:
        self.ruleset = ruleset
        self.names: dict[str, str] = {}  # lower case -> the combatant's name
        self.command: int | None = None
        self.tag = ""
        self.actor: str | None = None
        self.latest: str | None = None  # the actor of the latest action command still in force
        self.aimed: set[str] = set()  # whom that action was aimed at

    def copy(self) -> Attribution:
        """This fold as it stands, to go on from along another branch."""
        other = Attribution(self.ruleset)
        other.names, other.aimed = dict(self.names), set(self.aimed)
        other.command, other.tag, other.actor, other.latest = self.command, self.tag, self.actor, self.latest
        return other

    def name(self, typed: str | None) -> str | None:
        return self.names.get(typed.lower()) if typed else None

    def step(self, event: Event, command_id: int, tag: str, actor: str | None) -> Harm | None:
        if isinstance(event, CombatantAdded):
            self.names[event.name.lower()] = event.name
        elif isinstance(event, CombatantRenamed):  # commands after it name the combatant anew
            self.names[event.to.lower()] = event.to
        if command_id != self.command:
            self.command, self.tag, self.actor = command_id, tag, self.name(actor)
            if tag in ACTIONS:
                self.latest, self.aimed = self.actor, set()
            elif tag not in AFTERMATH:
                self.latest, self.aimed = None, set()
        aim = self.ruleset.aim(event)
        if aim is not None and self.tag in ACTIONS and aim.who == self.latest:
            self.aimed.add(aim.target)
        harm = self.ruleset.harm(event)
        if harm is None or harm.heal or harm.by is not None:
            return harm
        by: str | None = None
        if self.tag in ACTIONS:
            by = self.actor
        elif self.tag in AFTERMATH and (not self.aimed or harm.who in self.aimed):
            by = self.latest
        return msgspec.structs.replace(harm, by=by if by != harm.who else None)

