"""The store is eventlog's and the engine's alone: the audit, the page, the report, the writes
and the command line read an encounter through its Encounter and the file through a
LogFile (projections/write/engine.py), never the Store, its connection or its modules. So the
store's shape can change behind those two without touching any of them (STYLE 23)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Files of projections/ and cli/ that may use the store, and why.
ALLOWED = {
    "projections/write/engine.py": "the engine: it joins the store and the rulesets, and is the seam itself",
}

# eventlog modules that are the store or take one: the recorder, its file and its tables.
STORE_MODULES = {
    "skirmish.eventlog.store", "skirmish.eventlog.connection", "skirmish.eventlog.schema",
    "skirmish.eventlog.chain", "skirmish.eventlog.snapshots", "skirmish.eventlog.verifying",
}

# What may be imported from those all the same, and why: none of them is the store.
ALLOWED_NAMES = {
    ("skirmish.eventlog.connection", "DEFAULT_DB"): "the file a command opens without --db: a path",
    ("skirmish.eventlog.connection", "FILES"): "the files SQLite keeps beside a database (a refused `new` removes them)",
    ("skirmish.eventlog.connection", "file_of"): "whether a path is one of the database's files (export --out)",
}

# Attributes through which a caller would reach an object's store or its connection.
REACHING = {"store", "_store", "conn", "connection"}
# A file's own object named so that is no store's: (file, attribute) -> what it is.
NOT_A_STORE = {
    ("cli/server.py", "conn"): "uvicorn's HTTP protocol's h11 connection (is a request head in yet?)",
}


def _sources() -> list[Path]:
    return sorted(p for folder in ("projections", "cli") for p in (ROOT / folder).rglob("*.py"))


def _faults(source: str, where: str) -> list[str]:
    tree = ast.parse(source, where)
    faults = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                module, name = node.module, alias.name
                if module == "skirmish.eventlog":  # from skirmish.eventlog import store
                    module, name = f"skirmish.eventlog.{name}", "*"
                if module in STORE_MODULES and (module, name) not in ALLOWED_NAMES:
                    faults.append(f"{where}:{node.lineno}: imports {name} from {module}")
        elif isinstance(node, ast.Import):
            faults += [f"{where}:{node.lineno}: imports {alias.name}" for alias in node.names
                       if alias.name in STORE_MODULES]
        elif isinstance(node, ast.Attribute) and node.attr in REACHING and (where, node.attr) not in NOT_A_STORE:
            faults.append(f"{where}:{node.lineno}: reaches through .{node.attr}")
    return faults


@pytest.mark.slow
def test_nothing_outside_eventlog_and_the_engine_reaches_the_store() -> None:
    checked = [p for p in _sources() if p.relative_to(ROOT).as_posix() not in ALLOWED]
    assert len(checked) > 30  # the packages are where this test looks for them
    faults = [f for p in checked for f in _faults(p.read_text(encoding="utf-8"), p.relative_to(ROOT).as_posix())]
    assert faults == [], "\n".join(faults)


def test_the_check_sees_a_reach_through() -> None:
    """The check itself finds what it is for (so an empty list above means something)."""
    found = _faults(
        "from skirmish.eventlog.store import Store\n"
        "from skirmish.eventlog import verifying\n"
        "from skirmish.eventlog.connection import DEFAULT_DB\n"
        "def heads(enc):\n    return enc.store.branches(enc.row.id)\n",
        "probe.py",
    )
    assert [f.split(": ", 1)[1] for f in found] == [
        "imports Store from skirmish.eventlog.store",
        "imports * from skirmish.eventlog.verifying",
        "reaches through .store",
    ]


def test_each_allowed_file_is_there() -> None:
    for name in ALLOWED:
        assert (ROOT / name).is_file(), name
