"""The pages' pure functions (projections/page/fold.mjs: the fold of the view deltas, the
dice words) are tested with Node's own runner (tests/js/*.test.mjs, no npm package); this
runs them under pytest, so `python -m pytest` runs them too, and fails if any fails."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.page import data as page_data
from skirmish.projections.page.shell import json_for_script

from support.cli import Cli

pytestmark = pytest.mark.slow  # starts node

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


FOLD_TO_HEADS = """
import { readFileSync } from "node:fs";
import { readData } from "%s";
const data = JSON.parse(readFileSync(0, "utf8")), page = readData(data), out = {};
for (const b of data.branches) {
  const st = page.board(b.name);
  out[b.name] = st.o.map((k) => [st.c[k].n, st.c[k].s, st.c[k].st, st.c[k].v, st.c[k].vm]);
}
console.log(JSON.stringify(out));
"""


def test_fold_mjs_folds_a_real_fights_page_to_the_board_the_log_holds_at_each_head(cli: Cli) -> None:
    """The GM's page of the bridge ambush with a branch of its own (a hit and a heal): fold.mjs folds
    each branch's deltas to its head, and what it gets is the typed view the log holds there."""
    cli.ok("run", str(HERE.parents[1] / "samples" / "bridge-ambush.skirmish"))
    cli.ok("branch", "early", "--at", "12")
    cli.ok("switch", "early")
    cli.ok("damage", "Orc", "4")
    cli.ok("heal", "Orc", "1")
    cli.ok("switch", "main")
    store = Store(cli.db)
    try:
        enc = Encounter.open(store)
        data = page_data.build(enc)
        expected = {}
        for name, head in enc.branches().items():
            *_, (_, state) = enc.replay(head.event_id)
            view = enc.ruleset.view(state)
            expected[name] = [[c.name, c.side, c.status, c.vital.value, c.vital.maximum] for c in view.combatants]
    finally:
        store.close()
    assert len(expected) >= 3  # main, the sample's what-if, early
    node = shutil.which("node")
    assert node is not None
    script = FOLD_TO_HEADS % (HERE.parents[1] / "projections" / "page" / "fold.mjs").as_uri()
    done = subprocess.run([node, "--input-type=module", "-e", script], input=json_for_script(data), capture_output=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout) == expected
