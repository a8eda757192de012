"""No import circle in eventlog/, projections/, cli/ or benchmarks/.

Every import counts: at the top of a module, inside a function (imported late for speed)
and under ``TYPE_CHECKING`` alike, since each says one module needs the other. A circle
means neither can be read, tested or moved without the other; the engine, the audit and
the narration were once one such knot. The walk reads the source with :mod:`ast` (nothing
is imported), with the ``skirmish.`` namespace mapped onto the folders as
pyproject.toml's package-dir maps it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"eventlog": "skirmish.eventlog", "projections": "skirmish.projections", "cli": "skirmish.cli",
           "benchmarks": "benchmarks"}


def modules(root: Path, folders: Mapping[str, str]) -> dict[str, Path]:
    """Each module's dotted name -> its file (a package is its ``__init__.py``)."""
    found: dict[str, Path] = {}
    for folder, name in folders.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = path.with_suffix("").relative_to(root / folder).parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((name, *parts))] = path
    return found


def imports_of(name: str, path: Path, known: Mapping[str, Path]) -> set[str]:
    """The modules among ``known`` that the module ``name`` imports. ``from package import
    module`` needs that module (the package's ``__init__`` is run either way, as for any of
    its modules); ``from module import thing`` needs the module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    needs: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            needs.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            for alias in node.names:
                needs.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {n for n in needs if n in known and n != name}


def circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def graph_of(root: Path, folders: Mapping[str, str]) -> dict[str, set[str]]:
    known = modules(root, folders)
    return {name: imports_of(name, path, known) for name, path in known.items()}


def test_no_import_circle() -> None:
    graph = graph_of(ROOT, FOLDERS)
    assert len(graph) > 100  # the walk found the modules (a wrong root finds none, and no circle)
    assert "skirmish.projections.write.engine" in graph["skirmish.projections.text.narration"]
    found = circles(graph)
    assert not found, "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_a_circle_is_found(tmp_path: Path) -> None:
    """The walk finds a circle through a late import, a relative one and one under
    TYPE_CHECKING, and does not take ``from package import module`` for the package."""
    pkg = tmp_path / "log"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from skirmish.log import a\n")
    (pkg / "a.py").write_text("def f():\n    from skirmish.log.sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..c import C\n")
    (pkg / "c.py").write_text("from skirmish.log import a\n")
    (pkg / "d.py").write_text("from skirmish.log.sub import b\n")
    graph = graph_of(tmp_path, {"log": "skirmish.log"})
    assert graph["skirmish.log.sub.b"] == {"skirmish.log.c"}
    assert graph["skirmish.log.d"] == {"skirmish.log.sub.b"}
    assert circles(graph) == [["skirmish.log.a", "skirmish.log.c", "skirmish.log.sub.b"]]
