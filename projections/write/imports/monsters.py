"""Monster lists from 5e-bits/5e-database (2014 and 2024 shapes) and the Open5e API (v1 and v2).

Shapes: docs/imports.md, sections 1 (5e-database) and 2 (Open5e). Neither gives an
initiative field in 5e-database (the Dexterity modifier is the initiative modifier) nor
legendary action uses per round anywhere but Open5e v1's ``legendary_desc``: a stat block
with legendary actions and no count takes 3, the SRD's default (formats.md, section 1).
"""

from __future__ import annotations

import re
from typing import Any

from skirmish.eventlog.errors import BadInput
from skirmish.projections.write.imports import actions as read_actions
from skirmish.projections.write.imports.record import (
    ABILITY_NAMES, Creature, Fields, Imported, con_save, conditions, feet, hit_dice, modifier, saves_of, senses_line,
)

LEGENDARY_DEFAULT = 3  # uses per round when a stat block has legendary actions and no count
def read(data: Any, where: str) -> Imported | None:
    """The monsters of a 5e-database or Open5e file; None when it is neither."""
    entries = data.get("results") if isinstance(data, dict) and "results" in data else data
    if isinstance(entries, dict):
        entries = [entries]
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        if isinstance(entries, list) and entries and isinstance(data, (list, dict)):
            first = next((i for i, e in enumerate(entries) if not isinstance(e, dict)), 0)
            if any(isinstance(e, dict) and ("index" in e or "slug" in e or "key" in e) for e in entries):
                raise BadInput(f"{where}, entry {first + 1}: a monster is an object")
        return None
    first = entries[0]
    if "index" in first and "hit_points" in first:
        year = "2024" if any("xp_in_lair" in e or "bonus_actions" in e or "/2024/" in str(e.get("url", ""))
                             for e in entries) else "2014"
        return _collect(f"5e-database ({year})", where, entries, _five_e_database)
    if "slug" in first and "hit_points" in first:
        return _collect("Open5e v1", where, entries, _open5e_v1)
    if "key" in first and "hit_points" in first:
        return _collect("Open5e v2", where, entries, _open5e_v2)
    return None


def _collect(fmt: str, where: str, entries: list[dict[str, Any]], reader: Any) -> Imported:
    creatures: dict[str, Creature] = {}
    taken: set[str] = set()
    for number, entry in enumerate(entries, 1):
        label = f"{number}"
        raw_name = entry.get("name")
        if isinstance(raw_name, str) and raw_name.isprintable() and len(raw_name) <= 60:
            label = f"{number} ({raw_name!r})"
        fields = Fields(f"{fmt} file {where.removeprefix('file ')}", entry, label)
        creature: Creature = reader(fields, f"{fmt}, entry {label}")
        if creature.name.lower() in taken:
            raise fields.fault("name", "is given twice in the file")
        taken.add(creature.name.lower())
        creatures[creature.name] = creature
    return Imported(format=fmt, creatures=creatures)


def _hp(fields: Fields) -> int:
    hp = fields.integer("hit_points", low=1, required=True)
    assert hp is not None
    return hp


def _five_e_database(f: Fields, source: str) -> Creature:
    f.text("index", required=True)
    armor = f.get("armor_class")
    if isinstance(armor, list):  # [{type, value, ...}]: the first is the stat block's AC
        if not armor or not isinstance(armor[0], dict):
            raise f.fault("armor_class", "must be a list of {type, value}")
        ac = f.integer("armor_class", armor[0].get("value"), low=0, required=True)
    else:  # older files: a number
        ac = f.integer("armor_class", low=0)
    dex_score = f.integer("dexterity", low=1)
    dex = modifier(dex_score) if dex_score is not None else None
    speed = f.table("speed")
    name = f.name()
    saves = saves_of([(str(p["proficiency"].get("index", ""))[len("saving-throw-"):], p.get("value"))
                    for p in f.rows("proficiencies") if isinstance(p, dict) and isinstance(p.get("proficiency"), dict)
                    and str(p["proficiency"].get("index", "")).startswith("saving-throw-")])
    actions, left_out = read_actions.five_e_database(name, {
        use: f.rows(key) for use, key in (("action", "actions"), ("bonus", "bonus_actions"),
                                          ("reaction", "reactions"), ("legendary", "legendary_actions"))})
    return Creature(
        name=name, source=source, hp=_hp(f),
        hit_dice=hit_dice(f, "hit_points_roll") or hit_dice(f, "hit_dice"),
        ac=ac, dex=dex, init=dex, speed=feet(f, "speed.walk", speed.get("walk")),
        legendary=LEGENDARY_DEFAULT if f.rows("legendary_actions") else 0,
        resist=f.texts("damage_resistances"), vulnerable=f.texts("damage_vulnerabilities"),
        immune=(*f.texts("damage_immunities"), *conditions(f, "condition_immunities")),
        con=con_save(saves, f.integer("constitution", low=1)), saves=saves, actions=actions,
        left_out=tuple(left_out), senses=senses_line(f.get("senses")),
    )


_LEGENDARY_COUNT = re.compile(r"take (\d{1,2}) legendary actions?", re.IGNORECASE)


def _split(f: Fields, key: str) -> tuple[str, ...]:
    """Open5e v1 damage fields: one string, "cold; bludgeoning, piercing" (or empty), as its
    clauses: "bludgeoning, piercing, and slashing from nonmagical attacks" is one."""
    text = f.text(key) or ""
    return tuple(part.strip() for part in text.split(";") if part.strip())


def _open5e_v1(f: Fields, source: str) -> Creature:
    dex_score = f.integer("dexterity", low=1)
    dex = modifier(dex_score) if dex_score is not None else None
    legendary = 0
    desc = f.get("legendary_desc")
    if isinstance(desc, str) and (count := _LEGENDARY_COUNT.search(desc)):
        legendary = int(count.group(1))
    elif f.rows("legendary_actions"):
        legendary = LEGENDARY_DEFAULT
    name = f.name()
    saves = saves_of([(a, f.get(f"{a}_save")) for a in ABILITY_NAMES])
    actions, left_out = read_actions.open5e_v1(name, {
        use: f.rows(key) for use, key in (("action", "actions"), ("bonus", "bonus_actions"),
                                          ("reaction", "reactions"), ("legendary", "legendary_actions"))})
    return Creature(
        name=name, source=source, hp=_hp(f), hit_dice=hit_dice(f, "hit_dice"),
        ac=f.integer("armor_class", low=0), dex=dex, init=dex,
        speed=feet(f, "speed.walk", f.table("speed").get("walk")), legendary=legendary,
        resist=_split(f, "damage_resistances"), vulnerable=_split(f, "damage_vulnerabilities"),
        immune=(*_split(f, "damage_immunities"), *conditions(f, "condition_immunities")),
        con=con_save(saves, f.integer("constitution", low=1)), saves=saves, actions=actions,
        left_out=tuple(left_out), senses=senses_line(f.get("senses")),
    )


def _open5e_v2(f: Fields, source: str) -> Creature:
    f.text("key", required=True)
    scores = f.table("ability_scores")
    dex_score = f.integer("ability_scores.dexterity", scores.get("dexterity"), low=1)
    dex = modifier(dex_score) if dex_score is not None else None
    init = f.integer("initiative_bonus")
    traits = Fields(f.where, f.table("resistances_and_immunities"), f.label)
    actions = f.rows("actions")
    legendary = any(isinstance(a, dict) and a.get("action_type") == "LEGENDARY_ACTION" for a in actions)
    name = f.name()
    saves = saves_of(list(f.table("saving_throws").items()))
    found, left_out = read_actions.open5e_v2(name, actions)
    return Creature(
        name=name, source=source, hp=_hp(f), hit_dice=hit_dice(f, "hit_dice"),
        ac=f.integer("armor_class", low=0), dex=dex, init=init if init is not None else dex,
        speed=feet(f, "speed.walk", f.table("speed").get("walk")),
        legendary=LEGENDARY_DEFAULT if legendary else 0,
        resist=traits.texts("damage_resistances"), vulnerable=traits.texts("damage_vulnerabilities"),
        immune=(*traits.texts("damage_immunities"), *conditions(traits, "condition_immunities")),
        con=con_save(saves, f.integer("ability_scores.constitution", scores.get("constitution"), low=1)),
        saves=saves, actions=found, left_out=tuple(left_out),
        senses=senses_line({k: v for k, v in f.entry.items() if k.endswith("_range") or k == "passive_perception"}),
    )
