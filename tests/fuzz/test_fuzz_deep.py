"""Fuzz that gets deep into fights: lines built from what the current state makes plausible.

tests/fuzz/test_fuzz.py draws words, and most of its lines never get past the parser, so its
fights rarely reach a round's end. Here each line is built from the commands the
ruleset's support module proposes for the state the file is in now (tests/support/*.py,
the same proposers the shared invariants use), written out as a GM would type them, with
undo, redo, branch and switch among them and, now and then, a word of the line spoiled.
Every line runs through the command line's own entry, in process, and after each one:

- exit 0 never comes with an `Error:` line, and prints no traceback or internal error;
- a non-zero exit always comes with exactly one `Error:` line and leaves every table as it was;
- an accepted table command is stored as the command proposed: the line typed parses back
  to the very command the support module meant (no flag lost on the way).

At the end the log verifies and `state --json` reads. Hypothesis' statistics
(`--hypothesis-show-statistics`) show how many events the examples reach.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_fuzz import snapshot

from skirmish.eventlog import commands as c
from skirmish.eventlog.commands import Command, command_decoder
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.ruleset import get_ruleset, registry

from support.cli import Cli
from support.examples import examples
from support.rulesets import support_for

pytestmark = pytest.mark.slow  # long fights played deep: `pytest -m "not slow"` leaves it out

RULESETS = sorted(registry())
DEEP = settings(max_examples=examples(8), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def typed(cmd: Command) -> list[str]:
    """The command line a GM types for a command (the inverse of the command line's parser)."""
    def opt(flag: str, value: Any) -> list[str]:
        return [] if value is None else [flag, str(value)]

    match cmd:
        case c.AddCombatant(name=name, side=side, stats=stats, count=count):
            words = ["add", name, "--side", side, *(w for k, v in stats.items() for w in ("--stat", f"{k}={v}"))]
            words += opt("--count", count if count != 1 else None)
        case c.StartRound():
            words = ["round"]
        case c.Next():
            words = ["next"]
        case c.Upkeep():
            words = ["upkeep"]
        case c.Declare():
            words = ["declare", cmd.who, cmd.action, *opt("--target", cmd.target),
                     *opt("--trigger", cmd.trigger), *opt("--amount", cmd.amount)]
        case c.Resolve():
            words = ["resolve", cmd.who, *opt("--outcome", cmd.outcome), *opt("--hits", cmd.hits)]
        case c.Cancel():
            words = ["cancel", cmd.who]
        case c.Damage() | c.Heal():
            words = ["damage" if isinstance(cmd, c.Damage) else "heal", cmd.who, str(cmd.amount)]
        case c.ApplyEffect():
            words = ["effect", cmd.who, cmd.kind, *opt("--per-round", cmd.per_round), *opt("--rounds", cmd.rounds),
                     *(["--end"] if cmd.end else []), *(["--custom"] if cmd.custom else [])]
        case c.Leave():
            words = ["leave", cmd.who, "--reason", cmd.reason]
        case c.Return():
            words = ["return", cmd.who]
        case c.AddNote(on=str(on)):
            words = ["note", "--on", on, cmd.text, *(["--private"] if cmd.private else [])]
        case c.AddNote():
            words = ["note", str(cmd.event), cmd.text]
        case c.RollDice():
            faces = cmd.rolls.get("dice")
            return ["roll", cmd.dice, *opt("--for", cmd.who), *opt("--why", cmd.why or None),
                    *opt("--roll", ",".join(map(str, faces)) if faces else None)]
        case c.Rename():
            words = ["rename", cmd.who, cmd.to]
        case c.SetStats():
            words = ["set", cmd.who, *(f"{k}={v}" for k, v in cmd.stats.items())]
        case c.EndEncounter():
            words = ["end", *opt("--reason", cmd.reason or None)]
        case _:
            raise AssertionError(f"no command line for {cmd!r}: add it to typed()")
    if isinstance(cmd, c.AtTheTable):
        words += [w for k, faces in cmd.rolls.items() for w in ("--roll", f"{k}={','.join(map(str, faces))}")]
        words += [w for k, v in cmd.details.items() for w in ("--with", f"{k}={v}")]
    return words


SPOILERS = st.one_of(
    st.just(("drop", None)),
    st.tuples(st.just("number"), st.sampled_from(["-1", "0", "99999999999999999999", "x", ""])),
    st.tuples(st.just("stray"), st.sampled_from([["--ap", "-3"], ["--percent", "500"], ["--with", "nonsense=1"],
                                                 ["--roll", "Nobody=1"], ["--target"], ["extra"]])),
)


def spoil(words: list[str], how: tuple[str, Any], at: int) -> list[str]:
    kind, what = how
    if kind == "drop" and len(words) > 1:
        return words[:1 + at % (len(words) - 1)] + words[2 + at % (len(words) - 1):]
    if kind == "number":
        numbers = [i for i, w in enumerate(words) if w.lstrip("-").isdigit()]
        if numbers:
            i = numbers[at % len(numbers)]
            return [*words[:i], what, *words[i + 1:]]
    return words + list(what or [])


class Table:
    """One example's file, the command line run on it, and a view of it to propose from."""

    def __init__(self, cli: Cli, db: str, ruleset_id: str, data: st.DataObject) -> None:
        self.cli, self.data = cli, data
        cli.db = db
        rs = get_ruleset(ruleset_id)
        options = [w for key, o in sorted(rs.options.items())
                   for w in ("--option", f"{key}={data.draw(st.sampled_from(o.choices), label=key)}")]
        cli.ok("new", "Deep", "--rules", ruleset_id, "--seed", str(data.draw(st.integers(0, 999), label="seed")),
               *options)
        self.store = Store(db)
        self.enc = Encounter.open(self.store)
        self.propose = support_for(ruleset_id).commands
        self.branches = 1
        self.accepted = self.lines = 0

    def line(self, words: list[str]) -> bool:
        """Run one line; check what it printed and, if refused, that nothing changed."""
        before = snapshot(self.cli.db)
        self.lines += 1
        self.cli(*words)
        out, err = self.cli.out, self.cli.err
        assert "Traceback" not in out + err and "internal error" not in err, (words, err)
        errors = [line for line in err.splitlines() if line.startswith("Error:")]
        if self.cli.code == 0:
            assert not errors, f"{words} exited 0 yet printed {errors}"
            self.accepted += 1
            return True
        assert len(errors) == 1 and err.strip() == errors[0], (words, self.cli.code, err)
        assert snapshot(self.cli.db) == before, f"refused {words} yet the file changed"
        return False

    def last_command(self) -> Command:
        (body,) = self.store.conn.execute("SELECT body FROM commands ORDER BY id DESC LIMIT 1").fetchone()
        return command_decoder.decode(body)

    def step(self) -> None:
        what = self.data.draw(st.sampled_from(["play"] * 10 + ["undo", "redo", "branch", "switch"]), label="what")
        if what == "play":
            cmd = self.data.draw(st.sampled_from(self.propose(self.enc)), label="command")
            words = typed(cmd)
            spoiled = self.data.draw(st.integers(0, 9), label="spoil?") == 9
            if spoiled:
                words = spoil(words, self.data.draw(SPOILERS, label="spoiler"), self.data.draw(st.integers(0, 99)))
            if self.line(words) and not spoiled:
                stored = self.last_command()
                assert msgspec.json.encode(stored) == msgspec.json.encode(cmd), (words, stored, cmd)
        elif what in ("undo", "redo"):
            self.line([what, *self.data.draw(st.sampled_from([[], ["2"]]), label="steps")])
        elif what == "branch":
            at = self.data.draw(st.sampled_from([[], ["--at", str(self.enc.head().event_id)], ["--before", "3"]]))
            if self.line(["branch", f"b{self.branches}", *at]):
                self.branches += 1
        else:
            self.line(["switch", self.data.draw(st.sampled_from(["main", *(f"b{i}" for i in range(1, self.branches))]))])

    def close(self) -> tuple[int, int]:
        """The events recorded and the length of the current branch's history."""
        total = self.store.conn.execute("SELECT count(*) FROM events").fetchone()[0]
        deepest = len(self.enc.path(self.enc.head().event_id))
        self.store.close()
        return total, deepest


def bucket(n: int) -> str:
    return next(f"<{b}" for b in (5, 10, 20, 40, 80, 160, 10**9) if n < b).replace("<1000000000", ">=160")


@pytest.mark.parametrize("ruleset_id", RULESETS)
@DEEP
@given(data=st.data())
def test_lines_built_from_the_state_play_deep_and_print_errors_only_on_failure(
    cli: Cli, ruleset_id: str, data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        table = Table(cli, str(Path(folder) / "deep.db"), ruleset_id, data)
        try:
            for _ in range(data.draw(st.integers(60, 150), label="lines")):
                table.step()
            cli.ok("verify")
            cli.ok("state", "--json")
        finally:
            total, deepest = table.close()
        event(f"events recorded {bucket(total)}")
        event(f"events on the branch {bucket(deepest)}")
        event(f"lines accepted {10 * (10 * table.accepted // max(table.lines, 1))}%+")
