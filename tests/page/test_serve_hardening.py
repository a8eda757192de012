"""`skirmish serve` against what a table, a careless shell or a hostile client does to it:
another shell's `use` and `switch`, clients that stop reading, Ctrl+C and SIGTERM with
pages open, a port out of range or taken, the file deleted or replaced under it, an error
while it looks at the file.

Each test runs the real command as a process (tests/support/served.py), but for the
follower's error, which is driven in-process."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from support.cli import Cli
from support.served import SCRIPT, Served, free_port, serving

pytest.importorskip("uvicorn")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKIRMISH_ENCOUNTER", raising=False)
    monkeypatch.delenv("SKIRMISH_BRANCH", raising=False)


def page(served: Served) -> dict[str, Any]:
    with urllib.request.urlopen(served.base + "/", timeout=30) as answer:
        html: bytes = answer.read()
    found = re.search(rb'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S)
    assert found, html[:300]
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def settle() -> None:
    time.sleep(1.5)  # the follower looks at the file every 0.5 s (cli/live.py)


# --- another shell does not move the screens --------------------------------------------------

@pytest.mark.slow
def test_another_shells_use_does_not_move_an_unpinned_server(cli: Cli) -> None:
    # 'One': #1, Hauser #2; 'Two': #3, Hauser #4; 'Two' is current when serve starts.
    for name in ("One", "Two"):
        cli.ok("new", name, "--rules", "ap-countdown")
        cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    with serving(cli.db) as served:
        assert page(served)["encounter"] == "Two"
        cli.ok("use", "One")  # another shell moves the file to 'One' and plays there
        cli.ok("damage", "Hauser", "5")
        settle()
        assert page(served)["encounter"] == "Two"


@pytest.mark.slow
def test_another_shells_switch_does_not_move_an_unpinned_server(cli: Cli) -> None:
    # main: #1, Hauser #2, #3 takes 5. what-if from #2. main is current when serve starts.
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("damage", "Hauser", "5")
    cli.ok("branch", "what-if", "--at", "2")
    with serving(cli.db) as served:
        assert page(served)["current"] == "main"
        cli.ok("switch", "what-if")
        cli.ok("damage", "Hauser", "10")
        settle()
        assert page(served)["current"] == "main"


# --- Ctrl+C and SIGTERM with a page open -------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_signal_stops_the_server_at_once_with_a_stream_open(cli: Cli, sig: signal.Signals) -> None:
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    with serving(cli.db) as served:
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        conn.request("GET", "/events")
        answer = conn.getresponse()
        assert answer.readline() == b"retry: 1000\n"  # the players' stream is open
        token = served.gm_link().rpartition("#")[2]
        gm = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        gm.request("GET", f"/gm/events?token={token}")
        assert gm.getresponse().readline() == b"retry: 1000\n"  # and the GM's
        asked = time.monotonic()
        served.process.send_signal(sig)
        served.process.wait(timeout=10)
        took = time.monotonic() - asked
        conn.close()
        gm.close()
    said = served.said.read_text()
    assert took < 2.0, f"{took:.1f} s to stop"
    assert "Traceback" not in said and "Error" not in said, said
    # Ctrl+C is how the GM stops it: a clean exit; SIGTERM ends it as every long command
    # does (cli/stopping.py): exit 128 + 15, after the same clean-up.
    assert served.process.returncode == (0 if sig == signal.SIGINT else 128 + signal.SIGTERM)


# --- where it listens ---------------------------------------------------------------------------

@pytest.mark.slow
def test_a_port_out_of_range_is_one_line(cli: Cli) -> None:
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    assert SCRIPT
    done = subprocess.run([SCRIPT, "--db", cli.db, "serve", "--port", "99999"], capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 2  # bad input, not 3 (the branch moved)
    assert done.stderr == "Error: --port 99999: a port is a number from 1 to 65535\n"


@pytest.mark.slow
def test_a_port_in_use_is_one_line(cli: Cli) -> None:
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    assert SCRIPT
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run([SCRIPT, "--db", cli.db, "serve", "--port", str(port)], capture_output=True, text=True,
                              timeout=30)
    assert done.returncode == 2
    assert done.stderr == f"Error: --port {port}: another program listens on it (pick another port)\n"


# --- clients that stop reading ----------------------------------------------------------------

STALLED = 40


def stalled_client(port: int, path: str) -> socket.socket:
    """A client that asks for ``path`` and never reads: a small receive window, so what the
    server sends piles up on the server's side."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    return sock


@pytest.fixture(scope="module")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 30,000-event fight (benchmarks/fight.py): its page is about 4.7 MB, more than the
    kernel's socket buffers take for a client that stops reading."""
    db = tmp_path_factory.mktemp("long") / "long.db"
    subprocess.run([sys.executable, "-c", f"from benchmarks.fight import generate; generate({str(db)!r}, 30_000)[0].close()"],
                   cwd=ROOT, check=True, timeout=300)
    return db


@pytest.mark.slow
@pytest.mark.parametrize("path", ["/", "/events"])
def test_stalled_clients_do_not_grow_the_servers_memory(long_log: Path, tmp_path: Path, path: str) -> None:
    db = tmp_path / "long.db"
    shutil.copy(long_log, db)
    # The GM's version: the larger page (the players' leaves out what the policy hides).
    with serving(str(db), options=("--for", "gm")) as served:
        size = len(urllib.request.urlopen(served.base + "/", timeout=60).read())
        assert size > 4_000_000  # the page: what a client that stops reading was sent
        before = served.rss_kb()
        clients = [stalled_client(served.port, path) for _ in range(STALLED)]
        if path == "/events":  # a change: every stream is sent the new page
            assert SCRIPT
            subprocess.run([SCRIPT, "--db", str(db), "note", "1", "a change"], check=True, capture_output=True)
        time.sleep(4)
        grown = served.rss_kb() - before
        for sock in clients:
            sock.close()
    # Each client may hold the server to a slice or two of 64 KB (cli/server.py): 40 of
    # them about 5 MB; a copy of the page each, past what the kernel holds, was 70 MB and more (60 clients of
    # `GET /`: 62 MB to 173 MB; 60 streams and a note: 61 MB to 447 MB, before the bound).
    assert grown < 20_000, f"{STALLED} stalled clients of {path}: the server grew by {grown} kB (page {size} B)"


# --- the file under the server ----------------------------------------------------------------

@pytest.mark.slow
def test_a_deleted_database_is_noticed(cli: Cli) -> None:
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    with serving(cli.db) as served:
        page(served)
        for suffix in ("", "-wal", "-shm"):
            Path(cli.db + suffix).unlink(missing_ok=True)
        settle()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(served.base + "/", timeout=30)
        assert refused.value.code == 503
        assert f"the database {cli.db} was deleted" in refused.value.read().decode()
    assert f"the database {cli.db} was deleted" in served.said.read_text()


@pytest.mark.slow
def test_a_replaced_database_is_served_from_the_new_file(cli: Cli, tmp_path: Path) -> None:
    # #1 the encounter, #2 Hauser (40 hits). The copy gets #3: Hauser takes 7 (33 left).
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    copy = str(tmp_path / "copy.db")
    with serving(cli.db) as served:
        shutil.copy(cli.db, copy)
        Cli(copy, cli.capsys).ok("damage", "Hauser", "7")
        Path(copy).replace(cli.db)  # a backup put back, another file at the same path
        settle()
        data = page(served)
    assert "Hauser takes 7 hits (33 left)" in data["strings"]
    assert "was replaced by another file" in served.said.read_text()


# --- an error while looking at the file -------------------------------------------------------

def test_an_error_while_checking_for_changes_is_reported_and_the_follower_goes_on(
        cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from skirmish.cli import live
    from skirmish.projections.write.engine import LogFile

    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    monkeypatch.setattr(live, "POLL", 0.05)
    real = LogFile.data_version
    calls = {"n": 0}

    def flaky(self: LogFile) -> int:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError("disk I/O error")
        return real(self)

    monkeypatch.setattr(LogFile, "data_version", flaky)
    said: list[str] = []
    follower = live.Follower(cli.db, live.page_data.audience("players"), live.page_data.bands(None, 50), "Bridge", "main", say=said.append)
    follower.start()
    try:
        follower.ready.wait(10)
        deadline = time.monotonic() + 10
        while calls["n"] < 6 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert follower.thread.is_alive()
        assert said[:1] == [f"cannot read {cli.db}: OSError: disk I/O error"]
        version = follower.version
        cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
        while follower.version == version and time.monotonic() < deadline:
            time.sleep(0.05)
        assert follower.version == version + 1 and follower.error == ""  # it still follows the file
        assert said[1:] == [f"reading {cli.db} again"]
    finally:
        follower.stop()
        follower.thread.join(5)

