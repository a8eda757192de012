"""The notes about events, as every surface shows them (the log, explain, the page, the report)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skirmish.eventlog.events import NoteAdded
from skirmish.projections.write.engine import Encounter


@dataclass(frozen=True)
class Note:
    id: int
    about: int
    text: str
    private: bool = False


def notes_shown(enc: Encounter, event_ids: Sequence[int] | None = None) -> dict[int, list[Note]]:
    """The notes about these events (default: every event), keyed by the event they annotate.

    A note annotates what happened wherever the GM wrote it, so notes from every branch
    are shown; an undone note (on no branch's history) was taken back and is not. Notes on
    a combatant are not about an event: the view shows them (``Encounter.notes_on``).
    """
    wanted = set(event_ids) if event_ids is not None else None
    recorded = enc.events_of_kind(NoteAdded)
    if not recorded:
        return {}
    shape = enc.shape()  # whether a branch holds a note, from the runs of ids
    by: dict[int, list[Note]] = {}
    for rec in recorded:
        note = rec.event
        assert isinstance(note, NoteAdded)
        # A note on a combatant (``on``) is about it, not the event it was written at: `state` shows it.
        if note.on is None and (wanted is None or note.about in wanted) and shape.held(rec.id):
            by.setdefault(note.about, []).append(Note(rec.id, note.about, note.text, note.private))
    return by
