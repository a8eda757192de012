"""The jsonl export of one encounter's whole tree, and its import: a lossless round trip.

The file is one JSON object a line, each tagged by ``record``: a ``header`` (format,
version, the log's verify digest), the ``encounter`` row, then every ``command``,
``event`` and head ``move`` row with its id, links, recorded_at and hash, bodies kept as
the exact text stored. Notes are events, branches and undos are head moves: the file
holds everything ``verify`` covers, so an import reproduces the same digest.

Import policy: the rows keep their ids (each hash covers its row's id and the
encounter's), so they go into a database where those ids are free, in practice a new
one. An encounter of the same name already there is refused, unless it is the very same
log (same digest): then the import is a no-op. A file that is malformed, whose ruleset
is not installed, whose events do not decode, or whose chain does not verify is refused
with nothing written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_type_hints

import msgspec

from skirmish.eventlog.chain import verify
from skirmish.eventlog.errors import BadInput, TamperedLog, UnknownEncounter, UnknownRuleset, UnreadableEvent
from skirmish.eventlog.events import EncounterStarted, tag_of
from skirmish.eventlog.store import CommandRow, EncounterRow, EventRow, HeadMove, Store
from skirmish.eventlog.text import clip, json_safe, quoted
from skirmish.projections.engine import Encounter, codec_for
from skirmish.projections.ruleset import not_installed

FORMAT = "skirmish-export"
FORMAT_VERSION = 1

Advance = Callable[[int], None]


def _quiet(_: int) -> None:
    return None


# The file is user input: unknown fields are refused (STYLE 6), every field is required.
class _Record(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="record"):
    pass


class Header(_Record, frozen=True, tag="header"):
    format: str
    version: int
    digest: str
    rows: int


# Every integer of a row is an id, a head's move count or a layout version, each from 1,
# and SQLite holds at most 2^63 - 1: a file's other integers are refused as it is read,
# with their line, rather than overflowing the insert.
_ROW_INTEGER: Any = Annotated[int, msgspec.Meta(ge=1, le=2**63 - 1)]


def _bounded(hint: Any) -> Any:
    if hint is int:
        return _ROW_INTEGER
    if hint == int | None:
        return _ROW_INTEGER | None
    return hint


def _record_of(row: type[tuple[Any, ...]], tag: str) -> type[_Record]:
    """The record type of a store row: the same fields, so the two never drift apart."""
    hints = get_type_hints(row)
    fields = [(name, _bounded(hints[name])) for name in row._fields]  # type: ignore[attr-defined]
    record = msgspec.defstruct(
        f"{row.__name__}Record", fields, bases=(_Record,), tag=tag, frozen=True, forbid_unknown_fields=True
    )
    assert issubclass(record, _Record)
    return record


EncounterRecord = _record_of(EncounterRow, "encounter")
CommandRecord = _record_of(CommandRow, "command")
EventRecord = _record_of(EventRow, "event")
MoveRecord = _record_of(HeadMove, "move")
_union: Any = Union[Header, EncounterRecord, CommandRecord, EventRecord, MoveRecord]  # noqa: UP007 - runtime union
_encoder = msgspec.json.Encoder()
_decoder: msgspec.json.Decoder[_Record] = msgspec.json.Decoder(_union)


def row_count(enc: Encounter) -> int:
    """How many rows an export writes (for a progress bar's total)."""
    counts = enc.store.counts(enc.row.id)
    return counts.commands + counts.events + counts.moves


def export_jsonl(enc: Encounter, advance: Advance = _quiet) -> Iterator[bytes]:
    """The encounter's whole tree as jsonl lines, as it stood at one moment (another writer
    may go on appending); refuses a log that does not verify."""
    log = enc.store.log(enc.row.id)
    digest = verify(log)
    rows = len(log.commands) + len(log.events) + len(log.moves)
    yield _line(Header(format=FORMAT, version=FORMAT_VERSION, digest=digest, rows=rows))
    yield _line(EncounterRecord(*log.encounter))
    for records, record in ((log.commands, CommandRecord), (log.events, EventRecord), (log.moves, MoveRecord)):
        for row in records:
            yield _line(record(*row))
            advance(1)


def _line(record: _Record) -> bytes:
    # Written so a terminal can show it (an export to stdout, a file someone cats): what a
    # terminal would act on as \\u escapes, the same JSON to the import (eventlog/text.py).
    return json_safe(_encoder.encode(record).decode()).encode() + b"\n"


@dataclass(frozen=True)
class Imported:
    encounter: EncounterRow
    digest: str
    commands: int
    events: int
    moves: int
    already: bool  # the same log was there already: nothing written


def read_jsonl(lines: Iterable[bytes], source: str, advance: Advance = _quiet) -> list[_Record]:
    """Parse every line of an export; a malformed one is refused with its line number."""
    records: list[_Record] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            records.append(_decoder.decode(line))
        except msgspec.DecodeError as exc:  # its message may quote a field: cut it short
            raise BadInput(f"{source}:{number}: not a skirmish export line ({clip(str(exc), 200)})") from None
        except UnicodeDecodeError:  # msgspec's, inside a string: find the byte in the line
            raise BadInput(f"{source}:{number}: not a skirmish export line ({_not_utf8(line)})") from None
        advance(1)
    return records


def _check_first_event(enc: EncounterRow, events: list[EventRow], source: str) -> None:
    """The encounter row names the ruleset its first event was recorded under (verify checks
    the same, once the events can be read): a row edited to name another is refused as
    that, before the events are read under the wrong ruleset."""
    first = min(events, key=lambda e: e.id, default=None)
    if first is None or first.kind != tag_of(EncounterStarted):
        return  # verify names what is missing
    try:
        ruleset = msgspec.json.decode(first.body, type=EncounterStarted).ruleset
    except msgspec.DecodeError:
        return  # the codec names the row that does not decode
    if ruleset != enc.ruleset:
        raise TamperedLog(
            f"{source}: its encounter row names ruleset {quoted(enc.ruleset)} but its first event "
            f"(#{first.id}) was recorded under {quoted(ruleset)}: the file was edited"
        )


def _not_utf8(line: bytes) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text: byte 0x{line[exc.start]:02x} at column {exc.start + 1}"
    return "not UTF-8 text"


def import_jsonl(store: Store, records: list[_Record], source: str) -> Imported:
    """Restore an exported encounter exactly as it was; see the module's import policy."""
    if not records or not isinstance(records[0], Header) or records[0].format != FORMAT:
        raise BadInput(f"{source} is not a skirmish export (no {FORMAT} header on its first line)")
    header = records[0]
    if header.version != FORMAT_VERSION:
        raise BadInput(f"{source} is export format {header.version}; this skirmish reads {FORMAT_VERSION}")
    encounters = [r for r in records if isinstance(r, EncounterRecord)]
    if len(encounters) != 1 or any(isinstance(r, Header) for r in records[1:]):
        raise BadInput(f"{source} must hold one header and one encounter, not {len(encounters)} encounters")
    enc = EncounterRow(*msgspec.structs.astuple(encounters[0]))
    commands = [CommandRow(*msgspec.structs.astuple(r)) for r in records if isinstance(r, CommandRecord)]
    events = [EventRow(*msgspec.structs.astuple(r)) for r in records if isinstance(r, EventRecord)]
    moves = [HeadMove(*msgspec.structs.astuple(r)) for r in records if isinstance(r, MoveRecord)]
    if header.rows != len(commands) + len(events) + len(moves):
        raise BadInput(
            f"{source} holds {len(commands) + len(events) + len(moves)} rows, its header says "
            f"{header.rows}: the file was cut short or rows were added"
        )
    counts = (len(commands), len(events), len(moves))
    try:
        existing = store.encounter(enc.name)
    except UnknownEncounter:
        existing = None
    if existing is not None:
        if store.verify(existing.id) == header.digest:
            return Imported(existing, header.digest, *counts, already=True)
        raise BadInput(
            f"an encounter named {quoted(enc.name)} already exists in {store.file} with another log: "
            "import into a new database (--db)"
        )
    _check_first_event(enc, events, source)
    try:
        codec = codec_for(enc.ruleset)
    except UnknownRuleset:
        raise UnknownRuleset(f"{source}: {not_installed(enc.name, enc.ruleset)}") from None
    for e in events:
        try:
            codec.decode(e.body, e.kind, e.version, e.id)
        except UnreadableEvent as exc:
            raise BadInput(f"{source}: event {e.id} ({e.kind}) does not decode under {enc.ruleset}: {exc.reason}") from None
    try:
        digest = store.restore(enc, commands, events, moves, expect=header.digest)
    except TamperedLog as exc:
        raise TamperedLog(f"{source} does not verify: {exc}") from None
    return Imported(store.encounter(enc.name), digest, *counts, already=False)
