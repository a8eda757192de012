"""A roster near the size limit is read in time linear in its entries: the duplicate check
looks each name up once among those before it, not in a set of them rebuilt per entry
(a 20,000-entry file took 34 s to check that way)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from skirmish.eventlog.errors import BadInput
from skirmish.projections import roster
from skirmish.projections.ruleset import get_ruleset

ENTRIES = 20_000


def bestiary(path: Path, last: str | None = None) -> Path:
    lines = [f"[G{i}]\nmodular={{agility=20,dodge=10,health=12}}\n" for i in range(ENTRIES - 1)]
    lines.append(f"[{last or f'G{ENTRIES - 1}'}]\nmodular={{agility=20,dodge=10,health=12}}\n")
    path.write_text("".join(lines))
    assert path.stat().st_size < roster.LARGEST_FILE
    return path


@pytest.mark.slow
def test_the_rows_of_a_20k_entry_roster_are_checked_in_seconds(tmp_path: Path) -> None:
    path = bestiary(tmp_path / "big.toml")
    started = time.perf_counter()
    faults = roster.check(path, get_ruleset("modular"))
    took = time.perf_counter() - started
    print(f"{ENTRIES:,} entries checked in {took:.2f} s")
    assert faults == []
    assert len(roster.load(path)) == ENTRIES
    # 34 s before (quadratic); about 1.5 s on a busy 2-core machine now, most of it tomllib.
    assert took < 10, took


def test_a_name_given_twice_is_found_at_the_end_of_a_long_roster(tmp_path: Path) -> None:
    path = bestiary(tmp_path / "big.toml", last="g0")
    with pytest.raises(BadInput, match="entry 'g0': the name is given twice"):
        roster.load(path)
