"""`export --out`: never over the database it reads (nor its -wal, -shm or -journal), written
whole or not at all, nothing left behind by a failure, Ctrl-C or a kill (issue 13, item 4)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from support.cli import Cli
from support.fight import cli_fight


fight = partial(cli_fight, then=[("damage", "Orc", "4")])


def left_behind(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


# The database as --out names it: itself, its companions SQLite writes beside it, and the same
# file by another spelling or through a link.
SPELLINGS = {
    "itself": lambda db: db,
    "wal": lambda db: db + "-wal",
    "shm": lambda db: db + "-shm",
    "journal": lambda db: db + "-journal",
    "another spelling": lambda db: str(Path(db).parent / "." / ".." / Path(db).parent.name / Path(db).name),
}
WHAT = {"itself": "the database", "another spelling": "the database", "wal": "the database's write-ahead log",
        "shm": "the database's shared-memory index", "journal": "the database's rollback journal"}


@pytest.mark.parametrize("fmt", ["jsonl", "md", "html"])
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_export_refuses_to_write_over_its_database(cli: Cli, fmt: str, spelling: str) -> None:
    fight(cli)
    digest = cli.ok("verify")
    out = SPELLINGS[spelling](cli.db)
    assert cli.fails("export", "--format", fmt, "--out", out) == (
        f"Error: --out {out} is {WHAT[spelling]} ({cli.db}): write the export to another file"
    )
    assert cli.code == 2
    assert cli.ok("verify") == digest
    assert left_behind(Path(cli.db).parent) == []


def test_export_refuses_the_database_through_a_link_either_way(cli: Cli, tmp_path: Path) -> None:
    fight(cli)
    link = tmp_path / "link.db"
    link.symlink_to(cli.db)
    assert cli.fails("export", "--format", "md", "--out", str(link)).startswith(f"Error: --out {link} is the database")
    through = Cli(str(link), cli.capsys)
    assert through.fails("export", "--out", cli.db).startswith(f"Error: --out {cli.db} is the database")
    assert through.fails("export", "--out", cli.db + "-wal").startswith(f"Error: --out {cli.db}-wal is the database's")
    hard = tmp_path / "hard.db"
    os.link(cli.db, hard)
    assert cli.fails("export", "--out", str(hard)).startswith(f"Error: --out {hard} is the database")
    cli.ok("verify")


def test_export_to_a_folder_or_nowhere_is_one_line(cli: Cli, tmp_path: Path) -> None:
    fight(cli)
    (tmp_path / "reports").mkdir()
    assert cli.fails("export", "--out", str(tmp_path / "reports")) == (
        f"Error: cannot write {tmp_path / 'reports'}: Is a directory"
    )
    assert cli.code == 2
    assert cli.fails("export", "--out", str(tmp_path / "missing" / "x.jsonl")) == (
        f"Error: cannot write {tmp_path / 'missing' / 'x.jsonl'}: No such file or directory"
    )
    assert left_behind(tmp_path) == [] and left_behind(tmp_path / "reports") == []


def test_an_interrupted_export_leaves_the_old_file_as_it_was_and_no_temp_file(tmp_path: Path) -> None:
    from skirmish.cli.reports import _write
    from skirmish.eventlog.errors import BadInput

    out = tmp_path / "fight.jsonl"
    out.write_text("the export of last week\n")

    def chunks(stop: BaseException) -> Iterator[bytes]:
        yield b"half of "
        raise stop

    for stop, raised, message in (
        (KeyboardInterrupt(), KeyboardInterrupt, ""),
        (OSError(28, "No space left on device"), BadInput, f"cannot write {out}: No space left on device"),
        (RuntimeError("a bug"), RuntimeError, "a bug"),
    ):
        with pytest.raises(raised) as info:
            _write(chunks(stop), out)
        assert str(info.value) == message
        assert out.read_text() == "the export of last week\n"
        assert left_behind(tmp_path) == []


@pytest.mark.slow
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_killed_export_leaves_no_temp_file(tmp_path: Path, how: signal.Signals) -> None:
    """A real process, stopped while it writes (`kill`, Ctrl-C, the terminal closed)."""
    out = tmp_path / "fight.md"
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from skirmish.cli.reports import _write\n"
        "def chunks():\n"
        "    yield b'# half a report\\n'\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(60)\n"
        "    yield b'never'\n"
        f"_write(chunks(), Path({str(out)!r}))\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
        assert len(left_behind(tmp_path)) == 1  # the temp file, being written
        proc.send_signal(how)
        proc.wait(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode != 0
    assert left_behind(tmp_path) == [] and not out.exists()
