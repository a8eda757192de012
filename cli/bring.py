"""Bringing combatants in: `new --carry` from an earlier encounter, `new --from` a saved fight,
`add --from` an imported stat block. Each reads its source whole before anything is
recorded, then records one command a combatant in one transaction: all of them, or none."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skirmish.eventlog.commands import AddCombatant, Carry, CarriedEffect, Command
from skirmish.eventlog.errors import BadInput, SkirmishError
from skirmish.projections.engine import Encounter
from skirmish.projections.ruleset import Ruleset


def carried(enc_from: Encounter, who: Sequence[str], sides: Sequence[str]) -> tuple[list[Command], list[str]]:
    """The `carry` commands for an earlier encounter's combatants, and the lines for what stays behind."""
    from skirmish.projections.carry import PARTY_SIDES, carry_from

    commands, lines = carry_from(enc_from, who, sides or PARTY_SIDES)
    return list(commands), lines


def fight_commands(path: Path, fight_name: str, ruleset: Ruleset[Any]) -> tuple[list[Carry], list[str], str]:
    """The `carry` commands that seat a saved fight's combatants, with one line for each field
    the ruleset cannot hold, and the fight's source."""
    from skirmish.projections.imports import read
    from skirmish.projections.imports.mapping import VITAL, side_of, stats_for

    found = read(path)
    fight = next((f for name, f in found.fights.items() if name.lower() == fight_name.strip().lower()), None)
    if fight is None:
        known = ", ".join(found.fights) or "none"
        raise BadInput(f"{str(path)!r} has no saved fight {fight_name!r} (fights: {known})")
    source = f"{found.format} file {path.name!r}, fight {fight.name!r}"
    commands: list[Carry] = []
    lines: list[str] = []
    if fight.round:
        lines.append(f"the fight was at round {fight.round}: {ruleset.id} counts its own from its first `round`")
    if fight.acting:
        lines.append(f"{fight.acting} was acting: {ruleset.id} sets who acts when its `round` starts")
    holds_hp = VITAL.get(ruleset.id, "hp") in ruleset.stats
    for seat in fight.seats:
        stats, unmapped = stats_for(seat.creature, ruleset)
        lines += [line.replace(f"{seat.creature.name}:", f"{seat.name}:", 1) for line in unmapped]
        if seat.initiative is not None and "initiative" not in ruleset.stats:
            lines.append(f"{seat.name}: initiative {seat.initiative} not mapped: {ruleset.id} rolls its own")
        if seat.temp_hp:
            lines.append(f"{seat.name}: temporary hit points {seat.temp_hp} not mapped: {ruleset.id} has none")
        if not holds_hp and seat.hp != seat.creature.hp:
            lines.append(f"{seat.name}: hit points {seat.hp} of {seat.creature.hp} not mapped: {ruleset.id} has none")
        effects = []
        for tag in seat.tags:
            kind = tag.text.strip().lower()
            if tag.left is not None and tag.timing:
                when = "start" if tag.timing == "StartOfTurn" else "end"
                lines.append(f"{seat.name}: tag {kind!r} counted down at the {when} of {tag.whose or 'a'}'s turn "
                             f"there; here {ruleset.id} counts its {tag.left} round(s) its own way")
            effects.append(CarriedEffect(kind=kind, rounds=tag.left, custom=kind not in ruleset.effects))
        commands.append(Carry(
            name=seat.name, side=side_of(seat.creature), stats=stats, source=source,
            vital=seat.hp if holds_hp and seat.hp != seat.creature.hp else None, effects=tuple(effects),
        ))
    return commands, lines, source


def tags_that_hold(enc: Encounter, command: Carry) -> tuple[Carry, list[str]]:
    """``command`` with only the conditions the encounter's ruleset takes (each tried on its
    own, nothing written), and a line for each it refuses."""
    from msgspec.structs import replace

    head = enc.head().event_id
    kept, lines = [], []
    for effect in command.effects:
        try:
            enc.decide(replace(command, effects=(effect,)), head)
        except SkirmishError as e:
            lines.append(f"{command.name}: tag {effect.kind!r} not mapped: {e}")
            continue
        kept.append(effect)
    return replace(command, effects=tuple(kept)), lines


def imported_add(entry: Any, ruleset: Ruleset[Any], name: str, side: str | None, typed: dict[str, str],
                 hp: str, faces: dict[str, tuple[int, ...]], path: Path) -> tuple[Command, list[str]]:
    """`add NAME --from FILE` for a stat block read from JSON: its mapped stats (typed ones win),
    hit points average or rolled from the GM's faces, a line per field not mapped; a persistent
    character below its hit points comes in as a `carry` at its hit points now."""
    from skirmish.projections.imports.mapping import VITAL, rolled_hp, stats_for

    creature = entry.imported
    if hp not in ("average", "rolled"):
        raise BadInput(f"--hp takes average or rolled, not {hp!r}")
    rolled = None
    if hp == "rolled":
        typed_faces = {k.lower(): v for k, v in faces.items()}.get(creature.name.lower())
        if typed_faces is None:
            dice = creature.hit_dice or "its hit dice"
            raise BadInput(f"--hp rolled takes the GM's faces for {creature.name}'s {dice}: "
                           f"--roll {creature.name!r}=FACES")
        rolled = rolled_hp(creature, typed_faces)
    elif faces:
        raise BadInput("--roll goes with --hp rolled on an imported stat block")
    stats, lines = stats_for(creature, ruleset, rolled)
    stats |= typed
    side = side if side is not None else entry.side
    vital = VITAL.get(ruleset.id, "hp")
    if creature.current is not None and vital in stats:
        source = f"{creature.source} (its current hit points)"
        return Carry(name=creature.name, side=side, stats=stats, vital=creature.current, source=source), lines
    return AddCombatant(name=creature.name, side=side, stats=stats), lines


def add_imported(ctx: Any, entry: Any, ruleset: Ruleset[Any], side: str | None, typed: dict[str, str], count: int,
                 hp: str, faces: dict[str, tuple[int, ...]], path: Path) -> None:
    """`add NAME --from FILE.json`: the lines for what is not mapped, then the command."""
    from msgspec.structs import replace

    from skirmish.cli.app import say
    from skirmish.cli.main import _execute

    command, lines = imported_add(entry, ruleset, entry.name, side, typed, hp, faces, path)
    if count != 1:
        if hp == "rolled" or isinstance(command, Carry):
            why = "rolled hit points" if hp == "rolled" else "a character below its hit points"
            raise BadInput(f"--count adds copies of one stat block; {why} come in one at a time")
        command = replace(command, count=count)
    for line in lines:
        say(line)
    _execute(ctx, command)


def new_with(run: Any, name: str, rules: str, options: dict[str, str], seed: int | None, carry: str | None,
             who: Sequence[str], path: Path | None, fight: str, stats: dict[str, str] | None = None) -> None:
    """`new NAME --carry PREVIOUS` or `new NAME --from FILE`: the source read whole, then the
    encounter and one command a combatant in one transaction."""
    from msgspec.structs import replace

    from skirmish.cli.app import say
    from skirmish.projections.ruleset import get_ruleset

    if carry is not None and path is not None:
        raise BadInput("a new encounter takes --carry or --from, not both")
    if who and carry is None:
        raise BadInput("--who goes with --carry")
    if stats and path is None:
        raise BadInput("--stat on `new` goes with --from")
    ruleset = get_ruleset(rules)
    log_file = run.log_file(create=True)
    if carry is not None:
        earlier = log_file.open(carry)
        if earlier.ruleset.id != ruleset.id:
            raise BadInput(f"encounter {earlier.row.name!r} is played under {earlier.ruleset.id}: its stats do not "
                           f"hold under {ruleset.id}")
        commands, lines = carried(earlier, who, ())
    else:
        assert path is not None
        seated, lines, _ = fight_commands(path, fight, ruleset)
        commands = [replace(c, stats=(stats or {}) | c.stats) for c in seated]
    with log_file.batch():
        enc = log_file.new(name, ruleset.id, options, run.text, seed)
        first = enc.path(enc.head().event_id)[0]
        out = [f"#{first.id} {enc.describe(first)}"]
        for command in commands:
            if path is not None:
                command, refused = tags_that_hold(enc, command)  # type: ignore[arg-type]
                lines += refused
            recorded = enc.execute(command, run.text)
            out += [f"#{rec.id} {enc.describe(rec)}" for rec in recorded]
    for line in [*lines, *out]:
        say(line)
    say(f"Encounter {enc.row.name!r} is now current in {run.db}")
