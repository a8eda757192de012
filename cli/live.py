"""`skirmish serve`'s web app: the replay page, live, on Starlette (imported only by `serve`).

One thread follows the file: five times a second it asks SQLite whether another connection
has committed (``LogFile.data_version``) and, if so, reads the encounter and branch `serve`
started on (pinned or not: another shell's `use` or `switch` does not move the screens; the
GM's page moves them with :meth:`Follower.repin`). It watches the file's identity too, and
says on the terminal when it was deleted or replaced, or could not be read.

Live and incremental, as the GM's page is (cli/gm_server.py): the players' data is kept
between changes (:class:`~skirmish.projections.page.data.PlayersLive`), and a change that
carries the branch on down its path (a command, a redo) is one ``more`` frame: the new
events the players are told of, the strings they use, and what else moved (the notes, the
bands, the branch's head), made by the same step and policy as the whole page. A change
that moved the path under the page (an undo, a switch to another branch or an amend's) is
one ``more`` frame too: how many events the page keeps (``back``, up to where the paths
meet) and the new path's after it. Another encounter is one ``state`` frame: the whole
data again, built once and sent to every page. Frames carry an id; a page
that reconnects (a phone that slept) sends the last it had (``Last-Event-ID``, or
``?since=`` for the first connection, the id its page was built at) and is sent the frames
it missed, or the whole data when one of them was whole or they are no longer kept.

A browser opening the players' page (it asks for HTML) is sent the board first
(:meth:`Follower.head`): the data without its events, with the board at the head from the
fold kept, drawn at once; the page then fetches ``/history`` (:data:`HISTORY`), the whole
data, the same bytes for every page at a version. Every answer is one copy a version,
shared by every client (and gzipped once a version). Any other client gets the whole data
inline, as the exported file holds it.

The GM's version (``serve --for gm``, every branch) is live and incremental too
(:class:`~skirmish.projections.page.data.GMLive`): its data never loses an event, so a
command, a note, a rename, a new branch or an amend is a ``more`` frame of the new events
(each folded from the fold at its parent) and what else moved, and an undo, a redo or a
switch one of the branches and their heads. It is whole again only for another encounter
or a file read afresh. Its verify digest reads the whole log: after a change it is worked
out again in another process (the machine's other core), and sent as a frame of its own
when it is of the log as it stands.

Every request's Host header is checked (:class:`HostCheck`): an address (127.0.0.1, a LAN
address a phone types) or ``localhost`` is served, any other name is refused. A page
opened from a site whose name was made to point at the GM's machine (DNS rebinding) sends
that site's name, so it can read nothing, not even the GM's version.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import ipaddress
import json
import os
import secrets
import subprocess
import sys
import threading
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from skirmish.projections.page import data as page_data, shell as page_shell
from skirmish.projections.write.engine import Encounter, LogFile

POLL = 0.2  # seconds between looks at the file
TICK = 0.05  # seconds between looks at a stream's frames (a change reaches a page within 300 ms)
HEARTBEAT = 15.0  # seconds between comments on an idle stream (proxies close silent ones)
EVENTS = "/events"
HISTORY = "/history"  # the players' screen's whole data, which its page fetches after its board
KEPT = 256  # frames kept for a page that reconnects


class Follower:
    """Follows the file in a thread of its own (it holds the one SQLite connection it reads
    with) and keeps the frames the pages are sent."""

    def __init__(self, db: str, audience: page_data.Audience, bands: page_data.Bands,
                 encounter: str | None = None, branch: str | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        self.db, self.audience, self.bands = db, audience, bands
        self.say = say or _to_stderr  # one line to the GM's terminal
        self.pins = encounter, branch  # None: the file's current one, read again at each change
        self.version = 0  # the number of the last frame
        # A frame's id is "RUN.NUMBER": a page that reconnects to a server started again (its
        # numbers from 1 again) is sent the whole page, not the frames of another run.
        self.run = secrets.token_hex(4)
        # The last frames: (id, a change's JSON, or None for the whole data again).
        self.frames: deque[tuple[int, bytes | None]] = deque(maxlen=KEPT)
        self.encounter = ""
        self.error = ""
        self.gone = False  # the file was deleted under the server
        self.identity = file_identity(db)  # the file `serve` started on, before the thread does
        self.again = threading.Event()  # build again though the file did not change (repinned)
        self.ready = threading.Event()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="skirmish-follower", daemon=True)
        self._lock = threading.Lock()  # the data is changed by the thread, encoded for a page by another
        self._data: dict[str, Any] | None = None
        self._live: page_data.PlayersLive | None = None
        self._whole: tuple[int, bytes] = (0, b"")  # the whole data as JSON at a version, made when asked
        self._head: tuple[int, bytes] = (0, b"")  # the players' board first (:meth:`head`), made when asked
        self._gm: page_data.GMLive | None = None  # the GM's version, kept between changes
        self._digest_asked: int | None = None  # the encounter whose verify digest is to be worked out again
        self._digesting: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()

    @property
    def payload(self) -> bytes:
        return self.whole()[1]

    def whole(self) -> tuple[int, bytes]:
        """The whole data as JSON (safe in a script element, and one SSE line) and the frame
        it stands at: encoded once a version, when a page first asks for it."""
        with self._lock:
            if self._data is None:  # not built yet
                return (0, b"")
            if self._whole[0] != self.version or not self._whole[1]:
                data = {**self._data, "live": f"{EVENTS}?since={self.run}.{self.version}"}
                self._whole = (self.version, page_shell.json_for_script(data))
            return self._whole

    def head(self) -> tuple[int, bytes] | None:
        """The players' screen's first data (its board first): the whole data's fields but
        its events and strings, with the board at the head as the page's fold of them draws
        it (the fold kept at the last event the players are told of, the same view the
        events' deltas fold to), that event's id, line and place, and where the history is
        (:data:`HISTORY`: the whole data). Encoded once a version; None for the GM's
        version, whose page is the whole data at once."""
        with self._lock:
            live = self._live
            if self._data is None or live is None or self.audience != "players":
                return None
            if self._head[0] != self.version or not self._head[1]:
                data = self._data
                events = data["events"]
                last = events[-1] if events else None
                told = live.told
                ended = next((reason for about, reason in (data.get("ended") or {}).items() if int(about) in told), None)
                first = {
                    **{key: value for key, value in data.items() if key not in ("events", "strings")},
                    "events": [], "strings": [],
                    "head": {"board": live.fold.view if last is not None else None, "id": live.last_id,
                             "count": len(events), "narration": data["strings"][last.narration] if last else "",
                             "ended": ended},
                    "history": HISTORY,
                    "live": "",  # the stream is followed once the history is read (its own link)
                }
                self._head = (self.version, page_shell.json_for_script(first))
            return self._head

    def _build(self, log_file: LogFile) -> None:
        encounter, branch = self.pins
        enc = log_file.open(encounter, branch)
        with self._lock:
            self.encounter = enc.row.name
            if self.audience != "players":
                self._build_gm(enc)
                return
            try:
                change = None if self._live is None else self._live.extend(enc)
                if self._live is None:
                    self._live = page_data.PlayersLive(enc, self.bands)
            except BaseException:
                self._live = None  # half folded: the next look builds it whole
                raise
            if change is None:
                self._data = self._live.data
                self._frame(None)
            elif change:
                self._frame(page_shell.json_for_script(change))

    def _build_gm(self, enc: Encounter) -> None:
        try:
            change = None if self._gm is None else self._gm.extend(enc)
            if self._gm is None:
                self._gm = page_data.GMLive(enc, self.bands)
        except BaseException:
            self._gm = None  # half folded: the next look builds it whole
            raise
        if change is None:
            self._data = self._gm.data
            self._frame(None)
        elif change:
            self._frame(page_shell.json_for_script(change))
        # The verify digest reads the whole log: worked out again apart (:meth:`_digest`)
        # after each commit to the file (one that changed nothing shown may have edited a
        # row: a log that no longer verifies is said on the terminal), and sent as a change
        # of its own; a page built whole has it.
        self._digest_asked = enc.row.id if change is not None else None

    def _digest(self, log_file: LogFile) -> None:
        """The GM's version: the log's verify digest worked out anew in another process
        (eventlog/verifying.py, on the other core) after a change, and sent to the pages
        when it is of the log as it stands (its rows counted alike: else a change came
        meanwhile, which asked for it again)."""
        job = self._digesting
        if job is not None:
            if job.poll() is None:
                return
            self._digesting = None
            out, err = job.communicate()
            if job.returncode > 0:  # a log that does not verify (its one line), or the check failed
                said = err.decode(errors="replace").strip().splitlines()
                self._report(f"cannot verify {self.db}: {said[-1] if said else f'exit code {job.returncode}'}")
            elif job.returncode == 0 and self._gm is not None:
                answer = json.loads(out)
                if tuple(answer["counts"]) == tuple(log_file.open(*self.pins).counts()):
                    with self._lock:
                        change = self._gm.digested(str(answer["digest"]))
                        if change:
                            self._frame(page_shell.json_for_script(change))
        if self._digest_asked is not None:
            self._digesting = subprocess.Popen(
                [sys.executable, "-m", "skirmish.eventlog.verifying", self.db, str(self._digest_asked)],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self._digest_asked = None

    def _frame(self, change: bytes | None) -> None:
        self.version += 1
        self.frames.append((self.version, change))

    def repin(self, encounter: str | None, branch: str | None) -> None:
        """Serve another table from now on (the GM switched on the GM's page): the data
        kept is of the old one, the pages get the new one whole."""
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
                    now = file_identity(self.db)
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
                        self._build(log_file)
                        self.gone = False
                        if self.error:
                            self.say(f"reading {self.db} again")
                        self.error = ""
                    if self.audience != "players":
                        self._digest(log_file)
                except Exception as exc:  # noqa: BLE001 - said on the terminal and the page, the server stays up
                    self._report(f"cannot read {self.db}: {type(exc).__name__}: {exc}")
                    seen = None  # look again at the next tick
                self.ready.set()
                self.stopping.wait(POLL)
        finally:
            if self._digesting is not None:
                self._digesting.kill()
                self._digesting.wait()
            if log_file is not None:
                log_file.close()


def file_identity(path: str) -> tuple[int, int] | None:
    """The file at ``path`` as (device, inode), or None where there is none: a file deleted
    or replaced under the server (a backup put back) is another identity."""
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
    squeezed: list[tuple[int, bytes]] = []  # the page of that version, gzipped
    quick: list[tuple[int, bytes]] = []  # the players' board-first page of a version
    quick_squeezed: list[tuple[int, bytes]] = []
    history_squeezed: list[tuple[int, bytes]] = []  # the whole data of a version, gzipped

    def shared(kept: list[tuple[int, bytes]], version: int, make: Callable[[], bytes]) -> bytes:
        # One copy a version, shared by every request: a client that reads slowly holds the
        # server to this copy, not one of its own.
        if not kept or kept[0][0] != version:
            kept[:] = [(version, make())]
        return kept[0][1]

    async def sent(request: Request, body: bytes, version: int, squeezed: list[tuple[int, bytes]],
                   media: str, vary: str) -> Response:
        # A browser takes it compressed (gzip: a page of 10,000 events, 850 KB, is sent in
        # 113 KB), compressed once a version too (docs/performance.md, Phones).
        if "gzip" in request.headers.get("accept-encoding", "").lower():
            if not squeezed or squeezed[0][0] != version:
                squeezed[:] = [(version, await asyncio.to_thread(gzip.compress, body, 6))]
            return Response(squeezed[0][1], media_type=media, headers={"Content-Encoding": "gzip", "Vary": vary})
        return Response(body, media_type=media, headers={"Vary": vary})

    def unreadable() -> Response:
        return Response(f"skirmish cannot read the log: {follower.error}\n", status_code=503, media_type="text/plain")

    async def page(request: Request) -> Response:
        await asyncio.to_thread(follower.ready.wait, 30)
        # A browser (it asks for HTML) is sent the players' board first: the page draws it
        # at once and fetches the history (HISTORY) after, for the replay, the chart and
        # the damage table. Any other client (a script, curl), and the GM's version, gets
        # the whole data inline: one file, as the export.
        first = None
        if "text/html" in request.headers.get("accept", "").lower():
            first = await asyncio.to_thread(follower.head)
        if first is not None:
            version, payload = first
            if not payload or follower.gone:
                return unreadable()
            body = shared(quick, version, lambda: page_shell.page(payload, follower.encounter))
            return await sent(request, body, version, quick_squeezed, "text/html; charset=utf-8",
                              "Accept, Accept-Encoding")
        version, payload = await asyncio.to_thread(follower.whole)
        if not payload or follower.gone:
            return unreadable()
        body = shared(rendered, version, lambda: page_shell.page(payload, follower.encounter))
        return await sent(request, body, version, squeezed, "text/html; charset=utf-8", "Accept, Accept-Encoding")

    async def history(request: Request) -> Response:
        """The whole data (every event of the branch) as JSON: the same bytes for every
        page at a version, the ones a page embeds whole."""
        await asyncio.to_thread(follower.ready.wait, 30)
        version, payload = await asyncio.to_thread(follower.whole)
        if not payload or follower.gone:
            return unreadable()
        return await sent(request, payload, version, history_squeezed, "application/json", "Accept-Encoding")

    async def stream(request: Request) -> StreamingResponse:
        last = request.headers.get("last-event-id") or request.query_params.get("since")
        # A page says the frame its data stands at; one of another run, or to come, is sent
        # the whole page (0: it missed every frame); a client that says nothing is sent the
        # changes from now on.
        start = follower.version
        if last is not None:
            run, _, number = last.partition(".")
            start = int(number) if run == follower.run and number.isdigit() and int(number) <= start else 0

        async def changes() -> AsyncIterator[bytes]:
            seen, idle = start, 0.0
            yield b"retry: 1000\n\n"
            while not stop.is_set() and not await request.is_disconnected():
                kept = list(follower.frames)
                missed = [(number, change) for number, change in kept if number > seen]
                if missed:
                    idle = 0.0
                    if missed[0][0] != seen + 1 or any(change is None for _, change in missed):
                        # Whole again: the path changed under the page, or it missed frames no
                        # longer kept. Three writes, not one joined copy per open stream.
                        seen, payload = await asyncio.to_thread(follower.whole)
                        yield b"event: state\nid: %s.%d\ndata: " % (follower.run.encode(), seen)
                        yield payload
                        yield b"\n\n"
                    else:
                        for number, change in missed:
                            assert change is not None
                            yield b"event: more\nid: %s.%d\ndata: " % (follower.run.encode(), number)
                            yield change
                            yield b"\n\n"
                        seen = missed[-1][0]
                elif idle >= HEARTBEAT:
                    idle = 0.0
                    yield b": still here\n\n"
                await asyncio.sleep(TICK)
                idle += TICK

        return StreamingResponse(changes(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        follower.start()
        try:
            yield
        finally:
            follower.stop()

    return Starlette(routes=[Route("/", page), Route(EVENTS, stream), Route(HISTORY, history), *more], lifespan=lifespan,
                     middleware=[Middleware(HostCheck)])
