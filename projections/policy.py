"""The players' policy: what the players' screens may show of an encounter, decided here alone.

Two audiences. The GM sees everything: every branch, the dice key or seed, the verify
digest, the commands as typed, private notes, every figure, the hidden combatants (marked
hidden). The players' page (`export --format html --for players`) and `serve`'s stream
(`--for players`, its default) are built through :class:`Players`, which gives them:

- the current branch only: no what-if branch, no list of them, no switch;
- a foe's vital figure as a band (:class:`Bands`, chosen per encounter with `skirmish
  bands`), never its maximum, its budget or its ruleset's own figures; the clock without
  the ruleset's own figures (an initiative order with each foe's figure);
- no foe's pending action (their own side's are shown);
- damage to a foe as the band it leaves, never the amount, per hit or in the totals;
- a narration that names a foe and holds a number replaced by one that holds none, and no
  explanation of it (a round's start lists each initiative with the GM's dice; in phases a
  foe's vital figure is its initiative); no explanation of an event that names a foe or is
  a foe's doing (its dice, its stats);
- no private note, and no step where one was made;
- no hidden combatant (`hide`, `add --hidden`) until it is revealed: not on the board, the
  clock or the pending list, and no event or note that names it while it is hidden;
- no dice seed or key, no digest, no command as typed.

A *foe* is a combatant whose side is not one of the party's (``Bands.party``, `--party`;
by default a side named players, party or pcs, in any case: the docs' examples use
`--side party` and `--side players` alike, and srd-5.2 makes both sides' combatants characters).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, Protocol

import msgspec

from skirmish.eventlog.errors import BadInput
from skirmish.eventlog.events import (
    Band,
    BandsChosen,
    CombatantAdded,
    CombatantCarried,
    CombatantHidden,
    CombatantRenamed,
    CombatantRevealed,
    EncounterStarted,
    Event,
    NoteAdded,
    TraitsSet,
)
from skirmish.projections.view import Combatant, Gauge, NoOwn, View

if TYPE_CHECKING:
    from skirmish.projections.ruleset import Harm


class _Marked(Protocol):
    @property
    def id(self) -> int: ...

    @property
    def event(self) -> Event: ...


class _Path(Protocol):
    def depth_of(self, event_id: int) -> int | None: ...


class Log(Protocol):
    """What :func:`hidden_at` reads of an encounter's log (the engine's ``Encounter`` is one)."""

    def events_of_kind(self, kind: type[Event]) -> Sequence[_Marked]: ...

    def runs(self, event_id: int) -> _Path: ...

Audience = Literal["gm", "players"]
DOWN = frozenset({"down", "dead"})
DEFAULT_FULL = "unhurt"
DEFAULT_LEVELS = (Band("hurt", 100), Band("badly hurt", 50))
DOWN_BAND = "down"
DEFAULT_PARTY = ("players", "party", "pcs")


def in_party(side: str, party: Iterable[str]) -> bool:
    """Whether ``side`` is one of the party's sides (sides compare without case, as names do)."""
    return side.casefold() in {p.casefold() for p in party}


def audience(text: str) -> Audience:
    if text == "gm":
        return "gm"
    if text == "players":
        return "players"
    raise BadInput(f"--for takes gm or players, not {text!r}")


# Bands, Sight and Told are frozen Structs, not frozen dataclasses: made at import in a
# fiftieth of the time, and no command then imports dataclasses (docs/performance.md).
class Bands(msgspec.Struct, frozen=True):
    """How the players see a foe's vital figure: *down* by its status (down or dead); else
    ``full`` at its maximum (or its first value, where it has no maximum); else the label of
    the band with the smallest percent at or above what it has left of it. ``party``: the
    sides whose figures the players see exactly."""

    party: tuple[str, ...] = DEFAULT_PARTY
    full: str = DEFAULT_FULL
    levels: tuple[Band, ...] = DEFAULT_LEVELS

    def band(self, c: Combatant, reference: int | None) -> str:
        if c.status in DOWN:
            return DOWN_BAND
        top = c.vital.maximum if c.vital.maximum is not None else reference
        if top is None or top <= 0 or c.vital.value >= top:
            return self.full
        fitting = [b for b in self.levels if c.vital.value * 100 <= top * b.percent]
        return min(fitting, key=lambda b: b.percent).label if fitting else self.full

    def chosen(self, event: BandsChosen) -> Bands:
        return msgspec.structs.replace(self, full=event.full, levels=event.bands)

    def words(self) -> str:
        """The bands as the page and the log say them."""
        levels = ", ".join(f"{b.label} (below full)" if b.percent == 100 else f"{b.label} (at or below {b.percent}%)"
                           for b in sorted(self.levels, key=lambda b: -b.percent))
        return f"{self.full} (at full), {levels}, {DOWN_BAND}"

    def data(self) -> dict[str, Any]:
        return {"party": list(self.party), "full": self.full, "levels": [[b.label, b.percent] for b in self.levels],
                "words": self.words()}


def bands(party: Sequence[str] | None, badly: int) -> Bands:
    """The bands `export` and `serve` start from (`--party`, `--badly-hurt`); an encounter's
    `skirmish bands` replaces the labels and percents from its event on."""
    if not 0 < badly < 100:
        raise BadInput(f"--badly-hurt takes a percentage between 1 and 99, not {badly}")
    levels = DEFAULT_LEVELS if badly == 50 else (Band("hurt", 100), Band("badly hurt", badly))
    return Bands(tuple(party) if party else DEFAULT_PARTY, levels=levels)


# --- what is hidden, along a path -------------------------------------------------------------


class Sight(msgspec.Struct, frozen=True):
    """What the players' policy must know at one event of a path: who is hidden, the bands."""

    bands: Bands
    hidden: frozenset[str] = frozenset()

    def after(self, event: Event) -> Sight:
        match event:
            case CombatantHidden(who=who):
                return msgspec.structs.replace(self, hidden=self.hidden | {who})
            case CombatantRevealed(who=who):
                return msgspec.structs.replace(self, hidden=self.hidden - {who})
            case BandsChosen():
                return msgspec.structs.replace(self, bands=self.bands.chosen(event))
            case CombatantRenamed(who=who, to=to) if who in self.hidden:  # still hidden, by its new name
                return msgspec.structs.replace(self, hidden=(self.hidden - {who}) | {to})
        return self


def hidden_at(enc: Log, at: int) -> frozenset[str]:
    """The combatants hidden from the players after event ``at`` (the GM's board marks them)."""
    marks = [*enc.events_of_kind(CombatantHidden), *enc.events_of_kind(CombatantRevealed)]
    if not marks:
        return frozenset()
    marks += enc.events_of_kind(CombatantRenamed)  # a hidden combatant stays hidden under its new name
    path = enc.runs(at)
    sight = Sight(Bands())
    for rec in sorted(marks, key=lambda r: r.id):  # ids grow down a path
        if path.depth_of(rec.id) is not None:
            sight = sight.after(rec.event)
    return sight.hidden


def hidden_line(enc: Log, at: int) -> str:
    """The GM's board's line naming the hidden combatants ("" when none is)."""
    hidden = hidden_at(enc, at)
    return f"hidden from the players: {', '.join(sorted(hidden))}" if hidden else ""


# --- the players' page ------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _naming(names: frozenset[str]) -> re.Pattern[str] | None:
    if not names:
        return None
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def names_any(text: str, names: frozenset[str]) -> bool:
    pattern = _naming(names)
    return pattern is not None and pattern.search(text) is not None


class Told(msgspec.Struct, frozen=True):
    """An event as the players get it: its line, and whether its explanation and its damage go with it."""

    text: str
    explain: bool
    harm: bool


class Players:
    """The players' policy applied to one event at a time (see the module's docstring)."""

    def __init__(self, party: Sequence[str]) -> None:
        self.party = frozenset(p.casefold() for p in party)

    def foe(self, side: str) -> bool:
        return side.casefold() not in self.party

    def view(self, view: View, sight: Sight) -> View:
        """The view without the hidden combatants, the foes' pending actions and the clock's
        own figures (vital figures are banded in the page's rows, :meth:`row`, and in the
        report's steps)."""
        hidden = sight.hidden
        foes = {c.name for c in view.combatants if self.foe(c.side)}
        clock = view.clock
        clock = msgspec.structs.replace(
            clock, now=tuple(n for n in clock.now if n not in hidden), next=tuple(n for n in clock.next if n not in hidden),
            moment="" if names_any(clock.moment, hidden) else clock.moment, own=NoOwn())
        pending = tuple(
            p if p.target is None or p.target not in hidden else msgspec.structs.replace(p, target=None)
            for p in view.pending if p.who not in foes and p.who not in hidden)
        combatants = tuple(c for c in view.combatants if c.name not in hidden)
        return msgspec.structs.replace(view, clock=clock, combatants=combatants, pending=pending)

    def row(self, c: Combatant, row: dict[str, Any], first: int | None, sight: Sight,
            own_keys: Iterable[str]) -> dict[str, Any]:
        """A foe's row of the page's data as the players see it (a copy: the GM's is shared)."""
        if not self.foe(c.side):
            return row
        row = dict(row)
        row["v"], row["vm"] = sight.bands.band(c, first), None
        if isinstance(c.vital2, Gauge):  # a second gauge (crisis's Endurance) is banded the same way
            row["v2"], row["v2m"] = sight.bands.band(msgspec.structs.replace(c, vital=c.vital2), None), None
        row["bl"], row["bo"] = None, None  # what a foe has left to spend tells what it is about to do
        for key in set(own_keys) & set(row):
            del row[key]
        return row

    def told(self, rec_event: Event, text: str, harm: Harm | None, command: Mapping[str, Any],
             before: Sight, after: Sight, view: View, explanation: Callable[[], Sequence[str]],
             round_before: int | None,
             acting: Sequence[str] = ()) -> Told | None:
        """The event as the players get it, or None: they get no step for it at all.
        ``acting``: who acts after it, hidden or not (`next` reaching a hidden combatant's
        moment is a step about it). ``explanation``: its lines, made when needed."""
        hidden = before.hidden | after.hidden
        sides = {c.name: c.side for c in view.combatants}
        match rec_event:
            case EncounterStarted(name=name, ruleset=ruleset):
                return Told(f"Encounter {name!r} begins under {ruleset}", False, False)
            case NoteAdded(private=True):
                return None
            case NoteAdded(text=note) if names_any(note, before.hidden | after.hidden):
                return None
            case CombatantHidden():
                return None
            case CombatantRevealed(who=revealed):
                return Told(f"{revealed} appears on the {sides.get(revealed, 'foes')} side", False, False)
            case BandsChosen():
                return Told(f"Foes are shown as {after.bands.words()}", False, False)
        who, target = command.get("who"), command.get("target")
        joining = rec_event.name if isinstance(rec_event, CombatantAdded) else None
        involved = {n for n in (who, target, joining, harm.who if harm else None, harm.by if harm else None)
                    if isinstance(n, str)}
        if involved & hidden or (command.get("type") == "next" and acting and set(acting) <= after.hidden
                                 and view.clock.round == round_before):
            return None
        foes = frozenset(n for n, side in sides.items() if self.foe(side))
        if names_any(text, hidden) or (hidden and any(names_any(line, hidden) for line in explanation())):
            return Told(self._plain(command, view, foes, round_before), False, harm is not None and harm.who not in foes)
        match rec_event:
            case CombatantAdded(name=name, side=side) if self.foe(side):
                return Told(f"{name} joins the {side} side", False, False)
            case TraitsSet(who=changed) if changed in foes:  # a foe's resistances are the GM's to know
                return Told(f"{changed}'s stats are set", False, False)
            case CombatantCarried(who=carried) if carried in foes:  # its figures there are the GM's
                return Told(f"{carried} comes in from an earlier fight", False, False)
        if harm is not None and not harm.heal and harm.who in sides and harm.who not in foes and (
                harm.by in foes or (isinstance(who, str) and who in foes)):
            # A foe's blow on the party: its amount is theirs to see, whatever the foe's line says.
            by = f" from {harm.by}" if harm.by else ""
            return Told(f"{harm.who} takes {harm.amount} {harm.unit}{by}", False, True)
        if harm is not None and (harm.who in foes or (harm.who not in sides)):
            if harm.heal:
                return Told(f"{harm.who} is healed", False, False)
            by = f" by {harm.by}" if harm.by else ""
            band = f": {after.bands.band(view.combatant(harm.who), None)}" if harm.who in sides else ""
            return Told(f"{harm.who} is hit{by}{band}", False, False)
        if names_any(text, foes) and re.search(r"\d", text):
            if harm is not None and not harm.heal:  # a foe's blow on the party: its amount is theirs to see
                by = f" from {harm.by}" if harm.by else ""
                return Told(f"{harm.who} takes {harm.amount} {harm.unit}{by}", False, True)
            return Told(self._plain(command, view, foes, round_before), False, harm is not None)
        if isinstance(who, str) and who in foes and command.get("type") == "declare":
            return Told(f"{who} declares an action", False, False)
        # An explanation carries every number with its dice: none about a foe, by one, or naming one.
        actor = getattr(rec_event, "who", None)
        explain = not (who in foes or actor in foes or names_any(text, foes)
                       or any(names_any(line, foes) for line in explanation()))
        return Told(text, explain, True)

    def _plain(self, command: Mapping[str, Any], view: View, foes: frozenset[str], round_before: int | None) -> str:
        """A line for an event whose narration gives a foe's figure away: what the board
        shows anyway (the round begun, the clock's moment), or who did what to whom."""
        clock = view.clock
        if round_before is not None and clock.round != round_before:
            return f"{clock.unit.capitalize()} {clock.round} begins"
        who, action, target = command.get("who"), command.get("action"), command.get("target")
        if not isinstance(who, str):
            return f"The clock: {clock.moment}" if clock.moment else "The clock moves on"
        tag = command.get("type")
        if who in foes and tag == "declare":
            return f"{who} declares an action"
        aimed = f" on {target}" if isinstance(target, str) else ""
        if tag == "declare" and isinstance(action, str):
            return f"{who} declares {action}{aimed}"
        if tag in ("resolve", "cancel"):
            return f"{who}'s action {'resolves' if tag == 'resolve' else 'is cancelled'}"
        kind = command.get("kind")
        if tag == "effect" and isinstance(kind, str):
            return f"{who}: {kind}" + (" ends" if command.get("end") else "")
        return f"{who}: {tag}"
