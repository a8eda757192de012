"""benchmarks/records.py, the replay's ladder from its floor (the profile of issue 27's replay
target): every rung reads the head's whole path, the rungs that fold end where the replay
does, the rung below the handlers folds nothing, and a kind that ends elsewhere stops the run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from benchmarks import records
from benchmarks.fight import generate
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def fight(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A generated fight of 1,000 events (undos and what-ifs in it) and its head's path length."""
    path = tmp_path_factory.mktemp("ladder") / "fight.db"
    store, enc = generate(str(path), 1000, fight=True)
    length = store.path_length(enc.head().event_id)
    store.close()
    return path, length


@pytest.mark.slow
def test_the_ladder_prints_each_rung_over_the_floor_with_its_step(fight: tuple[Path, int]) -> None:
    path, length = fight
    done = subprocess.run([sys.executable, "-m", "benchmarks.records", str(path), "2"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, *rows = done.stdout.splitlines()
    assert first.startswith(f"{length:,} rows;")
    assert [row[:17].rstrip() for row in rows] == [*records.LADDER, "commands apart", "commands along"]
    for row in rows[1:len(records.LADDER)]:  # each rung above the floor says its step
        assert " step +" in row or " step -" in row, row
    assert "step" not in rows[0] and all("step" not in row for row in rows[len(records.LADDER):])


def test_every_kind_reads_the_path_and_those_that_fold_end_as_the_replay(fight: tuple[Path, int]) -> None:
    path, length = fight
    kinds = records.kinds(str(path))
    count, replayed = kinds["replay"]()
    assert count == length
    for name in ("floor", "reading", "fold, no handler", "commands apart", "commands along"):
        assert kinds[name]() == length, name
    folded_count, folded = kinds["fold"]()
    assert folded_count == length
    assert msgspec.json.encode(folded) == msgspec.json.encode(replayed)
    # The rung below the handlers folds nothing (should the engine's dispatch move, it would
    # silently time the whole fold): its engine stays at the encounter's start, no fighter in
    # it, while an engine opened afresh still folds every fighter (the no-op is its own).
    assert len(replayed.fighters) == 6
    idle = kinds["fold, no handler"].engine
    assert idle._fold(None, idle._store.runs(idle.head().event_id))[0].fighters == {}
    store = Store(str(path), create=False)
    fresh = Encounter.open(store)
    assert msgspec.json.encode(fresh._fold(None, store.runs(fresh.head().event_id))[0]) == msgspec.json.encode(replayed)


def test_a_kind_that_ends_elsewhere_stops_the_run() -> None:
    ends: dict[str, object] = {}
    records._checked("replay", (3, {"round": 2}), ends)
    records._checked("fold", (3, {"round": 2}), ends)
    with pytest.raises(SystemExit, match="fold ended in another state than the replay"):
        records._checked("fold", (3, {"round": 3}), ends)
    with pytest.raises(SystemExit, match="reading read 2 rows where the replay read 3"):
        records._checked("reading", 2, ends)
