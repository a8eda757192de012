"""Per-ruleset command generators for the shared invariant suite (tests/rulesets/test_invariants.py).

The invariants run against every ruleset registered under the ``skirmish.rulesets``
entry points. Each ruleset needs a :class:`RulesetSupport` here: ``commands`` proposes
candidate commands plausible at the encounter's current state (hypothesis picks among
them; some may still break a rule, which is fine, as long as they append nothing), and
``invalid`` proposes commands the ruleset must refuse at that state; ``console`` is the
fight the console's tests play in it.

Each ruleset's support lives in its own module, tests/support/<ruleset>.py (imported by
:func:`support_for`), using the ``@support`` decorator and the core proposers here. A
ruleset that is registered but has no support fails the suite with a message saying so:
a new ruleset cannot slip past the invariants unnoticed.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from skirmish.eventlog.commands import AddNote, Command, Damage, EndEncounter, Hide, Rename, Reveal, RollDice, SetStats
from skirmish.projections.write.engine import Encounter
from skirmish.projections.policy import hidden_at

Proposer = Callable[[Encounter], list[Command]]


@dataclass(frozen=True)
class Fight:
    """A fight in one ruleset for the console's tests (tests/console/test_console.py): how it starts,
    two blows, and the bars they leave."""

    setup: tuple[str, ...]
    target: str
    full: str  # the target's bar before the first blow
    hit: str  # the first blow, typed in the console
    after_hit: str  # the target's bar after it
    second: str  # the second blow
    hurt: str  # whom the second blow hurts
    after_second: str  # and that one's bar after it
    hurt_before: str  # that one's bar before the second blow



@dataclass(frozen=True)
class RulesetSupport:
    """How the shared suite drives one ruleset."""

    # Candidates plausible at the current state: the suite plays random sequences of them.
    commands: Proposer
    # Commands the ruleset must refuse at the current state (each must raise a SkirmishError).
    invalid: Proposer
    # A fight the console's tests play (every built-in ruleset has one).
    console: Fight | None = None


SUPPORT: dict[str, RulesetSupport] = {}


def support(ruleset_id: str) -> Callable[[type[Any]], type[Any]]:
    def register(cls: type[Any]) -> type[Any]:
        SUPPORT[ruleset_id] = RulesetSupport(commands=cls.commands, invalid=cls.invalid,
                                             console=getattr(cls, "console", None))
        return cls

    return register


def support_for(ruleset_id: str) -> RulesetSupport:
    from skirmish.projections.ruleset import module_of

    module = "support." + module_of(ruleset_id)
    if ruleset_id not in SUPPORT and importlib.util.find_spec(module) is not None:
        importlib.import_module(module)
    found = SUPPORT.get(ruleset_id)
    if found is None:
        pytest.fail(
            f"ruleset {ruleset_id!r} is registered but tests/{module.replace('.', '/')}.py has no command "
            "generator for it: add a @support class so the shared invariants cover it"
        )
    return found


def core_commands(enc: Encounter) -> list[Command]:
    """Commands every encounter takes whatever its ruleset: notes on events of the tree, and
    what GMs expect (a roll, a note on a combatant, a rename, a stat set, the end). Each
    ruleset's proposer takes the first or the second: which two they are turns with the
    log's length, so every one of them comes up in a run."""
    ids = [row.id for row in enc.event_rows()]
    notes: list[Command] = [AddNote(event=ids[0], text="first"), AddNote(event=ids[-1], text="the latest, on any branch")]
    gm: list[Command] = [RollDice(dice="2d6+1", why="morale"), RollDice(dice="d20", rolls={"dice": (20,)})]
    names = [c.name for c in enc.view().combatants]
    if names:
        who = names[len(ids) % len(names)]
        renamed = who[:-3] if who.endswith(" II") else who + " II"
        stats = enc.ruleset.stats
        key = list(stats)[len(ids) % len(stats)]
        least, most = stats[key].minimum, stats[key].maximum
        low: int = least if least is not None else 0
        high: int = most if most is not None else low + 9
        value = low + len(ids) % (high - low + 1)
        gm += [AddNote(event=0, text="on a combatant", on=who, private=len(ids) % 2 == 0),
               Rename(who=who, to=renamed), SetStats(who=who, stats={key: str(value)})]
    if len(ids) % 7 == 0:
        gm.append(EndEncounter(reason="the GM calls it"))
    picked = gm[len(ids) % len(gm)]
    return [notes[0], picked] if len(ids) % 2 else [picked, notes[1]]


def core_invalid(enc: Encounter) -> list[Command]:
    """Commands every encounter must refuse, decided by the engine or by any ruleset."""
    last = max(row.id for row in enc.event_rows())
    out: list[Command] = [
        AddNote(event=last + 1000, text="about an event that does not exist"),
        AddNote(event=last, text="   "),
        # No combatant is called that; a ruleset with no use for damage refuses it too.
        Damage(who="Nobody-at-all", amount=1),
        AddNote(event=0, text="on nobody", on="Nobody-at-all"),
        RollDice(dice="2x6"),
        RollDice(dice="2d6", rolls={"dice": (7, 1)}),
        RollDice(dice="d6", who="Nobody-at-all"),
        # Hiding is decided by the engine for every ruleset: nobody to hide, nobody hidden to reveal.
        Hide(who="Nobody-at-all"),
        *(Reveal(who=c.name) for c in enc.view().combatants[:1] if c.name not in hidden_at(enc, enc.head().event_id)),
    ]
    names = [c.name for c in enc.view().combatants]
    if names:
        out += [SetStats(who=names[0], stats={"no-such-stat": "1"}), SetStats(who=names[0], stats={}),
                Rename(who=names[0], to=names[-1].upper() if len(names) > 1 else "scene"),
                Rename(who=names[0], to="9")]
    return out
