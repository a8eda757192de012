"""`skirmish serve`'s web app: the replay page, live, on Starlette (imported only by `serve`).

One thread follows the file: every half second it asks SQLite whether another connection
has committed (``LogFile.data_version``) and, if so, builds the page's data again, of the
encounter and branch `serve` started on (pinned or not: another shell's `use` or `switch`
does not move the screens; the GM's page moves them with :meth:`Follower.repin`). It
watches the file's identity too, and says on the terminal when it was deleted or replaced,
or could not be read. Each browser holds a server-sent events stream and is sent the new
data when it changes; the page keeps its place, or follows the branch head when it was at
the head. The players' routes write nothing; the GM's page (cli/gm_server.py) adds its own,
behind the GM's secret.

Every request's Host header is checked (:class:`HostCheck`): an address (127.0.0.1, a LAN
address a phone types) or ``localhost`` is served, any other name is refused. A page
opened from a site whose name was made to point at the GM's machine (DNS rebinding) sends
that site's name, so it can read nothing, not even the GM's version.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from skirmish.projections.page import data as page_data, shell as page_shell
from skirmish.projections.engine import LogFile

POLL = 0.5  # seconds between looks at the file
HEARTBEAT = 15.0  # seconds between comments on an idle stream (proxies close silent ones)
EVENTS = "/events"


class Follower:
    """Builds the page's data whenever the file changes, in a thread of its own (it holds
    the one SQLite connection it reads with)."""

    def __init__(self, db: str, audience: page_data.Audience, bands: page_data.Bands,
                 encounter: str | None = None, branch: str | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        self.db, self.audience, self.bands = db, audience, bands
        self.say = say or _to_stderr  # one line to the GM's terminal
        self.pins = encounter, branch  # None: the file's current one, read again at each change
        self.version = 0
        self.payload = b""  # the data as JSON, safe in a script element (and one SSE line)
        self.encounter = ""
        self.error = ""
        self.gone = False  # the file was deleted under the server
        self.identity = _identity(db)  # the file `serve` started on, before the thread does
        self.again = threading.Event()  # build again though the file did not change (repinned)
        self.ready = threading.Event()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="skirmish-follower", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()

    def _build(self, log_file: LogFile) -> bytes:
        encounter, branch = self.pins
        enc = log_file.open(encounter, branch)
        data = page_data.build(enc, self.audience, self.bands)
        data["live"] = EVENTS
        self.encounter = enc.row.name
        return page_shell.json_for_script(data)

    def repin(self, encounter: str | None, branch: str | None) -> None:
        """Serve another table from now on (the GM switched on the GM's page)."""
        self.pins = encounter, branch
        self.again.set()

    def _report(self, line: str) -> None:
        """Tell the GM's terminal, once per new trouble, and keep it for the page."""
        if line != self.error:
            self.say(line)
        self.error = line

    def _run(self) -> None:
        # The file is watched by its identity too: a connection holds the file it opened, so
        # a log deleted, or replaced by another file (a backup put back), would be served on
        # silently, as it was, with data_version never moving.
        identity = self.identity
        log_file: LogFile | None = None
        seen: int | None = None
        try:
            while not self.stopping.is_set():
                try:
                    now = _identity(self.db)
                    if now != identity:
                        if log_file is not None:
                            log_file.close()
                            log_file = None
                        if now is None:
                            self.gone = True
                            self._report(f"the database {self.db} was deleted: the pages are refused until it is back")
                            self.ready.set()
                            self.stopping.wait(POLL)
                            continue
                        self.say(f"the database {self.db} was replaced by another file: serving that file")
                        identity, seen = now, None
                    if log_file is None:
                        log_file = LogFile(self.db, create=False)
                    version = log_file.data_version()
                    if version != seen or self.again.is_set():
                        self.again.clear()
                        seen = version
                        payload = self._build(log_file)
                        self.gone = False
                        if self.error:
                            self.say(f"reading {self.db} again")
                        self.error = ""
                        if payload != self.payload:
                            self.payload = payload
                            self.version += 1
                except Exception as exc:  # noqa: BLE001 - said on the terminal and the page, the server stays up
                    self._report(f"cannot read {self.db}: {type(exc).__name__}: {exc}")
                    seen = None  # look again at the next tick
                self.ready.set()
                self.stopping.wait(POLL)
        finally:
            if log_file is not None:
                log_file.close()


def _identity(path: str) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def host_allowed(header: str) -> bool:
    """Whether a Host header names this machine as a browser on the table's network would:
    an IP address (with its port, IPv6 in brackets) or ``localhost``; never another name."""
    host = header.strip().lower()
    if host.startswith("["):
        host = host[1:host.find("]")] if "]" in host else ""
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    if host in ("localhost", "localhost."):
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class HostCheck:
    """Refuses, with 421 and one line, a request whose Host header is not an address or
    ``localhost`` (see the module's docstring), before the app reads anything."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or ())
            if not host_allowed(headers.get(b"host", b"").decode("latin-1")):
                refusal = b"skirmish serves its page by address or localhost only\n"
                await send({"type": "http.response.start", "status": 421,
                            "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                        (b"content-length", str(len(refusal)).encode())]})
                await send({"type": "http.response.body", "body": refusal})
                return
        await self.app(scope, receive, send)


def app(follower: Follower, closing: threading.Event | None = None, more: Sequence[BaseRoute] = ()) -> Starlette:
    """The players' page and its stream, with ``more`` routes (the GM's); every stream ends
    when ``closing`` is set (the server was asked to stop)."""
    stop = closing or threading.Event()
    rendered: list[tuple[int, bytes]] = []

    async def page(request: Request) -> Response:
        await asyncio.to_thread(follower.ready.wait, 30)
        if not follower.payload or follower.gone:
            return Response(f"skirmish cannot read the log: {follower.error}\n", status_code=503,
                            media_type="text/plain")
        # One page a version, shared by every request: a client that reads slowly holds
        # the server to this copy, not one of its own.
        version = follower.version
        if not rendered or rendered[0][0] != version:
            rendered[:] = [(version, page_shell.page(follower.payload, follower.encounter))]
        return Response(rendered[0][1], media_type="text/html; charset=utf-8")

    async def stream(request: Request) -> StreamingResponse:
        async def changes() -> AsyncIterator[bytes]:
            seen, idle = follower.version, 0.0
            yield b"retry: 1000\n\n"
            while not stop.is_set() and not await request.is_disconnected():
                if follower.version != seen:
                    seen, idle = follower.version, 0.0
                    # Three writes, not one joined copy of the page per open stream.
                    yield b"event: state\ndata: "
                    yield follower.payload
                    yield b"\n\n"
                elif idle >= HEARTBEAT:
                    idle = 0.0
                    yield b": still here\n\n"
                await asyncio.sleep(POLL / 2)
                idle += POLL / 2

        return StreamingResponse(changes(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        follower.start()
        try:
            yield
        finally:
            follower.stop()

    return Starlette(routes=[Route("/", page), Route(EVENTS, stream), *more], lifespan=lifespan,
                     middleware=[Middleware(HostCheck)])
