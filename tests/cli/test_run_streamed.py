"""A long `run` script does not hold the table: it is read a line at a time (memory flat in
its length), it is all or nothing through its transaction, and while it holds the file's
write lock another writer is answered at once, naming it (eventlog/marker.py); a marker
left by a process that is gone blocks nobody."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import IO

import pytest

from skirmish.cli.main import run_cli
from skirmish.eventlog.commands import AddCombatant
from skirmish.eventlog.store import Store

from support.cli import Cli, start

SKIRMISH = Path(sys.executable).with_name("skirmish")


def prepare(path: str) -> None:
    """Orc (ap-countdown, 40 hits) at event 2, on the file's one encounter."""
    store = Store(path)
    try:
        start(store).execute(AddCombatant(name="Orc", stats={"qu": "1", "hits": "40"}), "add Orc")
    finally:
        store.close()


def marks(path: str) -> tuple[int, ...]:
    store = Store(path, create=False)
    try:
        return store.last_ids()
    finally:
        store.close()


def traced_peak(db: str, script: Path) -> int:
    """The most memory Python held while `run` played ``script`` (bytes above the start)."""
    tracemalloc.start()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            assert run_cli(["--db", db, "run", str(script)]) == 0
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_memory_stays_flat_however_long_the_script(tmp_path: Path) -> None:
    """The script used to be read whole and split into a list of lines before the first ran:
    50,000 lines (5 MB) held about 13 MB more than 1,000. Now a line is read, run and
    dropped: the peak is that of a short script."""

    def script(lines: int) -> Path:
        path = tmp_path / f"long-{lines}.skirmish"
        with path.open("w", encoding="utf-8") as out:
            out.write("new Flat --rules ap-countdown --seed 1\nadd Hauser --stat qu=1 --stat hits=40\n")
            for i in range(lines):
                out.write(f"# {i:07d} {'x' * 90}\n")
                if i % 1000 == 0:
                    out.write("roll d6 --roll 3\n")  # a line recorded now and then, all the way down
        return path

    traced_peak(str(tmp_path / "warm.db"), script(10))  # imports and caches, made once a process
    short = traced_peak(str(tmp_path / "short.db"), script(1_000))
    long = traced_peak(str(tmp_path / "long.db"), script(50_000))
    assert long - short < 512 * 1024, (short, long)


def test_a_refused_line_deep_in_the_script_rolls_back_every_line_before_it(cli: Cli, tmp_path: Path) -> None:
    """Nothing is checked ahead: line 303 is refused once lines 1 to 302 have run (and printed
    what they recorded), and none of them is left, not even the encounter they made."""
    path = tmp_path / "deep.skirmish"
    lines = ["new Deep --rules ap-countdown --seed 3", "add Hauser --stat qu=1 --stat hits=40"]
    lines += [f"note 2 'note {i}'" for i in range(300)]
    lines.append("damage Nobody 1")
    lines.append("note 2 'never reached'")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cli("run", str(path))
    assert cli.code == 1
    assert cli.err.splitlines()[0].startswith(f"Error: {path}:303: no combatant named 'Nobody'"), cli.err
    out = cli.out.splitlines()
    assert "> note 2 'note 299'" in out and "never reached" not in cli.out
    assert out[-1] == f"Nothing of {path} was recorded: fix line 303 and run it again"
    assert not Path(cli.db).exists()  # the file the script would have made is not left behind


def test_a_line_that_cannot_be_read_rolls_back_a_file_that_was_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An open quote, a `serve`, a `--db` in a line: refused where the script reaches them,
    with everything the script recorded before, on a file that held a fight already."""
    db = str(tmp_path / "fight.db")
    prepare(db)
    before = marks(db)
    cli = Cli(db, capsys)
    for bad, said in (("note 2 'open", "a quote is not closed"), ("serve", "`serve` cannot run in a script"),
                      ("state --db other.db", "--db goes on the `run` command")):
        path = tmp_path / "bad.skirmish"
        path.write_text(f"damage Orc 2\nnew Second --rules modular\n# then\n{bad}\n", encoding="utf-8")
        assert cli.fails("run", str(path)).startswith(f"Error: {path}:4: {said}")
        assert cli.code == 2
        assert cli.out.splitlines()[-1] == f"Nothing of {path} was recorded: fix line 4 and run it again"
        assert marks(db) == before
    assert "Second" not in cli.ok("encounters")
    assert not list(tmp_path.glob("*-script"))


def _read_until(stream: IO[str], wanted: str, seconds: float = 60) -> list[str]:
    """Lines of ``stream`` up to the first that holds ``wanted``."""
    got: list[str] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        got.append(line.rstrip("\n"))
        if wanted in line:
            return got
    raise AssertionError(f"{wanted!r} never came: {got}")


@pytest.mark.slow
def test_another_writer_is_answered_at_once_naming_the_script(tmp_path: Path) -> None:
    """The script is a pipe the test writes a line at a time: each line runs before the next
    one exists (the script is streamed), and between two lines the script holds the write
    lock, waiting. Another writer used to wait out the busy timeout (10 s) and fail with
    "database is locked"; it is answered at once, in one line naming the script, the line
    it is at and its pid, exit 3, and nothing of it is recorded. Once the script ends, the
    writer's command goes in."""
    db = str(tmp_path / "fight.db")
    prepare(db)
    pipe = tmp_path / "live.skirmish"
    os.mkfifo(pipe)
    script = subprocess.Popen([SKIRMISH, "--db", db, "run", str(pipe)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        with pipe.open("w", encoding="utf-8") as feed:
            assert script.stdout is not None
            feed.write("damage Orc 2\n")
            feed.flush()
            assert _read_until(script.stdout, "Orc takes 2")[0] == "> damage Orc 2"
            time.sleep(0.3)  # past the marker's rewrite interval: it names the line read next
            feed.write("note 2 'the script holds the table'\n")
            feed.flush()
            _read_until(script.stdout, "the script holds the table")
            marker = json.loads(Path(db + "-script").read_text(encoding="utf-8"))
            assert (marker["pid"], marker["line"], marker["lines"]) == (script.pid, 2, None)

            began = time.monotonic()
            other = subprocess.run([SKIRMISH, "--db", db, "damage", "Orc", "5"], capture_output=True,
                                   text=True, timeout=60)
            waited = time.monotonic() - began
            assert other.returncode == 3, other.stderr
            said = other.stderr.splitlines()
            assert len(said) == 1, other.stderr
            assert re.fullmatch(
                rf"Error: a script \({re.escape(str(pipe))}, line 2, pid {script.pid}, started \d\d:\d\d:\d\d\) "
                rf"holds {re.escape(db)}'s write lock until it ends: nothing was recorded; try again then",
                said[0],
            ), said[0]
            assert waited < 5, f"answered after {waited:.1f} s"  # a process's start; the busy timeout is 10 s
            feed.write("damage Orc 3\n")
        assert script.wait(timeout=60) == 0, script.stderr.read() if script.stderr else ""
    finally:
        if script.poll() is None:
            script.kill()
            script.wait()
    assert not Path(db + "-script").exists()
    again = subprocess.run([SKIRMISH, "--db", db, "damage", "Orc", "5"], capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr
    assert "(30 left)" in again.stdout  # 40 - 2 - 3 (the script) - 5


def _gone_pid() -> int:
    """The pid of a process that has ended."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    return int(done.stdout)


@pytest.mark.slow
def test_a_stale_marker_blocks_nobody(tmp_path: Path) -> None:
    """A marker left by a script killed outright (SIGKILL: no cleanup ran) names a process
    that is gone: a writer goes in at once, and the next script replaces the marker and
    removes it as it ends. A marker of a live process that holds no lock (its pid reused)
    is no reason to refuse either: the writer tries the lock before it answers."""
    db = str(tmp_path / "fight.db")
    prepare(db)
    marker = Path(db + "-script")
    for pid in (_gone_pid(), os.getpid()):  # gone; alive, holding nothing
        marker.write_text(json.dumps({"pid": pid, "script": "/elsewhere/old.skirmish", "started": "2026-01-01T10:00:00",
                                      "line": 7, "lines": 9}), encoding="utf-8")
        began = time.monotonic()
        done = subprocess.run([SKIRMISH, "--db", db, "damage", "Orc", "1"], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert time.monotonic() - began < 5
        assert marker.exists()  # a writer leaves another's marker be
    marker.write_text(json.dumps({"pid": _gone_pid(), "script": "/elsewhere/old.skirmish",
                                  "started": "2026-01-01T10:00:00", "line": 7, "lines": 9}), encoding="utf-8")
    script = tmp_path / "next.skirmish"
    script.write_text("damage Orc 1\n", encoding="utf-8")
    done = subprocess.run([SKIRMISH, "--db", db, "run", str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "(37 left)" in done.stdout
    assert not marker.exists()
