"""A stat block's actions, saving throws and spell slots as one line of text each: srd-5.2's
text stats ``actions``, ``saves`` and ``slots`` (Stat(kind=str), kept in the combatant's
traits). One line a stat, so a block typed by hand (`--stat actions="Longsword: melee +5,
1d8+3 slashing"`), one read from a file and one from the bundled bestiary are recorded,
exported and carried the same way, and the engine's events need no field of srd-5.2's.

``actions``: entries split by ``;``, each ``NAME`` or ``NAME: CLAUSE, CLAUSE, ...``:

==========================  =============================================================
clause                      means
==========================  =============================================================
``bonus``, ``reaction``     taken as a Bonus Action or a Reaction (default: an action)
``legendary [N]``           a legendary action costing N uses (default 1) (§14)
``melee +N``, ``ranged +N``  an attack roll with +N to hit; ``melee or ranged +N`` either
``reach N``, ``range N/M``  its reach or range in feet (shown; ``range`` makes it ranged)
``1d6+2 slashing``          a damage part (dice or a number, a damage type); several parts
``1d4 slashing if advantage``  a part dealt only when the attack roll had Advantage
``DC 13 dex``               a saving throw the targets make (§4, the Magic action's saves)
``half``                    a successful save takes half the damage (rounded down, §7)
``recharge 5``              one use, back on a d6 roll of 5-6 at its turn's start (§14)
``3/day``                   three uses, then spent (§14)
``3 attacks``               Multiattack: three attack rolls in one Attack action (§4, §14)
==========================  =============================================================

``saves``: ``str +8, dex +6, con +7`` (the saving throw modifiers a block lists).
``slots``: ``1:4, 2:3, 3:2`` (spell slots by level: the Magic action spends one, §4).
"""

# No `from __future__ import annotations`: msgspec would compile string annotations at each start.

import re
from functools import lru_cache

import msgspec

from skirmish.eventlog.errors import BadInput

ABILITIES = ("str", "dex", "con", "int", "wis", "cha")
USES = ("action", "bonus", "reaction", "legendary")
DAMAGE_TYPES = frozenset({
    "acid", "bludgeoning", "cold", "fire", "force", "lightning", "necrotic", "piercing", "poison",
    "psychic", "radiant", "slashing", "thunder",
})  # srd-5.2-combat.md §7
MOST_ACTIONS = 40  # entries one block lists: the longest SRD 5.2 block has 12
_DICE = r"\d{1,3}(?:d\d{1,3}(?:\s*[+-]\s*\d{1,4})?)?"
_PART = re.compile(rf"^({_DICE})\s+([a-z]+)(\s+if advantage)?$")
_ATTACK = re.compile(r"^(melee or ranged|melee|ranged)\s*([+-]\s*\d{1,2})$")
_SAVE = re.compile(r"^dc\s*(\d{1,2})\s+(str|dex|con|int|wis|cha)\w*$")


class Part(msgspec.Struct, frozen=True):
    """One damage part: ``dice`` ("1d6+2" or a number) of ``type``; ``advantage``: dealt only
    when the attack roll had Advantage."""

    dice: str
    type: str
    advantage: bool = False

    def __str__(self) -> str:
        return f"{self.dice} {self.type}" + (" if advantage" if self.advantage else "")


class BlockAction(msgspec.Struct, frozen=True):
    """One action of a stat block, as the clauses above give it."""

    name: str
    use: str = "action"
    cost: int = 1
    attack: str = ""  # "melee", "ranged", "melee or ranged"; "": no attack roll
    hit: int = 0
    reach: int = 0
    range: str = ""
    damage: tuple[Part, ...] = ()
    save: str = ""  # the ability of the targets' saving throw
    dc: int = 0
    half: bool = False
    recharge: int = 0  # X of Recharge X-6
    per_day: int = 0
    attacks: int = 0  # Multiattack: the attack rolls of one Attack action

    def clauses(self) -> list[str]:
        out: list[str] = []
        if self.use == "legendary":
            out.append("legendary" + (f" {self.cost}" if self.cost != 1 else ""))
        elif self.use != "action":
            out.append(self.use)
        if self.attack:
            out.append(f"{self.attack} {self.hit:+d}")
        if self.reach:
            out.append(f"reach {self.reach}")
        if self.range:
            out.append(f"range {self.range}")
        out += [str(p) for p in self.damage]
        if self.save:
            out.append(f"DC {self.dc} {self.save}")
        if self.half:
            out.append("half")
        if self.recharge:
            out.append(f"recharge {self.recharge}")
        if self.per_day:
            out.append(f"{self.per_day}/day")
        if self.attacks:
            out.append(f"{self.attacks} attacks")
        return out

    def __str__(self) -> str:
        clauses = self.clauses()
        return f"{self.name}: {', '.join(clauses)}" if clauses else self.name


def format_actions(actions: list[BlockAction] | tuple[BlockAction, ...]) -> str:
    """The ``actions`` line of these actions (what :func:`parse_actions` reads back)."""
    return "; ".join(str(a) for a in actions)


def clean_name(name: str) -> str:
    """An action's name as the line can hold it: no ``;``, ``:`` or ``,`` (a file's "Bite
    (Bat Form Only)" stays; "Spellcasting: 3/Day" would not)."""
    return " ".join(re.sub(r"[;:,]", " ", name).split())


@lru_cache(maxsize=512)
def parse_actions(text: str) -> tuple[BlockAction, ...]:
    """The actions of an ``actions`` line; a refusal names the entry and the clause at fault."""
    found: list[BlockAction] = []
    entries = [e.strip() for e in text.split(";") if e.strip()]
    if len(entries) > MOST_ACTIONS:
        raise BadInput(f"actions= lists {len(entries)} actions: at most {MOST_ACTIONS} are taken")
    for entry in entries:
        name, colon, rest = entry.partition(":")
        name = " ".join(name.split())
        if not name:
            raise BadInput(f"actions=: {entry[:40]!r} has no name before its ':'")
        if any(_fold(a.name) == _fold(name) for a in found):
            raise BadInput(f"actions=: {name!r} is listed twice")
        fields: dict[str, object] = {"name": name}
        parts: list[Part] = []
        for raw in (c.strip() for c in rest.split(",")) if colon else ():
            if raw:
                _clause(name, raw, fields, parts)
        if parts:
            fields["damage"] = tuple(parts)
        if fields.get("half") and not fields.get("save"):
            raise BadInput(f"actions=: {name}: 'half' is for a saving throw (DC N ABILITY)")
        found.append(msgspec.convert(fields, BlockAction))
    return tuple(found)


def _clause(name: str, raw: str, fields: dict[str, object], parts: list[Part]) -> None:
    clause = " ".join(raw.lower().split())
    words = clause.split()
    if clause in ("bonus", "reaction", "lair"):
        fields["use"] = clause
    elif words[0] == "legendary" and len(words) <= 2:
        fields["use"] = "legendary"
        if len(words) == 2:
            fields["cost"] = _number(name, raw, words[1], 1, 3)
    elif m := _ATTACK.match(clause):
        fields["attack"], fields["hit"] = m.group(1), int(m.group(2).replace(" ", ""))
    elif words[0] == "reach" and len(words) in (2, 3):
        fields["reach"] = _number(name, raw, words[1], 0, 1000)
    elif words[0] == "range" and len(words) in (2, 3) and re.fullmatch(r"\d{1,4}(/\d{1,4})?", words[1]):
        fields["range"] = words[1]
    elif m := _SAVE.match(clause):
        fields["dc"], fields["save"] = int(m.group(1)), m.group(2)
    elif clause == "half":
        fields["half"] = True
    elif words[0] == "recharge" and len(words) == 2:
        fields["recharge"] = _number(name, raw, words[1].split("-")[0], 2, 6)
    elif m := re.fullmatch(r"(\d{1,2})\s*/\s*day", clause):
        fields["per_day"] = _number(name, raw, m.group(1), 1, 20)
    elif m := re.fullmatch(r"(\d{1,2}) attacks?", clause):
        fields["attacks"] = _number(name, raw, m.group(1), 1, 10)
    elif m := _PART.match(clause):
        if m.group(2) not in DAMAGE_TYPES:
            raise BadInput(f"actions=: {name}: {m.group(2)!r} is no damage type (srd-5.2-combat.md §7)")
        parts.append(Part(m.group(1).replace(" ", ""), m.group(2), bool(m.group(3))))
    else:
        raise BadInput(f"actions=: {name}: {raw[:40]!r} is no clause (bonus, reaction, legendary N, melee +N, "
                       f"reach N, range N/M, 1d6+2 TYPE, DC N ABILITY, half, recharge N, N/day, N attacks)")


def _number(name: str, raw: str, word: str, low: int, high: int) -> int:
    if not word.isdigit() or not low <= int(word) <= high:
        raise BadInput(f"actions=: {name}: {raw[:40]!r} takes a number from {low} to {high}")
    return int(word)


def _pairs(stat: str, text: str, pattern: str, example: str) -> list[re.Match[str]]:
    """The comma-separated entries of ``text``, each matched whole by ``pattern``."""
    found = []
    for raw in (w.strip() for w in text.split(",")):
        if raw:
            m = re.fullmatch(pattern, raw.lower())
            if m is None:
                raise BadInput(f"{stat}=: {raw[:40]!r} is not like {example}")
            found.append(m)
    return found


@lru_cache(maxsize=512)
def parse_saves(text: str) -> dict[str, int]:
    """``str +8, dex +6``: the saving throw modifiers by ability."""
    return {m.group(1): int(m.group(2).replace(" ", ""))
            for m in _pairs("saves", text, r"(str|dex|con|int|wis|cha)\w*\s*([+-]\s*\d{1,2})", "dex +6")}


def format_saves(saves: dict[str, int]) -> str:
    return ", ".join(f"{k} {v:+d}" for k, v in saves.items())


@lru_cache(maxsize=512)
def parse_slots(text: str) -> dict[int, int]:
    """``1:4, 2:3``: spell slots by level (1 to 9)."""
    return {int(m.group(1)): int(m.group(2)) for m in _pairs("slots", text, r"([1-9])\s*:\s*(\d{1,2})", "1:4")}


def find_action(actions: tuple[BlockAction, ...], typed: str) -> BlockAction | None:
    """The action ``typed`` names, compared as names are (case, spaces): None if none."""
    wanted = _fold(typed)
    return next((a for a in actions if _fold(a.name) == wanted), None)


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())
