"""The replay page's data of a tree with branches: where each branch leaves the ones before
it, worked out from the paths' runs of ids, is what listing every id says; the GM's page
holds the commands of the events it steps through."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.page import data as page_data

from support.cli import Cli

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "bridge-ambush.skirmish"


def listed_layout(enc: Encounter) -> tuple[list[tuple[str, int, int | None, str | None]], int]:
    """Each branch (the current one first) with its first event no branch before it holds
    (its index), the last one it shares and the first branch that holds that one; and how
    many events the branches hold: by listing every id of every path."""
    heads = enc.branches()
    order = [enc.branch, *(n for n in heads if n != enc.branch)]
    seen: dict[int, str] = {}
    layout = []
    for i, name in enumerate(order):
        ids = [e for low, high in enc.runs(heads[name].event_id).runs for e in range(low, high + 1)]
        start = next((k for k, e in enumerate(ids) if e not in seen), len(ids))
        split = ids[start - 1] if start and i else None
        layout.append((name, start, split, seen.get(split) if split is not None else None))
        for e in ids[start:]:
            seen[e] = name
    return layout, len(seen)


@pytest.fixture
def tree(cli: Cli) -> Cli:
    """The bridge ambush with branches off the main line, off a branch, one that holds
    nothing of its own, and the main line undone and gone on (notes are events anywhere)."""
    cli.ok("run", str(SAMPLE))
    cli.ok("branch", "early", "--at", "6")
    cli.ok("switch", "early")
    for text in ("a", "b", "c"):
        cli.ok("note", "3", text)
    cli.ok("branch", "off-early")
    cli.ok("switch", "off-early")
    cli.ok("note", "4", "d")
    cli.ok("branch", "empty", "--at", "12")
    cli.ok("switch", "main")
    cli.ok("undo", "2")
    cli.ok("note", "5", "e")
    cli.ok("note", "5", "f")
    return cli


def page_of(cli: Cli, **kwargs: Any) -> tuple[dict[str, Any], Encounter, Store]:
    store = Store(cli.db)
    enc = Encounter.open(store)
    return page_data.build(enc, **kwargs), enc, store


def test_each_branch_leaves_the_ones_before_it_where_listing_every_id_says(tree: Cli) -> None:
    for current in ("main", "off-early", "empty"):
        if current != "main":
            tree.ok("switch", current)
        store = Store(tree.db)
        try:
            enc = Encounter.open(store)
            layout, total = listed_layout(enc)
            assert [(b.name, b.start, b.split, b.source) for b in page_data._branches(enc)] == layout
            assert page_data.event_count(enc) == total
        finally:
            store.close()


def test_the_gms_page_holds_the_commands_of_the_events_it_steps_through(tree: Cli) -> None:
    data, enc, store = page_of(tree)
    try:
        stepped, command = set(), 0
        for entry in data["events"]:
            command += entry.command  # a step from the entry before's
            stepped.add(command)
        assert set(data["commands"]) == {str(c) for c in stepped}
        assert all(data["commands"][str(c)] == store.command(c).text for c in stepped)
        undone = {row.id for row in store.commands(enc.row.id).values()} - stepped
        assert undone  # the two commands undone on the main line
        players, _, other = page_of(tree, audience="players")
        other.close()
        assert "commands" not in players
    finally:
        store.close()


def test_a_page_past_its_limit_steps_through_the_last_events_whatever_branch_holds_them(tree: Cli) -> None:
    """The summarised page starts where the last `most` events of all its branches begin
    (it started at the current branch's event of that rank: with long what-if branches,
    past the end of the current one, so a 1M-event page stepped through one event)."""
    store = Store(tree.db)
    try:
        enc = Encounter.open(store)
        heads = store.branches(enc.row.id).values()
        listed = sorted({e for h in heads for low, high in store.runs(h.event_id) for e in range(low, high + 1)})
        data = page_data.build(enc, most=20)
    finally:
        store.close()
    stepped, at = [], 0
    for entry in data["events"]:
        at += entry.id
        stepped.append(at)
    assert stepped == listed[-20:] and data["summarised"].before == listed[-20]
