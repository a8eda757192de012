"""How fast `skirmish serve`'s pages are on a phone: Debian's chromium at 400x900 with its CPU
slowed four times (DevTools ``Emulation.setCPUThrottlingRate``), on generated fights.

    python -m benchmarks.phone --sizes 10k,100k --taps 20 --dir /tmp/bench

For each size it serves a copy of the generated fight (benchmarks/fight.py; the log in
--dir is never written) and measures, each in a fresh page:

- the first load of the GM's page (``/gm#SECRET``), of a player's page (``/player#SECRET``,
  the first character `serve` prints a link for; drawn: its sheet and its dice buttons) and
  of the players' screen (``/``): from the navigation's start to the board drawn (its first
  card in the DOM, then the next animation frame), and the bytes transferred (the sum of CDP ``Network.loadingFinished``'s ``encodedDataLength``; the
  stream a page opens never finishes, and is not counted);
- tap to screen on the GM's page, ``--taps`` times each: Next; damage by the pad (a card
  tapped, a digit, Damage); Undo. A tap is Playwright's click (the input as a thumb's); its
  clock starts at the ``pointerdown`` the page is sent (the event's own time stamp) and
  stops, inside the page, at the animation frame after the DOM shows the tap's effect
  (a MutationObserver: the clock line, the cards, the amount or the Undo label changed).
  On a player's page, a die sent, ``--taps`` times: the character's Initiative die tapped,
  a pad digit, Send (the face held for the GM's next roll). For a tap that writes, "its post" is the part of it from the post to its answer read
  (Resource Timing): the server's work and the network's; the rest is the page's.

Each first load after the GM's taps is measured once the server settled (SETTLE seconds:
the log's verify digest, worked out again after each change on the other core, is done).
The players' screen draws the board at the head first and fetches its history after it:
its first load counts the page's bytes to the board drawn; the history's bytes, and the
seconds to the replay ready (its controls enabled), are printed apart.

It prints the median and the 90th percentile of each against the issue's bars: a tap at
most 100 ms at the median, a first load at most 1.5 s and 500 KB.
"""

from __future__ import annotations

import argparse
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.fight import generate
from benchmarks.run import _count

THROTTLE = 4  # the CPU slowed four times, as the phone
VIEWPORT = {"width": 400, "height": 900}
TAP_BAR, LOAD_BAR, BYTES_BAR = 0.100, 1.5, 500_000  # seconds at the median; seconds; bytes
# Seconds let pass after the GM's taps before a first load is measured: the server works out
# the log's verify digest again after each change, in a process on the other core (seconds
# at 100k), which a first load would otherwise share the 2 cores with.
SETTLE = 10.0

# Installed before any script of the page: the time (ms from the navigation's start) its
# board first has a card, taken at the animation frame after the card came.
DRAWN = """
window.__drawn = new Promise((drawn) => {
  new MutationObserver((_, seen) => {
    if (!document.querySelector(window.__boardSelector)) return;
    seen.disconnect();
    requestAnimationFrame(() => drawn(performance.now()));
  }).observe(document, { childList: true, subtree: true });
});
"""

# A tap's clock, inside the page: armed with what the tap should change (the text of the
# elements named), started by the pointerdown's time stamp, stopped at the animation frame
# after the DOM changed one of those texts.
TAP = """
window.__arm = (selectors) => {
  const text = () => selectors.map((s) => Array.from(document.querySelectorAll(s)).map((n) => n.textContent).join("|")).join("#");
  const before = text();
  let start = null, took, late;
  performance.clearResourceTimings();
  window.__took = new Promise((done, fail) => { took = done; late = fail; });
  const waited = setTimeout(() => late(new Error("no change of " + selectors.join(", ") + " within 120 s")), 120000);
  const down = (e) => { start = e.timeStamp; };
  document.addEventListener("pointerdown", down, { capture: true, once: true });
  const seen = new MutationObserver(() => {
    if (start === null || text() === before) return;
    seen.disconnect();
    clearTimeout(waited);
    requestAnimationFrame(() => {
      const end = performance.now(), asked = performance.getEntriesByType("resource").filter((r) => r.name.endsWith("/run"));
      took([end - start, asked.reduce((sum, r) => sum + r.responseEnd - r.startTime, 0)]);
    });
  });
  seen.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
};
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def chromium() -> tuple[str, list[str]]:
    """Debian's chromium and the arguments the page tests start it with, as
    tests/support/browser.py finds it (SKIRMISH_CHROMIUM, else on the PATH)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from support import browser as browser_support

    found = browser_support.find()
    if found is None:
        raise SystemExit(browser_support.HOW)
    return found, list(browser_support.ARGS)


class Serving:
    """`skirmish serve` on a copy of a log: its port, the GM's secret and the players'."""

    def __init__(self, db: Path, script: str) -> None:
        self.port = _free_port()
        self.said = db.with_suffix(".serve.txt")
        with self.said.open("w") as err:
            self.process = subprocess.Popen([script, "--db", str(db), "serve", "--port", str(self.port), "--no-qr"],
                                            stdout=err, stderr=err)
        deadline = time.monotonic() + 120
        while not (found := re.search(r"GM's page: \S+#(\S+)", self.said.read_text())):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"serve did not start: {self.said.read_text()}")
            time.sleep(0.05)
        self.token = found.group(1)
        self.players = re.findall(r"(\S.*?)'s link: \S+/player#(\S+)", self.said.read_text())
        self.base = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


def opened(browser: Any, address: str, board: str, apart: str = "") -> tuple[Any, float, int]:
    """A fresh phone page at ``address``, slowed: the seconds to its board drawn and the bytes it
    took (but those of requests whose address ends with ``apart``: ``page.apart_bytes``)."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
    cdp.send("Network.enable")
    sizes: dict[str, float] = {}
    urls: dict[str, str] = {}
    cdp.on("Network.requestWillBeSent", lambda e: urls.__setitem__(e["requestId"], e["request"]["url"]))
    cdp.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], e["encodedDataLength"]))
    page.add_init_script(f"window.__boardSelector = {board!r};" + DRAWN + TAP)
    page.goto(address, wait_until="commit", timeout=300_000)
    drawn = page.evaluate("() => window.__drawn") / 1000  # a promise: no polling that would load the page
    page.wait_for_load_state("load", timeout=300_000)
    page.wait_for_timeout(300)  # what the page fetches once drawn (the GM's forms' data) is counted too

    def part(request: str) -> bool:
        return bool(apart) and urls.get(request, "").split("?")[0].endswith(apart)

    page.apart_sizes = lambda: int(sum(v for k, v in sizes.items() if part(k)))
    return page, drawn, int(sum(v for k, v in sizes.items() if not part(k)))


def tap(page: Any, selector: str, watch: list[str], asked: list[float] | None = None) -> float:
    """Seconds from the tap on ``selector`` to the animation frame after one of ``watch``'s texts
    changed; the seconds its write to the server took (post to answer read) added to ``asked``."""
    page.evaluate("(w) => window.__arm(w)", watch)
    page.click(selector, timeout=60_000)
    took, server = page.evaluate("() => window.__took")
    if asked is not None:
        asked.append(server / 1000)
    return float(took) / 1000


def gm_taps(page: Any, count: int) -> dict[str, list[float]]:
    """Next, damage by the pad and Undo, ``count`` times each, on the GM's page.

    A round of taps: a damage (not measured) moves the head on, so the Next after it is a new
    tap, not the same command from the same board (which the server answers as a double tap,
    doing nothing); Next; damage by the pad (a card, a digit, Damage); Undo of that damage;
    then an Undo (not measured) of the Next, so every round plays the same turn of the fight."""
    out: dict[str, list[float]] = {"Next": [], "card tapped": [], "pad digit": [], "Damage": [], "Undo": [],
                                   "Next: its post": [], "Damage: its post": [], "Undo: its post": []}
    board = ["#clock", "#order", "#undo", "#reply", "#problem"]
    card = "#order li:last-child > button"

    def damage(taken: dict[str, list[float]]) -> None:
        if page.is_visible("#who"):  # still chosen from the last damage: a tap puts it down first
            page.click(card)
            page.wait_for_timeout(200)
        taken["card tapped"].append(tap(page, card, ["#who-name"]))
        taken["pad digit"].append(tap(page, "#pad button[aria-label='1']", ["#amount"]))
        taken["Damage"].append(tap(page, "#damage", board, taken["Damage: its post"]))
        done(page, "Damage")

    for _ in range(count):
        damage({key: [] for key in out})
        page.wait_for_timeout(200)
        out["Next"].append(tap(page, "#next", board, out["Next: its post"]))
        done(page, "Next")
        page.wait_for_timeout(200)
        damage(out)
        page.wait_for_timeout(200)
        out["Undo"].append(tap(page, "#undo", board, out["Undo: its post"]))  # the damage undone
        done(page, "Undo")
        page.wait_for_timeout(200)
        tap(page, "#undo", board)  # and the Next
        done(page, "Undo")
        page.wait_for_timeout(200)
    return out


def die_taps(page: Any, count: int, who: str) -> dict[str, list[float]]:
    """A die sent from a player's page, ``count`` times: the character's Initiative die tapped
    (its panel opens), a pad digit (the face shown), Send (held for the GM's next roll: the
    answer's line said). The panel's title and the reply are emptied before each tap (not
    timed): the same die opened again, a face held again, is a change to see."""
    out: dict[str, list[float]] = {"die button": [], "pad digit": [], "send": [], "send: its post": []}
    die = f"#holds [data-key='{who}']"
    for i in range(count):
        page.evaluate("() => { document.getElementById('panel-title').textContent = ''; }")  # the last tap's
        out["die button"].append(tap(page, die, ["#panel-title", "#panel-what"]))
        out["pad digit"].append(tap(page, f"#pad [data-pad='{i % 9 + 1}']", ["#fields"]))
        page.evaluate("() => { document.getElementById('reply').textContent = ''; }")
        out["send"].append(tap(page, "#panel-send", ["#reply", "#held"], out["send: its post"]))
        if page.evaluate("() => document.getElementById('reply').classList.contains('refused')"):
            raise SystemExit(f"the die was not held on the player's page: {page.text_content('#reply')}")
        page.wait_for_timeout(200)
        if page.is_visible("#panel"):  # still open: the tap after needs the die button
            page.click("#panel-off")
    return out


def done(page: Any, what: str) -> None:
    """A tap the server refused, or answered as one it had done already, is no figure of a
    tap done: the benchmark stops, saying why."""
    if page.evaluate("() => ['refused', 'repeated'].some((c) => document.getElementById('reply').classList.contains(c))"):
        raise SystemExit(f"{what} was not done on the GM's page: {page.text_content('#reply')}")


def player_page_exists(serving: Serving) -> bool:
    """Whether `serve`'s player page is built (more than the placeholder that names its routes)."""
    import urllib.request

    with urllib.request.urlopen(serving.base + "/player") as answer:
        return b"<script" in answer.read()


def under_way(db: Path, script: str) -> None:
    """Next needs a round under way: on the copy, one started when the generated log ends
    between rounds, after healing everyone when the fight ended with every combatant down
    (as the 100k log does)."""
    from skirmish.projections.write.engine import LogFile

    def run(*words: str) -> bool:
        return subprocess.run([script, "--db", str(db), *words], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0

    if run("round"):
        return
    with LogFile(str(db)) as log_file:
        fighters = log_file.open().view().combatants
    if all(c.status != "fighting" for c in fighters) and all(run("heal", c.name, "1000") for c in fighters):
        run("round")


def measure(db: Path, taps: int, script: str, executable: tuple[str, list[str]]) -> list[tuple[str, str, list[float], float]]:
    """Rows of (what, unit, figures, bar) for one served copy of a log."""
    from playwright.sync_api import sync_playwright

    under_way(db, script)
    serving = Serving(db, script)
    rows: list[tuple[str, str, list[float], float]] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable[0], args=executable[1])
            page, drawn, size = opened(browser, f"{serving.base}/gm#{serving.token}", "#order li")
            rows += [("GM's page: first load", "s", [drawn], LOAD_BAR), ("GM's page: first load", "bytes", [size], BYTES_BAR)]
            for what, took in gm_taps(page, taps).items():
                # a write's post to its answer: the part of the tap the server and the network take
                rows.append((f"GM's page: {what}", "ms", [t * 1000 for t in took], 0 if "post" in what else TAP_BAR * 1000))
            page.context.close()
            time.sleep(SETTLE)
            if serving.players and player_page_exists(serving):
                who, secret = serving.players[0]
                # Drawn: the character's sheet and the dice it may send (one render of the page's read).
                page, drawn, size = opened(browser, f"{serving.base}/player#{secret}", "#holds button")
                rows += [("a player's page: first load", "s", [drawn], LOAD_BAR),
                         ("a player's page: first load", "bytes", [size], BYTES_BAR)]
                for what, took in die_taps(page, taps, who).items():
                    rows.append((f"a player's page: {what}", "ms", [t * 1000 for t in took],
                                 0 if "post" in what else TAP_BAR * 1000))
                page.context.close()
            else:
                rows.append(("a player's page", "absent", [], LOAD_BAR))
            time.sleep(SETTLE)
            # The players' screen draws the board at the head first and fetches its history
            # (/history) after it: the board's bytes and time, then the history's apart.
            page, drawn, size = opened(browser, serving.base + "/", "#board li", apart="/history")
            rows += [("players' screen (/): first load", "s", [drawn], LOAD_BAR),
                     ("players' screen (/): first load", "bytes", [size], BYTES_BAR)]
            page.wait_for_function("() => !document.getElementById('back').disabled", timeout=600_000, polling=50)
            ready = page.evaluate("() => performance.now()") / 1000
            rows += [("players' screen (/): replay ready", "s", [ready], 0),
                     ("players' screen (/): its history", "bytes", [page.apart_sizes()], 0)]
            page.context.close()
            browser.close()
    finally:
        serving.stop()
    return rows


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(0.9 * len(ordered) + 0.5)) - 1))]


def figure(value: float, unit: str) -> str:
    return f"{value:.0f}" if unit in ("ms", "bytes") else f"{value:.2f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.phone", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10k,100k", help="comma-separated, e.g. 10k,100k (or a count: 200)")
    parser.add_argument("--taps", type=int, default=20, help="taps of each kind per size")
    parser.add_argument("--dir", help="where the logs are (or go); default: a temporary directory")
    parser.add_argument("--skirmish", default=str(Path(sys.executable).parent / "skirmish"),
                        help="the skirmish command that serves (another checkout's, for a figure before a change)")
    args = parser.parse_args(argv)
    workdir = Path(args.dir or tempfile.mkdtemp(prefix="skirmish-phone-"))
    workdir.mkdir(parents=True, exist_ok=True)
    executable = chromium()
    print(f"Chromium {executable[0]}, {VIEWPORT['width']}x{VIEWPORT['height']}, CPU slowed {THROTTLE}x; "
          f"{args.taps} taps of each kind", flush=True)
    print(f"{'log':>6} {'what':<34} {'unit':>6} {'n':>3} {'median':>9} {'p90':>9} {'bar':>9}  within")
    for label in args.sizes.split(","):
        db = workdir / f"skirmish-{label}.db"
        if not db.exists():
            print(f"{label}: generating {db}", file=sys.stderr, flush=True)
            store, _ = generate(str(db), _count(label))
            store.close()
        served = workdir / f"phone-{label}.db"  # the copy served and tapped on; the log in --dir is left as it is
        shutil.copy(db, served)
        for suffix in ("-wal", "-shm"):
            Path(str(served) + suffix).unlink(missing_ok=True)
        try:
            for what, unit, values, bar in measure(served, args.taps, args.skirmish, executable):
                if not values:
                    print(f"{label:>6} {what:<34} {unit:>6}   -         -         -         -  (no such page yet)", flush=True)
                    continue
                median, high = statistics.median(values), p90(values)
                within = "yes" if median <= bar else "NO"
                print(f"{label:>6} {what:<34} {unit:>6} {len(values):>3} {figure(median, unit):>9} {figure(high, unit):>9} "
                      + (f"{figure(bar, unit):>9}  {within}" if bar else f"{'-':>9}  -"), flush=True)
        finally:
            for leftover in workdir.glob(f"phone-{label}.*"):
                leftover.unlink()
            for suffix in ("-wal", "-shm"):
                Path(str(served) + suffix).unlink(missing_ok=True)
    print("(tap: Playwright's click to the frame after the DOM shows its effect, measured in the page; "
          "first load: navigation to the board drawn; bytes: encoded, as sent)")


if __name__ == "__main__":
    main()
