"""The one door (projections/door) where a slip went unnoticed by the parser's and the pages'
tests (mutation testing, docs/contributing.md): how an undo or a redo of N steps is typed, what a note
needs, a ruleset's own flag, a state sent as JSON, the refusal of fields a command has not,
requests being frozen, and what `perform` says of a fight a side has lost, of a redo of
several steps and of a branch asked both --at and --before.

Every expected line is the command line's own wording for that case, worked from the
commands typed (events #1 to #3 set the table up; each command after records one event).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from skirmish.cli.main import run_cli
from skirmish.eventlog import commands as c
from skirmish.projections.door import requests as r
from skirmish.projections.door.perform import Result, perform
from skirmish.projections.door.words import Unparsed, as_typed, parse, ruleset_flags
from skirmish.projections.write.engine import Encounter, LogFile
from skirmish.projections.ruleset import get_ruleset


@pytest.mark.parametrize(("request_", "typed"), [
    (r.Undo(), "undo"), (r.Undo(steps=3), "undo 3"), (r.Redo(), "redo"), (r.Redo(steps=2), "redo 2"),
], ids=["undo-1", "undo-3", "redo-1", "redo-2"])
def test_an_undo_or_redo_is_typed_bare_for_one_step_and_with_its_count_for_more(request_: r.Anything,
                                                                                typed: str) -> None:
    """The log keeps a request as it would have been typed: `redo` is one step, `redo 2` two."""
    assert as_typed(request_) == typed
    assert parse(typed.split()).request == request_


@pytest.mark.parametrize(("name", "said"), [("note", "`note` needs its EVENT (note EVENT [TEXT])"),
                                            ("set", "`set` needs its WHO (set WHO [STAT...])")])
def test_a_command_needs_its_first_argument(name: str, said: str) -> None:
    """A note names the event it is on; a set, whose stats it sets."""
    with pytest.raises(Unparsed) as info:
        parse([name])
    assert str(info.value) == said


def test_a_rulesets_own_flag_is_read_in_its_encounters() -> None:
    """The toy duel's `--feint` (tests/toy/duel.md): no command has such a field, so it is the
    ruleset's own, read only where that ruleset plays, into the command's details as yes."""
    duel = get_ruleset("duel")
    assert list(ruleset_flags(duel, c.Declare)) == ["--feint"]
    request = parse(["declare", "Ann", "strike", "--target", "Bob", "--feint"], ruleset=lambda: duel).request
    assert isinstance(request, c.Declare) and request.details == {"feint": "yes"}


def test_a_state_sent_as_json_without_wide_is_the_narrow_board_as_typed() -> None:
    sent = r.from_json(b'{"type": "state"}')
    assert sent == parse(["state"]).request
    assert isinstance(sent, r.State) and sent.wide is False


def test_fields_a_command_has_not_are_named_five_at_most() -> None:
    body = {"type": "damage", "who": "Orc", "amount": 1, **{f"f{n}": 1 for n in range(1, 7)}}
    with pytest.raises(Exception) as info:
        r.from_json(json.dumps(body).encode())
    assert str(info.value) == "`damage` has no field 'f1', 'f2', 'f3', 'f4', 'f5'"


def test_every_request_is_frozen() -> None:
    """A request is a value (STYLE 6): one held by a page or a tap's record cannot change under it."""
    thawed = [kind.__name__ for kind in r.TAGS.values() if not kind.__struct_config__.frozen]
    assert thawed == []


# --- perform ---------------------------------------------------------------------------------


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[LogFile, Encounter]]:
    """Bridge (ap-countdown): #1 the encounter, #2 the Orc (30 hits, a foe), #3 Hauser (40
    hits, a player), the only one on each side."""
    db = str(tmp_path / "bridge.db")
    for line in (["new", "Bridge", "--rules", "ap-countdown"],
                 ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30"],
                 ["add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40"]):
        assert run_cli(["--db", db, *line]) == 0
    with LogFile(db) as log_file:
        yield log_file, log_file.open("Bridge", "main")


def done(table: tuple[LogFile, Encounter], request: r.Anything, text: str) -> Result:
    result = perform(*table, request, text)
    assert result.ok, result
    return result


NOBODY = "Nobody on the foes side is standing (the encounter goes on until you end it: `skirmish end`)"


def test_a_blow_that_leaves_a_side_with_nobody_standing_says_so(table: tuple[LogFile, Encounter]) -> None:
    # 30 - 12 = 18 hits: the Orc stands; 18 more: 0, down (ap-countdown goes down at 0): no foe stands.
    assert NOBODY not in done(table, c.Damage(who="Orc", amount=12), "damage Orc 12").lines
    lines = done(table, c.Damage(who="Orc", amount=18), "damage Orc 18").lines
    assert lines[-1] == NOBODY and lines[0].startswith("#5 Orc takes 18 hits (0 left)")


def test_a_redo_of_two_steps_says_the_branch_is_at_the_later(table: tuple[LogFile, Encounter]) -> None:
    done(table, c.Damage(who="Orc", amount=1), "damage Orc 1")  # #4
    done(table, c.Damage(who="Orc", amount=2), "damage Orc 2")  # #5
    undone = done(table, r.Undo(steps=2), "undo 2").lines
    assert undone[-1].endswith("branch 'main' is back at #3")
    redone = done(table, r.Redo(steps=2), "redo 2").lines
    assert redone[-1].endswith("branch 'main' is at #5")


def test_a_branch_takes_at_or_before_not_both(table: tuple[LogFile, Encounter]) -> None:
    done(table, c.Damage(who="Orc", amount=1), "damage Orc 1")  # #4
    both = perform(*table, r.Branch(name="what-if", at=3, before=4), "branch what-if --at 3 --before 4")
    assert (both.kind, both.error) == ("refused", "branch takes --at EVENT or --before EVENT, not both")
    assert done(table, r.Branch(name="what-if", before=4), "branch what-if --before 4").kind == "moved"
    assert done(table, r.Branch(name="or-else", at=3), "branch or-else --at 3").kind == "moved"
