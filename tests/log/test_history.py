"""Which branches hold an event, worked out from the id runs, and what `state --at` names."""

from __future__ import annotations

import pytest

from skirmish.eventlog.commands import AddCombatant, Damage, StartRound
from skirmish.eventlog.errors import BadInput, UnknownEvent
from skirmish.eventlog.store import Store
from skirmish.projections.text.board import render_state

from support.cli import start

STATS = {"agility": "40", "dodge": "10", "health": "20"}


def test_an_event_is_on_the_branches_whose_path_passes_through_it(memory_store: Store) -> None:
    enc = start(memory_store, "modular")
    (a,) = [r.id for r in enc.execute(AddCombatant(name="Ann", stats=STATS), "add Ann")]
    (b,) = [r.id for r in enc.execute(AddCombatant(name="Bob", stats=STATS), "add Bob")]
    enc.fork("what-if", a, "branch what-if --at a")
    enc.switch("what-if", "switch what-if")
    (c,) = [r.id for r in enc.execute(AddCombatant(name="Cid", stats=STATS), "add Cid")]
    enc.switch("main", "switch main")
    (d,) = [r.id for r in enc.execute(Damage(who="Bob", amount=3), "damage Bob 3")]
    enc.undo(1, "undo")
    rid = enc.row.id
    # main: root, a, b (d undone); what-if: root, a, c.
    assert memory_store.branches_holding(rid, a) == ["main", "what-if"]
    assert memory_store.branches_holding(rid, b) == ["main"]
    assert memory_store.branches_holding(rid, c) == ["what-if"]
    assert memory_store.branches_holding(rid, d) == []
    assert [memory_store.holds(c, e) for e in (a, b, c, d)] == [True, False, True, False]


def test_the_state_at_an_event_of_another_branch_names_that_branch(memory_store: Store) -> None:
    enc = start(memory_store, "modular")
    (a,) = [r.id for r in enc.execute(AddCombatant(name="Ann", stats=STATS), "add Ann")]
    enc.fork("what-if", a, "branch what-if --at a")
    enc.switch("what-if", "switch what-if")
    (c,) = [r.id for r in enc.execute(AddCombatant(name="Cid", stats=STATS), "add Cid")]
    enc.switch("main", "switch main")
    enc.execute(StartRound(rolls={"Ann": (50,)}), "round")
    shown = enc.view(c)
    assert (shown.branch, shown.head, shown.at) == ("what-if", c, c)
    assert render_state(shown).splitlines()[0].endswith(", branch what-if, at #" + str(c))
    assert enc.view(a).branch == "main", "an event both hold is shown on the current branch"
    enc.switch("what-if", "switch what-if")
    enc.undo(1, "undo")
    undone = enc.view(c)
    assert undone.branch == "" and "on no branch (undone)" in render_state(undone)


def test_a_branch_before_an_event_starts_where_its_command_was_decided(memory_store: Store) -> None:
    enc = start(memory_store, "modular")
    (a,) = [r.id for r in enc.execute(AddCombatant(name="Ann", stats=STATS), "add Ann")]
    added = [r.id for r in enc.execute(AddCombatant(name="Goblin", stats=STATS, count=3), "add Goblin --count 3")]
    assert len(added) == 3
    # Before the command that recorded the third goblin: where it was decided, after Ann.
    head = enc.fork_before("again", added[-1], "branch again --before")
    assert (head.branch, head.event_id) == ("again", a)
    assert enc.branches_holding(added[0]) == ["main"]
    with pytest.raises(BadInput, match="is where the encounter begins"):
        enc.fork_before("x", enc.path(a)[0].id, "branch x --before 1")
    with pytest.raises(UnknownEvent):
        enc.fork_before("x", added[-1] + 100, "branch x --before")
    assert list(enc.branches()) == ["main", "again"]
