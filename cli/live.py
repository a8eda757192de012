"""`skirmish serve`'s web app: the replay page, live, on Starlette (imported only by `serve`).

One thread follows the file: every half second it asks SQLite whether another connection
has committed (``LogFile.data_version``) and, if so, builds the page's data again. Each
browser holds a server-sent events stream and is sent the new data when it changes; the
page keeps its place, or follows the branch head when it was at the head. Read-only:
the app has no route that writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from skirmish.projections.page import data as page_data, shell as page_shell
from skirmish.projections.engine import LogFile

POLL = 0.5  # seconds between looks at the file
HEARTBEAT = 15.0  # seconds between comments on an idle stream (proxies close silent ones)
EVENTS = "/events"


class Follower:
    """Builds the page's data whenever the file changes, in a thread of its own (it holds
    the one SQLite connection it reads with)."""

    def __init__(self, db: str, audience: page_data.Audience, bands: page_data.Bands) -> None:
        self.db, self.audience, self.bands = db, audience, bands
        self.version = 0
        self.payload = b""  # the data as JSON, safe in a script element (and one SSE line)
        self.encounter = ""
        self.error = ""
        self.ready = threading.Event()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="skirmish-follower", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()

    def _build(self, log_file: LogFile) -> bytes:
        enc = log_file.open()
        data = page_data.build(enc, self.audience, self.bands)
        data["live"] = EVENTS
        self.encounter = enc.row.name
        return page_shell.json_for_script(data)

    def _run(self) -> None:
        log_file = LogFile(self.db, create=False)
        try:
            seen: int | None = None
            while not self.stopping.is_set():
                version = log_file.data_version()
                if version != seen:
                    seen = version
                    try:
                        payload = self._build(log_file)
                    except Exception as exc:  # noqa: BLE001 - shown on the page, the server stays up
                        self.error = f"{type(exc).__name__}: {exc}"
                    else:
                        self.error = ""
                        if payload != self.payload:
                            self.payload = payload
                            self.version += 1
                    self.ready.set()
                self.stopping.wait(POLL)
        finally:
            log_file.close()


def app(follower: Follower) -> Starlette:
    async def page(request: Request) -> Response:
        await asyncio.to_thread(follower.ready.wait, 30)
        if not follower.payload:
            return Response(f"skirmish cannot read the log: {follower.error}\n", status_code=503,
                            media_type="text/plain")
        return Response(page_shell.page(follower.payload, follower.encounter),
                        media_type="text/html; charset=utf-8")

    async def stream(request: Request) -> StreamingResponse:
        async def changes() -> AsyncIterator[bytes]:
            seen, idle = follower.version, 0.0
            yield b"retry: 1000\n\n"
            while not await request.is_disconnected():
                if follower.version != seen:
                    seen, idle = follower.version, 0.0
                    yield b"event: state\ndata: " + follower.payload + b"\n\n"
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

    return Starlette(routes=[Route("/", page), Route(EVENTS, stream)], lifespan=lifespan)
