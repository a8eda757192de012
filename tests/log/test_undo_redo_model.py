"""Undo, redo, branch and switch against a model of the history kept in the test, not the engine's.

The model is the design's own words (shared/DESIGN.md, "The model"; docs/reference.md, the
commands), written as plain data: each accepted command adds its events as a chain under
the head it was decided on; undo moves a branch's head back over one whole command (to
the parent of the command's first event) and pushes where it was onto that branch's redo
stack; redo pops it; any append clears the stack; a fork is a new branch at an event with
an empty stack; a switch changes the current branch and nothing else. The model never
asks the engine where a head is: after every step the engine's head, branch, redo stack
and path (the store's `path` read, which jumps from run to run of ids) must be the model's,
the events each command recorded must be one command row of the `commands` table, and the
state at the head must be the fold of the model's path, not of the engine's (which starts
from a cached snapshot where there is one: some examples cache every few events). At the end
the command line's `state --json`, `log --json` and `branches --json` say the same.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skirmish.cli.main import run_cli
from skirmish.eventlog.commands import command_encoder
from skirmish.eventlog.errors import NothingToDo, SkirmishError
from skirmish.eventlog.store import Store
from skirmish.projections.write import engine
from skirmish.projections.ruleset import get_ruleset, registry

from support.cli import start
from support.examples import examples
from support.rulesets import support_for

RULESETS = sorted(registry())
MODEL = settings(max_examples=examples(15), deadline=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@dataclass
class Branch:
    head: int
    redo: list[int] = field(default_factory=list)  # where each undo left from, the latest last


@dataclass
class History:
    """The tree and the branches as the design describes them, built from what was accepted."""

    root: int
    parent: dict[int, int | None] = field(default_factory=dict)
    command: dict[int, int] = field(default_factory=dict)  # event -> the accepted command's number
    first: dict[int, int] = field(default_factory=dict)  # command number -> its first event
    events: dict[int, Any] = field(default_factory=dict)  # event -> the event as decided
    branches: dict[str, Branch] = field(default_factory=dict)
    current: str = "main"
    commands: int = 0

    def path(self, event_id: int) -> list[int]:
        out: list[int] = []
        node: int | None = event_id
        while node is not None:
            out.append(node)
            node = self.parent[node]
        return out[::-1]

    @property
    def here(self) -> Branch:
        return self.branches[self.current]

    def appended(self, ids: list[int], events: list[Any]) -> None:
        self.commands += 1
        under = self.here.head
        for event_id, event in zip(ids, events, strict=True):
            self.parent[event_id], self.command[event_id], self.events[event_id] = under, self.commands, event
            under = event_id
        self.first[self.commands] = ids[0]
        self.here.head = ids[-1]
        self.here.redo.clear()

    def undo(self, steps: int) -> list[int]:
        """Where the head stops after each whole command stepped back over."""
        targets: list[int] = []
        for _ in range(steps):
            back = self.parent[self.first[self.command[self.here.head]]]
            if back is None:  # the encounter's first command is not undone
                break
            self.here.redo.append(self.here.head)
            self.here.head = back
            targets.append(back)
        return targets

    def redo(self, steps: int) -> list[int]:
        targets: list[int] = []
        while self.here.redo and len(targets) < steps:
            self.here.head = self.here.redo.pop()
            targets.append(self.here.head)
        return targets


def setup(data: st.DataObject, ruleset_id: str, db: str) -> tuple[Store, Any, History]:
    ruleset = get_ruleset(ruleset_id)
    options = {key: data.draw(st.sampled_from(opt.choices), label=f"option {key}")
               for key, opt in sorted(ruleset.options.items())}
    store = Store(db)
    enc = start(store, ruleset_id, seed=data.draw(st.integers(0, 2**32 - 1), label="seed"), **options)
    root = enc.head().event_id
    history = History(root=root, parent={root: None}, command={root: 0}, first={0: root},
                      events={root: enc.path(root)[0].event}, branches={"main": Branch(root)})
    return store, enc, history


def check(store: Store, enc: Any, history: History) -> None:
    head = history.here.head
    assert enc.branch == history.current
    assert {n: h.event_id for n, h in store.branches(enc.row.id).items()} == {
        n: b.head for n, b in history.branches.items()}
    for name, branch in history.branches.items():
        assert store.redo_stack(enc.row.id, name) == branch.redo, name
    assert [rec.id for rec in enc.path(head)] == history.path(head)
    # The state at the head is the fold of the model's path, whatever path the engine read.
    ruleset = enc.ruleset
    ids = history.path(head)
    state = ruleset.initial(history.events[ids[0]])
    for event_id in ids[1:]:
        state = ruleset.evolve(state, history.events[event_id])
    shown, expected = enc.view(), ruleset.view(state)
    assert (shown.head, shown.at, shown.branch) == (head, head, history.current)
    assert (shown.clock, shown.combatants, shown.pending, shown.own) == (
        expected.clock, expected.combatants, expected.pending, expected.own)


def command_rows(store: Store, ids: list[int]) -> list[tuple[int, str]]:
    marks = ",".join("?" * len(ids))
    return store.conn.execute(
        f"SELECT DISTINCT c.id, c.text FROM events e JOIN commands c ON c.id = e.command_id WHERE e.id IN ({marks})",
        ids,
    ).fetchall()


def cli_json(db: str, *args: str) -> Any:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert run_cli(["--db", db, *args, "--json"]) == 0, args
    text = out.getvalue()
    return json.loads(text) if args[0] != "log" else [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("ruleset_id", RULESETS)
@MODEL
@given(data=st.data())
def test_undo_redo_branch_and_switch_follow_the_model(ruleset_id: str, data: st.DataObject) -> None:
    # Snapshots close together at times, so that folds start from cached states mid-path.
    every = data.draw(st.sampled_from([3, 8, engine.SNAPSHOT_EVERY]), label="snapshot every")
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "SNAPSHOT_EVERY", every)
        db = str(Path(folder) / "model.db")
        store, enc, history = setup(data, ruleset_id, db)
        propose = support_for(ruleset_id).commands
        try:
            for step in range(data.draw(st.integers(20, 60), label="steps")):
                verb = data.draw(st.sampled_from(["play"] * 6 + ["undo", "undo", "redo", "redo", "fork", "switch"]),
                                 label="verb")
                if verb == "play":
                    cmd = data.draw(st.sampled_from(propose(enc)), label="command")
                    text = f"model {step} {command_encoder.encode(cmd).decode()}"
                    try:
                        recorded = enc.execute(cmd, text)
                    except SkirmishError:
                        check(store, enc, history)
                        continue
                    ids = [rec.id for rec in recorded]
                    assert min(ids) > max(history.parent), "an event id reused"
                    history.appended(ids, [rec.event for rec in recorded])
                    # The events of one command are one row of the commands table, with its text.
                    assert [text for _, text in command_rows(store, ids)] == [text]
                    assert [r.parent_id for r in store.path(ids[-1])][-len(ids):] == [
                        history.parent[i] for i in ids]
                elif verb in ("undo", "redo"):
                    steps = data.draw(st.integers(1, 3), label="steps")
                    expected = getattr(history, verb)(steps)
                    if not expected:
                        with pytest.raises(NothingToDo):
                            getattr(enc, verb)(steps, verb)
                    else:
                        assert getattr(enc, verb)(steps, f"{verb} {steps}") == expected
                elif verb == "fork":
                    at = data.draw(st.sampled_from(sorted(history.parent)), label="fork at")
                    name = f"b{len(history.branches)}"
                    enc.fork(name, at, f"branch {name} --at {at}")
                    history.branches[name] = Branch(at)
                else:
                    to = data.draw(st.sampled_from(sorted(history.branches)), label="switch to")
                    if to == history.current:
                        with pytest.raises(NothingToDo):
                            enc.switch(to, f"switch {to}")
                    else:
                        enc.switch(to, f"switch {to}")
                        history.current = to
                check(store, enc, history)
        finally:
            store.close()
        # The command line reads the same file and tells the same story.
        state = cli_json(db, "state")
        assert (state["branch"], state["head"], state["at"]) == (history.current, history.here.head, history.here.head)
        assert [e["id"] for e in cli_json(db, "log")] == history.path(history.here.head)
        assert {b["name"]: b["head"] for b in cli_json(db, "branches")} == {
            n: b.head for n, b in history.branches.items()}
