"""The pages' pure functions (projections/page/fold.mjs: the fold of the view deltas, the
dice words) are tested with Node's own runner (tests/js/*.test.mjs, no npm package); this
runs them under pytest, so `python -m pytest` runs them too, and fails if any fails."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_the_node_tests_of_the_pages_pure_functions_pass() -> None:
    node = shutil.which("node")
    assert node is not None, "Node (v20 or later) runs the pages' unit tests: `node --test tests/js/`"
    files = sorted(HERE.glob("*.test.mjs"))
    assert files, "no Node tests found"
    done = subprocess.run([node, "--test", *map(str, files)], cwd=HERE.parents[1], capture_output=True, text=True,
                          timeout=300, check=False)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    assert "# fail 0" in report and "# pass 0" not in report, report


def test_every_script_the_pages_load_is_shipped_with_the_package() -> None:
    """pip installs only the package data pyproject names: the module both pages load too."""
    import fnmatch
    import tomllib

    root = HERE.parents[1]
    globs = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["skirmish.projections.page"]
    for script in sorted((root / "projections" / "page").glob("*.*js")):
        assert any(fnmatch.fnmatch(script.name, g) for g in globs), script.name
