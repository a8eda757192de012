"""`verify` checks the encounter it is pinned to, every command keeps its pin, a log re-hashed
after an edit of any of its links or its order is named (by `verify` and by `import`), and an
edited snapshot row is never read."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import msgspec
import pytest
from test_streaming import spec_hash

from skirmish.cli.main import run_cli

from support.cli import Cli
from support.served import free_port
from support.tamper import made_guards, reguard
from support.terminal import SCRIPT, Terminal

LOG_TABLES = ("encounters", "commands", "events", "head_moves")


def play(db: str, lines: list[str]) -> None:
    for line in lines:
        assert run_cli(["--db", db, *shlex.split(line)]) == 0, line


def unguarded(db: str) -> sqlite3.Connection:
    """The file as someone with the sqlite3 shell has it: the append-only guards dropped."""
    raw = sqlite3.connect(db)
    for table in LOG_TABLES:
        raw.execute(f"DROP TRIGGER IF EXISTS {table}_refuse_update")
        raw.execute(f"DROP TRIGGER IF EXISTS {table}_refuse_delete")
    return raw


def digest_of(raw: sqlite3.Connection, encounter_id: int) -> str:
    """verify's digest as eventlog/chain.py defines it, worked out here from the rows: SHA-256
    over the encounter's head moves' hashes in id order, then each event's "id:hash" in id
    order."""
    digest = hashlib.sha256()
    for (h,) in raw.execute("SELECT hash FROM head_moves WHERE encounter_id = ? ORDER BY id", (encounter_id,)):
        digest.update(h.encode())
    for event_id, h in raw.execute("SELECT id, hash FROM events WHERE encounter_id = ? ORDER BY id", (encounter_id,)):
        digest.update(f"{event_id}:{h}".encode())
    return digest.hexdigest()


def digest_named(db: str, name: str) -> str:
    raw = sqlite3.connect(db)
    try:
        (encounter_id,) = raw.execute("SELECT id FROM encounters WHERE name = ?", (name,)).fetchone()
        return digest_of(raw, encounter_id)
    finally:
        raw.close()


def rows_of(db: str, name: str) -> tuple[int, int, int]:
    """How many commands, events and head moves the encounter holds."""
    raw = sqlite3.connect(db)
    try:
        (encounter_id,) = raw.execute("SELECT id FROM encounters WHERE name = ?", (name,)).fetchone()
        commands, events, moves = (
            int(raw.execute(f"SELECT count(*) FROM {table} WHERE encounter_id = ?", (encounter_id,)).fetchone()[0])
            for table in ("commands", "events", "head_moves"))
        return commands, events, moves
    finally:
        raw.close()


# --- the pin: --encounter / --on, SKIRMISH_ENCOUNTER / SKIRMISH_BRANCH --------------------------

# Two encounters in one file, alike but for their figures and ids, so that a command landing
# on the wrong one succeeds there as well: only where it landed tells. One's events: #1 it
# begins, #2 Hauser, #3 the Orc (30 hits), #4 round 1, #5 the Orc takes 7 (23 left) on main;
# what-if forks at #5 and #6 takes 3 more (20 left). Two (#7 to #12): the Orc has 50 hits,
# takes 4 on main (46) and 2 more on its what-if. Two is made last: it is current.
ONE = ["new One --rules ap-countdown --seed 1", "add Hauser --side players --stat qu=1 --stat hits=40",
       "add Orc --side foes --stat qu=0 --stat hits=30", "round --roll Hauser=6,8 --roll Orc=5,5", "damage Orc 7",
       "branch what-if", "switch what-if", "damage Orc 3", "switch main"]
TWO = ["new Two --rules ap-countdown --seed 2", "add Hauser --side players --stat qu=1 --stat hits=40",
       "add Orc --side foes --stat qu=0 --stat hits=50", "round --roll Hauser=6,8 --roll Orc=5,5", "damage Orc 4",
       "branch what-if", "switch what-if", "damage Orc 2", "switch main"]


@pytest.fixture(scope="module")
def two_tables_played(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("pins") / "table.db")
    play(db, ONE + TWO)
    return db


@pytest.fixture
def two_tables(two_tables_played: str, db: str) -> str:
    """A copy of the two tables in the file the `cli` fixture runs on."""
    shutil.copyfile(two_tables_played, db)
    return db


PINS = ["option", "environment"]  # --encounter / --on before the command, or SKIRMISH_ENCOUNTER / SKIRMISH_BRANCH


def pinned(how: str, monkeypatch: pytest.MonkeyPatch, branch: str | None = None) -> list[str]:
    """Pin to One (and ``branch``): the words before the command, or the shell's environment
    (which a process started from here inherits)."""
    for var in ("SKIRMISH_ENCOUNTER", "SKIRMISH_BRANCH"):
        monkeypatch.delenv(var, raising=False)
    pins = {"--encounter": "One", **({"--on": branch} if branch else {})}
    if how == "option":
        return [word for option, value in pins.items() for word in (option, value)]
    for option, value in pins.items():
        monkeypatch.setenv({"--encounter": "SKIRMISH_ENCOUNTER", "--on": "SKIRMISH_BRANCH"}[option], value)
    return []


def run_pinned(cli: Cli, how: str, monkeypatch: pytest.MonkeyPatch, line: str, branch: str | None = None) -> str:
    out = cli(*pinned(how, monkeypatch, branch), *shlex.split(line))
    assert cli.code == 0, f"{line}: {cli.err}"
    return out


def page_data(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S)
    assert found, html[:500]
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def orc(view: dict[str, Any]) -> tuple[str, str, int, int]:
    found = next(c for c in view["combatants"] if c["name"] == "Orc")
    return view["encounter"], view["branch"], found["vital"]["value"], found["vital"]["maximum"]


BRANCHES = ["main", "what-if"]  # main: the encounter pinned alone; what-if: its branch pinned too
PINNED = pytest.mark.parametrize(("branch", "pin"), [(branch, pin) for branch in BRANCHES for pin in PINS])


def orc_left(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The Orc's hits left on each of One's branches, read with the shell's pins lifted."""
    for var in ("SKIRMISH_ENCOUNTER", "SKIRMISH_BRANCH"):
        monkeypatch.delenv(var, raising=False)
    return {b: orc(json.loads(cli.ok("--encounter", "One", "--on", b, "state", "--json")))[2] for b in BRANCHES}


# What each read must show of One's main line (30 - 7 = 23 hits left), and of its what-if
# (3 more: 20), read with the pin while Two is current; ``db`` to work out One's digest.
def _state(out: str, db: str, branch: str) -> None:
    assert orc(json.loads(out)) == ("One", branch, 23 if branch == "main" else 20, 30)


def _log(out: str, db: str, branch: str) -> None:
    assert [json.loads(line)["id"] for line in out.splitlines()] == [1, 2, 3, 4, 5] + ([6] if branch == "what-if" else [])


def _replay(out: str, db: str, branch: str) -> None:
    assert "Encounter 'One' begins" in out and "Orc takes 7 hits (23 left)" in out and "Two" not in out
    assert ("Orc takes 3 hits (20 left)" in out) == (branch == "what-if")


def _explain(out: str, db: str, branch: str) -> None:
    assert "damage Orc 7" in out


def _why(out: str, db: str, branch: str) -> None:
    assert f"30 at the start, now {23 if branch == 'main' else 20} (branch {branch}" in out


def _diff(out: str, db: str, branch: str) -> None:
    assert "hits left: 23 | 20" in out


def _branches(out: str, db: str, branch: str) -> None:
    listed = [(b["name"], b["head"], b["current"]) for b in json.loads(out)]
    assert listed == [("main", 5, branch == "main"), ("what-if", 6, branch == "what-if")]


def _jsonl(out: str, db: str, branch: str) -> None:
    header, encounter = (json.loads(line) for line in out.splitlines()[:2])
    assert (encounter["name"], header["digest"]) == ("One", digest_named(db, "One"))


def _md(out: str, db: str, branch: str) -> None:
    head = 5 if branch == "main" else 6
    assert out.startswith("# One: session report")
    assert f"branch {branch} at #{head}; verify digest {digest_named(db, 'One')}" in out


def _html(out: str, db: str, branch: str) -> None:
    data = page_data(out)
    assert (data["encounter"], data["current"], data["digest"]) == ("One", branch, digest_named(db, "One"))


def _verify(out: str, db: str, branch: str) -> None:
    assert out.strip() == f"intact: 'One', digest {digest_named(db, 'One')}"


READERS: dict[str, Callable[[str, str, str], None]] = {
    "state --json": _state,
    "log --json": _log,
    "replay": _replay,
    "explain 5": _explain,
    "why Orc 'hits left'": _why,
    "diff main what-if": _diff,
    "branches --json": _branches,
    "export": _jsonl,
    "export --format md": _md,
    "export --format html": _html,
    "verify": _verify,
}


@PINNED
@pytest.mark.parametrize("line", list(READERS))
def test_a_pinned_read_shows_the_pinned_table_not_the_current_one(
    cli: Cli, two_tables: str, monkeypatch: pytest.MonkeyPatch, line: str, branch: str, pin: str
) -> None:
    out = run_pinned(cli, pin, monkeypatch, line, None if branch == "main" else branch)
    READERS[line](out, two_tables, branch)


# Each command that records, with what must come before it on One for it to be accepted.
WRITERS: dict[str, list[str]] = {
    "add Elf --side players --stat qu=0 --stat hits=20": [],
    "round --roll Hauser=6,8 --roll Orc=5,5": ["upkeep"],
    "next": [],
    "declare Hauser melee-attack --ap 3 --target Orc": [],
    "resolve Hauser --outcome hit --hits 12": ["declare Hauser melee-attack --ap 3 --target Orc", "next", "next"],
    "cancel Hauser": ["declare Hauser melee-attack --ap 3 --target Orc"],
    "damage Orc 1": [],
    "heal Orc 2": [],
    "leave Orc": [],
    "return Orc": ["leave Orc"],
    "effect Orc bleeding --per-round 2": [],
    "upkeep": [],
    "note 5 'the Orc hesitated'": [],
    "undo": [],
    "redo": ["undo"],
    "branch later": [],
    "switch what-if": [],
    "amend 5 -- damage Orc 9": [],
}


def moves_on(db: str, name: str, branch: str) -> int:
    raw = sqlite3.connect(db)
    try:
        return int(raw.execute(
            "SELECT count(*) FROM head_moves m JOIN encounters e ON e.id = m.encounter_id WHERE e.name = ? AND m.branch = ?",
            (name, branch)).fetchone()[0])
    finally:
        raw.close()


@PINNED
@pytest.mark.parametrize("line", list(WRITERS))
def test_a_pinned_command_lands_on_the_pinned_table_not_the_current_one(
    cli: Cli, two_tables: str, monkeypatch: pytest.MonkeyPatch, line: str, branch: str, pin: str
) -> None:
    on = None if branch == "main" else branch
    before = {name: rows_of(two_tables, name) for name in ("One", "Two")}
    main_moves = moves_on(two_tables, "One", "main")
    for earlier in WRITERS[line]:
        cli.ok("--encounter", "One", *(["--on", on] if on else []), *shlex.split(earlier))
    run_pinned(cli, pin, monkeypatch, line, on)
    commands, _, _ = rows_of(two_tables, "One")
    assert commands > before["One"][0] + len(WRITERS[line])  # an amend records its replayed commands too
    assert rows_of(two_tables, "Two") == before["Two"]
    if on:  # nothing moved main's head (a fork or a switch moves the head of the branch it names)
        assert moves_on(two_tables, "One", "main") == main_moves


@PINNED
def test_a_pinned_script_lands_on_the_pinned_table(
    cli: Cli, two_tables: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, branch: str, pin: str
) -> None:
    script = tmp_path / "blows.skirmish"
    script.write_text("damage Orc 1\ndamage Orc 2\n")
    before = rows_of(two_tables, "Two")
    run_pinned(cli, pin, monkeypatch, f"run {script}", None if branch == "main" else branch)
    assert rows_of(two_tables, "Two") == before
    hit = 1 + 2
    assert orc_left(cli, monkeypatch) == {"main": 23 - (hit if branch == "main" else 0),
                                          "what-if": 20 - (hit if branch == "what-if" else 0)}


@pytest.mark.slow
@PINNED
def test_a_pinned_live_page_serves_the_pinned_table(
    two_tables: str, monkeypatch: pytest.MonkeyPatch, branch: str, pin: str
) -> None:
    assert SCRIPT
    port = free_port()
    words = pinned(pin, monkeypatch, None if branch == "main" else branch)
    server = subprocess.Popen([SCRIPT, "--db", two_tables, *words, "serve", "--port", str(port), "--for", "gm"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        body = ""
        for _ in range(200):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
                    body = page.read().decode()
                break
            except OSError:
                time.sleep(0.05)
        assert "<title>One: replay</title>" in body
        _html(body, two_tables, branch)
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=10)


@pytest.mark.slow
@PINNED
def test_a_pinned_console_plays_the_pinned_table(
    cli: Cli, two_tables: str, monkeypatch: pytest.MonkeyPatch, branch: str, pin: str
) -> None:
    assert SCRIPT
    words = pinned(pin, monkeypatch, None if branch == "main" else branch)
    terminal = Terminal([SCRIPT, "--db", two_tables, *words, "play"])
    left = 23 if branch == "main" else 20
    try:
        terminal.wait_for(f"One (ap-countdown), branch {branch}, at #{5 if branch == 'main' else 6}")
        terminal.wait_for(f"{left}/30")
        terminal.type("damage Orc 1\r")  # a command typed in the console lands there too
        terminal.wait_for(f"Orc takes 1 hits ({left - 1} left)")
        terminal.type("\x11")  # Ctrl+Q
        assert terminal.process.wait(10) == 0
    finally:
        terminal.close()
    assert orc_left(cli, monkeypatch) == {"main": 23 - (branch == "main"), "what-if": 20 - (branch == "what-if")}


@pytest.mark.parametrize("pin", PINS)
@pytest.mark.parametrize("tampered", ["One", "Two"])
def test_verify_pinned_checks_the_pinned_encounter_whichever_one_was_tampered(
    cli: Cli, two_tables: str, monkeypatch: pytest.MonkeyPatch, pin: str, tampered: str
) -> None:
    # The damage event of each: One's #5 (7 hits), Two's #11 (4 hits), its body edited.
    event = {"One": 5, "Two": 11}[tampered]
    raw = unguarded(two_tables)
    raw.execute("UPDATE events SET body = replace(body, '\"value\":', '\"value\":1') WHERE id = ?", (event,))
    reguard(raw, made_guards())
    raw.commit()
    raw.close()
    cli(*pinned(pin, monkeypatch), "verify")
    if tampered == "One":
        assert cli.code == 4
        assert cli.err.strip() == f"Error: event {event} (ap.damage-taken) was altered or re-ordered after it was recorded"
    else:
        assert cli.code == 0, cli.err
        assert cli.out.strip() == f"intact: 'One', digest {digest_named(two_tables, 'One')}"


# --- a log re-hashed after an edit of its links or its order ------------------------------------

# Someone who can write the file and has read eventlog/chain.py edits rows and computes
# every hash again, so that each row matches its hash. `verify` cannot catch an edit of
# what a row says then (docs/disputes.md: what verify proves), but a log whose rows no longer link
# up as a log is laid out is still named: each table's links and order, edited one at a
# time, must give the tamper exit code and one line naming the row, from `verify` on the
# file and from `import` of an export forged the same way.
#
# Forged (ap-countdown), the file's current encounter; Other after it:
#   events  #1 begins (command 1), #2 Hauser (2), #3 #4 #5 Goblins 1-3 (3, one command), #6 round (4),
#           #7 Goblin 1 takes 4 (5); what-if forks at #5, #8 Goblin 2 takes 3 (8) on it; back on
#           main #9 Hauser takes 2 (10), undone (11) to #7. Other: #10 begins (12), #11 an Orc (13).
#   moves   1 start, 2 to 5 appends (#1 -> #2, #2 -> #5, #5 -> #6, #6 -> #7), 6 fork, 7 switch,
#           8 append #5 -> #8, 9 switch, 10 append #7 -> #9, 11 undo #9 -> #7; Other's 12, 13.
FORGED = ["new Forged --rules ap-countdown --seed 1", "add Hauser --side players --stat qu=1 --stat hits=40",
          "add Goblin --side foes --stat qu=0 --stat hits=10 --count 3", "round --roll Hauser=6,8",
          "damage 'Goblin 1' 4", "branch what-if --at 5", "switch what-if", "damage 'Goblin 2' 3", "switch main",
          "damage Hauser 2", "undo", "new Other --rules ap-countdown --seed 2",
          "add Orc --side foes --stat qu=0 --stat hits=30", "use Forged"]
GOBLINS = "'add Goblin --side foes --stat qu=0 --stat hits=10 --count 3'"  # command 3 as an error quotes it
BLOW = "\"damage 'Goblin 1' 4\""  # command 5


@pytest.fixture(scope="module")
def forged_played(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("forged") / "forged.db")
    play(db, FORGED)
    return db


@pytest.fixture
def forged(forged_played: str, db: str) -> str:
    shutil.copyfile(forged_played, db)
    return db


def rehash(raw: sqlite3.Connection) -> None:
    """Make every hash of the file match its row again, as eventlog/chain.py defines them
    (spec_hash: the format written again in tests/log/test_streaming.py): a command over its
    own fields; an event over its fields, its parent's hash and its command's; a head move
    over its fields, the encounter's previous move's hash, its command's and its event's.
    Parents are hashed before their children, whatever their ids."""
    commands = {}
    for cid, enc, branch, text, body, at in raw.execute(
            "SELECT id, encounter_id, branch, text, body, recorded_at FROM commands").fetchall():
        commands[cid] = spec_hash("command", cid, enc, branch, text, body, at)
        raw.execute("UPDATE commands SET hash = ? WHERE id = ?", (commands[cid], cid))
    events = {row[0]: row[1:] for row in raw.execute(
        "SELECT id, encounter_id, parent_id, command_id, kind, version, recorded_at, body FROM events")}
    hashes: dict[int, str] = {}

    def event_hash(eid: int) -> str | None:
        if eid not in events:
            return None
        if eid not in hashes:
            enc, parent, command, kind, version, at, body = events[eid]
            parent_hash = event_hash(parent) if parent is not None else None
            hashes[eid] = spec_hash("event", eid, enc, parent, parent_hash, commands.get(command), kind, version,
                                    at, body)
        return hashes[eid]

    for eid in events:
        raw.execute("UPDATE events SET hash = ? WHERE id = ?", (event_hash(eid), eid))
    previous: dict[int, str] = {}
    for mid, enc, branch, seq, start, end, reason, command, at in raw.execute(
            "SELECT id, encounter_id, branch, seq, from_event, to_event, reason, command_id, recorded_at "
            "FROM head_moves ORDER BY id").fetchall():
        h = spec_hash("move", mid, enc, branch, seq, start, end, reason, at, previous.get(enc), commands.get(command),
                      event_hash(end))
        raw.execute("UPDATE head_moves SET hash = ? WHERE id = ?", (h, mid))
        previous[enc] = h
    raw.commit()


def forge(db: str, *statements: str) -> None:
    raw = unguarded(db)
    try:
        for sql in statements:
            raw.execute(sql)
        rehash(raw)
        reguard(raw, made_guards())  # a forger leaves no dropped guard behind (verify reports one)
        raw.commit()
    finally:
        raw.close()


def exported_by_hand(db: str, name: str, out: Path) -> Path:
    """The encounter's rows as `export` writes them (a header with the digest, the encounter,
    its commands, events and head moves, in id order), written here from the file as it is."""
    raw = sqlite3.connect(db)
    raw.row_factory = sqlite3.Row
    try:
        encounter = dict(raw.execute("SELECT * FROM encounters WHERE name = ?", (name,)).fetchone())
        tables = {"command": "commands", "event": "events", "move": "head_moves"}
        records = []
        for record, table in tables.items():
            for row in raw.execute(f"SELECT * FROM {table} WHERE encounter_id = ? ORDER BY id", (encounter["id"],)):
                fields = {k: row[k] for k in row.keys() if k != "encounter_id"}
                records.append({"record": record, **fields})
        header = {"record": "header", "format": "skirmish-export", "version": 1,
                  "digest": digest_of(raw, encounter["id"]), "rows": len(records)}
        lines = [header, {"record": "encounter", **encounter}, *records]
        out.write_text("".join(json.dumps(line) + "\n" for line in lines))
        return out
    finally:
        raw.close()


def test_the_forger_s_hashes_are_the_chain_s(cli: Cli, forged: str, tmp_path: Path) -> None:
    """The re-hash above changes no hash of an intact file, and its export imports: the
    forgeries below differ from the log only by what they edit."""
    raw = sqlite3.connect(forged)
    before = {t: raw.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in LOG_TABLES}
    noted = digest_of(raw, 1)
    raw.close()
    forge(forged)
    raw = sqlite3.connect(forged)
    assert {t: raw.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in LOG_TABLES} == before
    raw.close()
    assert cli.ok("verify").strip() == f"intact: 'Forged', digest {noted}"
    fresh = str(tmp_path / "fresh.db")
    assert run_cli(["--db", fresh, "import", str(exported_by_hand(forged, "Forged", tmp_path / "f.jsonl"))]) == 0


def test_a_re_hashed_edit_passes_verify_but_not_the_digest_noted_before_it(cli: Cli, forged: str) -> None:
    """What docs/disputes.md says verify does not prove: Goblin 1's 4 hits made 9, every hash made
    again, and verify says intact; only the digest noted earlier tells."""
    noted = digest_named(forged, "Forged")
    forge(forged, "UPDATE events SET body = replace(body, '\"value\":4,', '\"value\":9,') WHERE id = 7")
    out = cli.ok("verify")
    assert out.startswith("intact: 'Forged', digest ") and noted not in out
    line = cli.fails("verify", "--expect", noted)
    assert cli.code == 4 and f"not {noted}" in line


class Forgery(NamedTuple):
    statements: tuple[str, ...]
    said: str  # what the one line must say, worked out from the rows above
    encounter: str = "Forged"


FORGERIES = {
    # events: their order (parent before child) and links (parent, command, encounter)
    "an event follows one recorded after it": Forgery((
        # The round (#6) hung under what-if's #8, its append moved along: a tree still, ids out of order.
        "UPDATE events SET parent_id = 8 WHERE id = 6", "UPDATE head_moves SET from_event = 8 WHERE id = 4"),
        "event 6 (ap.round-started) was re-ordered: it follows event 8, which is not recorded before it"),
    "an event renumbered after its child": Forgery((
        "UPDATE events SET id = 1000 WHERE id = 7", "UPDATE events SET parent_id = 1000 WHERE parent_id = 7",
        "UPDATE head_moves SET to_event = 1000 WHERE to_event = 7",
        "UPDATE head_moves SET from_event = 1000 WHERE from_event = 7"),
        "event 9 (ap.damage-taken) was re-ordered: it follows event 1000, which is not recorded before it"),
    "an event skips the one before it in its command": Forgery((
        "UPDATE events SET parent_id = 3 WHERE id = 5",),
        f"the events of command 3 ({GOBLINS}) are not the chain from #2 to #5"),
    "an event moved to the next command": Forgery((
        "UPDATE events SET command_id = 4 WHERE id = 5",),
        f"the events of command 3 ({GOBLINS}) are not the chain from #2 to #5"),
    "an event hung on another encounter's event": Forgery((
        "UPDATE events SET parent_id = 10 WHERE id = 2", "UPDATE head_moves SET from_event = 10 WHERE id = 2"),
        # Its hash, over #10's, is not the one worked out over no parent of this encounter.
        "event 2 (combatant-added) was altered or re-ordered after it was recorded"),
    "an event given another encounter's command": Forgery((
        "UPDATE events SET command_id = 13 WHERE id = 2",),
        "event 2 names command 13, which is missing"),
    "an event given to a command that recorded none": Forgery((
        "UPDATE events SET command_id = 11 WHERE id = 9",),  # the undo's
        "the events of command 10 ('damage Hauser 2') are not the chain from #7 to #9"),
    "an event moved to another encounter": Forgery((
        "UPDATE events SET encounter_id = 2 WHERE id = 7",),
        "event 7 was removed: event 9 follows it"),
    # head moves: what an append says its command's events are, and which command it is
    "an append's first parent is another event": Forgery((
        "UPDATE head_moves SET from_event = 5 WHERE id = 5",),
        f"the events of command 5 ({BLOW}) are not the chain from #5 to #7"),
    "an append stops short of its command's last event": Forgery((
        "UPDATE head_moves SET to_event = 4 WHERE id = 3",),
        f"the events of command 3 ({GOBLINS}) are not the chain from #2 to #4"),
    "an append names the next command": Forgery((
        "UPDATE head_moves SET command_id = 3 WHERE id = 2",),
        "event 2 was never appended by a head move (command 2)"),
    "the last command's move names the command before it": Forgery((
        "UPDATE head_moves SET command_id = 10 WHERE id = 11",),
        "command 11 ('undo') has no head move: one was removed"),
    "an append moves to another encounter's event": Forgery((
        "UPDATE head_moves SET to_event = 11 WHERE id = 10",),
        "event 11 was removed: head move 10 (append on main) points at a missing event"),
    "an append moves from another encounter's event": Forgery((
        "UPDATE head_moves SET from_event = 10 WHERE id = 5",),
        f"the events of command 5 ({BLOW}) are not the chain from #10 to #7"),
    "an append moved to another encounter": Forgery((
        "UPDATE head_moves SET encounter_id = 2 WHERE id = 10",),
        "event 9 was never appended by a head move (command 10)"),
    # An undo, a fork or a switch has no events to check its ends against: each end must be
    # an event of this encounter. One not there is hashed as none (no hash to link to).
    "an undo moves the head to an event that is not there": Forgery((
        "UPDATE head_moves SET to_event = 999 WHERE id = 11",),
        "event 999 was removed: head move 11 (undo on main) points at a missing event"),
    "an undo moves the head to another encounter's event": Forgery((
        "UPDATE head_moves SET to_event = 11 WHERE id = 11",),
        "event 11 was removed: head move 11 (undo on main) points at a missing event"),
    "an undo moves the head from an event that is not there": Forgery((
        "UPDATE head_moves SET from_event = 999 WHERE id = 11",),
        "event 999 was removed: head move 11 (undo on main) points at a missing event"),
    "an undo moves the head from another encounter's event": Forgery((
        "UPDATE head_moves SET from_event = 10 WHERE id = 11",),
        "event 10 was removed: head move 11 (undo on main) points at a missing event"),
    "the last undo made an append": Forgery((
        "UPDATE head_moves SET reason = 'append' WHERE id = 11",),
        "the events of command 11 ('undo') are not the chain from #9 to #7"),
    # commands and the encounters row
    "a command moved to another encounter": Forgery((
        "UPDATE commands SET encounter_id = 2 WHERE id = 5",),
        "event 7 names command 5, which is missing"),
    "an encounter's whole log moved away": Forgery(tuple(
        f"UPDATE {table} SET encounter_id = 99 WHERE encounter_id = 2" for table in ("commands", "events", "head_moves")),
        "the encounters row ('Other', ap-countdown) has no events: its log was removed or moved to another encounter",
        "Other"),
    "the first event names another encounter": Forgery((
        "UPDATE events SET body = replace(body, '\"name\":\"Other\"', '\"name\":\"Another\"') WHERE id = 10",),
        "the encounters row ('Other', ap-countdown) does not match its first event 10", "Other"),
}


@pytest.mark.parametrize("surface", ["verify", "import"])
@pytest.mark.parametrize("case", list(FORGERIES))
def test_a_re_hashed_log_whose_links_do_not_hold_is_named(
    cli: Cli, forged: str, tmp_path: Path, case: str, surface: str
) -> None:
    forgery = FORGERIES[case]
    forge(forged, *forgery.statements)
    if surface == "verify":
        line = cli.fails("--encounter", forgery.encounter, "verify")
        assert cli.code == 4 and line.startswith(f"Error: {forgery.said}"), line
        return
    export = exported_by_hand(forged, forgery.encounter, tmp_path / "forged.jsonl")
    cli.db = str(tmp_path / "fresh.db")
    line = cli.fails("import", str(export))
    assert cli.code == 4 and line.startswith(f"Error: {export} does not verify: {forgery.said}"), line
    assert not os.path.exists(cli.db)  # a refused import leaves no database behind


# --- the snapshot cache: a row edited in any column is never read --------------------------------

# Hauser (90 hits) takes 1 hit twenty times: #1 begins, #2 Hauser, #3 to #22 the blows, 70
# left; with a snapshot every 4 events down the path, the last is after #21 (depth 20),
# the one `state` at the head folds from. Each column of that row is edited alone, its
# digest left as it was: the row must be a miss (the state folded from the events: 70),
# and `verify` must name it as one that does not match its digest (docs/database.md: Snapshots).
CACHE = ["new Cache --rules ap-countdown", "add Hauser --side players --stat qu=1 --stat hits=90",
         *["damage Hauser 1"] * 20]


def _hauser_hit_less(blob: bytes) -> bytes:
    # The state's own figures changed (one hit less taken), its digest (the first 32 bytes,
    # eventlog/snapshots.py) left as it was.
    decoded = msgspec.msgpack.decode(blob[32:])
    decoded["fighters"]["Hauser"]["damage"] -= 1
    return blob[:32] + msgspec.msgpack.encode(decoded)


class SnapshotEdit(NamedTuple):
    sql: str
    named: int | None  # the event the edited row is cached after, as verify names it; None: not this encounter's cache
    newer: bool = False  # read by a skirmish whose state version is one more (the row edited to it)


SNAPSHOT_EDITS = {
    # Copied to the head: without the event's hash in the digest the head would show 71.
    "event_id": SnapshotEdit("UPDATE snapshots SET event_id = 22 WHERE event_id = 21", 22),
    "depth": SnapshotEdit("UPDATE snapshots SET depth = 24 WHERE event_id = 21", 21),
    # An older skirmish's row relabelled as the state version this one reads (its layout may
    # differ): the version is in the digest, so the relabelled row is a miss.
    "version": SnapshotEdit("UPDATE snapshots SET version = version + 1 WHERE event_id = 21", 21, newer=True),
    "state": SnapshotEdit("UPDATE snapshots SET state = hauser_hit_less(state) WHERE event_id = 21", 21),
    # The reader asks for its encounter's ruleset only (which the chain binds through the first
    # event): a row moved to another projection is no cache of this encounter, never read.
    "projection": SnapshotEdit("UPDATE snapshots SET projection = 'percent-activity' WHERE event_id = 21", None),
}


def test_every_column_of_a_snapshot_is_edited_here(tmp_path: Path) -> None:
    db = str(tmp_path / "cache.db")
    play(db, CACHE[:1])
    raw = sqlite3.connect(db)
    columns = {row[1] for row in raw.execute("PRAGMA table_info(snapshots)")}
    raw.close()
    assert columns == set(SNAPSHOT_EDITS)


@pytest.fixture(scope="module")
def cache_played(tmp_path_factory: pytest.TempPathFactory) -> str:
    from skirmish.projections.write import engine

    db = str(tmp_path_factory.mktemp("cache") / "cache.db")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "SNAPSHOT_EVERY", 4)
        play(db, CACHE)
    return db


@pytest.mark.parametrize("column", list(SNAPSHOT_EDITS))
def test_an_edited_snapshot_is_never_read_and_verify_names_it(
    cli: Cli, cache_played: str, monkeypatch: pytest.MonkeyPatch, column: str
) -> None:
    from skirmish.projections.write import engine
    from skirmish.projections.ruleset import get_ruleset

    monkeypatch.setattr(engine, "SNAPSHOT_EVERY", 4)
    shutil.copyfile(cache_played, cli.db)
    edit = SNAPSHOT_EDITS[column]
    raw = sqlite3.connect(cli.db)
    raw.create_function("hauser_hit_less", 1, _hauser_hit_less)
    assert raw.execute("SELECT depth FROM snapshots WHERE event_id = 21").fetchone() == (20,)
    raw.execute(edit.sql)
    raw.commit()
    raw.close()
    if edit.newer:
        ruleset = type(get_ruleset("ap-countdown"))
        monkeypatch.setattr(ruleset, "state_version", ruleset.state_version + 1)
    digest = digest_named(cli.db, "Cache")
    cli("verify")
    if edit.named is None:
        assert (cli.code, cli.out.strip()) == (0, f"intact: 'Cache', digest {digest}")
    else:
        assert cli.code == 4
        assert cli.err.strip() == (
            f"Error: the log's chain is intact (digest {digest}) but 1 cached state(s) are not: the cached state "
            f"after #{edit.named} does not match its digest (edited, or copied from another event): it is never "
            "used; `skirmish verify --rebuild-snapshots` drops them all")
    (hauser,) = json.loads(cli.ok("state", "--json"))["combatants"]
    assert hauser["vital"]["value"] == 90 - 20
