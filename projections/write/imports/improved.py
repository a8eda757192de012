"""An Improved Initiative export: its stat blocks, persistent characters and saved fights.

Shapes: docs/imports.md, section 3 (the full export, the library export, and the
localStorage copies whose values are JSON strings). A stat block's initiative modifier is
its Dexterity modifier plus ``InitiativeModifier``; its hit dice are in ``HP.Notes``. A
saved fight (``SavedEncounters.<id>``, or the fight in progress under
``ImprovedInitiative.AutoSavedEncounters.default``) keeps each combatant's hit points,
temporary ones, initiative and tags; missing keys take Improved Initiative's defaults
(full hit points, no temporary ones, no tags).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from skirmish.eventlog.errors import BadInput
from skirmish.eventlog.text import quoted
from skirmish.projections.write.imports.record import (
    Creature, Fields, Fight, Imported, Seat, Tag, con_save, conditions, feet, hit_dice, modifier, saves_of,
    senses_line,
)
from skirmish.projections.write.imports.actions import free_text

_LISTS = ("Creatures", "PersistentCharacters", "SavedEncounters", "Spells")
_KEY = re.compile(r"^(?:ImprovedInitiative\.)?(Creatures|PersistentCharacters|SavedEncounters|Spells)\.(.+)$")
IN_PROGRESS = "ImprovedInitiative.AutoSavedEncounters.default"
IN_PROGRESS_NAME = "default"  # the fight in progress, as `--fight` names it


def is_improved_initiative(data: Any) -> bool:
    return isinstance(data, dict) and any(
        isinstance(k, str) and (_KEY.match(k) or k.startswith("ImprovedInitiative.") or k in _LISTS) for k in data
    )


def _value(where: str, key: str, value: Any) -> Any:
    """A localStorage copy holds JSON text: decode it (one refusal naming the key)."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        raise BadInput(f"{where}, {quoted(key, 60)}: its text is not valid JSON") from None


def read(data: dict[str, Any], where: str) -> Imported:
    where = f"Improved Initiative export {where.removeprefix('file ')}"
    creatures: dict[str, Creature] = {}
    current: dict[str, int] = {}
    fights: dict[str, Fight] = {}
    characters: dict[str, str] = {}  # persistent character id -> name

    characters_named: set[str] = set()
    named: dict[str, str] = {}  # lower-cased name -> the name as read: one look-up a stat block

    def put(creature: Creature, fields: Fields, character: bool = False) -> None:
        # A character's stat block may also sit in the library: the persistent character,
        # with its hit points now, is the one `add` takes.
        key = creature.name.lower()
        same = named.get(key)
        if same is not None and (not character or key in characters_named):
            raise fields.fault("Name", "is given twice in the export")
        if same is not None:
            del creatures[same]
        if character:
            characters_named.add(key)
        named[key] = creature.name
        creatures[creature.name] = creature

    blocks: list[tuple[str, dict[str, Any]]] = []
    persons: list[tuple[str, dict[str, Any]]] = []
    saved: list[tuple[str, dict[str, Any]]] = []
    for key, raw in data.items():
        found = _KEY.match(key) if isinstance(key, str) else None
        if found is None or found.group(1) == "Spells":
            continue
        value = _value(where, key, raw)
        if not isinstance(value, dict):
            raise BadInput(f"{where}, {quoted(key, 60)}: an entry is an object")
        {"Creatures": blocks, "PersistentCharacters": persons, "SavedEncounters": saved}[found.group(1)].append(
            (key, value))
    for key, value in blocks:
        fields = Fields(where, value, quoted(key, 60))
        put(stat_block(fields, f"Improved Initiative, {key}"), fields)
    for key, value in persons:
        fields = Fields(where, value, quoted(key, 60))
        block = stat_block(Fields(where, fields.table("StatBlock", required=True), quoted(key, 60) + " StatBlock"),
                           f"Improved Initiative, {key}", name=fields.name("Name") if fields.get("Name") else None,
                           pc=True)
        hp = fields.integer("CurrentHP", low=0)
        if hp is not None:
            if hp > block.hp:
                raise fields.fault("CurrentHP", f"{hp} is above the character's {block.hp} hit points")
            current[block.name] = hp
            if hp < block.hp:
                block = replace(block, current=hp)
        put(block, fields, character=True)
        if isinstance(value.get("Id"), str):
            characters[value["Id"]] = block.name
    for key, value in saved:
        fields = Fields(where, value, quoted(key, 60))
        name = fields.text("Name") or key.rsplit(".", 1)[-1]
        fights[name] = fight(fields, name, f"Improved Initiative, {key}", characters, creatures)
    if IN_PROGRESS in data:
        value = _value(where, IN_PROGRESS, data[IN_PROGRESS])
        if not isinstance(value, dict):
            raise BadInput(f"{where}, {quoted(IN_PROGRESS)}: the fight in progress is an object")
        fights[IN_PROGRESS_NAME] = fight(Fields(where, value, quoted(IN_PROGRESS)), IN_PROGRESS_NAME,
                                         f"Improved Initiative, {IN_PROGRESS}", characters, creatures)
    if not creatures and not fights:
        raise BadInput(f"{where} holds no stat blocks, characters or saved fights")
    return Imported(format="Improved Initiative", creatures=creatures, current=current, fights=fights)


def stat_block(f: Fields, source: str, name: str | None = None, pc: bool = False) -> Creature:
    hp_part = Fields(f.where, f.table("HP", required=True), f.label)
    hp = hp_part.integer("Value", low=1, required=True)
    assert hp is not None
    ac = Fields(f.where, f.table("AC"), f.label).integer("Value", low=0)
    abilities = Fields(f.where, f.table("Abilities"), f.label)
    dex_score = abilities.integer("Dex", low=1)
    dex = modifier(dex_score) if dex_score is not None else None
    bonus = f.integer("InitiativeModifier") or 0
    speeds = f.rows("Speed")
    player = f.text("Player") or ""
    notes = hp_part.text("Notes") or ""
    dice = hit_dice(hp_part, "Notes", notes) if re.fullmatch(r"\s*\(?\s*\d+\s*d\s*\d+.*", notes) else None
    name = name or f.name("Name")
    saves = saves_of([(s.get("Name"), s.get("Modifier")) for s in f.rows("Saves") if isinstance(s, dict)])
    actions, left_out = free_text(name, {
        use: f.rows(key) for use, key in (("action", "Actions"), ("bonus", "BonusActions"),
                                          ("reaction", "Reactions"), ("legendary", "LegendaryActions"))})
    return Creature(
        name=name, source=source, hp=hp, pc=pc or player == "player", hit_dice=dice, ac=ac,
        dex=dex, init=(dex or 0) + bonus if dex is not None or bonus else None,
        speed=feet(f, "Speed", speeds[0]) if speeds else None,
        legendary=3 if f.rows("LegendaryActions") else 0,
        resist=f.texts("DamageResistances"), vulnerable=f.texts("DamageVulnerabilities"),
        immune=(*f.texts("DamageImmunities"), *conditions(f, "ConditionImmunities")),
        con=con_save(saves, abilities.integer("Con", low=1)), saves=saves, actions=actions,
        left_out=tuple(left_out), senses=senses_line(f.get("Senses")),
    )


def fight(f: Fields, name: str, source: str, characters: dict[str, str], library: dict[str, Creature]) -> Fight:
    """A saved fight's combatants. A combatant's stat block cut down to its name (II fills the
    rest from its defaults) is the file's stat block of that name, where it has one."""
    seats: list[Seat] = []
    taken: set[str] = set()
    known = {n.lower(): b for n, b in library.items()}
    ids: dict[str, str] = {}
    raw = f.rows("Combatants")
    for number, entry in enumerate(raw, 1):
        if not isinstance(entry, dict):
            raise f.fault("Combatants", f"entry {number} is not an object")
        ids[str(entry.get("Id", number))] = ""
    for number, entry in enumerate(raw, 1):
        c = Fields(f.where, entry, f"{f.label} combatant {number}")
        raw_block = c.table("StatBlock", required=True)
        cut = "HP" not in raw_block and isinstance(raw_block.get("Name"), str)
        if cut and raw_block["Name"].strip().lower() in known:
            block = known[raw_block["Name"].strip().lower()]
        else:
            block = stat_block(Fields(c.where, raw_block, c.label + " StatBlock"), source)
        alias = c.text("Alias") or ""
        index = c.get("IndexLabel")  # a number in II's types; text in hand-edited files
        label = str(c.integer("IndexLabel", low=0)) if isinstance(index, (int, float)) else c.text("IndexLabel")
        persistent = c.get("PersistentCharacterId")
        shown = alias or characters.get(persistent, "") if isinstance(persistent, str) else alias
        seat_name = c.name("Alias", shown) if shown else c.name("StatBlock.Name", f"{block.name} {label}" if label else block.name)
        if seat_name.lower() in taken:
            raise c.fault("Alias", f"{seat_name!r} names two combatants: give each an Alias or IndexLabel")
        taken.add(seat_name.lower())
        ids[str(entry.get("Id", number))] = seat_name
        hp = c.integer("CurrentHP", low=-block.hp)
        hp = block.hp if hp is None else hp
        if hp > block.hp:
            raise c.fault("CurrentHP", f"{hp} is above the stat block's {block.hp} hit points")
        seats.append(Seat(
            name=seat_name, creature=block, hp=hp, temp_hp=c.integer("TemporaryHP", low=0) or 0,
            initiative=c.integer("Initiative"), tags=tuple(_tag(c, t, n) for n, t in enumerate(c.rows("Tags"), 1)),
        ))
    seats = [Seat(s.name, s.creature, s.hp, s.temp_hp, s.initiative,
                  tuple(Tag(t.text, t.left, t.timing, ids.get(t.whose, "")) for t in s.tags)) for s in seats]
    acting = f.get("ActiveCombatantId")
    return Fight(
        name=name, source=source, round=f.integer("RoundCounter", low=0) or 0,
        acting=ids.get(str(acting)) if acting is not None else None, seats=tuple(seats),
    )


def _tag(c: Fields, raw: Any, number: int) -> Tag:
    if not isinstance(raw, dict):
        raise c.fault(f"Tags[{number}]", "is not an object")
    t = Fields(c.where, raw, f"{c.label} tag {number}")
    text = t.text("Text", required=True)
    assert text is not None
    left = t.integer("DurationRemaining", low=-1)
    timing = t.text("DurationTiming") or ""
    if timing and timing not in ("StartOfTurn", "EndOfTurn"):
        raise t.fault("DurationTiming", f"is StartOfTurn or EndOfTurn, not {quoted(timing, 40)}")
    whose = raw.get("DurationCombatantId")
    return Tag(text=text, left=None if left is None or left < 0 else left, timing=timing,
               whose=str(whose) if whose is not None else "")
