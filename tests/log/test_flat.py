"""What keeps a command at the table flat on a long log: `log` pages, the branches holding an
event worked out from the runs of ids, notes, `why`'s latest changes, `diff`'s counts.

The trees here are small and built by hand, so every expected id and branch is worked
out from what was appended; the speed itself is measured in benchmarks/growth.py.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from skirmish.cli.main import LOG_PAGE
from skirmish.eventlog.commands import (
    AddCombatant,
    AddNote,
    ApplyEffect,
    Damage,
    Next,
    StartRound,
    Upkeep,
)
from skirmish.eventlog.errors import BadInput, SkirmishError
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import SNAPSHOT_EVERY, Encounter
from skirmish.projections.ruleset import check_numbers

from support.cli import Cli, start

STATS = {"agility": "40", "dodge": "10", "health": "20"}


def one(recorded: list) -> int:  # type: ignore[type-arg]
    (rec,) = recorded
    return int(rec.id)


def tree(enc: Encounter) -> dict[str, int]:
    """main: root, a, b (d undone); what-if, forked at a: c undone, then e; late, forked at b."""
    ids = {"a": one(enc.execute(AddCombatant(name="Ann", stats=STATS), "add Ann")),
           "b": one(enc.execute(AddCombatant(name="Bob", stats=STATS), "add Bob")),
           "d": one(enc.execute(Damage(who="Bob", amount=3), "damage Bob 3"))}
    enc.undo(1, "undo")
    enc.fork("what-if", ids["a"], "branch what-if --at a")
    enc.switch("what-if", "switch what-if")
    ids["c"] = one(enc.execute(AddCombatant(name="Cid", stats=STATS), "add Cid"))
    enc.undo(1, "undo")
    ids["e"] = one(enc.execute(AddCombatant(name="Dan", stats=STATS), "add Dan"))
    enc.fork("late", ids["b"], "branch late --at b")
    enc.switch("main", "switch main")
    return ids


HELD = {"a": ["main", "what-if", "late"], "b": ["main", "late"], "d": [], "c": [], "e": ["what-if"]}


def naive_holders(store: Store, enc: Encounter) -> dict[int, list[str]]:
    """Every event's branches, walked parent by parent from every head: what the runs replace."""
    parents = {r.id: r.parent_id for r in store.all_events(enc.row.id)}
    on: dict[int, list[str]] = {i: [] for i in parents}
    for name, head in store.branches(enc.row.id).items():
        node: int | None = head.event_id
        while node is not None:
            on[node].append(name)
            node = parents[node]
    return on


def test_the_branches_holding_an_event_after_undos_and_forks(memory_store: Store) -> None:
    enc = start(memory_store, "modular")
    ids = tree(enc)
    shape = memory_store.shape(enc.row.id)
    assert list(shape.heads) == ["main", "what-if", "late"], "in the order they were made"
    assert list(memory_store.branches(enc.row.id)) == ["main", "what-if", "late"]
    for label, expected in HELD.items():
        event = ids[label]
        assert shape.holding(event) == expected, label
        assert shape.holders(event) == expected, label
        assert shape.held(event) == bool(expected), label
        assert memory_store.branches_holding(enc.row.id, event) == sorted(expected), label
    assert enc.reachable() == naive_holders(memory_store, enc)


@pytest.mark.slow
def test_the_runs_agree_with_the_parents_on_a_generated_tree(memory_store: Store) -> None:
    from benchmarks.fight import Generator

    gen = Generator(memory_store, seed=3)
    gen.UNDO_EVERY, gen.FORK_EVERY, gen.BRANCH_LENGTH = 8, 40, 15  # many undos and forks in a small log
    enc = gen.run(1_500)
    assert len(memory_store.branches(enc.row.id)) > 3
    naive = naive_holders(memory_store, enc)
    shape = memory_store.shape(enc.row.id)
    assert {i: shape.holding(i) for i in naive} == naive
    assert {i: shape.holders(i) for i in naive} == naive
    assert {i: shape.held(i) for i in naive} == {i: bool(on) for i, on in naive.items()}


def built(db: str) -> dict[str, int]:
    store = Store(db)
    try:
        return tree(start(store, "modular"))
    finally:
        store.close()


def test_explain_log_and_the_timeline_view_name_the_branches(cli: Cli, db: str) -> None:
    ids = built(db)
    explained = json.loads(cli.ok("explain", str(ids["a"]), "--json"))
    assert explained["on"] == ["late", "main", "what-if"]
    e = cli.ok("explain", str(ids["e"]))
    assert "(recorded on what-if, " in e and "; on what-if)" in e
    assert "undone: on no branch)" in cli.ok("explain", str(ids["c"]))
    marks = {line["id"]: line["branches"] for line in map(json.loads, cli.ok("log", "--all", "--json").splitlines())}
    assert {label: marks[event] for label, event in ids.items()} == HELD
    with sqlite3.connect(db) as conn:
        held = dict(conn.execute("SELECT id, branches FROM timeline"))
        heads = conn.execute("SELECT branch, head FROM branches").fetchall()
    for label, expected in HELD.items():
        shown = held[ids[label]]
        assert sorted(shown.split(", ") if shown else []) == sorted(expected), label
    assert sorted(heads) == sorted([("main", ids["b"]), ("what-if", ids["e"]), ("late", ids["b"])])


def test_diff_counts_what_only_each_side_holds_without_listing_it(cli: Cli, db: str) -> None:
    ids = built(db)
    data = json.loads(cli.ok("diff", "main", "what-if", "--json"))
    assert data["split"]["id"] == ids["a"]
    assert [e["id"] for e in data["only_a"]] == [ids["b"]]
    assert [e["id"] for e in data["only_b"]] == [ids["e"]]
    assert data["after_split"] == {"a": {"count": 1, "first": ids["b"], "last": ids["b"]},
                                   "b": {"count": 1, "first": ids["e"], "last": ids["e"]}}
    text = cli.ok("diff", "main", "what-if")
    assert f"split after #{ids['a']} " in text
    assert f"  1 event(s) only on main: #{ids['b']} .. #{ids['b']}\n" in text
    assert f"  1 event(s) only on what-if: #{ids['e']} .. #{ids['e']}\n" in text
    assert "  0 event(s) only on late\n" in cli.ok("diff", "main", "late")


@pytest.fixture
def long_branch(cli: Cli, db: str) -> list[int]:
    """A fight of more than a page on main, its last damage undone: the branch's event ids."""
    cli.ok("new", "Long", "--rules", "ap-countdown", "--seed", "1")
    cli.ok("add", "Hauser", "--stat", "qu=2", "--stat", "hits=60")
    for _ in range(LOG_PAGE + 10):
        cli.ok("damage", "Hauser", "1")
    cli.ok("undo")
    path = [json.loads(line)["id"] for line in cli.ok("log", "--limit", "0", "--json").splitlines()]
    everything = [json.loads(line)["id"] for line in cli.ok("log", "--all", "--json").splitlines()]
    assert everything == [*path, path[-1] + 1], "all but the undone damage"
    return path


def ids_of(text: str) -> list[int]:
    return [json.loads(line)["id"] for line in text.splitlines()]


def test_log_shows_the_last_page_by_default(cli: Cli, long_branch: list[int]) -> None:
    assert len(long_branch) == 2 + LOG_PAGE + 9
    assert ids_of(cli.ok("log", "--json")) == long_branch[-LOG_PAGE:]
    text = cli.ok("log").splitlines()
    assert text[0] == f"({len(long_branch) - LOG_PAGE:,} earlier event(s) of branch 'main': --limit N, --from EVENT, or --limit 0 for all)"
    assert [int(line.split()[0][1:]) for line in text[1:]] == long_branch[-LOG_PAGE:]


def test_log_pages_with_limit_and_from(cli: Cli, long_branch: list[int]) -> None:
    assert ids_of(cli.ok("log", "--limit", "5", "--json")) == long_branch[-5:]
    third = long_branch[2]
    assert ids_of(cli.ok("log", "--from", str(third), "--limit", "3", "--json")) == long_branch[2:5]
    assert ids_of(cli.ok("log", "--from", str(third), "--json")) == long_branch[2:2 + LOG_PAGE]
    page = cli.ok("log", "--from", str(third), "--limit", "3").splitlines()
    assert page[0].startswith("(2 earlier event(s)")
    assert page[-1] == f"({len(long_branch) - 5:,} later event(s): --from {long_branch[5]} for the next page)"
    assert ids_of(cli.ok("log", "--from", str(long_branch[-2]), "--json")) == long_branch[-2:]


def test_log_refuses_a_page_it_cannot_show(cli: Cli, long_branch: list[int]) -> None:
    undone = long_branch[-1] + 1
    assert cli.fails("log", "--from", str(undone)) == (
        f"Error: event {undone} is not in the history leading to #{long_branch[-1]}"
    )
    assert cli.fails("log", "--limit", "-1") == "Error: --limit takes 0 (every event) or more, not -1"
    assert cli.fails("log", "--all", "--limit", "3") == (
        "Error: log --all lists the whole tree; --limit and --from page the current branch"
    )


def test_a_note_shows_on_the_page_of_its_event_only_while_a_branch_holds_it(cli: Cli, long_branch: list[int]) -> None:
    about = long_branch[-3]
    cli.ok("note", str(about), "the table agreed")
    assert f"#{about:<5} Hauser takes 1 hits" in cli.ok("log", "--limit", "4")
    assert "         note #" in cli.ok("log", "--limit", "4")
    assert "note #" not in cli.ok("log", "--from", str(long_branch[2]), "--limit", "3")
    cli.ok("undo")
    assert "the table agreed" not in cli.ok("log", "--limit", "4")


def test_an_event_id_past_a_million_is_not_a_figure() -> None:
    check_numbers(AddNote(event=1_000_001, text="x"))
    with pytest.raises(BadInput, match="amount 1000001 is out of range"):
        check_numbers(Damage(who="Orc", amount=1_000_001))


def play_rounds(enc: Encounter, events: int) -> None:
    """Rounds, the clock and the upkeep, until the path holds ``events`` more events."""
    target = enc.path_length(enc.head().event_id) + events
    while enc.path_length(enc.head().event_id) < target:
        for command in (StartRound(), Next(), Upkeep()):
            try:
                enc.execute(command, str(command.__struct_config__.tag))
                break
            except SkirmishError:
                continue


def test_why_finds_the_cause_of_a_tick_far_behind_its_latest_changes(memory_store: Store) -> None:
    enc = start(memory_store)
    enc.execute(AddCombatant(name="Hauser", side="players", stats={"qu": "2", "hits": "900"}), "add Hauser")
    enc.execute(AddCombatant(name="Orc", side="foes", stats={"qu": "1", "hits": "900"}), "add Orc")
    applied = one(enc.execute(ApplyEffect(who="Hauser", kind="bleeding", per_round=1), "effect Hauser bleeding"))
    play_rounds(enc, 6 * SNAPSHOT_EVERY)
    from skirmish.projections.audit.why import ChangeLink, why

    every = why(enc, "Hauser", "hits left", limit=None).figures[0]
    latest = why(enc, "Hauser", "hits left", limit=2).figures[0]
    changes = [link for link in every.chain if isinstance(link, ChangeLink)]
    assert len(changes) > 10 and not every.earlier and latest.earlier
    assert [link.id for link in latest.chain if link.role == "change"] == [c.id for c in changes[-2:]]
    assert [link.id for link in latest.chain if link.role == "cause"] == [applied]
    shown = {link.id for link in latest.chain}
    assert [link for link in every.chain if link.id in shown] == latest.chain
    assert (latest.start, latest.now) == (every.start, every.now) == (900, changes[-1].after)
