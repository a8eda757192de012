"""The GM's version of the served page in Chromium folds the stream's frames (page.js): after
commands, undos and redos, a new branch, switches, an amend, notes, a rename, hide and
reveal, the page that followed them shows, on every branch at every event, exactly what a
page opened at the end shows."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.main import run_cli
from skirmish.projections.write.engine import LogFile

from test_gm_stream import COMMANDS
from test_live_slips import serving
from test_players_policy import FIGHTS, fought  # noqa: F401 - fought: a fixture

pytestmark = pytest.mark.slow  # Chromium and a live server


# What the page shows: for each branch picked, at each event scrubbed to, every text the
# replay's parts hold (the board, the pending list, the narration, the explanation with
# its command, the notes, the totals, the header with its digest, the branch's forks).
SHOWN = """() => {
  const $ = id => document.getElementById(id);
  const text = id => $(id).textContent;
  const out = [text('title'), text('ruleset'), text('secret'),
               Array.from($('branch').options).map(o => o.value + ': ' + o.textContent)];
  for (const option of Array.from($('branch').options)) {
    $('branch').value = option.value;
    $('branch').dispatchEvent(new Event('change'));
    const steps = Number($('scrub').max) + 1;
    out.push([option.value, text('splits'), text('legend'), steps]);
    for (let i = 0; i < steps; i++) {
      $('scrub').value = String(i);
      $('scrub').dispatchEvent(new Event('input'));
      out.push(['position', 'clock', 'acts', 'narration', 'explanation', 'notes', 'board', 'pending', 'summary']
               .map(text));
    }
  }
  return out;
}"""


# What the page shows where it stands (the head of its branch, as a live page follows it):
# the board folded on as changes came (page.js extend), and the chart drawn again.
AT_HEAD = """() => {
  const $ = id => document.getElementById(id);
  return [$('scrub').max, ...['position', 'clock', 'acts', 'narration', 'explanation', 'notes', 'board', 'pending',
          'summary', 'legend', 'splits'].map(id => $(id).textContent),
          Array.from(document.querySelectorAll('#chart polyline')).map(p => p.getAttribute('points')),
          Array.from(document.querySelectorAll('#chart circle')).map(c => c.getAttribute('cx') + ',' + c.getAttribute('cy'))];
}"""


def test_the_gms_page_that_followed_every_kind_of_change_shows_the_page_opened_at_the_end(
        browser: Any, fought: dict[str, Path], tmp_path: Path) -> None:
    fight = FIGHTS[0]
    db = tmp_path / "fight.db"
    shutil.copy(fought[fight.ruleset], db)
    renamed, first = False, 0
    with serving(str(db), options=("--for", "gm")) as served:
        tab = browser.new_page(viewport={"width": 400, "height": 900})
        tab.set_default_timeout(5000)
        tab.goto(f"http://127.0.0.1:{served.port}/")
        tab.wait_for_function("document.getElementById('live').textContent.includes('following')")
        assert tab.evaluate("document.getElementById('branch').options.length") == 2  # main, what-if
        for words in COMMANDS:
            words = [w.format(party="Hauser the Bold" if renamed else fight.party, hurt="damage", harm="1", harm2="2",
                              first=first) for w in words]
            assert run_cli(["--db", str(db), *words]) == 0, words
            renamed = (renamed or words[0] == "rename") and words[:2] != ["switch", "main"]
            if not first:
                with LogFile(str(db)) as log_file:
                    first = log_file.open().head().event_id
            time.sleep(0.3)
        with LogFile(str(db)) as log_file:
            enc = log_file.open("Bridge", "main")
            digest = log_file.verify(enc.row)
            head = enc.head().event_id
        # The page has every change once its digest is the log's (it comes last, apart).
        tab.wait_for_function(f"document.getElementById('secret').textContent.includes('{digest}')", timeout=20000)
        tab.wait_for_function(f"document.getElementById('position').textContent.startsWith('#{head} ')")
        time.sleep(0.5)  # the chart, drawn again just after the board
        followed_head = tab.evaluate(AT_HEAD)
        followed = tab.evaluate(SHOWN)
        tab.close()
    # The page opened at the end, from a server started now: built whole from the file.
    with serving(str(db), options=("--for", "gm")) as again:
        fresh = browser.new_page(viewport={"width": 400, "height": 900})
        fresh.goto(f"http://127.0.0.1:{again.port}/")
        fresh.wait_for_function("document.getElementById('live').textContent.includes('following')")
        whole_head = fresh.evaluate(AT_HEAD)
        whole = fresh.evaluate(SHOWN)
        fresh.close()
    assert followed_head == whole_head
    assert len(whole) > 40 and [row[0] for row in whole[4:] if len(row) == 4] == [
        "main", "what-if", "later", f"amend-{first}"]
    for i, (one, other) in enumerate(zip(followed, whole, strict=True)):
        assert one == other, i


def test_a_change_past_a_keyframe_folds_on_the_board_the_page_holds(browser: Any, tmp_path: Path) -> None:
    """300 commands in one `run` while the page is open: page.js folds them on the board it
    holds, past its keyframe at 256 events (a board kept to scrub from), and shows at the
    head, with its totals, what a page opened at the end shows: 900 - 300 = 600 hits."""
    db = tmp_path / "long.db"
    for words in (["new", "Bridge", "--rules", "ap-countdown"],
                  ["add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=900"]):
        assert run_cli(["--db", str(db), *words]) == 0
    script = tmp_path / "hits.skirmish"
    script.write_text("damage Hauser 1\n" * 300)
    with serving(str(db), options=("--for", "gm")) as served:
        tab = browser.new_page(viewport={"width": 400, "height": 900})
        tab.set_default_timeout(10000)
        tab.goto(f"http://127.0.0.1:{served.port}/")
        tab.wait_for_function("document.getElementById('live').textContent.includes('following')")
        assert run_cli(["--db", str(db), "run", str(script)]) == 0
        tab.wait_for_function("document.getElementById('position').textContent.startsWith('#302 ')")
        time.sleep(0.5)
        followed = tab.evaluate(AT_HEAD)
        tab.close()
    with serving(str(db), options=("--for", "gm")) as again:
        fresh = browser.new_page(viewport={"width": 400, "height": 900})
        fresh.goto(f"http://127.0.0.1:{again.port}/")
        fresh.wait_for_function("document.getElementById('live').textContent.includes('following')")
        whole = fresh.evaluate(AT_HEAD)
        fresh.close()
    assert "600/900" in whole[7] and "900 → 600" in whole[9]  # the board, the totals
    assert followed == whole
