"""Bad input, fuzzed: whatever a GM types, one `Error:` line, a non-zero exit, nothing appended.

Hypothesis draws command lines (words from each ruleset's own vocabulary, mixed with
numbers out of range, stray options and arbitrary text) and sequences of them, for every
registered ruleset (``sorted(registry())``: rulesets that land later are covered). Each
line runs in-process through ``run_cli``, the console script's own entry. A refused line
must leave every table of the file exactly as it was; no line may end in a traceback or
in the CLI's "internal error" (a bug) line.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conftest import Cli
from skirmish.projections.ruleset import get_ruleset, registry

RULESETS = sorted(registry())
TABLES = ("encounters", "commands", "events", "head_moves", "settings")
NAMES = ("Hauser", "Orc")
FUZZ = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def snapshot(db: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table skirmish writes: a refused command changes none of them."""
    raw = sqlite3.connect(db)
    try:
        return {t: raw.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in TABLES}
    finally:
        raw.close()


def stats_for(ruleset_id: str) -> list[str]:
    """--stat words a combatant of this ruleset accepts: each stat at a value in its range."""
    words = []
    for key, stat in get_ruleset(ruleset_id).stats.items():
        value = stat.default if not stat.required else max(stat.minimum or 1, 1)
        if stat.maximum is not None:
            value = min(value, stat.maximum)
        words += ["--stat", f"{key}={value}"]
    return words


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Per ruleset, a file with an encounter and two combatants, copied for each example."""
    from skirmish.cli.main import run_cli

    out = {}
    for ruleset_id in RULESETS:
        db = str(tmp_path_factory.mktemp("templates") / f"{ruleset_id}.db")
        assert run_cli(["--db", db, "new", "Fuzz", "--rules", ruleset_id, "--seed", "3"]) == 0
        for name in NAMES:
            assert run_cli(["--db", db, "add", name, *stats_for(ruleset_id)]) == 0, f"add {name} under {ruleset_id}"
        out[ruleset_id] = db
    return out


@pytest.fixture
def fresh(templates: dict[str, str], tmp_path: Path) -> Iterator[Any]:
    """Hands out a new copy of a ruleset's template file each call (one per hypothesis example)."""
    counter = iter(range(10**9))

    def copy(ruleset_id: str) -> str:
        db = str(tmp_path / f"example-{next(counter)}.db")
        shutil.copy(templates[ruleset_id], db)
        return db

    yield copy


def check_line(cli: Cli, args: list[str]) -> bool:
    """Run one command line; if it was refused, check the refusal. Return whether it succeeded."""
    before = snapshot(cli.db)
    cli(*args)
    assert "Traceback" not in cli.err + cli.out, (args, cli.err)
    assert "internal error" not in cli.err, (args, cli.err)
    if cli.code == 0:
        return True
    lines = cli.err.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("Error: "), (args, cli.err)
    assert snapshot(cli.db) == before, f"refused {args} yet the file changed"
    return False


# --- words ---------------------------------------------------------------------------------

# Text without path separators: a fuzzed word must not name a file outside the test's folder.
TEXT = st.text(st.characters(blacklist_characters="/\\\x00", blacklist_categories=("Cs",)), max_size=12)
NUMBERS = st.one_of(
    st.integers(-3, 40), st.integers(-(10**20), 10**20), st.sampled_from([2**63, -(2**63) - 1, 10**6 + 1])
).map(str)


def words_for(ruleset_id: str) -> st.SearchStrategy[str]:
    rs = get_ruleset(ruleset_id)
    known = [*NAMES, *rs.actions, *rs.stats, *rs.options, "scene", "main", "bleeding", "stunned", "hit"]
    for key, detail in rs.details.items():
        known += [f"{key}={choice}" for choice in detail.choices or ("1",)]
    pairs = st.builds(lambda k, v: f"{k}={v}", st.sampled_from(known), st.one_of(NUMBERS, TEXT, st.sampled_from(known)))
    return st.one_of(st.sampled_from(known), NUMBERS, TEXT, pairs)


OPTIONS = ("--ap", "--percent", "--target", "--trigger", "--pace", "--penalty", "--amount", "--roll",
           "--with", "--outcome", "--hits", "--charge", "--orientation", "--per-round", "--rounds",
           "--start", "--end", "--at", "--json", "--all", "--from", "--to", "--side", "--stat",
           "--option", "--seed", "--expect", "--rules", "--help")
# `run` plays a script file and `new`/`use` switch encounters: all fuzzed, but `run` only with
# words that name no file here (they have no path separator and the folder holds none).
COMMANDS = ("add", "round", "next", "declare", "resolve", "cancel", "damage", "effect", "upkeep", "note",
            "undo", "redo", "branch", "switch", "branches", "state", "log", "replay", "verify", "new",
            "use", "encounters", "rules", "run")


def command_lines(ruleset_id: str) -> st.SearchStrategy[list[str]]:
    word = words_for(ruleset_id)
    option_pair = st.tuples(st.sampled_from(OPTIONS), word).map(list)
    tail = st.lists(st.one_of(word.map(lambda w: [w]), option_pair), max_size=6).map(lambda parts: sum(parts, []))
    head = st.one_of(st.sampled_from(COMMANDS), TEXT)
    return st.builds(lambda h, t: [h, *t], head, tail).filter(lambda a: not any(w.startswith("--db") for w in a))


def plausible_lines(ruleset_id: str) -> st.SearchStrategy[list[str]]:
    """Lines shaped like play at the table, so that sequences also reach states deep in a fight
    (rounds under way, actions pending, branches); holes filled with fuzzed words at times."""
    rs = get_ruleset(ruleset_id)
    word = words_for(ruleset_id)
    name = st.one_of(st.sampled_from(NAMES), word)
    small = st.one_of(st.integers(0, 12).map(str), NUMBERS)
    action = st.one_of(st.sampled_from(sorted(rs.actions) or ["act"]), word)
    budget = st.one_of(st.just([]), st.tuples(st.sampled_from(["--ap", "--percent"]), small).map(list))
    target = st.one_of(st.just([]), st.tuples(st.just("--target"), name).map(list))
    return st.one_of(
        st.tuples(st.just("declare"), name, action).map(list).flatmap(
            lambda line: st.tuples(budget, target).map(lambda extra: line + extra[0] + extra[1])),
        st.sampled_from([["round"], ["next"], ["next"], ["upkeep"], ["undo"], ["redo"], ["switch", "main"]]),
        st.tuples(st.just("resolve"), name, st.just("--outcome"), word, st.just("--hits"), small).map(list),
        st.tuples(st.just("damage"), name, small).map(list),
        st.tuples(st.just("effect"), name, st.sampled_from(["bleeding", "stunned", "dazed"]), st.just("--per-round"),
                  small).map(list),
        st.tuples(st.just("cancel"), name).map(list),
        st.tuples(st.just("branch"), word).map(list),
        st.tuples(st.just("note"), small, word).map(list),
    )


# --- the properties ------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset_id", RULESETS)
@FUZZ
@given(data=st.data())
def test_any_command_line_is_done_or_refused_in_one_line(
    cli: Cli, fresh: Any, ruleset_id: str, data: st.DataObject
) -> None:
    cli.db = fresh(ruleset_id)
    args = data.draw(command_lines(ruleset_id), label="args")
    check_line(cli, args)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset_id", RULESETS)
@settings(FUZZ, max_examples=25)
@given(data=st.data())
def test_sequences_of_commands_never_damage_the_log(
    cli: Cli, fresh: Any, ruleset_id: str, data: st.DataObject
) -> None:
    cli.db = fresh(ruleset_id)
    line = st.one_of(command_lines(ruleset_id), plausible_lines(ruleset_id), plausible_lines(ruleset_id))
    lines = data.draw(st.lists(line, min_size=1, max_size=16), label="lines")
    done = sum(check_line(cli, args) for args in lines)
    event(f"lines accepted: {'none' if not done else 'some' if done < len(lines) else 'all'}")
    # Whatever was accepted along the way, the log is whole and folds.
    cli.ok("verify")
    cli.ok("state", "--json")
