"""Settling disputes through the command line: explain, why, verify, diff, amend, notes."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skirmish.cli.main import run_cli
from skirmish.eventlog.commands import command_decoder
from skirmish.eventlog.errors import HeadMoved
from skirmish.eventlog.store import Store
from skirmish.projections.audit.diff import diff
from skirmish.projections.rulesets.ap_countdown import ApCountdown
from skirmish.projections.write.amend import amend

from support.cli import Cli
from support.examples import examples
from support.invariants import RULESETS, Run
from support.tamper import tamper as tamper_store

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "bridge-ambush.skirmish"
TABLES = ("encounters", "commands", "events", "head_moves")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample played once; each test gets its own copy of the database."""
    db = tmp_path_factory.mktemp("sample") / "bridge.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert run_cli(["--db", str(db), "run", str(SAMPLE)]) == 0
    return db


@pytest.fixture
def bridge(played: Path) -> Callable[[Cli], None]:
    """The sample fight: #19 Hauser's blow resolves, #20 the Orc takes 12, #21 it bleeds 2 a
    round, #32 the first bleeding tick; main ends at #83, what-if at #57."""

    def copy(cli: Cli) -> None:
        shutil.copyfile(played, cli.db)

    return copy


def as_json(cli: Cli, *args: str) -> Any:
    return json.loads(cli.ok(*args, "--json"))


def figure(cli: Cli, name: str, key: str, *at: str) -> Any:
    """A figure of the typed view (`state --json`): hits left is the vital one, the rest
    are ap-countdown's own."""
    view = as_json(cli, "state", *at)
    row = next(c for c in view["combatants"] if c["name"] == name)
    return row["vital"]["value"] if key == "hits_left" else row["own"][key]


def event_line(cli: Cli, event_id: int) -> str:
    return next(line for line in cli.ok("log", "--all").splitlines() if line.startswith(f"#{event_id} "))


def counts(db: str) -> tuple[int, ...]:
    conn = sqlite3.connect(db)
    try:
        return tuple(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES)
    finally:
        conn.close()


# --- explain ---------------------------------------------------------------------------------


def test_explain_shows_each_initiative_with_its_dice_faces_modifiers_formula_and_rule(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    """The worked example of ap-countdown.md, Initiative: Hauser rolls 14, Qu +1, base 15, 35 with 4 AP."""
    bridge(cli)
    out = cli.ok("explain", "6")
    assert out.splitlines()[0] == "#6 Round 1 begins: initiative Hauser 35, Mira 34, Orc 30, Archer 29; the count starts at 35"
    assert (
        "  Hauser's initiative (base): 15 = 2d10 + Qu - 1 per -10 penalty\n"
        "      2d10 +14, Qu +1, 1 per -10 penalty +0\n"
        "      dice: 2d10 = 6 + 8 = 14 (the GM's dice)\n"
        "      rule: ap-countdown.md, Initiative\n"
        "  Hauser's initiative (actual): 35 = base + 5 x AP left\n"
        "      base initiative +15, 5 x AP left +20\n"
        "      rule: ap-countdown.md, Initiative\n"
    ) in out
    assert "Archer's initiative (base): 9 = 2d10 + Qu - 1 per -10 penalty\n      2d10 +9, Qu +1, 1 per -10 penalty -1" in out
    assert "command: round --roll Hauser=6,8" in out
    assert "options: initiative=each-round, carry-ap=no" in out


def test_explain_the_resolution_count_of_a_declared_attack(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    """ap-countdown.md, Resolution: a 3 AP melee attack declared at 35 resolves at 20 = 35 - 5 x 3."""
    bridge(cli)
    data = as_json(cli, "explain", "8")
    numbers = {n["figure"]: n for n in data["numbers"]}
    assert numbers["at"] == {
        "figure": "at", "value": 20, "formula": "count - 5 x AP",
        "terms": [{"name": "count", "value": 35}, {"name": "5 x AP", "value": -15}],
        "roll": None, "rule": "ap-countdown.md, Resolution",
    }
    assert numbers["penalty"]["terms"] == [{"name": "1 AP under the maximum", "value": -25}]
    assert numbers["penalty"]["rule"] == "ap-countdown.md, Actions"
    assert numbers["count"] == {"figure": "count", "value": 35, "recorded": True, "rule": ""}
    assert data["command"] == "declare Hauser melee-attack --ap 3 --target Orc"


def test_explain_shows_tool_dice_as_recorded_and_never_decides_again(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli.ok("new", "Roll", "--rules", "ap-countdown", "--seed", "9")
    cli.ok("add", "Hauser", "--stat", "qu=1", "--stat", "hits=40")
    (line,) = cli.ok("round").splitlines()
    event = line.split()[0].lstrip("#")
    rolled = next(n for n in as_json(cli, "explain", event)["numbers"] if n.get("roll"))
    assert rolled["roll"]["source"] == "tool" and len(rolled["roll"]["faces"]) == 2

    def refuse(*_: object) -> None:
        raise AssertionError("explain must not decide anything again")

    monkeypatch.setattr(ApCountdown, "decide", refuse)
    monkeypatch.setattr(ApCountdown, "evolve", refuse)
    assert rolled in as_json(cli, "explain", event)["numbers"]
    assert "(rolled by skirmish)" in cli.ok("explain", event)


def test_explain_an_upkeep_tick_cites_the_rule_it_carries(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    out = cli.ok("explain", "32")
    assert out.splitlines()[0] == "#32 Upkeep: Orc bleeds 2 hits"
    assert "  as recorded: change -2, serial 0 (ap-countdown.md, Upkeep)" in out


def test_explain_an_unknown_event_is_one_error_line(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    assert cli.fails("explain", "999") == "Error: no event 999 in this encounter (see `skirmish log --all`)"


# --- why -------------------------------------------------------------------------------------


def test_why_the_orc_is_down_to_its_hits_from_the_blow_through_every_bleeding_tick(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    data = as_json(cli, "why", "orc", "hits_left")
    assert (data["who"], data["branch"], data["at"]) == ("Orc", "main", 83)
    (fig,) = data["figures"]
    assert (fig["start"], fig["now"]) == (30, -1)
    chain = [(c["id"], c["role"], c.get("before"), c.get("after")) for c in fig["chain"]]
    assert chain == [
        (19, "cause", None, None),  # Hauser's blow
        (20, "change", 30, 18),
        (21, "cause", None, None),  # the bleeding wound
        (32, "change", 18, 16),  # round 1 upkeep
        (51, "cause", None, None),
        (52, "change", 16, 7),
        (58, "change", 7, 5),  # round 2 upkeep
        (75, "cause", None, None),
        (76, "change", 5, 1),
        (81, "change", 1, -1),  # round 3 upkeep
    ]
    out = cli.ok("why", "Orc", "hits left")  # the label `state` prints; hits_left is taken too
    assert "  #21    Orc is bleeding (2 a round)   (cause)\n         by `effect Orc bleeding --per-round 2`" in out
    assert "  #32    Upkeep: Orc bleeds 2 hits   18 -> 16\n         by `next`" in out


def test_why_without_a_figure_lists_every_figure_not_at_its_start(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    figures = {f["figure"]: f for f in as_json(cli, "why", "Hauser")["figures"]}
    assert "hits left" in figures and "damage" in figures and "hits" not in figures
    # The stun came and went: effects are back at the start, so they are not listed.
    assert "effects" not in figures
    stun = as_json(cli, "why", "Hauser", "effects")["figures"][0]["chain"]
    assert [(c["id"], c["description"]) for c in stun] == [
        (28, "Hauser is stunned (1 round)"), (59, "Upkeep: Hauser's stunned ends")
    ]
    # The 16 hits typed in error and undone are no part of the branch's history.
    assert [c["id"] for c in figures["damage"]["chain"]] == [26, 27]


def test_why_refuses_an_unknown_figure_or_combatant(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    assert cli.fails("why", "Orc", "hitsleft") == "Error: Orc has no figure 'hitsleft' (did you mean hits left?)"
    assert cli.fails("why", "Ork").startswith("Error: no combatant named 'Ork' (did you mean Orc?)")


# --- verify ----------------------------------------------------------------------------------


def tamper(db: str, *statements: str) -> None:
    """What anyone with the sqlite3 shell can do: drop the guards, edit, commit."""
    store = Store(db)
    try:
        tamper_store(store, *statements)
    finally:
        store.close()


def test_verify_an_intact_log_prints_its_digest(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    out = cli.ok("verify")
    digest = out.split()[-1]
    assert out == f"intact: 'Bridge ambush', digest {digest}\n" and len(digest) == 64
    cli.ok("verify", "--expect", digest)
    assert as_json(cli, "verify") == {"encounter": "Bridge ambush", "intact": True, "digest": digest}


def test_verify_names_the_event_whose_body_was_changed(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    tamper(cli.db, "UPDATE events SET body = replace(body, '\"value\":12', '\"value\":8') WHERE id = 20")
    assert figure(cli, "Orc", "damage", "--at", "20") == 8  # the edit took
    assert cli.fails("verify") == "Error: event 20 (ap.damage-taken) was altered or re-ordered after it was recorded"
    assert cli.code == 4


def test_verify_names_a_deleted_leaf(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    tamper(cli.db, "DELETE FROM events WHERE id = 83")
    assert cli.fails("verify") == (
        "Error: event 83 was removed: head move 68 (append on main) points at a missing event"
    )


def test_verify_names_a_deleted_event_in_the_middle(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    tamper(cli.db, "DELETE FROM events WHERE id = 40")
    assert cli.fails("verify") == "Error: event 40 was removed: event 41 follows it"


def test_verify_names_the_first_of_two_events_swapped_in_order(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    tamper(cli.db, "UPDATE events SET id = -1 WHERE id = 42", "UPDATE events SET id = 42 WHERE id = 43",
           "UPDATE events SET id = 43 WHERE id = -1")
    assert cli.fails("verify") == (
        "Error: event 42 (ap.action-declared) was re-ordered: it follows event 42, which is not recorded before it"
    )


def test_verify_names_two_events_whose_bodies_were_swapped(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    conn = sqlite3.connect(cli.db)
    first, second = (conn.execute("SELECT body FROM events WHERE id = ?", (i,)).fetchone()[0] for i in (32, 33))
    conn.close()
    tamper(cli.db, f"UPDATE events SET body = '{second}' WHERE id = 32",
           f"UPDATE events SET body = '{first}' WHERE id = 33")
    assert cli.fails("verify") == "Error: event 32 (ap.upkeep-tick) was altered or re-ordered after it was recorded"


def test_verify_names_the_event_an_altered_head_move_points_at(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    tamper(cli.db, "UPDATE head_moves SET to_event = 27 WHERE reason = 'undo'")
    assert cli.fails("verify") == (
        "Error: head move 26 (undo on main) was altered, removed or re-ordered: it moves the head to event 27"
    )


def test_verify_names_the_earliest_fault_when_there_are_several(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    """A later command edited and an earlier event edited: the earlier event is named."""
    bridge(cli)
    tamper(
        cli.db,
        "UPDATE commands SET text = 'resolve Orc --outcome hit' WHERE text = 'resolve Orc --outcome miss'",
        "UPDATE events SET body = replace(body, '\"value\":12', '\"value\":8') WHERE id = 20",
        "UPDATE events SET body = replace(body, '\"per_round\":2', '\"per_round\":1') WHERE id = 21",
    )
    assert cli.fails("verify") == "Error: event 20 (ap.damage-taken) was altered or re-ordered after it was recorded"


# --- diff ------------------------------------------------------------------------------------


def test_diff_two_branches_figure_by_figure_and_where_they_split(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    data = as_json(cli, "diff", "main", "what-if")
    assert data["split"] == {"id": 52, "description": "Orc takes 9 hits (7 left)"}
    assert (data["a"], data["b"]) == ({"name": "main", "at": 83}, {"name": "what-if", "at": 57})
    assert [e["id"] for e in data["only_b"]] == [53, 54, 55, 56, 57]
    orc = next(c for c in data["combatants"] if c["name"] == "Orc")["figures"]
    assert {"figure": "hits left", "a": -1, "b": 5} in orc
    out = cli.ok("diff", "main", "what-if")
    assert out.splitlines()[0] == "main (#83) and what-if (#57) split after #52 Orc takes 9 hits (7 left)"
    assert "Orc:\n" in out and "  hits left: -1 | 5\n" in out


def test_diff_two_events_of_one_history(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    data = as_json(cli, "diff", "20", "32")
    assert data["split"]["id"] == 20 and data["only_a"] == []
    assert [c for c in data["combatants"] if c["name"] == "Orc"][0]["figures"] == [
        {"figure": "hits left", "a": 18, "b": 16},
        {"figure": "damage", "a": 12, "b": 14},
        {"figure": "effects", "a": [], "b": [{"kind": "bleeding", "left": None, "detail": "2 a round", "custom": False}]},
    ]


def test_diff_of_a_moment_with_itself_finds_nothing(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    assert cli.ok("diff", "main", "83").endswith("no figure differs\n")
    assert cli.fails("diff", "main", "elsewhere").startswith("Error: no branch named 'elsewhere'")


# --- amend -----------------------------------------------------------------------------------


def test_amend_wrong_damage_in_round_one_changes_the_later_ticks_and_the_outcome(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    """The GM read 12 off the table; it was 8. The Orc, down at -1 on main, survives at 3."""
    bridge(cli)
    main_before = cli.ok("log")
    digest = cli.ok("verify").split()[-1]
    out = cli.ok("amend", "20", "--branch", "eight", "--", "resolve", "Hauser", "--outcome", "hit: 8 hits", "--hits", "8")
    assert out.splitlines()[0] == "Branch 'eight' starts at #17; 'main' stays as it was"
    assert "0 skipped" in out
    # The original branch is as it was: same events, same figures.
    assert figure(cli, "Orc", "hits_left") == -1
    assert cli.ok("log") == main_before
    cli.ok("switch", "eight")
    assert figure(cli, "Orc", "hits_left") == 3
    ticks = [(c["before"], c["after"]) for c in as_json(cli, "why", "Orc", "hits_left")["figures"][0]["chain"]
             if c["role"] == "change" and c["description"] == "Upkeep: Orc bleeds 2 hits"]
    assert ticks == [(22, 20), (11, 9), (5, 3)]  # on main: 18 -> 16, 7 -> 5, 1 -> -1
    diff = as_json(cli, "diff", "main", "eight")
    orc = next(c for c in diff["combatants"] if c["name"] == "Orc")["figures"]
    assert {"figure": "hits left", "a": -1, "b": 3} in orc
    assert diff["split"]["id"] == 17
    # The undone "damage Hauser 16" stays undone on the new branch too.
    assert figure(cli, "Hauser", "damage") == 6
    # The log still verifies; the digest moved on (the new branch was added).
    assert cli.ok("verify").split()[-1] != digest


def test_amend_a_bleeding_wound_changes_every_tick_after_it(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    cli.ok("amend", "21", "--", "effect", "Orc", "bleeding", "--per-round", "1")
    assert [b["name"] for b in as_json(cli, "branches")] == ["main", "what-if", "amend-21"]
    cli.ok("switch", "amend-21")
    ticks = [c["description"] for c in as_json(cli, "why", "Orc", "hits_left")["figures"][0]["chain"]
             if c["description"].startswith("Upkeep")]
    assert ticks == ["Upkeep: Orc bleeds 1 hits"] * 3
    assert figure(cli, "Orc", "hits_left") == 2


def test_amend_reports_commands_no_longer_valid_and_loses_nothing(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    before = cli.ok("log")
    data = json.loads(cli.ok("amend", "3", "--branch", "no-mira", "--json", "--",
                             "add", "Mirabel", "--side", "players", "--stat", "qu=2", "--stat", "hits=32"))
    steps = data["commands"]
    assert steps[0] == {"command": "add Mirabel --side players --stat qu=2 --stat hits=32", "old": [3],
                        "new": [steps[0]["new"][0]], "skipped": None}
    round_one = next(s for s in steps if s["old"] == [6])
    assert round_one["skipped"] == "no combatant named 'Mira' (did you mean Mirabel?)"
    assert round_one["new"] == []
    assert cli.ok("log") == before
    out = cli.ok("amend", "3", "--", "add", "Mirabel", "--side", "players", "--stat", "qu=2", "--stat", "hits=32")
    assert ("  skipped #6 `round --roll Hauser=6,8 --roll Mira=3,9 --roll Orc=5,5 --roll Archer=7,2`: "
            "no combatant named 'Mira' (did you mean Mirabel?)") in out


def test_amend_uses_the_tools_dice_again(cli: Cli) -> None:
    """Only what the correction changes changes: a round rolled by the tool keeps its faces."""
    cli.ok("new", "Rolled", "--rules", "ap-countdown", "--seed", "3")
    cli.ok("add", "Hauser", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Orc", "--stat", "qu=0", "--stat", "hits=30")
    cli.ok("damage", "Orc", "12")
    cli.ok("round")
    rolled = as_json(cli, "state")["combatants"]
    cli.ok("amend", "4", "--", "damage", "Orc", "8")
    cli.ok("switch", "amend-4")
    again = as_json(cli, "state")["combatants"]
    assert [c["own"]["base_initiative"] for c in again] == [c["own"]["base_initiative"] for c in rolled]
    orc_again, orc_rolled = (next(c for c in rows if c["name"] == "Orc") for rows in (again, rolled))
    assert (orc_again["own"]["damage"], orc_rolled["own"]["damage"]) == (8, 12)


def test_amend_carries_a_note_to_the_event_decided_again(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    cli.ok("note", "20", "disputed: 12 or 8?")
    out = cli.ok("amend", "20", "--branch", "eight", "--", "resolve", "Hauser", "--hits", "8")
    assert "  #84 -> #145 `note 87 'disputed: 12 or 8?'`\n" in out
    cli.ok("switch", "eight")
    damage = next(json.loads(line) for line in cli.ok("log", "--json", "--limit", "0").splitlines()
                  if json.loads(line)["kind"] == "ap.damage-taken" and json.loads(line)["who"] == "Orc")
    assert damage["hits"]["value"] == 8
    assert [n["text"] for n in damage["notes"]] == ["disputed: 12 or 8?"]


def test_amend_refusals_record_nothing(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    before = counts(cli.db)
    assert cli.fails("amend", "1", "--", "damage", "Orc", "3") == (
        "Error: the encounter's first event cannot be amended: start a new encounter instead"
    )
    assert cli.fails("amend", "55", "--", "damage", "Orc", "3") == (
        "Error: event 55 is not in the history of branch 'main': `skirmish switch` to the branch it is on first"
    )
    assert cli.fails("amend", "20", "--", "damage", "Nobody", "3") == (
        "Error: no combatant named 'Nobody' (combatants: Hauser, Mira, Orc, Archer)"
    )
    assert cli.fails("amend", "20", "--", "damage", "Orc", "x") == (
        "Error: the new command: AMOUNT takes a whole number, not 'x'"
    )
    assert cli.fails("amend", "20", "--", "undo") == (
        "Error: `undo` decides no events: it cannot stand in for a command"
    )
    assert cli.fails("amend", "20", "--", "bogus") == (
        "Error: the new command: no command 'bogus' (`skirmish --help` lists them)")
    assert cli.fails("amend", "20", "--branch", "what-if", "--", "damage", "Orc", "3") == (
        "Error: a branch named 'what-if' already exists"
    )
    assert counts(cli.db) == before


# --- notes -----------------------------------------------------------------------------------


def test_notes_show_beside_their_event_in_log_and_replay(cli: Cli, bridge: Callable[[Cli], None]) -> None:
    bridge(cli)
    cli.ok("note", "20", "the players say 8")
    cli.ok("note", "21", "taken back")
    cli.ok("undo")
    log = cli.ok("log", "--limit", "0")
    assert "#20    Orc takes 12 hits (18 left)\n         note #84: the players say 8\n#21 " in log
    assert "taken back" not in log
    assert "#20    Orc takes 12 hits (18 left)\n         note #84: the players say 8\n#21 " in cli.ok(
        "log", "--from", "20", "--limit", "2")
    replay = cli.ok("replay", "--from", "20", "--to", "21")
    assert replay.splitlines()[3] == "         note #84: the players say 8"
    line = json.loads(cli.ok("log", "--json", "--limit", "0").splitlines()[19])
    assert (line["id"], line["notes"]) == (20, [{"id": 84, "text": "the players say 8"}])
    assert as_json(cli, "explain", "20")["notes"] == [{"id": 84, "text": "the players say 8"}]


# --- for every ruleset -------------------------------------------------------------------------


AMEND_EXAMPLES = settings(
    max_examples=examples(25), deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.mark.parametrize("ruleset_id", RULESETS)
@AMEND_EXAMPLES
@given(data=st.data())
def test_amending_a_command_with_itself_changes_no_figure(ruleset_id: str, data: st.DataObject) -> None:
    """Any ruleset, any history (undos, redos, branches): deciding the branch again from any
    command, unchanged, skips nothing and ends where the branch ends, figure for figure."""
    run = Run(data, ruleset_id)
    try:
        for _ in range(data.draw(st.integers(1, 40), label="steps")):
            if data.draw(st.integers(0, 5), label="move?") == 0:
                run.move()
            else:
                run.step()
        enc = run.enc
        original = enc.head()
        path = enc.path(original.event_id)
        if len(path) < 2:
            return
        # A command the branch holds only in part (forked between its events) is replaced
        # by the whole new command: amend documents that, so such a target is left out here.
        sizes = Counter(row.command_id for row in enc.event_rows())
        held = Counter(rec.command_id for rec in path)
        whole = [rec for rec in path[1:] if held[rec.command_id] == sizes[rec.command_id]]
        if not whole:
            return
        target = data.draw(st.sampled_from(whole), label="amend")
        command = command_decoder.decode(enc.command(target.command_id).body)
        done = amend(enc, target.id, command, "the same again", None, "test amend")
        assert [s.skipped for s in done.steps if s.skipped is not None] == [], [
            (s.text, s.old, s.skipped) for s in done.steps]
        assert enc.head() == original and enc.branch == original.branch
        amended = enc.head(done.branch).event_id
        assert len(enc.path(amended)) == len(path)
        result = diff(enc, original.branch, done.branch)
        assert (result.scene, result.combatants) == ([], []), (result, done.to_json())
        assert run.store.verify(enc.row.id)
    finally:
        run.close()


def test_amend_stops_on_another_writer_rather_than_skipping(
    cli: Cli, bridge: Callable[[Cli], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A moved head is the store's news, not a conflict of the command: it is not "skipped"."""
    bridge(cli)
    real = Store.append
    calls = []

    def append_then_interfere(self: Store, *args: Any) -> list[int]:
        calls.append(1)
        if len(calls) == 3:
            raise HeadMoved("branch 'eight' moved (another writer)")
        return real(self, *args)

    monkeypatch.setattr(Store, "append", append_then_interfere)
    before = json.loads(cli.ok("branches", "--json"))
    assert cli.fails("amend", "20", "--branch", "eight", "--", "damage", "Orc", "8") == (
        "Error: branch 'eight' moved (another writer)"
    )
    assert cli.code == 3
    # The amend is one transaction: no half-built branch is left behind.
    assert json.loads(cli.ok("branches", "--json")) == before


@pytest.mark.slow
def test_amend_decides_aside_and_the_table_plays_on(tmp_path: Path) -> None:
    """An amend of a long branch decides every later command again (seconds) on a copy of
    the file, not under its write lock: another process's command lands meanwhile, and the
    amend, finding the log moved, records nothing (exit 3); run again, it lands."""
    import os
    import shlex
    import subprocess
    import sys
    import time

    from benchmarks.fight import generate

    db = str(tmp_path / "long.db")
    store, enc = generate(db, 8_000)
    rec = enc.path(enc.head().event_id)[30]
    typed = shlex.split(store.command(rec.command_id).text)
    store.close()
    script = str(Path(sys.executable).with_name("skirmish"))
    amend = [script, "--db", db, "amend", str(rec.id), "--", *typed]
    scratch = tmp_path / "scratch"  # where the amend's copy goes: seen there, it is deciding
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    running = subprocess.Popen(amend, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        for _ in range(600):
            if list(scratch.glob("skirmish-aside-*/aside.db")) or running.poll() is not None:
                break
            time.sleep(0.05)
        note = subprocess.run([script, "--db", db, "note", str(rec.id), "the table plays on"],
                              capture_output=True, text=True, timeout=60)
        assert note.returncode == 0, note.stderr
        assert running.poll() is None  # the amend was still deciding when the note landed
        out, err = running.communicate(timeout=300)
    finally:
        if running.poll() is None:
            running.kill()
    assert running.returncode == 3 and "the log moved while this was decided" in err, err
    branches = subprocess.run([script, "--db", db, "branches"], capture_output=True, text=True, check=True).stdout
    assert f"amend-{rec.id}" not in branches
    again = subprocess.run(amend, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"Branch 'amend-{rec.id}' starts at" in again.stdout
    subprocess.run([script, "--db", db, "verify"], check=True, capture_output=True)
