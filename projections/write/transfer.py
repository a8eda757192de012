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

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, NamedTuple, TypeVar, Union, get_type_hints

import msgspec

from skirmish.eventlog.errors import BadInput, TamperedLog, UnknownEncounter, UnknownRuleset, UnreadableEvent
from skirmish.eventlog.events import EncounterStarted, tag_of
from skirmish.eventlog.rows import CommandRow, EncounterRow, EventRow, HeadMove
from skirmish.eventlog.text import clip, json_safe, quoted
from skirmish.projections.engine import Encounter, LogFile, codec_for
from skirmish.projections.ruleset import not_installed

FORMAT = "skirmish-export"
FORMAT_VERSION = 1

Advance = Callable[[int], None]
T = TypeVar("T")


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
    counts = enc.counts()
    return counts.commands + counts.events + counts.moves


LAYOUT = "an export holds one header, then one encounter, then its rows"
CHUNK = 2_000  # rows a write or an insert takes at once: few calls, memory flat


class Patch(NamedTuple):
    """Bytes to write over the output at an offset, then carry on at its end: the header,
    once the digest is known."""

    at: int
    data: bytes


def export_jsonl(enc: Encounter, advance: Advance = _quiet, seekable: bool = False) -> Iterator[bytes | Patch]:
    """The encounter's whole tree as jsonl, in chunks of lines, as it stood at one moment
    (another writer may go on appending); refuses a log that does not verify.

    One read transaction: the verify (the header carries the digest), then the rows,
    table by table in id order, memory holding one chunk. Into a ``seekable`` output
    the rows are written while another process verifies (eventlog/verifying.py), and the
    header, written first with a placeholder of the digest's length, is patched at the end."""
    with enc.verifying(aside=seekable) as digest:
        counts = enc.counts()
        rows = counts.commands + counts.events + counts.moves
        if seekable:
            placeholder = _line(Header(format=FORMAT, version=FORMAT_VERSION, digest="0" * 64, rows=rows))
            yield placeholder
        else:
            yield _line(Header(format=FORMAT, version=FORMAT_VERSION, digest=digest(), rows=rows))
        yield _line(EncounterRecord(*enc.row))
        tables: tuple[tuple[Iterable[tuple[Any, ...]], Any], ...] = (
            (enc.command_rows(), CommandRecord),
            (enc.event_rows(), EventRecord),
            (enc.head_moves(), MoveRecord),
        )
        for records, record in tables:
            for chunk in batched(records):
                yield _lines(record(*row) for row in chunk)
                advance(len(chunk))
        if seekable:
            header = _line(Header(format=FORMAT, version=FORMAT_VERSION, digest=digest(), rows=rows))
            assert len(header) == len(placeholder), "a digest is 64 hex digits"
            yield Patch(0, header)


def batched(rows: Iterable[T]) -> Iterator[tuple[T, ...]]:
    """``rows`` CHUNK at a time (itertools.batched, from Python 3.12)."""
    it = iter(rows)
    while chunk := tuple(itertools.islice(it, CHUNK)):
        yield chunk


def _line(record: _Record) -> bytes:
    return _lines((record,))


def _lines(records: Iterable[_Record]) -> bytes:
    # Written so a terminal can show it (an export to stdout, a file someone cats): what a
    # terminal would act on as \\u escapes, the same JSON to the import (eventlog/text.py).
    # Escaped a chunk at a time: a line break between records is JSON's own and stays.
    encode = _encoder.encode
    chunk = b"".join(encode(r) + b"\n" for r in records)
    text = chunk.decode()
    if text.replace("\n", "").isprintable():  # the common case, checked in C
        return chunk
    return json_safe(text).encode()


@dataclass(frozen=True)
class Imported:
    encounter: EncounterRow
    digest: str
    commands: int
    events: int
    moves: int
    already: bool  # the same log was there already: nothing written


def read_jsonl(lines: Iterable[bytes], source: str, advance: Advance = _quiet) -> Iterator[tuple[int, _Record]]:
    """Each record of an export with its line number, parsed as it is read; a malformed
    line is refused with its number. ``advance`` is told each line's size in bytes."""
    for number, line in enumerate(lines, 1):
        advance(len(line))
        if not line.strip():
            continue
        try:
            yield number, _decoder.decode(line)
        except msgspec.DecodeError as exc:  # its message may quote a field: cut it short
            raise BadInput(f"{source}:{number}: not a skirmish export line ({clip(str(exc), 200)})") from None
        except UnicodeDecodeError:  # msgspec's, inside a string: find the byte in the line
            raise BadInput(f"{source}:{number}: not a skirmish export line ({_not_utf8(line)})") from None


def _check_first_event(enc: EncounterRow, first: EventRow, source: str) -> None:
    """The encounter row names the ruleset its first event was recorded under (verify checks
    the same, once the events can be read): a row edited to name another is refused as
    that, before the events are read under the wrong ruleset."""
    if first.kind != tag_of(EncounterStarted):
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


def import_jsonl(log_file: LogFile, lines: Iterable[bytes], source: str, advance: Advance = _quiet) -> Imported:
    """Restore an exported encounter exactly as it was; see the module's import policy.

    The file is read once, a line at a time, its rows inserted a chunk at a time in one
    transaction and verified streamed: memory stays flat in the file's size."""
    records = read_jsonl(lines, source, advance)
    _, header = next(records, (0, None))
    if not isinstance(header, Header) or header.format != FORMAT:
        raise BadInput(f"{source} is not a skirmish export (no {FORMAT} header on its first line)")
    if header.version != FORMAT_VERSION:
        raise BadInput(f"{source} is export format {header.version}; this skirmish reads {FORMAT_VERSION}")
    number, second = next(records, (0, None))
    if not isinstance(second, EncounterRecord):
        where = f"{source}:{number}" if number else source
        raise BadInput(f"{where}: not the encounter record: {LAYOUT}")
    enc = EncounterRow(*msgspec.structs.astuple(second))
    rows = _Rows(source, enc, header)
    try:
        existing = log_file.encounter(enc.name)
    except UnknownEncounter:
        existing = None
    if existing is not None:
        if log_file.verify(existing) != header.digest:
            raise BadInput(
                f"an encounter named {quoted(enc.name)} already exists in {log_file.path} with another log: "
                "import into a new database (--db)"
            )
        for number, record in records:  # the same log: the file is still read through, and must be whole
            rows.take(number, record)
        rows.check_count()
        return Imported(existing, header.digest, *rows.counts, already=True)
    with log_file.restoring(enc) as restoring:
        rows.into = restoring.add
        for number, record in records:
            rows.take(number, record)
        rows.flush()
        rows.check_count()
        try:
            digest = restoring.finish(expect=header.digest)
        except TamperedLog as exc:
            raise TamperedLog(f"{source} does not verify: {exc}") from None
    return Imported(log_file.encounter(enc.name), digest, *rows.counts, already=False)


class _Rows:
    """The rows of an import as they are read: counted, each event decoded under its
    ruleset, and handed to the store a chunk at a time (when ``into`` is set)."""

    TABLES: dict[type[_Record], tuple[str, type[tuple[Any, ...]]]] = {
        CommandRecord: ("commands", CommandRow),
        EventRecord: ("events", EventRow),
        MoveRecord: ("head_moves", HeadMove),
    }

    def __init__(self, source: str, encounter: EncounterRow, header: Header) -> None:
        self.source, self.encounter, self.header = source, encounter, header
        self.into: Callable[[str, Sequence[tuple[Any, ...]]], None] | None = None  # the restoring's add
        self.pending: dict[str, list[tuple[Any, ...]]] = {table: [] for table, _ in self.TABLES.values()}
        self.taken = {table: 0 for table in self.pending}
        self.codec: Any = None
        self.last = ""  # the table of the rows last taken

    @property
    def counts(self) -> tuple[int, int, int]:
        return self.taken["commands"], self.taken["events"], self.taken["head_moves"]

    def take(self, number: int, record: _Record) -> None:
        kind = self.TABLES.get(type(record))
        if kind is None:
            raise BadInput(f"{self.source}:{number}: a second {record.__struct_config__.tag} record: {LAYOUT}")
        table, row_type = kind
        row = row_type(*msgspec.structs.astuple(record))
        if table == "events":
            self._decode(row)  # type: ignore[arg-type]
        self.taken[table] += 1
        if self.into is not None:
            if table != self.last:
                # The last part chunk of the table before goes in first: an event naming a
                # command not inserted yet is a deferred foreign key violation, and while
                # one is pending SQLite looks up the children of every row inserted after.
                self.flush()
                self.last = table
            pending = self.pending[table]
            pending.append(row)
            if len(pending) >= CHUNK:
                self.flush(table)

    def flush(self, only: str | None = None) -> None:
        assert self.into is not None
        for table, pending in self.pending.items():
            if pending and only in (None, table):
                self.into(table, pending)
                pending.clear()

    def check_count(self) -> None:
        held = sum(self.counts)
        if self.header.rows != held:
            raise BadInput(
                f"{self.source} holds {held} rows, its header says {self.header.rows}: "
                "the file was cut short or rows were added"
            )

    def _decode(self, event: EventRow) -> None:
        if self.codec is None:  # the first event: the ruleset it names, then its codec
            _check_first_event(self.encounter, event, self.source)
            try:
                self.codec = codec_for(self.encounter.ruleset)
            except UnknownRuleset:
                raise UnknownRuleset(f"{self.source}: {not_installed(self.encounter.name, self.encounter.ruleset)}") from None
        try:
            self.codec.decode(event.body, event.kind, event.version, event.id)
        except UnreadableEvent as exc:
            raise BadInput(
                f"{self.source}: event {event.id} ({event.kind}) does not decode under {self.encounter.ruleset}: {exc.reason}"
            ) from None
