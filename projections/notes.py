"""The notes about events, as every surface shows them (the log, explain, the page, the report)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skirmish.eventlog.events import NoteAdded, tag_of
from skirmish.projections.engine import Encounter


@dataclass(frozen=True)
class Note:
    id: int
    about: int
    text: str
    private: bool = False


def notes_shown(enc: Encounter, event_ids: Sequence[int] | None = None) -> dict[int, list[Note]]:
    """The notes about these events (default: every event), keyed by the event they annotate.

    A note annotates what happened wherever the GM wrote it, so notes from every branch
    are shown; an undone note (on no branch's history) was taken back and is not.
    """
    wanted = set(event_ids) if event_ids is not None else None
    rows = enc.store.events_of_kind(enc.row.id, tag_of(NoteAdded))
    if not rows:
        return {}
    shape = enc.store.shape(enc.row.id)  # whether a branch holds a note, from the runs of ids
    by: dict[int, list[Note]] = {}
    for row in rows:
        note = enc.decode(row).event
        assert isinstance(note, NoteAdded)
        if (wanted is None or note.about in wanted) and shape.held(row.id):
            by.setdefault(note.about, []).append(Note(row.id, note.about, note.text, note.private))
    return by
