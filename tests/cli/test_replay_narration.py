"""`skirmish replay` prints what a plain reading of the views says, however it gets there.

The replay builds a view an event and prints what changed, in batches; ap-countdown
reuses the rows of fighters an event left alone. Here the narration of real fights in
every registered ruleset is compared with a reference computed the plain way: a view
built anew for each event by a fresh ruleset object (nothing cached), every figure of
every combatant compared by label, a moment labelled by regular expression.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.app import say_all
from skirmish.eventlog.commands import AddNote, command_encoder
from skirmish.eventlog.errors import SkirmishError
from skirmish.eventlog.store import Store
from skirmish.eventlog.text import escape_controls
from skirmish.projections.write.engine import Encounter
from skirmish.projections.notes import notes_shown
from skirmish.projections.ruleset import registry
from skirmish.projections.text.board import cell
from skirmish.projections.view import Clock, Combatant, View
from skirmish.projections.text.words import event_line

from support.cli import Cli, start
from support.rulesets import support_for

RULESETS = sorted(registry())
SAMPLES = Path(__file__).resolve().parents[2] / "samples"
SCRIPT = shutil.which("skirmish", path=str(Path(sys.executable).parent)) or shutil.which("skirmish")


def reference_figures(c: Combatant) -> dict[str, Any]:
    vital, budget = c.vital.name, f"{c.budget.name} left"
    own = {name.replace("_", " "): getattr(c.own, name) for name in c.own.__struct_fields__
           if name not in type(c.own).repeats}
    return {"status": c.status, vital: c.vital.value, budget: c.budget.left,
            **{k: v for k, v in own.items() if k not in ("status", vital)}, "effects": c.effects}


def reference_label(clock: Clock) -> str:
    if clock.round == 0:
        return clock.moment or f"before the first {clock.unit}"
    numbered = f"{clock.unit} {clock.round}"
    if re.search(rf"\b{numbered}\b", clock.moment.lower()):
        return clock.moment
    return numbered + (f", {clock.moment}" if clock.moment else "")


def reference_changes(before: View, after: View) -> list[str]:
    old = {c.name: c for c in before.combatants}
    lines = []
    for c in after.combatants:
        if c.name not in old:
            continue
        was, now = reference_figures(old[c.name]), reference_figures(c)
        lines += [escape_controls(f"{c.name}: {k} {cell(was.get(k))} -> {cell(v)}") for k, v in now.items()
                  if was.get(k) != v]
    return lines


def reference(enc: Encounter, start: int | None = None) -> str:
    """The narration, each view from a ruleset object of its own (nothing carried over)."""
    def view(state: Any) -> View:
        return type(enc.ruleset)().view(state)

    notes = notes_shown(enc)
    lines: list[str] = []
    prior: View | None = None
    for rec, state in enc.replay(start=start):
        if prior is None and rec.parent is not None:
            prior = view(enc.fold_to(rec.parent)[0])
        now = view(state)
        lines.append(escape_controls(f"#{rec.id:<5} [{reference_label(now.clock)}] {event_line(enc, rec)}"))
        if prior is not None:
            lines += [" " * 9 + change for change in reference_changes(prior, now)]
        for n in notes.get(rec.id, []):
            lines.append(escape_controls(f"{' ' * 9}{'private ' if n.private else ''}note #{n.id}: {n.text}"))
        prior = now
    return "".join(line + "\n" for line in lines)


def play(store: Store, ruleset: str, commands: int, seed: int = 11) -> Encounter:
    """A fight of ``commands`` commands the ruleset's shared-suite support proposes, picked
    at random (the refused ones skipped), with a note now and then."""
    enc = start(store, ruleset, seed=seed)
    support = support_for(ruleset)
    pick = random.Random(seed)
    for i in range(commands):
        cmd = pick.choice(support.commands(enc))
        try:
            enc.execute(cmd, f"test {command_encoder.encode(cmd).decode()}")
        except SkirmishError:
            continue
        if i % 97 == 0:
            enc.execute(AddNote(event=enc.head().event_id, text=f"note {i}"), "note")
    return enc


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_replay_of_a_long_fight_is_the_plain_reading_of_its_views(ruleset: str, cli: Cli) -> None:
    store = Store(cli.db)
    try:
        enc = play(store, ruleset, 400)
        assert cli.ok("replay") == reference(enc)
        middle = enc.head().event_id // 2
        assert cli.ok("replay", "--from", str(middle)) == reference(enc, start=middle)
    finally:
        store.close()


@pytest.mark.parametrize("sample", sorted(SAMPLES.glob("*.skirmish")), ids=lambda p: p.stem)
def test_the_replay_of_each_sample_is_the_plain_reading_of_its_views(sample: Path, cli: Cli) -> None:
    cli.ok("run", str(sample))
    store = Store(cli.db)
    try:
        assert cli.ok("replay") == reference(Encounter.open(store))
    finally:
        store.close()


def test_an_ap_change_is_told_once_as_the_budget(cli: Cli) -> None:
    cli.ok("run", str(SAMPLES / "bridge-ambush.skirmish"))
    out = cli.ok("replay")
    assert re.search(r"^ +\w[\w ]*: AP left \d+ -> \d+$", out, re.M)
    assert not re.search(r": ap -?\d+ -> ", out)  # the ruleset's own copy of the budget
    columns = re.split(r"  +", cli.ok("state", "--wide").splitlines()[2])
    assert "AP left" in columns and "ap spent" in columns and "ap" not in columns
    assert '"ap": ' in cli.ok("state", "--json")  # scripts still read it


@pytest.mark.parametrize("count", [0, 1, 999, 1000, 1001, 2500])
def test_batched_output_keeps_every_line_and_the_last(count: int, capsys: pytest.CaptureFixture[str]) -> None:
    advanced: list[int] = []
    say_all((f"line {i}" for i in range(count)), advanced.append)
    assert capsys.readouterr().out == "".join(f"line {i}\n" for i in range(count))
    assert sum(advanced) == count


@pytest.mark.slow
def test_a_replay_piped_into_a_reader_that_stops_ends_quietly(tmp_path: Path) -> None:
    assert SCRIPT is not None
    db = str(tmp_path / "long.db")
    store = Store(db)
    play(store, "ap-countdown", 300)  # far more than a pipe holds
    store.close()
    run = subprocess.run(f"'{SCRIPT}' --db '{db}' replay | head -1", shell=True, capture_output=True, text=True,
                         timeout=120)
    assert run.stdout.startswith("#1 ") and run.stdout.count("\n") == 1
    assert run.stderr == ""


@pytest.mark.slow
def test_log_all_lists_each_event_once_then_the_head_moves(cli: Cli) -> None:
    """The log is written in batches too (it printed its last batch of events again under
    "head moves:")."""
    store = Store(cli.db)
    try:
        enc = play(store, "ap-countdown", 3000)  # over 1000 events, once everyone is down rounds are refused
        events = sum(1 for _ in enc.every_event())
        moves = sum(1 for _ in enc.head_moves())
    finally:
        store.close()
    lines = cli.ok("log", "--all").splitlines()
    split = lines.index("head moves:")
    listed = [line.split()[0] for line in lines[:split] if line.startswith("#")]
    assert len(listed) == len(set(listed)) == events > 1000
    assert len(lines) - split - 1 == moves and all(line.startswith("  20") for line in lines[split + 1:])
