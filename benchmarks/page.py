"""The replay page of a long fight: its size, the time to write it, and the time Chromium
takes to open it (parse the data, fold every view, draw the board and the chart).

    python -m benchmarks.page [EVENTS]      # default 100,000 events; prints one table

It generates the benchmarks' ap-countdown fight (benchmarks/fight.py), exports the GM's
page and opens it in Chromium (SKIRMISH_CHROMIUM, chromium or chromium-browser) through
Playwright (the `test` extra).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.fight import generate
from skirmish.projections.page import data as page_data, shell as page_shell


def chromium() -> str:
    """The Chromium the browser tests use (docs/contributing.md): SKIRMISH_CHROMIUM, else
    Debian's chromium or Ubuntu's chromium-browser on the PATH."""
    found = os.environ.get("SKIRMISH_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        raise SystemExit("no Chromium: apt-get install chromium, or set SKIRMISH_CHROMIUM=/path/to/chromium")
    return found


ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def main(argv: list[str]) -> None:
    events = int(argv[0]) if argv else 100_000
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as work:
        started = time.perf_counter()
        store, enc = generate(str(Path(work) / "fight.db"), events)
        generated = time.perf_counter() - started
        started = time.perf_counter()
        data = page_data.build(enc)
        page = Path(work) / "fight.html"
        page.write_bytes(page_shell.html(data))
        written = time.perf_counter() - started
        size = page.stat().st_size
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium(), args=ARGS)
            tab = browser.new_page(viewport={"width": 1400, "height": 900})
            started = time.perf_counter()
            tab.goto(page.as_uri())
            tab.wait_for_function("document.getElementById('position').textContent.startsWith('#')", timeout=60_000)
            opened = time.perf_counter() - started
            started = time.perf_counter()
            tab.keyboard.press("End")
            tab.wait_for_function("document.getElementById('position').textContent.includes(' of ')")
            scrubbed = time.perf_counter() - started
            browser.close()
        store.close()
    print(f"| events in the log | {events:,} (generated in {generated:.1f} s) |")
    print(f"| events on the page | {len(data['events']):,} in {len(data['branches'])} branches |")
    print(f"| page size | {size / 1e6:.1f} MB ({size / len(data['events']):.0f} bytes an event) |")
    print(f"| export time | {written:.1f} s |")
    print(f"| open in Chromium (to the first board) | {opened:.2f} s |")
    print(f"| jump to the last event | {scrubbed * 1000:.0f} ms |")


if __name__ == "__main__":
    main(sys.argv[1:])
