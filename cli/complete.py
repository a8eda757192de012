"""Shell completion of names from the database: combatants, actions, effect kinds,
branches, encounters, rulesets, and the flags of the encounter's ruleset's own (bash, zsh
and fish, through Typer's completion: `skirmish --install-completion`).

Each function takes what Typer gives an ``autocompletion`` callback (the context
and the word typed so far) and returns the candidates that start with it. Completion
never fails and never writes: a database that is missing, locked or not skirmish's
completes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

import typer

from skirmish.eventlog.connection import DEFAULT_DB


def _db(ctx: typer.Context) -> str:
    root = ctx.find_root()
    given = root.params.get("db") if root.params else None
    return str(given or os.environ.get("SKIRMISH_DB") or DEFAULT_DB)


def _matching(words: Iterable[str], incomplete: str) -> list[str]:
    """The words that start with what was typed. A name holding a terminal control (stored
    by an import) is left out: the shell would print it raw in its list of candidates."""
    from skirmish.eventlog.text import escape_controls

    typed = incomplete.lower()
    return [w for w in words if w.lower().startswith(typed) and escape_controls(w) == w]


# What each completion reads, for the console to offer the same names without opening the
# file again (words_for): the reader, and whether it reads the file (its list of encounters)
# rather than the current encounter.
_READS: dict[object, tuple[Callable[[Any], Iterable[str]], bool]] = {}


def _reading(read: Callable[[Any], Iterable[str]], whole_file: bool = False) -> Callable[[typer.Context, str], list[str]]:
    """A completion that reads the current encounter (or, ``whole_file``, the file's list of them)."""

    def complete(ctx: typer.Context, incomplete: str) -> list[str]:
        path = _db(ctx)
        if not os.path.exists(path):
            return []
        try:
            from skirmish.projections.write.engine import LogFile

            with LogFile(path, create=False) as log_file:
                found = read(log_file if whole_file else log_file.open())
                return _matching(dict.fromkeys(found), incomplete)
        except Exception:  # noqa: BLE001 - completion must never fail the shell
            return []

    _READS[complete] = (read, whole_file)
    return complete


def words_for(completion: object, log_file: Any, enc: Any) -> list[str]:
    """The names a completion callback offers, read from an open file and its encounter (the
    console's), without opening the file again: [] for a callback that completes nothing."""
    reads = _READS.get(completion)
    if reads is None:
        return []
    read, whole_file = reads
    return list(dict.fromkeys(read(log_file if whole_file else enc)))


combatants = _reading(lambda enc: [c.name for c in enc.view().combatants])
actions = _reading(lambda enc: list(enc.ruleset.actions))
effects = _reading(lambda enc: [*enc.ruleset.effects, *(e.kind for c in enc.view().combatants for e in c.effects)])
branches = _reading(lambda enc: list(enc.branches()))
encounters = _reading(lambda log_file: [row.name for row in log_file.encounters()], whole_file=True)


def ruleset(ctx: typer.Context) -> Any:
    """The ruleset of the current encounter, whose own flags a command at the table
    completes (cli/app.py, TableCommand); None where there is none."""
    path = _db(ctx)
    if not os.path.exists(path):
        return None
    try:
        from skirmish.projections.write.engine import LogFile

        with LogFile(path, create=False) as log_file:
            return log_file.open().ruleset
    except Exception:  # noqa: BLE001 - completion must never fail the shell
        return None


def _ruleset_ids(_: Any = None) -> list[str]:
    from skirmish.projections.ruleset import registry

    return sorted(registry())


def rulesets(ctx: typer.Context, incomplete: str) -> list[str]:
    return _matching(_ruleset_ids(), incomplete)


_READS[rulesets] = (_ruleset_ids, False)


def nothing(ctx: typer.Context, incomplete: str) -> list[str]:
    """A new name: there is nothing to complete it from."""
    return []
