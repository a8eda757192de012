"""The players' stream is incremental (issue 25; cli/live.py, projections/page/data.py
PlayersLive): a change down the branch sends the new events and what else moved, folded
into the page as page.js folds it; the path moved under the page (an undo) sends what the
page keeps and the new path after it; a page that reconnects catches up from its Last-Event-ID; and no frame carries
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
from skirmish.projections.write.engine import LogFile
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


# Commands after which the players' data goes on from what it holds: down the path, or back
# to a head it held (the undos); none of them builds it whole.
COMMANDS = [
    ["{hurt}", "{party}", "{harm}"],  # told: a new step
    ["note", "2", "the ambush is at dusk", "--private"],  # not told: nothing new
    ["{hurt}", "Lurker", "{harm}"],  # the hidden foe: not told
    ["note", "2", "a public word"],  # told, and the notes change
    ["reveal", "Lurker"],  # Lurker appears from here on
    ["{hurt}", "Lurker", "{harm}"],
    ["undo"],  # back one head: the page drops the last step
    ["redo"],  # down the path again
    ["undo"],
    ["undo"],  # back before the reveal: Lurker hidden again
    ["{hurt}", "{party}", "{harm}"],  # a new event off the head undone to
]
# phases.md counts wounds, not hits (Initiative): a slight wound is its harm.
HURT = {"phases": ("effect", "slight-wound")}


def read(data: dict[str, Any]) -> dict[str, Any]:
    """What a page shows of the data: each entry with its texts read from the strings (after
    an undo the data may hold strings and figures no entry uses any more), the rest as is."""
    table = data["strings"]

    def text(part: Any) -> Any:
        return table[part] if isinstance(part, int) else [table[i] for i in part]

    entries = [[e[0], e[1], e[2], table[e[3]], e[4], [text(p) for p in e[5]] if e[5] else e[5], *e[6:]]
               for e in data["events"]]
    used = {key for e in data["events"] for key in e[4].get("w", {})}
    rest = {k: v for k, v in data.items() if k not in ("strings", "events", "figures", "ended")}
    return {**rest, "events": entries, "ended": data.get("ended", {}),
            "figures": [name for i, name in enumerate(data["figures"]) if f"o{i}" in used]}


@pytest.mark.parametrize("fight", FIGHTS, ids=IDS)
def test_each_change_folded_into_the_page_is_the_whole_page_built_again(
        fought: dict[str, Path], fight: Fight, tmp_path: Path) -> None:  # noqa: F811 - the fixture
    db = tmp_path / "fight.db"
    shutil.copy(fought[fight.ruleset], db)
    with LogFile(str(db)) as log_file:
        live = page_data.PlayersLive(log_file.open(), page_data.Bands())
    page = as_sent(live.data)
    assert page == whole(db)
    undone = False
    for words in COMMANDS:
        hurt, harm = HURT.get(fight.ruleset, ("damage", "1"))
        words = [w.format(party=fight.party, hurt=hurt, harm=harm) for w in words]
        assert run_cli(["--db", str(db), *words]) == 0, words
        with LogFile(str(db)) as log_file:
            change = live.extend(log_file.open())
        assert change is not None, words  # never the whole page again
        assert ("back" in change) == (words == ["undo"]), (words, sorted(change))
        page = fold_change(page, as_sent(change))
        undone = undone or words == ["undo"]
        now = whole(db)
        # The page shows what a page opened now would: every event, text, note and band;
        # until an undo, to the byte.
        assert read(page) == read(now), words
        if not undone:
            assert page == now, words


def without_link(data: dict[str, Any]) -> dict[str, Any]:
    """The data but its stream's link, which names the frame the page was built at."""
    return {key: value for key, value in data.items() if key != "live"}


def frames_data(stream: Stream) -> list[tuple[str, str]]:
    """Each frame that carried data: its kind and its data as sent."""
    return [(f[0][len("event: "):], f[2][len("data: "):]) for f in stream.frames if f and f[0].startswith("event: ")]


# The ap-countdown fight of the players' policy's tests, its secrets made while the page is
# open: set up first, then played one line at a time (FIGHTS[0]).
SETUP = 5


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_page_that_reconnects_is_sent_what_it_missed(bridge: Path) -> None:
    db = str(bridge)
    with serving(db) as served:
        first = served.stream()
        assert run_cli(["--db", db, "damage", "Hauser", "5"]) == 0  # 40 - 5 = 35
        first.next_page(0)
        last_id = next(line for line in first.frames[-1] if line.startswith("id: "))[4:]
        page = first.pages()[-1]
        first.close()
        # The phone sleeps; two commands at the table: 35 - 2 - 3 = 30 (another phone, awake,
        # sees a frame for each: the server stood at each head).
        awake = served.stream()
        for n, words in enumerate((["damage", "Hauser", "2"], ["damage", "Hauser", "3"])):
            assert run_cli(["--db", db, *words]) == 0
            awake.next_page(n, quiet=False)
        time.sleep(QUIET)
        woke = Stream(served.port, page, last_id)
        served.streams.append(woke)
        woke.wait_for(lambda: len(woke.pages()) >= 1)
        time.sleep(QUIET)
        assert set(woke.kinds()) == {"more"}, woke.kinds()  # what it missed, not the whole page
        assert hauser(woke.pages()[-1]) == 30
        assert without_link(woke.pages()[-1]) == without_link(served.page()[1])
        # It sleeps again; an undo moves the branch back to a head the server held: the
        # page is told how many events it keeps.
        last_id = next(line for line in woke.frames[-1] if line.startswith("id: "))[4:]
        held = woke.pages()[-1]
        woke.close()
        assert run_cli(["--db", db, "undo"]) == 0  # the 3 taken back: 33
        time.sleep(QUIET)
        again = Stream(served.port, held, last_id)
        served.streams.append(again)
        again.wait_for(lambda: len(again.pages()) >= 1)
        time.sleep(QUIET)
        assert again.kinds() == ["more"] and '"back"' in again.frames[-1][2]
        assert hauser(again.pages()[-1]) == 33
        # A page that had frames of another run of the server (started again since): the whole page.
        stranger = Stream(served.port, held, "0badc0de." + last_id.partition(".")[2])
        served.streams.append(stranger)
        stranger.wait_for(lambda: len(stranger.pages()) >= 1)
        assert stranger.kinds() == ["state"] and hauser(stranger.pages()[-1]) == 33


def names(data: dict[str, Any]) -> set[str]:
    board: dict[str, dict[str, Any]] = {}
    for step in steps(data):
        for key, row in step.delta.get("c", {}).items():
            board[key] = {**board.get(key, {}), **row}
    return {row["n"] for row in board.values()}


@pytest.mark.slow
def test_commands_and_undos_send_changes_even_an_undo_past_the_heads_held(bridge: Path) -> None:
    db = str(bridge)
    with serving(db) as served:  # at #3, the Orc's add
        stream = served.stream()
        size = len(json.dumps(served.page()[1]))
        expected = [  # the command, the frame's kind, Hauser's hits after it
            (["damage", "Hauser", "5"], "more", 35),  # #4
            (["undo"], "more", 40),  # back to #3, a head the server held
            (["redo"], "more", 35),
            (["undo"], "more", 40),
            (["undo"], "more", 40),  # back to #2, before any head it held: still a change (the page keeps #1, #2)
        ]
        for n, (words, kind, hits) in enumerate(expected):
            assert run_cli(["--db", db, *words]) == 0
            stream.next_page(n, quiet=False)
            time.sleep(0.5)
            assert stream.kinds() == [k for _, k, _ in expected[:n + 1]], (words, stream.kinds())
            assert hauser(stream.pages()[n]) == hits, words
        assert all(len(raw) < size / 2 for kind, raw in frames_data(stream) if kind == "more")  # changes, not the page
        assert names(stream.pages()[-1]) == {"Hauser"}  # the Orc's add undone
        assert without_link(stream.pages()[-1]) == without_link(served.page()[1])
