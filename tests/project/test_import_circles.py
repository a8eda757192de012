"""No import circle among the command line's modules (skirmish.cli) and the one door
(skirmish.projections.door): read from the source with an AST walk, the ``skirmish.``
namespace mapped to the folders as pyproject maps it, every import counted, at the top of a
module or inside a function alike (a circle broken by a late import is still a circle)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"skirmish.eventlog": "eventlog", "skirmish.projections": "projections", "skirmish.cli": "cli"}
CHECKED = ("skirmish.cli", "skirmish.projections.door")


def modules() -> dict[str, Path]:
    found = {}
    for package, folder in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            name = ".".join((package, *parts))
            found[name.removesuffix(".__init__")] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or node.level):
            base = node.module or ""
            if node.level:  # relative: from the module's package, `level` steps up
                base = ".".join([*name.split(".")[:-node.level], *([node.module] if node.module else [])])
            out |= {base, *(f"{base}.{alias.name}" for alias in node.names)}
    return {each for each in out if each in known and each != name}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                on.discard(top)
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def graph_of(found: dict[str, Path]) -> dict[str, set[str]]:
    known = set(found)
    return {name: imports_of(name, path, known) for name, path in found.items()}


def test_the_command_line_and_the_door_have_no_import_circle() -> None:
    found = modules()
    assert "skirmish.cli.main" in found and "skirmish.projections.door.words" in found
    graph = graph_of(found)
    touching = [c for c in circles(graph) if any(m.startswith(CHECKED) for m in c)]
    assert touching == []


def test_the_walk_finds_a_circle_through_a_late_import(tmp_path: Path) -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    late = tmp_path / "late.py"
    late.write_text("def f():\n    from skirmish.cli import main\n    from . import table\n")
    known = {"skirmish.cli.main", "skirmish.cli.table", "skirmish.cli"}
    assert imports_of("skirmish.cli.late", late, known) == known
