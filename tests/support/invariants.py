"""The shared invariant suite's driver: an encounter under a ruleset with random options and
seed, played by hypothesis from the ruleset's command generators (support/rulesets.py),
each command checked to record all or nothing (tests/rulesets/test_invariants.py)."""

from __future__ import annotations

from typing import NamedTuple

import msgspec
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from skirmish.eventlog.commands import Command, command_encoder
from skirmish.eventlog.errors import SkirmishError
from skirmish.eventlog.store import Head, Store
from skirmish.projections.write.engine import Encounter, Recorded
from skirmish.projections.ruleset import Dice, get_ruleset, registry

from support.cli import start
from support.examples import examples
from support.rulesets import support_for

RULESETS = sorted(registry())

# Each example opens its own in-memory store inside the test body; the only function-scoped
# fixture in play is conftest's autouse `isolated` (environment and cwd), which is the
# same for every example and safe to share.
INVARIANTS = settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
MAX_STEPS = 60


class Counts(NamedTuple):
    events: int
    commands: int
    moves: int
    branches: dict[str, Head]
    current: str


def counts(store: Store, encounter_id: int) -> Counts:
    def rows(table: str) -> int:
        sql = f"SELECT count(*) FROM {table} WHERE encounter_id = ?"
        return int(store.conn.execute(sql, (encounter_id,)).fetchone()[0])

    return Counts(
        rows("events"), rows("commands"), rows("head_moves"), store.branches(encounter_id),
        store.current_branch(encounter_id),
    )


class Run:
    """One example: an encounter under the ruleset, with random options and dice seed."""

    def __init__(self, data: st.DataObject, ruleset_id: str) -> None:
        self.data = data
        self.ruleset = get_ruleset(ruleset_id)
        self.support = support_for(ruleset_id)
        options = {
            key: data.draw(st.sampled_from(option.choices), label=f"option {key}")
            for key, option in sorted(self.ruleset.options.items())
        }
        seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
        self.store = Store(":memory:")
        self.enc = start(self.store, ruleset_id, seed=seed, **options)
        self.failures = 0

    def close(self) -> None:
        self.store.close()

    def counts(self) -> Counts:
        return counts(self.store, self.enc.row.id)

    # --- commands -------------------------------------------------------------------------

    def draw_command(self, candidates: list[Command]) -> Command:
        # Uniform over the candidates: the support weights them by repeating some.
        return self.data.draw(st.sampled_from(candidates), label="command")

    def execute(self, cmd: Command) -> list[Recorded] | None:
        """Run one command; None if it was refused, having checked it appended nothing."""
        before = self.counts()
        view = self.enc.view()
        self.decide_leaves_the_state_alone(cmd)
        text = f"test {command_encoder.encode(cmd).decode()}"
        try:
            recorded = self.enc.execute(cmd, text)
        except SkirmishError:
            self.failures += 1
            assert self.counts() == before, f"refused {cmd!r} yet the store changed"
            assert self.enc.view() == view
            return None
        after = self.counts()
        # One command, its events and one head move, in one transaction, on the current branch.
        assert recorded
        assert after.events == before.events + len(recorded)
        assert (after.commands, after.moves) == (before.commands + 1, before.moves + 1)
        assert after.current == before.current
        assert after.branches[after.current].event_id == recorded[-1].id
        return recorded

    def decide_leaves_the_state_alone(self, cmd: Command) -> None:
        """The fold works on states in place: a decision that changed the state it was given
        would corrupt the working copy of every later command."""
        state = self.enc.fold_to(self.enc.head().event_id)[0]
        was = msgspec.msgpack.encode(state)
        try:
            self.ruleset.decide(state, cmd, Dice(0, "probe", getattr(cmd, "rolls", None)))
        except SkirmishError:
            pass
        assert msgspec.msgpack.encode(state) == was, f"deciding {cmd!r} changed the state it was given"

    def step(self) -> list[Recorded] | None:
        return self.execute(self.draw_command(self.support.commands(self.enc)))

    def must_fail(self, cmd: Command) -> None:
        before = self.counts()
        view = self.enc.view()
        with pytest.raises(SkirmishError):
            self.enc.execute(cmd, "test must fail")
        assert self.counts() == before, f"refused {cmd!r} yet the store changed"
        assert self.enc.view() == view

    # --- head moves -----------------------------------------------------------------------

    def move(self) -> None:
        """One random undo, redo, fork or switch; a refused one must record nothing."""
        enc = self.enc
        verb = self.data.draw(st.sampled_from(["undo", "redo", "fork", "switch"]), label="move")
        before = self.counts()
        try:
            if verb == "undo":
                enc.undo(self.data.draw(st.integers(1, 3), label="steps"), "test undo")
            elif verb == "redo":
                enc.redo(self.data.draw(st.integers(1, 3), label="steps"), "test redo")
            elif verb == "fork":
                ids = [row.id for row in self.store.all_events(enc.row.id)]
                at = self.data.draw(st.sampled_from(ids), label="fork at")
                name = f"what-if-{len(before.branches)}"
                enc.fork(name, at, "test branch")
                enc.switch(name, "test switch")
            else:
                enc.switch(self.data.draw(st.sampled_from(sorted(before.branches)), label="to"), "test switch")
        except SkirmishError:
            self.failures += 1
            assert self.counts() == before, f"refused {verb} yet the store changed"

    def wander(self, max_steps: int = MAX_STEPS, moves: bool = True) -> None:
        """Commands, with undo, redo, fork and switch among them when ``moves``."""
        for _ in range(self.data.draw(st.integers(max_steps // 4, max_steps), label="steps")):
            if moves and self.data.draw(st.integers(0, 9), label="move?") < 2:
                self.move()
            else:
                self.step()


def fresh(store: Store, enc: Encounter) -> Encounter:
    """The same encounter read back from the store by a new Encounter (no shared state)."""
    return Encounter.open(store, enc.row.name)
