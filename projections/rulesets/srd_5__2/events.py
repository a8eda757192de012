"""srd-5.2's events: their tags and field names are stored in every log, and never change."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

import msgspec

from skirmish.eventlog.events import Derivation, Event, Roll


class Initiative(msgspec.Struct, frozen=True):
    who: tuple[str, ...]  # one, or a group sharing the roll
    score: Derivation


class RoundStarted(Event, frozen=True, tag="srd-5.2.round-started", omit_defaults=True):
    round: int
    order: tuple[str, ...]
    rolled: tuple[Initiative, ...] = ()
    surprised: tuple[str, ...] = ()
    tie_rule: str = ""
    resumed: str = ""  # a saved fight in progress taken up at this round: where from (the `resume` command)


class TurnStarted(Event, frozen=True, tag="srd-5.2.turn-started", omit_defaults=True):
    who: str  # LAIR: count 20
    skipped: tuple[str, ...] = ()  # turns passed by since the last one (dead, left)
    # A turn under way in a saved fight taken up (`resume`): it started there, so nothing at
    # its start is done again; ``taken``: those before it in the order, done with theirs.
    resumed: bool = False
    taken: tuple[str, ...] = ()


class TurnEnded(Event, frozen=True, tag="srd-5.2.turn-ended", omit_defaults=True):
    who: str


class RoundEnded(Event, frozen=True, tag="srd-5.2.round-ended", omit_defaults=True):
    round: int


class Acted(Event, frozen=True, tag="srd-5.2.acted", omit_defaults=True):
    """An action, Bonus Action, free interaction, legendary or lair use that changes no HP."""

    who: str
    action: str
    use: str  # action, bonus, reaction, legendary, ready, free, lair
    target: str | None = None
    detail: str = ""
    cost: int = 1
    check: Derivation | None = None
    recharge: bool = False
    block: str = ""  # the stat block's action taken, by name (its uses counted)
    slot: int = 0  # the level of the spell slot spent (§4, Magic)


class Saved(Event, frozen=True, tag="srd-5.2.saved", omit_defaults=True):
    """A target's saving throw against a stat block's action (``by``'s ``action``): ``save``
    None when it fails automatically (``why``: Paralyzed, Stunned...) (§13)."""

    who: str
    by: str
    action: str
    ability: str
    dc: int
    save: Derivation | None
    success: bool
    why: str = ""


class Moved(Event, frozen=True, tag="srd-5.2.moved", omit_defaults=True):
    who: str
    cost: Derivation
    stood: bool = False


class Attacked(Event, frozen=True, tag="srd-5.2.attacked", omit_defaults=True):
    who: str
    target: str
    use: str
    roll: Derivation
    ac: int
    hit: bool
    crit: bool
    advantage: str = ""  # "advantage", "disadvantage" or ""
    why: str = ""
    recharge: bool = False
    cost: int = 1  # legendary uses spent, taken as one (--with as=legendary --with cost=N, §14)
    block: str = ""  # the stat block's attack made, by name


class Damaged(Event, frozen=True, tag="srd-5.2.damaged", omit_defaults=True):
    who: str
    damage: Derivation
    damage_type: str = ""
    temp_left: int = 0
    hp_left: int = 0
    by: str | None = None
    crit: bool = False


class Fell(Event, frozen=True, tag="srd-5.2.fell", omit_defaults=True):
    """To 0 HP: dead, or Unconscious; or dead at 0 HP."""

    who: str
    dead: bool
    why: str
    rule: str
    # Massive damage: what was left over at 0 HP (all of it, taken at 0 HP), against the HP maximum (§9).
    left_over: Derivation | None = None


class DeathSave(Event, frozen=True, tag="srd-5.2.death-save", omit_defaults=True):
    who: str
    save: Derivation | None  # None: a failure from damage
    successes: int
    failures: int
    outcome: str  # success, failure, stable, dead, revived


class Healed(Event, frozen=True, tag="srd-5.2.healed", omit_defaults=True):
    who: str
    amount: int
    hp_left: int
    woke: bool = False


class TempGained(Event, frozen=True, tag="srd-5.2.temp-gained", omit_defaults=True):
    """A grant of ``temp`` temporary HP while holding ``had`` (§8: no stacking). ``keep``: the
    choice (higher, new, old; empty in a log from before it: the new one taken); ``kept``:
    which one the creature holds after it, new or old."""

    who: str
    temp: int
    had: int
    keep: str = ""
    kept: str = "new"


class Stabilised(Event, frozen=True, tag="srd-5.2.stabilised", omit_defaults=True):
    who: str
    by: str
    check: Derivation | None = None


class ConcentrationSaved(Event, frozen=True, tag="srd-5.2.concentration-save", omit_defaults=True):
    who: str
    dc: Derivation
    save: Derivation
    kept: bool


class ConcentrationStarted(Event, frozen=True, tag="srd-5.2.concentration-started", omit_defaults=True):
    who: str
    spell: str


class ConcentrationEnded(Event, frozen=True, tag="srd-5.2.concentration-ended", omit_defaults=True):
    who: str
    spell: str
    why: str


class MarkAdded(Event, frozen=True, tag="srd-5.2.mark-added", omit_defaults=True):
    who: str
    kind: str
    by: str = ""
    anchor: str = ""
    at: str = ""
    left: int | None = None
    skip: bool = False
    detail: str = ""
    custom: bool = False
    spell: str = ""


class MarkEnded(Event, frozen=True, tag="srd-5.2.mark-ended", omit_defaults=True):
    who: str
    kind: str
    why: str
    by: str = ""


class ReadyFired(Event, frozen=True, tag="srd-5.2.ready-fired", omit_defaults=True):
    who: str


class ReadyLapsed(Event, frozen=True, tag="srd-5.2.ready-lapsed", omit_defaults=True):
    who: str
    why: str


class Recharged(Event, frozen=True, tag="srd-5.2.recharged", omit_defaults=True):
    who: str
    roll: Roll
    ready: bool
