"""What an import reads: creatures in the SRD 5.2 ruleset's stat names, characters, fights in progress."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from skirmish.eventlog.errors import BadInput
from skirmish.eventlog.text import check_label, quoted
from skirmish.projections.ruleset import LARGEST, check_name
from skirmish.projections.rulesets.srd_5__2.block import ABILITIES, BlockAction, format_actions, format_saves

_UNSET: Any = object()  # a field read from the entry itself, not a value handed in
LONGEST_TEXT = 200  # characters of one damage type or tag: a stat block's, not an essay


@dataclass(frozen=True)
class HitDice:
    """A stat block's hit dice, "4d8+4": what `--hp rolled` rolls (the GM's typed faces)."""

    count: int
    sides: int
    bonus: int = 0

    def __str__(self) -> str:
        return f"{self.count}d{self.sides}" + (f"{self.bonus:+d}" if self.bonus else "")


@dataclass(frozen=True)
class Creature:
    """One stat block (a monster, or a player character's), in the srd-5.2 stat names: ``hp``
    its hit points (average), ``ac``, ``dex`` (the Dexterity modifier), ``init`` (the
    initiative modifier), ``legendary`` (legendary action uses per round), ``speed`` (walk,
    feet); ``resist``, ``vulnerable``, ``immune`` the damage types as the file words them.
    ``con`` (the Constitution saving throw modifier) and ``xp`` (experience points) where the
    stat block gives them (the bundled bestiary's do). ``source`` says where it was read, for
    every line that names it."""

    name: str
    source: str
    hp: int
    pc: bool = False
    hit_dice: HitDice | None = None
    ac: int | None = None
    dex: int | None = None
    init: int | None = None
    speed: int | None = None
    legendary: int = 0
    resist: tuple[str, ...] = ()
    vulnerable: tuple[str, ...] = ()
    immune: tuple[str, ...] = ()
    current: int | None = None  # a persistent character's hit points now, where below its maximum
    con: int | None = None
    xp: int | None = None
    # Its stat block (srd_5__2/block.py): the actions a fight uses, saving throw modifiers, senses
    actions: tuple[BlockAction, ...] = ()
    saves: tuple[tuple[str, int], ...] = ()
    senses: str = ""
    # One line each for what the file's actions hold that the actions line cannot (actions.py)
    left_out: tuple[str, ...] = ()


@dataclass(frozen=True)
class Tag:
    """A tag on a combatant of a saved fight: ``left`` rounds (None: untimed), counted down at
    the start or end (``timing``) of ``whose`` turn."""

    text: str
    left: int | None = None
    timing: str = ""
    whose: str = ""


@dataclass(frozen=True)
class Seat:
    """A combatant of a saved fight as it stands: hit points now, temporary ones, its
    initiative and its tags."""

    name: str
    creature: Creature
    hp: int
    temp_hp: int = 0
    initiative: int | None = None
    tags: tuple[Tag, ...] = ()


@dataclass(frozen=True)
class Fight:
    """A saved fight: its round (0: not started), who acts now, and its combatants."""

    name: str
    source: str
    round: int
    acting: str | None
    seats: tuple[Seat, ...]


@dataclass(frozen=True)
class Imported:
    """What one file holds: its format, its creatures by name (characters included), the
    current hit points of persistent characters, and its saved fights by name."""

    format: str
    creatures: dict[str, Creature]
    current: dict[str, int] = field(default_factory=dict)
    fights: dict[str, Fight] = field(default_factory=dict)


def srd_stats(creature: Creature) -> dict[str, int | str]:
    """The stat block as the srd-5.2 ruleset's stats: ints, and the damage traits as text
    (comma-separated), each only where the file gives it."""
    stats: dict[str, int | str] = {"hp": creature.hp}
    for key in ("ac", "dex", "init", "speed", "con"):
        value = getattr(creature, key)
        if value is not None:
            stats[key] = value
    stats["legendary"] = creature.legendary
    stats["pc"] = 1 if creature.pc else 0
    for key in ("resist", "vulnerable", "immune"):
        if getattr(creature, key):
            stats[key] = ", ".join(getattr(creature, key))
    if creature.xp is not None:
        stats["xp"] = creature.xp
    if creature.actions:
        stats["actions"] = format_actions(creature.actions)
    if creature.saves:
        stats["saves"] = format_saves(dict(creature.saves))
    if creature.senses:
        stats["senses"] = creature.senses
    return stats


ABILITY_NAMES = ("strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma")


def saves_of(pairs: list[tuple[Any, Any]]) -> tuple[tuple[str, int], ...]:
    """Saving throw bonuses as (ability, bonus), the ability named any way ("dex", "Dexterity")."""
    found: dict[str, int] = {}
    for ability, bonus in pairs:
        key = str(ability).strip().lower()[:3]
        if key in ABILITIES and isinstance(bonus, int) and not isinstance(bonus, bool) and -20 <= bonus <= 30:
            found.setdefault(key, bonus)
    return tuple((k, found[k]) for k in ABILITIES if k in found)


def conditions(f: Fields, key: str) -> tuple[str, ...]:
    """Condition immunities, lower-cased as srd-5.2 names conditions: a list, or one string."""
    if isinstance(f.get(key), str):
        return tuple(w.strip().lower() for w in re.split(r"[;,]", f.text(key) or "") if w.strip())
    return tuple(w.lower() for w in f.texts(key))


_SENSE = re.compile(r"\b(blindsight|darkvision|tremorsense|truesight|passive[ _]perception)\D{0,3}?(\d{1,4})", re.I)


def senses_line(pairs: Any) -> str:
    """Senses as srd-5.2's ``senses`` line ("darkvision 60, passive 10"), from a file's text
    ("darkvision 60 ft., passive Perception 10") or its keys and values."""
    if isinstance(pairs, Mapping):
        pairs = ", ".join(f"{k.removesuffix('_range')} {v}" for k, v in pairs.items() if isinstance(k, str))
    elif isinstance(pairs, list):
        pairs = ", ".join(p for p in pairs if isinstance(p, str))
    if not isinstance(pairs, str):
        return ""
    found = {m.group(1).lower().split()[0].split("_")[0]: int(m.group(2)) for m in _SENSE.finditer(pairs[:400])}
    return ", ".join(f"{k} {v}" for k, v in found.items() if v)


def con_save(saves: tuple[tuple[str, int], ...], score: int | None) -> int | None:
    """The Constitution saving throw modifier: the listed save, else the Con score's modifier."""
    return dict(saves).get("con", modifier(score) if score is not None else None)


def modifier(score: int) -> int:
    """An ability score's modifier: (score - 10) / 2, rounded down (SRD 5.2, Ability Scores)."""
    return (score - 10) // 2


# --- reading fields, each refusal naming the entry and the field ---------------------------


class Fields:
    """One entry of a file, read field by field: every refusal names the entry and the field."""

    def __init__(self, where: str, entry: Mapping[str, Any], label: str) -> None:
        self.where, self.entry, self.label = where, entry, label

    def fault(self, key: str, what: str) -> BadInput:
        return BadInput(f"{self.where}, entry {self.label}: {key} {what}")

    def get(self, key: str) -> Any:
        return self.entry.get(key)

    def integer(self, key: str, value: Any = _UNSET, *, low: int = -LARGEST, required: bool = False) -> int | None:
        value = self.entry.get(key) if value is _UNSET else value
        if value is None:
            if required:
                raise self.fault(key, "is missing")
            return None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fault(key, f"must be a whole number, not {quoted(_shown(value), 40)}")
        if not low <= value <= LARGEST:
            raise self.fault(key, f"is out of range ({low} to {LARGEST:,}), not {value}")
        return value

    def text(self, key: str, value: Any = _UNSET, *, required: bool = False) -> str | None:
        value = self.entry.get(key) if value is _UNSET else value
        if value is None:
            if required:
                raise self.fault(key, "is missing")
            return None
        if not isinstance(value, str):
            raise self.fault(key, f"must be text, not {quoted(_shown(value), 40)}")
        if len(value) > LONGEST_TEXT:
            raise self.fault(key, f"is over {LONGEST_TEXT} characters")
        check_label(f"{self.where}, entry {self.label}: {key}", value)
        return value.strip()

    def table(self, key: str, *, required: bool = False) -> Mapping[str, Any]:
        value = self.entry.get(key)
        if value is None and not required:
            return {}
        if not isinstance(value, dict):
            raise self.fault(key, f"must be an object, not {quoted(_shown(value), 40)}")
        return value

    def rows(self, key: str) -> list[Any]:
        value = self.entry.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fault(key, f"must be a list, not {quoted(_shown(value), 40)}")
        return value

    def texts(self, key: str) -> tuple[str, ...]:
        """A list of damage types: strings, or references ``{index|key, name}``."""
        found = []
        for item in self.rows(key):
            if isinstance(item, dict):
                item = item.get("name", item.get("index", item.get("key")))
            text = self.text(key, item)
            if text:
                found.append(text)
        return tuple(found)

    def name(self, key: str = "name", value: Any = _UNSET) -> str:
        raw = self.text(key, value, required=True)
        assert raw is not None
        try:
            return check_name("a combatant", raw)
        except BadInput as e:
            raise self.fault(key, str(e)) from None


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else type(value).__name__ if isinstance(value, (dict, list)) else repr(value)


_HIT_DICE = re.compile(r"\(?\s*(\d{1,3})\s*d\s*(\d{1,3})\s*(?:([+-])\s*(\d{1,6}))?\s*\)?")


def hit_dice(fields: Fields, key: str, value: Any = _UNSET) -> HitDice | None:
    """"4d8+4", "(4d8 + 4)", "19d12"; None where the field is absent or empty."""
    text = fields.text(key, value)
    if not text:
        return None
    found = _HIT_DICE.fullmatch(text.strip())
    if found is None:
        raise fields.fault(key, f"is not hit dice like 4d8+4: {quoted(text, 40)}")
    count, sides = int(found.group(1)), int(found.group(2))
    if not (1 <= count <= 100 and sides in (4, 6, 8, 10, 12, 20)):
        raise fields.fault(key, f"{quoted(text, 40)} is not dice a stat block rolls (1 to 100 of d4 to d20)")
    bonus = int(found.group(4) or 0) * (-1 if found.group(3) == "-" else 1)
    return HitDice(count, sides, bonus)


_FEET = re.compile(r"(\d{1,4})\s*(?:ft|feet)\b", re.IGNORECASE)


def feet(fields: Fields, key: str, value: Any) -> int | None:
    """A speed: 30, or "30 ft.", or "30 ft., fly 60 ft." (the first is the walk)."""
    if value is None or isinstance(value, int) and not isinstance(value, bool):
        return fields.integer(key, value, low=0)
    text = fields.text(key, value)
    if not text:
        return None
    found = _FEET.search(text)
    if found is None:
        raise fields.fault(key, f"is not a speed in feet: {quoted(text, 40)}")
    return int(found.group(1))
