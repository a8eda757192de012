"""The GM's version of the served page is incremental (cli/live.py, projections/page/data.py
GMLive): each change (a command, an undo, a redo, a new branch, a switch, an amend, a note,
a rename, a hide and a reveal) is a change folded into the page's data, never the whole
page, and the page folded from the changes shows what a page built whole at the end shows,
on every branch; a command's change at a long log is small."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.main import run_cli
from skirmish.projections.write.engine import LogFile
from skirmish.projections.page import data as page_data
from skirmish.projections.page.shell import json_for_script

from test_live_slips import QUIET, Stream, fold_change, serving
from test_players_policy import FIGHTS, IDS, Fight, fought  # noqa: F401 - fought: a fixture


def as_sent(data: Any) -> Any:
    return json.loads(json_for_script(data))


def whole(db: Path) -> Any:
    with LogFile(str(db)) as log_file:
        return as_sent(page_data.build(log_file.open(), "gm", page_data.Bands()))


def shown(data: dict[str, Any]) -> dict[str, Any]:
    """What the GM's page shows of its data, read as page.js reads it: every branch's path
    from the root to its head, each event with its narration, its explanation, its command,
    its damage and the board after it (the deltas folded; combatants and the ruleset's own
    figures by name, not by the keys one build or another gave them), and the rest."""
    table, figures = data["strings"], data["figures"]
    events: dict[int, dict[str, Any]] = {}
    event_id = command = 0
    for entry in data["events"]:
        event_id += entry[0]
        command += entry[2]
        assert event_id not in events, f"#{event_id} twice in the page's data"
        events[event_id] = {"parent": None if entry[1] is None else event_id - entry[1], "cmd": command,
                            "text": table[entry[3]], "d": entry[4], "x": entry[5], "h": entry[6] if len(entry) > 6 else None}

    def own(fields: dict[str, Any]) -> dict[str, Any]:
        return {figures[int(k[1:])] if k.startswith("o") and k[1:].isdigit() else k: v for k, v in fields.items()}

    def explanation(x: Any) -> Any:
        return x if not x else [table[p] if isinstance(p, int) else [table[i] for i in p] for p in x]

    out: dict[str, Any] = {}
    for branch in data["branches"]:
        path, at = [], branch["head"]
        while at is not None:
            path.append(at)
            at = events[at]["parent"]
        board: dict[str, Any] = {"k": {}, "w": {}, "o": [], "p": [], "c": {}}
        steps = []
        for event_id in reversed(path):
            ev, d = events[event_id], events[event_id]["d"]
            for key in ("k", "w"):
                board[key] = {**board[key], **d.get(key, {})}
            for key in ("o", "p"):
                if key in d:
                    board[key] = d[key]
            cards = dict(board["c"])
            for key, fields in d.get("c", {}).items():
                cards[key] = {**cards.get(key, {}), **fields}
            board["c"] = cards
            hit = ev["h"]
            steps.append({
                "id": event_id, "parent": ev["parent"], "text": ev["text"], "x": explanation(ev["x"]),
                "command": data["commands"][str(ev["cmd"])],
                "hit": None if hit is None else [cards[hit[0]]["n"], hit[1], *(cards[k]["n"] if isinstance(k, str) else k for k in hit[2:])],
                "board": {"k": own(board["k"]), "w": own(board["w"]), "p": board["p"],
                          "o": [own(cards[key]) for key in board["o"]]},
            })
        out[branch["name"]] = {**branch, "path": steps}
    rest = {k: v for k, v in data.items() if k not in ("strings", "events", "figures", "branches", "commands", "live")}
    return {"branches": out, **rest}


def fold(data: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """The GM's data after a ``more`` frame, as page.js folds it: the players' fold, the
    new commands' texts added, the current branch, the summary and the digest replaced."""
    out = fold_change(data, change)
    if "commands" in change:
        out["commands"] = {**data["commands"], **change["commands"]}
    for key in ("current", "summarised", "digest"):
        if key in change:
            out[key] = change[key]
    return out


# Every kind of change the GM's page is sent as a change (none of them builds it whole):
# down the branch, back and forth along it, a new branch and a switch, an amend (a new
# branch made from a past event), notes, a rename, hide and reveal, the end.
COMMANDS = [
    ["{hurt}", "{party}", "{harm}"],
    ["note", "3", "the ambush is at dusk", "--private"],
    ["note", "3", "a public word"],
    ["undo"],
    ["redo"],
    ["hide", "{party}"],
    ["{hurt}", "{party}", "{harm}"],
    ["reveal", "{party}"],
    ["undo"],
    ["undo"],
    ["{hurt}", "{party}", "{harm}"],  # a new event off a head undone to
    ["branch", "later", "--at", "5"],
    ["switch", "later"],
    ["{hurt}", "{party}", "{harm}"],
    ["rename", "{party}", "Hauser the Bold"],
    ["switch", "main"],
    ["amend", "{first}", "--", "{hurt}", "{party}", "{harm2}"],  # the first command, amended
    ["undo"],
    ["redo"],
    ["end", "--reason", "the foes flee"],  # the board says ENDED from it on
]
HURT = {"phases": ("effect", "slight-wound", "slight-wound")}  # phases.md counts wounds, not hits (Initiative)


@pytest.mark.parametrize("fight", FIGHTS, ids=IDS)
def test_each_change_folded_into_the_gms_page_shows_the_whole_page_built_again(
        fought: dict[str, Path], fight: Fight, tmp_path: Path) -> None:  # noqa: F811 - the fixture
    db = tmp_path / "fight.db"
    shutil.copy(fought[fight.ruleset], db)
    with LogFile(str(db)) as log_file:
        live = page_data.GMLive(log_file.open(), page_data.Bands())
    page = as_sent(live.data)
    assert page == whole(db)  # the data kept is the page built whole, to the byte
    renamed, first = False, 0
    for words in COMMANDS:
        hurt, harm, harm2 = HURT.get(fight.ruleset, ("damage", "1", "2"))
        words = [w.format(party="Hauser the Bold" if renamed else fight.party, hurt=hurt, harm=harm, harm2=harm2, first=first)
                 for w in words]
        assert run_cli(["--db", str(db), *words]) == 0, words
        renamed = (renamed or words[0] == "rename") and words[:2] != ["switch", "main"]  # renamed on `later` alone
        if not first:
            with LogFile(str(db)) as log_file:
                first = log_file.open().head().event_id
        with LogFile(str(db)) as log_file:
            enc = log_file.open()
            change = live.extend(enc)
            assert change is not None, words  # never the whole page again
            change.update(live.digested(log_file.verify(enc.row)))  # as `serve` does, apart
        assert "events" in change or words[0] in ("undo", "redo", "switch", "branch"), (words, sorted(change))
        page = fold(page, as_sent(change))
        assert shown(page) == shown(whole(db)), words


def test_an_amend_far_back_folds_from_the_nearest_fold_kept(tmp_path: Path) -> None:
    """An amend of an event past GMLive.EVERY ids down a long path: its new branch is folded
    from the fold kept there (not from the root), and shows what the page built whole shows."""
    db = str(tmp_path / "long.db")
    for words in (["new", "Bridge", "--rules", "ap-countdown"], ["add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=900"],
                  ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30"]):
        assert run_cli(["--db", db, *words]) == 0
    script = tmp_path / "hits.skirmish"
    script.write_text("damage Hauser 1\n" * 600)
    assert run_cli(["--db", db, "run", str(script)]) == 0
    with LogFile(db) as log_file:
        live = page_data.GMLive(log_file.open(), page_data.Bands())
    page = as_sent(live.data)
    assert page_data.GMLive.EVERY < 560
    assert run_cli(["--db", db, "amend", "560", "--", "damage", "Hauser", "2"]) == 0
    folded = []
    step = live.run.step
    live.run.step = lambda rec, state, fold: (folded.append(rec.id), step(rec, state, fold))[1]  # type: ignore[method-assign]
    with LogFile(db) as log_file:
        enc = log_file.open()
        change = live.extend(enc)
        assert change is not None
        change.update(live.digested(log_file.verify(enc.row)))
    # From the fold kept past #512 (the first id past it on the path), not from #1: the
    # events from there to #559 again, then the 44 new ones.
    assert page_data.GMLive.EVERY < folded[0] < 560 and len(folded) == 560 - folded[0] + 44
    assert len(change["events"]) == 603 - 560 + 1  # the amended event and every later one decided again
    page = fold(page, as_sent(change))
    assert shown(page) == shown(whole(Path(db)))
    # #4 to #603 each take 1: 900 - 600 = 300 on main; on the amend's branch #560 takes 2:
    # 900 - (560 - 4) - 2 - (603 - 560) = 299
    heads = {name: b["path"][-1]["board"]["o"] for name, b in shown(page)["branches"].items()}
    assert {name: next(c["v"] for c in cards if c["n"] == "Hauser") for name, cards in heads.items()} == {"main": 300, "amend-560": 299}


# --- served: `skirmish serve --for gm` ---------------------------------------------------------

def gm_pages(stream: Any) -> list[dict[str, Any]]:
    """The GM's page after each frame that carried data, folded as page.js folds it."""
    out: list[dict[str, Any]] = []
    for frame in stream.frames:
        if frame and frame[0].startswith("event: "):
            sent = json.loads(frame[2][len("data: "):])
            out.append(sent if frame[0] == "event: state" else fold(out[-1] if out else stream.base, sent))
    return out


def settled(served: Any, stream: Any, seconds: float = 20) -> tuple[dict[str, Any], dict[str, Any]]:
    """The page the stream folded and a page opened now, once they agree (the verify digest
    comes a moment after the change it is of) or the time is up."""
    deadline = time.monotonic() + seconds
    while True:
        folded, now = gm_pages(stream)[-1], served.page()[1]
        if folded.get("digest") == now["digest"] or time.monotonic() > deadline:
            return folded, now
        time.sleep(0.2)


@pytest.mark.slow
def test_the_served_gms_version_sends_each_change_and_its_page_shows_the_whole_one(
        fought: dict[str, Path], tmp_path: Path) -> None:  # noqa: F811 - the fixture
    fight = FIGHTS[0]
    db = tmp_path / "fight.db"
    shutil.copy(fought[fight.ruleset], db)
    renamed, first = False, 0
    with serving(str(db), options=("--for", "gm")) as served:
        stream = served.stream()
        for words in COMMANDS:
            words = [w.format(party="Hauser the Bold" if renamed else fight.party, hurt="damage", harm="1", harm2="2",
                              first=first) for w in words]
            assert run_cli(["--db", str(db), *words]) == 0, words
            renamed = (renamed or words[0] == "rename") and words[:2] != ["switch", "main"]
            if not first:
                with LogFile(str(db)) as log_file:
                    first = log_file.open().head().event_id
            time.sleep(0.3)  # mostly a frame each
        time.sleep(QUIET)
        folded, now = settled(served, stream)
        assert stream.kinds() and set(stream.kinds()) == {"more"}, stream.kinds()  # never the whole page again
        # What the server holds, and the page built whole from the file, apart from it.
        assert shown(folded) == shown(now) == shown(whole(db))
        # The server is pinned to main: the amend's branch and `later` are listed beside it.
        assert [b["name"] for b in now["branches"]] == ["main", "what-if", "later", f"amend-{first}"]


@pytest.mark.slow
def test_a_gms_page_that_reconnects_is_sent_only_what_it_missed(
        fought: dict[str, Path], tmp_path: Path) -> None:  # noqa: F811 - the fixture
    db = tmp_path / "fight.db"
    shutil.copy(fought[FIGHTS[0].ruleset], db)
    with serving(str(db), options=("--for", "gm")) as served:
        first = served.stream()
        assert run_cli(["--db", str(db), "damage", "Hauser", "5"]) == 0
        first.wait_for(lambda: bool(first.kinds()))
        settled(served, first)  # its digest too
        last_id = next(line for line in first.frames[-1] if line.startswith("id: "))[4:]
        page = gm_pages(first)[-1]
        first.close()
        awake = served.stream()  # another page, open all along: the frames the sleeper missed
        for words in (["damage", "Hauser", "2"], ["undo"], ["branch", "later", "--at", "3"], ["note", "2", "dusk"]):
            assert run_cli(["--db", str(db), *words]) == 0
            time.sleep(0.3)
        time.sleep(QUIET)
        woke = Stream(served.port, page, last_id)
        served.streams.append(woke)
        woke.wait_for(lambda: len(woke.kinds()) >= len(awake.kinds()))
        time.sleep(QUIET)
        assert set(woke.kinds()) == {"more"}, woke.kinds()  # what it missed, not the whole page
        ids = [line for frame in woke.frames for line in frame if line.startswith("id: ")]
        assert ids == [line for frame in awake.frames for line in frame if line.startswith("id: ")]  # each missed frame once
        assert int(ids[0].partition(".")[2]) == int(last_id.partition(".")[2]) + 1
        folded, now = settled(served, woke)
        assert shown(folded) == shown(now) == shown(whole(db))


@pytest.mark.slow
def test_a_commands_change_at_a_long_log_is_small(tmp_path: Path) -> None:
    """A command, an undo and a redo at a 6,000-event fight (benchmarks/fight.py) are each a
    change of a few hundred bytes, as at a 300-event one: what changed, not the page (which
    grows with the log: about 200 bytes an event)."""
    from benchmarks.fight import generate

    sizes = {}
    for events in (300, 6_000):
        db = str(tmp_path / f"fight-{events}.db")
        generate(db, events)[0].close()
        with LogFile(db) as log_file:
            enc = log_file.open()
            live = page_data.GMLive(enc, page_data.Bands())
            name = enc.view().combatants[0].name
        page = len(json_for_script(live.data))
        sent = []
        for words in (["damage", name, "1"], ["undo"], ["redo"]):
            assert run_cli(["--db", db, *words]) == 0
            with LogFile(db) as log_file:
                change = live.extend(log_file.open())
            assert change is not None, words
            sent.append(len(json_for_script(change)))
        sizes[events] = page, sent
    (short_page, short), (long_page, long) = sizes[300], sizes[6_000]
    assert long_page > 10 * short_page  # the page grew with the log
    assert max(long) < 1_500 and max(long) < 2 * max(short), sizes  # its changes did not


@pytest.mark.slow
def test_a_row_edited_under_the_gms_version_is_said(tmp_path: Path) -> None:
    """The GM's version no longer builds its page (and verifies the log) at each change: the
    verify digest worked out again after a commit finds a row edited by hand, and the
    terminal says so (eventlog/chain.py names the row)."""
    import sqlite3

    from support.tamper import reguard, unguard

    db = tmp_path / "bridge.db"
    for words in (["new", "Bridge", "--rules", "ap-countdown"],
                  ["add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40"]):
        assert run_cli(["--db", str(db), *words]) == 0
    with serving(str(db), options=("--for", "gm")) as served:
        stream = served.stream()
        raw = sqlite3.connect(db)
        guards = unguard(raw)
        raw.execute("UPDATE commands SET text = 'add Hauser --side players --stat qu=1 --stat hits=400' WHERE id = 2")
        reguard(raw, guards)
        raw.commit()
        raw.close()
        deadline = time.monotonic() + 20
        while "cannot verify" not in served.said.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        said = served.said.read_text()
        assert "cannot verify" in said and "command 2" in said, said
        assert not stream.kinds()  # nothing shown changed, and no digest of a log that does not verify
