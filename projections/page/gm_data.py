"""What the GM's page makes its forms from: a ruleset's declared inputs (its actions and
costs, effects, flags and details, as `skirmish rules RULESET` lists them), typed, the same
shape for every ruleset, so the page's code names none of them."""

from __future__ import annotations

import typing
from typing import Any, Literal

import msgspec

from skirmish.eventlog.commands import Command
from skirmish.projections.ruleset import Ruleset, flag_name

Kind = Literal["number", "text", "switch"]

# The commands the page makes forms for, each with its arguments as `skirmish` takes them.
FORMS: dict[str, tuple[str, ...]] = {
    "declare": ("who", "action"),
    "resolve": ("who",),
    "cancel": ("who",),
    "effect": ("who", "kind"),
    "round": (),
    "upkeep": (),
    "next": (),
    # The number pad's: the combatant tapped and the amount typed on the pad; their fields
    # (a damage type, temporary hit points) are the pad's options.
    "damage": ("who", "amount"),
    "heal": ("who", "amount"),
}
PAD = ("damage", "heal")


class Choice(msgspec.Struct, frozen=True):
    """One action or effect kind: its name, what it costs (actions) and the ruleset's words."""

    name: str
    cost: str
    doc: str


class Field(msgspec.Struct, frozen=True):
    """One flag (`--hits N`) or detail (`--with KEY=VALUE`) a command of the ruleset reads."""

    flag: str  # as typed: "--hits"; "--with" for a detail, typed `--with KEY=VALUE`
    kind: Kind
    doc: str
    key: str = ""  # a detail's KEY
    choices: tuple[str, ...] = ()


class Form(msgspec.Struct, frozen=True):
    command: str
    arguments: tuple[str, ...]  # "who", "action", "kind", "amount": what the words after the command are
    fields: tuple[Field, ...]
    dice: bool  # takes the GM's dice as `--roll KEY=FACES` (not the pad's: its amount is the figure rolled)


class Inputs(msgspec.Struct, frozen=True):
    ruleset: str
    rules_file: str
    actions: tuple[Choice, ...]
    effects: tuple[Choice, ...]
    forms: tuple[Form, ...]


def _command_types() -> dict[str, type[Command]]:
    out: dict[str, type[Command]] = {}
    todo: list[type[Command]] = [Command]
    while todo:
        kind = todo.pop()
        todo.extend(kind.__subclasses__())
        tag = kind.__struct_config__.tag
        if isinstance(tag, str):
            out[tag] = kind
    return out


def _kind_of(annotation: Any) -> Kind:
    """A shared flag's kind from its field's type (``int | None`` is a number)."""
    bare = typing.get_args(annotation)[0] if typing.get_origin(annotation) is typing.Annotated else annotation
    parts = set(typing.get_args(bare)) or {bare}
    if bool in parts:
        return "switch"
    if int in parts:
        return "number"
    return "text"


def inputs(ruleset: Ruleset[Any]) -> Inputs:
    types = _command_types()
    forms = []
    for command, arguments in FORMS.items():
        hints = typing.get_type_hints(types[command], include_extras=True) if command in types else {}
        fields = []
        for name, flag in ruleset.flags.items():
            if command not in flag.commands:
                continue
            if name in hints:  # a shared flag: its field's type
                kind = _kind_of(hints[name])
            else:
                kind = "switch" if flag.kind is bool else "number" if flag.kind is int else "text"
            fields.append(Field(flag_name(name), kind, flag.doc))
        for key, detail in ruleset.details.items():
            if command in detail.commands:
                fields.append(Field("--with", "text", detail.doc, key, detail.choices))
        if command == "effect":  # the engine's own, in every ruleset (README, Effects)
            fields.append(Field("--custom", "switch", "a kind of the GM's own, not the ruleset's"))
        forms.append(Form(command, arguments, tuple(fields), dice=command not in ("next", "upkeep", "cancel", *PAD)))
    return Inputs(
        ruleset=ruleset.id, rules_file=ruleset.rules_file,
        actions=tuple(Choice(name, info.cost, info.doc) for name, info in ruleset.actions.items()),
        effects=tuple(Choice(name, "", doc) for name, doc in ruleset.effects.items()),
        forms=tuple(forms),
    )
