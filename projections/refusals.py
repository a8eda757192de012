"""The refusals of the rules: a command that breaks a rule of the encounter's ruleset, names a
combatant it does not have, or asks for a ruleset that is not installed.

They live with the rules that raise them (projections/ruleset.py and the rulesets'
packages); eventlog/errors.py keeps the errors of the log itself and their base,
:class:`SkirmishError`, which the command line turns into one ``Error: ...`` line.
"""

from __future__ import annotations

from skirmish.eventlog.errors import SkirmishError


class RuleViolation(SkirmishError):
    """The command breaks a rule of the encounter's ruleset; the message cites the rule."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        self.rule = rule
        super().__init__(f"{message} ({rule})" if rule else message)


class UnknownCombatant(SkirmishError):
    """A command names a combatant the encounter does not have."""


class UnknownRuleset(SkirmishError):
    """No ruleset registered under that id."""
