"""A file's stat block actions as srd-5.2's block actions (projections/rulesets/_srd_block.py),
and a line for each figure of them the fight cannot use.

:func:`structured` reads the shape of the bundled SRD 5.2 bestiary (``data/``): one object an
action with ``kind``, ``attack``, ``attack_bonus``, ``reach``, ``range``, ``damage``
(``[{dice, type}]``), ``save`` (``{ability, dc}``), ``area``, ``recharge``, ``uses_per_day``,
``legendary_cost`` and ``multiattack`` (../shared/data/README.md lists them). The other
formats' readers build the same :class:`BlockAction` from their own fields.

Choices the files leave to the reader, each said in the README (Stat blocks):
- A save with an area (a breath, a burst) deals half on a success; one without deals none:
  the files do not say, and that is how the SRD 5.2's area actions read ("Success: Half
  damage"). ``--with half=yes|no`` overrides it at the table.
- A later damage part of the same type as an earlier one is the SRD 5.2 goblins' "plus 1d4
  if the attack roll had Advantage": it is dealt only with Advantage.
- "Recharge after a Short or Long Rest" is one use in the fight (1/day).
"""

from __future__ import annotations

import re
from typing import Any

from skirmish.projections.rulesets._srd_block import ABILITIES, DAMAGE_TYPES, BlockAction, Part, clean_name

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
        parts, types = [], set()
        for dmg in row.get("damage") or []:
            dice, kind = str(dmg.get("dice", "")).replace(" ", ""), str(dmg.get("type", "")).lower()
            if not _DICE.match(dice) or kind not in DAMAGE_TYPES:
                lines.append(f"{who}: {name}'s damage {dice or '?'} {kind or '?'} left out: the GM types it")
                continue
            parts.append(Part(dice, kind, advantage=kind in types and bool(fields.get("attack"))))
            types.add(kind)
        if parts:
            fields["damage"] = tuple(parts)
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


def _int(value: Any, low: int, high: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        return None
    return int(value) if low <= int(value) <= high else None
