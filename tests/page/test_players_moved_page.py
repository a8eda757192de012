"""The players' page in Chromium follows a switch tapped on the GM's page, to another
branch and to an amend's, as a change (what the page keeps and the new path's events),
and then shows at every event what a page opened at the end shows."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.main import run_cli
from skirmish.projections.write.engine import LogFile

from test_gm_server import post
from test_gm_stream_page import SHOWN
from test_live_slips import serving
from test_players_policy import FIGHTS, fought  # noqa: F401 - fought: a fixture

pytestmark = pytest.mark.slow  # Chromium and a live server


def token_of(served: Any) -> str:
    """The secret of the GM's link `serve` printed."""
    deadline = time.monotonic() + 10
    while not (found := re.search(r"GM's page: http://\S+#(\S+)", served.said.read_text())):
        assert time.monotonic() < deadline, served.said.read_text()
        time.sleep(0.05)
    return found.group(1)


def head_of(db: Path, branch: str) -> int:
    with LogFile(str(db)) as log_file:
        return log_file.open("Bridge", branch).head().event_id


def test_the_players_page_follows_a_tapped_switch_as_a_change(browser: Any, fought: dict[str, Path], tmp_path: Path) -> None:
    fight = FIGHTS[0]  # ap-countdown: main, and what-if from #7 where the Orc takes 29
    db = tmp_path / "fight.db"
    shutil.copy(fought[fight.ruleset], db)
    with serving(str(db)) as served:
        token = token_of(served)
        stream = served.stream()
        tab = browser.new_page(viewport={"width": 400, "height": 900})
        tab.set_default_timeout(5000)
        tab.goto(f"http://127.0.0.1:{served.port}/")
        tab.wait_for_function("document.getElementById('live').textContent.includes('following')")
        main_head = head_of(db, "main")
        status, reply = post(served, token, ["switch", "what-if"], head=main_head)
        assert status == 200 and isinstance(reply, dict) and reply["code"] == 0, reply
        tab.wait_for_function(f"document.getElementById('position').textContent.startsWith('#{head_of(db, 'what-if')} ')")
        assert "Orc takes 29 hits" not in tab.inner_text("#narration")  # the players see the Orc's band, not its hits
        status, reply = post(served, token, ["switch", "main"], head=head_of(db, "what-if"), branch="what-if")
        assert isinstance(reply, dict) and reply["code"] == 0, reply
        assert run_cli(["--db", str(db), "amend", "8", "--", "note", "2", "no blow yet"]) == 0
        status, reply = post(served, token, ["switch", "amend-8"], head=main_head)
        assert isinstance(reply, dict) and reply["code"] == 0, reply
        tab.wait_for_function(f"document.getElementById('position').textContent.startsWith('#{head_of(db, 'amend-8')} ')")
        time.sleep(1.0)
        assert len(stream.kinds()) >= 2 and set(stream.kinds()) == {"more"}, stream.kinds()  # none the whole page
        followed = tab.evaluate(SHOWN)
        tab.close()
    # The page opened at the end, from a server started now on the amend's branch: built whole.
    with serving(str(db), "--on", "amend-8") as again:
        fresh = browser.new_page(viewport={"width": 400, "height": 900})
        fresh.goto(f"http://127.0.0.1:{again.port}/")
        fresh.wait_for_function("document.getElementById('live').textContent.includes('following')")
        whole = fresh.evaluate(SHOWN)
        fresh.close()
    assert followed[3] == ["amend-8: amend-8 (current)"]
    for i, (one, other) in enumerate(zip(followed, whole, strict=True)):
        assert one == other, i
