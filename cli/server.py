"""Runs `skirmish serve`'s web app on uvicorn so that no client can starve or hold it.

What a browser is sent goes out in slices of :data:`CHUNK` bytes, each waiting until the
connection took the one before (uvicorn waits for the socket to drain past 64 KB): a client
that stops reading holds the server to a slice or two, not a copy of the page. One that
takes no slice within :data:`SLOW` seconds is dropped. A stopped `GET /` of a 15 MB page
used to keep a copy of it per client for as long as the client stayed.

What a client sends is bounded as well, the same for every route of both pages:

- A connection has :data:`HEAD_WAIT` (5) seconds from connecting, or from the end of its
  last answer, to send a whole request head, of at most :data:`HEAD_BYTES` (16 KiB, else
  400); then it is closed. At most :data:`MOST_WAITING` (256) connections wait for a head
  at once, :data:`MOST_WAITING_FROM_ONE` (64) from one address: past that, those that have
  waited longest are closed (:data:`SETTLE` seconds on, once what the newest sent is read),
  so a new request always gets in. They are kept by :class:`Waiting`, in uvicorn's own h11
  protocol (:class:`Guarded`, which ``http=`` pins, httptools or not). 210 connections that
  never ended their head used to hold a place each in uvicorn's ``limit_concurrency``, and
  every page answered 503 for as long as they stayed (no timeout: 120 s and more).
- A body is at most :data:`BODY_BYTES` (16 KiB: a command is a few hundred bytes): a longer
  ``Content-Length`` is answered 413 before a byte of the body is read, a chunked body is
  counted as it comes and answered 413 once past it; one that has not all come within
  :data:`BODY_WAIT` (10) seconds is answered 408. A 100 MB ``POST`` used to be read whole
  (the server's memory peaked 190 MB higher).
- At most :data:`MOST_CLIENTS` (200) requests are answered at once (an open stream is one;
  a table has a dozen screens); one more is answered 503.

So whatever its clients do, the server holds at most 256 connections waiting (16 KiB of
head each) and 200 being answered (16 KiB of body, uvicorn reading at most 64 KB ahead;
a slice or two of 64 KB of answer), and for a moment those it refuses (503, 413) and
those that came within the last SETTLE seconds.

The socket is bound here, before uvicorn starts, so a port that is out of range or in use is
one ``Error:`` line (:class:`~skirmish.eventlog.errors.BadInput`, exit 2) rather than a
traceback or uvicorn's own exit. Ctrl+C or SIGTERM sets :attr:`Server.closing`, which every
open stream reads at its next tick (a quarter of a second) and ends on, so the server stops
at once with pages open instead of waiting for each browser to leave; a request still
waiting for its body is answered 503 at its next tick too, and uvicorn closes the
connections still waiting for a head.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from types import FrameType
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from skirmish.eventlog.errors import BadInput

CHUNK = 64 * 1024  # bytes handed to a connection at a time
SLOW = 10.0  # seconds a client may take to accept one slice before it is dropped
TICK = 0.25  # seconds between looks at whether the server is closing, while a slice waits
GRACE = 1  # seconds uvicorn waits for a request still running when it stops
HEAD_WAIT = 5.0  # seconds to send a whole request head, from connecting or from the last answer
HEAD_BYTES = 16 * 1024  # most bytes of a request head (a browser's is under one KiB, but for cookies other apps on the same address set)
MOST_WAITING = 256  # connections waiting for a request head at once; past it the oldest is closed
MOST_WAITING_FROM_ONE = 64  # of those, from one address
SETTLE = 0.05  # seconds after too many came before the oldest are closed (the loop reads what came first)
BODY_BYTES = 16 * 1024  # most bytes of a request body (a command is a few hundred); more get 413
BODY_WAIT = 10.0  # seconds for a whole request body to come, from its head; then 408
MOST_CLIENTS = 200  # requests answered at once (a table has a dozen screens); more get 503

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

GONE: Message = {"type": "http.disconnect"}  # what the app hears once its request was refused
TOO_LARGE = f"a request's body is at most {BODY_BYTES} bytes"


class SlowClient(Exception):
    """A client that did not take what it was sent within SLOW seconds (or the server is
    closing): its connection is dropped."""


class Bounded:
    """ASGI middleware: at most MOST_CLIENTS requests at once, each body at most BODY_BYTES
    and come within BODY_WAIT seconds (or before the server stops), every response body out
    in CHUNK slices, each given SLOW seconds to be taken by the client."""

    def __init__(self, app: ASGIApp, closing: threading.Event) -> None:
        self.app, self.closing = app, closing
        self.answering = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.answering >= MOST_CLIENTS:
            await self._refuse(send, 503, f"the server answers {MOST_CLIENTS} requests at once: try again in a moment")
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and int(length) > BODY_BYTES:  # h11 let only digits through
            await self._refuse(send, 413, TOO_LARGE)
            return
        self.answering += 1
        try:
            await self._answer(scope, receive, send)
        finally:
            self.answering -= 1

    async def _answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        deadline = time.monotonic() + BODY_WAIT
        got, whole, started, refused = 0, False, False, False

        async def counted() -> Message:
            nonlocal got, whole, refused
            if refused:
                return GONE
            if whole:  # what is left to hear is the client leaving, however long it stays
                return await receive()
            heard = asyncio.ensure_future(receive())
            try:
                while True:
                    await asyncio.wait({heard}, timeout=min(TICK, max(0.0, deadline - time.monotonic())))
                    if heard.done() or self.closing.is_set() or time.monotonic() >= deadline:
                        break
            finally:
                if not heard.done():
                    heard.cancel()
            if not heard.done():
                why = ((503, "the server is stopping") if self.closing.is_set()
                       else (408, f"a request's body must come within {BODY_WAIT:g} s"))
            else:
                message = heard.result()
                if message["type"] != "http.request":
                    return message
                got += len(message.get("body", b""))
                whole = not message.get("more_body", False)
                if got <= BODY_BYTES:
                    return message
                why = 413, TOO_LARGE
            # The app is told the client left, and what it says after that goes nowhere.
            refused = True
            if not started:
                await self._refuse(send, *why)
            return GONE

        async def bounded(message: Message) -> None:
            nonlocal started
            if refused:
                return
            started = True
            if message["type"] != "http.response.body" or len(message.get("body", b"")) <= CHUNK:
                await self._give(send, message)
                return
            body, more = message["body"], message.get("more_body", False)
            view = memoryview(body)
            for start in range(0, len(body), CHUNK):
                last = start + CHUNK >= len(body)
                await self._give(send, {"type": "http.response.body", "body": bytes(view[start:start + CHUNK]),
                                        "more_body": more or not last})

        try:
            await self.app(scope, counted, bounded)
        except Exception:
            # Told the client left, an app may raise (Starlette's ClientDisconnect): the
            # request was answered already.
            if not refused:
                raise

    async def _refuse(self, send: Send, status: int, why: str) -> None:
        body = f"{why}\n".encode()
        await self._give(send, {"type": "http.response.start", "status": status,
                                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                            (b"content-length", b"%d" % len(body)), (b"connection", b"close")]})
        await self._give(send, {"type": "http.response.body", "body": body})

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


class Waiting:
    """The connections waiting for a request head, oldest first, from everyone and from
    each address: when too many wait, those that waited longest are closed.

    The count is settled a moment after a connection comes (:data:`SETTLE`), not as it
    comes: a burst of connections is accepted before any is read, and those whose heads
    are already in would otherwise be closed with their request unread."""

    def __init__(self) -> None:
        self.everyone: dict[Guarded, None] = {}  # a dict keeps the order they came in
        self.by_address: dict[str, dict[Guarded, None]] = {}
        self.settling: asyncio.TimerHandle | None = None

    def add(self, connection: Guarded) -> None:
        self.everyone[connection] = None
        from_one = self.by_address.setdefault(connection.address, {})
        from_one[connection] = None
        over = len(from_one) > MOST_WAITING_FROM_ONE or len(self.everyone) > MOST_WAITING
        if over and self.settling is None:
            self.settling = connection.loop.call_later(SETTLE, self.settle)

    def remove(self, connection: Guarded) -> None:
        del self.everyone[connection]
        from_one = self.by_address[connection.address]
        del from_one[connection]
        if not from_one:
            del self.by_address[connection.address]

    def settle(self) -> None:
        self.settling = None
        for from_one in list(self.by_address.values()):
            while len(from_one) > MOST_WAITING_FROM_ONE:
                next(iter(from_one)).drop()
        while len(self.everyone) > MOST_WAITING:
            next(iter(self.everyone)).drop()


class Guarded(H11Protocol):
    """uvicorn's h11 protocol, closing a connection that has not sent a whole request head
    HEAD_WAIT seconds after it connected or was last answered. It waits in :attr:`waiting`
    (one a server: :func:`guarded` makes the class) from then until its head is in."""

    waiting: Waiting

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.address = self.client[0] if self.client else ""
        self.deadline: asyncio.TimerHandle | None = None
        self._look()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._look()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._look()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)

    def _look(self) -> None:
        # Waiting: no request begun, or the last one answered while its body still comes
        # (one nobody reads is drained by uvicorn; that is no reason to stay open).
        waiting = not self.transport.is_closing() and (self.conn.their_state is h11.IDLE
                                                        or self.conn.our_state is h11.DONE)
        if waiting and self.deadline is None:
            self.deadline = self.loop.call_later(HEAD_WAIT, self.drop)
            self.waiting.add(self)
        elif not waiting:
            self._stop_waiting()

    def _stop_waiting(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
            self.waiting.remove(self)

    def drop(self) -> None:
        """Closes the connection (it waited too long, or others waited too)."""
        self._stop_waiting()
        self.transport.close()


def guarded() -> type[Guarded]:
    """The protocol class of one server, with its own :class:`Waiting`."""

    class OneServer(Guarded):
        waiting = Waiting()

    return OneServer


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
    # Bounded counts the requests being answered (MOST_CLIENTS) in place of uvicorn's
    # limit_concurrency, which counted every connection, those still sending their head too.
    # http= pins h11 (Guarded), so httptools is never used if installed; nothing speaks
    # WebSocket here.
    config = uvicorn.Config(Bounded(app, closing), log_level="warning", timeout_graceful_shutdown=GRACE,
                            http=guarded(), h11_max_incomplete_event_size=HEAD_BYTES, ws="none", lifespan="on")
    server = Server(config, closing)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn raises the Ctrl+C it caught again once it stopped
        return True
    finally:
        logging.getLogger("uvicorn.error").removeFilter(quiet)
    return False
