"""How fast and how big one change is on `skirmish serve`'s open pages, and what a turn
costs a GM's thumb beside the keyboard.

    python -m benchmarks.gm_live --sizes 10k,100k --dir /tmp/bench

For each size it runs `skirmish serve` (the installed script, its own process) on a
generated fight (benchmarks/fight.py), opens the GM's stream and the players' stream, and
records ``--changes`` commands (`damage NAME 1`) from another connection. For each change:
the time from the command's commit to the frame read off each stream, and the frame's
bytes. Then as many taps: the same command posted by the GM's page, to its answer. The
GM's frame carries the board and the new events; the players' carries the new events the
players are told of and what else moved (a ``more`` frame; cli/live.py).

Then, for the first round of each sample (samples/*.skirmish, the same lines the page
tests play by taps), the presses on the GM's page against the CLI's keystrokes: a button
is one tap, a list (who, action, target) two (open, pick), a typed field its characters
plus one; the CLI, every character of the line and Enter (no completion).
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import shlex
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
SELECTS = {"who", "action", "--target"}
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
                        self.frames.append((time.perf_counter(), size))
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


def _wait(reader: Reader, count: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while len(reader.frames) < count and time.monotonic() < deadline:
        time.sleep(0.002)
    return len(reader.frames) >= count


def measure(db: str, changes: int) -> dict[str, list[float]]:
    from skirmish.cli.main import run_cli
    from skirmish.projections.engine import LogFile

    with LogFile(db) as log_file:
        name = log_file.open().view().combatants[0].name
    script = str(Path(sys.executable).parent / "skirmish")
    port = _free_port()
    said = Path(db).with_suffix(".serve.txt")
    with said.open("w") as err:
        server = subprocess.Popen([script, "--db", db, "serve", "--port", str(port)], stderr=err, stdout=subprocess.DEVNULL)
    out: dict[str, list[float]] = {"gm_s": [], "gm_bytes": [], "players_s": [], "players_bytes": [], "tap_s": []}
    try:
        while not re.search(r"GM's page: \S+#(\S+)", said.read_text()):
            time.sleep(0.05)
        token = re.search(r"GM's page: \S+#(\S+)", said.read_text()).group(1)  # type: ignore[union-attr]
        gm = Reader(port, f"/gm/events?token={token}", "change")
        players = Reader(port, "/events", "state", "more")
        time.sleep(1.0)
        base_gm, base_players = len(gm.frames), len(players.frames)
        with open(os.devnull, "w") as quiet:
            for n in range(changes):
                stdout = sys.stdout
                sys.stdout = quiet
                try:
                    run_cli(["--db", db, "damage", name, "1"])
                finally:
                    sys.stdout = stdout
                done = time.perf_counter()
                if _wait(gm, base_gm + n + 1, 60):
                    at, size = gm.frames[base_gm + n]
                    out["gm_s"].append(at - done)
                    out["gm_bytes"].append(size)
                if _wait(players, base_players + n + 1, 120):
                    at, size = players.frames[base_players + n]
                    out["players_s"].append(at - done)
                    out["players_bytes"].append(size)
        out["tap_s"] = taps(port, token, changes)
    finally:
        server.terminate()
        server.wait(30)
    return out


def taps(port: int, token: str, count: int) -> list[float]:
    """A tap's round trip: `damage NAME 1` posted by the GM's page to its answer with the
    new board, while the players' stream is sent its change by the same server."""
    import json

    def call(method: str, path: str, body: object = None) -> dict[str, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers={"X-Skirmish-Token": token, "Content-Type": "application/json"})
        data: dict[str, Any] = json.loads(conn.getresponse().read())
        conn.close()
        return data

    board = call("GET", "/gm/state")["frame"]["board"]
    name = board["combatants"][0]["name"]
    took = []
    for _ in range(count):
        started = time.perf_counter()
        reply = call("POST", "/gm/run", {"words": ["damage", name, "1"], "branch": board["branch"], "head": board["head"]})
        took.append(time.perf_counter() - started)
        assert reply["code"] == 0, reply
        board = reply["frame"]["board"]
        time.sleep(0.5)
    return took


def widgets(ruleset_id: str) -> dict[tuple[str, str], str]:
    """How the GM's page asks each field of each form, as gm.js makes it from the ruleset's
    declared inputs: "tick" (a switch, a detail of one value), "list" (a detail's choices,
    a target) or "type"."""
    from skirmish.projections.page.gm_data import inputs
    from skirmish.projections.ruleset import get_ruleset

    out = {}
    for form in inputs(get_ruleset(ruleset_id)).forms:
        for f in form.fields:
            flag = f"--with {f.key}" if f.flag == "--with" else f.flag
            one = f.flag == "--with" and len(f.choices) == 1
            out[form.command, flag] = "tick" if f.kind == "switch" or one else "list" if f.choices or f.flag == "--target" else "type"
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
    if dice:
        count += len(" ".join(dice)) + 1
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
    parser.add_argument("--changes", type=int, default=5, help="changes recorded per size")
    args = parser.parse_args(argv)
    workdir = Path(args.dir or tempfile.mkdtemp(prefix="skirmish-gm-live-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"{'log':>6} {'GM page: s':>11} {'bytes':>8} {'players: s':>11} {'bytes':>10} {'a tap: s':>9}")
    for label in args.sizes.split(","):
        db = workdir / f"skirmish-{label}.db"
        if not db.exists():
            print(f"{label}: generating {db}", file=sys.stderr, flush=True)
            store, _ = generate(str(db), _count(label))
            store.close()
        got = measure(str(db), args.changes)
        med = {k: statistics.median(v) if v else float("nan") for k, v in got.items()}
        print(f"{label:>6} {med['gm_s']:>11.3f} {med['gm_bytes']:>8.0f} {med['players_s']:>11.3f} {med['players_bytes']:>10.0f} {med['tap_s']:>9.3f}")
    print("(medians: a change's commit to the frame read off each stream; a tap's post to its answer)")
    print(f"\n{'sample':<20} {'lines':>5} {'taps':>5} {'CLI keys':>9}")
    for sample, lines, taps, keys in turns():
        print(f"{sample:<20} {lines:>5} {taps:>5} {keys:>9}")


if __name__ == "__main__":
    main()
