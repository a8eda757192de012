"""The mutation-testing scopes of scopes.toml, read and checked, and the mutants left out of
every scope (types, and cosmic-ray's false operators); nothing here needs cosmic-ray."""

from __future__ import annotations

import ast
import re
import shlex
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = Path(__file__).resolve().with_name("scopes.toml")


@dataclass(frozen=True)
class Scope:
    """Modules to mutate and the test files, in order, that must notice."""

    name: str
    what: str
    modules: tuple[str, ...]
    tests: tuple[str, ...]
    timeout: float

    def present_tests(self, root: Path = ROOT) -> tuple[str, ...]:
        return tuple(t for t in self.tests if (root / t).is_file())

    def missing_tests(self, root: Path = ROOT) -> tuple[str, ...]:
        return tuple(t for t in self.tests if not (root / t).is_file())

    def test_command(self, python: str = sys.executable, root: Path = ROOT) -> list[str]:
        # -x: a mutant is killed by its first failing test. No random order, a fixed
        # hypothesis seed and no cache, so two runs of one mutant agree and a run leaves
        # nothing in the tree.
        return [python, "-m", "pytest", "-x", "-q", "--no-header", "-p", "no:randomly",
                "-p", "no:cacheprovider", "--hypothesis-seed=0", *self.present_tests(root)]

    def test_command_line(self, python: str = sys.executable, root: Path = ROOT) -> str:
        return shlex.join(self.test_command(python, root))


@dataclass(frozen=True)
class Config:
    scopes: dict[str, Scope]
    keep_operators: tuple[re.Pattern[str], ...]
    coming: tuple[str, ...]  # test files not written yet, which a scope may name

    def kept(self, operator: str) -> bool:
        return any(p.fullmatch(operator) for p in self.keep_operators)


def load(path: Path = CONFIG) -> Config:
    data = tomllib.loads(path.read_text())
    scopes = {
        name: Scope(name=name, what=str(table["what"]), modules=tuple(table["modules"]),
                    tests=tuple(table["tests"]), timeout=float(table["timeout"]))
        for name, table in data["scopes"].items()
    }
    return Config(scopes, tuple(re.compile(p) for p in data["operators"]["keep"]), tuple(data.get("coming", ())))


def package_dirs(root: Path = ROOT) -> dict[str, str]:
    """pyproject's package-dir: folder -> the package it installs as (eventlog -> skirmish.eventlog)."""
    project = tomllib.loads((root / "pyproject.toml").read_text())
    return {folder: package for package, folder in project["tool"]["setuptools"]["package-dir"].items()}


def module_name(path: str, root: Path = ROOT) -> str:
    """The dotted name a module file is imported by: cli/live.py -> skirmish.cli.live,
    projections/page/data.py -> skirmish.projections.page.data (a subpackage's folder below
    its package's)."""
    folder, _, file = path.rpartition("/")
    top, _, below = folder.partition("/")
    package = package_dirs(root).get(top)
    if package is None or not file.endswith(".py"):
        raise ValueError(f"{path} is in no package of pyproject's package-dir")
    inside = "".join(f".{part}" for part in below.split("/") if part)
    return f"{package}{inside}.{file.removesuffix('.py')}"


Position = tuple[int, int]  # (line from 1, column from 0), as cosmic-ray gives a mutant's start


def _spans(source: str, nodes: list[ast.expr]) -> list[tuple[Position, Position]]:
    lines = source.splitlines()

    def column(line: int, byte: int) -> int:  # ast counts UTF-8 bytes, cosmic-ray characters
        return len(lines[line - 1].encode()[:byte].decode(errors="ignore"))

    return [((n.lineno, column(n.lineno, n.col_offset)), (n.end_lineno, column(n.end_lineno, n.end_col_offset)))
            for n in nodes if n.end_lineno is not None and n.end_col_offset is not None]


def left_out(source: str) -> Callable[[Position, str], bool]:
    """Whether a mutant at this start, made by this operator, is left out: in an annotation
    (`X | None` into `X & None`: the types are mypy --strict's to check, tests/project/test_typing.py,
    and under `from __future__ import annotations` most are never evaluated), or a
    binary-operator mutant outside any binary operation (cosmic-ray takes the bare `*` of
    `def f(a, *, b)` for a multiplication, and the `**` of `{**own}` for a power)."""
    tree = ast.parse(source)
    annotations: list[ast.expr] = []
    operations: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            annotations.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            annotations.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
        elif isinstance(node, ast.BinOp):
            operations.append(node)
    typed = _spans(source, annotations)
    computed = _spans(source, operations)

    def inside(at: Position, spans: list[tuple[Position, Position]]) -> bool:
        return any(start <= at < end for start, end in spans)

    def check(at: Position, operator: str) -> bool:
        if inside(at, typed):
            return True
        return operator.startswith("core/ReplaceBinaryOperator_") and not inside(at, computed)

    return check
