"""Plain-text renderings of a state view, and what changed between two views, for any ruleset."""

from __future__ import annotations

from typing import Any

# Keys every combatant row has that are not figures to tabulate.
_IDENTITY = ("name", "side")


def _effects(effects: list[dict[str, Any]]) -> str:
    parts = []
    for e in effects:
        detail = []
        if e.get("per_round"):
            detail.append(f"{e['per_round']}/round")
        if e.get("rounds") is not None:
            detail.append(f"{e['rounds']} rd")
        parts.append(e["kind"] + (f" ({', '.join(detail)})" if detail else ""))
    return ", ".join(parts) or "-"


def cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        if all(isinstance(v, dict) and "kind" in v for v in value):
            return _effects(value)
        return ", ".join(cell(v) for v in value) or "-"
    if isinstance(value, dict):
        return ", ".join(f"{k} {cell(v)}" for k, v in value.items()) or "-"
    return str(value)


def render_state(view: dict[str, Any]) -> str:
    clock = ", ".join(
        f"{k.replace('_', ' ')} {cell(v)}" for k, v in view.get("clock", {}).items()
    )
    head = "" if view["at"] == view["head"] else f" (head #{view['head']})"
    lines = [
        f"{view['encounter']} ({view['ruleset']}), branch {view['branch']}, at #{view['at']}{head}",
        f"round {view['round']}" + (f", {clock}" if clock else ""),
    ]
    combatants = view.get("combatants", [])
    if combatants:
        columns = [k for k in combatants[0] if k not in _IDENTITY]
        header = ["name", "side", *columns]
        rows = [[cell(row.get(k)) for k in header] for row in combatants]
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
        lines.append("  ".join(h.replace("_", " ").ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
        for r in rows:
            lines.append("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())
    else:
        lines.append("no combatants yet")
    for p in view.get("pending", []):
        extra = ", ".join(
            f"{k.replace('_', ' ')} {cell(v)}" for k, v in p.items() if k not in ("who", "action") and v not in (None, 0)
        )
        lines.append(f"pending: {p['who']} {p['action']}" + (f" ({extra})" if extra else ""))
    for e in view.get("environment", []):
        lines.append(f"scene: {e['name']} {e['value']} ({e['per_round']:+d} each upkeep)")
    return "\n".join(lines)


def view_changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Figure by figure, what differs between two views of the same encounter."""
    changes: list[str] = []
    old = {c["name"]: c for c in before.get("combatants", [])}
    for c in after.get("combatants", []):
        prior = old.get(c["name"])
        if prior is None:
            continue
        for key, value in c.items():
            if key in _IDENTITY or prior.get(key) == value:
                continue
            changes.append(f"{c['name']}: {key.replace('_', ' ')} {cell(prior.get(key))} -> {cell(value)}")
    return changes
