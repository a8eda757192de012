"""The replay page's wire is written once, as the Structs of projections/page/wire.py: its
JSON Schema (docs/wire-schema.json) is generated from them, the data of a real fight
decodes back into them typed (an entry by its length, a board, a hit), and encoded again
is the same bytes; the page's script reads an entry by the positions they give."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

import msgspec
import pytest

from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.page import data as page_data
from skirmish.projections.page import wire
from skirmish.projections.page.gm_data import Inputs, inputs
from skirmish.projections.page.shell import json_for_script
from skirmish.projections.ruleset import get_ruleset, registry

from support.cli import Cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "bridge-ambush.skirmish"
SCHEMA = ROOT / "docs" / "wire-schema.json"
# A combatant's row: wire.py's Row, and the ruleset's own figures o0, o1, ...
ROW_KEYS = {"n", "s", "st", "a", "vn", "v", "vm", "v2n", "v2", "v2m", "bn", "bl", "bo", "e", "h", "nt"}
HITS = {2: wire.Hit, 3: wire.HitBy, 4: wire.Healing}


@pytest.mark.slow  # runs the generator as a process
def test_the_schema_file_is_the_one_the_structs_give() -> None:
    made = subprocess.run([sys.executable, "-m", "skirmish.projections.page.wire"], capture_output=True, text=True,
                          check=True).stdout
    assert SCHEMA.read_text(encoding="utf-8") == made, (
        "docs/wire-schema.json is generated: python -m skirmish.projections.page.wire > docs/wire-schema.json")


def test_the_page_script_reads_an_entry_by_the_positions_the_structs_give() -> None:
    text = (ROOT / "projections" / "page" / "fold.mjs").read_text(encoding="utf-8")

    def positions(name: str) -> list[str]:
        found = re.search(rf"export const {name} = Object\.freeze\(\{{([^}}]*)\}}\)", text)
        assert found is not None, name
        pairs = [p.split(":") for p in found.group(1).split(",")]
        assert [int(n) for _, n in pairs] == list(range(len(pairs)))
        return [k.strip() for k, _ in pairs]

    assert positions("ENTRY") == list(wire.Harming.__struct_fields__)
    # Hit, then HitBy's or Healing's third (attacker or healer: the page names it "by"), Healing's fourth.
    assert positions("HIT") == [*wire.Hit.__struct_fields__, "by", "healed"]
    assert wire.HitBy.__struct_fields__[2] == "attacker" and wire.Healing.__struct_fields__[2:] == ("by", "healed")


def typed_entry(raw: msgspec.Raw) -> tuple[wire.Entry, wire.Board, list[Any] | Literal[0]]:
    """An entry decoded typed: an Entry (6 fields) or a Harming (7, its hit by its length)."""
    parts = msgspec.json.decode(raw, type=list[msgspec.Raw])
    assert len(parts) in (6, 7), bytes(raw)
    entry = msgspec.json.decode(msgspec.json.encode(parts[:6]), type=wire.Entry)
    if len(parts) == 7:
        hit = msgspec.json.decode(parts[6], type=list[msgspec.Raw])
        entry = wire.Harming.of(entry, msgspec.json.decode(parts[6], type=HITS[len(hit)]))
    board = msgspec.json.decode(entry.view, type=wire.Board)
    explanation = msgspec.json.decode(entry.explanation, type=list[int | list[int]] | Literal[0])
    return entry, board, explanation


def typed(payload: bytes) -> tuple[wire.PageData, list[tuple[wire.Entry, wire.Board, list[Any] | Literal[0]]]]:
    top = msgspec.json.decode(payload, type=dict[str, msgspec.Raw])
    entries = [typed_entry(raw) for raw in msgspec.json.decode(top.pop("events"), type=list[msgspec.Raw])]
    page = msgspec.json.decode(msgspec.json.encode({**top, "events": []}), type=wire.PageData)
    page.events = [entry for entry, _, _ in entries]
    return page, entries


@pytest.fixture
def fight(cli: Cli) -> Cli:
    """The bridge ambush (its what-if branch) with another branch, a heal, a note and its end."""
    cli.ok("run", str(SAMPLE))
    cli.ok("branch", "early", "--at", "12")
    cli.ok("heal", "Hauser", "3")
    cli.ok("note", "5", "the parry was a bluff")
    cli.ok("end", "--reason", "the orcs fled")
    return cli


@pytest.mark.parametrize("audience", ["gm", "players"])
@pytest.mark.parametrize("most", [page_data.MOST_EVENTS, 20])
def test_a_real_fights_page_decodes_back_typed_and_encodes_to_the_same_bytes(fight: Cli, audience: str,
                                                                              most: int) -> None:
    store = Store(fight.db)
    try:
        data = page_data.build(Encounter.open(store), page_data.audience(audience), most=most)
    finally:
        store.close()
    payload = json_for_script(data)
    page, entries = typed(payload)
    assert msgspec.json.encode(page) == msgspec.json.encode(data)  # the dict is the Struct's fields, to the byte
    assert page.format == wire.FORMAT and page.audience == audience
    assert (page.summarised is not None) == (most == 20)
    assert isinstance(page.seed, int) == (audience == "gm") and isinstance(page.bands, dict) == (audience == "players")
    assert page.ended is not msgspec.UNSET and "the orcs fled" in page.ended.values()
    hits = [e.damage for e, _, _ in entries if isinstance(e, wire.Harming)]
    assert hits
    first = entries[0][1]
    if most != 20:  # the whole fight: hits with their attacker, the heal; the first board whole (no rows yet)
        assert any(type(h) is wire.HitBy for h in hits) and any(type(h) is wire.Healing for h in hits)
        assert all(getattr(first, part) is not msgspec.UNSET for part in ("k", "o", "p", "w"))
    for entry, board, explanation in entries:
        assert 0 <= entry.narration < len(page.strings)
        rows = board.c if board.c is not msgspec.UNSET else {}
        for row in rows.values():
            assert set(row) - ROW_KEYS <= {f"o{n}" for n in range(len(page.figures))}, row
        if explanation != 0:
            indexes = [i for part in explanation for i in (part if isinstance(part, list) else [part])]
            assert all(0 <= i < len(page.strings) for i in indexes)


@pytest.mark.parametrize("ruleset_id", sorted(registry()))
def test_the_gms_forms_of_every_ruleset_decode_back_typed(ruleset_id: str) -> None:
    """The GM's page's forms (gm_data.py's Inputs, in the schema's $defs) as the server sends them."""
    made = inputs(get_ruleset(ruleset_id))
    assert msgspec.json.decode(msgspec.json.encode(made), type=Inputs) == made
    assert "Inputs" in wire.schema()["$defs"] and "BoardLines" in wire.schema()["$defs"]
