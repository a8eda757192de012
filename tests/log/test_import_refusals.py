"""`import` of a file that is not a good export: one `Error:` line with a non-crash exit code,
cut to a sane length, and nothing left behind in a new path (issue 13, item 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.cli import Cli
from support.examples import examples
from support.exported import exported_fight

CRASH = 70  # run_cli's exit code for a bug: never the answer to a file


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A small fight's export: a branch, an undo, a note, every kind of row."""
    return exported_fight(tmp_path_factory.mktemp("export"), (
        ["note", "3", "the Orc hesitated"],
    )).read_bytes()


def importing(cli: Cli, tmp_path: Path, data: bytes) -> str:
    """Import ``data`` into a new path that must stay absent; return the one Error: line."""
    source = tmp_path / "bad.jsonl"
    source.write_bytes(data)
    target = Cli(str(tmp_path / "new.db"), cli.capsys)
    line = target.fails("import", str(source))
    assert target.code not in (0, CRASH), line
    assert list(tmp_path.glob("new.db*")) == [], "a refused import left a database behind"
    return line.replace(str(source), "FILE")


def lines_of(export: bytes) -> list[bytes]:
    return export.splitlines()


def edited(export: bytes, number: int, change: dict[str, object]) -> bytes:
    """The export with line ``number`` (1-based) given other values."""
    lines = lines_of(export)
    record = json.loads(lines[number - 1])
    record.update(change)
    lines[number - 1] = json.dumps(record).encode()
    return b"\n".join(lines) + b"\n"


def test_invalid_utf8_is_refused_naming_its_line_and_byte(cli: Cli, tmp_path: Path, export: bytes) -> None:
    lines = lines_of(export)
    lines[1] = lines[1].replace(b'"Bridge ambush"', b'"Bridge\xff ambush"')
    column = lines[1].index(b"\xff") + 1  # the byte's place in the line, counted from 1
    assert importing(cli, tmp_path, b"\n".join(lines)) == (
        f"Error: FILE:2: not a skirmish export line (not UTF-8 text: byte 0xff at column {column})"
    )
    lines = lines_of(export)
    lines[2] = lines[2].replace(b'"text":"new', b'"text":"\xc3(new')
    assert importing(cli, tmp_path, b"\n".join(lines)).startswith(
        "Error: FILE:3: not a skirmish export line (not UTF-8 text: byte 0xc3 at column "
    )


@pytest.mark.parametrize(("kind", "field"), [("encounter", "id"), ("command", "id"), ("event", "id"),
                                             ("event", "command_id"), ("event", "parent_id"), ("event", "version"),
                                             ("move", "to_event"), ("move", "seq"), ("move", "from_event")])
def test_an_integer_sqlite_cannot_hold_is_refused_in_one_line(
    cli: Cli, tmp_path: Path, export: bytes, kind: str, field: str
) -> None:
    """Every integer of a row is an id, a count or a version, from 1; SQLite holds up to 2^63 - 1."""
    number = next(n for n, line in enumerate(lines_of(export), 1)
                  if json.loads(line)["record"] == kind and json.loads(line).get(field) is not None)
    for value, bound in ((2**63, "<= 9223372036854775807"), (-(2**63) - 1, ">= 1"), (0, ">= 1")):
        assert importing(cli, tmp_path, edited(export, number, {field: value})) == (
            f"Error: FILE:{number}: not a skirmish export line (Expected `int` {bound} - at `$.{field}`)"
        )


def test_a_refused_import_into_a_new_path_leaves_nothing_there(cli: Cli, tmp_path: Path, export: bytes) -> None:
    """Refusals found after the database was opened: the chain, the encounter row's ruleset."""
    lines = lines_of(export)
    lines[2] = lines[2].replace(b"Bridge ambush", b"Bridge ambusH")  # the first command, edited
    assert importing(cli, tmp_path, b"\n".join(lines)).startswith("Error: FILE does not verify: command 1 (")
    assert importing(cli, tmp_path, edited(export, 2, {"name": "Another name"})).startswith(
        "Error: FILE does not verify: the encounters row ('Another name', ap-countdown) does not match"
    )


def test_a_refused_new_leaves_no_database_behind(cli: Cli, tmp_path: Path) -> None:
    cli.db = str(tmp_path / "new.db")
    assert cli.fails("new", "Fight", "--rules", "no-such-rules").startswith("Error: no ruleset 'no-such-rules'")
    assert list(tmp_path.glob("new.db*")) == []


def test_an_error_quoting_a_huge_field_is_cut(cli: Cli, tmp_path: Path, export: bytes) -> None:
    huge = "A" * 5_000_000
    line = importing(cli, tmp_path, edited(export, 3, {"text": huge}))
    assert line == ("Error: FILE does not verify: command 1 ('" + "A" * 80 + "'… (5,000,000 characters)) "
                    "was altered after it was recorded")
    line = importing(cli, tmp_path, edited(export, 2, {"name": huge}))
    assert line.startswith("Error: FILE does not verify: the encounters row ('AAAA") and len(line) < 300
    assert "… (5,000,000 characters)" in line
    record = json.loads(lines_of(export)[1])
    record[huge] = 1  # an unknown field, named by msgspec
    lines = lines_of(export)
    lines[1] = json.dumps(record).encode()
    line = importing(cli, tmp_path, b"\n".join(lines))
    assert line.startswith("Error: FILE:2: not a skirmish export line (Object contains unknown field `AAAA")
    assert len(line) < 300


@settings(max_examples=examples(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_damage_to_an_export_is_one_error_line_and_leaves_nothing(
    cli: Cli, tmp_path: Path, export: bytes, data: st.DataObject
) -> None:
    """Fuzz: bytes flipped, cut, inserted or lines dropped, anywhere in a good export."""
    raw = bytearray(export)
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw) - 1))
        how = data.draw(st.sampled_from(["flip", "cut", "insert", "drop-line", "value"]))
        if how == "flip":
            raw[at] = data.draw(st.integers(0, 255))
        elif how == "cut":
            del raw[at:at + data.draw(st.integers(1, 40))]
        elif how == "insert":
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=8))
        elif how == "drop-line":
            lines = bytes(raw).split(b"\n")
            del lines[at % len(lines)]
            raw = bytearray(b"\n".join(lines))
        else:
            lines = bytes(raw).split(b"\n")
            number = at % len(lines)
            try:
                record = json.loads(lines[number])
                key = data.draw(st.sampled_from(sorted(record)))
                record[key] = data.draw(st.one_of(st.integers(-(2**70), 2**70), st.text(max_size=5), st.none(),
                                                  st.booleans(), st.floats(allow_nan=False)))
                lines[number] = json.dumps(record).encode()
            except (ValueError, TypeError, AttributeError):
                continue
            raw = bytearray(b"\n".join(lines))
    if bytes(raw) == export:
        return
    source = tmp_path / "fuzzed.jsonl"
    source.write_bytes(bytes(raw))
    target = Cli(str(tmp_path / "fuzzed.db"), cli.capsys)
    target("import", str(source))
    lines = target.err.strip().splitlines()
    assert target.code != CRASH, target.err
    if target.code == 0:  # a change the file does not hash (JSON spacing): imported whole
        assert lines == []
        target.ok("verify")
    else:
        assert len(lines) == 1 and lines[0].startswith("Error: "), target.err
        assert list(tmp_path.glob("fuzzed.db*")) == []
    for leftover in tmp_path.glob("fuzzed.db*"):
        leftover.unlink()


def numbered(export: bytes, kind: str) -> list[int]:
    """The line numbers (from 1) of the export's records of one kind."""
    return [n for n, line in enumerate(lines_of(export), 1) if json.loads(line)["record"] == kind]


def with_line_again(export: bytes, number: int, after: int) -> bytes:
    """The export with line ``number`` given a second time, after line ``after``."""
    lines = lines_of(export)
    lines.insert(after, lines[number - 1])
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize(("kind", "what"), [("event", "event {id}"), ("command", "command {id}"),
                                            ("move", "head move {id}")])
def test_a_row_given_twice_is_named_with_its_lines_in_skirmishs_words(
    cli: Cli, tmp_path: Path, export: bytes, kind: str, what: str
) -> None:
    """Before: "UNIQUE constraint failed: events.id", SQLite's words, and no line (issue 38, item 5)."""
    first = numbered(export, kind)[1]
    row_id = json.loads(lines_of(export)[first - 1])["id"]
    assert importing(cli, tmp_path, with_line_again(export, first, first)) == (
        f"Error: FILE:{first + 1}: {what.format(id=row_id)} is given twice (first on line {first}): an export "
        "holds each row once (was it edited, or put together from two?)"
    )


def test_a_row_given_again_a_batch_later_is_named_by_its_second_line(
    cli: Cli, tmp_path: Path, export: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first of the two went in with an earlier batch of rows: the second is named, by its line."""
    from skirmish.projections.write import transfer

    monkeypatch.setattr(transfer, "CHUNK", 2)
    events = numbered(export, "event")
    row_id = json.loads(lines_of(export)[events[0] - 1])["id"]
    assert importing(cli, tmp_path, with_line_again(export, events[0], events[-1])) == (
        f"Error: FILE:{events[-1] + 1}: event {row_id} is given twice: an export holds each row once "
        "(was it edited, or put together from two?)"
    )


def test_a_branch_moved_twice_from_one_place_is_named_with_its_lines(cli: Cli, tmp_path: Path, export: bytes) -> None:
    """Another id, the same move of a branch: a head move given twice with its id changed."""
    moves = numbered(export, "move")
    record = json.loads(lines_of(export)[moves[1] - 1])
    record["id"] = 1000
    lines = lines_of(export)
    lines.insert(moves[-1], json.dumps(record).encode())
    assert importing(cli, tmp_path, b"\n".join(lines) + b"\n") == (
        f"Error: FILE:{moves[-1] + 1}: move {record['seq']} of branch '{record['branch']}' is given twice "
        f"(first on line {moves[1]}): an export holds each row once (was it edited, or put together from two?)"
    )
