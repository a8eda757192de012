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

import io
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, NamedTuple, TypeVar, Union, get_type_hints

import msgspec

from skirmish.eventlog.errors import BadInput, DuplicateRow, TamperedLog, UnknownEncounter, UnreadableEvent
from skirmish.projections.refusals import UnknownRuleset
from skirmish.eventlog.events import EncounterStarted, tag_of
from skirmish.eventlog.rows import CommandRow, EncounterRow, EventRow, HeadMove
from skirmish.eventlog.text import clip, json_safe, quoted
from skirmish.projections.write.engine import Encounter, LogFile, codec_for
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
    fields = [(name, _bounded(hint)) for name, hint in hints.items()]  # a row's fields, in their order
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
_astuple = msgspec.structs.astuple
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


BLOCK = 1 << 18  # bytes of a file read and decoded at once: about 600 lines of an export
# A line break not followed by a record's start (checked on all but a block's last byte)
_NOT_BEFORE_A_RECORD = re.compile(rb"\n(?!\{)")


def read_blocks(
    lines: Iterable[bytes], source: str, advance: Advance = _quiet
) -> Iterator[tuple[Sequence[int], list[_Record]]]:
    """The records of an export a block at a time, each block with its records' line
    numbers; a malformed line is refused with its number, once the records before it are
    handed on. ``advance`` is told the bytes read.

    From a file, a block of whole lines is decoded in one call (msgspec's decode_lines,
    which reads JSON values apart by any whitespace), and taken as it is when each line
    holds one record: as many records as lines, every line starting with a record's ``{``.
    (A raw line break is never inside a JSON string, and a record's fields are plain
    values, so a ``{`` after one starts a record: no record spans two lines, each line
    holds one or more, and as many as the lines means one each.) Any other block (a blank
    line, a record over two lines, a line that does not decode) is read line by line, as
    any other iterable of lines is, to the same records or the same refusal."""
    read = getattr(lines, "read", None)
    if read is None:
        yield from _line_by_line(enumerate(lines, 1), source, advance)
        return
    # From a file that can seek, a block ends at its last line break and the next is read
    # from there: no block is copied to put a part line in front of the next.
    seekable = getattr(lines, "seekable", None)
    seek = getattr(lines, "seek", None) if seekable is not None and seekable() else None
    number, carry = 1, b""
    while True:
        data = read(BLOCK)
        if data:
            cut = data.rfind(b"\n") + 1
            if not cut:  # a line longer than a block: read on to its end
                carry += data
                continue
            block, end = (carry + data[:cut], len(carry) + cut) if carry else (data, cut)
            if seek is not None:  # the part line after the block: the next block's start
                seek(cut - len(data), io.SEEK_CUR)
                carry = b""
            else:
                carry = data[cut:]
        elif carry:  # the last line, without its line break
            block, end, carry = carry, len(carry), b""
        else:
            return
        advance(end)
        held = block.count(b"\n", 0, end) + (block[end - 1] != 10)  # 10: a line break
        try:
            records = _decoder.decode_lines(memoryview(block)[:end])
        except (msgspec.DecodeError, UnicodeDecodeError):
            records = None
        if (
            records is not None and len(records) == held and block.startswith(b"{")
            and _NOT_BEFORE_A_RECORD.search(block, 0, end - 1) is None
        ):
            yield range(number, number + held), records
        else:
            yield from _line_by_line(zip(itertools.count(number), io.BytesIO(block[:end])), source, _quiet)
        number += held


def _line_by_line(
    numbered: Iterable[tuple[int, bytes]], source: str, advance: Advance
) -> Iterator[tuple[list[int], list[_Record]]]:
    """Each line decoded alone, handed on CHUNK records at a time: the records before a line
    that does not decode are handed on before it is refused."""
    numbers: list[int] = []
    records: list[_Record] = []
    for number, line in numbered:
        advance(len(line))
        if not line.strip():
            continue
        try:
            record = _decoder.decode(line)
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:
            # Bytes that are no UTF-8 inside a string: msgspec up to 0.22 raises Python's
            # UnicodeDecodeError, 0.23 a DecodeError ("Invalid UTF-8 encoded string"); either
            # way the line names the byte. Another DecodeError's message may quote a field: cut short.
            why = _not_utf8(line) if isinstance(exc, UnicodeDecodeError) or not _is_utf8(line) else clip(str(exc), 200)
            refused = BadInput(f"{source}:{number}: not a skirmish export line ({why})")
        else:
            numbers.append(number)
            records.append(record)
            if len(records) >= CHUNK:
                yield numbers, records
                numbers, records = [], []
            continue
        if records:
            yield numbers, records
        raise refused
    if records:
        yield numbers, records


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


def _is_utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _not_utf8(line: bytes) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text: byte 0x{line[exc.start]:02x} at column {exc.start + 1}"
    return "not UTF-8 text"


def import_jsonl(log_file: LogFile, lines: Iterable[bytes], source: str, advance: Advance = _quiet) -> Imported:
    """Restore an exported encounter exactly as it was; see the module's import policy.

    The file is read once, a block of lines at a time, its rows inserted a chunk at a time
    in one transaction and verified streamed: memory stays flat in the file's size."""
    records = _Opening(read_blocks(lines, source, advance))
    _, header = records.next()
    if not isinstance(header, Header) or header.format != FORMAT:
        raise BadInput(f"{source} is not a skirmish export (no {FORMAT} header on its first line)")
    if header.version != FORMAT_VERSION:
        raise BadInput(f"{source} is export format {header.version}; this skirmish reads {FORMAT_VERSION}")
    number, second = records.next()
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
        for numbers, block in records.rest():  # the same log: the file is still read through, and must be whole
            rows.take(numbers, block)
        rows.check_count()
        return Imported(existing, header.digest, *rows.counts, already=True)
    with log_file.restoring(enc) as restoring:
        rows.into = restoring.add
        for numbers, block in records.rest():
            rows.take(numbers, block)
        rows.flush()
        rows.check_count()
        try:
            digest = restoring.finish(expect=header.digest)
        except TamperedLog as exc:
            raise TamperedLog(f"{source} does not verify: {exc}") from None
    return Imported(log_file.encounter(enc.name), digest, *rows.counts, already=False)


class _Opening:
    """An export's blocks of records, its first records taken one by one (the header, the
    encounter), then the rest a block at a time."""

    def __init__(self, blocks: Iterator[tuple[Sequence[int], list[_Record]]]) -> None:
        self.blocks = blocks
        self.numbers: Sequence[int] = ()
        self.records: list[_Record] = []

    def next(self) -> tuple[int, _Record | None]:
        while not self.records:
            got = next(self.blocks, None)
            if got is None:
                return 0, None
            self.numbers, self.records = got
        number, record = self.numbers[0], self.records[0]
        self.numbers, self.records = self.numbers[1:], self.records[1:]
        return number, record

    def rest(self) -> Iterator[tuple[Sequence[int], list[_Record]]]:
        if self.records:
            yield self.numbers, self.records
        yield from self.blocks


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
        self.lines: dict[str, list[int]] = {table: [] for table in self.pending}  # each pending row's line
        self.taken = {table: 0 for table in self.pending}
        self.codec: Any = None
        self.last = ""  # the table of the rows last taken

    @property
    def counts(self) -> tuple[int, int, int]:
        return self.taken["commands"], self.taken["events"], self.taken["head_moves"]

    def take(self, numbers: Sequence[int], records: list[_Record]) -> None:
        """A block of records, each from the line ``numbers`` gives in turn: each table's run
        of them in chunks, as the rows were read one by one (each decoded, counted, and a
        chunk handed on once CHUNK are pending), with the tuples made in C."""
        at = 0
        for kind, group in itertools.groupby(records, type):
            found = self.TABLES.get(kind)
            if found is None:
                tag = records[at].__struct_config__.tag
                raise BadInput(f"{self.source}:{numbers[at]}: a second {tag} record: {LAYOUT}")
            table = found[0]
            rows = list(map(_astuple, group))
            lines = numbers[at:at + len(rows)]
            at += len(rows)
            if self.into is not None and table != self.last:
                # The last part chunk of the table before goes in first: an event naming a
                # command not inserted yet is a deferred foreign key violation, and while
                # one is pending SQLite looks up the children of every row inserted after.
                self.flush()
                self.last = table
            pending = self.pending[table]
            while rows:
                room = CHUNK - len(pending)
                part, rows = (rows, []) if len(rows) <= room else (rows[:room], rows[room:])
                part_lines, lines = lines[:len(part)], lines[len(part):]
                if table == "events":
                    self._decode(part)
                self.taken[table] += len(part)
                if self.into is not None:
                    pending.extend(part)
                    self.lines[table].extend(part_lines)
                    if len(pending) >= CHUNK:
                        self.flush(table)

    def flush(self, only: str | None = None) -> None:
        assert self.into is not None
        for table, pending in self.pending.items():
            if pending and only in (None, table):
                lines = self.lines[table]
                try:
                    self.into(table, pending)
                except DuplicateRow as exc:
                    first = "" if exc.first is None else f" (first on line {lines[exc.first]})"
                    raise BadInput(f"{self.source}:{lines[exc.index]}: {exc.what} is given twice{first}: an "
                                   "export holds each row once (was it edited, or put together from two?)") from None
                pending.clear()
                lines.clear()

    def check_count(self) -> None:
        held = sum(self.counts)
        if self.header.rows != held:
            raise BadInput(
                f"{self.source} holds {held} rows, its header says {self.header.rows}: "
                "the file was cut short or rows were added"
            )

    def _decode(self, events: list[tuple[Any, ...]]) -> None:
        """Each event decoded under the encounter's ruleset: a body that does not is refused."""
        if self.codec is None:  # the first event: the ruleset it names, then its codec
            _check_first_event(self.encounter, EventRow(*events[0]), self.source)
            try:
                self.codec = codec_for(self.encounter.ruleset)
            except UnknownRuleset:
                raise UnknownRuleset(f"{self.source}: {not_installed(self.encounter.name, self.encounter.ruleset)}") from None
        codec = self.codec
        versions, decode = codec.versions, codec.decode_current
        for event_id, _, _, kind, version, body, _, _ in events:
            if versions.get(kind) == version:  # at its kind's current layout: the bare decoder
                try:
                    decode(body)
                    continue
                except msgspec.DecodeError:
                    pass
            try:  # an older layout (upcast), or the message of one that does not decode
                codec.decode(body, kind, version, event_id)
            except UnreadableEvent as exc:
                raise BadInput(
                    f"{self.source}: event {event_id} ({kind}) does not decode under {self.encounter.ruleset}: {exc.reason}"
                ) from None
