"""Every route `skirmish serve` answers, the players' and the GM's, asked as a slip would let
a stranger ask: without the GM's token, from an origin or a Host that nearly is the page's
own, and by a page that reconnects with a frame number at, one past or far past the frames
the server keeps.

The app is the one `serve` runs (cli/live.py's app with cli/gm_server.py's routes, their
follower and desk on a real file), called in-process as an ASGI server would call it: each
case is a request, not a process, so every route and near miss is tried. What each answer
must be comes from what the route is for (docs/browser.md, "Who may write"; the modules' docstrings):
the GM's data and writes need the token; a write comes from the page's own origin, which is
the scheme, host and port the page was served from (a page is served over plain HTTP); a
request is served only when its Host is an address or ``localhost``; a page that reconnects
is sent every frame it missed, or the whole data when one of them is no longer kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from skirmish.cli import gm_server, live  # noqa: E402
from skirmish.cli.main import run_cli  # noqa: E402
from skirmish.eventlog.commands import Damage, Heal  # noqa: E402
from skirmish.projections import policy  # noqa: E402
from skirmish.projections.write.engine import LogFile  # noqa: E402

from test_live_slips import page_data  # noqa: E402
from test_players_stream import without_link  # noqa: E402

PORT = 8000  # the port the page is served on in these requests' Host and Origin
TOKEN = "the-gms-secret-token-0123456789abcdef"


@dataclass
class Answer:
    status: int
    body: bytes
    kind: str = ""  # its content-type

    def frames(self) -> list[dict[str, str]]:
        """The stream's frames that carry data: their fields (id, event, data)."""
        out = []
        for block in self.body.decode().split("\n\n"):
            fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
            if "data" in fields:
                out.append(fields)
        return out


def call(app: Any, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b"",
         enough: Callable[[Answer], bool] | None = None, linger: float = 0.3, limit: float = 20) -> Answer:
    """One request through the ASGI app. A stream is read until ``enough`` of it came (then
    ``linger`` seconds more, to see nothing else follows) or ``limit`` seconds passed; then the
    client leaves."""
    async def go() -> Answer:
        target, _, query = path.partition("?")
        sent = {"host": f"localhost:{PORT}", **{k.lower(): v for k, v in (headers or {}).items()}}
        scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"}, "http_version": "1.1",
                 "method": method, "scheme": "http", "path": target, "raw_path": target.encode(),
                 "query_string": query.encode(), "root_path": "", "client": ("127.0.0.1", 50000),
                 "server": ("127.0.0.1", PORT), "state": {},
                 "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in sent.items()]}
        gone, asked = asyncio.Event(), False
        answer = Answer(0, b"")

        async def receive() -> dict[str, Any]:
            nonlocal asked
            if not asked:
                asked = True
                return {"type": "http.request", "body": body, "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        loop = asyncio.get_running_loop()
        done_at: list[float] = []

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answer.status = message["status"]
                answer.kind = dict(message.get("headers", [])).get(b"content-type", b"").decode()
            elif message["type"] == "http.response.body":
                answer.body += message.get("body", b"")
                if enough is not None and not done_at and enough(answer):
                    done_at.append(loop.time())

        task = asyncio.ensure_future(app(scope, receive, send))
        started = loop.time()
        while not task.done():
            await asyncio.sleep(0.02)
            now = loop.time()
            if (done_at and now - done_at[0] >= linger) or now - started >= limit:
                gone.set()
                await asyncio.wait_for(task, 10)
        task.result()
        return answer

    return asyncio.run(go())


@dataclass
class Served:
    app: Any
    db: str
    follower: live.Follower
    desk: gm_server.Desk

    def commands(self) -> int:
        with sqlite3.connect(self.db) as conn:
            count: int = conn.execute("SELECT count(*) FROM commands").fetchone()[0]
            return count

    def gm_state(self) -> dict[str, Any]:
        answer = call(self.app, "GET", gm_server.STATE, {"X-Skirmish-Token": TOKEN})
        assert answer.status == 200
        found: dict[str, Any] = json.loads(answer.body)
        return found

    def live_link(self) -> str:
        """The players' page's stream link, as page.js reads it from the page: /events?since=RUN.N."""
        html = call(self.app, "GET", "/").body.decode()
        start = html.index('"live":"') + len('"live":"')
        return html[start:html.index('"', start)]


@contextlib.contextmanager
def serving(tmp_path: Path) -> Iterator[Served]:
    """`serve` on Bridge (ap-countdown): #1 the encounter, #2 the Orc (30 hits, a foe), #3
    Hauser (40 hits, a player); the follower and the desk look at the file every 2 ms, not
    every 200, so a test's changes are taken one at a time quickly."""
    db = str(tmp_path / "bridge.db")
    for line in (["new", "Bridge", "--rules", "ap-countdown"],
                 ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30"],
                 ["add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40"]):
        assert run_cli(["--db", db, *line]) == 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(live, "POLL", 0.002)
        patch.setattr(gm_server, "LOOK", 0.002)
        closing = threading.Event()
        follower = live.Follower(db, "players", policy.Bands(), "Bridge", "main", say=lambda line: None)
        desk = gm_server.Desk(db, "Bridge", "main", follower.repin, lambda line: None)
        app = live.app(follower, closing, gm_server.routes(desk, TOKEN, closing))
        follower.start()  # as the app's lifespan does
        desk.start()
        assert follower.ready.wait(30)
        try:
            yield Served(app, db, follower, desk)
        finally:
            closing.set()
            follower.stop()
            desk.stop()
            follower.thread.join(10)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One table for the requests that change nothing, or only what they check themselves."""
    with serving(tmp_path_factory.mktemp("served")) as table:
        yield table


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path) as table:
        yield table


# --- every route -----------------------------------------------------------------------------------

# Each route of the app `serve` runs, and who may read it: anyone on the table's network (the
# players' page and stream, the GM's empty shell and its script and style, the icon), or only
# with the GM's token: in the X-Skirmish-Token header, or (the stream, which a browser opens
# without headers) in ?token=.
PUBLIC = {"/": "GET", live.EVENTS: "GET", live.HISTORY: "GET", "/favicon.ico": "GET", gm_server.PAGE: "GET", "/gm/{name}": "GET",
          gm_server.PLAYER_PAGE: "GET", gm_server.PLAYER_ASSETS_AT: "GET"}
GUARDED = {gm_server.STATE: ("GET", "header"), gm_server.RUN: ("POST", "header"), gm_server.EVENTS: ("GET", "query"),
           gm_server.PLAYER_STATE: ("GET", "header"), gm_server.PLAYER_RUN: ("POST", "header"),
           gm_server.PLAYER_DICE: ("POST", "header")}
REFUSED = {
    gm_server.STATE: b"the GM's page needs the GM's link (the token serve printed)\n",
    gm_server.RUN: b"a write needs the GM's token (the link serve printed)\n",
    gm_server.EVENTS: b"the GM's stream needs the GM's token\n",
    gm_server.PLAYER_STATE: b"a player's page needs that player's link (serve printed it; the GM may have revoked it)\n", gm_server.PLAYER_RUN: b"a write needs the player's link (serve printed it; the GM may have revoked it)\n",
    gm_server.PLAYER_DICE: b"a player's page needs that player's link (serve printed it; the GM may have revoked it)\n",
}


def test_every_route_is_one_of_these(served: Served) -> None:
    """A route added to either page without saying who may read it fails here first."""
    paths = [route.path for route in served.app.routes]
    assert sorted(paths) == sorted([*PUBLIC, *GUARDED]) and len(paths) == len(set(paths))


def a_write(served: Served, tap: str = "tap-1") -> bytes:
    head = served.gm_state()["frame"]["board"]["head"]
    return json.dumps({"command": {"type": "damage", "who": "Orc", "amount": 7}, "branch": "main", "head": head,
                       "tap": tap}).encode()


# Ways to come without the token: none at all, an empty one, and the right one in the wrong
# place (a header route given ?token=: a token in an address is no token).
NO_TOKEN = {
    "none": lambda path, where: (path, {}),
    "empty": lambda path, where: (f"{path}?token=", {}) if where == "query" else (path, {"X-Skirmish-Token": ""}),
    "elsewhere": lambda path, where: (f"{path}?token={TOKEN}", {}) if where == "header" else None,
}
WITHOUT = [(path, way) for path in GUARDED for way in NO_TOKEN if NO_TOKEN[way](path, GUARDED[path][1]) is not None]


@pytest.mark.parametrize(("path", "way"), WITHOUT, ids=[f"{p}-{w}" for p, w in WITHOUT])
def test_a_guarded_route_without_the_token_is_403_and_records_nothing(served: Served, path: str, way: str) -> None:
    method, where = GUARDED[path]
    target, headers = NO_TOKEN[way](path, where)
    body = b""
    if method == "POST":  # otherwise a write the page would send: same origin, JSON
        body = a_write(served)
        headers = {**headers, "Origin": f"http://localhost:{PORT}", "Sec-Fetch-Site": "same-origin",
                   "Content-Type": "application/json"}
    before = served.commands()
    answer = call(served.app, method, target, headers, body, enough=lambda a: a.status != 0)
    assert (answer.status, answer.body) == (403, REFUSED[path])
    assert served.commands() == before


@pytest.mark.parametrize("path", ["/", gm_server.PAGE, "/gm/gm.js", "/gm/fold.mjs", "/gm/gm.css", "/favicon.ico", live.EVENTS])
def test_a_public_route_answers_without_the_token_and_holds_no_secret(served: Served, path: str) -> None:
    answer = call(served.app, "GET", path, enough=lambda a: a.body.startswith(b"retry"))
    assert answer.status == (204 if path == "/favicon.ico" else 200)
    assert TOKEN.encode() not in answer.body
    if path.startswith("/gm"):  # the GM's shell and its files: no figure of the fight before the token
        assert b"Orc" not in answer.body and b"Hauser" not in answer.body


def test_the_gms_scripts_are_javascript_a_module_may_load(served: Served) -> None:
    """A browser runs a module (gm.js imports fold.mjs) only if served as JavaScript."""
    for script in ("/gm/gm.js", "/gm/fold.mjs"):
        answer = call(served.app, "GET", script)
        assert (answer.status, answer.kind) == (200, "text/javascript; charset=utf-8"), script


def test_the_gms_files_are_the_two_it_names(served: Served) -> None:
    assert call(served.app, "GET", "/gm/state.json").status == 404
    assert call(served.app, "GET", "/gm/gm.html").status == 404


# --- near misses of the page's own origin and Host ----------------------------------------------------

# The page served at http://localhost:8000 posts with that Origin. Each of these is another
# origin, one character or one part away: a subdomain, a longer name, a name going on past
# the port, the other scheme, another port, no port (80), the host with a trailing dot (a
# name of its own to a browser), another name of the same machine, and a sandboxed frame.
NEAR_ORIGINS = [f"http://evil.localhost:{PORT}", f"http://localhost.evil:{PORT}", f"http://localhost:{PORT}.evil",
                f"http://localhost:{PORT}0", f"https://localhost:{PORT}", f"http://localhost:{PORT + 1}",
                "http://localhost", f"http://localhost.:{PORT}", f"http://127.0.0.1:{PORT}", "null"]


@pytest.mark.parametrize("origin", NEAR_ORIGINS)
def test_a_write_from_a_near_miss_origin_is_refused_even_with_the_token(served: Served, origin: str) -> None:
    before = served.commands()
    # No Sec-Fetch-Site (a browser that sends none): the Origin alone must refuse it.
    answer = call(served.app, "POST", gm_server.RUN, {"X-Skirmish-Token": TOKEN, "Origin": origin,
                                                      "Content-Type": "application/json"}, a_write(served))
    assert (answer.status, answer.body) == (403, b"a write comes from the GM's page only (same origin)\n")
    assert served.commands() == before


def test_a_page_served_with_a_trailing_dot_host_writes_only_from_that_host(fresh: Served) -> None:
    """localhost. is served (it is localhost), and a page served so has the origin
    http://localhost.:8000: its writes go through, one from http://localhost:8000 does not."""
    served = fresh
    host = {"Host": f"localhost.:{PORT}", "X-Skirmish-Token": TOKEN, "Content-Type": "application/json"}
    before = served.commands()
    refused = call(served.app, "POST", gm_server.RUN, {**host, "Origin": f"http://localhost:{PORT}"}, a_write(served))
    assert refused.status == 403 and served.commands() == before
    taken = call(served.app, "POST", gm_server.RUN, {**host, "Origin": f"http://localhost.:{PORT}"}, a_write(served))
    assert taken.status == 200 and json.loads(taken.body)["result"]["kind"] != "refused"
    assert served.commands() == before + 1


def test_a_write_from_the_pages_own_origin_is_taken(fresh: Served) -> None:
    served = fresh
    before = served.commands()
    answer = call(served.app, "POST", gm_server.RUN, {"X-Skirmish-Token": TOKEN, "Origin": f"http://localhost:{PORT}",
                                                      "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"},
                  a_write(served))
    assert answer.status == 200
    assert json.loads(answer.body)["result"]["lines"] == ["#4 Orc takes 7 hits (23 left)"]  # 30 - 7
    assert served.commands() == before + 1


# Hosts a page on another site would send (DNS rebinding: a name pointed at this machine),
# each a near miss of localhost or an address.
NEAR_HOSTS = [f"evil.localhost:{PORT}", f"localhost.evil:{PORT}", f"localhost..:{PORT}", f"evil.localhost.:{PORT}",
              f"127.0.0.1.evil:{PORT}", f"evil.127.0.0.1:{PORT}", f"localhostevil:{PORT}", f"my-localhost:{PORT}"]
EVERY_ROUTE = [("GET", "/"), ("GET", live.EVENTS), ("GET", live.HISTORY), ("GET", "/favicon.ico"), ("GET", gm_server.PAGE),
               ("GET", "/gm/gm.js"), ("GET", gm_server.STATE), ("POST", gm_server.RUN), ("GET", gm_server.EVENTS), ("GET", gm_server.PLAYER_STATE), ("POST", gm_server.PLAYER_RUN), ("GET", gm_server.PLAYER_PAGE),
               ("POST", gm_server.PLAYER_DICE), ("GET", "/player/player.js")]


@pytest.mark.parametrize("host", NEAR_HOSTS)
@pytest.mark.parametrize(("method", "path"), EVERY_ROUTE, ids=[p for _, p in EVERY_ROUTE])
def test_a_near_miss_host_is_refused_on_every_route(served: Served, host: str, method: str, path: str) -> None:
    before = served.commands()
    target = f"{path}?token={TOKEN}" if path == gm_server.EVENTS else path
    headers = {"Host": host, "X-Skirmish-Token": TOKEN, "Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin",
               "Content-Type": "application/json"}
    body = a_write(served) if method == "POST" else b""
    answer = call(served.app, method, target, headers, body)
    assert (answer.status, answer.body) == (421, b"skirmish serves its page by address or localhost only\n")
    assert served.commands() == before


# --- a page that reconnects with a stale frame number --------------------------------------------------

CHANGES = live.KEPT + 40  # more changes than either page keeps frames of


def played(served: Served) -> None:
    """CHANGES commands from another writer, each taken by the follower and the desk before
    the next: Hauser takes 1 hit and is healed 1, by turns (40 hits at the end, as at the start)."""
    with LogFile(served.db) as log_file:
        enc = log_file.open("Bridge", "main")
        for n in range(CHANGES):
            version, seq = served.follower.version, served.desk.seq
            enc.execute(Damage(who="Hauser", amount=1) if n % 2 == 0 else Heal(who="Hauser", amount=1), "a change")
            for _ in range(5000):
                if served.follower.version > version and served.desk.seq > seq:
                    break
                time.sleep(0.002)
            else:
                raise AssertionError(f"change {n} was not taken within 10 s")


def ids(answer: Answer) -> list[str]:
    return [frame["id"] for frame in answer.frames()]


@pytest.mark.slow  # a long loop: more changes than the pages keep frames of
def test_a_gm_page_that_reconnects_gets_every_frame_it_missed_or_the_whole_board(fresh: Served) -> None:
    served = fresh
    played(served)
    now = served.gm_state()["frame"]["seq"]
    kept = gm_server.KEPT
    oldest = now - kept + 1  # the oldest frame kept: the last KEPT of them
    stream = f"{gm_server.EVENTS}?token={TOKEN}"

    def reconnect(last: int | None, count: int) -> Answer:
        headers = {} if last is None else {"Last-Event-ID": str(last)}
        return call(served.app, "GET", stream, headers, enough=lambda a: len(a.frames()) >= count,
                    limit=20 if count else 1)

    # Exactly at the kept frames: it had the one before the oldest kept; it is sent all KEPT.
    at = reconnect(oldest - 1, kept)
    assert ids(at) == [str(n) for n in range(oldest, now + 1)]
    assert {f["event"] for f in at.frames()} == {"change"}
    # Inside them: what it missed.
    inside = reconnect(oldest, kept - 1)
    assert ids(inside) == [str(n) for n in range(oldest + 1, now + 1)]
    # One past, far past, or none had (0): the frame after the one it had is no longer kept:
    # the whole board once, as it is now.
    for stale in (oldest - 2, oldest - 40, 1, 0):
        whole = reconnect(stale, 1)
        assert ids(whole) == [str(now)], stale
        frame = json.loads(whole.frames()[0]["data"])
        assert frame["timeline"]["after"] is None  # the whole timeline, not a step from one it lacks
        assert frame == served.gm_state()["frame"]  # what a page opened now is given
    # As new: nothing to send until a change (a tick is 50 ms: a second shows none comes).
    assert ids(reconnect(now, 0)) == []


@pytest.mark.slow  # a long loop: more changes than the pages keep frames of
def test_a_players_page_that_reconnects_gets_every_frame_it_missed_or_the_whole_page(fresh: Served) -> None:
    served = fresh
    played(served)
    link = served.live_link()  # /events?since=RUN.N: the frame the page stands at
    run, _, number = link.partition("?since=")[2].partition(".")
    now = int(number)
    kept = live.KEPT
    oldest = now - kept + 1

    def reconnect(last: str | None, count: int) -> Answer:
        headers = {} if last is None else {"Last-Event-ID": last}
        return call(served.app, "GET", live.EVENTS, headers, enough=lambda a: len(a.frames()) >= count,
                    limit=20 if count else 1)

    at = reconnect(f"{run}.{oldest - 1}", kept)
    assert ids(at) == [f"{run}.{n}" for n in range(oldest, now + 1)]
    assert {f["event"] for f in at.frames()} == {"more"}
    inside = reconnect(f"{run}.{oldest}", kept - 1)
    assert ids(inside) == [f"{run}.{n}" for n in range(oldest + 1, now + 1)]
    # One past, far past, from another run of the server, or a number still to come: the whole page.
    for stale in (f"{run}.{oldest - 2}", f"{run}.{oldest - 40}", f"{run}.1", f"{run}.0", f"0badc0de.{now}",
                  f"{run}.{now + 1}", f"{run}.not-a-number"):
        whole = reconnect(stale, 1)
        assert ids(whole) == [f"{run}.{now}"], stale
        assert whole.frames()[0]["event"] == "state"
        # what a page opened now is given (but the frame its stream link names)
        assert without_link(json.loads(whole.frames()[0]["data"])) == without_link(page_data(call(served.app, "GET", "/").body))
    assert ids(reconnect(f"{run}.{now}", 0)) == []
    assert ids(reconnect(None, 0)) == []  # a client that says nothing: the changes from now on


# --- a write's tap id, and what a write moves ------------------------------------------------------------


def write(served: Served, body: bytes) -> Answer:
    return call(served.app, "POST", gm_server.RUN, {"X-Skirmish-Token": TOKEN, "Origin": f"http://localhost:{PORT}",
                                                    "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"},
                body)


@pytest.mark.parametrize(("length", "taken"), [(1, True), (64, True), (65, False), (0, False)])
def test_a_taps_id_is_1_to_64_characters(fresh: Served, length: int, taken: bool) -> None:
    before = fresh.commands()
    answer = write(fresh, a_write(fresh, tap="t" * length))
    if taken:
        assert answer.status == 200 and fresh.commands() == before + 1
    else:
        assert answer.status == 400 and fresh.commands() == before
        assert json.loads(answer.body)["result"]["error"] == "a write carries its tap's id, 1 to 64 characters"


def test_a_tap_that_is_not_a_switch_moves_no_players_page_to_the_whole_data(fresh: Served) -> None:
    """The players' pages follow the GM's switch (they get the whole data of the branch switched
    to); any other tap is one change, sent as one `more` frame, as a command typed at the table."""
    link = fresh.live_link()
    since = link.partition("?since=")[2]
    assert write(fresh, a_write(fresh)).status == 200
    answer = call(fresh.app, "GET", live.EVENTS, {"Last-Event-ID": since}, enough=lambda a: len(a.frames()) >= 1)
    assert [frame["event"] for frame in answer.frames()] == ["more"]


def test_a_refused_switch_leaves_the_gm_and_the_players_where_they_were(fresh: Served) -> None:
    """A switch to a branch there is not is refused in one line; the desk is still on main, and
    its next tap lands there."""
    switched = write(fresh, json.dumps({"command": {"type": "switch", "name": "nowhere"}, "branch": "main",
                                        "head": 3, "tap": "switch-1"}).encode())
    assert switched.status == 200 and json.loads(switched.body)["result"]["kind"] == "refused"
    answer = write(fresh, a_write(fresh, tap="after-1"))
    assert answer.status == 200
    result = json.loads(answer.body)["result"]
    assert (result["kind"], result["branch"], result["head"]) == ("recorded", "main", 4)
    assert fresh.follower.pins == ("Bridge", "main")


def test_a_tap_decided_on_another_branch_is_refused_saying_where_the_table_is(fresh: Served) -> None:
    before = fresh.commands()
    answer = write(fresh, json.dumps({"command": {"type": "damage", "who": "Orc", "amount": 7}, "branch": "what-if",
                                      "head": 3, "tap": "moved-1"}).encode())
    result = json.loads(answer.body)["result"]
    assert (result["kind"], result["code"]) == ("refused", 3)  # exit 3, as the command line on a moved head
    assert result["error"] == ("the board moved: the table is on branch 'main' (#3), not 'what-if'; "
                               "look at it and tap again")
    assert fresh.commands() == before


@pytest.mark.parametrize("last", ["0", "not-a-number", "abcd1234.2", "-1"])
def test_a_gm_page_with_no_frame_number_it_can_use_gets_every_frame_from_the_first(fresh: Served, last: str) -> None:
    """Fewer frames made than are kept: a page that had none (0, or an id that is no frame
    number of this stream: text, a players' id, a negative) is sent them all, from the first."""
    write(fresh, a_write(fresh, tap="one"))
    write(fresh, a_write(fresh, tap="two"))
    now = fresh.gm_state()["frame"]["seq"]
    assert 3 <= now < gm_server.KEPT
    answer = call(fresh.app, "GET", f"{gm_server.EVENTS}?token={TOKEN}", {"Last-Event-ID": last},
                  enough=lambda a: len(a.frames()) >= now)
    assert ids(answer) == [str(n) for n in range(1, now + 1)]
