"""Stored commands that hold a field since moved to a ruleset's own flags (ap-countdown's
pace, penalty, charge_speed, orientation and start, percent-activity's percent, the ap
ap-countdown and crisis each declare:
eventlog/commands.py ``AtTheTable.moved``) read back as the command they meant, its flags
in ``details``, and are decided again (`amend`) to the very events they were decided to."""

from __future__ import annotations

import contextlib
import io
from collections import Counter
from pathlib import Path

import pytest

from skirmish.cli.main import run_cli
from skirmish.eventlog import commands as c
from skirmish.eventlog.store import Store
from skirmish.projections.audit.diff import diff
from skirmish.projections.write.engine import LogFile
from skirmish.projections.rulesets.ap_countdown.events import ActionCancelled, CounterSet, PaceChanged
from skirmish.projections.write.amend import amend

from support.cli import start

EXPORTS = Path(__file__).resolve().parents[1] / "fixtures" / "exports"

# Commands as the encoder wrote them before the fields moved: every field, null where not given.
OLD = [
    (b'{"type":"declare","rolls":{},"details":{},"who":"Hauser","action":"move","ap":null,"percent":null,'
     b'"target":null,"trigger":null,"pace":"run","penalty":-10,"amount":null}',
     c.Declare(who="Hauser", action="move", details={"pace": "run", "penalty": "-10"})),
    (b'{"type":"declare","rolls":{},"details":{},"who":"Hauser","action":"melee-attack","ap":3,"percent":null,'
     b'"target":"Orc","trigger":null,"pace":null,"penalty":null,"amount":null}',
     c.Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"})),
    (b'{"type":"declare","rolls":{"Hauser":[4]},"details":{},"who":"Hauser","action":"dodge","ap":null,'
     b'"percent":60,"target":null,"trigger":null,"pace":null,"penalty":null,"amount":null}',
     c.Declare(who="Hauser", action="dodge", rolls={"Hauser": (4,)}, details={"percent": "60"})),
    (b'{"type":"resolve","rolls":{},"details":{},"who":"Hauser","outcome":"hit","hits":5,"charge_speed":4}',
     c.Resolve(who="Hauser", outcome="hit", hits=5, details={"charge": "4"})),
    (b'{"type":"cancel","rolls":{},"details":{},"who":"Hauser","orientation":"near"}',
     c.Cancel(who="Hauser", details={"orientation": "near"})),
    (b'{"type":"effect","rolls":{},"details":{},"who":"scene","kind":"fire","per_round":2,"rounds":null,'
     b'"start":3,"end":false,"custom":false}',
     c.ApplyEffect(who="scene", kind="fire", per_round=2, details={"start": "3"})),
    (b'{"type":"effect","rolls":{},"details":{},"who":"Orc","kind":"stunned","per_round":null,"rounds":2,'
     b'"start":null,"end":false,"custom":false}',
     c.ApplyEffect(who="Orc", kind="stunned", rounds=2)),
    (b'{"type":"declare","rolls":{},"details":{"what":"reload"},"who":"Vera","action":"custom","ap":10,'
     b'"percent":null,"target":null,"trigger":null,"pace":null,"penalty":null,"amount":null}',
     c.Declare(who="Vera", action="custom", details={"what": "reload", "ap": "10"})),
]


@pytest.mark.parametrize(("body", "meant"), OLD, ids=[
    "pace-penalty", "ap", "percent", "charge_speed", "orientation", "start", "rounds-shared", "ap-beside-details"])
def test_an_old_stored_command_reads_as_the_command_it_meant(body: bytes, meant: c.Command) -> None:
    assert c.command_decoder.decode(body) == meant
    # and a command stored since reads back as itself
    assert c.command_decoder.decode(c.command_encoder.encode(meant)) == meant


def test_every_moved_field_is_upcast_and_gone_from_its_command() -> None:
    moved = {kind: dict(kind.moved) for kind in (c.Declare, c.Resolve, c.Cancel, c.ApplyEffect)}
    assert moved == {
        c.Declare: {"percent": "percent", "pace": "pace", "penalty": "penalty", "ap": "ap"},
        c.Resolve: {"charge_speed": "charge"},
        c.Cancel: {"orientation": "orientation"},
        c.ApplyEffect: {"start": "start"},
    }
    for kind, fields in moved.items():
        assert not set(fields) & set(kind.__struct_fields__), kind


def test_old_ap_countdown_commands_decide_what_the_rules_say(memory_store: Store) -> None:
    """ap-countdown.md: Movement (a pace and its penalty), Canceling action (an Orientation
    Maneuver: Near -10), a scene counter's start: each read off the stored field."""
    enc = start(memory_store)  # Hauser at 2d10 + Qu = 6+8+1, + 5 x 4 AP = 35 (Initiative)
    for command in (c.AddCombatant(name="Hauser", side="players", stats={"qu": "1", "hits": "30"}),
                    c.AddCombatant(name="Orc", side="foes", stats={"qu": "0", "hits": "20"}),
                    c.StartRound(rolls={"Hauser": (6, 8), "Orc": (5, 5)})):
        enc.execute(command, "test")

    def old(body: bytes) -> list[object]:
        return [rec.event for rec in enc.execute(c.command_decoder.decode(body), "test")]

    assert old(OLD[0][0]) == [PaceChanged(who="Hauser", pace="run", penalty=-10, count=35)]
    old(OLD[1][0])  # Hauser's melee attack on the Orc
    cancelled = old(OLD[4][0])
    assert len(cancelled) == 1 and isinstance(cancelled[0], ActionCancelled)
    assert (cancelled[0].orientation, cancelled[0].delay, cancelled[0].out) == ("near", -10, False)
    assert old(OLD[5][0]) == [CounterSet(name="fire", value=3, per_round=2)]


@pytest.mark.parametrize(("export", "field", "ruleset"), [
    ("bridge-ambush", b'\\"charge_speed\\":4', "ap-countdown"),
    ("gatehouse-percent", b'\\"percent\\":30', "percent-activity"),
    ("hangar-breach", b'\\"ap\\":10', "crisis"),
])
def test_an_old_log_is_decided_again_to_the_same_events(tmp_path: Path, export: str, field: bytes, ruleset: str) -> None:
    """The committed exports were recorded with the fields in the commands: amending the
    first command with itself decides every later one again from its stored body."""
    assert field in (EXPORTS / f"{export}.jsonl").read_bytes()  # the old shape is what is read
    db = str(tmp_path / "old.db")
    with contextlib.redirect_stdout(io.StringIO()):
        assert run_cli(["--db", db, "import", str(EXPORTS / f"{export}.jsonl")]) == 0
    with LogFile(db) as log_file:
        enc = log_file.open()
        assert enc.ruleset.id == ruleset
        original = enc.head()
        path = enc.path(original.event_id)
        ids = list(dict.fromkeys(r.command_id for r in path[1:]))  # the first is the encounter's start
        upcast = [c.command_decoder.decode(enc.command(cid).body) for cid in ids]
        moved = {key for cmd in upcast if isinstance(cmd, c.AtTheTable) for key in cmd.details}
        assert moved & {"charge", "percent", "pace", "penalty", "ap"}
        sizes = Counter(row.command_id for row in enc.event_rows())
        first = next(r for r in path[1:] if sizes[r.command_id] == sum(1 for p in path if p.command_id == r.command_id))
        command = c.command_decoder.decode(enc.command(first.command_id).body)
        done = amend(enc, first.id, command, "the same again", None, "test")
        assert [(s.text, s.skipped) for s in done.steps if s.skipped is not None] == []
        again = enc.path(enc.head(done.branch).event_id)
        assert len(again) == len(path)
        # Each command that held a moved field decides the very events it decided then (a
        # round's start may differ: its events have gained fields since these logs were made).
        compared = 0
        for step in done.steps:
            stored = c.command_decoder.decode(enc.command(enc.event(step.old[0]).command_id).body)
            if isinstance(stored, c.AtTheTable) and set(stored.details) & set(type(stored).moved.values()):
                assert [r.event for r in step.new] == [enc.event(i).event for i in step.old], step.text
                compared += 1
        assert compared
        result = diff(enc, original.branch, done.branch)
        assert (result.scene, result.combatants) == ([], [])
