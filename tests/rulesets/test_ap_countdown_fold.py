"""ap-countdown's fold changes its fighters in place (projections/rulesets/ap_countdown/fold.py,
ApState): no copy, view, glance, held state or decision shares a fighter with another state
or sees what a later event changed.

The fight: Hauser (Qu +1, 40 hits) rolls 6 + 8 = 14, base 15, 35 with 4 AP; the Orc (Qu 0,
30 hits) rolls 5 + 5, base 10, 30 with 4 AP (ap-countdown.md, Initiative: base + 5 x AP).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import msgspec
import pytest
from msgspec.structs import replace

from benchmarks.fight import generate

from skirmish.eventlog.commands import AddCombatant, Damage, Declare, Next, Resolve, StartRound
from skirmish.eventlog.events import Event
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter, LogFile
from skirmish.projections.ruleset import Dice
from skirmish.projections.rulesets.ap_countdown.view import _CHANGES
from skirmish.projections.rulesets.ap_countdown import RULESET, ApCountdown
from skirmish.projections.rulesets.ap_countdown.events import ActionCancelled, ActionDeclared
from skirmish.projections.rulesets.ap_countdown.state import ApState, Fighter
from skirmish.projections.text.board import figures
from skirmish.projections.text.narration import replay_text
from skirmish.projections.view import Combatant, Glance, View

from support.cli import Cli, start
from support.encounter import do
from support.fight import fight as new_fight

DICE = {"Hauser": (6, 8), "Orc": (5, 5)}
ROOT = Path(__file__).resolve().parents[2]


fight = partial(new_fight, rolls=DICE)  # round 1 under way at count 35: Hauser 35, the Orc 30, 4 AP each


def at_head(enc: Encounter) -> ApState:
    state = enc.fold_to(enc.head().event_id)[0]
    assert isinstance(state, ApState)
    return state


def decided(enc: Encounter, command: Damage | Declare) -> list[Event]:
    """What the command records at the head (nothing written)."""
    return enc.decide(command, enc.head().event_id)


def applied(ruleset: ApCountdown, state: ApState, events: list[Event]) -> None:
    for event in events:
        ruleset.apply(state, event)


def row(rows: View | Glance, name: str) -> Combatant:
    return next(c for c in rows.combatants if c.name == name)


def test_a_copy_shares_no_fighter_and_an_event_on_one_leaves_the_other(memory_store: Store) -> None:
    enc = fight(memory_store)
    state = at_head(enc)
    kept = RULESET.copy(state)
    encoded = msgspec.msgpack.encode(kept)
    assert all(state.fighters[name] is not kept.fighters[name] for name in state.fighters)
    applied(RULESET, state, decided(enc, Damage(who="Orc", amount=7)))
    assert (state.fighters["Orc"].damage, kept.fighters["Orc"].damage) == (7, 0)
    assert msgspec.msgpack.encode(kept) == encoded
    # evolve: the state after, and the one it was given as it was.
    after = RULESET.evolve(kept, decided(enc, Damage(who="Orc", amount=5))[0])
    assert (after.fighters["Orc"].damage, kept.fighters["Orc"].damage) == (5, 0)
    assert msgspec.msgpack.encode(kept) == encoded
    assert row(RULESET.view(kept), "Orc").vital.value == 30
    assert row(RULESET.view(after), "Orc").vital.value == 25  # 30 hits - 5
    assert row(RULESET.view(state), "Orc").vital.value == 23  # 30 hits - 7


def test_a_view_before_an_event_is_unchanged_after_it_and_the_view_after_shows_it(memory_store: Store) -> None:
    """The same ruleset object views the state before and after events applied to it in
    place: its rows kept from the first view are not taken for the second's."""
    enc = fight(memory_store)
    ruleset = ApCountdown()
    state = at_head(enc)
    before = ruleset.view(state)
    as_it_was = msgspec.json.encode(before)
    # Resolution: Hauser's 3 AP melee attack declared at 35 resolves at 35 - 5 x 3 = 20.
    applied(ruleset, state, decided(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"})))
    declared = ruleset.view(state)
    assert before.pending == ()
    assert [(p.who, p.action, p.resolves) for p in declared.pending] == [("Hauser", "melee-attack", "count 20")]
    applied(ruleset, state, decided(enc, Damage(who="Orc", amount=7)))
    hurt = ruleset.view(state)
    assert msgspec.json.encode(before) == as_it_was
    assert (row(before, "Orc").vital.value, row(declared, "Orc").vital.value, row(hurt, "Orc").vital.value) == (
        30, 30, 23)


def test_the_view_before_a_command_at_the_table_is_not_the_view_after_it(memory_store: Store) -> None:
    """`damage` at the table views the head before and after (cli/table.py), the state held
    between them advanced in place by the command (Encounter._held)."""
    enc = fight(memory_store)
    before = enc.view()
    do(enc, Damage(who="Orc", amount=7))
    after = enc.view()
    assert before.combatant("Orc").vital.value == 30
    assert after.combatant("Orc").vital.value == 23
    # Hauser's melee attack: 3 of his 4 AP paid when it resolves at 20 (Resolution), 1 left of 4.
    do(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"}))
    declared = enc.view()
    do(enc, Next())
    do(enc, Next())
    do(enc, Resolve(who="Hauser"))
    resolved = enc.view()
    assert (declared.combatant("Hauser").budget.left, declared.combatant("Hauser").budget.of) == (4, 4)
    assert (resolved.combatant("Hauser").budget.left, resolved.combatant("Hauser").budget.of) == (1, 4)
    assert [p.who for p in declared.pending] == ["Hauser"] and resolved.pending == ()


def test_a_glance_finds_the_row_an_event_changed_in_place_and_keeps_the_others(memory_store: Store) -> None:
    enc = fight(memory_store)
    ruleset = ApCountdown()
    state = at_head(enc)
    first = ruleset.glance(state)
    applied(ruleset, state, decided(enc, Declare(who="Hauser", action="melee-attack", target="Orc", details={"ap": "3"})))
    declared = ruleset.glance(state)
    # A declaration changes no figure of a row: the same rows, the same objects.
    assert declared.combatants is first.combatants
    applied(ruleset, state, decided(enc, Damage(who="Orc", amount=7)))
    hurt = ruleset.glance(state)
    assert row(first, "Orc").vital.value == 30 and row(hurt, "Orc").vital.value == 23
    assert row(hurt, "Hauser") is row(first, "Hauser")
    assert {c.name: figures(c) for c in hurt.combatants} == {
        c.name: figures(c) for c in ApCountdown().view(state).combatants}


def test_a_decision_leaves_the_state_it_reads_as_it_was(memory_store: Store) -> None:
    """Conditional Actions: declaring another action cancels a held one. Deciding it works
    the fighter out without its held action, never on the fighter in the state."""
    enc = fight(memory_store)
    do(enc, Declare(who="Hauser", action="ranged-attack", trigger="the orc charges"))
    state = at_head(enc)
    encoded = msgspec.msgpack.encode(state)
    events = RULESET.decide(state, Declare(who="Hauser", action="draw"), Dice.of(enc.started, str(enc.head().event_id)))
    assert [type(e) for e in events] == [ActionCancelled, ActionDeclared]
    assert msgspec.msgpack.encode(state) == encoded
    held = state.fighters["Hauser"].action
    assert held is not None and (held.name, held.trigger) == ("ranged-attack", "the orc charges")


def test_the_narrated_replay_tells_a_figure_changed_in_place(memory_store: Store) -> None:
    """Two hits of 7 and 5 on the Orc's 30: hits left 30 -> 23, then 23 -> 18."""
    enc = fight(memory_store)
    do(enc, Damage(who="Orc", amount=7))
    do(enc, Damage(who="Orc", amount=5))
    text = "\n".join(replay_text(enc, {}))
    assert "Orc: hits left 30 -> 23" in text
    assert "Orc: hits left 23 -> 18" in text
    assert text == "\n".join(replay_text(enc, {}, whole=True))


def ap_fights(cli: Cli, tmp_path: Path) -> Iterator[Encounter]:
    """The ap-countdown sample (samples/bridge-ambush.skirmish, played as a GM types it)
    and two generated fights (benchmarks/fight.py): one that plays like a fight,
    declarations and resolutions, the fallen replaced; one of upkeep ticks, bleeding and
    stuns."""
    cli.ok("run", str(ROOT / "samples" / "bridge-ambush.skirmish"))
    with LogFile(cli.db) as log:
        yield log.open()
    for fought in (True, False):
        store, enc = generate(str(tmp_path / f"generated-{fought}.db"), 1500, seed=11, fight=fought)
        try:
            yield enc
        finally:
            store.close()


@pytest.mark.slow
def test_an_event_changes_no_fighter_but_the_one_the_glance_reads_again(cli: Cli, tmp_path: Path) -> None:
    """The glance told an event reads again only the fighter the event names (``_CHANGES``),
    or none, or all for a kind not there: every other fighter must be, field by field, as
    it was before the event, at every event of the sample and the generated fights."""
    seen: Counter[str] = Counter()
    for enc in ap_fights(cli, tmp_path):
        before: dict[str, Fighter] = {}
        for rec, state in enc.replay():
            assert isinstance(state, ApState)
            field = _CHANGES.get(type(rec.event))
            if field is not None:
                named = getattr(rec.event, field) if field else None
                left_alone = [n for n in before if n != named]
                assert [n for n in left_alone if state.fighters[n] != before[n]] == [], rec
                seen["named" if named in state.fighters else "none"] += 1
            before = {n: replace(f) for n, f in state.fighters.items()}  # action and effects: frozen values
    assert seen["named"] > 1000 and seen["none"] > 500  # most events: each path taken


def test_a_glance_told_an_event_after_another_states_glance_reads_every_fighter(memory_store: Store) -> None:
    """Another state glanced between two events (a second replay, the console): told the
    event since, the glance of the replay's state must not take the other state's rows for
    its own. The other state: the Orc hit for 7 (23 of 30 left), Hauser for 4 (36 of 40)."""
    enc = fight(memory_store)
    do(enc, Damage(who="Orc", amount=7))
    do(enc, Damage(who="Hauser", amount=4))
    other = at_head(enc)
    ruleset, fresh = ApCountdown(), ApCountdown()
    assert {c.name: c.vital.value for c in ruleset.glance(other).combatants} == {"Hauser": 36, "Orc": 23}
    for rec, state in enc.replay():
        ruleset.glance(other)
        glance = ruleset.glance(state, rec.event)
        assert {c.name: figures(c) for c in glance.combatants} == {
            c.name: figures(c) for c in fresh.view(state).combatants}, rec
