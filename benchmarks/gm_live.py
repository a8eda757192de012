"""How fast and how big one change is on `skirmish serve`'s open pages, and what a turn
costs a GM's thumb beside the keyboard.

    python -m benchmarks.gm_live --sizes 10k,100k --dir /tmp/bench
    python -m benchmarks.gm_live --sizes 10k,100k --dir /tmp/bench --folds   # the live data's own work
    python -m benchmarks.gm_live --sizes 10k,100k --dir /tmp/bench --paint   # to the event shown, in Chromium

For each size and each served version (the players' page, `serve`; the GM's version of
the replay page, `serve --for gm`) it runs `skirmish serve` (its own process) on its own
copy of a generated fight (benchmarks/fight.py), opens that page's stream and the GM's
console's (/gm/events), and makes ``--changes`` commands (`damage NAME 1`), then an undo,
a redo, an undo past every head the server stood at and a redo back, a switch tapped on
the GM's console to another branch and one back, an amend of the head's event, a switch
tapped to its branch and one back (CHANGES), each from another connection. For each change and each page: the time from the
change's commit (the wall-clock stamp the store writes on its rows; a tap's post) to the first frame read off the stream, and its bytes. Then,
with the players' page, taps: `damage` posted by the GM's console, to its answer. The
console's frame carries the board and the new events; the pages' ``more`` frames the new
events and what else moved, a ``state`` frame the whole page (cli/live.py); the GM's
version sends its verify digest in a frame of its own a moment later (not counted). The
players' page is not sent the amend (its branch is not the one the page is served on).

Then, for the first round of each sample (samples/*.skirmish, the same lines the page
tests play by taps), the presses on the GM's page against the CLI's keystrokes: a button
is one tap, a list (who, action, target, an effect, whose dice) two (open, pick), a typed
field its characters plus one; the CLI, every character of the line and Enter (no completion).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import re
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.fight import generate
from benchmarks.run import _count

ROOT = Path(__file__).resolve().parents[1]
SELECTS = {"who", "action", "kind", "--target"}  # picked from a list
ARITY = {"declare": ("who", "action"), "resolve": ("who",), "cancel": ("who",), "effect": ("who", "kind")}


class Reader:
    """One stream, read by a thread: the time each frame of ``event`` arrived, and its bytes."""

    def __init__(self, port: int, path: str, *events: str) -> None:
        self.frames: list[tuple[float, int]] = []
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        self.conn.request("GET", path)
        self.answer = self.conn.getresponse()
        self.events = events
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        size, kind = 0, ""
        try:
            while line := self.answer.readline():
                if line == b"\n":
                    if kind in self.events:
                        self.frames.append((time.time(), size))  # the wall clock: commits are stamped in it
                    size, kind = 0, ""
                    continue
                size += len(line)
                if line.startswith(b"event: "):
                    kind = line[7:].strip().decode()
        except (OSError, ValueError, http.client.HTTPException):
            pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def committed_at(db: str) -> float:
    """When the last change was committed, on the wall clock: the stamp the store writes on
    the rows of its transaction (a command's, its events', a head's move), read after it."""
    import sqlite3
    from datetime import datetime

    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        stamp = conn.execute("SELECT max(at) FROM (SELECT max(recorded_at) AS at FROM commands UNION ALL "
                             "SELECT max(recorded_at) FROM events UNION ALL SELECT max(recorded_at) FROM head_moves)"
                             ).fetchone()[0]
    return datetime.fromisoformat(stamp).timestamp()


def _quiet(readers: list[Reader], seconds: float, most: float = 120) -> None:
    """Wait until no reader was sent a frame for ``seconds`` (the GM's version sends the
    verify digest a moment after a change: the next change is not measured against it)."""
    deadline = time.monotonic() + most
    while time.monotonic() < deadline:
        last = max((r.frames[-1][0] for r in readers if r.frames), default=0.0)
        if time.time() - last >= seconds:
            return
        time.sleep(0.05)


# The changes measured, in order: (the change's name, how it is made). "cli": the words run
# by the command line (another connection); "tap": posted by the GM's console (a `switch`
# moves the served pages, as one typed in another shell does not). `undo {past}` steps back
# past every head the server stood at since it started (the players' data kept none there).
CHANGES = [("command", "cli", ["damage", "{name}", "1"]), ("undo", "cli", ["undo"]), ("redo", "cli", ["redo"]),
           ("undo past", "cli", ["undo", "{past}"]), ("redo past", "cli", ["redo", "{past}"]),
           ("switch", "tap", ["switch", "{other}"]), ("switch back", "tap", ["switch", "{branch}"]),
           ("amend", "cli", ["amend", "{head}", "--", "damage", "{name}", "2"]),
           ("to the amend", "tap", ["switch", "amend-{amended}"]), ("and back", "tap", ["switch", "{branch}"])]


def measure(db: str, changes: int, audience: str, script: str) -> dict[str, dict[str, list[float]]]:
    """``serve`` (``--for gm`` for the GM's version) on ``db``: for each change and each open
    page, the seconds from the change's commit (or the tap's post) to the page's first frame,
    and that frame's bytes."""
    from skirmish.cli.main import run_cli
    from skirmish.projections.write.engine import LogFile

    port = _free_port()
    said = Path(db).with_suffix(".serve.txt")
    options = ["--for", "gm"] if audience == "gm" else []
    with said.open("w") as err:
        server = subprocess.Popen([script, "--db", db, "serve", "--port", str(port), *options], stderr=err,
                                  stdout=subprocess.DEVNULL)
    pages = {"players": "the players' page", "gm": "the GM's version"}
    out: dict[str, dict[str, list[float]]] = {}
    try:
        while not (found := re.search(r"GM's page: \S+#(\S+)", said.read_text())):
            assert server.poll() is None, said.read_text()
            time.sleep(0.05)
        token = found.group(1)
        readers = {pages[audience]: Reader(port, "/events", "state", "more"),
                   "the GM's console": Reader(port, f"/gm/events?token={token}", "change")}
        _quiet(list(readers.values()), 1.0)
        with LogFile(db) as log_file:
            enc = log_file.open()
            name, branch = enc.view().combatants[0].name, enc.branch
            other = next(b for b in enc.branches() if b != branch)
        on = branch  # the branch the GM's console plays on
        amended = 0
        for label, how, words in [*[CHANGES[0]] * (changes - 1), *CHANGES]:
            with LogFile(db) as log_file:
                head = log_file.open(None, on).head().event_id
            amended = head if label == "amend" else amended
            words = [w.format(name=name, branch=branch, other=other, head=head, past=changes + 2, amended=amended)
                     for w in words]
            before = {page: len(r.frames) for page, r in readers.items()}
            if how == "tap":
                started = time.time()
                reply = _call(port, token, "POST", "/gm/run", typed(words, on, head))
                assert reply["result"]["kind"] != "refused", reply
                if words[0] == "switch":
                    on = words[1]
            else:
                with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
                    assert run_cli(["--db", db, *words]) == 0, words
                started = committed_at(db)  # a page may be sent the change before the command's process is done
            for page, reader in readers.items():
                if label == "amend" and page == pages["players"]:
                    continue  # the amend's branch is not the one the players' page is served (pinned) on
                deadline = time.monotonic() + 120
                while len(reader.frames) <= before[page] and time.monotonic() < deadline:
                    time.sleep(0.002)
                if len(reader.frames) > before[page]:
                    at, size = reader.frames[before[page]]
                    got = out.setdefault(f"{label}|{page}", {"s": [], "bytes": []})
                    got["s"].append(at - started)
                    got["bytes"].append(size)
            _quiet(list(readers.values()), 1.5)
        if audience == "players":
            out["tap|a tap answered"] = {"s": taps(port, token, changes), "bytes": []}
    finally:
        server.terminate()
        server.wait(30)
    return out


def typed(words: list[str], branch: str, head: int) -> dict[str, Any]:
    """A tap as the GM's page posts it: the typed request the words stand for (read by the
    one parser), the board it was tapped on, and a fresh tap id."""
    import secrets

    from skirmish.projections.door import requests as r
    from skirmish.projections.door.words import parse

    return {"command": r.to_json(parse(words).request), "branch": branch, "head": head, "tap": secrets.token_hex(8)}


def _call(port: int, token: str, method: str, path: str, body: object = None) -> dict[str, Any]:
    import json

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers={"X-Skirmish-Token": token, "Content-Type": "application/json"})
    data: dict[str, Any] = json.loads(conn.getresponse().read())
    conn.close()
    return data


def taps(port: int, token: str, count: int) -> list[float]:
    """A tap's round trip: `damage NAME 1` posted by the GM's page to its answer with the
    new board, while the players' stream is sent its change by the same server."""
    board = _call(port, token, "GET", "/gm/state")["frame"]["board"]
    name = board["combatants"][0]["name"]
    took = []
    for _ in range(count):
        started = time.perf_counter()
        reply = _call(port, token, "POST", "/gm/run", typed(["damage", name, "1"], board["branch"], board["head"]))
        took.append(time.perf_counter() - started)
        assert reply["result"]["kind"] != "refused", reply
        board = reply["frame"]["board"]
        time.sleep(0.5)
    return took


def folds(db: str) -> list[tuple[str, str, float, int]]:
    """The live data's own work for each change, in this process (no server, no poll): the
    GM's (GMLive) and the players' (PlayersLive) ``extend`` after each change of CHANGES
    made by the command line (a switch here moves the file's current branch, which these
    data follow when not pinned), its seconds of CPU and the change's bytes; and the data
    built whole, for scale."""
    from skirmish.cli.main import run_cli
    from skirmish.projections.write.engine import LogFile
    from skirmish.projections.page import data as page_data
    from skirmish.projections.page.shell import json_for_script

    out = []
    with LogFile(db) as log_file:
        enc = log_file.open()
        name, branch = enc.view().combatants[0].name, enc.branch
        other = next(b for b in enc.branches() if b != branch)
        kept: dict[str, Any] = {}
        for audience, kind in (("gm", page_data.GMLive), ("players", page_data.PlayersLive)):
            started = time.process_time()
            kept[audience] = kind(log_file.open(), page_data.Bands())
            out.append(("built whole", audience, time.process_time() - started, len(json_for_script(kept[audience].data))))
    amended = 0
    for label, _, words in CHANGES:
        with LogFile(db) as log_file:
            head = log_file.open().head().event_id
        amended = head if label == "amend" else amended
        words = [w.format(name=name, branch=branch, other=other, head=head, past=3, amended=amended) for w in words]
        with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
            assert run_cli(["--db", db, *words]) == 0, words
        for audience, live in kept.items():
            with LogFile(db) as log_file:
                started = time.process_time()
                change = live.extend(log_file.open())
                took = time.process_time() - started
            out.append((label, audience, took, len(json_for_script(change if change is not None else live.data))))
    return out


def painted(db: str, script: str, audience: str, changes: int) -> list[float]:
    """In Chromium (Debian's, by Playwright): the seconds from a command's commit to the
    served page (``--for`` the audience) showing its event at the head: the frame's way
    and page.js folding it in."""
    from playwright.sync_api import sync_playwright

    from skirmish.cli.main import run_cli
    from skirmish.projections.write.engine import LogFile

    port = _free_port()
    options = ["--for", "gm"] if audience == "gm" else []
    server = subprocess.Popen([script, "--db", db, "serve", "--port", str(port), *options],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    took = []
    try:
        with LogFile(db) as log_file:
            name = log_file.open().view().combatants[0].name
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                                        args=["--no-sandbox", "--disable-gpu"])
            tab = browser.new_page(viewport={"width": 1280, "height": 800})
            tab.set_default_timeout(600_000)
            deadline = time.monotonic() + 300
            while True:
                try:
                    tab.goto(f"http://127.0.0.1:{port}/")
                    break
                except Exception:  # noqa: BLE001 - not listening yet
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(1)
            tab.wait_for_function("document.getElementById('live').textContent.includes('following')")
            time.sleep(3)
            for _ in range(changes):
                with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
                    assert run_cli(["--db", db, "damage", name, "1"]) == 0
                done = time.perf_counter()
                with LogFile(db) as log_file:
                    head = log_file.open().head().event_id
                tab.wait_for_function(f"document.getElementById('position').textContent.startsWith('#{head} ')",
                                      polling=10)
                took.append(time.perf_counter() - done)
                time.sleep(4)  # the GM's digest frame, folded too, before the next
            browser.close()
    finally:
        server.terminate()
        server.wait(30)
    return took


def widgets(ruleset_id: str) -> dict[tuple[str, str], str]:
    """How the GM's page asks each field of each form, as gm.js makes it from
    projections/page/gm_data.py, keyed by the field's word on the command line: "tick" (a
    switch, a detail of one value), "list" (a choice, a combatant, an action, an effect) or
    "type"."""
    from skirmish.projections.page.gm_data import inputs
    from skirmish.projections.ruleset import flag_name, get_ruleset

    ruleset = get_ruleset(ruleset_id)
    out = {}
    for form in inputs(ruleset).forms:
        for f in form.fields:
            asked = "tick" if f.kind == "switch" else "list" if f.kind == "choice" or f.picker else "type"
            if f.goes == "field":
                out[form.type, flag_name(f.key)] = asked
            elif f.goes == "detail":
                out[form.type, f"--with {f.key}"] = asked
                if f.key in ruleset.flags:  # a flag of the ruleset's own, typed `--NAME`, sent in details
                    out[form.type, f"--{f.key}"] = asked
    return out


def _fields(command: str, rest: list[str], asked: dict[tuple[str, str], str]) -> int:
    """Presses for a form's or the pad's fields: a tick one, a list two, typed text its characters and one."""
    count, at = 0, 0
    while at < len(rest):
        flag = rest[at]
        if flag == "--with":
            key, _, value = rest[at + 1].partition("=")
            kind, at = asked.get((command, f"--with {key}"), "type"), at + 2
        elif at + 1 < len(rest) and not rest[at + 1].startswith("--"):
            kind, value, at = asked.get((command, flag), "list" if flag in SELECTS else "type"), rest[at + 1], at + 2
        else:
            kind, value, at = "tick", "", at + 1
        count += {"tick": 1, "list": 2}.get(kind, len(value) + 1)
    return count


def presses(words: list[str], asked: dict[tuple[str, str], str] | None = None) -> int:
    """Presses on the GM's page for one command line (see the module's docstring); ``asked``:
    :func:`widgets` of the encounter's ruleset."""
    command, count, asked = words[0], 0, asked or {}
    if command in ("next", "undo", "redo", "upkeep"):
        return 1
    if command in ("damage", "heal"):
        return 1 + len(words[2]) + _fields(command, words[3:], asked) + 1  # the card, the digits, the pad's options, the button
    if command in ("leave", "return"):
        return 2
    arguments = ARITY.get(command, ())
    for name, value in zip(arguments, words[1:]):
        count += 2 if name in SELECTS else len(value) + 1
    rest, at, dice, others = words[1 + len(arguments):], 0, [], []
    while at < len(rest):
        if rest[at] == "--roll":
            dice.append(rest[at + 1])
            at += 2
        else:
            others.append(rest[at])
            at += 1
    count += _fields(command, others, asked)
    for row, item in enumerate(dice):  # a row each: "+ dice" past the first, whose (a list), the faces typed
        key, _, faces = item.rpartition("=")
        other = ":" in key or key.endswith("-reroll")  # a key the ruleset names (dmg:NAME), typed after "another key"
        count += (1 if row else 0) + 2 + (len(key) + 1 if other else 0) + len(faces) + 1
    return count + 1  # the form's button


def turns() -> list[tuple[str, int, int, int]]:
    rows = []
    for sample in sorted((ROOT / "samples").glob("*.skirmish")):
        lines = [shlex.split(line, comments=True) for line in sample.read_text().splitlines()]
        lines = [line for line in lines if line]
        start = max(i for i, line in enumerate(lines) if line[0] in ("new", "add")) + 1
        played, rounds = [], 0
        for line in lines[start:]:
            if line[0] == "round":
                rounds += 1
                if rounds == 2:
                    break
            if line[0] in ("branch", "switch", "note"):
                break
            played.append(line)
        ruleset = next(line[line.index("--rules") + 1] for line in lines if line[0] == "new")
        asked = widgets(ruleset)
        taps = sum(presses(line, asked) for line in played)
        keys = sum(len(shlex.join(line)) + 1 for line in played)
        rows.append((sample.stem, len(played), taps, keys))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gm_live", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10k,100k", help="comma-separated, e.g. 10k,100k")
    parser.add_argument("--dir", help="where the logs are (or go); default: a temporary directory")
    parser.add_argument("--changes", type=int, default=3, help="commands recorded per size (then one of each other change)")
    parser.add_argument("--for", dest="audiences", default="players,gm", help="the served versions: players, gm or both")
    parser.add_argument("--skirmish", default=str(Path(sys.executable).parent / "skirmish"),
                        help="the skirmish command that serves (another checkout's, for a figure before a change)")
    parser.add_argument("--folds", action="store_true", help="only the live data's own work for each change, in this process")
    parser.add_argument("--paint", action="store_true", help="only a command's commit to its event shown in Chromium")
    args = parser.parse_args(argv)
    workdir = Path(args.dir or tempfile.mkdtemp(prefix="skirmish-gm-live-"))
    workdir.mkdir(parents=True, exist_ok=True)
    if args.paint:
        print(f"{'log':>6} {'page':<8} {'s':>7}")
        for label in args.sizes.split(","):
            for audience in args.audiences.split(","):
                played = workdir / f"painted-{label}-{audience}.db"
                shutil.copy(workdir / f"skirmish-{label}.db", played)
                took = painted(str(played), args.skirmish, audience, args.changes)
                print(f"{label:>6} {audience:<8} {statistics.median(took):>7.3f}", flush=True)
        return
    if args.folds:
        print(f"{'log':>6} {'change':<12} {'data':<8} {'CPU s':>7} {'bytes':>10}")
        for label in args.sizes.split(","):
            played = workdir / f"folded-{label}.db"
            shutil.copy(workdir / f"skirmish-{label}.db", played)
            for change, audience, cpu, sent in folds(str(played)):
                print(f"{label:>6} {change:<12} {audience:<8} {cpu:>7.3f} {sent:>10}", flush=True)
        return
    print(f"{'log':>6} {'change':<12} {'page':<20} {'s':>7} {'bytes':>10}")
    for label in args.sizes.split(","):
        db = workdir / f"skirmish-{label}.db"
        if not db.exists():
            print(f"{label}: generating {db}", file=sys.stderr, flush=True)
            store, _ = generate(str(db), _count(label))
            store.close()
        for audience in args.audiences.split(","):
            played = workdir / f"played-{label}-{audience}.db"  # each served version on its own copy
            shutil.copy(db, played)
            for suffix in ("-wal", "-shm"):
                Path(str(played) + suffix).unlink(missing_ok=True)
            for key, got in measure(str(played), args.changes, audience, args.skirmish).items():
                change, page = key.split("|")
                seconds = statistics.median(got["s"]) if got["s"] else float("nan")
                size = f"{statistics.median(got['bytes']):.0f}" if got["bytes"] else "-"
                print(f"{label:>6} {change:<12} {page:<20} {seconds:>7.3f} {size:>10}", flush=True)
    print("(medians: a change's commit, or a tap's post, to the first frame read off each page's stream)")
    print(f"\n{'sample':<20} {'lines':>5} {'taps':>5} {'CLI keys':>9}")
    for sample, lines, taps, keys in turns():
        print(f"{sample:<20} {lines:>5} {taps:>5} {keys:>9}")


if __name__ == "__main__":
    main()
