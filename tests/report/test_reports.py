"""export/import (jsonl round trip), the Markdown session report,
the readable SQL views, and progress bars on a terminal only."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import sqlite_utils

from skirmish.cli import progress as progress_module
from skirmish.cli.main import run_cli
from skirmish.eventlog.schema import SCHEMA_VERSION
from skirmish.eventlog.store import Store
from skirmish.projections.report import markdown as report_markdown
from skirmish.projections.report.data import Note, Report, Step, collect
from skirmish.projections.ruleset import Harm
from skirmish.projections.view import (
    Budget,
    Clock,
    Combatant,
    Gauge,
    Pending,
    Shown,
    View,
)

from support.cli import Cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "bridge-ambush.skirmish"
TABLES = ("encounters", "commands", "events", "head_moves")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bridge ambush played once, with a note on its first event and one on the what-if branch."""
    db = tmp_path_factory.mktemp("sample") / "ambush.db"
    assert run_cli(["--db", str(db), "run", str(SAMPLE)]) == 0
    assert run_cli(["--db", str(db), "note", "5", "The Archer's player asked for cover | a | pipe"]) == 0
    return db


@pytest.fixture
def ambush(played: Path, cli: Cli) -> Cli:
    """A CLI on a fresh copy of the played sample."""
    shutil.copy(played, cli.db)
    return cli


def other(cli: Cli, name: str) -> Cli:
    """A CLI on another database, sharing the output capture."""
    return Cli(str(Path(cli.db).with_name(name)), cli.capsys)


def rows(db: str) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(db)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in TABLES}
    finally:
        conn.close()


def nothing_in(db: str) -> bool:
    """The import wrote nothing: no database made, or one with no rows."""
    return not Path(db).exists() or rows(db) == {t: [] for t in TABLES}


def export_file(cli: Cli) -> Path:
    out = Path(cli.db).with_name("ambush.jsonl")
    cli.ok("export", "--format", "jsonl", "--out", str(out))
    return out


def records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_records(path: Path, recs: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))


# --- jsonl round trip ---------------------------------------------------------------------------


def test_import_reproduces_every_row_state_and_digest(ambush: Cli) -> None:
    digest = ambush.ok("verify").split("digest ")[1].strip()
    state, log, heads = (ambush.ok(*a) for a in (("state", "--json"), ("log", "--all", "--json"), ("branches", "--json")))
    path = export_file(ambush)
    target = other(ambush, "copy.db")
    out = target.ok("import", str(path))
    assert f"digest {digest}" in out and "84 events" in out
    assert target.ok("verify") == f"intact: 'Bridge ambush', digest {digest}\n"
    assert target.ok("state", "--json") == state.replace(ambush.db, target.db)
    assert target.ok("log", "--all", "--json") == log
    assert target.ok("branches", "--json") == heads
    assert rows(target.db) == rows(ambush.db)
    # The imported encounter plays on; undo and redo read the imported head moves.
    target.ok("undo")
    target.ok("redo")
    target.ok("round")
    target.ok("verify")


def test_export_to_stdout_is_the_same_file(ambush: Cli) -> None:
    path = export_file(ambush)
    assert ambush.ok("export") == path.read_text()
    first, second = records(path)[:2]
    assert first["record"] == "header" and first["format"] == "skirmish-export"
    assert second == {"record": "encounter", **{k: v for k, v in second.items() if k != "record"}}


def test_import_of_the_same_log_again_is_a_no_op(ambush: Cli) -> None:
    path = export_file(ambush)
    before = rows(ambush.db)
    out = ambush.ok("import", str(path))
    assert "already here with the same log" in out and rows(ambush.db) == before


@pytest.mark.parametrize(("there", "error"), [
    ("Bridge ambush", "an encounter named 'Bridge ambush' already exists in {db} with another log: "
                      "import into a new database (--db)"),
    ("Elsewhere", "encounters id 1 is taken in {db} by another encounter: ids are part of the hash "
                  "chain, import into a new database (--db)"),
])
def test_import_refuses_a_name_or_ids_already_taken(ambush: Cli, there: str, error: str) -> None:
    path = export_file(ambush)
    target = other(ambush, "target.db")
    target.ok("new", there, "--rules", "ap-countdown")
    before = rows(target.db)
    assert target.fails("import", str(path)) == "Error: " + error.format(db=target.db)
    assert rows(target.db) == before


def tampered(cli: Cli, change: str) -> Path:
    """The export with one kind of damage done to it."""
    path = export_file(cli)
    recs = records(path)
    events = [r for r in recs if r["record"] == "event"]
    if change == "body":
        hit = next(r for r in events if '"hits":{"value":12' in str(r["body"]))
        hit["body"] = str(hit["body"]).replace('"value":12', '"value":2', 1)
    elif change == "leaf":
        # Drop an undone leaf (the mistyped damage) and fix up the row count.
        leaf = next(r for r in events if '"value":16' in str(r["body"]))
        recs.remove(leaf)
        recs[0]["rows"] = int(str(recs[0]["rows"])) - 1
    elif change == "swap":
        a, b = events[10], events[11]
        a["body"], b["body"] = b["body"], a["body"]
    write_records(path, recs)
    return path


@pytest.mark.parametrize(("change", "error"), [
    ("body", "Error: {path} does not verify: event 20 (ap.damage-taken) was altered or re-ordered after it was recorded"),
    ("leaf", "Error: {path} does not verify: event 29 was removed: head move 25 (append on main) points at a missing event"),
    ("swap", "Error: {path} does not verify: event 11 (ap.clock-advanced) was altered or re-ordered after it was recorded"),
])
def test_import_refuses_a_file_whose_chain_does_not_verify(ambush: Cli, change: str, error: str) -> None:
    path = tampered(ambush, change)
    target = other(ambush, "target.db")
    assert target.fails("import", str(path)) == error.format(path=path)
    assert nothing_in(target.db)


@pytest.mark.parametrize(("damage", "error"), [
    (lambda lines: ["not json", *lines[1:]], "{path}:1: not a skirmish export line"),
    (lambda lines: lines[1:], "{path} is not a skirmish export (no skirmish-export header on its first line)"),
    (lambda lines: lines[:-3], "rows, its header says 222: the file was cut short or rows were added"),
    (lambda lines: [*lines, lines[1]],
     "{path}:225: a second encounter record: an export holds one header, then one encounter, then its rows"),
    (lambda lines: [lines[0], lines[1].replace('"name"', '"nickname"'), *lines[2:]], "{path}:2: not a skirmish export line"),
    (lambda lines: [lines[0], lines[1].replace("ap-countdown", "no-such-rules"), *lines[2:]],
     "{path}: its encounter row names ruleset 'no-such-rules' but its first event (#1) was recorded under 'ap-countdown'"),
])
def test_import_refuses_a_malformed_file(ambush: Cli, damage: object, error: str) -> None:
    path = export_file(ambush)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(damage(lines)) + "\n")  # type: ignore[operator]
    target = other(ambush, "target.db")
    assert error.format(path=path) in target.fails("import", str(path))
    assert nothing_in(target.db)


def test_import_refuses_an_event_that_does_not_decode(ambush: Cli) -> None:
    path = export_file(ambush)
    recs = records(path)
    event = next(r for r in recs if r["record"] == "event" and r["kind"] == "ap.damage-taken")
    event["body"] = '{"type":"ap.damage-taken","who":"Orc"}'
    write_records(path, recs)
    target = other(ambush, "target.db")
    assert target.fails("import", str(path)).startswith(
        f"Error: {path}: event {event['id']} (ap.damage-taken) does not decode under ap-countdown: "
    )
    assert nothing_in(target.db)


def test_export_refuses_a_log_that_does_not_verify(ambush: Cli) -> None:
    conn = sqlite3.connect(ambush.db)
    conn.execute("DROP TRIGGER events_refuse_update")
    conn.execute("UPDATE events SET body = replace(body, '\"value\":12', '\"value\":2') WHERE id = 20")
    conn.commit()
    conn.close()
    out = Path(ambush.db).with_name("x.jsonl")
    assert ambush.fails("export", "--out", str(out)) == "Error: event 20 (ap.damage-taken) was altered or re-ordered after it was recorded"
    assert not out.exists() and not list(out.parent.glob(".x.jsonl*"))


def test_export_arguments_are_checked(ambush: Cli) -> None:
    assert ambush.fails("export", "--format", "pdf") == "Error: --format takes jsonl, md, html, not 'pdf'"
    assert ambush.fails("export", "--branch", "main") == (
        "Error: --branch is for reports: a jsonl export holds every branch")
    assert ambush.fails("export", "--format", "md", "--branch", "nope").startswith("Error: no branch named 'nope'")
    assert ambush.fails("import", "missing.jsonl") == "Error: cannot read missing.jsonl: No such file or directory"


# --- reports ---------------------------------------------------------------------------------------


def test_markdown_report_of_the_sample(ambush: Cli) -> None:
    md = ambush.ok("export", "--format", "md")
    assert md.startswith("# Bridge ambush: session report\n")
    # Per combatant: the Orc's 31 hits taken are Hauser's 12 + 9 + 4 (charge) and 3 x 2
    # bleeding (no one's); Mira's 11 are her held shot (7) and her melee attack (4).
    assert "| Hauser | players | 40 -> 34 | 25 | 6 | 4 | 12 |" in md
    assert "| Mira | players | 32 -> 32 | 11 | 0 | 3 | 5 |" in md
    assert "| Orc | foes | 30 -> -1 | 6 | 31 | 6 | 10 |" in md
    assert "| Orc | 30 | 16 | 5 | -1 |" in md  # hits left at the end of each round
    for title in ("## Set-up", "## Round 1", "## Round 2", "## Round 3", "## Notes", "## Final state"):
        assert title in md
    assert "- #19 Hauser resolves melee-attack on Orc at 20, 3 AP: hit: 12 hits and a bleeding wound" in md
    assert "Hauser takes 16 hits" not in md  # undone: not on the branch
    assert "staggered" not in md  # the what-if branch's
    assert "  - *Note #84:* The Archer's player asked for cover \\| a \\| pipe" in md  # | escaped: literal
    # Round 1's timeline: Hauser's melee attack from 35 to its resolution at 20, Mira's
    # held shot carried on past the round, the Orc's parry declared and settled at once.
    timeline = md.split("## Round 1")[1].split("```text\n")[1].split("```")[0].splitlines()
    assert re.split(r"\s{2,}", timeline[0]) == [
        "moment", *(f"count {n}" for n in (35, 34, 30, 29, 24, 20, 15, 10, 9)), "after round 1",
    ]
    assert timeline[1].split() == ["Orc:", "parry", "*", *"." * 9]
    assert timeline[2].split() == ["Hauser:", "melee-attack", *"======", *"...."]
    assert timeline[3].split() == ["Mira:", "ranged-attack", ".", *"=" * 8, ">"]
    round2 = md.split("## Round 2")[1].split("```text\n")[1]
    assert round2.splitlines()[1].split()[:3] == ["Mira:", "ranged-attack", "<"]


def test_report_follows_another_branch(ambush: Cli) -> None:
    md = ambush.ok("export", "--format", "md", "--branch", "what-if")
    assert "branch what-if at #" in md and "Orc is staggered" in md


def _step(i: int, phase: str, pending: list[Pending], hits: dict[str, int], *,
          command: str = "next", actor: str | None = None, round_: int = 1, harm: Harm | None = None) -> Step:
    return Step(
        i, i, command, actor, None, f"event {i}",
        View(
            clock=Clock(round=round_, running=True, moment=f"phase {phase}", phase=phase),
            combatants=tuple(
                Combatant(name=n, side="x", vital=Gauge(name="health", value=h), budget=Budget(name="slots", left=0))
                for n, h in hits.items()
            ),
            pending=tuple(pending),
        ),
        harm=harm,
    )


def test_phase_grid_and_damage_for_a_phased_clock() -> None:
    """A ruleset whose clock has a phase gets a phase grid; nothing else about it is known."""
    blow = Pending(who="Ann", action="strike", target="Bob")
    steps = [
        _step(1, "move", [], {"Ann": 10, "Bob": 10}),
        _step(2, "move", [blow], {"Ann": 10, "Bob": 10}, command="declare", actor="Ann"),
        _step(3, "attack", [blow], {"Ann": 10, "Bob": 10}),
        _step(4, "attack", [], {"Ann": 10, "Bob": 6}, command="resolve", actor="Ann",
              harm=Harm(who="Bob", amount=4, unit="HP", by="Ann")),
        _step(5, "end", [], {"Ann": 10, "Bob": 5}, harm=Harm(who="Bob", amount=1, unit="HP")),
    ]
    rounds, figures, series = collect(steps, notes=[Note(6, 4, "ouch")])
    (r,) = rounds
    assert r.phase_order() == ["move", "attack", "end"]
    assert r.grid() == {("Ann", "move"): ["strike >"], ("Ann", "attack"): ["strike !"]}
    assert r.lines[3].notes == [Note(6, 4, "ouch")]
    ann, bob = figures
    assert (ann.dealt, ann.taken, ann.declared, bob.taken, bob.dealt) == (4, 0, 1, 5, 0)
    # One value for each round the report holds, round 1 alone here (no set-up steps): the
    # table's columns, not every number from 0 up.
    assert series == {"Ann": [10], "Bob": [5]}
    report = Report("Duel", "phased", "main", 5, {}, "health", "slots", "d" * 64, rounds, figures,
                    series, [], Shown(encounter="Duel", ruleset="phased", branch="main", head=5, at=5,
                                      clock=Clock(round=1)))
    assert "| Ann | strike > | strike ! | - |" in report_markdown.markdown(report)


# --- SQL views -------------------------------------------------------------------------------------


def test_views_read_well_in_sqlite_utils(ambush: Cli) -> None:
    db = sqlite_utils.Database(ambush.db)
    timeline = {r["id"]: r for r in db["timeline"].rows}
    assert timeline[19]["who"] == "Hauser" and timeline[19]["action"] == "melee-attack"
    assert timeline[19]["target"] == "Orc" and timeline[19]["text"] == "hit: 12 hits and a bleeding wound"
    assert timeline[19]["branches"] in ("main, what-if", "what-if, main")
    assert timeline[2]["who"] == "Hauser" and timeline[2]["kind"] == "combatant-added"
    assert timeline[29]["branches"] is None  # the undone damage
    assert timeline[84]["text"].startswith("The Archer's player") and timeline[84]["command"].startswith("note 5")
    staggered = next(r for r in timeline.values() if r["kind"] == "ap.effect-applied" and "staggered" in r["body"])
    assert staggered["branches"] == "what-if"
    combatants = {r["name"]: r for r in db["combatants"].rows}
    assert set(combatants) == {"Hauser", "Mira", "Orc", "Archer"}
    assert combatants["Orc"]["side"] == "foes" and json.loads(combatants["Orc"]["stats"])["hits"] == 30
    assert [combatants[n]["declarations"] for n in ("Hauser", "Mira", "Orc", "Archer")] == [4, 3, 6, 2]
    assert {r["branch"]: r["head"] for r in db["branches"].rows} == {"main": 84, "what-if": 57}
    db.close()


def test_a_schema_1_database_gains_the_views(ambush: Cli) -> None:
    conn = sqlite3.connect(ambush.db)
    conn.execute("DROP VIEW combatants")
    conn.execute("DROP VIEW timeline")
    conn.execute("CREATE VIEW timeline AS SELECT id FROM events")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = '0002_readable_views'")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    Store(ambush.db, create=False).close()
    db = sqlite_utils.Database(ambush.db)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert {"timeline", "combatants", "branches"} <= set(db.view_names())
    assert next(iter(db["timeline"].rows))["kind"] == "encounter-started"
    db.close()
    ambush.ok("verify")


# --- progress bars ---------------------------------------------------------------------------------


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """stderr is a terminal and every piece of work is long enough for a bar."""
    monkeypatch.setattr(progress_module, "is_terminal", lambda: True)
    monkeypatch.setattr(progress_module, "PROGRESS_FROM", 0)


def test_bars_on_a_terminal_leave_the_output_as_it_was(ambush: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = {args: ambush.ok(*args) for args in (("export",), ("replay",), ("export", "--format", "md"))}
    assert ambush.err == ""
    path = Path(ambush.db).with_name("plain.jsonl")
    path.write_text(plain[("export",)])
    monkeypatch.setattr(progress_module, "is_terminal", lambda: True)
    monkeypatch.setattr(progress_module, "PROGRESS_FROM", 0)
    for (args, out), label in zip(plain.items(), ("export", "replay", "report"), strict=True):
        assert ambush.ok(*args) == out
        assert "\x1b[" in ambush.err and label in ambush.err  # the bar, drawn and wiped on stderr
    target = other(ambush, "target.db")
    target.ok("import", str(path))
    assert "import" in target.err and "\x1b[" in target.err


def test_short_work_on_a_terminal_draws_no_bar(ambush: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress_module, "is_terminal", lambda: True)
    ambush.ok("replay")
    assert ambush.err == ""


@pytest.mark.slow
def test_piped_export_prints_nothing_extra_and_never_imports_rich(played: Path, tmp_path: Path) -> None:
    db = tmp_path / "copy.db"
    shutil.copy(played, db)
    code = (
        "import sys; from skirmish.cli import progress; progress.PROGRESS_FROM = 0\n"
        "from skirmish.cli.main import run_cli\n"
        f"code = run_cli(['--db', {str(db)!r}, 'export', '--out', {str(tmp_path / 'x.jsonl')!r}])\n"
        f"code += run_cli(['--db', {str(db)!r}, 'replay'])\n"
        "print('rich' in sys.modules, code, file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "SKIRMISH_DB"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert run.stderr.splitlines() == [f"Wrote {tmp_path / 'x.jsonl'} (jsonl) for 'Bridge ambush'", "False 0"]
    assert run.stdout.startswith("#1 ")


def test_the_party_side_of_the_readme_is_the_party_in_the_players_report(cli: Cli, tmp_path: Path) -> None:
    # Issue 39, finding 6: the srd-5.2 example (docs/rulesets/srd-5.2.md) puts the characters on `--side party`.
    # Without --party the players see them exactly (not as bands), and the goblin's hit on
    # Mira is theirs to see: 1d6+2 with a typed 4 is 6 damage, 22 - 6 = 16 HP left.
    cli.ok("new", "Chapel", "--rules", "srd-5.2")
    cli.ok("add", "Mira", "--side", "Party", "--stat", "hp=22", "--stat", "ac=15", "--stat", "dex=4")
    cli.ok("add", "Goblin", "--side", "foes", "--stat", "hp=7", "--stat", "ac=15", "--stat", "dex=2")
    cli.ok("round", "--roll", "Mira=16", "--roll", "Goblin=13")
    cli.ok("next")
    cli.ok("declare", "Goblin", "attack", "--target", "Mira", "--with", "hit=4", "--with", "damage=1d6+2",
           "--roll", "Goblin=15", "--roll", "dmg:Goblin=4")
    out = tmp_path / "players.md"
    assert run_cli(["--db", cli.db, "export", "--format", "md", "--for", "players", "--out", str(out)]) == 0
    text = out.read_text()
    assert "| Mira | Party | 22 -> 16 | - | 6 |" in text
    assert "Mira takes 6 HP from Goblin" in text
