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

from skirmish.eventlog.commands import AddNote, Command, Damage, Hide, Reveal
from skirmish.projections.engine import Encounter
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
    module = "support." + ruleset_id.replace("-", "_")
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
    """Commands every encounter takes whatever its ruleset: notes on events of the tree."""
    ids = [row.id for row in enc.event_rows()]
    return [AddNote(event=ids[0], text="first"), AddNote(event=ids[-1], text="the latest, on any branch")]


def core_invalid(enc: Encounter) -> list[Command]:
    """Commands every encounter must refuse, decided by the engine or by any ruleset."""
    last = max(row.id for row in enc.event_rows())
    return [
        AddNote(event=last + 1000, text="about an event that does not exist"),
        AddNote(event=last, text="   "),
        # No combatant is called that; a ruleset with no use for damage refuses it too.
        Damage(who="Nobody-at-all", amount=1),
        # Hiding is decided by the engine for every ruleset: nobody to hide, nobody hidden to reveal.
        Hide(who="Nobody-at-all"),
        *(Reveal(who=c.name) for c in enc.view().combatants[:1] if c.name not in hidden_at(enc, enc.head().event_id)),
    ]
