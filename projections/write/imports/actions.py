"""A file's stat block actions as srd-5.2's block actions (projections/rulesets/srd_5__2/block.py),
and a line for each figure of them the fight cannot use.

:func:`structured` reads the shape of the bundled SRD 5.2 bestiary (``data/``): one object an
action with ``kind``, ``attack``, ``attack_bonus``, ``reach``, ``range``, ``damage``
(``[{dice, type}]``), ``save`` (``{ability, dc}``), ``area``, ``recharge``, ``uses_per_day``,
``legendary_cost`` and ``multiattack`` (projections/write/imports/data/NOTICE.md names the data). One function
each reads the other formats' actions into the same :class:`BlockAction` (docs/imports.md):
:func:`five_e_database`, :func:`open5e_v1`, :func:`open5e_v2` and :func:`free_text`
(Improved Initiative); what a format keeps only as text is read from the SRD's common
wording, 2014 and 2024 (:func:`_read_text`), and what is not read is named in one line.

Choices the files leave to the reader, each said in docs/rulesets/srd-5.2.md (Stat blocks):
- A save with an area (a breath, a burst) deals half on a success; one without deals none:
  the files do not say, and that is how the SRD 5.2's area actions read ("Success: Half
  damage"). ``--with half=yes|no`` overrides it at the table.
- A later damage part of the same type as an earlier one is the SRD 5.2 goblins' "plus 1d4
  if the attack roll had Advantage": it is dealt only with Advantage.
- "Recharge after a Short or Long Rest" is one use in the fight (1/day).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from skirmish.projections.rulesets.srd_5__2.block import (
    ABILITIES, DAMAGE_TYPES, MOST_ACTIONS, BlockAction, Part, clean_name,
)

USES = {"action": "action", "bonus": "bonus", "bonus_action": "bonus", "reaction": "reaction",
        "legendary": "legendary", "legendary_action": "legendary", "lair": "lair"}
_DICE = re.compile(r"^\d{1,3}(d\d{1,3}(\s*[+-]\s*\d{1,4})?)?$")


def structured(who: str, rows: list[Any]) -> tuple[tuple[BlockAction, ...], list[str]]:
    """The actions of the bundled bestiary's shape, and the lines naming what was left out."""
    found: list[BlockAction] = []
    lines: list[str] = []
    for row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("name"), str):
            continue
        name = clean_name(row["name"])[:60]
        if not name or any(a.name.casefold() == name.casefold() for a in found):
            continue
        fields: dict[str, Any] = {"name": name, "use": USES.get(str(row.get("kind", "action")), "action")}
        if fields["use"] == "legendary":
            fields["cost"] = _int(row.get("legendary_cost"), 1, 3) or 1
        attack = row.get("attack")
        if attack in ("melee", "ranged", "melee_or_ranged") and _int(row.get("attack_bonus"), -10, 30) is not None:
            fields["attack"] = str(attack).replace("_", " ")
            fields["hit"] = _int(row.get("attack_bonus"), -10, 30)
        reach = _int(row.get("reach"), 0, 1000)
        if reach and fields.get("attack"):
            fields["reach"] = reach
        near, far = _int(row.get("range"), 0, 9999), _int(row.get("long_range"), 0, 9999)
        if near and fields.get("attack"):
            fields["range"] = f"{near}/{far}" if far else str(near)
        parts = _parts(who, name, [(str(dmg.get("dice", "")).replace(" ", ""), str(dmg.get("type", "")).lower())
                                   for dmg in row.get("damage") or []], bool(fields.get("attack")), lines)
        if parts:
            fields["damage"] = parts
        if row.get("damage_alternative"):
            lines.append(f"{who}: {name}'s other damage (its alternative form) left out: the GM types it")
        save = row.get("save")
        if isinstance(save, dict) and str(save.get("ability", ""))[:3].lower() in ABILITIES:
            dc = _int(save.get("dc"), 1, 40)
            if dc:
                fields["save"], fields["dc"] = str(save["ability"])[:3].lower(), dc
                fields["half"] = bool(row.get("area")) and bool(parts) and not fields.get("attack")
        recharge = str(row.get("recharge") or "")
        if m := re.fullmatch(r"([2-6])(?:-6)?", recharge):
            fields["recharge"] = int(m.group(1))
        elif recharge:
            fields["per_day"] = 1  # after a Short or Long Rest: once a fight
        per_day = _int(row.get("uses_per_day"), 1, 20)
        if per_day:
            fields["per_day"] = per_day
        multi = row.get("multiattack")
        if isinstance(multi, dict) and _int(multi.get("attacks"), 1, 10):
            fields["attacks"] = _int(multi.get("attacks"), 1, 10)
        found.append(BlockAction(**fields))
    return tuple(found), lines


def _parts(who: str, name: str, found: list[tuple[str, str]], attack: bool, lines: list[str]) -> tuple[Part, ...]:
    """Damage parts from (dice, type) pairs; a later part of an earlier part's type is the
    Advantage-only one (see the module docstring). One line for each pair that is not read."""
    parts: list[Part] = []
    for dice, kind in found:
        if not _DICE.match(dice) or kind not in DAMAGE_TYPES:
            lines.append(f"{who}: {name}'s damage {dice or '?'} {kind or '?'} left out: the GM types it")
            continue
        parts.append(Part(dice, kind, advantage=attack and any(p.type == kind for p in parts)))
    return tuple(parts)


def _int(value: Any, low: int, high: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        return None
    return int(value) if low <= int(value) <= high else None


# --- the other formats: 5e-database, Open5e v1 and v2, Improved Initiative ------------------
# Each returns (actions, lines left out). What a format keeps only as text (Open5e v1's desc,
# Improved Initiative's Content, the Multiattack of all of them) is read by :func:`_read_text`
# from the SRD's common wording; what it cannot read is named in one line, the GM types it.

_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_ATTACK_TEXT = re.compile(
    r"\b(melee or ranged|melee|ranged)\s+(?:weapon\s+|spell\s+)?attack(?:\s+roll)?\s*:\s*([+-]\s*\d{1,2})", re.I)
_REACH = re.compile(r"\breach\s+(\d{1,4})\s*ft", re.I)
_RANGE = re.compile(r"\brange\s+(\d{1,4})(?:\s*/\s*(\d{1,4}))?\s*ft", re.I)
_HIT_PART = re.compile(r"\b\d{1,4}\s*\((\d{1,3}d\d{1,3}(?:\s*[+\-\u2212]\s*\d{1,4})?)\)\s*([a-z]+)\s+damage", re.I)
_FLAT_PART = re.compile(r"\bhit:\s*(\d{1,4})\s+([a-z]+)\s+damage", re.I)
_SAVE_TEXT = re.compile(r"\bDC\s*(\d{1,2})\s+(strength|dexterity|constitution|intelligence|wisdom|charisma)\s+"
                        r"saving throw", re.I)
_SAVE_2024 = re.compile(r"\b(strength|dexterity|constitution|intelligence|wisdom|charisma)\s+saving throw\s*:"
                        r"\s*DC\s*(\d{1,2})", re.I)
_HALF = re.compile(r"half as much damage|success:\s*half damage", re.I)
_RECHARGE = re.compile(r"\(\s*recharge\s+([2-6])(?:\s*[-\u2013\u2014]\s*6)?\s*\)", re.I)
_RESTED = re.compile(r"\(\s*recharges?\s+after\s+a\s+(?:short\s+or\s+)?long\s+rest\s*\)", re.I)
_PER_DAY = re.compile(r"\(\s*(\d{1,2})\s*/\s*day(?:\s+each)?\s*\)", re.I)
_COSTS = re.compile(r"\(\s*costs\s+([1-3])\s+actions?\s*\)", re.I)
_MULTI = re.compile(r"\b(one|two|three|four|five|six)\s+(?:[\w-]+\s+){0,2}?attacks?\b", re.I)


def _label(name: str, fields: dict[str, Any]) -> str:
    """The action's name with what its parentheses say read into ``fields``: "Fire Breath
    (Recharge 5-6)" is Fire Breath, recharge 5; "(3/Day)" three uses; "(Costs 2 Actions)"."""
    if m := _RECHARGE.search(name):
        fields["recharge"] = int(m.group(1))
    elif _RESTED.search(name):
        fields["per_day"] = 1  # after a Short or Long Rest: once a fight
    if m := _PER_DAY.search(name):
        fields["per_day"] = _int(int(m.group(1)), 1, 20) or 1
    if m := _COSTS.search(name):
        fields["cost"] = int(m.group(1))
    for pattern in (_RECHARGE, _RESTED, _PER_DAY, _COSTS):
        name = pattern.sub("", name)
    return clean_name("".join(c for c in name if c.isprintable()))[:60]


def _multiattack(text: str) -> int | None:
    """"makes two attacks" (2); "makes one Bite attack and two Claw attacks" (3)."""
    found = list(_MULTI.finditer(text))
    if not found:
        return None
    first = found[0]
    if re.fullmatch(r"\S+\s+attacks?", first.group(0), re.I):  # "two attacks: one with ..." counts two
        count = _NUMBERS[first.group(1).lower()]
    else:
        count = sum(_NUMBERS[m.group(1).lower()] for m in found)
    return count if 1 <= count <= 10 else None


def _read_text(who: str, name: str, text: str, fields: dict[str, Any], lines: list[str]) -> None:
    """What the SRD's common wording of an action says, into ``fields`` where a structured
    field has not set it already."""
    if name.casefold().startswith("multiattack"):
        count = _multiattack(text)
        if count:
            fields.setdefault("attacks", count)
        else:
            lines.append(f"{who}: {name}'s attack count left out: the GM types it (--stat actions=)")
        return
    if "attack" not in fields and (m := _ATTACK_TEXT.search(text)):
        fields["attack"], fields["hit"] = m.group(1).lower(), int(re.sub(r"\s", "", m.group(2)))
    if fields.get("attack") and "reach" not in fields and (m := _REACH.search(text)):
        fields["reach"] = _int(int(m.group(1)), 0, 1000) or 0
    if fields.get("attack") and "range" not in fields and (m := _RANGE.search(text)):
        fields["range"] = f"{m.group(1)}/{m.group(2)}" if m.group(2) else m.group(1)
    if "damage" not in fields:
        found = [(m.group(1), m.group(2)) for m in _HIT_PART.finditer(text)] or [
            (m.group(1), m.group(2)) for m in _FLAT_PART.finditer(text)]
        parts = _parts(who, name, [(re.sub(r"\s", "", d).replace("\u2212", "-"), k.lower()) for d, k in found],
                       bool(fields.get("attack")), lines)
        if parts:
            fields["damage"] = parts
        elif re.search(r"\bdamage\b", text, re.I):
            lines.append(f"{who}: {name}'s damage left out (its text gives no dice and type): the GM types it")
    if "save" not in fields:
        m = _SAVE_TEXT.search(text)
        dc, ability = (m.group(1), m.group(2)) if m else (None, None)
        if m is None and (m := _SAVE_2024.search(text)):
            dc, ability = m.group(2), m.group(1)
        if dc and ability:
            fields["save"], fields["dc"] = ability[:3].lower(), int(dc)
        elif re.search(r"saving throw", text, re.I):
            lines.append(f"{who}: {name}'s saving throw left out (no DC and ability read): the GM types it")
    if fields.get("save") and fields.get("damage") and not fields.get("attack") and "half" not in fields:
        fields["half"] = bool(_HALF.search(text))


def _action(fields: dict[str, Any]) -> BlockAction:
    if fields.get("half") and not fields.get("save"):
        fields["half"] = False
    if fields.get("use") != "legendary":
        fields.pop("cost", None)
    return BlockAction(**fields)


def _add(found: list[BlockAction], fields: dict[str, Any]) -> None:
    if fields["name"] and not any(a.name.casefold() == fields["name"].casefold() for a in found):
        found.append(_action(fields))


def _bonus_attack(fields: dict[str, Any], desc: str, bonus: int | None) -> int | None:
    """An attack roll of the file's to-hit ``bonus``, melee or ranged as its desc says (melee
    when it does not): the bonus, for the caller to tell an attack by."""
    if bonus is not None:
        m = _ATTACK_TEXT.search(desc)
        fields["attack"], fields["hit"] = (m.group(1).lower() if m else "melee"), bonus
    return bonus


def _entries(groups: dict[str, list[Any]], key: str) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Each named row of each list (``use`` -> rows), with its fields begun: use, and the name
    with what its parentheses say (recharge, uses a day, legendary cost) read out of it."""
    for use, rows in groups.items():
        for row in rows:
            if isinstance(row, dict) and isinstance(row.get(key), str):
                fields: dict[str, Any] = {"use": use}
                fields["name"] = _label(row[key], fields)
                yield row, fields


def _capped(who: str, found: list[BlockAction], lines: list[str]) -> tuple[tuple[BlockAction, ...], list[str]]:
    """At most the MOST_ACTIONS an actions line holds (srd_5__2/block.py): the rest named, not refused."""
    if len(found) > MOST_ACTIONS:
        names = ", ".join(a.name for a in found[MOST_ACTIONS:])
        lines.append(f"{who}: actions past the first {MOST_ACTIONS} left out ({names[:200]}): the GM types them")
    return tuple(found[:MOST_ACTIONS]), lines


def _rows(value: Any) -> list[Any]:
    """A list field as a list: anything else in its place holds nothing the line can use."""
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def five_e_database(who: str, groups: dict[str, list[Any]]) -> tuple[tuple[BlockAction, ...], list[str]]:
    """5e-database's ``actions``, ``bonus_actions``, ``reactions`` and ``legendary_actions``
    (formats.md, section 1): attack_bonus, damage, dc, usage, multiattack actions; the
    attack's reach and melee or ranged from its desc."""
    found: list[BlockAction] = []
    lines: list[str] = []
    for row, fields in _entries(groups, "name"):
        name, desc = fields["name"], _text(row.get("desc"))
        bonus = _bonus_attack(fields, desc, _int(row.get("attack_bonus"), -10, 30))
        pairs = []
        for dmg in _rows(row.get("damage")):
            if isinstance(dmg, dict) and "choose" in dmg:
                lines.append(f"{who}: {name}'s damage (a choice of damage) left out: the GM types it")
                continue
            kind = dmg.get("damage_type") if isinstance(dmg, dict) else None
            kind = str(kind.get("index") or kind.get("name") or "").lower() if isinstance(kind, dict) else ""
            pairs.append((str(dmg.get("damage_dice", "")).replace(" ", "") if isinstance(dmg, dict) else "", kind))
        parts = _parts(who, name, pairs, bonus is not None, lines)
        if parts:
            fields["damage"] = parts
        dc = row.get("dc")
        if isinstance(dc, dict) and isinstance(dc.get("dc_type"), dict):
            ability = str(dc["dc_type"].get("index", ""))[:3].lower()
            value = _int(dc.get("dc_value"), 1, 40)
            if ability in ABILITIES and value:
                fields["save"], fields["dc"] = ability, value
                fields["half"] = dc.get("success_type") == "half" and bool(parts)
        usage = row.get("usage")
        if isinstance(usage, dict):
            kind = str(usage.get("type", "")).lower()
            if kind == "recharge on roll" and (low := _int(usage.get("min_value"), 2, 6)):
                fields["recharge"] = low
            elif kind == "per day" and (times := _int(usage.get("times"), 1, 20)):
                fields["per_day"] = times
            elif kind == "recharge after rest":
                fields["per_day"] = 1
        multi = row.get("actions") if row.get("multiattack_type") == "actions" else None
        if isinstance(multi, list) and multi:
            # An "ability" row (the dragon's Frightful Presence first) is no attack roll.
            count = sum(_int(int(a["count"]) if str(a.get("count")).isdigit() else a.get("count"), 1, 10) or 0
                        for a in multi if isinstance(a, dict) and a.get("type", "melee") in ("melee", "ranged"))
            if 1 <= count <= 10:
                fields["attacks"] = count
        _read_text(who, name, desc, fields, lines)
        _add(found, fields)
    return _capped(who, found, lines)


def open5e_v1(who: str, groups: dict[str, list[Any]]) -> tuple[tuple[BlockAction, ...], list[str]]:
    """Open5e v1's action lists (formats.md, section 2): attack_bonus and damage_dice, the
    rest (damage type, reach, save, half, Multiattack) from the desc; recharge and uses a day
    from the name."""
    found: list[BlockAction] = []
    lines: list[str] = []
    for row, fields in _entries(groups, "name"):
        name, desc = fields["name"], _text(row.get("desc"))
        # v1 gives attack_bonus 0 to every action that is no attack: an attack is one with
        # damage dice, or one its desc calls an attack (read by _read_text).
        _bonus_attack(fields, desc, _int(row.get("attack_bonus"), -10, 30) if row.get("damage_dice") else None)
        _read_text(who, name, desc, fields, lines)
        dice = str(row.get("damage_dice") or "")
        if dice and "damage" not in fields and not re.search(r"\bdamage\b", desc, re.I):
            lines.append(f"{who}: {name}'s damage {dice} left out (its desc names no damage type): the GM types it")
        _add(found, fields)
    return _capped(who, found, lines)


_V2_USES = {"ACTION": "action", "BONUS_ACTION": "bonus", "REACTION": "reaction", "LEGENDARY_ACTION": "legendary",
            "LAIR_ACTION": "lair"}


def open5e_v2(who: str, rows: list[Any]) -> tuple[tuple[BlockAction, ...], list[str]]:
    """Open5e v2's structured actions (formats.md, section 2): action_type, legendary cost,
    usage_limits, attacks with to-hit, reach, range and damage dice; the save and its half
    from the desc (v2 holds no save field)."""
    found: list[BlockAction] = []
    lines: list[str] = []
    for row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("name"), str):
            continue
        use = _V2_USES.get(str(row.get("action_type", "ACTION")), "action")
        if use == "lair":
            lines.append(f"{who}: lair action {clean_name(row['name'])} left out: the GM runs it")
            continue
        fields: dict[str, Any] = {"use": use}
        fields["name"] = name = _label(row["name"], fields)
        if use == "legendary":
            fields["cost"] = _int(row.get("legendary_action_cost"), 1, 3) or fields.get("cost", 1)
        limit = row.get("usage_limits")
        if isinstance(limit, dict):
            param = limit.get("param")
            if limit.get("type") == "RECHARGE_ON_ROLL" and _int(param, 2, 6):
                fields["recharge"] = _int(param, 2, 6)
            elif limit.get("type") == "PER_DAY" and _int(param, 1, 20):
                fields["per_day"] = _int(param, 1, 20)
            elif limit.get("type") == "RECHARGE_AFTER_REST":
                fields["per_day"] = 1
        attacks = [a for a in _rows(row.get("attacks")) if isinstance(a, dict)]
        if attacks:
            first = attacks[0]
            hit = _int(first.get("to_hit_mod"), -10, 30)
            if hit is not None:
                reach, near = _int(first.get("reach"), 0, 1000), _int(first.get("range"), 0, 9999)
                fields["attack"] = "melee or ranged" if reach and near else "ranged" if near else "melee"
                fields["hit"] = hit
                if reach:
                    fields["reach"] = reach
                if near:
                    far = _int(first.get("long_range"), 0, 9999)
                    fields["range"] = f"{near}/{far}" if far else str(near)
            pairs = []
            for prefix in ("damage_", "extra_damage_"):
                count, die = _int(first.get(f"{prefix}die_count"), 0, 99), str(first.get(f"{prefix}die_type") or "")
                bonus = _int(first.get(f"{prefix}bonus"), -99, 999) or 0
                kind = first.get(f"{prefix}type")
                kind = str(kind.get("key") or kind.get("name") or "").lower() if isinstance(kind, dict) else ""
                if not count and not bonus:
                    continue
                pairs.append((f"{count}{die.lower()}" + (f"{bonus:+d}" if bonus else "") if count else str(bonus), kind))
            parts = _parts(who, name, pairs, False, lines)
            if parts:
                fields["damage"] = parts
            if len(attacks) > 1:
                lines.append(f"{who}: {name}'s other attack forms left out: the first is taken, the GM types the rest")
        _read_text(who, name, _text(row.get("desc")), fields, lines)
        _add(found, fields)
    return _capped(who, found, lines)


def free_text(who: str, groups: dict[str, list[Any]]) -> tuple[tuple[BlockAction, ...], list[str]]:
    """Improved Initiative's ``[{Name, Content}]`` lists (formats.md, section 3): every figure
    read from the SRD's wording of Name and Content."""
    found: list[BlockAction] = []
    lines: list[str] = []
    for row, fields in _entries(groups, "Name"):
        name = fields["name"]
        content = _text(row.get("Content"))
        if m := _RECHARGE.search(content[:40]):  # "(Recharge 5–6)" opening the Content
            fields.setdefault("recharge", int(m.group(1)))
        if m := _PER_DAY.search(content[:40]):
            fields.setdefault("per_day", int(m.group(1)))
        _read_text(who, name, content, fields, lines)
        _add(found, fields)
    return _capped(who, found, lines)
