"""Runs `skirmish serve`'s web app on uvicorn so that no client can starve or hold it.

What a browser is sent goes out in slices of :data:`CHUNK` bytes, each waiting until the
connection took the one before (uvicorn waits for the socket to drain past 64 KB): a client
that stops reading holds the server to a slice or two, not a copy of the page. One that
takes no slice within :data:`SLOW` seconds is dropped. A stopped `GET /` of a 15 MB page
used to keep a copy of it per client for as long as the client stayed.

The socket is bound here, before uvicorn starts, so a port that is out of range or in use is
one ``Error:`` line (:class:`~skirmish.eventlog.errors.BadInput`, exit 2) rather than a
traceback or uvicorn's own exit. Ctrl+C or SIGTERM sets :attr:`Server.closing`, which every
open stream reads at its next tick (a quarter of a second) and ends on, so the server stops
at once with pages open instead of waiting for each browser to leave.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from types import FrameType
from typing import Any

import uvicorn

from skirmish.eventlog.errors import BadInput

CHUNK = 64 * 1024  # bytes handed to a connection at a time
SLOW = 10.0  # seconds a client may take to accept one slice before it is dropped
TICK = 0.25  # seconds between looks at whether the server is closing, while a slice waits
GRACE = 1  # seconds uvicorn waits for a request still running when it stops
MOST_CLIENTS = 200  # connections at once (a table has a dozen screens); more get 503

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class SlowClient(Exception):
    """A client that did not take what it was sent within SLOW seconds (or the server is
    closing): its connection is dropped."""


class Bounded:
    """ASGI middleware: every response body goes out in CHUNK slices, each given SLOW
    seconds to be taken by the client."""

    def __init__(self, app: ASGIApp, closing: threading.Event) -> None:
        self.app, self.closing = app, closing

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def bounded(message: Message) -> None:
            if message["type"] != "http.response.body" or len(message.get("body", b"")) <= CHUNK:
                await self._give(send, message)
                return
            body, more = message["body"], message.get("more_body", False)
            view = memoryview(body)
            for start in range(0, len(body), CHUNK):
                last = start + CHUNK >= len(body)
                await self._give(send, {"type": "http.response.body", "body": bytes(view[start:start + CHUNK]),
                                        "more_body": more or not last})

        await self.app(scope, receive, bounded)

    async def _give(self, send: Send, message: Message) -> None:
        task = asyncio.ensure_future(send(message))
        waited = 0.0
        while True:
            done, _ = await asyncio.wait({task}, timeout=TICK)
            if done:
                task.result()
                return
            waited += TICK
            if waited >= SLOW or self.closing.is_set():
                task.cancel()
                raise SlowClient


class _Quiet(logging.Filter):
    """Keeps uvicorn from printing a traceback for a client dropped on purpose (slow, or
    still connected when the server stops)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], (SlowClient, asyncio.CancelledError)):
            return False
        return not record.getMessage().startswith("Cancel ")  # "Cancel N running task(s)..."


class Server(uvicorn.Server):
    """uvicorn's server, telling the app's streams when it is asked to stop."""

    def __init__(self, config: uvicorn.Config, closing: threading.Event) -> None:
        super().__init__(config)
        self.closing = closing

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.closing.set()
        super().handle_exit(sig, frame)


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, or one line saying why there is none."""
    if not 1 <= port <= 65535:
        raise BadInput(f"--port {port}: a port is a number from 1 to 65535")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise BadInput(f"--host {host}: not an address of this machine ({exc.strerror})") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise BadInput(f"--port {port}: another program listens on it (pick another port)") from None
        if exc.errno == errno.EACCES:
            raise BadInput(f"--port {port}: this user may not listen on it (ports below 1024 need root)") from None
        raise BadInput(f"--host {host} --port {port}: cannot listen there ({exc.strerror})") from None
    sock.setblocking(False)
    return sock


def run(app: ASGIApp, sock: socket.socket, closing: threading.Event) -> bool:
    """Serve until Ctrl+C or SIGTERM; whether it was Ctrl+C."""
    quiet = _Quiet()
    logging.getLogger("uvicorn.error").addFilter(quiet)
    config = uvicorn.Config(Bounded(app, closing), log_level="warning", timeout_graceful_shutdown=GRACE,
                            limit_concurrency=MOST_CLIENTS, lifespan="on")
    server = Server(config, closing)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn raises the Ctrl+C it caught again once it stopped
        return True
    finally:
        logging.getLogger("uvicorn.error").removeFilter(quiet)
    return False
