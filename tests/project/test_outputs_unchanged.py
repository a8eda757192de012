"""What scripts read stays byte for byte: state, log, explain, why and diff `--json` of every
committed export, against what skirmish printed before its modules were moved and its
results typed (tests/fixtures/outputs.py wrote them; it never refreshes one)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
sys.path.insert(0, str(FIXTURES))
from outputs import EXPORTS, OUTPUTS, collect  # noqa: E402

NAMES = sorted(p.stem for p in EXPORTS.glob("*.jsonl"))


def test_every_export_has_its_outputs() -> None:
    assert NAMES and sorted(p.stem for p in OUTPUTS.glob("*.json")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_json_outputs_are_byte_identical(name: str, tmp_path: Path) -> None:
    expected: dict[str, str] = json.loads((OUTPUTS / f"{name}.json").read_text(encoding="utf-8"))
    printed = collect(EXPORTS / f"{name}.jsonl", str(tmp_path / "out.db"))
    assert list(printed) == list(expected), "the commands read differ: was a branch or combatant lost?"
    for command, out in printed.items():
        assert out == expected[command], f"`skirmish {command}` prints other bytes than before"
