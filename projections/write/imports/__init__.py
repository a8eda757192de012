"""Stat blocks and fights GMs already have (5e-database, Open5e, Improved Initiative), read as rosters.

A JSON file given to `add NAME --from FILE` or `roster check FILE` is read here; a TOML
file is a roster (projections/roster.py). The format is told from the content, never the
file name (:func:`read`): one refusal names what was expected when none fits. Every reader
turns its entries into :class:`~skirmish.projections.write.imports.record.Creature` records
named in the stat names of the SRD 5.2 ruleset (``hp``, ``ac``, ``dex``, ``init``,
``legendary``, ``pc``, ``speed``, ``resist``, ``vulnerable``, ``immune``), and
projections/write/imports/mapping.py maps those into the stats a ruleset asks for, naming in
one line each field it could not map. The shapes read are those of
docs/imports.md (sections 1 to 3), field by field.

A file is hostile input: each reader checks every field it reads (type, range, one line
of printable text) and refuses the whole file with one BadInput naming the entry and the
field, before anything reaches the log.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from skirmish.eventlog.errors import BadInput
from skirmish.eventlog.text import quoted
from skirmish.projections.write.imports.record import Imported

# bytes: the whole 5e-database 2014 monster list is about 1.34 MB, an Improved Initiative
# export of a long campaign a few MB; larger is no stat block file (a TOML roster: 1 MB).
LARGEST_FILE = 8_000_000


def read_bounded(path: Path, what: str = "") -> bytes:
    """The file's bytes, at most one past :data:`LARGEST_FILE` (what is larger is refused
    without reading it all); one BadInput if it cannot be read."""
    try:
        with path.open("rb") as f:
            return f.read(LARGEST_FILE + 1)
    except OSError as e:
        raise BadInput(f"cannot read {what}{str(path)!r}: {e.strerror or e}") from None


def looks_like_json(raw: bytes) -> bool:
    """Whether a roster file's bytes are a JSON stat block file rather than TOML: an object
    (``{``: no TOML document opens so), or a list of objects (``[`` then ``{``, where a TOML
    table header ``[Orc]`` has a name)."""
    head = raw.lstrip()
    return head[:1] == b"{" or head[:1] == b"[" and head[1:].lstrip()[:1] in (b"{", b"]")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a stat block holds")


def decode(path: Path, raw: bytes) -> Any:
    """The file's JSON, or one BadInput naming the file and what is wrong."""
    where = f"file {str(path)!r}"
    if len(raw) > LARGEST_FILE:
        raise BadInput(f"{where} is over {LARGEST_FILE:,} bytes: not a roster or stat block file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BadInput(f"{where} is not UTF-8 text") from None
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except RecursionError:
        raise BadInput(f"{where} nests too deep to be a stat block file") from None
    except ValueError as e:  # JSONDecodeError, a constant refused, an integer of 4,300 digits
        raise BadInput(f"{where} is not valid JSON: {str(e).splitlines()[0][:120]}") from None


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is not a finite number")
    return value


def read(path: Path, raw: bytes | None = None) -> Imported:
    """The file's creatures, characters and saved fights, whichever format it is in."""
    from skirmish.projections.write.imports import improved, monsters

    if raw is None:
        raw = read_bounded(path)
    data = decode(path, raw)
    where = f"file {str(path)!r}"
    if improved.is_improved_initiative(data):
        return improved.read(data, where)
    found = monsters.read(data, where)
    if found is not None:
        return found
    raise BadInput(
        f"{where} is JSON in no format skirmish reads (5e-database or Open5e monsters, an Improved "
        f"Initiative export); it opens with {quoted(_opening(data), 40)}"
    )


def other_json(path: Path, raw: bytes) -> BadInput | None:
    """The refusal of a file that is JSON of a shape no stat block file has (a list of lists, a
    number: what `looks_like_json` leaves to the TOML reader), naming its shape; None when
    the bytes are not JSON at all (a roster that is not valid TOML, said as that)."""
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, RecursionError):  # not UTF-8 or not JSON (UnicodeDecodeError is a ValueError)
        return None
    return BadInput(f"file {str(path)!r} is JSON, but not a stat block file skirmish reads ({_shape(data)}; "
                    "5e-database, Open5e or Improved Initiative JSON expected)")


_KINDS = {list: "lists", dict: "objects", str: "text", bool: "true or false", type(None): "nulls"}


def _shape(data: Any) -> str:
    """A JSON value's shape in a few words: "a list of lists", "a number"."""
    if isinstance(data, list):
        kinds = {"numbers" if type(item) in (int, float) else _KINDS[type(item)] for item in data}
        return f"a list of {kinds.pop()}" if len(kinds) == 1 else "a list" if kinds else "an empty list"
    if type(data) in (int, float):
        return "a number"
    return {dict: "an object", str: "a text", bool: "true or false"}.get(type(data), "null")


def _opening(data: Any) -> str:
    if isinstance(data, dict):
        return "{" + ", ".join(repr(k) for k in list(data)[:3]) + (", ..." if len(data) > 3 else "") + "}"
    if isinstance(data, list):
        return f"a list of {len(data)}"
    return type(data).__name__


def srd_entries(path: Path) -> dict[str, dict[str, int | str]]:
    """The file's stat blocks by name, each in the srd-5.2 ruleset's stat names (record.py)."""
    from skirmish.projections.write.imports.record import srd_stats

    return {name: srd_stats(creature) for name, creature in read(path).creatures.items()}
