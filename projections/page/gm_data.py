"""What the GM's page makes its forms from: the typed commands (eventlog/commands.py) with the
inputs the encounter's ruleset declares for them (its flags, details, stats, actions and
effects, as `skirmish rules RULESET` lists them), each field with the JSON key the page
sends it under, so the page's code names no ruleset and builds no command line.

A form posts one request in its JSON form (projections/door/requests.py):
``{"type": TAG, KEY: value, ..., "details": {KEY: "value"}, "stats": {KEY: "N"},
"rolls": {KEY: [faces]}}``; each :class:`Field` says where its value goes.
"""

from __future__ import annotations

import typing
from typing import Any, Literal

import msgspec

from skirmish.eventlog import commands as c
from skirmish.projections.door import requests as r
from skirmish.projections.door.words import SPECS
from skirmish.projections.gm import DICE_KEY
from skirmish.projections.ruleset import Move, Ruleset, flag_name, optional_fields, own_flags

Kind = Literal["number", "text", "switch", "choice"]
# Where a field's value goes in the request: a key of its own ("field"), a key of its
# ``details`` or ``stats`` (a string, whatever the kind), its ``rolls`` (the faces, numbers),
# or, for a switch, the request's ``type`` itself (`add` ticked hidden is `add-hidden`).
Goes = Literal["field", "detail", "stat", "roll", "type"]
# What a field names, picked from a list rather than typed: a combatant on the board, an
# effect kind (the ruleset's, those on the board, or the GM's own), an action of the ruleset.
Picker = Literal["", "combatant", "effect", "action"]
Place = Literal["pad", "main", "more"]


class Choice(msgspec.Struct, frozen=True, kw_only=True):
    """One action or effect kind: its name, what it costs (actions) and the ruleset's words;
    ``takes`` (actions): the keys of the declare form's fields it reads, None: every one."""

    name: str
    cost: str = ""
    doc: str
    takes: tuple[str, ...] | None = None
    mark: str = ""  # an effect's mark beside its word (the ruleset's ``marks``), "" without one


class Field(msgspec.Struct, frozen=True, kw_only=True):
    """One input of a form.

    ``key``: the JSON key (a field's name, a detail's or stat's KEY; for a roll, its key
    when fixed, "" when picked with ``picker``). ``kind``: a number (typed, sent as a JSON
    number, or as a string in details and stats), a text, a switch (sent as ``true``, or as
    ``choices[0]`` in details and for ``type``), a choice of ``choices``. A roll is typed as
    faces, ``6,8``, sent as numbers. ``default``: sent when the field is left empty (None:
    nothing is sent)."""

    key: str
    goes: Goes
    kind: Kind
    label: str  # as the GM reads it, the command line's word: "ap", "charge", "type"
    doc: str
    required: bool = False
    choices: tuple[str, ...] = ()
    picker: Picker = ""
    default: int | str | None = None
    own: str = ""  # an effect's picker: the key of the switch marking a kind the GM typed as their own


class Form(msgspec.Struct, frozen=True, kw_only=True):
    type: str  # the request's tag
    place: Place  # the number pad's options, the forms always shown, or those under "More"
    fields: tuple[Field, ...]


class Inputs(msgspec.Struct, frozen=True, kw_only=True):
    ruleset: str
    rules_file: str
    actions: tuple[Choice, ...]
    effects: tuple[Choice, ...]
    forms: tuple[Form, ...]
    reads: tuple[str, ...]  # the tags of the requests that read and record nothing (explain, why, ...)


# The commands the page makes forms for, and where. The number pad's (damage, heal) take
# the combatant tapped and the amount on the pad; `next`, `leave` and `return` are buttons
# too (`next` has a form for the dice and details some rulesets read on it), as are time
# travel and the reads (undo, redo, branch, switch, explain, why). Not here: `bands` (the
# players' health bands, a list of LABEL=PERCENT) is the command line's.
FORMS: dict[str, Place] = {
    "damage": "pad", "heal": "pad",
    "declare": "main", "resolve": "main", "cancel": "main", "effect": "main", "round": "main", "upkeep": "main",
    "next": "more", "add": "more", "set": "more", "rename": "more", "roll": "more", "note": "more",
    "hide": "more", "reveal": "more", "end": "more",
}
COMBATANT = frozenset({"who", "target", "on"})  # fields naming a combatant
_NOT_ASKED = frozenset({"rolls", "details", "stats", "typed_by"})  # made from the ruleset's declarations
# The words of fields that are no shared flag (those have their Help in eventlog/commands.py).
DOCS: dict[str, str] = {
    "who": "the combatant", "action": "an action of the ruleset's table", "kind": "the effect",
    "amount": "the amount", "custom": "a kind of the GM's own, not the ruleset's",
    "reason": "why, in the GM's words", "name": "the combatant's name", "side": "its side",
    "count": "how many: NAME 1 to NAME N", "to": "the new name", "dice": "the dice, e.g. 2d6+3 or d20",
    "why": "what the roll is for", "event": "the event noted (0 with a combatant: written at the head)",
    "text": "the note", "private": "the GM's alone: not on the players' pages", "on": "a combatant the note is on",
}
LABELS = {"on": "on combatant", "who": "who"}


def _types() -> dict[str, type[Any]]:
    return {tag: kind for tag, kind in r.TAGS.items() if tag in FORMS or tag == "add-hidden"}


def _bare(annotation: Any) -> Any:
    """A field's type without Annotated and None: ``Annotated[int | None, ...]`` is int."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    parts = [t for t in typing.get_args(annotation) if t is not type(None)] or [annotation]
    return parts[0]


def _kind(annotation: Any) -> Kind:
    bare = _bare(annotation)
    return "switch" if bare is bool else "number" if bare is int else "text"


def _help(annotation: Any) -> str:
    if typing.get_origin(annotation) is typing.Annotated:
        for meta in typing.get_args(annotation)[1:]:
            if isinstance(meta, msgspec.Meta) and meta.description:
                return meta.description
    return ""


def _picker(name: str, tag: str) -> Picker:
    if name in COMBATANT:
        return "combatant"
    if name == "action" and tag == "declare":
        return "action"
    if name == "kind" and tag == "effect":
        return "effect"
    return ""


def _label(tag: str, name: str) -> str:
    if (tag, name) == ("roll", "who"):
        return "for"  # `roll DICE --for WHO`
    return LABELS.get(name, flag_name(name).removeprefix("--"))


def form(ruleset: Ruleset[Any], tag: str, kind: type[Any]) -> Form:
    """The form of the request ``tag`` in an encounter of ``ruleset``."""
    hints = typing.get_type_hints(kind, include_extras=True)
    declared = [name for name, flag in ruleset.flags.items() if tag in flag.commands]
    shared = {name for name, _ in optional_fields(kind)} if issubclass(kind, c.AtTheTable) else set()
    fields: list[Field] = []
    for info in msgspec.structs.fields(kind):
        name = info.name
        if name in _NOT_ASKED or (name in shared and name not in declared):
            continue  # a shared flag this ruleset does not read on this command
        annotation = hints[name]
        picker = _picker(name, tag)
        asked = "choice" if picker in ("action", "effect") else _kind(annotation)
        flag = ruleset.flags.get(name)
        doc = (flag.doc if flag is not None and name in declared else "") or _help(annotation) or DOCS.get(name, "")
        default = 0 if (tag, name) == ("note", "event") else None  # `note --on WHO TEXT` is written at the head
        own = "custom" if picker == "effect" and "custom" in hints else ""
        fields.append(Field(key=name, goes="field", kind=asked, label=_label(tag, name), doc=doc,
                            required=info.required and default is None, picker=picker, default=default, own=own))
    if tag == "add":  # `add --hidden` is the request add-hidden, the same fields
        fields.append(Field(key="hidden", goes="type", kind="switch", label="hidden", choices=("add-hidden",),
                            doc="hidden from the players' screens until `reveal`"))
    if "stats" in hints:
        for key, stat in ruleset.stats.items():
            fields.append(Field(key=key, goes="stat", kind="number" if stat.kind is int else "text", label=key,
                                doc=stat.doc, required=tag == "add" and stat.required and stat.kind is int))
    if issubclass(kind, c.AtTheTable):
        for name, mine in own_flags(ruleset, kind).items():  # they travel in details (`--NAME` alone: NAME=yes)
            asked = "switch" if mine.kind is bool else "number" if mine.kind is int else "text"
            fields.append(Field(key=name, goes="detail", kind=asked, label=name, doc=mine.doc,
                                choices=("yes",) if mine.kind is bool else ()))
        picks = getattr(ruleset, "picks", {})  # the details its ruleset says name a combatant
        for key, detail in ruleset.details.items():
            if tag in detail.commands:
                asked = "switch" if len(detail.choices) == 1 else "choice" if detail.choices else "text"
                names: Picker = "combatant" if picks.get((tag, key)) == "combatant" else ""
                fields.append(Field(key=key, goes="detail", kind=asked, label=key, doc=detail.doc,
                                    choices=detail.choices, picker=names))
    spec = SPECS.get(tag)
    if tag == "roll":  # the GM's own faces of the roll, under its one key
        fields.append(Field(key=DICE_KEY, goes="roll", kind="number", label="faces",
                            doc="the faces of the GM's own dice, e.g. 4,5 (else the tool rolls)"))
    elif spec is not None and "--roll" in spec.options:
        fields.append(Field(key="", goes="roll", kind="number", label="dice", picker="combatant",
                            doc="the GM's dice: whose (or the key the ruleset names, e.g. dmg:NAME) and "
                                "the faces, e.g. 6,8 (else the tool rolls)"))
    return Form(type=tag, place=FORMS[tag], fields=tuple(fields))


def inputs(ruleset: Ruleset[Any]) -> Inputs:
    types = _types()
    return Inputs(
        ruleset=ruleset.id, rules_file=ruleset.rules_file,
        actions=tuple(Choice(name=name, cost=info.cost, doc=info.doc, takes=info.takes)
                      for name, info in ruleset.actions.items()),
        effects=tuple(Choice(name=name, doc=doc, mark=getattr(ruleset, "marks", {}).get(name, ""))
                      for name, doc in ruleset.effects.items()),
        forms=tuple(form(ruleset, tag, types[tag]) for tag in FORMS),
        reads=tuple(r.tag(kind) for kind in r.READS),
    )


def moves(ruleset: Ruleset[Any], state: Any) -> dict[str, tuple[Move, ...]]:
    """What a card offers as taps beside the ruleset's table: the actions each combatant's
    own sheet gives it (srd-5.2: its stat block's), each with its short label, what is
    spent and the dice keys it rolls, so the page parses no block. Those with none are
    left out."""
    return {name: found for name in state.names() if (found := ruleset.moves(state, name))}
