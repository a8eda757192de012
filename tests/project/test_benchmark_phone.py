"""The phone benchmark (benchmarks/phone.py) at a tiny size: it prints every figure it
promises, and the log it measures is left as generated (it serves and taps on a copy)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from benchmarks import phone
from benchmarks.fight import generate

pytestmark = pytest.mark.slow  # starts `serve` and Chromium

pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api")

ROWS = ["GM's page: first load", "GM's page: Next", "GM's page: card tapped", "GM's page: pad digit",
        "GM's page: Damage", "GM's page: Undo", "a player's page: first load", "a player's page: die button",
        "a player's page: pad digit", "a player's page: send", "players' screen (/): first load"]


def test_the_phone_benchmark_prints_every_figure_and_leaves_its_log(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from support import browser as browser_support

    browser_support.chromium()  # skips (or fails under CI) as the page tests do, without one
    db = tmp_path / "skirmish-200.db"
    store, _ = generate(str(db), 200)
    store.close()
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    phone.main(["--sizes", "200", "--taps", "3", "--dir", str(tmp_path)])
    out = capsys.readouterr().out
    figures = {}
    for line in out.splitlines():
        found = re.fullmatch(r"\s*200 (.+?)\s+(s|ms|bytes)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(yes|NO)", line)
        if found:
            figures[found.group(1), found.group(2)] = (int(found.group(3)), float(found.group(4)),
                                                       float(found.group(5)), float(found.group(6)))
    wanted = {(row, unit) for row in ROWS for unit in (("s", "bytes") if row.endswith("first load") else ("ms",))}
    assert wanted <= set(figures), out
    for (row, unit), (count, median, high, bar) in figures.items():
        assert count == (1 if row.endswith("first load") else 3), (row, out)
        assert 0 < median <= high and bar > 0, (row, out)
    # A player's page: measured when `serve` has one, else said to be absent.
    players = [row for row, _ in figures if row.endswith("'s page: first load") and not row.startswith("GM")]
    assert players or re.search(r"a player's page\s+absent", out), out
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    assert not list(tmp_path.glob("phone-*"))  # the copy served is gone
