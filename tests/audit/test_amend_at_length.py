"""amend on a long branch: each later command is decided on the state the one before it left,
not folded again from the store (about 64 events a command) nor with the set of every
replaced event rebuilt a command: time linear in what it decides again. The branch it
writes is the one a fold before every command writes, event for event."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from benchmarks.fight import Generator
from skirmish.eventlog.commands import Damage, command_decoder
from skirmish.eventlog.store import Store
from skirmish.projections.engine import Encounter
from skirmish.projections.write.amend import amend


def long_fight(path: str) -> tuple[Store, Encounter, int, Damage]:
    """A generated fight of about 2,000 events and its first damage on the current branch."""
    store = Store(path)
    enc = Generator(store, seed=7).run(2_000)
    for rec in enc.path(enc.head().event_id, checked=True)[1:]:
        command = command_decoder.decode(enc.command(rec.command_id).body)
        if isinstance(command, Damage):
            return store, enc, rec.id, command
    raise AssertionError("the generated fight has no damage")


def amended_events(enc: Encounter, branch: str) -> list[tuple[str, bytes]]:
    return [(r.kind, msgspec.json.encode(r.event)) for r in enc.path(enc.head(branch).event_id, checked=True)]


def test_amend_folds_the_state_once_not_once_a_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, every command decided again folded its state from the nearest snapshot: as many
    folds as commands (over six hundred here). Now one fold for the replacement's check and
    one on the copy to start the branch, plus one after each skipped command."""
    store, enc, event, command = long_fight(str(tmp_path / "long.db"))
    folds: list[int] = []
    fold_to = Encounter.fold_to

    def counted(self: Encounter, event_id: int) -> tuple[Any, int]:
        folds.append(event_id)
        return fold_to(self, event_id)

    monkeypatch.setattr(Encounter, "fold_to", counted)
    done = amend(enc, event, Damage(who=command.who, amount=command.amount + 1), "damage", None, "amend")
    skipped = sum(step.skipped is not None for step in done.steps)
    assert len(done.steps) > 600
    assert len(folds) <= 2 + skipped, (len(folds), skipped)
    store.close()


def test_the_state_carried_from_command_to_command_writes_the_branch_a_fold_each_time_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same amend twice: once carrying the state, once folding it from the store before
    every command (the carried state dropped). Event for event, the two branches agree."""
    store, enc, event, command = long_fight(str(tmp_path / "long.db"))
    replacement = Damage(who=command.who, amount=command.amount + 3)
    carried = amend(enc, event, replacement, "damage", "carried", "amend")
    execute_from = Encounter.execute_from

    def folding(self: Encounter, folded: Any, *args: Any, **kwargs: Any) -> Any:
        return execute_from(self, None, *args, **kwargs)

    monkeypatch.setattr(Encounter, "execute_from", folding)
    refolded = amend(enc, event, replacement, "damage", "refolded", "amend")
    assert [s.skipped for s in carried.steps] == [s.skipped for s in refolded.steps]
    assert amended_events(enc, "carried") == amended_events(enc, "refolded")
    assert len(carried.steps) > 600
    store.close()
