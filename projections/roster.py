"""Roster files: a party or a bestiary, each entry's stats per ruleset, so `add` need not retype them.

A roster is TOML (read with the standard library's tomllib), one table per entry, named
as the GM will type it, with an optional ``side`` and one sub-table of stats per ruleset
id::

    [Goblin]
    side = "foes"
    ap-countdown = { qu = 0, hits = 12 }
    modular = { agility = 20, dodge = 10, health = 12 }

`add Goblin --from bestiary.toml` takes the entry's side and its stats under the
encounter's ruleset (stats typed on the line win); `add Goblin --from bestiary.toml
--count 4` adds Goblin 1 to Goblin 4. `skirmish roster check FILE --rules R` checks every
entry against the ruleset's stats, naming each entry at fault. A roster file is input
from outside: every name and value is checked before it reaches the log.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skirmish.eventlog.errors import BadInput
from skirmish.projections import names
from skirmish.projections.write.imports.record import Creature, Imported
from skirmish.projections.ruleset import Ruleset, check_name, check_stats, check_traits

ENTRY_KEYS = ("side", "note")
LARGEST_FILE = 1_000_000  # bytes: a roster is a few hundred entries at most


@dataclass(frozen=True)
class Entry:
    name: str
    side: str | None
    stats: dict[str, dict[str, str]]  # ruleset id -> stat -> value as typed
    imported: Creature | None = None  # a stat block read from JSON (projections/write/imports/): mapped per ruleset


def _short(text: str, limit: int = 60) -> str:
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def load(path: Path) -> dict[str, Entry]:
    """The roster's entries by name; one BadInput naming the file and what is wrong."""
    import tomllib

    from skirmish.projections.write import imports

    raw = imports.read_bounded(path, "roster ")
    if imports.looks_like_json(raw):  # a stat block file (5e-database, Open5e, Improved Initiative): its own limit
        return _entries(path, imports.read(path, raw))
    if len(raw) > LARGEST_FILE:
        raise BadInput(f"roster {str(path)!r} is over {LARGEST_FILE:,} bytes: not a roster")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise BadInput(f"roster {str(path)!r} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        # JSON of another shape than a stat block file's is said as that, not as broken TOML.
        raise imports.other_json(path, raw) or BadInput(f"roster {str(path)!r} is not valid TOML: {e}") from None
    entries: dict[str, Entry] = {}
    seen = names.Seen()  # the names so far: one lookup an entry, not a pass over them
    for name, body in data.items():
        where = f"roster {str(path)!r}, entry {_short(name)}"
        if not isinstance(body, dict):
            raise BadInput(f"{where}: an entry is a table ([{name}] with side and stats per ruleset)")
        checked = check_name("a combatant", name)
        side = body.get("side")
        if side is not None and not isinstance(side, str):
            raise BadInput(f"{where}: side is text, e.g. side = \"foes\"")
        stats: dict[str, dict[str, str]] = {}
        for key, value in body.items():
            if key in ENTRY_KEYS:
                continue
            if not isinstance(value, dict):
                raise BadInput(f"{where}: {_short(key)} is neither side, note nor a ruleset's stats table")
            stats[key] = {k: _stat_text(where, key, k, v) for k, v in value.items()}
        if (before := seen.add(checked)) is not None:
            twice = names.same(checked, before)
            raise BadInput(f"{where}: the name is given twice" if twice else
                           f"{where}: {names.refusal('an entry', checked, before)}")
        entries[checked] = Entry(checked, check_name("a side", side) if side is not None else None, stats)
    if not entries:
        raise BadInput(f"roster {str(path)!r} has no entries")
    return entries



def _entries(path: Path, found: Imported) -> dict[str, Entry]:
    """A stat block file's creatures as roster entries, each on the side its stat block gives."""
    from skirmish.projections.write.imports.mapping import side_of

    if not found.creatures:
        raise BadInput(f"file {str(path)!r} holds no stat blocks ({found.format}): see `new --from` for its fights")
    return {name: Entry(name, side_of(c), {}, imported=c) for name, c in found.creatures.items()}

def _stat_text(where: str, ruleset_id: str, key: str, value: Any) -> str:
    # Only a value that is not a number asks the ruleset (loading it) whether it is text.
    if not isinstance(value, int) and _text_stat(ruleset_id, key):
        # A text stat (Stat(kind=str)): a string, or a list of them joined with commas.
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return ",".join(value)
        if isinstance(value, str):
            return value
        raise BadInput(f"{where}: {ruleset_id} stat {_short(key)} is text or a list of texts, not {_short(str(value))}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"{where}: {ruleset_id} stat {_short(key)} must be a whole number, not {_short(str(value))}")
    return str(value)


def _text_stat(ruleset_id: str, key: str) -> bool:
    """Whether the ruleset (if installed) reads ``key`` as text (``Stat(kind=str)``)."""
    from skirmish.projections.refusals import UnknownRuleset
    from skirmish.projections.ruleset import get_ruleset

    try:
        spec = get_ruleset(ruleset_id).stats.get(key)
    except UnknownRuleset:
        return False
    return spec is not None and spec.kind is str


def find(entries: Mapping[str, Entry], wanted: str, path: Path) -> Entry:
    for name, entry in entries.items():
        if names.same(name, wanted):
            return entry
    from skirmish.projections.ruleset import suggest

    raise BadInput(f"roster {str(path)!r} has no entry {_short(wanted)} ({suggest(wanted, list(entries))})")


def stats_for(entry: Entry, ruleset: Ruleset[Any], path: Path) -> dict[str, str]:
    """The entry's stats under ``ruleset``, as typed; the ruleset checks them when added."""
    if entry.imported is not None:
        from skirmish.projections.write.imports.mapping import stats_for as mapped

        return mapped(entry.imported, ruleset)[0]
    found = entry.stats.get(ruleset.id)
    if found is None:
        has = ", ".join(entry.stats) or "none"
        raise BadInput(f"roster {str(path)!r}, entry {_short(entry.name)} has no {ruleset.id} stats (it has: {has})")
    return found


def check(path: Path, ruleset: Ruleset[Any]) -> list[str]:
    """Every entry checked against ``ruleset``: one line per entry at fault (empty: all good)."""
    faults = []
    for entry in load(path).values():
        try:
            typed = stats_for(entry, ruleset, path)
            check_stats(ruleset, entry.name, typed)
            check_traits(ruleset, entry.name, typed)
        except BadInput as e:
            faults.append(f"{entry.name}: {e}")
    return faults


def left_out(entries: Mapping[str, Entry], ruleset: Ruleset[Any]) -> list[str]:
    """For stat blocks read from JSON, one line per field ``ruleset`` cannot hold (imports/mapping.py)."""
    from skirmish.projections.write.imports.mapping import stats_for as mapped

    return [line for e in entries.values() if e.imported is not None for line in mapped(e.imported, ruleset)[1]]
