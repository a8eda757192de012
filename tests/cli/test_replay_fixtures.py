"""`skirmish replay` prints, byte for byte, what it printed when it built a whole view an event.

The expected texts (tests/fixtures/replays, written once by tests/fixtures/make_replays.py
with a skirmish installed from main before the narration read the rulesets' glances) are
of every sample and of a generated ap-countdown fight, whole and from a later event. Then
the narration's own reference path (``replay_text(..., whole=True)``: a whole view an
event, every row compared) against the fast one, on fights hypothesis makes in every
registered ruleset, from the start and from an event in the middle.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.fight import generate

from skirmish.eventlog.commands import AddNote, command_encoder
from skirmish.eventlog.errors import SkirmishError
from skirmish.eventlog.store import Store
from skirmish.eventlog.events import Event
from skirmish.projections.write.engine import Encounter, LogFile
from skirmish.projections.notes import notes_shown
from skirmish.projections.ruleset import registry
from skirmish.projections.rulesets.ap_countdown import view as ap_view
from skirmish.projections.rulesets.ap_countdown.events import DamageTaken, RoundEnded, RoundStarted
from skirmish.projections.text.board import combatant_changes, figures
from skirmish.projections.text.narration import INDENT, _change_lines, replay_text
from skirmish.projections.view import Combatant

from support.cli import Cli, start
from support.examples import examples
from support.rulesets import support_for

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
REPLAYS = FIXTURES / "replays"
SAMPLES = sorted((ROOT / "samples").glob("*.skirmish"))
RULESETS = sorted(registry())


def expected(name: str) -> str:
    return (REPLAYS / name).read_bytes().decode()


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_the_replay_of_each_sample_prints_what_it_printed_before(sample: Path, cli: Cli) -> None:
    cli.ok("run", str(sample))
    assert cli.ok("replay") == expected(f"{sample.stem}.txt")


def test_the_replay_of_a_generated_fight_prints_what_it_printed_before(cli: Cli) -> None:
    sys.path.insert(0, str(FIXTURES))
    try:
        import make_replays
    finally:
        sys.path.remove(str(FIXTURES))
    make_replays.fight(cli.db)
    assert cli.ok("replay") == expected("fight.txt")
    assert cli.ok("replay", "--from", str(make_replays.FIGHT_FROM)) == expected("fight-from.txt")


def played(store: Store, ruleset: str, seed: int, commands: int) -> Encounter:
    """A fight of ``commands`` commands the ruleset's shared-suite support proposes, picked
    at random from ``seed`` (the refused ones skipped), a note now and then."""
    enc = start(store, ruleset, seed=seed)
    support = support_for(ruleset)
    pick = random.Random(seed)
    for i in range(commands):
        cmd = pick.choice(support.commands(enc))
        try:
            enc.execute(cmd, f"test {command_encoder.encode(cmd).decode()}")
        except SkirmishError:
            continue
        if i % 23 == 0:
            enc.execute(AddNote(event=enc.head().event_id, text=f"note {i}"), "note")
    return enc


@pytest.mark.parametrize("ruleset", RULESETS)
@settings(max_examples=examples(12))
@given(seed=st.integers(0, 10_000), commands=st.integers(1, 120), at=st.floats(0, 1))
def test_the_fast_narration_is_the_whole_views_reading(ruleset: str, seed: int, commands: int, at: float) -> None:
    store = Store(":memory:")
    try:
        enc = played(store, ruleset, seed, commands)
        notes = notes_shown(enc)
        assert list(replay_text(enc, notes)) == list(replay_text(enc, notes, whole=True))
        path = [link.id for link in enc.links(enc.head().event_id)]
        middle = path[int(at * (len(path) - 1))]
        assert list(replay_text(enc, notes, start=middle)) == list(replay_text(enc, notes, start=middle, whole=True))
    finally:
        store.close()


def glance_is_the_view(enc: Encounter, told: bool) -> None:
    """The contract (projections/ruleset.py ``glance``, ``acting_order``): at every state
    of the encounter's replay, the glance's moment and rows are the view's, figure for
    figure, and the acting order its. ``told``: each glance is told the event since the
    last (as the narration tells it), so it may read again only what that event changes."""
    ruleset = enc.ruleset
    fresh = type(ruleset)()  # a view from a ruleset object of its own: nothing cached
    for rec, state in enc.replay():
        view, glance = fresh.view(state), ruleset.glance(state, rec.event) if told else ruleset.glance(state)
        assert (glance.clock.round, glance.clock.unit, glance.clock.moment) == (
            view.clock.round, view.clock.unit, view.clock.moment), rec
        rows = {c.name: figures(c) for c in glance.combatants}
        assert rows == {c.name: figures(c) for c in view.combatants}, rec
        assert list(rows) == [c.name for c in view.combatants] or not glance.ordered
        assert ruleset.acting_order(state) == tuple(c.name for c in view.combatants)


@pytest.mark.parametrize("ruleset", RULESETS)
@settings(max_examples=examples(8))
@given(seed=st.integers(0, 10_000), commands=st.integers(1, 80), told=st.booleans())
def test_a_glance_is_the_view_figure_for_figure_at_every_event(
    ruleset: str, seed: int, commands: int, told: bool,
) -> None:
    store = Store(":memory:")
    try:
        glance_is_the_view(played(store, ruleset, seed, commands), told)
    finally:
        store.close()


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_a_glance_told_each_event_is_the_view_at_every_event_of_each_sample(sample: Path, cli: Cli) -> None:
    cli.ok("run", str(sample))
    with LogFile(cli.db) as log:
        glance_is_the_view(log.open(), told=True)


@pytest.mark.slow
@pytest.mark.parametrize("fought", [True, False], ids=["fight", "upkeep"])
def test_a_glance_told_each_event_is_the_view_at_every_event_of_a_generated_fight(fought: bool, tmp_path: Path) -> None:
    store, enc = generate(str(tmp_path / "fight.db"), 1500, seed=5, fight=fought)
    try:
        glance_is_the_view(enc, told=True)
    finally:
        store.close()


@pytest.mark.parametrize("kind", [RoundStarted, RoundEnded, DamageTaken])
def test_a_glance_that_misses_a_change_is_caught(kind: type[Event], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above fails a glance that keeps a row an event changed: ap-countdown's,
    told that a round's start or end (which change every fighter) or a hit (which changes
    the fighter hit) changes no fighter."""
    monkeypatch.setitem(ap_view._CHANGES, kind, "")
    store, enc = generate(str(tmp_path / "fight.db"), 300, seed=5, fight=True)
    try:
        with pytest.raises(AssertionError):
            glance_is_the_view(enc, told=True)
        glance_is_the_view(enc, told=False)  # told nothing, it reads every fighter
    finally:
        store.close()


def test_a_rows_figures_kept_by_the_narration_serve_that_row_alone() -> None:
    """The narration keeps each combatant's last row and how its figures are read
    (``_change_lines``): asked about another row of the same combatant, it reads that row."""
    store = Store(":memory:")
    try:
        enc = played(store, "ap-countdown", 7, 80)
        fresh = type(enc.ruleset)()
        distinct: dict[str, list[Combatant]] = {}
        for _, state in enc.replay():
            for row in fresh.view(state).combatants:
                seen = distinct.setdefault(row.name, [])
                if all(figures(row) != figures(other) for other in seen):
                    seen.append(row)
        a, b, c = next(rows for rows in distinct.values() if len(rows) >= 3)[:3]
        read: dict[str, Any] = {}
        told: dict[Any, str] = {}

        def lines(old: Combatant, new: Combatant) -> str:
            return "".join(f"\n{INDENT}{line}" for line in combatant_changes(old, new))

        assert _change_lines([(a, b)], read, told) == lines(a, b)  # b's plan kept
        assert _change_lines([(c, a)], read, told) == lines(c, a)  # c is not b: c read
        assert _change_lines([(a, c)], read, told) == lines(a, c)
        assert _change_lines([(c, b)], read, told) == lines(c, b)  # c kept just now
    finally:
        store.close()
