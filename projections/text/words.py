"""The log's line for each event: the core events and the players' policy's worded here, a
ruleset's own events by its ``describe``.

The engine decides and appends and says nothing; every surface that shows an event (the log,
`explain`, `why`, `diff`, the console, the pages, the report) words it through :func:`line`.
Names, notes and stats are user text: each line is escaped for the terminal
(eventlog/text.py), so none can add a line or act on the terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from skirmish.eventlog.events import (
    BandsChosen,
    CombatantAdded,
    CombatantCarried,
    CombatantHidden,
    CombatantLeft,
    CombatantRenamed,
    CombatantReturned,
    CombatantRevealed,
    DiceRolled,
    EncounterEnded,
    EncounterStarted,
    Event,
    NoteAdded,
    StatsSet,
    TraitsSet,
    whose as dice_owner,
)
from skirmish.eventlog.text import escape_controls

if TYPE_CHECKING:
    from skirmish.projections.ruleset import Ruleset


class _Recorded(Protocol):
    @property
    def event(self) -> Event: ...


class _Log(Protocol):
    @property
    def ruleset(self) -> Ruleset[Any]: ...


def event_line(enc: _Log, rec: _Recorded) -> str:
    """The event as one line of text, whatever its fields hold: names and notes stored
    before the input rules, or imported, are shown escaped (eventlog/text.py)."""
    return escape_controls(describe(enc.ruleset, rec.event))


def describe(rules: Ruleset[Any], event: Event) -> str:
    """The event's line, unescaped (:func:`event_line` escapes it for a terminal)."""
    match event:
        case EncounterStarted(name=name, ruleset=ruleset, options=options, seed=seed, key=key):
            opts = ", ".join(f"{k}={v}" for k, v in options.items()) or "no options"
            dice = f"dice key {key}" if key else f"dice seed {seed}"
            return f"Encounter {name!r} begins under {ruleset} ({opts}; {dice})"
        case CombatantAdded(name=name, side=side, stats=stats, traits=traits):
            figures = ", ".join([*(f"{k} {v}" for k, v in stats.items()), *(f"{k} {v}" for k, v in traits.items())])
            return f"{name} joins the {side} side ({figures})"
        case NoteAdded(about=about, text=text, private=private, on=str(on)):
            return f"{'Private note' if private else 'Note'} on {on} (at #{about}): {text}"
        case NoteAdded(about=about, text=text, private=private):
            return f"{'Private note' if private else 'Note'} on #{about}: {text}"
        case EncounterEnded(reason=reason):
            return f"The encounter ends{': ' + reason if reason else ''}"
        case StatsSet(who=who, stats=stats, was=was):
            changes = ", ".join(f"{k} {was[k]} -> {v}" if k in was else f"{k} {v}" for k, v in stats.items())
            return f"{who}'s stats are set: {changes}"
        case TraitsSet(who=who, traits=traits, was=was):
            changes = ", ".join(f"{k} {was[k] or 'none'} -> {v or 'none'}" if was.get(k) else f"{k} {v or 'none'}"
                                for k, v in traits.items())
            return f"{who}'s stats are set: {changes}"
        case CombatantRenamed(who=who, to=to):
            return f"{who} is renamed {to}"
        case DiceRolled(total=total, who=who, why=why):
            roll = total.roll
            faces = " + ".join(str(f) for f in roll.faces) if roll is not None else ""
            modifier = next((t.value for t in total.terms if t.name == "modifier"), 0)
            shown = faces + (f" {'+' if modifier > 0 else '-'} {abs(modifier)}" if modifier else "")
            source = f" ({dice_owner(roll.source)})" if roll is not None and roll.source != "tool" else ""
            whose = f" for {who}" if who else ""
            reason = f" ({why})" if why else ""
            spec = total.formula.replace(" ", "")
            sum_ = f" = {total.value}" if roll is not None and (len(roll.faces) > 1 or modifier) else ""
            return f"Roll{whose}{reason}: {spec} = {shown}{sum_}{source}"
        case CombatantLeft(who=who, reason=reason):
            # `leave` without --reason records "leaves the fight": said once, not twice.
            return f"{who} leaves the fight" + ("" if reason == "leaves the fight" else f": {reason}")
        case CombatantReturned(who=who):
            return f"{who} returns to the fight"
        case CombatantCarried(who=who, source=source, vital=vital, hash=digest, figures=figures):
            at = f", vital figure {vital}" if vital is not None else ", vital figure at its maximum"
            at += "".join(f", {k} {v}" for k, v in figures.items())
            chain = f", hash {digest[:12]}" if digest else ""
            return f"{who} comes in from {source}{chain}{at}"
        case CombatantHidden() | CombatantRevealed() | BandsChosen():
            return _policy_line(event)
    return rules.describe(event)


def _policy_line(event: Event) -> str:
    """The line of the players' policy's events: hiding, revealing, the bands."""
    from skirmish.projections.policy import Bands

    match event:
        case CombatantHidden(who=who, joining=True):
            return f"{who} joins hidden from the players (`skirmish reveal {who}` shows it)"
        case CombatantHidden(who=who):
            return f"{who} is hidden from the players"
        case CombatantRevealed(who=who):
            return f"{who} is revealed to the players"
        case BandsChosen():
            return f"The players' health bands for foes: {Bands().chosen(event).words()}"
    return ""
