"""Every audit and report command works on each sample fight, so under every ruleset.

The samples between them cover every built-in ruleset (a test checks it); each is played
through the CLI, then explained event by event, asked why, diffed, amended with its own
commands, exported and imported, and reported in Markdown and HTML.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from skirmish.projections.ruleset import BUILT_IN

from support.cli import Cli

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.skirmish"))


def played(cli: Cli, sample: Path) -> dict[str, object]:
    cli.ok("run", str(sample))
    view: dict[str, object] = json.loads(cli.ok("state", "--json"))
    return view


def test_the_samples_cover_every_built_in_ruleset(cli: Cli, tmp_path: Path) -> None:
    covered = set()
    for n, sample in enumerate(SAMPLES):
        each = Cli(str(tmp_path / f"{n}.db"), cli.capsys)
        covered.add(played(each, sample)["ruleset"])
    assert covered == set(BUILT_IN)


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.stem for s in SAMPLES])
def test_explain_why_and_diff_on_a_sample(cli: Cli, sample: Path) -> None:
    view = played(cli, sample)
    events = [json.loads(line) for line in cli.ok("log", "--json").splitlines()]
    for event in events:
        explained = json.loads(cli.ok("explain", str(event["id"]), "--json"))
        assert explained["event"] == event["id"] and explained["ruleset"] == view["ruleset"]
    # Some event of every fight carries numbers with their derivations.
    assert any(
        json.loads(cli.ok("explain", str(e["id"]), "--json"))["numbers"] for e in events[1:]
    )
    for fighter in view["combatants"]:  # type: ignore[attr-defined]
        assert cli.ok("why", fighter["name"]).startswith(fighter["name"])
    branches = [b["name"] for b in json.loads(cli.ok("branches", "--json"))]
    assert len(branches) >= 2, "each sample plays a what-if branch"
    other = next(b for b in branches if b != "main")
    assert " split after #" in cli.ok("diff", "main", other)


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.stem for s in SAMPLES])
def test_amending_the_last_command_with_itself_changes_nothing(cli: Cli, sample: Path) -> None:
    played(cli, sample)
    last = json.loads(cli.ok("log", "--json").splitlines()[-1])
    command = json.loads(cli.ok("explain", str(last["id"]), "--json"))["command"]
    cli.ok("amend", str(last["id"]), "--branch", "again", "--", *shlex.split(command))
    diff = json.loads(cli.ok("diff", "main", "again", "--json"))
    assert (diff["scene"], diff["combatants"]) == ([], [])


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.stem for s in SAMPLES])
def test_export_import_and_reports_of_a_sample(cli: Cli, sample: Path, tmp_path: Path) -> None:
    view = played(cli, sample)
    digest = cli.ok("verify").split()[-1]
    out = tmp_path / "fight.jsonl"
    cli.ok("export", "--format", "jsonl", "--out", str(out))
    copy = Cli(str(tmp_path / "copy.db"), cli.capsys)
    copy.ok("import", str(out))
    assert copy.ok("verify").split()[-1] == digest
    assert json.loads(copy.ok("state", "--json")) == view
    for fmt in ("md", "html"):
        report = cli.ok("export", "--format", fmt)
        for fighter in view["combatants"]:  # type: ignore[attr-defined]
            assert fighter["name"] in report
    assert '<script type="application/json" id="replay-data">' in cli.ok("export", "--format", "html")
