"""Amend the past: replace one command of a branch and decide every later command again on a
new branch, as they were recorded, like a rebase."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

import msgspec

from skirmish.eventlog.commands import AddNote, AnyCommand, Command, command_decoder
from skirmish.eventlog.errors import BadInput, HeadMoved, SkirmishError, StoreError, TamperedLog, UnknownEvent
from skirmish.projections.write.engine import Encounter, Folded, Link, Recorded


@dataclass
class Redecided:
    """One command of the original branch and what deciding it again gave."""

    text: str
    old: list[int]
    new: list[Recorded] = field(default_factory=list)
    skipped: str | None = None  # why it no longer holds, if it was skipped


class RedecidedJson(msgspec.Struct, frozen=True):
    command: str
    old: list[int]  # its events on the original branch
    new: list[int]  # its events on the new one (none: skipped)
    skipped: str | None


class AmendedJson(msgspec.Struct, frozen=True):
    """`amend --json`: the new branch and what became of each command."""

    branch: str
    original: str = msgspec.field(name="from")
    at: int
    commands: list[RedecidedJson]


@dataclass
class Amended:
    branch: str
    at: int  # the event the new branch starts from (where the amended command was decided)
    original: str  # the branch whose history was amended
    steps: list[Redecided]  # the amended command first, then every later one

    def to_json(self) -> AmendedJson:
        return AmendedJson(self.branch, self.original, self.at,
                           [RedecidedJson(s.text, s.old, [r.id for r in s.new], s.skipped) for s in self.steps])


def _commands_on(path: list[Link]) -> list[list[Link]]:
    """The path's events grouped by the command that produced them, in order: the commands
    whose events are on the branch (undone ones are not, redone ones are, once)."""
    groups: list[list[Link]] = []
    for rec in path:
        if groups and groups[-1][0].command_id == rec.command_id:
            groups[-1].append(rec)
        else:
            groups.append([rec])
    return groups


def amend(enc: Encounter, event_id: int, command: Command, text: str, branch: str | None, why: str) -> Amended:
    """Replace the command behind ``event_id`` (on the current branch) with ``command`` and
    decide every later command of the branch again on top of it, on a new branch.

    A later command that no longer holds is skipped with its reason, like a conflict in a
    rebase; the original branch keeps every event. Each command rolls the tool's dice it
    rolled when first decided (they are seeded from where it was decided), so only what
    the correction changes changes. The replacement itself is decided whole, even where
    the branch was forked between the events of the command it replaces. The new branch
    is written in one transaction: it is there whole, or not at all.
    """
    enc.event(event_id)
    head = enc.head()
    groups = _commands_on(enc.links(head.event_id))
    k = next((i for i, g in enumerate(groups) if any(r.id == event_id for r in g)), None)
    if k is None:
        raise UnknownEvent(
            f"event {event_id} is not in the history of branch {head.branch!r}: "
            "`skirmish switch` to the branch it is on first"
        )
    if k == 0:
        raise BadInput("the encounter's first event cannot be amended: start a new encounter instead")
    at = groups[k][0].parent
    assert at is not None
    name = branch or _free_name(enc, f"amend-{event_id}")
    # Decided first, so a replacement that does not hold records nothing at all.
    enc.decide(command, at)
    # Decided on a private copy of the file, so the table is not locked out while every
    # later command is decided again (seconds for a long branch); what the copy appended is
    # then written in one short transaction, refused if anything was recorded meanwhile.
    with enc.aside() as copy:
        steps = _decide_again(copy, groups[k:], command, text, name, at, why)
    return Amended(name, at, head.branch, steps)


def _decide_again(
    enc: Encounter, groups: list[list[Link]], command: Command, text: str, name: str, at: int, why: str
) -> list[Redecided]:
    """Fork ``name`` at ``at`` and decide ``command`` then every later command of ``groups``
    again on it, in one transaction of ``enc``'s file (amend's copy of it)."""
    with enc.batch():
        enc.fork(name, at, why)
        # Worked out once, not once a command: each command's work is its own events.
        replaced = {r.id for g in groups for r in g}
        renumbered: dict[int, int] = {}
        steps: list[Redecided] = []
        # The state at the new branch's head, carried from one command to the next (folded
        # again only after a skip, or a command held in part).
        folded: Folded | None = None
        for i, group in enumerate(groups):
            old = [r.id for r in group]
            if i == 0:
                step = Redecided(text, old)
                todo: Command = command
            else:
                row = enc.command(group[0].command_id)
                step = Redecided(row.text, old)
                todo = command_decoder.decode(row.body)
            steps.append(step)
            try:
                moved = _renumber(todo, renumbered, replaced)
                if moved is not todo and isinstance(moved, AddNote):
                    # The command line as it would be typed now, about the new event.
                    step.text = shlex.join([str(type(moved).__struct_config__.tag), str(moved.event), moved.text])
                    todo = moved
                # A command the branch holds only in part (it was forked inside the command)
                # is held in the same part again.
                keep = len(group) if i and len(group) < enc.command_size(group[0].command_id) else None
                step.new, folded = enc.execute_from(
                    folded, todo, step.text, branch=name, dice_from=group[0].parent, keep=keep
                )
            except (HeadMoved, StoreError, TamperedLog):
                raise  # not the command's fault: the store's; the whole amend is rolled back
            except SkirmishError as exc:
                step.skipped = str(exc)
                folded = None  # a refusal may have got half-way through the state it was given
                continue
            renumbered.update(zip(old, (r.id for r in step.new), strict=False))
    return steps


def _renumber(command: AnyCommand | Command, renumbered: dict[int, int], replaced: set[int]) -> Command:
    """A note about an event that was decided again is about its new counterpart."""
    if not isinstance(command, AddNote) or command.event not in replaced:
        return command
    new = renumbered.get(command.event)
    if new is None:
        raise UnknownEvent(f"the event it annotates (#{command.event}) was not decided again")
    return msgspec.structs.replace(command, event=new)


def _free_name(enc: Encounter, base: str) -> str:
    taken = set(enc.branches())
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name
