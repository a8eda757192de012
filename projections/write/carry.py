"""The party between fights: combatants carried into a new encounter as they stood in another.

`new NEXT --rules R --carry PREVIOUS` (cli/bring.py) reads the earlier encounter at its
current branch's head and records, for each combatant taken (the party's side by default,
or those named), one `carry` command: its stats as added there, its vital figure now and
its lasting conditions, naming the encounter, the head event's id and hash. The shared
decision (:func:`decide_carry`, made by the engine for every ruleset, as for notes)
records the combatant's ``combatant-added``, a ``combatant-carried`` naming the source,
which the ruleset applies to start the combatant at that vital figure, and the ruleset's
own events for each lasting condition, decided as the `effect` command would be. It then
checks that the combatant stands as it stood: a ruleset that cannot hold a figure is
refused in one line, nothing recorded.

What a ruleset carries is its own to say: ``Rules.lasting(state, who)`` gives the
conditions that outlast a fight, as `effect` commands (default: the view's effects with
no rounds left to run); ``Rules.left_behind(state, who)``, where a ruleset has it, names what
ends with the fight (default: the view's effects not carried). docs/adding-a-ruleset.md says what a ruleset adds for both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skirmish.eventlog.commands import AddCombatant, ApplyEffect, Carry, CarriedEffect
from skirmish.eventlog.errors import BadInput, SkirmishError
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import CombatantAdded, CombatantCarried, CombatantRenamed, Event, StatsSet, TraitsSet
from skirmish.eventlog.text import check_label, quoted
from skirmish.projections.ruleset import Dice, Ruleset, check_details, check_flags, decide_add, lasting_from_view
from skirmish.projections.view import View

PARTY_SIDES = ("players",)  # the party's side by default, as the players' pages read it


def decide_carry(ruleset: Ruleset[Any], state: Any, command: Carry, dice: Dice) -> list[Event]:
    """The events that bring ``command``'s combatant in as it stood (module docstring)."""
    added = decide_add(ruleset, state.names(), AddCombatant(name=command.name, side=command.side,
                                                            stats=command.stats))
    name = added[0].name
    working = ruleset.evolve(state, added[0])
    gauge = ruleset.view(working).combatant(name).vital
    if command.vital is not None and gauge.maximum is not None and command.vital > gauge.maximum:
        raise BadInput(f"{name} cannot come in at {command.vital} {gauge.name}: its maximum is {gauge.maximum}")
    carried = CombatantCarried(who=name, source=command.source, vital=command.vital, figures=dict(command.figures),
                               encounter=command.encounter, event=command.event, hash=command.hash)
    events: list[Event] = [*added, carried]
    working = ruleset.evolve(working, carried)
    for effect in command.effects:
        check_label("an effect's KIND", effect.kind)
        put_on = ApplyEffect(who=name, kind=effect.kind, rounds=effect.rounds, per_round=effect.per_round,
                             details=effect.details, custom=effect.custom)
        try:
            check_flags(ruleset, put_on)  # as the engine checks a typed `effect`
            check_details(ruleset, put_on)
            produced = ruleset.decide(working, put_on, dice)
        except SkirmishError as e:
            raise BadInput(f"{name}'s {effect.kind} cannot come into {ruleset.id}: {e}") from None
        for event in produced:
            working = ruleset.evolve(working, event)
        events += produced
    figures = getattr(ruleset, "carried_figures", None)
    if command.figures and (figures is None or figures(working, name) != command.figures):
        shown = ", ".join(f"{k} {v}" for k, v in command.figures.items())
        raise RuleViolation(f"{ruleset.id} cannot start {name} with {shown}: its combatant-carried applier "
                            "does not hold them (docs/adding-a-ruleset.md, step 6)")
    if command.vital is not None:
        now = ruleset.view(working).combatant(name).vital.value
        if now != command.vital:
            raise RuleViolation(
                f"{ruleset.id} cannot start {name} at {command.vital} {gauge.name} (it would start at {now}): "
                "it applies no combatant-carried event (docs/adding-a-ruleset.md, step 6)"
            )
    return events


def _as_typed(ruleset: Ruleset[Any], stored: dict[str, Any]) -> dict[str, str]:
    """The stats as `add` took them: those left at their default were not typed (and a default
    may lie below the minimum a typed value must meet: modular's speed 0, "from Agility")."""
    specs = ruleset.stats
    return {k: str(v) for k, v in stored.items()
            if k not in specs or specs[k].required or v != specs[k].default}


def stats_at(enc: Any, event_id: int) -> dict[str, dict[str, Any]]:
    """Each combatant's stats as they stand at ``event_id``, by its name there: those it was
    added with (its text stats too), changed by `set` and carried over a `rename`, read along
    that event's own path (another branch's `add` of the same name never counts)."""
    stats: dict[str, dict[str, Any]] = {}
    for recorded in enc.events_in(enc.runs(event_id).runs):
        match recorded.event:
            case CombatantAdded(name=name, stats=numbers, traits=traits):
                stats[name] = {**numbers, **traits}
            case StatsSet(who=who, stats=numbers):
                stats[who].update(numbers)
            case TraitsSet(who=who, traits=traits):
                stats[who].update(traits)
            case CombatantRenamed(who=who, to=to):
                stats[to] = stats.pop(who)
    return stats


def carry_from(enc: Any, who: Sequence[str] = (), sides: Sequence[str] | None = None) -> tuple[list[Carry], list[str]]:
    """The `carry` commands that bring combatants of encounter ``enc`` (at its branch's head)
    into another: those named in ``who``, else every one on ``sides`` (default: the ruleset's
    ``party_sides`` where it names them, as srd-5.2 does its characters' sides, else
    :data:`PARTY_SIDES`); and one line for each figure that does not come along (the effects
    a round clock runs down)."""
    from skirmish.projections.ruleset import find_name

    if sides is None:
        sides = getattr(enc.ruleset, "party_sides", PARTY_SIDES)

    head = enc.head()
    state = enc.state_at(head.event_id)
    view: View = enc.ruleset.view(state)
    names = [find_name(state.names(), w) for w in who] if who else [
        c.name for c in view.combatants if c.side in sides]
    if not names:
        raise BadInput(f"encounter {quoted(enc.row.name)} has nobody on the {' or '.join(sides)} side to carry "
                       "(name them with --who)")
    stats = stats_at(enc, head.event_id)
    source = f"encounter {enc.row.name!r} at #{head.event_id} (branch {head.branch!r})"
    digest = enc.event_hash(head.event_id)
    commands, lines = [], []
    lasting = getattr(enc.ruleset, "lasting", None)
    figures = getattr(enc.ruleset, "carried_figures", None)
    left_behind = getattr(enc.ruleset, "left_behind", None)
    for name in names:
        shown = view.combatant(name)
        keep = lasting(state, name) if lasting is not None else lasting_from_view(enc.ruleset, view, name)
        if left_behind is not None:  # a view that shows figures beside its effects names what it leaves
            lines += [f"{name}: {what} ends with the fight: not carried" for what in left_behind(state, name)]
        else:
            kept = {e.kind for e in keep}
            for e in shown.effects:
                if e.kind not in kept:
                    lines.append(f"{name}: {e.kind} ({e.left} rounds left) ends with the fight: not carried"
                                 if e.left is not None else f"{name}: {e.kind} ends with the fight: not carried")
        gauge = shown.vital
        commands.append(Carry(
            name=name, side=shown.side, stats=_as_typed(enc.ruleset, stats[name]),
            vital=None if gauge.value == gauge.maximum else gauge.value, effects=tuple(keep), source=source,
            figures=figures(state, name) if figures is not None else {},
            encounter=enc.row.name, event=head.event_id, hash=digest,
        ))
    return commands, lines
