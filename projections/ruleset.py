"""The ruleset interface (a decider), its registry, and the helpers every ruleset shares.

A ruleset is a decider: ``initial`` builds the state from the encounter's first event,
``decide`` validates a command against the state and computes every number (dice,
derived figures, each with the rule that produced it), ``evolve`` applies one event and
never rolls, reads the clock or fails on a stored event. ``view`` renders the state as
the JSON object ``skirmish state --json`` prints, with the same top-level keys for every
ruleset; ``describe`` narrates one event for the log, the replay and the command output.

Rulesets register under the ``skirmish.rulesets`` entry-point group: the built-in ones
exactly as a third-party package would.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol, TypeVar

from skirmish.eventlog.commands import AddCombatant, Command
from skirmish.eventlog.errors import BadInput, RuleViolation, UnknownCombatant, UnknownRuleset
from skirmish.eventlog.events import CombatantAdded, EncounterStarted, Event, Roll

State = TypeVar("State")
ENTRY_POINT_GROUP = "skirmish.rulesets"
DISTRIBUTION = "skirmish-log"  # whose entry points BUILT_IN mirrors


@dataclass(frozen=True)
class Option:
    """An open point of a rules text, settled per encounter and recorded in its first event."""

    default: str
    choices: tuple[str, ...]
    doc: str


@dataclass(frozen=True)
class Stat:
    """A number a combatant must (or may) have under a ruleset."""

    doc: str
    required: bool = True
    default: int = 0
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True)
class ActionInfo:
    """One action of a ruleset's table, as `skirmish rules RULESET` lists it."""

    cost: str  # what it costs in the ruleset's budget, in its own words: "2-4 AP", "30-50 %"
    doc: str


@dataclass(frozen=True)
class Detail:
    """A KEY=VALUE word (`--with KEY=VALUE`) a ruleset accepts on some of its commands."""

    doc: str
    commands: tuple[str, ...]  # command tags: "declare", "resolve", "round", ...
    choices: tuple[str, ...] = ()  # empty: any value the ruleset checks itself


class Ruleset(Protocol[State]):
    @property
    def id(self) -> str: ...

    @property
    def rules_file(self) -> str: ...

    @property
    def options(self) -> Mapping[str, Option]: ...

    @property
    def stats(self) -> Mapping[str, Stat]: ...

    @property
    def actions(self) -> Mapping[str, ActionInfo]: ...

    @property
    def details(self) -> Mapping[str, Detail]: ...

    @property
    def vital(self) -> str:
        """The combatant figure (a key of each combatant in ``view``) that says how close
        it is to going down, charted over rounds in reports: hits left, Health, ..."""
        ...

    @property
    def budget(self) -> str:
        """The combatant figure (a key of each combatant in ``view``) holding what it has
        spent of its budget this round or turn: AP spent, activity used, slots used, ..."""
        ...

    @property
    def event_types(self) -> tuple[type[Event], ...]: ...

    @property
    def state_version(self) -> int:
        """The version of the state's shape (``initial``'s type, a msgspec-encodable value):
        raise it whenever that shape or the meaning of a field changes, so states cached
        (snapshots) by an older version are not read back."""
        ...

    def initial(self, started: EncounterStarted) -> State: ...

    def decide(self, state: State, command: Command, dice: Dice) -> list[Event]: ...

    def evolve(self, state: State, event: Event) -> State: ...

    def view(self, state: State) -> dict[str, Any]: ...

    def describe(self, event: Event) -> str: ...


@cache
def registry() -> dict[str, Any]:
    """Ruleset id -> entry point (loaded on demand, so a command imports one ruleset only)."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


# The built-in rulesets, exactly as pyproject.toml registers them under the entry points
# (tests/test_registry.py holds the two equal). Looking a built-in one up here spares a
# command at the table importlib.metadata and the scan of installed distributions (about
# 20 ms a run); any other id is looked up through the entry points.
BUILT_IN = {
    "ap-countdown": "skirmish.projections.rulesets.ap_countdown:RULESET",
    "crisis": "skirmish.projections.rulesets.crisis:RULESET",
    "modular": "skirmish.projections.rulesets.modular:RULESET",
    "percent-activity": "skirmish.projections.rulesets.percent_activity:RULESET",
    "phases": "skirmish.projections.rulesets.phases:RULESET",
}


@cache
def get_ruleset(ruleset_id: str) -> Ruleset[Any]:
    built_in = BUILT_IN.get(ruleset_id)
    if built_in is not None:
        from importlib import import_module

        module, _, attribute = built_in.partition(":")
        found: Ruleset[Any] = getattr(import_module(module), attribute)
        return found
    entry = registry().get(ruleset_id)
    if entry is None:
        known = ", ".join(sorted(registry())) or "none installed"
        raise UnknownRuleset(f"no ruleset {ruleset_id!r} (rulesets: {known})")
    ruleset: Ruleset[Any] = entry.load()
    return ruleset


def settle_options(ruleset: Ruleset[Any], given: Mapping[str, str]) -> dict[str, str]:
    """Every option of the ruleset, given values checked, the rest at their defaults."""
    settled = {name: opt.default for name, opt in ruleset.options.items()}
    for key, value in given.items():
        opt = ruleset.options.get(key)
        if opt is None:
            known = ", ".join(ruleset.options) or "none"
            raise BadInput(f"{ruleset.id} has no option {key!r} (options: {known})")
        if value not in opt.choices:
            raise BadInput(f"option {key} takes {' or '.join(opt.choices)}, not {value!r}")
        settled[key] = value
    return settled


def check_stats(ruleset: Ruleset[Any], name: str, raw: Mapping[str, str]) -> dict[str, int]:
    """The combatant's stats as numbers, each checked against what the ruleset asks for."""
    stats: dict[str, int] = {}
    for key, text in raw.items():
        spec = ruleset.stats.get(key)
        if spec is None:
            known = ", ".join(ruleset.stats)
            raise BadInput(f"{ruleset.id} has no stat {key!r} for {name} (stats: {known})")
        if key in stats:
            raise BadInput(f"stat {key} of {name} is given twice")
        try:
            value = int(text)
        except ValueError:
            raise BadInput(f"stat {key} of {name} must be a whole number, not {text!r}") from None
        if abs(value) > LARGEST:
            raise BadInput(f"stat {key} of {name} is out of range (at most {LARGEST:,} either way)")
        if spec.minimum is not None and value < spec.minimum:
            raise BadInput(f"stat {key} of {name} must be at least {spec.minimum}, not {value}")
        if spec.maximum is not None and value > spec.maximum:
            raise BadInput(f"stat {key} of {name} must be at most {spec.maximum}, not {value}")
        stats[key] = value
    missing = [k for k, spec in ruleset.stats.items() if spec.required and k not in stats]
    if missing:
        asks = ", ".join(f"--stat {k}=N ({ruleset.stats[k].doc})" for k in missing)
        raise BadInput(f"{name} needs {asks}")
    for key, spec in ruleset.stats.items():
        stats.setdefault(key, spec.default)
    return stats


class Named(Protocol):
    @property
    def name(self) -> str: ...


N = TypeVar("N", bound=Named)


def names_of(roster: Sequence[Named]) -> list[str]:
    return [f.name for f in roster]


def by_name(roster: Sequence[N], name: str) -> N:
    """The combatant of that exact name (decide has already matched the GM's spelling)."""
    for f in roster:
        if f.name == name:
            return f
    raise KeyError(name)


def replaced(roster: tuple[N, ...], fighter: N) -> tuple[N, ...]:
    """The roster with ``fighter`` in place of the combatant of its name (a fold's update)."""
    return tuple(fighter if f.name == fighter.name else f for f in roster)


def options_in_force(ruleset: Ruleset[Any], started: EncounterStarted) -> dict[str, str]:
    """The options recorded in the first event; an option added to the ruleset after the
    encounter was recorded takes its default on replay."""
    return {key: opt.default for key, opt in ruleset.options.items()} | dict(started.options)


def check_details(ruleset: Ruleset[Any], command: Command) -> None:
    """Refuse any `--with KEY=VALUE` the ruleset does not declare for this command."""
    given: Mapping[str, str] = getattr(command, "details", {})
    tag = str(type(command).__struct_config__.tag)
    for key, value in given.items():
        spec = ruleset.details.get(key)
        if spec is None or tag not in spec.commands:
            known = [k for k, d in ruleset.details.items() if tag in d.commands]
            takes = f"it takes: {', '.join(known)}" if known else "it takes none"
            raise BadInput(f"{ruleset.id} `{tag}` has no detail {key!r} ({takes})")
        if spec.choices and value not in spec.choices:
            raise BadInput(f"--with {key}= takes {' or '.join(spec.choices)}, not {value!r}")


def detail_int(command: Command, key: str, default: int = 0) -> int:
    """A numeric `--with KEY=N`, checked like every other number a command carries."""
    raw = getattr(command, "details", {}).get(key)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadInput(f"--with {key}= takes a whole number, not {raw!r}") from None
    if abs(value) > LARGEST:
        raise BadInput(f"--with {key}={value} is out of range (at most {LARGEST:,} either way)")
    return value


def decide_add(
    ruleset: Ruleset[Any], names: Sequence[str], command: AddCombatant
) -> list[Event]:
    """The shared decision for ``add``: a unique name and the ruleset's stats."""
    name = check_name("a combatant", command.name)
    side = check_name("a side", command.side)
    if name.lower() in {n.lower() for n in names}:
        raise RuleViolation(f"there is already a combatant named {name}")
    if name.lower() in RESERVED_NAMES:
        raise BadInput(f"{name!r} is reserved (it names the scene's own counters)")
    return [CombatantAdded(name=name, side=side, stats=check_stats(ruleset, name, command.stats))]


RESERVED_NAMES = {"scene"}
LARGEST = 1_000_000  # no figure at a table comes near it; larger is a typo


def check_name(what: str, raw: str) -> str:
    """A name a GM can type back: no control characters, no `=` (it splits --roll NAME=...)."""
    name = raw.strip()
    if (
        not name or name.startswith("-") or name.isdigit() or "=" in name
        or any(not c.isprintable() for c in name)
    ):
        raise BadInput(f"{raw!r} cannot be {what}'s name (printable, not a number, no '=' or leading '-')")
    return name


def check_numbers(command: Command) -> None:
    """Every number a command carries is within what a table could mean."""
    for field in command.__struct_fields__:
        value = getattr(command, field)
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > LARGEST:
            flag = field.replace("_", "-")
            raise BadInput(f"{flag} {value} is out of range (at most {LARGEST:,} either way)")


def find_name(names: Sequence[str], wanted: str) -> str:
    """The combatant's exact name, matched without regard to case; a clear error otherwise."""
    for name in names:
        if name.lower() == wanted.lower():
            return name
    close = difflib.get_close_matches(wanted, list(names), n=1)
    hint = f" (did you mean {close[0]}?)" if close else f" (combatants: {', '.join(names) or 'none yet'})"
    raise UnknownCombatant(f"no combatant named {wanted!r}{hint}")


def suggest(word: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(known), n=1)
    return f"did you mean {close[0]}?" if close else f"known: {', '.join(known)}"


class Dice:
    """Dice for one decision: the GM's typed faces where given, else seeded tool rolls.

    The tool's rolls are seeded from the encounter's seed and the hash of the event the
    command is decided on, so deciding the same command at the same place rolls the
    same faces. Replays never roll: the faces are in the events.
    """

    def __init__(self, seed: int, place: str, typed: Mapping[str, Sequence[int]] | None = None) -> None:
        # Imported here: only a command that decides rolls dice (OpenSSL's load is felt in
        # every read-only command's start-up).
        import hashlib
        import random

        material = hashlib.sha256(f"{seed}:{place}".encode()).digest()
        self._rng = random.Random(int.from_bytes(material[:8], "big"))
        self._typed = {k.lower(): tuple(v) for k, v in (typed or {}).items()}
        self._names = {k.lower(): k for k in typed or {}}
        self._used: set[str] = set()

    def unused(self) -> list[str]:
        """Typed dice no roll of the decision asked for (the engine refuses them)."""
        return [self._names[k] for k in self._typed if k not in self._used]

    def roll(self, who: str, count: int, sides: int) -> Roll:
        spec = f"{count}d{sides}"
        typed = self._typed.get(who.lower())
        self._used.add(who.lower())
        if typed is None:
            faces = tuple(self._rng.randint(1, sides) for _ in range(count))
            return Roll(dice=spec, faces=faces, source="tool")
        if len(typed) != count or any(not 1 <= f <= sides for f in typed):
            shown = ",".join(str(f) for f in typed)
            raise BadInput(f"{spec} for {who} takes {count} faces from 1 to {sides}, not {shown}")
        return Roll(dice=spec, faces=typed, source="gm")
