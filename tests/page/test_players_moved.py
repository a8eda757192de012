"""The players' live data (projections/page/data.py PlayersLive) follows a head moved off
the path it holds without building the page again: an undo past the heads it kept, a
switch to another branch (the GM's page moves the served screens), a switch to an amend's
branch. The page keeps its events up to where the paths meet and is sent the new path's
after it, made by the same step and policy; the page folded from those changes reads as
the page built whole, and the work is bounded by what changed (folded from the fold kept
nearest above the meeting point, not from the root)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.main import run_cli
from skirmish.projections.write.engine import LogFile
from skirmish.projections.page import data as page_data

from test_gm_stream import fold
from test_players_policy import FIGHTS, IDS, Fight, fought  # noqa: F401 - fought: a fixture
from test_players_stream import as_sent, read, whole

HURT = {"phases": ("effect", "slight-wound")}  # phases.md counts wounds, not hits (Initiative)
# Each: the words ({first}: the event of the first of them), and whether the head moved off
# the path the data holds (with one head kept, every undo here does).
MOVES = [
    (["{hurt}", "{party}", "{harm}"], False),
    (["{hurt}", "{party}", "{harm}"], False),
    (["undo"], True),
    (["undo"], True),
    (["switch", "what-if"], True),
    (["{hurt}", "{foe}", "{harm}"], False),
    (["switch", "main"], True),
    (["redo"], False),
    (["amend", "{first}", "--", "note", "2", "the first blow missed"], False),  # another branch: main's page as it was
    (["switch", "amend-{first}"], True),
    (["{hurt}", "{party}", "{harm}"], False),
]


@pytest.mark.parametrize("fight", FIGHTS, ids=IDS)
def test_a_head_moved_off_the_path_is_a_change_and_the_page_reads_as_built_whole(
        fought: dict[str, Path], fight: Fight, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(page_data.PlayersLive, "MARKS", 1)  # an undo is past the heads kept
    db = tmp_path / "fight.db"
    shutil.copy(fought[fight.ruleset], db)
    with LogFile(str(db)) as log_file:
        live = page_data.PlayersLive(log_file.open(), page_data.Bands())
    page = as_sent(live.data)
    first = 0
    hurt, harm = HURT.get(fight.ruleset, ("damage", "1"))
    for words, moved in MOVES:
        words = [w.format(party=fight.party, foe=fight.foe, hurt=hurt, harm=harm, first=first) for w in words]
        assert run_cli(["--db", str(db), *words]) == 0, words
        with LogFile(str(db)) as log_file:
            enc = log_file.open()
            first = first or enc.head().event_id
            change = live.extend(enc)
        assert change is not None, words  # never the whole page again
        assert ("back" in change) == moved, (words, sorted(change))
        page = fold(page, as_sent(change))
        assert read(page) == read(whole(db)), words


def test_an_undo_far_past_the_heads_kept_folds_from_the_nearest_fold(tmp_path: Path) -> None:
    """600 hits on Hauser, then the branch moved back to #560 (`branch` and `switch`, as an
    undo of 44 commands would): the page keeps its first events and is folded from the
    fold kept past #512, not from #1."""
    db = str(tmp_path / "long.db")
    for words in (["new", "Bridge", "--rules", "ap-countdown"],
                  ["add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=900"],
                  ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30"]):
        assert run_cli(["--db", db, *words]) == 0
    script = tmp_path / "hits.skirmish"
    script.write_text("damage Hauser 1\n" * 600)  # #4 to #603
    assert run_cli(["--db", db, "run", str(script)]) == 0
    with LogFile(db) as log_file:
        live = page_data.PlayersLive(log_file.open(), page_data.Bands())
    page = as_sent(live.data)
    folded: list[int] = []
    step = live.run.step

    def counted(rec: Any, state: Any, fold_: Any) -> None:
        folded.append(rec.id)
        step(rec, state, fold_)

    live.run.step = counted  # type: ignore[method-assign]
    for words in (["branch", "back", "--at", "560"], ["switch", "back"], ["damage", "Hauser", "5"]):
        assert run_cli(["--db", db, *words]) == 0
    with LogFile(db) as log_file:
        change = live.extend(log_file.open())
    assert change is not None and change["back"] == 560  # the page keeps #1 to #560, an entry each
    assert page_data.PlayersLive.EVERY < folded[0] < 560 and folded[-1] == 604 and len(folded) == (560 - folded[0] + 1) + 1
    page = fold(page, as_sent(change))
    assert read(page) == read(whole(Path(db)))
    # 900 - (560 - 3) - 5 = 338: Hauser's figure on the page's last event
    hits = [e[4]["c"]["0"]["v"] for e in page["events"] if "c" in e[4] and "0" in e[4]["c"] and "v" in e[4]["c"]["0"]]
    assert hits[-1] == 338
