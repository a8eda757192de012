"""`import` reads its file a block of lines at a time (issue 27): the same records, line numbers
and refusals as reading it a line at a time.

A block is decoded in one call (msgspec's decode_lines, which reads JSON values apart by any
whitespace) and taken whole only when each of its lines holds one record; any other block
is read line by line. These tests hold the shortcut to what line-by-line reading gives."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from skirmish.projections.write.engine import LogFile
from skirmish.projections.write import transfer

from support.cli import Cli
from support.exported import exported_fight


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A small fight's export: an undo, a branch, a note; about 35 lines."""
    return exported_fight(tmp_path_factory.mktemp("export"), (
        ["note", "3", "the Orc hesitated"], ["next"], ["next"],
    )).read_bytes()


def digest_of(export: bytes) -> str:
    return str(json.loads(export.splitlines()[0])["digest"])


def imported(cli: Cli, tmp_path: Path, data: bytes) -> str:
    """Import ``data`` into a new file; the digest `verify` gives there."""
    source = tmp_path / "fight.jsonl"
    source.write_bytes(data)
    target = Cli(str(tmp_path / "new.db"), cli.capsys)
    target.ok("import", str(source))
    return target.ok("verify").split("digest ")[-1].split()[0].rstrip(".)")


def refused(cli: Cli, tmp_path: Path, data: bytes) -> str:
    source = tmp_path / "bad.jsonl"
    source.write_bytes(data)
    line = Cli(str(tmp_path / "new.db"), cli.capsys).fails("import", str(source))
    assert list(tmp_path.glob("new.db*")) == []
    return line.replace(str(source), "FILE")


@pytest.fixture
def line_by_line(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The first line number of each stretch of the file read line by line."""
    stretches: list[int] = []
    read = transfer._line_by_line

    def spy(numbered, source, advance):  # type: ignore[no-untyped-def]
        numbered = iter(numbered)
        first = next(numbered, None)
        if first is not None:
            stretches.append(first[0])
            yield from read(iter([first, *numbered]), source, advance)

    monkeypatch.setattr(transfer, "_line_by_line", spy)
    return stretches


@pytest.mark.parametrize("block", [64, 500, 1 << 20])
def test_an_export_imports_to_its_digest_whatever_the_block(
    cli: Cli, tmp_path: Path, export: bytes, block: int, monkeypatch: pytest.MonkeyPatch,
    line_by_line: list[int],
) -> None:
    """Blocks shorter than a line (read on to the line's end), of a few lines, of the whole file."""
    monkeypatch.setattr(transfer, "BLOCK", block)
    assert imported(cli, tmp_path, export) == digest_of(export)
    assert line_by_line == []  # every block of an intact export is decoded in one call


def test_blank_lines_and_crlf_line_breaks_import_the_same(
    cli: Cli, tmp_path: Path, export: bytes, line_by_line: list[int]
) -> None:
    lines = export.splitlines()
    spaced = b"\r\n".join(lines[:5]) + b"\r\n\n   \n" + b"\n".join(lines[5:]) + b"\n\n"
    assert imported(cli, tmp_path, spaced) == digest_of(export)
    assert line_by_line == [1]  # the block with the blank lines was read line by line


def test_a_record_over_two_lines_is_refused_even_where_the_count_of_records_agrees(
    cli: Cli, tmp_path: Path, export: bytes, line_by_line: list[int]
) -> None:
    """Line 4 split between two fields (JSON allows the line break there), lines 8 and 9 put
    on one line: as many records as lines in the block, yet line 4 alone is not a record,
    which is what reading line by line says."""
    lines = export.splitlines()
    split = lines[3].split(b',"branch":', 1)
    assert len(split) == 2 and json.loads(lines[3])["record"] == "command"
    damaged = [*lines[:3], split[0] + b",", b'"branch":' + split[1], *lines[4:7], lines[7] + b" " + lines[8], *lines[9:]]
    assert len(damaged) == len(lines)
    line = refused(cli, tmp_path, b"\n".join(damaged) + b"\n")
    assert line.startswith("Error: FILE:4: not a skirmish export line ("), line


def test_two_records_on_a_line_are_refused_naming_it(cli: Cli, tmp_path: Path, export: bytes) -> None:
    lines = export.splitlines()
    damaged = [*lines[:9], lines[9] + lines[10], *lines[11:]]
    assert refused(cli, tmp_path, b"\n".join(damaged) + b"\n").startswith(
        "Error: FILE:10: not a skirmish export line ("
    )


def test_line_numbers_run_on_across_blocks(
    cli: Cli, tmp_path: Path, export: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refusal in a later block names its line in the file: the line numbers of the blocks
    before, a blank line among them, counted."""
    monkeypatch.setattr(transfer, "BLOCK", 300)
    lines = export.splitlines()
    with_blank = [*lines[:6], b"", *lines[6:]]
    last = len(with_blank) + 1  # the encounter record again, after every line
    assert refused(cli, tmp_path, b"\n".join([*with_blank, lines[1]]) + b"\n") == (
        f"Error: FILE:{last}: a second encounter record: an export holds one header, then one "
        "encounter, then its rows"
    )
    at = len(with_blank) - 3  # the line at index ``at``: line at + 1 of the file
    not_json = [*with_blank[:at], b"not json", *with_blank[at + 1:]]
    assert refused(cli, tmp_path, b"\n".join(not_json) + b"\n").startswith(
        f"Error: FILE:{at + 1}: not a skirmish export line ("
    )


def test_the_records_before_a_malformed_line_are_taken_first(cli: Cli, tmp_path: Path, export: bytes) -> None:
    """The header says a format version this skirmish does not read and line 5 is not JSON,
    in the same block: the header's refusal, as reading line by line gives it."""
    lines = export.splitlines()
    header = json.loads(lines[0])
    header["version"] = 2
    damaged = [json.dumps(header, separators=(",", ":")).encode(), *lines[1:4], b"not json", *lines[5:]]
    assert refused(cli, tmp_path, b"\n".join(damaged) + b"\n") == (
        "Error: FILE is export format 2; this skirmish reads 1"
    )


class _Unseekable(io.RawIOBase):
    """A file read from a pipe: read, never seek."""

    def __init__(self, data: bytes) -> None:
        self.data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        return self.data.readinto(buffer)


@pytest.mark.parametrize("block", [64, 500])
def test_a_file_that_cannot_seek_imports_the_same(
    export: bytes, tmp_path: Path, block: int, monkeypatch: pytest.MonkeyPatch, line_by_line: list[int]
) -> None:
    """A file that can seek has each block's part line read again as the next block's start;
    one that cannot carries it over: the same records either way."""
    monkeypatch.setattr(transfer, "BLOCK", block)
    log_file = LogFile(str(tmp_path / "copy.db"), create=True)
    try:
        with io.BufferedReader(_Unseekable(export)) as lines:
            assert not lines.seekable()
            done = transfer.import_jsonl(log_file, lines, "fight.jsonl")
    finally:
        log_file.close()
    assert done.digest == digest_of(export) and not done.already
    assert line_by_line == []
