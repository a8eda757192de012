"""The wire format of the replay page's data, written once: these Structs are its schema.

projections/page/data.py builds the data with them, msgspec encodes them, the page's script
reads them (projections/page/fold.mjs names an entry's positions), and docs/wire-schema.json
is their JSON Schema, generated from them (``python -m skirmish.projections.page.wire``;
tests/page/test_wire.py holds the file equal to what they give).

An entry is an array (a long fight's page holds 100,000 of them: read by position, a field
is only ever added at the end); everything else is an object. A board is the view after an
event as a *delta* from the view after its parent: only what changed (a combatant new to the
board whole). The page folds the deltas back into the board at any moment (fold.mjs).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

__all__ = ["FORMAT", "Board", "Branch", "Change", "Entry", "Harming", "Healing", "Hit", "HitBy", "PageData",
           "PageNote", "Summarised", "Totals", "WITHHELD", "Waiting", "fields", "schema"]

FORMAT = 1  # the shape of the page's data (PageData.format)


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


# --- an event -----------------------------------------------------------------------------


class Hit(msgspec.Struct, frozen=True, array_like=True):
    """The damage an event did: [victim, amount]."""

    victim: str  # the combatant's key (the board's ``o`` and ``c`` keys)
    amount: int  # in the rules' unit (PageData.unit)


class HitBy(Hit, frozen=True, array_like=True):
    """Damage with the attacker the event records: [victim, amount, attacker]."""

    attacker: str  # a combatant's key


class Healing(Hit, frozen=True, array_like=True):
    """What an event gave back: [victim, amount, healer or null, 1]."""

    by: str | None
    healed: Literal[1] = 1


# Nothing an entry holds refers back to it, so the garbage collector need not track them (gc=False).


class Entry(msgspec.Struct, array_like=True, gc=False):
    """One event as the page holds it: [id, back, command, narration, view, explanation].
    ``id`` and ``command`` are steps from the entry before's (in id order; mostly 1 and 0):
    a long fight's page is a tenth smaller."""

    id: int  # the step from the id of the entry before (the first: from 0)
    back: int | None  # how far back its parent is (None: the root)
    command: int  # the step from the command of the entry before (the players' page: 0, it holds none)
    narration: int  # its text, an index into PageData.strings
    # The board after it, a delta from its parent's (:class:`Board`), encoded as it was made.
    view: Annotated[msgspec.Raw, msgspec.Meta(extra_json_schema=_ref("Board"))]
    # Its explanation: a line each (an index into the strings), then the numbers as recorded
    # as [tail, item, item, ...] (the page joins them as `explain` prints them); 0: withheld
    # or none (WITHHELD). Encoded once, shared by the entries that explain alike.
    explanation: Annotated[msgspec.Raw, msgspec.Meta(extra_json_schema={
        "anyOf": [{"const": 0}, {"type": "array", "items": {"anyOf": [
            {"type": "integer"}, {"type": "array", "items": {"type": "integer"}, "minItems": 1}]}}]})]


WITHHELD = msgspec.Raw(b"0")  # an entry's explanation when there is none the audience is given


class Harming(Entry, array_like=True, gc=False):
    """An event that did damage (or healed), its entry with the damage last: the page's
    totals and chart count it."""

    damage: Hit  # a Hit, HitBy or Healing

    @classmethod
    def of(cls, entry: Entry, damage: Hit) -> Harming:
        return cls(entry.id, entry.back, entry.command, entry.narration, entry.view, entry.explanation, damage)


# --- the board ----------------------------------------------------------------------------


class Waiting(msgspec.Struct, frozen=True, array_like=True):
    """A pending action: [who, action, target, resolves]."""

    who: str
    action: str
    target: str | None
    resolves: str


# A combatant's row on the board: its name ``n``, side ``s``, status ``st``, acting ``a`` (1 or
# 0), vital gauge ``vn`` (its name), ``v`` (a number, or a band on the players' page), ``vm``
# (its maximum or null); a second gauge where the rules keep one ``v2n``, ``v2``, ``v2m``; its
# budget ``bn``, ``bl``, ``bo``; its effects ``e`` (texts); the GM's page: ``h`` 1 when hidden
# from the players; its notes ``nt`` (texts); and the ruleset's own figures, ``o0``, ``o1``, ...
# (their names: PageData.figures, by number). In a delta, only the keys that changed.
Row = dict[str, Any]
# The clock: ``r`` its round (or turn), ``l`` its words, ``now`` and ``next`` (names), ``end``
# (what comes after the last one: "the end of the round", or ""); and the ruleset's own
# figures ``oN``. In a delta, only the keys that changed.
ClockPart = dict[str, Any]


class Board(msgspec.Struct, omit_defaults=True):
    """The board after an event. In an entry, a delta from its parent's: the order and the
    pending list whole when they changed, the clock, the scene and each combatant key by key
    (a combatant new to the board whole); a part left out did not change."""

    k: ClockPart | UnsetType = UNSET  # the clock
    o: list[str] | UnsetType = UNSET  # the combatants' keys, in acting order
    c: dict[str, Row] | UnsetType = UNSET  # each combatant's row, by its key
    p: list[Waiting] | UnsetType = UNSET  # the pending actions
    w: dict[str, Any] | UnsetType = UNSET  # the scene: the ruleset's own figures of the whole fight, ``oN``


# --- the page's data ----------------------------------------------------------------------


class Branch(msgspec.Struct, rename={"source": "from"}):
    """A branch, where it leaves the ones listed before it."""

    name: str
    head: int  # its last event (the players' page: the last event they are told of)
    split: int | None  # the last event it shares with a branch listed before it (None: none)
    source: str | None  # ("from" on the wire) the first branch listed that holds ``split``


class Totals(msgspec.Struct):
    """Damage totals by combatant name."""

    dealt: dict[str, int]
    taken: dict[str, int]


class Summarised(msgspec.Struct):
    """A long fight's page: the events before ``before`` are folded into the board each
    path starts from, their damage into the totals."""

    before: int
    bases: dict[str, Totals]  # by the id of a path's first event held: the totals before it


class PageNote(msgspec.Struct, frozen=True, array_like=True):
    """A note about an event: [id, text, private]."""

    id: int
    text: str
    private: int  # 1 or 0


class PageData(msgspec.Struct, omit_defaults=True):
    """The replay page's data (``<script type="application/json" id="replay-data">``, and
    the served page's ``state`` frame): an encounter's branches and every event on them,
    with what the audience may see."""

    format: int  # FORMAT
    audience: Literal["gm", "players"]
    encounter: str
    ruleset: str
    rules_file: str
    options: dict[str, Any]  # the encounter's options, as started
    current: str  # the branch the log is on
    branches: list[Branch]  # the current one first; the players' page: the current one alone
    strings: list[str]  # the narrations and explanation lines, once each
    figures: list[str]  # the names of the ruleset's own figures: ``oN`` is figures[N]
    events: list[Entry]  # each an Entry or a Harming, in id order
    notes: dict[str, list[PageNote]]  # by the event they are about
    summarised: Summarised | None
    unit: str  # what damage is counted in ("hits", "HP"), "" before any
    ended: dict[str, str] | UnsetType = UNSET  # `end`: by event, its reason (absent: not ended)
    seed: int | str | UnsetType = UNSET  # the GM's: the dice seed or key
    digest: str | UnsetType = UNSET  # the GM's: the log's verify digest
    commands: dict[str, str] | UnsetType = UNSET  # the GM's: the command of each event, by command id
    bands: dict[str, Any] | UnsetType = UNSET  # the players': the health bands (party, full, levels, words)


class Change(msgspec.Struct, omit_defaults=True):
    """A served page's ``more`` frame: what it adds to its data, and what else moved (each
    part as PageData's, whole; absent: unchanged)."""

    back: int | UnsetType = UNSET  # the players' undo or move: how many entries the page keeps
    events: list[Entry] | UnsetType = UNSET  # steps from the last entry the page holds
    strings: list[str] | UnsetType = UNSET  # added to the strings
    commands: dict[str, str] | UnsetType = UNSET  # added to the commands
    figures: list[str] | UnsetType = UNSET
    unit: str | UnsetType = UNSET
    summarised: Summarised | None | UnsetType = UNSET
    branches: list[Branch] | UnsetType = UNSET
    current: str | UnsetType = UNSET
    notes: dict[str, list[PageNote]] | UnsetType = UNSET
    ended: dict[str, str] | UnsetType = UNSET
    bands: dict[str, Any] | UnsetType = UNSET
    digest: str | UnsetType = UNSET


def fields(struct: msgspec.Struct) -> dict[str, Any]:
    """A Struct's fields as the dict the live data keeps and edits in place (its parts stay
    Structs), those UNSET left out: what msgspec encodes of it, at the top."""
    out: dict[str, Any] = {}
    for name in struct.__struct_fields__:
        value = getattr(struct, name)
        if value is not UNSET:
            out[name] = value
    return out


def _clean_descriptions(node: Any) -> None:
    """Each docstring as inspect.cleandoc gives it, whichever msgspec made the schema (0.23
    dedents a Struct's docstring, earlier releases kept its indent), so the file is the same."""
    import inspect

    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                node[key] = inspect.cleandoc(value)
            else:
                _clean_descriptions(value)
    elif isinstance(node, list):
        for value in node:
            _clean_descriptions(value)


def schema() -> dict[str, Any]:
    """The JSON Schema of the wire (docs/wire-schema.json): the page's data, a ``more``
    frame, and the parts they hold; with the GM's page's own Structs (its forms, gm_data.py's
    Inputs; its board's sentences, gm_lines.py's BoardLines), which it reads by name."""
    from skirmish.projections.page.gm_data import Inputs
    from skirmish.projections.page.gm_lines import BoardLines

    (data, change, *_), defs = msgspec.json.schema_components(
        [PageData, Change, Board, Entry, Harming, Hit, HitBy, Healing, Inputs, BoardLines],
        ref_template="#/$defs/{name}")
    # What the annotations cannot say: an entry is an Entry or a Harming (one more field, the
    # damage), the damage a Hit, a HitBy or a Healing (one or two more).
    for kind in ("PageData", "Change"):
        defs[kind]["properties"]["events"]["items"] = {"anyOf": [_ref("Entry"), _ref("Harming")]}
    defs["Harming"]["prefixItems"][-1] = {"anyOf": [_ref("Hit"), _ref("HitBy"), _ref("Healing")]}
    for kind, length in (("Entry", 6), ("Harming", 7), ("Hit", 2), ("HitBy", 3), ("Healing", 4)):
        defs[kind]["maxItems"] = length
    _clean_descriptions(defs)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "skirmish: the replay page's data",
        "description": "Generated from projections/page/wire.py (python -m skirmish.projections.page.wire): "
                       "the page's data (PageData) or a served page's change (Change); $defs also hold the GM's "
                       "page's forms (Inputs) and its board's sentences (BoardLines).",
        "anyOf": [data, change],
        "$defs": defs,
    }


def main() -> None:
    print(msgspec.json.format(msgspec.json.encode(schema()), indent=2).decode())


if __name__ == "__main__":
    main()
