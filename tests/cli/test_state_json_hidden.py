"""`state --json` lists who is hidden from the players (`hidden`, names sorted) only when
someone is, as `state` prints "hidden from the players: ..."; a log without a hidden
combatant prints the JSON it always did (tests/project/test_outputs_unchanged.py)."""

from __future__ import annotations

import json

from support.cli import Cli


def test_state_json_lists_the_hidden_only_while_someone_is(cli: Cli) -> None:
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")  # #2 (#1: the encounter)
    assert "hidden" not in json.loads(cli.ok("state", "--json"))
    cli.ok("add", "Lurker", "--side", "foes", "--stat", "qu=0", "--stat", "hits=20", "--hidden")  # #3 hidden, #4 joins
    cli.ok("hide", "Orc")  # #5
    assert json.loads(cli.ok("state", "--json"))["hidden"] == ["Lurker", "Orc"]
    cli.ok("reveal", "Lurker")  # #6
    assert json.loads(cli.ok("state", "--json"))["hidden"] == ["Orc"]
    # At an event before any was hidden, and after both were revealed: no key at all.
    assert "hidden" not in json.loads(cli.ok("state", "--json", "--at", "2"))
    cli.ok("reveal", "Orc")
    assert "hidden" not in json.loads(cli.ok("state", "--json"))
