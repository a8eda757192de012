"""`skirmish serve` as a phone sees it: one change to the log is one frame on the event
stream, then quiet; a server pinned to an encounter or a branch (option or variable) serves
that table, whatever another process makes current.

Each test runs the real command (`skirmish serve` on 127.0.0.1, a free port, stopped at
the end), reads the page and the stream over HTTP, and records commands from another
connection. The figures expected are worked by hand from the commands typed (the comments
say how)."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from support.cli import Cli
from support.served import free_port

pytestmark = pytest.mark.slow  # a real server per test, watched for seconds: `pytest -m "not slow"` leaves it out

pytest.importorskip("uvicorn")

SCRIPT = shutil.which("skirmish", path=str(Path(sys.executable).parent)) or shutil.which("skirmish")
# The server looks at the file every 0.5 s and at its streams every 0.25 s (cli/live.py):
# a change reaches a phone well within this, and a stream that goes on sending would have
# sent several more frames by the end of QUIET.
ARRIVES = 5.0
QUIET = 1.2


@pytest.fixture(autouse=True)
def unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands typed in these tests go where they say, not where the developer's shell
    is pinned."""
    monkeypatch.delenv("SKIRMISH_ENCOUNTER", raising=False)
    monkeypatch.delenv("SKIRMISH_BRANCH", raising=False)


def page_data(html: bytes) -> dict[str, Any]:
    """The data a served page carries (its script element), as the page's script reads it."""
    found = re.search(rb'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S)
    assert found, html[:300]
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def board(data: dict[str, Any]) -> tuple[int, dict[str, dict[str, Any]]]:
    """The head event of the page's current branch and the board there, each combatant's
    card by name: the deltas folded from the root down that branch, as the page folds them
    (ids and parents as steps; the order and pending whole, the rest key by key)."""
    views: dict[int, dict[str, Any]] = {}
    event_id = 0
    for entry in data["events"]:
        event_id += entry[0]
        back, change = entry[1], entry[4]
        before = views[event_id - back] if back is not None else {}
        cards = dict(before.get("c", {}))
        for key, fields in change.get("c", {}).items():
            cards[key] = {**cards.get(key, {}), **fields}
        views[event_id] = {**before, **{k: v for k, v in change.items() if k != "c"}, "c": cards}
    head = next(b["head"] for b in data["branches"] if b["name"] == data["current"])
    return head, {card["n"]: card for card in views[head]["c"].values()}


def fold_change(data: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """The data after a ``more`` frame, folded in as page.js folds it: the events after an
    undo's head dropped, the new events (steps from the last one held) and strings
    appended, the rest replaced."""
    out = dict(data)
    if "back" in change:  # an undo: the page keeps its first ``back`` events
        out["events"] = data["events"][:change["back"]]
        data = out
    for key in ("events", "strings"):
        if key in change:
            out[key] = [*data[key], *change[key]]
    for key in ("branches", "figures", "unit", "notes", "ended", "bands"):
        if key in change:
            out[key] = change[key]
    return out


def narration(data: dict[str, Any], event_id: int) -> str:
    """The line the page narrates for one event."""
    at = 0
    for entry in data["events"]:
        at += entry[0]
        if at == event_id:
            text: str = data["strings"][entry[3]]
            return text
    raise AssertionError(f"#{event_id} is not on the page")


@dataclass
class Stream:
    """One phone's event stream, read by a thread of its own: every frame (its lines) as it
    arrives, so a test can count what came over a window of time."""

    port: int
    base: dict[str, Any] | None = None  # the page's data the stream goes on from (its ``live`` link)
    last_event_id: str | None = None  # a reconnection: the id of the last frame the page had
    frames: list[list[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Last-Event-ID": self.last_event_id} if self.last_event_id is not None else {}
        self.conn.request("GET", self.base["live"] if self.base is not None else "/events", headers=headers)
        response = self.conn.getresponse()
        assert response.status == 200 and response.headers["content-type"].startswith("text/event-stream")
        self.thread = threading.Thread(target=self._read, args=(response,), daemon=True)
        self.thread.start()
        # The stream counts changes from the moment it opens: its first frame says it did.
        self.wait_for(lambda: bool(self.frames))
        assert self.frames[0] == ["retry: 1000"]

    def _read(self, response: http.client.HTTPResponse) -> None:
        lines: list[str] = []
        try:
            while line := response.readline():
                text = line.decode().rstrip("\n")
                if text:
                    lines.append(text)
                else:
                    self.frames.append(lines)
                    lines = []
        except (OSError, ValueError, http.client.HTTPException):
            pass  # closed by the test

    def wait_for(self, done: Callable[[], bool], seconds: float = ARRIVES) -> None:
        deadline = time.monotonic() + seconds
        while not done() and time.monotonic() < deadline:
            time.sleep(0.02)

    def pages(self) -> list[dict[str, Any]]:
        """The data after every frame that carried data, in order, as page.js holds it: a
        ``state`` frame is the whole data, a ``more`` frame is folded into the data before
        it (the page's own, for the first)."""
        out: list[dict[str, Any]] = []
        for frame in self.frames:
            kind = frame[0] if frame and frame[0].startswith("event: ") else ""
            if kind in ("event: state", "event: more"):
                assert len(frame) == 3 and frame[1].startswith("id: ") and frame[2].startswith("data: "), frame
                sent = json.loads(frame[2][len("data: "):])
                if kind == "event: state":
                    out.append(sent)
                else:
                    before = out[-1] if out else self.base
                    assert before is not None, "a change came before the page it changes"
                    out.append(fold_change(before, sent))
            else:  # what else the server sends by design carries no data
                assert frame == ["retry: 1000"] or all(line.startswith(":") for line in frame), frame
        return out

    def kinds(self) -> list[str]:
        """The kind of each frame that carried data: "state" (whole) or "more" (a change)."""
        return [frame[0][len("event: "):] for frame in self.frames if frame and frame[0].startswith("event: ")]

    def next_page(self, seen: int, *, quiet: bool = True) -> dict[str, Any]:
        """Wait for the page after the first ``seen`` (and, ``quiet``, then for a while
        during which a stream that went on sending would send more)."""
        self.wait_for(lambda: len(self.pages()) > seen)
        assert len(self.pages()) > seen, f"no new page on the stream within {ARRIVES} s"
        if quiet:
            time.sleep(QUIET)
        return self.pages()[seen]

    def close(self) -> None:
        sock = self.conn.sock
        if sock is not None:  # the reader sees the end of the stream, then the connection goes
            sock.shutdown(socket.SHUT_RDWR)
        self.thread.join(timeout=5)
        self.conn.close()


@dataclass
class Served:
    port: int
    said: Path  # what the command printed to its terminal
    streams: list[Stream] = field(default_factory=list)

    def page(self) -> tuple[bytes, dict[str, Any]]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=30) as answer:
            html: bytes = answer.read()
        return html, page_data(html)

    def stream(self) -> Stream:
        """A phone's stream, opened as page.js opens it: from the page it just loaded."""
        self.streams.append(Stream(self.port, self.page()[1]))
        return self.streams[-1]


@contextmanager
def serving(db: str, *pins: str, env: dict[str, str] | None = None, options: tuple[str, ...] = ()) -> Iterator[Served]:
    """`skirmish [PINS] serve` on a free port of 127.0.0.1, in its own process with its own
    environment, as from the GM's terminal; stopped at the end."""
    assert SCRIPT
    port = free_port()
    said = Path(db).with_suffix(".serve.txt")
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SKIRMISH_")}
    with said.open("w") as err:
        process = subprocess.Popen([SCRIPT, "--db", db, *pins, "serve", "--port", str(port), *options],
                                   stdout=subprocess.DEVNULL, stderr=err, env={**environ, **(env or {})})
    served = Served(port, said)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, f"serve stopped: {said.read_text()}"
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert time.monotonic() < deadline, "serve did not listen within 30 s"
                time.sleep(0.05)
        yield served
    finally:
        for stream in served.streams:  # an open stream would hold the server's shutdown
            stream.close()
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# --- one change, one frame ------------------------------------------------------------------

@pytest.fixture
def bridge(cli: Cli) -> Cli:
    """#1 the encounter, #2 the Orc (30 hits, a foe), #3 Hauser (40 hits, a player),
    #4 the Orc takes 6: 24 of 30, which the players see as `hurt` (docs/browser.md: between its
    maximum and 50 %)."""
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("damage", "Orc", "6")
    return cli


CHANGES = [
    # A command recorded: #5, Hauser 40 - 5 = 35 of 40 (a player: the figure exactly).
    pytest.param(["damage", "Hauser", "5"], 5, {"Hauser": (35, 40), "Orc": ("hurt", None)},
                 "Hauser takes 5 hits (35 left)", id="a-command"),
    # The head moved back, no event recorded: #3 again, the Orc unhurt (30 of 30).
    pytest.param(["undo"], 3, {"Hauser": (40, 40), "Orc": ("unhurt", None)},
                 "Hauser joins the players side (qu 1, hits 40, penalty 0)", id="an-undo"),
]


@pytest.mark.parametrize(("command", "head", "cards", "line"), CHANGES)
def test_one_change_sends_each_phone_one_page_then_nothing(
        bridge: Cli, command: list[str], head: int, cards: dict[str, tuple[Any, Any]], line: str) -> None:
    with serving(bridge.db) as served:
        _, before = served.page()
        assert board(before)[0] == 4
        stream = served.stream()
        bridge.ok(*command)  # another connection: the GM's terminal
        data = stream.next_page(0)
        # Exactly one page for one change: a stream that forgot what it sent would send the
        # whole page again at each of its ticks, to every phone, for as long as it is open.
        assert len(stream.pages()) == 1, f"{len(stream.pages())} pages for one change"
        at, shown = board(data)
        assert at == head
        assert {name: (card["v"], card["vm"]) for name, card in shown.items()} == cards
        assert narration(data, head) == line


# --- a pinned server keeps to its table ------------------------------------------------------

ENCOUNTER_PINS = [
    pytest.param(["--encounter", "One"], {}, id="option"),
    pytest.param([], {"SKIRMISH_ENCOUNTER": "One"}, id="variable"),
]


@pytest.fixture
def two_tables(cli: Cli) -> Cli:
    """'One': #1, Hauser #2 (40 hits); 'Two': #3, Hauser #4 (40 hits). 'Two' is current."""
    for name in ("One", "Two"):
        cli.ok("new", name, "--rules", "ap-countdown")
        cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    return cli


def hauser(data: dict[str, Any]) -> tuple[int, int, int]:
    at, shown = board(data)
    return at, shown["Hauser"]["v"], shown["Hauser"]["vm"]


@pytest.mark.parametrize(("pins", "env"), ENCOUNTER_PINS)
def test_a_pinned_server_shows_its_encounter_whatever_another_process_makes_current(
        two_tables: Cli, pins: list[str], env: dict[str, str]) -> None:
    cli = two_tables
    with serving(cli.db, *pins, env=env) as served:
        html, data = served.page()
        # 'Two' is current in the file; the server was pinned to 'One'.
        assert b"<title>One: replay</title>" in html
        assert data["encounter"] == "One" and hauser(data) == (2, 40, 40)
        stream = served.stream()
        cli.ok("use", "One")
        cli.ok("damage", "Hauser", "5")  # #5 on One: 40 - 5 = 35
        first = stream.next_page(0, quiet=False)  # the quiet below counts for it
        assert first["encounter"] == "One" and hauser(first) == (5, 35, 40)
        cli.ok("use", "Two")  # a co-GM moves the file to the other table and plays there
        cli.ok("damage", "Hauser", "3")  # #6 on Two: One's page is as it was, nothing to send
        time.sleep(QUIET)
        assert len(stream.pages()) == 1, [(p["encounter"], hauser(p)) for p in stream.pages()]
        cli.ok("--encounter", "One", "damage", "Hauser", "2")  # #7 on One: 35 - 2 = 33
        second = stream.next_page(1)
        assert second["encounter"] == "One" and hauser(second) == (7, 33, 40)
        assert len(stream.pages()) == 2
        assert served.page()[1]["encounter"] == "One"  # a phone that opens the page now
    assert "Serving 'One'" in served.said.read_text()


BRANCH_PINS = [
    pytest.param(["--on", "what-if"], {}, id="option"),
    pytest.param([], {"SKIRMISH_BRANCH": "what-if"}, id="variable"),
]


@pytest.mark.parametrize(("pins", "env"), BRANCH_PINS)
def test_a_pinned_server_follows_its_branch_whatever_another_process_switches_to(
        cli: Cli, pins: list[str], env: dict[str, str]) -> None:
    # main: #1, Hauser #2 (40 hits), #3 takes 5 (35). what-if from #2: #4 takes 10 (30).
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("damage", "Hauser", "5")
    cli.ok("branch", "what-if", "--at", "2")
    cli.ok("switch", "what-if")
    cli.ok("damage", "Hauser", "10")
    cli.ok("switch", "main")  # the file's current branch is main again
    with serving(cli.db, *pins, env=env) as served:
        _, data = served.page()
        assert data["current"] == "what-if" and hauser(data) == (4, 30, 40)
        stream = served.stream()
        # #5 on main (34): the players' page holds the pinned branch alone (docs/browser.md, the
        # players' policy), so it is not sent again for it.
        cli.ok("damage", "Hauser", "1")
        cli.ok("--on", "what-if", "damage", "Hauser", "2")  # #6 on what-if: 30 - 2 = 28
        first = stream.next_page(0)
        assert first["current"] == "what-if" and hauser(first) == (6, 28, 40)
        assert [b["name"] for b in first["branches"]] == ["what-if"]
        assert len(stream.pages()) == 1
    assert "Serving 'Bridge', branch 'what-if'" in served.said.read_text()


# --- the door: the Host header ----------------------------------------------------------------

@pytest.mark.parametrize(("host", "served"), [
    ("127.0.0.1:{port}", True), ("localhost:{port}", True), ("[::1]:{port}", True),
    ("192.168.1.20:{port}", True),  # a phone on the table's network types the GM's address
    ("attacker.example:{port}", False),  # a name pointed at this machine: DNS rebinding
    ("127.0.0.1.attacker.example", False), ("localhost.attacker.example:{port}", False), ("", False),
])
def test_the_server_answers_only_to_an_address_or_localhost(bridge: Cli, host: str, served: bool) -> None:
    with serving(bridge.db, options=("--for", "gm")) as server:
        for path in ("/", "/events"):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            conn.putrequest("GET", path, skip_host=True)
            conn.putheader("Host", host.format(port=server.port))
            conn.endheaders()
            answer = conn.getresponse()
            body = answer.read(200) if not served or path == "/" else b""
            conn.close()
            assert answer.status == (200 if served else 421), (host, path, answer.status)
            if not served:
                assert body == b"skirmish serves its page by address or localhost only\n"
                assert b"Orc" not in body


@pytest.mark.parametrize(("options", "version"), [
    ((), "the players' version"), (("--for", "players"), "the players' version"), (("--for", "gm"), "the GM's version"),
])
def test_the_gms_terminal_says_which_version_it_serves(bridge: Cli, options: tuple[str, ...], version: str) -> None:
    """The GM reads on the terminal whether the phones get the players' version (the default,
    docs/browser.md) or the GM's, before anyone connects."""
    with serving(bridge.db, options=options) as server:
        html, data = server.page()
    said = server.said.read_text()
    assert f"Serving 'Bridge' ({version}) on http://127.0.0.1:{server.port}/" in said, said
    # and the page is that version: the GM's carries the dice seed, the players' does not
    assert ("seed" in data) == (version == "the GM's version"), sorted(data)
