"""A small ap-countdown fight played through the command line and exported: the import
tests' source (tests/log/test_import_*.py), each adding the lines its rows need."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

# An undo and a branch: links that jump.
OPENING: tuple[list[str], ...] = (
    ["new", "Bridge ambush", "--rules", "ap-countdown", "--seed", "5"],
    ["add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40"],
    ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30"],
    ["round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5"],
    ["damage", "Orc", "4"], ["undo"], ["damage", "Orc", "5"], ["branch", "what-if", "--at", "3"],
)


def exported_fight(folder: Path, then: Sequence[list[str]]) -> Path:
    """Play the opening and ``then`` into a new file in ``folder``; its jsonl export's path."""
    from skirmish.cli.main import run_cli

    db = str(folder / "fight.db")
    for line in (*OPENING, *then):
        assert run_cli(["--db", db, *line]) == 0, line
    out = Path(db).with_name("fight.jsonl")
    assert run_cli(["--db", db, "export", "--out", str(out)]) == 0
    return out
