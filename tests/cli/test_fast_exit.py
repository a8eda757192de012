"""How the console script's fast path ends a command (cli/fast.py `end`): without the
interpreter's teardown, yet with everything a usual exit leaves behind. The file alone holds
what the command printed (closed, checkpointed, no -wal beside it), the output is whole
through a pipe and into a file, atexit handlers run, the exit code is the command's, and a
thread still running is waited for as at a usual exit."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from test_fast_path import TABLE, set_up  # noqa: E402

pytestmark = pytest.mark.slow  # every test starts a process: `pytest -m "not slow"` leaves it out

FAST = "from skirmish.cli.fast import main\nmain()"


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("SKIRMISH_", "_SKIRMISH", "_TYPER"))}


@pytest.fixture
def table(tmp_path: Path) -> Path:
    folder = tmp_path / "table"
    folder.mkdir()
    set_up(folder, *TABLE)
    for suffix in ("-wal", "-shm"):  # the set-up ran in this process, closed: nothing beside it
        assert not (folder / f"t.db{suffix}").exists()
    return folder


def _last_event(db: Path) -> tuple[int, str]:
    con = sqlite3.connect(db)
    try:
        row = con.execute("SELECT id, kind FROM events ORDER BY id DESC LIMIT 1").fetchone()
        return int(row[0]), str(row[1])
    finally:
        con.close()


@pytest.mark.parametrize("words", [["next"], ["declare", "Hauser", "melee-attack", "--ap", "3"], ["undo"]])
def test_the_file_alone_holds_what_a_write_printed(table: Path, tmp_path: Path, words: list[str]) -> None:
    """A write through the fast path closes the file before the process ends: no -wal or
    -shm is left beside it, and a copy of the .db file alone holds the command (the event
    it printed is the copy's last one, or, for undo, its head move)."""
    ran = subprocess.run([sys.executable, "-c", FAST, "--db", "t.db", *words], cwd=table, env=_env(),
                         capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert sorted(p.name for p in table.iterdir()) == ["t.db"]
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copyfile(table / "t.db", alone / "t.db")
    if words[0] == "undo":
        con = sqlite3.connect(alone / "t.db")
        try:
            (reason,) = con.execute("SELECT reason FROM head_moves ORDER BY id DESC LIMIT 1").fetchone()
        finally:
            con.close()
        assert reason == "undo"
        return
    printed = int(re.match(r"#(\d+) ", ran.stdout).group(1))  # type: ignore[union-attr]
    assert _last_event(alone / "t.db")[0] == printed


def test_output_into_a_file_is_whole_and_the_code_is_the_commands(table: Path, tmp_path: Path) -> None:
    """Into a file (block-buffered, not a terminal) the reply is all there; a refusal's exit
    code and its one line on stderr too; atexit handlers registered before main() run."""
    out, err, mark = tmp_path / "out.txt", tmp_path / "err.txt", tmp_path / "mark.txt"
    code = (f"import atexit\natexit.register(lambda: open({str(mark)!r}, 'w').write('ran'))\n" + FAST)
    with out.open("w") as o, err.open("w") as e:
        ok = subprocess.run([sys.executable, "-c", code, "--db", "t.db", "state"], cwd=table, env=_env(),
                            stdout=o, stderr=e)
    assert ok.returncode == 0
    assert out.read_text().startswith("Fight (ap-countdown), branch main")
    assert mark.read_text() == "ran"
    with out.open("w") as o, err.open("w") as e:
        refused = subprocess.run([sys.executable, "-c", FAST, "--db", "t.db", "declare", "Nobody", "melee-attack",
                                  "--ap", "3"], cwd=table, env=_env(), stdout=o, stderr=e)
    assert refused.returncode == 1  # UnknownCombatant: SkirmishError's exit code (eventlog/errors.py)
    assert err.read_text().startswith("Error: ") and err.read_text().count("\n") == 1
    assert sorted(p.name for p in table.iterdir()) == ["t.db"]


def test_a_thread_still_running_is_waited_for(tmp_path: Path) -> None:
    """`end` with another thread running exits as Python usually does: it waits for the
    thread, whose work is not cut short."""
    done = tmp_path / "done.txt"
    code = ("import threading, time\n"
            f"def work():\n    time.sleep(0.3)\n    open({str(done)!r}, 'w').write('done')\n"
            "threading.Thread(target=work).start()\n"
            "from skirmish.cli.fast import end\nend(3)")
    ran = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True)
    assert ran.returncode == 3, ran.stderr
    assert done.read_text() == "done"
