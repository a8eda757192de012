"""The session report writes each round out as its fold leaves it (in memory up to a size,
then to a temporary file) and reads them back to render: the same report either way."""

from __future__ import annotations

from pathlib import Path

import pytest

from skirmish.projections.notes import Note
from skirmish.projections.report import data as report_data

from support.cli import Cli

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.skirmish"))


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_a_report_whose_rounds_outgrow_memory_reads_the_same_from_disk(
        sample: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    cli.ok("run", str(sample))
    kept = cli.ok("export", "--format", "md")
    monkeypatch.setattr(report_data, "SPOOL_IN_MEMORY", 64)
    assert cli.ok("export", "--format", "md") == kept


def test_rounds_written_out_read_back_in_order_as_often_as_asked() -> None:
    rounds = report_data.Rounds()
    for number in (0, 1, 2):
        rounds.add(report_data.Round(number, lines=[report_data.Line(number, "x" * 100, [Note(9, number, "n")])]))
    assert [r.number for r in rounds] == [r.number for r in rounds] == rounds.numbers == [0, 1, 2]
    assert [r.lines for r in rounds][2] == [report_data.Line(2, "x" * 100, [Note(9, 2, "n")])]
