"""The tool's dice: an old log's derivation rolls the faces it always did, worked out here
from its formula; a new encounter's dice are keyed by 256 bits players never see."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import msgspec

from skirmish.eventlog.events import EncounterStarted
from skirmish.projections.write.engine import LogFile

from support.cli import Cli

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "exports" / "bridge-ambush.jsonl"


def tool_faces(db: str, event_id: int) -> list[list[int]]:
    """The faces of every roll the tool made in one event, in the order the event holds them."""
    with LogFile(db) as log:
        body = msgspec.json.decode(msgspec.json.encode(log.open().event(event_id).event))
    found: list[list[int]] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            if value.get("source") == "tool":
                found.append(list(value["faces"]))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(body)
    return found


def first_faces_of_derivation_1(seed: int, place: int, count: int, sides: int) -> list[int]:
    """Derivation 1 as recorded logs were rolled: SHA-256 of "seed:place", its first 8 bytes
    big-endian seed Python's Mersenne Twister, whose randint gives the faces."""
    material = hashlib.sha256(f"{seed}:{place}".encode()).digest()
    rng = random.Random(int.from_bytes(material[:8], "big"))
    return [rng.randint(1, sides) for _ in range(count)]


def first_faces_of_derivation_2(key: bytes, place: int, count: int, sides: int) -> list[int]:
    """Derivation 2: BLAKE2b keyed by the key over b"place:0", b"place:1", ...; each face
    from 8 bytes big-endian, drawn again at or above the largest multiple of ``sides``."""
    stream = b"".join(hashlib.blake2b(f"{place}:{n}".encode(), key=key).digest() for n in range(8))
    limit = 2**64 // sides * sides
    faces = []
    for at in range(0, len(stream), 8):
        drawn = int.from_bytes(stream[at:at + 8], "big")
        if drawn < limit:
            faces.append(drawn % sides + 1)
        if len(faces) == count:
            return faces
    raise AssertionError("the stream ran out")


def test_an_encounter_stored_before_derivation_2_reads_as_derivation_1() -> None:
    """The first event of a committed export, as stored then: no ``dice``, no ``key``."""
    rows = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    body = next(r["body"] for r in rows if r["record"] == "event" and r["kind"] == "encounter-started")
    assert '"dice"' not in body and '"key"' not in body
    started = msgspec.json.decode(body, type=EncounterStarted)
    assert isinstance(started, EncounterStarted)
    assert (started.seed, started.dice, started.key) == (2026, 1, "")
    # Read back as it is stored: the new fields at their defaults are not written.
    assert msgspec.json.encode(started).decode() == body


def test_a_seed_below_2_to_the_32_rolls_as_logs_always_rolled(cli: Cli) -> None:
    cli.ok("new", "Old dice", "--rules", "ap-countdown", "--seed", "2026")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("round")  # event 3, decided on event 2: Hauser's 2d10 by the tool
    assert tool_faces(cli.db, 3) == [first_faces_of_derivation_1(2026, 2, 2, 10)]
    with LogFile(cli.db) as log:
        assert log.open().started.dice == 1


def test_a_new_encounters_dice_are_keyed_by_256_bits(cli: Cli) -> None:
    cli.ok("new", "New dice", "--rules", "ap-countdown")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("round")
    with LogFile(cli.db) as log:
        started = log.open().started
    assert started.dice == 2 and started.seed == 0
    assert len(started.key) == 64 and int(started.key, 16) >= 0  # 256 bits as hex digits
    key = bytes.fromhex(started.key)
    assert tool_faces(cli.db, 3) == [first_faces_of_derivation_2(key, 2, 2, 10)]
    # Not the old derivation of any seed the key could be read as.
    cli.ok("new", "Other dice", "--rules", "ap-countdown")
    with LogFile(cli.db) as log:
        assert log.open().started.key != started.key


def test_a_typed_seed_past_2_to_the_32_is_a_key(cli: Cli) -> None:
    seed = 2**200 + 12345
    cli.ok("new", "Typed key", "--rules", "ap-countdown", "--seed", str(seed))
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    cli.ok("round")
    assert tool_faces(cli.db, 3) == [first_faces_of_derivation_2(seed.to_bytes(32, "big"), 2, 2, 10)]
    assert cli.fails("new", "Too big", "--rules", "ap-countdown", "--seed", str(2**256)) == (
        f"Error: --seed takes a whole number from 0 to 2^256 - 1, not {2**256}")
