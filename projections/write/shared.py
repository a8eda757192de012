"""The decisions every ruleset shares, whatever its rules: notes, and the GM's commands about
the players' screens (`hide`, `reveal`, `bands`, `add --hidden`).

The engine hands these commands here instead of to the encounter's ruleset. What the players
then see of the events decided here is the players' policy's to say (projections/policy.py,
a read model); how the log words them is projections/text/words.py's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from skirmish.eventlog.commands import AddHidden, AddNote, ChooseBands, Command, Hide, Reveal
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Band, BandsChosen, CombatantAdded, CombatantHidden, CombatantRevealed, Event, NoteAdded
from skirmish.eventlog.text import check_label
from skirmish.projections.ruleset import find_name
from skirmish.projections.policy import DOWN_BAND, Log, hidden_at

POLICY_COMMANDS = (Hide, Reveal, ChooseBands)


def decide_policy(log: Log, names: Sequence[str], command: Command, at: int) -> list[Event]:
    """`hide`, `reveal` and `bands` decided at event ``at`` of ``log``: the same in every
    ruleset (``names``: the combatants)."""
    match command:
        case Hide(who=wanted):
            who = find_name(names, wanted)
            if who in hidden_at(log, at):
                raise RuleViolation(f"{who} is hidden from the players already (`skirmish reveal {who}` shows it)")
            return [CombatantHidden(who=who)]
        case Reveal(who=wanted):
            who = find_name(names, wanted)
            if who not in hidden_at(log, at):
                raise RuleViolation(f"{who} is not hidden: the players see it already")
            return [CombatantRevealed(who=who)]
        case ChooseBands(full=full, bands=chosen):
            return [chosen_bands(full, chosen)]
    raise RuleViolation("that command is not about the players' screens")


def chosen_bands(full: str, chosen: Iterable[tuple[str, int]]) -> BandsChosen:
    """The GM's bands, checked: labels of one line, percents from 1 to 100, one at 100 (so
    every foe below full has a band), no label or percent twice."""
    full = check_label("a band", full).strip()
    levels = [Band(check_label("a band", label).strip(), percent) for label, percent in chosen]
    if not full or not all(b.label for b in levels):
        raise BadInput("a band needs a label")
    if not levels:
        raise BadInput("bands takes the label at full, then LABEL=PERCENT for each band below it")
    for b in levels:
        if not 1 <= b.percent <= 100:
            raise BadInput(f"band {b.label!r} takes a percent from 1 to 100, not {b.percent}")
    labels = [full, *(b.label for b in levels)]
    if len({label.lower() for label in labels}) != len(labels) or DOWN_BAND in (label.lower() for label in labels):
        raise BadInput(f"each band needs its own label, and {DOWN_BAND!r} is the band of the down")
    if len({b.percent for b in levels}) != len(levels):
        raise BadInput("each band needs its own percent")
    if max(b.percent for b in levels) != 100:
        raise BadInput("one band must be at 100 (just hurt), so that every foe below full has one")
    return BandsChosen(full=full, bands=tuple(sorted(levels, key=lambda b: -b.percent)))


def joining_hidden(command: AddHidden, events: Sequence[Event]) -> list[Event]:
    """`add --hidden`: each combatant it adds is hidden just before it joins, so the players
    never see it join."""
    hides: list[Event] = [CombatantHidden(who=e.name, joining=True) for e in events if isinstance(e, CombatantAdded)]
    return [*hides, *events]


def decide_note(command: AddNote, names: Sequence[str], at: int, check_event: Callable[[int], object]) -> list[Event]:
    """`note`: on a combatant (written at the head, ``at``) or on an event of the log
    (``check_event`` refuses one that is not this encounter's)."""
    on = None if command.on is None else find_name(names, command.on)
    if on is None:
        check_event(command.event)
    if not command.text.strip():
        raise BadInput("a note needs some text")
    about = at if on is not None else command.event  # a note on a combatant is written at the head
    return [NoteAdded(about=about, text=command.text, private=command.private, on=on)]
