"""The shared invariants of every registered ruleset: replay, undo/redo, branches, bad input.

Each test is parametrized over ``sorted(registry())``: a ruleset installed later (built-in
or third-party, by entry point) is covered as soon as tests/support/rulesets.py knows
how to propose commands for it (tests/support/invariants.py drives each example). Hypothesis plays random sequences of those commands on
an encounter in a fresh in-memory store per example.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skirmish.eventlog.errors import SkirmishError
from skirmish.eventlog.events import EncounterStarted

from support.invariants import INVARIANTS, MAX_STEPS, RULESETS, Run, fresh

# --- the invariants ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("ruleset_id", RULESETS)
@INVARIANTS
@given(data=st.data())
def test_the_stored_log_folds_to_the_live_state(ruleset_id: str, data: st.DataObject) -> None:
    run = Run(data, ruleset_id)
    try:
        evolve = run.ruleset.evolve
        first = run.enc.path(run.enc.head().event_id)[0].event
        assert isinstance(first, EncounterStarted)
        live: Any = run.ruleset.initial(first)
        for _ in range(data.draw(st.integers(MAX_STEPS // 4, MAX_STEPS), label="steps")):
            recorded = run.step()
            if recorded is None:
                continue
            for rec in recorded:
                live = evolve(live, rec.event)
            reread = fresh(run.store, run.enc)
            head = reread.head().event_id
            assert reread.state_at(head) == live
            # The events read back are the events decided, field for field.
            stored = reread.path(head)[-len(recorded):]
            assert [(r.id, r.parent, r.event) for r in stored] == [(r.id, r.parent, r.event) for r in recorded]
    finally:
        run.close()


@pytest.mark.parametrize("ruleset_id", RULESETS)
@INVARIANTS
@given(data=st.data())
def test_undo_then_redo_changes_nothing(ruleset_id: str, data: st.DataObject) -> None:
    run = Run(data, ruleset_id)
    try:
        enc, store = run.enc, run.store
        for _ in range(data.draw(st.integers(1, 4), label="rounds of play")):
            run.wander(max_steps=10)
            view, head = enc.view(), enc.head()
            stack = store.redo_stack(enc.row.id, head.branch)
            steps = data.draw(st.integers(1, 3), label="undo steps")
            before = run.counts()
            try:
                targets = enc.undo(steps, "test undo")
            except SkirmishError:
                assert enc.path(head.event_id)[-1].parent is None  # only at the root
                assert run.counts() == before
                continue
            assert 1 <= len(targets) <= steps
            assert enc.head().event_id == targets[-1]
            assert enc.view().at == targets[-1]
            enc.redo(len(targets), "test redo")
            assert enc.view() == view
            assert enc.head().event_id == head.event_id
            assert enc.head().seq == head.seq + 2 * len(targets)
            assert store.redo_stack(enc.row.id, head.branch) == stack
    finally:
        run.close()


@pytest.mark.slow
@pytest.mark.parametrize("ruleset_id", RULESETS)
@INVARIANTS
@given(data=st.data())
def test_a_branch_never_changes_another_branchs_state(ruleset_id: str, data: st.DataObject) -> None:
    run = Run(data, ruleset_id)
    try:
        enc, store = run.enc, run.store
        run.wander(moves=False)
        original = enc.branch
        view, head = enc.view(), enc.head()
        state = enc.state_at(head.event_id)
        ids = [row.id for row in store.all_events(enc.row.id)]
        at = data.draw(st.sampled_from(ids), label="fork at")
        enc.fork("what-if", at, "test branch")
        assert enc.branch == original and enc.view() == view  # forking does not switch
        enc.switch("what-if", "test switch")
        assert enc.head().event_id == at
        assert enc.state_at(at) == enc.state_at(enc.head().event_id)

        def original_unchanged() -> None:
            assert store.head(enc.row.id, original).event_id == head.event_id
            assert enc.state_at(store.head(enc.row.id, original).event_id) == state

        for _ in range(data.draw(st.integers(MAX_STEPS // 4, MAX_STEPS), label="steps on the fork")):
            if data.draw(st.integers(0, 9), label="undo/redo?") < 2:
                verb = data.draw(st.sampled_from(["undo", "redo"]), label="move")
                try:
                    getattr(enc, verb)(1, f"test {verb}")
                except SkirmishError:
                    pass
            else:
                run.step()
            assert enc.branch == "what-if"
            original_unchanged()
        enc.switch(original, "test switch back")
        assert enc.view() == view
    finally:
        run.close()


@pytest.mark.parametrize("ruleset_id", RULESETS)
@INVARIANTS
@given(data=st.data())
def test_a_failing_command_appends_nothing(ruleset_id: str, data: st.DataObject) -> None:
    run = Run(data, ruleset_id)
    try:
        enc, store = run.enc, run.store
        for _ in range(data.draw(st.integers(MAX_STEPS // 4, MAX_STEPS), label="steps")):
            what = data.draw(st.sampled_from(["play", "play", "move", "invalid", "bad move"]), label="what")
            if what == "play":
                run.step()
            elif what == "move":
                run.move()
            elif what == "invalid":
                run.must_fail(run.draw_command(run.support.invalid(enc)))
            else:
                before = run.counts()
                last = max(before.branches[b].event_id for b in before.branches) + 1000
                bad = data.draw(st.sampled_from([
                    lambda: enc.undo(0, "undo 0"),
                    lambda: enc.redo(0, "redo 0"),
                    lambda: enc.fork(enc.branch, None, "branch taken"),
                    lambda: enc.fork("-x", None, "branch -x"),
                    lambda: enc.fork("42", None, "branch 42"),
                    lambda: enc.fork("later", last, "branch at a missing event"),
                    lambda: enc.switch(enc.branch, "switch to itself"),
                    lambda: enc.switch("no-such-branch", "switch nowhere"),
                ]), label="bad move")
                with pytest.raises(SkirmishError):
                    bad()
                assert run.counts() == before
            if not store.redo_stack(enc.row.id, enc.branch):
                before = run.counts()
                with pytest.raises(SkirmishError, match="nothing to redo"):
                    enc.redo(1, "redo")
                assert run.counts() == before
        store.verify(enc.row.id)
    finally:
        run.close()


@pytest.mark.parametrize("ruleset_id", RULESETS)
@INVARIANTS
@given(data=st.data())
def test_replay_yields_the_state_at_the_head(ruleset_id: str, data: st.DataObject) -> None:
    run = Run(data, ruleset_id)
    try:
        enc, store = run.enc, run.store
        run.wander()
        head = enc.head().event_id
        path = enc.path(head)
        # The replay's state is one working copy changed in place: copy it as it passes.
        steps = [(rec.id, enc.ruleset.copy(state)) for rec, state in enc.replay()]
        assert [i for i, _ in steps] == [rec.id for rec in path]
        for event_id, state in [*steps[:3], *steps[-3:]]:
            assert state == enc.state_at(event_id)
        assert steps[-1][1] == fresh(store, enc).state_at(head)
        # Replaying to an earlier event of the path stops at that event's state.
        to = data.draw(st.sampled_from([rec.id for rec in path]), label="replay to")
        partial = [(rec.id, enc.ruleset.copy(state)) for rec, state in enc.replay(to)]
        assert partial[-1] == (to, enc.state_at(to))
        store.verify(enc.row.id)
    finally:
        run.close()
