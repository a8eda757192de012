"""What skirmish says back, held to what it did (issue 13, items 7 and 10): event ids a note
takes, names announced as stored, hints safe to paste, and refusals naming their input."""

from __future__ import annotations

from importlib.metadata import entry_points

import json
import shlex
import sqlite3
from pathlib import Path

import pytest

from support.cli import Cli
from support.fight import cli_fight as fight

# Every ruleset installed, sorted: the built-in ones (their entry points) and the duel of
# tests/toy; a ruleset added to skirmish is in the message without an edit here.
INSTALLED = ", ".join(sorted(ep.name for ep in entry_points(group="skirmish.rulesets")))


def ids(cli: Cli) -> list[int]:
    return [json.loads(line)["id"] for line in cli.ok("log", "--json").splitlines()]


def log_size(db: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
    finally:
        conn.close()


# --- item 7: note takes any event id of the encounter -----------------------------------------------


def test_note_takes_an_event_id_above_a_million(cli: Cli) -> None:
    """Ids are shared by every encounter of a file: a long campaign's later encounters start
    past 1,000,000. A row planted at 1,999,999 (another encounter's) moves the ids on."""
    fight(cli, "Earlier")
    conn = sqlite3.connect(cli.db)
    try:
        conn.execute("INSERT INTO events(id, encounter_id, parent_id, command_id, kind, version, body, recorded_at, "
                     "hash) SELECT 1999999, encounter_id, id, command_id, kind, version, body, recorded_at, hash "
                     "FROM events WHERE id = 3")
        conn.commit()
    finally:
        conn.close()
    fight(cli, "Later")
    later = ids(cli)
    assert later[0] == 2_000_000
    out = cli.ok("note", str(later[-1]), "the Orc came late")
    # Two encounters in the file: the reply names the one it landed on (docs/database.md: Which table).
    assert out == f"#{later[-1] + 1} Note on #{later[-1]}: the Orc came late\n  (on 'Later', branch 'main')\n"
    assert cli.ok("explain", str(later[-1])).splitlines()[-1] == f"  note #{later[-1] + 1}: the Orc came late"
    before = log_size(cli.db)
    assert cli.fails("note", "1999999", "x") == "Error: no event 1999999 in this encounter (see `skirmish log --all`)"
    assert cli.fails("note", "9999999", "x") == "Error: no event 9999999 in this encounter (see `skirmish log --all`)"
    assert cli.fails("note", str(2**63), "x") == f"Error: no event {2**63} in this encounter (see `skirmish log --all`)"
    assert cli.fails("note", "0", "x") == "Error: no event 0 in this encounter (see `skirmish log --all`)"
    assert log_size(cli.db) == before


# --- item 10: names announced as stored, hints safe to paste, refusals that name their input -------


def test_a_name_typed_with_spaces_around_it_is_stored_announced_and_found_without_them(cli: Cli) -> None:
    """Names are stripped (a GM's stray space is no part of a name): every reply says the
    stored name, and a lookup typed with the same stray spaces finds it."""
    out = cli.ok("new", "FIGHT ", "--rules", "ap-countdown", "--seed", "5")
    assert out.splitlines()[1] == f"Encounter 'FIGHT' is now current in {cli.db}"
    assert "'FIGHT'" in out.splitlines()[0]
    assert cli.ok("encounters").startswith("* FIGHT  (ap-countdown, ")
    assert cli.ok("verify").startswith("intact: 'FIGHT', digest ")
    assert cli.ok("use", " FIGHT ") == "Encounter 'FIGHT' (ap-countdown) is now current\n"
    assert cli.ok("add", " Orc ", "--stat", "qu=0", "--stat", "hits=30").split(" ", 1)[1].startswith("Orc joins")
    assert cli.ok("damage", "Orc ", "3").split(" ", 1)[1] == "Orc takes 3 hits (27 left)\n"
    out = cli.ok("branch", " what if ")
    assert out == "Branch 'what if' starts at #3: `skirmish switch 'what if'` to play on it\n"
    assert [b["name"] for b in json.loads(cli.ok("branches", "--json"))] == ["main", "what if"]
    assert cli.ok("switch", "what if ") == "On branch 'what if', at #3\n"


@pytest.mark.parametrize("name", ["a;touch x", "$(touch x)", "a'b", "`touch x`", "x && rm -rf y"])
def test_the_hint_after_branch_is_shell_quoted(cli: Cli, tmp_path: Path, name: str) -> None:
    fight(cli)
    out = cli.ok("branch", name)
    hint = out.split(": `", 1)[1].rsplit("` to play on it", 1)[0]
    assert shlex.split(hint) == ["skirmish", "switch", name]  # pasted, it runs switch and nothing else
    assert cli.ok(*shlex.split(hint)[1:]).startswith(f"On branch {name!r}")


def test_an_encounter_under_a_ruleset_not_installed_is_called_that(cli: Cli, tmp_path: Path) -> None:
    fight(cli)
    conn = sqlite3.connect(cli.db)
    try:  # what a GM's file says after the ruleset it was played under is uninstalled
        conn.execute("INSERT INTO encounters(name, ruleset, created_at) VALUES ('Homebrew night', 'homebrew', 'x')")
        conn.commit()
    finally:
        conn.close()
    cli.ok("use", "Homebrew night")
    installed = INSTALLED
    error = (f"Error: encounter 'Homebrew night' was played under ruleset 'homebrew', which is not installed "
             f"here (installed: {installed})")
    for args in (("state",), ("log",), ("damage", "Orc", "3")):
        assert cli.fails(*args) == error
    assert "newer skirmish" not in error
    # verify checks the chain before it looks for the ruleset: this planted row has no log.
    assert "has no events" in cli.fails("verify") and cli.code == 4


def test_an_export_whose_encounter_row_names_another_ruleset_says_so(cli: Cli, tmp_path: Path) -> None:
    fight(cli)
    out = tmp_path / "fight.jsonl"
    cli.ok("export", "--out", str(out))
    target = Cli(str(tmp_path / "target.db"), cli.capsys)
    for ruleset, error in (
        ("crisis", f"Error: {out}: its encounter row names ruleset 'crisis' but its first event (#1) was "
                   "recorded under 'ap-countdown': the file was edited"),
        ("homebrew", f"Error: {out}: encounter 'Bridge ambush' was played under ruleset 'homebrew', which is "
                     f"not installed here (installed: {INSTALLED})"),
    ):
        edited = out.with_name(f"{ruleset}.jsonl")
        lines = out.read_text().splitlines()
        record = json.loads(lines[1])
        record["ruleset"] = ruleset
        lines[1] = json.dumps(record)
        if ruleset == "homebrew":  # a file from a table that has it: its first event says so too
            first = next(n for n, line in enumerate(lines) if '"kind":"encounter-started"' in line)
            lines[first] = lines[first].replace('\\"ruleset\\":\\"ap-countdown\\"', '\\"ruleset\\":\\"homebrew\\"')
            assert "homebrew" in lines[first]
        edited.write_text("\n".join(lines) + "\n")
        line = target.fails("import", str(edited))
        assert line == error.replace(str(out), str(edited))
        assert "newer skirmish" not in line


NEGATIVE = [
    (("damage", "Orc", "-1000000"), "Error: damage must be at least 1 hit, not -1000000"),
    (("heal", "Orc", "-3"), "Error: heal takes at least 1 hit, not -3"),
    (("undo", "-1"), "Error: undo takes 1 or more steps, not -1"),
    (("redo", "-2"), "Error: redo takes 1 or more steps, not -2"),
    (("note", "-5", "x"), "Error: no event -5 in this encounter (see `skirmish log --all`)"),
    (("explain", "-3"), "Error: no event -3 in this encounter (see `skirmish log --all`)"),
    (("amend", "-3", "--", "damage", "Orc", "1"), "Error: no event -3 in this encounter (see `skirmish log --all`)"),
    (("amend", "4", "--", "damage", "Orc", "-7"), "Error: damage must be at least 1 hit, not -7"),
    (("state", "--at", "-3"), "Error: no event -3 in this encounter (see `skirmish log --all`)"),
    # A mistyped option is still named as one.
    (("damage", "Orc", "5", "--bogus"), "Error: No such option: --bogus"),
    (("note", "3", "--bogus"), "Error: No such option: --bogus"),
]


@pytest.mark.parametrize(("args", "error"), NEGATIVE, ids=[" ".join(a) for a, _ in NEGATIVE])
def test_a_negative_number_is_taken_as_the_number_and_refused_for_what_it_is(
    cli: Cli, args: tuple[str, ...], error: str
) -> None:
    fight(cli)
    cli.ok("damage", "Orc", "2")
    before = log_size(cli.db)
    assert cli.fails(*args).startswith(error)
    assert log_size(cli.db) == before


def test_an_event_body_not_of_its_version_is_one_line_naming_kind_and_version(cli: Cli) -> None:
    """A stored ap.damage-taken at layout version 1 whose body is not version 1's (no
    `amount`, which the upcaster to version 2 reads): its kind and version, never KeyError."""
    from skirmish.eventlog.errors import StoreError
    from skirmish.projections.write.engine import codec_for

    with pytest.raises(StoreError) as raised:
        codec_for("ap-countdown").decode(b'{"type":"ap.damage-taken","who":"Orc","hits_left":3}',
                                         "ap.damage-taken", 1, 7)
    assert str(raised.value) == ("event 7 (ap.damage-taken) cannot be read: its body is not layout version 1 of "
                                 "ap.damage-taken: it has no field 'amount'")
