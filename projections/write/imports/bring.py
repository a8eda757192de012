"""What an imported file brings into an encounter: an `add` (or `carry`) for a stat block, and
the `carry` commands that set up a saved fight, each with a line for what the ruleset cannot hold."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from skirmish.eventlog.commands import AddCombatant, AddHidden, Carry, CarriedEffect, Resume
from skirmish.eventlog.errors import BadInput, SkirmishError
from skirmish.projections.write.imports import read
from skirmish.projections.write.imports.mapping import VITAL, rolled_hp, side_of, stats_for
from skirmish.projections.ruleset import Ruleset, has_decision

if TYPE_CHECKING:
    from skirmish.projections.write.engine import Encounter
    from skirmish.projections.roster import Entry

HP_CHOICES = ("average", "rolled")


@dataclass(frozen=True)
class Brought:
    """The commands to record, one a combatant (then, for a fight in progress a ruleset takes
    up, its `resume`), and a line for each field left out."""

    commands: list[AddCombatant | Carry | Resume]
    lines: list[str]


def add_from(entry: Entry, ruleset: Ruleset[Any], side: str | None, typed: Mapping[str, str], count: int,
             hp: str, faces: Mapping[str, tuple[int, ...]], hidden: bool = False) -> Brought:
    """`add NAME --from FILE` for a stat block read from JSON: its mapped stats (typed ones win),
    hit points average or rolled from the GM's faces, a line per field not mapped; a persistent
    character below its hit points comes in as a `carry` at its hit points now. ``hidden``
    (`--hidden`): it joins hidden from the players, as a typed `add --hidden` does."""
    creature = entry.imported
    assert creature is not None, "a stat block read from JSON"
    if hp not in HP_CHOICES:
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
    side = side if side is not None else entry.side or side_of(creature)
    below = creature.current is not None and VITAL.get(ruleset.id, "hp") in stats
    if count != 1 and (rolled is not None or below):
        why = "rolled hit points" if rolled is not None else "a character below its hit points"
        raise BadInput(f"--count adds copies of one stat block; {why} come in one at a time")
    if creature.current is not None and not below:
        lines.append(f"{creature.name}: current hit points {creature.current} not mapped: {ruleset.id} has none")
    if below and hidden:
        # A carry has no hidden form: hiding it after it joined would tell the players it came.
        raise BadInput(f"{creature.name} comes in below its hit points (a carry), which joins in sight: "
                       "add it with its stats typed and --hidden, then `damage` it")
    if below:
        source = f"{creature.source} (its current hit points)"
        return Brought([Carry(name=creature.name, side=side, stats=stats, vital=creature.current, source=source)],
                       lines)
    kind = AddHidden if hidden else AddCombatant
    return Brought([kind(name=creature.name, side=side, stats=stats, count=count)], lines)


def saved_fight(path: Path, fight_name: str, ruleset: Ruleset[Any], typed: Mapping[str, str]) -> Brought:
    """The `carry` commands that seat a saved fight's combatants (``typed``: stats for every
    one whose stat block does not give them), with one line for each field the ruleset
    cannot hold: a tag's turn, initiative and temporary hit points unless the ruleset's
    ``seat_figures`` names them (they come in the carry's figures), and the round.

    A fight in progress (a combatant acting) is taken up where its table stopped by a
    `resume` after the carries, where the ruleset decides one (srd-5.2): its round, its
    order (the seats by initiative, highest first, ties in the file's order: the order the
    table played, which II keeps sorted so) and the acting combatant's turn. A ruleset that
    decides none is named in one line: its fight starts before its first round."""
    found = read(path)
    fight = next((f for name, f in found.fights.items() if name.lower() == fight_name.strip().lower()), None)
    if fight is None and not found.fights:
        raise BadInput(f"{str(path)!r} holds no saved fight ({found.format}): `add NAME --from` takes its stat blocks")
    if fight is None:
        raise BadInput(f"{str(path)!r} has no saved fight {fight_name!r} (fights: {', '.join(found.fights)})")
    source = f"{found.format} file {path.name!r}, fight {fight.name!r}"
    commands: list[AddCombatant | Carry | Resume] = []
    lines: list[str] = []
    # II loads a fight with a combatant acting at its RoundCounter, or 1 where it has none
    # (its Encounter.LoadEncounterState); with nobody acting, the fight is not under way.
    round_now = max(fight.round, 1) if fight.acting else fight.round
    resumes = fight.acting is not None and has_decision(ruleset, Resume)
    if fight.acting and not resumes:
        lines.append(f"the fight was at round {round_now}, {fight.acting} acting: {ruleset.id} cannot take up a "
                     "round under way, so it starts before its first `round`")
    elif round_now and not fight.acting:
        lines.append(f"the fight was at round {round_now}: {ruleset.id} counts its own from its first `round`")
    holds_hp = VITAL.get(ruleset.id, "hp") in ruleset.stats
    # The seat's figures the ruleset's combatant-carried applier holds (srd-5.2: temp, initiative).
    seated: frozenset[str] = getattr(ruleset, "seat_figures", frozenset())
    for seat in fight.seats:
        stats, unmapped = stats_for(seat.creature, ruleset)
        lines += [line.replace(f"{seat.creature.name}:", f"{seat.name}:", 1) for line in unmapped]
        figures: dict[str, int] = {}
        if resumes and seat.initiative is None and "initiative" in seated:
            figures["initiative"] = 0  # II's default for a combatant given none: its place is last
        elif seat.initiative is not None and "initiative" in seated:
            figures["initiative"] = seat.initiative
        elif seat.initiative is not None:
            lines.append(f"{seat.name}: initiative {seat.initiative} not mapped: {ruleset.id} rolls its own")
        if seat.temp_hp and "temp" in seated:
            figures["temp"] = seat.temp_hp
        elif seat.temp_hp:
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
            name=seat.name, side=side_of(seat.creature), stats=dict(typed) | stats, source=source,
            vital=seat.hp if holds_hp and seat.hp != seat.creature.hp else None, effects=tuple(effects),
            figures=figures,
        ))
    if resumes:
        assert fight.acting is not None
        # sorted() is stable: tied seats keep the file's order, the one the table played.
        held = sorted(fight.seats, key=lambda seat: -(seat.initiative or 0))
        commands.append(Resume(round=round_now, acting=fight.acting, order=tuple(s.name for s in held),
                               source=source))
    return Brought(commands, lines)


def tags_that_hold(enc: Encounter, command: Carry) -> tuple[Carry, list[str]]:
    """``command`` with only the conditions the encounter's ruleset takes (each tried on its
    own at the head, nothing written), and a line for each it refuses."""
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
