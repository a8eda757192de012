"""The command line: what a GM types, what it prints, and that refusals record nothing."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from support.cli import Cli


def setup_fight(cli: Cli, *options: str) -> None:
    cli.ok("new", "Bridge ambush", "--rules", "ap-countdown", "--seed", "5", *options)
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")


def counts(db: str) -> tuple[int, int, int]:
    conn = sqlite3.connect(db)
    try:
        return tuple(  # type: ignore[return-value]
            conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("events", "head_moves", "commands")
        )
    finally:
        conn.close()


REFUSALS = [
    (("delcare", "Hauser", "melee-attack"), "Error: No such command 'delcare'."),
    (("declare", "Hauser", "melee-atack"), "Error: no action 'melee-atack' in the ap-countdown table (did you mean melee-attack?)"),
    (("declare", "Hausr", "melee-attack"), "Error: no combatant named 'Hausr' (did you mean Hauser?)"),
    (("declare", "Orc", "melee-attack"), "Error: not Orc's turn: initiative 30, the count is 35 (ap-countdown.md, Resolution)"),
    (("declare", "Hauser", "melee-attack", "--ap", "5"), "Error: melee-attack costs 2-4 AP, not 5 (ap-countdown.md, Actions)"),
    (("resolve", "Hauser"), "Error: Hauser has no action under way to resolve (ap-countdown.md, Resolution)"),
    (("round",), "Error: round 1 is still under way: finish it with `skirmish upkeep` (ap-countdown.md, Upkeep)"),
    (("damage", "Orc", "many"), "Error: Invalid value for 'amount': 'many' is not a valid int."),
    (("effect", "Orc", "bleeding"), "Error: bleeding needs --per-round N, the hits lost each upkeep"),
    (("add", "Goblin", "--stat", "qu=1"), "Error: Goblin needs --stat hits=N (hits the combatant can take)"),
    (("add", "Goblin", "--stat", "qu=1", "--stat", "hits=5", "--stat", "agility=3"), "Error: ap-countdown has no stat 'agility' for Goblin (stats: qu, hits, penalty)"),
    (("add", "Goblin", "--stat", "qu=fast", "--stat", "hits=5"), "Error: stat qu of Goblin must be a whole number, not 'fast'"),
    (("add", "orc", "--stat", "qu=1", "--stat", "hits=5"), "Error: there is already a combatant named orc"),
    (("state", "--at", "999"), "Error: no event 999 in this encounter (see `skirmish log --all`)"),
    (("switch", "nowhere"), "Error: no branch named 'nowhere' (branches: main)"),
    (("redo",), "Error: nothing to redo on this branch"),
    (("use", "Elsewhere"), "Error: no encounter named 'Elsewhere' (encounters: Bridge ambush)"),
    (("new", "Bridge ambush", "--rules", "ap-countdown"), "Error: an encounter named 'Bridge ambush' already exists: `skirmish use 'Bridge ambush'`"),
    (("new", "Other", "--rules", "dnd"), "Error: no ruleset 'dnd' (rulesets: ap-countdown"),
    (("declare", "Hauser", "dodge", "--with", "cover=full"), "Error: ap-countdown `declare` has no detail 'cover' (it takes none)"),
    (("declare", "Hauser", "dodge", "--with", "cover"), "Error: --with takes KEY=VALUE, not 'cover'"),
    (("damage", "Orc", "3", "--roll", "Orc=4"), "Error: no roll of this command uses the dice typed for Orc"),
    (("new", "Other", "--rules", "ap-countdown", "--option", "initiative=sometimes"), "Error: option initiative takes each-round or once, not 'sometimes'"),
    (("new", "Other", "--rules", "ap-countdown", "--option", "reroll"), "Error: --option takes KEY=VALUE, not 'reroll'"),
]


@pytest.mark.parametrize(("args", "error"), REFUSALS, ids=[" ".join(a) for a, _ in REFUSALS])
def test_refusal_is_one_line_and_records_nothing(cli: Cli, args: tuple[str, ...], error: str) -> None:
    setup_fight(cli)
    cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")
    before = counts(cli.db)
    assert cli.fails(*args).startswith(error)
    assert counts(cli.db) == before


def test_dice_faces_out_of_range_are_refused(cli: Cli) -> None:
    setup_fight(cli)
    before = counts(cli.db)
    assert cli.fails("round", "--roll", "Hauser=11,3") == "Error: 2d10 for Hauser takes 2 faces from 1 to 10, not 11,3"
    assert cli.fails("round", "--roll", "Hauser=6") == "Error: 2d10 for Hauser takes 2 faces from 1 to 10, not 6"
    assert cli.fails("round", "--roll", "Hauser=six,8").startswith("Error: --roll Hauser= takes the faces as numbers")
    assert cli.fails("round", "--roll", "Nobody=6,8") == "Error: no combatant named 'Nobody' (combatants: Hauser, Orc)"
    assert counts(cli.db) == before


def test_more_ap_than_left_is_refused(cli: Cli) -> None:
    setup_fight(cli)
    cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")
    cli.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")
    cli.ok("next")
    cli.ok("next")
    cli.ok("resolve", "Hauser", "--outcome", "hit")
    before = counts(cli.db)
    assert cli.fails("declare", "Hauser", "melee-attack", "--ap", "2") == (
        "Error: Hauser has 1 AP left, melee-attack needs 2 (ap-countdown.md, Action Points)"
    )
    assert counts(cli.db) == before


def test_resolving_before_the_count_is_refused(cli: Cli) -> None:
    setup_fight(cli)
    cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")
    cli.ok("declare", "Hauser", "melee-attack", "--ap", "3")
    before = counts(cli.db)
    assert cli.fails("resolve", "Hauser") == (
        "Error: Hauser's melee-attack resolves at 20; the count is 35 (ap-countdown.md, Resolution)"
    )
    assert counts(cli.db) == before


def test_reading_a_missing_database_creates_nothing(cli: Cli, tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    cli.db = str(missing)
    assert cli.fails("state").startswith(f"Error: no skirmish database at {missing}")
    assert not missing.exists()


def test_a_file_that_is_not_a_database_is_refused(cli: Cli, tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("not a database, just notes " * 100)
    cli.db = str(junk)
    assert cli.fails("state").startswith(f"Error: {junk} cannot be used as a skirmish database")
    assert junk.read_text().startswith("not a database")


def test_state_json_has_the_shared_shape(cli: Cli) -> None:
    setup_fight(cli)
    cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")
    cli.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")
    view = json.loads(cli.ok("state", "--json"))
    # The typed view (projections/view.py), version 2 (docs/tutorial.md, "Reading the state").
    assert set(view) == {"view", "encounter", "ruleset", "branch", "head", "at", "clock", "combatants", "pending", "own"}
    assert (view["view"], view["ruleset"], view["branch"], view["clock"]["round"]) == (2, "ap-countdown", "main", 1)
    # Hauser 6 + 8 + 1 = 15, + 5 x 4 AP = 35; the count is 35 and nobody else acts there.
    assert view["clock"] == {"round": 1, "unit": "round", "running": True, "moment": "count 35", "now": [],
                             "next": ["Orc"], "phase": None, "own": {"count": 35}}
    hauser = view["combatants"][0]
    assert hauser == {
        "name": "Hauser", "side": "players", "status": "fighting", "acting": False,
        "vital": {"name": "hits left", "value": 40, "maximum": 40}, "budget": {"name": "AP", "left": 4, "of": 4},
        "effects": [],
        "own": {"initiative": 35, "base_initiative": 15, "ap": 4, "ap_spent": 0, "hits": 40, "damage": 0,
                "pace": "still", "delay": 0, "out_of_round": False, "parry": None},
    }
    # 3 AP of melee-attack's 2-4 at 35: resolves at 35 - 15 = 20, at -25 for 1 AP under the maximum.
    assert view["pending"] == [{
        "who": "Hauser", "action": "melee-attack", "target": "Orc", "resolves": "count 20",
        "own": {"ap": 3, "resolves_at": 20, "step": "resolves", "trigger": None, "progress": 0, "penalty": -25},
    }]


def test_log_json_is_one_object_per_event(cli: Cli) -> None:
    setup_fight(cli)
    lines = [json.loads(line) for line in cli.ok("log", "--json").splitlines()]
    assert [(e["id"], e["parent"], e["kind"]) for e in lines] == [
        (1, None, "encounter-started"), (2, 1, "combatant-added"), (3, 2, "combatant-added"),
    ]
    assert lines[1]["name"] == "Hauser" and lines[1]["stats"] == {"qu": 1, "hits": 40, "penalty": 0}
    assert lines[0]["options"] == {"initiative": "each-round", "carry-ap": "no", "goes-down": "at-0", "pace-penalty": "worst"}


def test_undo_keeps_the_event_and_log_all_marks_it(cli: Cli) -> None:
    setup_fight(cli)
    cli.ok("damage", "Orc", "5")
    cli.ok("undo")
    assert "Orc takes 5" not in cli.ok("log")
    assert "#4     Orc takes 5 hits (25 left)  (undone)" in cli.ok("log", "--all")
    assert "undo   main: #4 -> #3" in cli.out
    cli.ok("redo")
    assert "Orc takes 5 hits" in cli.ok("log")
    all_json = [json.loads(line) for line in cli.ok("log", "--all", "--json").splitlines()]
    assert all(not e["undone"] for e in all_json)


def test_branch_and_switch(cli: Cli) -> None:
    setup_fight(cli)
    cli.ok("damage", "Orc", "5")
    cli.ok("branch", "what-if", "--at", "3")
    assert "* main  at #4" in cli.ok("branches")
    cli.ok("switch", "what-if")
    cli.ok("damage", "Orc", "9")
    orc = lambda: next(c for c in json.loads(cli.ok("state", "--json"))["combatants"] if c["name"] == "Orc")  # noqa: E731
    assert orc()["vital"]["value"] == 21
    cli.ok("switch", "main")
    assert orc()["vital"]["value"] == 25
    assert json.loads(cli.ok("branches", "--json")) == [
        {"name": "main", "head": 4, "moves": 5, "current": True},
        {"name": "what-if", "head": 5, "moves": 3, "current": False},
    ]


def test_state_at_a_past_event(cli: Cli) -> None:
    setup_fight(cli)
    cli.ok("damage", "Orc", "5")
    past = json.loads(cli.ok("state", "--json", "--at", "3"))
    assert past["at"] == 3 and past["head"] == 4
    assert next(c for c in past["combatants"] if c["name"] == "Orc")["own"]["damage"] == 0


def test_several_encounters_and_use(cli: Cli) -> None:
    setup_fight(cli)
    cli.ok("new", "Second fight", "--rules", "ap-countdown")
    listed = cli.ok("encounters").splitlines()
    assert [line[:2] + line[2:].split("  ")[0] for line in listed] == ["  Bridge ambush", "* Second fight"]
    names = [(e["name"], e["current"]) for e in json.loads(cli.ok("encounters", "--json"))]
    assert names == [("Bridge ambush", False), ("Second fight", True)]
    assert json.loads(cli.ok("state", "--json"))["combatants"] == []
    cli.ok("use", "Bridge ambush")
    assert len(json.loads(cli.ok("state", "--json"))["combatants"]) == 2


def test_skirmish_db_environment_variable(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from skirmish.cli.main import run_cli

    monkeypatch.setenv("SKIRMISH_DB", str(tmp_path / "env.db"))
    assert run_cli(["new", "Env fight", "--rules", "ap-countdown"]) == 0
    assert (tmp_path / "env.db").exists()
    assert not (tmp_path / "skirmish.db").exists()


def test_default_database_is_skirmish_db_in_the_working_directory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from skirmish.cli.main import run_cli

    assert run_cli(["new", "Here", "--rules", "ap-countdown"]) == 0
    assert (tmp_path / "skirmish.db").exists()


def test_note_and_verify(cli: Cli) -> None:
    setup_fight(cli)
    assert "#4 Note on #2: Hauser's player rolled in the open" in cli.ok("note", "2", "Hauser's player rolled in the open")
    digest = cli.ok("verify").split("digest ")[1].strip()
    assert len(digest) == 64 and cli.ok("verify").endswith(digest + "\n")
    assert cli.fails("note", "99", "nothing") == "Error: no event 99 in this encounter (see `skirmish log --all`)"


def test_replay_narrates_with_round_count_and_changes(cli: Cli) -> None:
    setup_fight(cli)
    cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")
    cli.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")
    cli.ok("next")
    cli.ok("next")
    cli.ok("resolve", "Hauser", "--outcome", "hit", "--hits", "12")
    out = cli.ok("replay", "--from", "5")
    assert out.splitlines()[0].startswith("#5     [round 1, count 35] Hauser declares melee-attack on Orc")
    assert "Orc: hits left 30 -> 18" in out
    assert "#1 " not in out
    partial = cli.ok("replay", "--to", "4")
    narrated = [line for line in partial.splitlines() if line.startswith("#")]
    assert narrated[-1].startswith("#4 ") and "Round 1 begins: initiative Hauser 35, Orc 30; the count starts at 35" in narrated[-1]


def test_run_is_all_or_nothing_and_the_fixed_script_runs_again(cli: Cli, tmp_path: Path) -> None:
    script = tmp_path / "fight.skirmish"
    lines = [
        "# a comment",
        "new 'Script fight' --rules ap-countdown",
        "",
        "skirmish add Hauser --stat qu=1 --stat hits=40  # trailing comment",
        "add Hauser --stat qu=1 --stat hits=40",
        "add Never --stat qu=1 --stat hits=1",
    ]
    script.write_text("\n".join(lines) + "\n")
    cli("run", str(script))
    assert cli.code != 0
    assert cli.err.strip() == f"Error: {script}:5: there is already a combatant named Hauser"
    assert "> add Hauser --stat qu=1 --stat hits=40" in cli.out
    assert f"Nothing of {script} was recorded: fix line 5 and run it again" in cli.out
    # Not even the encounter: the file the script would have made is not left behind.
    assert not Path(cli.db).exists()
    del lines[4]
    script.write_text("\n".join(lines) + "\n")
    cli.ok("run", str(script))
    assert [c["name"] for c in json.loads(cli.ok("state", "--json"))["combatants"]] == ["Hauser", "Never"]


def test_a_refused_script_leaves_an_existing_database_as_it_was(cli: Cli, tmp_path: Path) -> None:
    setup_fight(cli)
    before = cli.ok("log", "--all", "--json")
    script = tmp_path / "more.skirmish"
    script.write_text("damage Orc 3\nnew 'Second fight' --rules modular\ndamage Nobody 1\n")
    cli("run", str(script))
    assert cli.code != 0 and cli.err.strip().startswith(f"Error: {script}:3: no combatant named 'Nobody'")
    assert cli.ok("log", "--all", "--json") == before
    assert "Second fight" not in cli.ok("encounters")


def test_a_refused_command_says_nothing_was_recorded_and_undo_says_what_it_undoes(cli: Cli) -> None:
    setup_fight(cli)
    cli.ok("damage", "Orc", "5")
    cli.fails("damage", "Orc", "0")
    assert cli.out == "Nothing was recorded (`skirmish undo` would take back the command before this one).\n"
    assert cli.ok("undo").startswith("Undid `damage Orc 5`: branch 'main' is back at #3")
    assert cli.ok("redo").startswith("Redid `damage Orc 5`: branch 'main' is at #4")
    cli.ok("damage", "Orc", "2")
    assert cli.ok("undo", "2").startswith("Undid `damage Orc 2`; `damage Orc 5`: branch 'main' is back at #3")
    cli.fails("state", "--at", "999")
    assert cli.out == "", "a read records nothing and says nothing about it"


def test_branch_before_an_event_starts_before_the_command_that_recorded_it(cli: Cli) -> None:
    setup_fight(cli)
    cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")  # #4 the round, #5 .. its other events
    cli.ok("damage", "Orc", "5")
    damage = json.loads(cli.ok("log", "--json").splitlines()[-1])["id"]
    assert cli.ok("branch", "again", "--before", str(damage)).startswith(f"Branch 'again' starts at #{damage - 1}")
    round_events = [json.loads(line) for line in cli.ok("log", "--json").splitlines()][3:-1]
    last_of_round = round_events[-1]["id"]
    assert cli.ok("branch", "reroll", "--before", str(last_of_round)).startswith("Branch 'reroll' starts at #3")
    assert cli.fails("branch", "x", "--before", "1") == "Error: #1 is where the encounter begins: there is nothing before it"
    assert cli.fails("branch", "x", "--before", "4", "--at", "3") == "Error: branch takes --at EVENT or --before EVENT, not both"


def test_usage_errors_are_one_line(cli: Cli) -> None:
    setup_fight(cli)
    assert cli.fails("declare").startswith("Error: Missing argument 'who'.")
    assert cli.fails("round", "--roll").startswith("Error: Option '--roll' requires an argument.")
    assert cli.fails("state", "--color").startswith("Error: No such option: --color")


@pytest.mark.slow
def test_installed_script_runs_as_a_process(tmp_path: Path) -> None:
    """The console script the README uses, as a real process: the sample, then state --json."""
    import subprocess
    import sys

    script = Path(sys.executable).with_name("skirmish")
    assert script.exists(), f"the skirmish console script is not installed beside {sys.executable}"
    sample = Path(__file__).resolve().parents[2] / "samples" / "bridge-ambush.skirmish"
    env = {**os.environ, "SKIRMISH_DB": str(tmp_path / "demo.db")}
    played = subprocess.run([script, "run", str(sample)], capture_output=True, text=True, env=env, timeout=120)
    assert played.returncode == 0, played.stderr
    state = subprocess.run([script, "state", "--json"], capture_output=True, text=True, env=env, timeout=60)
    assert state.returncode == 0 and state.stderr == ""
    assert json.loads(state.stdout)["clock"]["round"] == 3
    bad = subprocess.run([script, "declare", "Nobody", "dodge"], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode != 0 and bad.stdout.startswith("Nothing was recorded")
    assert bad.stderr.startswith("Error: ") and len(bad.stderr.strip().splitlines()) == 1
    assert "Traceback" not in bad.stderr


BAD_VALUES = [
    (("damage", "Orc", "99999999999999999999"), "Error: amount 99999999999999999999 is out of range (at most 1,000,000 either way)"),
    (("add", "Gob", "--stat", "qu=99999999999", "--stat", "hits=5"), "Error: stat qu of Gob is out of range"),
    (("add", "Gob", "--stat", "qu=1", "--stat", "qu=2", "--stat", "hits=5"), "Error: --stat qu= is given twice"),
    (("add", "Gob=2", "--stat", "qu=1", "--stat", "hits=5"), "Error: 'Gob=2' cannot be a combatant's name"),
    (("add", "Gob\nlin", "--stat", "qu=1", "--stat", "hits=5"), "Error: 'Gob\\nlin' cannot be a combatant's name"),
    (("add", "Gob", "--side", " ", "--stat", "qu=1", "--stat", "hits=5"), "Error: ' ' cannot be a side's name"),
    (("round", "--roll", "Hauser=6,8", "--roll", "hauser=5,5"), "Error: --roll hauser= is given twice"),
    (("state", "--at", "99999999999999999999"), "Error: no event 99999999999999999999 in this encounter"),
    (("note", "99999999999999999999", "x"), "Error: no event 99999999999999999999 in this encounter"),
    (("declare", "Hauser", "melee-attack", "--target", ""), "Error: no combatant named ''"),
    (("branch", "what if?", "--at", "99999999999999999999"), "Error: no event 99999999999999999999 in this encounter"),
]


@pytest.mark.parametrize(("args", "error"), BAD_VALUES, ids=[" ".join(a) for a, _ in BAD_VALUES])
def test_bad_values_are_refused_in_one_line(cli: Cli, args: tuple[str, ...], error: str) -> None:
    setup_fight(cli)
    if args[0] != "round":
        cli.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")
    before = counts(cli.db)
    assert cli.fails(*args).startswith(error)
    assert counts(cli.db) == before


def test_an_empty_database_path_is_refused(cli: Cli) -> None:
    cli.db = ""
    assert cli.fails("new", "Lost", "--rules", "ap-countdown") == (
        "Error: the database path is empty: give --db a file name"
    )


def test_verify_expect_compares_a_noted_digest(cli: Cli) -> None:
    setup_fight(cli)
    digest = cli.ok("verify").split("digest ")[1].strip()
    cli.ok("verify", "--expect", digest)
    cli.ok("damage", "Orc", "3")
    assert cli.fails("verify", "--expect", digest).startswith(
        "Error: the log is intact but its digest is "
    )
    assert cli.code == 4


def test_a_script_line_that_cannot_be_read_records_nothing_of_the_script(cli: Cli, tmp_path: Path) -> None:
    """The script is streamed, not read through first: line 1 has run when line 2 is found
    unreadable, and is rolled back with it (tests/cli/test_run_streamed.py)."""
    script = tmp_path / "broken.skirmish"
    script.write_text("new 'Half fight' --rules ap-countdown\nadd 'Unclosed --stat qu=1\n")
    assert cli.fails("run", str(script)) == f'Error: {script}:2: a quote is not closed (quote names with spaces: "Goblin 1")'
    assert not Path(cli.db).exists() or "Half fight" not in cli.ok("encounters")
    elsewhere = tmp_path / "elsewhere.skirmish"
    elsewhere.write_text("new 'Half fight' --rules ap-countdown\nstate --db other.db\n")
    assert cli.fails("run", str(elsewhere)) == f"Error: {elsewhere}:2: --db goes on the `run` command, not in the script"
    binary = tmp_path / "binary.skirmish"
    binary.write_bytes(b"\xff\xfe\x00new")
    assert cli.fails("run", str(binary)) == f"Error: {binary} is not a text file (UTF-8) of skirmish commands"


def test_rules_lists_actions_with_their_costs(cli: Cli) -> None:
    out = cli.ok("rules", "ap-countdown")
    assert "actions (declare WHO ACTION):" in out
    assert "  melee-attack (2-4 AP): faster than its maximum at -25 per AP" in out
    assert "  static-action (8+ AP)" in out
    assert "  parry (no AP)" in out


def test_nothing_of_one_run_leaks_into_the_next(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Per-run state rides on Typer's context object: a second command line in the same
    process does not inherit the first one's --db (no module globals)."""
    from skirmish.cli.main import run_cli

    elsewhere = str(tmp_path / "elsewhere.db")
    assert run_cli(["--db", elsewhere, "new", "Elsewhere", "--rules", "modular"]) == 0
    capsys.readouterr()
    assert run_cli(["encounters"]) != 0  # ./skirmish.db, the default: there is none
    assert "no skirmish database at skirmish.db" in capsys.readouterr().err
    assert run_cli(["--db", elsewhere, "encounters"]) == 0
    assert "Elsewhere" in capsys.readouterr().out


@pytest.mark.slow
def test_the_command_modules_import_without_main() -> None:
    """No import cycle: audit and reports register on cli/app.py's app, not on main's."""
    import subprocess
    import sys

    code = (
        "import sys, skirmish.cli.audit, skirmish.cli.reports\n"
        "assert 'skirmish.cli.main' not in sys.modules, 'audit or reports imported main'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_a_script_names_the_file_it_runs_on(cli: Cli, tmp_path: Path) -> None:
    """`skirmish --db demo.db run FILE`: a `new` or `import` line says the encounter is now
    current in demo.db, the file the script writes, never in the default ./skirmish.db."""
    from skirmish.cli.main import run_cli

    other = str(tmp_path / "other.db")
    assert run_cli(["--db", other, "new", "Elsewhere", "--rules", "ap-countdown"]) == 0
    assert run_cli(["--db", other, "export", "--out", str(tmp_path / "elsewhere.jsonl")]) == 0
    script = tmp_path / "fight.skirmish"  # an import goes into a new file: it comes first
    script.write_text(f'import {tmp_path / "elsewhere.jsonl"}\nnew "Second" --rules crisis\n', encoding="utf-8")
    said = cli.ok("run", str(script))
    assert f"Encounter 'Second' is now current in {cli.db}" in said, said
    assert f"It is now current in {cli.db}" in said, said
    assert "skirmish.db" not in said
