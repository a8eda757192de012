"""A log in a place skirmish cannot write (an archive, a read-only mount, another user's file)
is read by every command that only reads: state, log, replay, explain, verify, export and
serve. A command that would record says, in one line, that the file is read-only.

How the place is made read-only, so the test means something whoever runs it: as a user,
the file and its folder lose their write bits (chmod). As root, chmod stops nothing (root
writes anyway, and os.access says so), so the commands run in a private mount namespace
(`unshare -rm`) where the folder is bind-mounted read-only: the kernel refuses every
write there, root's included (EROFS), as on a read-only disk.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from skirmish.eventlog.commands import AddCombatant, Damage
from skirmish.eventlog.store import Store

from support.cli import start
from support.served import free_port

pytestmark = pytest.mark.slow  # every test starts a process: `pytest -m "not slow"` leaves it out

SKIRMISH = str(Path(sys.executable).with_name("skirmish"))

# Run inside the read-only place: each command as its own process, then the live page
# fetched once; one JSON line of [args, exit code, stdout, stderr] each.
DRIVER = """
import json, subprocess, sys, time, urllib.request
skirmish, db, out, port = sys.argv[1:5]
results = []
for args in (["state"], ["log"], ["replay"], ["explain", "4"], ["verify"],
             ["export", "--out", out + "/fight.jsonl"], ["export", "--format", "html", "--out", out + "/fight.html"],
             ["note", "1", "written?"]):
    done = subprocess.run([skirmish, "--db", db, *args], capture_output=True, text=True, timeout=120)
    results.append([args, done.returncode, done.stdout, done.stderr])
server = subprocess.Popen([skirmish, "--db", db, "serve", "--port", port], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
page = ""
try:
    for _ in range(400):
        try:
            with urllib.request.urlopen("http://127.0.0.1:" + port + "/", timeout=5) as got:
                page = got.read().decode()
            break
        except OSError:
            time.sleep(0.05)
finally:
    server.terminate()
    _, err = server.communicate(timeout=30)
results.append([["serve"], 0 if page else 1, page, err])
print(json.dumps(results))
"""


def in_read_only_place(folder: Path, out: Path, db: Path) -> list[list[object]]:
    args = [sys.executable, "-c", DRIVER, SKIRMISH, str(db), str(out), str(free_port())]
    if os.geteuid() == 0:
        unshare = shutil.which("unshare")
        assert unshare, "as root the test needs unshare(1) to mount the folder read-only"
        mount = f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && exec \"$@\""
        args = [unshare, "-rm", "sh", "-c", mount, "sh", *args]
        probe = subprocess.run([unshare, "-rm", "sh", "-c", mount + " ", "sh", "touch", str(folder / "probe")],
                               capture_output=True, text=True)
        assert probe.returncode != 0 and "Read-only file system" in probe.stderr, probe.stderr
    else:
        os.chmod(db, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR)
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=600)
    finally:
        os.chmod(folder, stat.S_IRWXU)
    assert done.returncode == 0, done.stderr
    results: list[list[object]] = json.loads(done.stdout)
    return results


def test_a_log_in_a_read_only_place_is_read_verified_exported_and_served(tmp_path: Path) -> None:
    """Before, every command failed "unable to open database file": SQLite could not make the
    -wal and -shm it reads a WAL file through beside a file in a read-only folder."""
    folder, out = tmp_path / "archive", tmp_path / "out"
    folder.mkdir()
    out.mkdir()
    db = folder / "fight.db"
    store = Store(str(db))
    enc = start(store)
    for name in ("Hauser", "Orc"):
        enc.execute(AddCombatant(name=name, stats={"qu": "1", "hits": "40"}), f"add {name}")
    enc.execute(Damage(who="Orc", amount=5), "damage Orc 5")
    digest = store.verify(enc.row.id)
    store.close()
    assert sorted(p.name for p in folder.iterdir()) == ["fight.db"]  # closed: no -wal, no -shm
    before = db.read_bytes()

    results = {" ".join(r[0]): r[1:] for r in in_read_only_place(folder, out, db)}  # type: ignore[arg-type]
    for command in ("state", "log", "replay", "explain 4", "verify"):
        code, stdout, stderr = results[command]
        assert code == 0, (command, stderr)
    assert "35" in results["state"][1]  # Orc: 40 hits, 5 taken (worked by hand)
    assert results["verify"][1] == f"intact: 'Test fight', digest {digest}\n"
    assert results["export --out " + str(out / "fight.jsonl")][0] == 0
    assert results["export --format html --out " + str(out / "fight.html")][0] == 0
    assert (out / "fight.jsonl").read_text().count("\n") > 5
    assert "<title>Test fight: replay</title>" in str(results["serve"][1])
    code, _, stderr = results["note 1 written?"]
    assert code == 5
    assert stderr.startswith(f"Error: {db} cannot be written: attempt to write a readonly database "
                             "(the file (or its folder) is read-only)"), stderr
    assert db.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["fight.db"]
