"""`skirmish serve` against clients that hold connections without finishing a request:
heads that never end, bodies too large or that stop coming, more requests than it serves at
once, and a stop with such connections open. The bounds are cli/server.py's.

Each test runs the real command as a process on 127.0.0.1 (tests/support/served.py)."""

from __future__ import annotations

import contextlib
import http.client
import re
import select
import signal
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import Cli
from support.fight import cli_fight
from support.served import Served, serving

pytest.importorskip("uvicorn")

from skirmish.cli.server import BODY_BYTES, BODY_WAIT, HEAD_WAIT, MOST_CLIENTS  # noqa: E402


@pytest.fixture(autouse=True)
def unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKIRMISH_ENCOUNTER", raising=False)
    monkeypatch.delenv("SKIRMISH_BRANCH", raising=False)


@pytest.fixture
def fight(cli: Cli) -> Cli:
    return cli_fight(cli, "Bridge", seed=None, foe=None)


def connect(served: Served) -> socket.socket:
    return socket.create_connection(("127.0.0.1", served.port), timeout=10)


@contextlib.contextmanager
def stalled_heads(served: Served, count: int) -> Iterator[list[socket.socket]]:
    """``count`` connections that start a request and never end its head."""
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = connect(served)
            sock.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n".encode())
            socks.append(sock)
        yield socks
    finally:
        for sock in socks:
            sock.close()


def answer(sock: socket.socket, wait: float = 10.0) -> tuple[int, bytes]:
    """The status and body of the answer on ``sock``, read until the server closes it."""
    sock.settimeout(wait)
    got = b""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            more = sock.recv(65536)
        except ConnectionResetError:
            break
        if not more:
            break
        got += more
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 "), got[:200]
    return int(head.split()[1]), body


def peak_kb(served: Served) -> int:
    """The most the server's resident memory has been, in kB (/proc's VmHWM): a body held
    for a moment and given back shows here, not in VmRSS."""
    status = Path(f"/proc/{served.process.pid}/status").read_text()
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    assert found, status
    return int(found.group(1))


def closed_by_server(sock: socket.socket, wait: float) -> bool:
    sock.settimeout(wait)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


# --- heads that never end -------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("count", [210, 1000])
def test_stalled_heads_do_not_keep_the_page_from_a_player(fight: Cli, count: int) -> None:
    with serving(fight.db) as served, stalled_heads(served, count) as stalled:
        opened = time.monotonic()
        asked = time.monotonic()
        with urllib.request.urlopen(served.base + "/", timeout=1) as page:
            status = page.status
            page.read()
        took = time.monotonic() - asked
        # Every stalled connection is closed by the server: the oldest as newer ones came,
        # the rest HEAD_WAIT seconds after they connected.
        deadline = opened + HEAD_WAIT + 3
        still_open = sum(not closed_by_server(sock, max(0.01, deadline - time.monotonic())) for sock in stalled)
    assert status == 200
    assert took < 1.0, f"{took:.2f} s for the page with {count} stalled connections"
    assert still_open == 0, f"{still_open} of {count} stalled connections still open {HEAD_WAIT + 3} s on"


@pytest.mark.slow
def test_a_connection_that_goes_quiet_after_an_answer_is_closed(fight: Cli) -> None:
    with serving(fight.db) as served:
        kept = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        kept.request("GET", "/")
        page = kept.getresponse()
        page.read()
        assert page.status == 200 and not page.will_close  # kept alive for the next request
        assert kept.sock is not None
        kept.sock.sendall(b"GET / HT")  # which never ends
        assert closed_by_server(kept.sock, HEAD_WAIT + 2), f"still open {HEAD_WAIT + 2} s after the answer"
        kept.close()


# --- bodies -------------------------------------------------------------------------------------

def token(served: Served) -> str:
    return served.gm_link().rpartition("#")[2]


def post_head(served: Served, path: str, length: str, key: str = "") -> bytes:
    framing = f"Content-Length: {length}" if length != "chunked" else "Transfer-Encoding: chunked"
    secret = f"X-Skirmish-Token: {key}\r\n" if key else ""
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\nContent-Type: application/json\r\n"
            f"{secret}{framing}\r\n\r\n").encode()


@pytest.mark.slow
def test_bodies_past_the_limit_are_refused_and_not_kept(fight: Cli) -> None:
    with serving(fight.db, options=("--for", "gm")) as served:
        key = token(served)
        urllib.request.urlopen(served.base + "/", timeout=30).read()
        before, peak_before = served.rss_kb(), peak_kb(served)
        said = f"a request's body is at most {BODY_BYTES} bytes\n".encode()

        # A length past the limit: refused on the head, before a byte of the body is sent.
        for path in ("/gm/run", "/"):
            with connect(served) as sock:
                sock.sendall(post_head(served, path, "50000000", key))
                assert answer(sock) == (413, said), path

        # A chunked body that grows past the limit: cut off there.
        with connect(served) as sock:
            sock.sendall(post_head(served, "/gm/run", "chunked", key))
            piece = b"x" * 4096
            for _ in range(BODY_BYTES // len(piece)):  # the limit, and it is still read
                sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
            assert not select.select([sock], [], [], 0.5)[0], sock.recv(300)
            sock.sendall(b"1\r\nx\r\n")  # one byte past it, and nothing after it the server would not read
            assert answer(sock) == (413, said)

        # A client that sends its 50 MB anyway: the server reads no more than a slice of it.
        with connect(served) as sock:
            sock.sendall(post_head(served, "/gm/run", "50000000", key))
            sent = 0
            with contextlib.suppress(OSError):
                for _ in range(50):
                    sock.sendall(b" " * 1_000_000)
                    sent += 1
        time.sleep(1)
        grown, peaked = served.rss_kb() - before, peak_kb(served) - peak_before
    assert "Traceback" not in served.said.read_text(), served.said.read_text()
    assert sent < 50, "the server took the whole 50 MB"
    # Before the bound, the 50 MB were read whole: the peak rose by about 100 MB (the body
    # and its copy), given back after.
    assert grown < 10_000 and peaked < 10_000, f"the server grew by {grown} kB, its peak by {peaked} kB"


@pytest.mark.slow
def test_a_body_that_stops_coming_is_answered_408(fight: Cli) -> None:
    with serving(fight.db, options=("--for", "gm")) as served, connect(served) as sock:
        sock.sendall(post_head(served, "/gm/run", "100", token(served)) + b'{"words": ["dam')
        asked = time.monotonic()
        status, body = answer(sock, BODY_WAIT + 5)
        took = time.monotonic() - asked
    assert (status, body) == (408, f"a request's body must come within {BODY_WAIT:g} s\n".encode())
    assert "Traceback" not in served.said.read_text(), served.said.read_text()
    assert took < BODY_WAIT + 2


# --- requests at once ---------------------------------------------------------------------------

@pytest.mark.slow
def test_one_request_past_the_most_served_at_once_is_answered_503(fight: Cli) -> None:
    with serving(fight.db) as served:
        streams: list[socket.socket] = []
        try:
            for _ in range(MOST_CLIENTS):
                sock = connect(served)
                sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n\r\n".encode())
                streams.append(sock)
            for sock in streams:  # each stream is being answered
                assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            with connect(served) as extra:
                extra.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n\r\n".encode())
                status, body = answer(extra)
            assert status == 503
            assert body == f"the server answers {MOST_CLIENTS} requests at once: try again in a moment\n".encode()
            streams.pop().close()
            deadline = time.monotonic() + 5
            while True:  # a place again, once the server has heard the stream's client leave
                try:
                    with urllib.request.urlopen(served.base + "/", timeout=5) as page:
                        assert page.status == 200
                    break
                except urllib.error.HTTPError as refused:
                    assert refused.code == 503 and time.monotonic() < deadline
                    time.sleep(0.1)
        finally:
            for sock in streams:
                sock.close()


# --- stopping -----------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_signal_stops_the_server_at_once_with_stalled_connections(fight: Cli, sig: signal.Signals) -> None:
    with serving(fight.db, options=("--for", "gm")) as served, stalled_heads(served, 50):
        with connect(served) as body:  # and one whose body stopped coming
            body.sendall(post_head(served, "/gm/run", "100", token(served)) + b"{")
            time.sleep(0.5)
            asked = time.monotonic()
            served.process.send_signal(sig)
            served.process.wait(timeout=10)
            took = time.monotonic() - asked
            told = answer(body, 2)
    said = served.said.read_text()
    # A request still waiting for its body used to hold the stop for uvicorn's grace (1 s),
    # then be cancelled (a 500): 1.6 s in all. It is answered at the next tick now.
    assert took < 1.0, f"{took:.1f} s to stop"
    assert told == (503, b"the server is stopping\n")
    assert "Traceback" not in said, said
    assert served.process.returncode == (0 if sig == signal.SIGINT else 128 + signal.SIGTERM)
