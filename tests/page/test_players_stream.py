"""The players' stream is incremental (issue 25; cli/live.py, projections/page/data.py
PlayersLive): a change down the branch sends the new events and what else moved, folded
into the page as page.js folds it; the path moved under the page (an undo) sends the whole
data once; a page that reconnects catches up from its Last-Event-ID; and no frame carries
what the players' policy withholds."""

from __future__ import annotations

import json
import shlex
import shutil
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.main import run_cli
from skirmish.projections.engine import LogFile
from skirmish.projections.page import data as page_data
from skirmish.projections.page.shell import json_for_script

from test_live_slips import QUIET, Stream, fold_change, page_data as data_of_page, serving
from test_players_page_slips import steps
from test_players_policy import FIGHTS, IDS, Fight, check_players, fought, secrets_of  # noqa: F401 - fought: a fixture

pytest.importorskip("uvicorn")


def as_sent(data: Any) -> Any:
    """What a page reads: the data as the server encodes it, decoded."""
    return json.loads(json_for_script(data))


def whole(db: Path) -> Any:
    with LogFile(str(db)) as log_file:
        return as_sent(page_data.build(log_file.open(), "players", page_data.Bands()))


# After each command: whether the players' data goes on down the path (True) or is built
# whole again (False: the undo moved the head back off the path the page holds).
COMMANDS = [
    (["{hurt}", "{party}", "{harm}"], True),  # told: a new step
    (["note", "2", "the ambush is at dusk", "--private"], True),  # not told: nothing new
    (["{hurt}", "Lurker", "{harm}"], True),  # the hidden foe: not told
    (["note", "2", "a public word"], True),  # told, and the notes change
    (["reveal", "Lurker"], True),  # Lurker appears from here on
    (["{hurt}", "Lurker", "{harm}"], True),
    (["undo"], False),
    (["redo"], True),
]
# phases.md counts wounds, not hits (Initiative): a slight wound is its harm.
HURT = {"phases": ("effect", "slight-wound")}


@pytest.mark.parametrize("fight", FIGHTS, ids=IDS)
def test_each_change_folded_into_the_page_is_the_whole_page_built_again(
        fought: dict[str, Path], fight: Fight, tmp_path: Path) -> None:  # noqa: F811 - the fixture
    db = tmp_path / "fight.db"
    shutil.copy(fought[fight.ruleset], db)
    with LogFile(str(db)) as log_file:
        live = page_data.PlayersLive(log_file.open(), page_data.Bands())
    page = as_sent(live.data)
    assert page == whole(db)
    for words, goes_on in COMMANDS:
        hurt, harm = HURT.get(fight.ruleset, ("damage", "1"))
        words = [w.format(party=fight.party, hurt=hurt, harm=harm) for w in words]
        assert run_cli(["--db", str(db), *words]) == 0, words
        with LogFile(str(db)) as log_file:
            change = live.extend(log_file.open())
        if goes_on:
            assert change is not None, words
            page = fold_change(page, as_sent(change))
        else:
            assert change is None, words
            page = as_sent(live.data)
        # The page holds what a page opened now would: every event, string, note and band.
        assert page == whole(db), words


def without_link(data: dict[str, Any]) -> dict[str, Any]:
    """The data but its stream's link, which names the frame the page was built at."""
    return {key: value for key, value in data.items() if key != "live"}


def frames_data(stream: Stream) -> list[tuple[str, str]]:
    """Each frame that carried data: its kind and its data as sent."""
    return [(f[0][len("event: "):], f[2][len("data: "):]) for f in stream.frames if f and f[0].startswith("event: ")]


# The ap-countdown fight of the players' policy's tests, its secrets made while the page is
# open: set up first, then played one line at a time (FIGHTS[0]).
SETUP = 5


def test_incremental_frames_carry_no_secret(tmp_path: Path) -> None:
    fight = FIGHTS[0]
    lines = [shlex.split(line) for line in fight.script.strip().splitlines()]
    db = tmp_path / "bridge.db"
    for words in lines[:SETUP]:
        assert run_cli(["--db", str(db), *words]) == 0, words
    with serving(str(db), "--encounter", "Bridge", "--on", "main") as served:
        stream = served.stream()
        for words in lines[SETUP:]:
            assert run_cli(["--db", str(db), *words]) == 0, words
            time.sleep(0.3)  # a frame for each, mostly: more frames, more chances to leak
        time.sleep(QUIET)
        sent = frames_data(stream)
        # Every change carried the branch on down its path: increments only, never the whole page.
        assert sent and {kind for kind, _ in sent} == {"more"}, [kind for kind, _ in sent]
        for _, raw in sent:
            # The hidden foe acted (declared on Hauser), a private note, the what-if branch and
            # its event: none of them in any frame.
            assert "Lurker" not in raw and "reinforcements" not in raw, raw
            assert "what-if" not in raw and fight.what_if not in raw, raw
            change = json.loads(raw)
            # The foe's pending action: in no board the frame carries (the party's own are).
            for entry in change.get("events", []):
                assert all(waiting[0] != fight.foe for waiting in entry[4].get("p", [])), entry
        folded = stream.pages()[-1]
        check_players(folded, fight, secrets_of(db))
        # and the page folded from the frames is the page a phone opening now is given
        now = data_of_page(urllib.request.urlopen(f"http://127.0.0.1:{served.port}/", timeout=30).read())
        assert without_link(folded) == without_link(now)


@pytest.fixture
def bridge(tmp_path: Path) -> Path:
    """Hauser (40 hits, a player) and the Orc (30 hits, a foe) on ap-countdown."""
    db = tmp_path / "bridge.db"
    for line in ("new Bridge --rules ap-countdown", "add Hauser --side players --stat qu=1 --stat hits=40",
                 "add Orc --side foes --stat qu=0 --stat hits=30"):
        assert run_cli(["--db", str(db), *shlex.split(line)]) == 0
    return db


def hauser(data: dict[str, Any]) -> int:
    """Hauser's hits at the head of the page's branch, folded as page.js folds them."""
    board: dict[str, dict[str, Any]] = {}
    for step in steps(data):
        for key, row in step.delta.get("c", {}).items():
            board[key] = {**board.get(key, {}), **row}
    value: int = next(row["v"] for row in board.values() if row["n"] == "Hauser")
    return value


def test_a_page_that_reconnects_is_sent_what_it_missed(bridge: Path) -> None:
    db = str(bridge)
    with serving(db) as served:
        first = served.stream()
        assert run_cli(["--db", db, "damage", "Hauser", "5"]) == 0  # 40 - 5 = 35
        first.next_page(0)
        last_id = next(line for line in first.frames[-1] if line.startswith("id: "))[4:]
        page = first.pages()[-1]
        first.close()
        # The phone sleeps; two commands at the table: 35 - 2 - 3 = 30.
        assert run_cli(["--db", db, "damage", "Hauser", "2"]) == 0
        assert run_cli(["--db", db, "damage", "Hauser", "3"]) == 0
        time.sleep(QUIET)
        woke = Stream(served.port, page, last_id)
        served.streams.append(woke)
        woke.wait_for(lambda: len(woke.pages()) >= 1)
        time.sleep(QUIET)
        assert set(woke.kinds()) == {"more"}, woke.kinds()  # what it missed, not the whole page
        assert hauser(woke.pages()[-1]) == 30
        assert without_link(woke.pages()[-1]) == without_link(served.page()[1])
        # It sleeps again; an undo moves the branch back off what it holds: the whole page.
        last_id = next(line for line in woke.frames[-1] if line.startswith("id: "))[4:]
        held = woke.pages()[-1]
        woke.close()
        assert run_cli(["--db", db, "undo"]) == 0  # the 3 taken back: 33
        time.sleep(QUIET)
        again = Stream(served.port, held, last_id)
        served.streams.append(again)
        again.wait_for(lambda: len(again.pages()) >= 1)
        time.sleep(QUIET)
        assert again.kinds() == ["state"]
        assert hauser(again.pages()[-1]) == 33
        # A page that had frames of another run of the server (started again since): the whole page.
        stranger = Stream(served.port, held, "0badc0de." + last_id.partition(".")[2])
        served.streams.append(stranger)
        stranger.wait_for(lambda: len(stranger.pages()) >= 1)
        assert stranger.kinds() == ["state"] and hauser(stranger.pages()[-1]) == 33


def test_a_command_sends_a_change_and_an_undo_the_whole_page(bridge: Path) -> None:
    db = str(bridge)
    with serving(db) as served:
        stream = served.stream()
        size = len(json.dumps(served.page()[1]))
        assert run_cli(["--db", db, "damage", "Hauser", "5"]) == 0  # 35
        stream.next_page(0)
        assert stream.kinds() == ["more"]
        assert len(frames_data(stream)[0][1]) < size  # a change, not the page
        assert run_cli(["--db", db, "undo"]) == 0  # 40 again
        stream.next_page(1)
        assert stream.kinds() == ["more", "state"]
        assert hauser(stream.pages()[0]) == 35 and hauser(stream.pages()[1]) == 40
        assert run_cli(["--db", db, "redo"]) == 0  # down the path again: a change, 35
        stream.next_page(2)
        assert stream.kinds() == ["more", "state", "more"]
        assert hauser(stream.pages()[2]) == 35
