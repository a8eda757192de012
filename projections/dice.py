"""How the tool's dice are drawn from an encounter's seed, by derivation (``EncounterStarted.dice``).

Derivation 1, every log recorded before derivation 2 existed: the SHA-256 of
``"{seed}:{place}"`` seeds a Mersenne Twister, whose ``randint`` gives the faces. Its seeds
are 32 bits, so the faces and event ids on a players' page were enough to find the seed by
trying them all, and with it every roll to come. It is kept exactly as it was: an old log
decided again (`amend`) rolls the same faces.

Derivation 2, new encounters: a 256-bit key (``EncounterStarted.key``) keys BLAKE2b over
the place and a counter, and each face is drawn from that stream without bias (rejection
sampling). Faces seen say nothing of the key, and the key cannot be searched for.
"""

from __future__ import annotations

import os
from typing import Protocol

from skirmish.eventlog.errors import BadInput
from skirmish.eventlog.sha import own_sha256

try:
    # CPython's own BLAKE2: hashlib would load OpenSSL (11M instructions) for a command's
    # few rolls (docs/performance.md). The same digests.
    from _blake2 import blake2b
except ImportError:  # another interpreter: hashlib's
    from hashlib import blake2b

LATEST = 2
KEY_BITS = 256  # a derivation-2 key
_DRAW = 8  # bytes a face is drawn from


class Draws(Protocol):
    def randint(self, low: int, high: int) -> int: ...


OLD_SEEDS = 1 << 32  # derivation 1's seeds


def first_event_dice(seed: int | None) -> tuple[int, int, str]:
    """A new encounter's dice as its first event records them: (derivation, seed, key).

    With no seed given, a fresh 256-bit key from the operating system (derivation 2). A
    seed the GM types (`new --seed N`) is for a script that must roll the same faces every
    time: below 2^32 it is drawn as derivation 1 draws it, so a script written before
    derivation 2 rolls as it did; from 2^32 to 2^256 - 1 it is a derivation-2 key. Either
    way a typed seed is the GM's to keep: a small one can be found by trying them all."""
    if seed is None:
        return LATEST, 0, os.urandom(KEY_BITS // 8).hex()
    if not 0 <= seed < 1 << KEY_BITS:
        raise BadInput(f"--seed takes a whole number from 0 to 2^{KEY_BITS} - 1, not {seed}")
    if seed < OLD_SEEDS:
        return 1, seed, ""
    return LATEST, 0, seed.to_bytes(KEY_BITS // 8, "big").hex()


def draws(seed: int | str, place: str, derivation: int) -> Draws:
    """The tool's faces for one decision at ``place`` (the event it is decided on): ``seed``
    is the seed (derivation 1) or the key (2)."""
    if derivation == 1:
        import random

        material = own_sha256(f"{seed}:{place}".encode()).digest()
        return random.Random(int.from_bytes(material[:8], "big"))
    if derivation == 2 and isinstance(seed, str):
        return Keyed(bytes.fromhex(seed), place)
    raise ValueError(f"no dice derivation {derivation} for a {type(seed).__name__} seed")


class Keyed:
    """Derivation 2: faces from BLAKE2b keyed by the key, over ``place`` and a counter."""

    def __init__(self, key: bytes, place: str) -> None:
        self._key = key
        self._place = place.encode()
        self._block = 0
        self._bytes = b""

    def _next(self) -> int:
        if len(self._bytes) < _DRAW:
            block = blake2b(self._place + b":" + str(self._block).encode(), key=self._key).digest()
            self._block += 1
            self._bytes += block
        drawn, self._bytes = self._bytes[:_DRAW], self._bytes[_DRAW:]
        return int.from_bytes(drawn, "big")

    def randint(self, low: int, high: int) -> int:
        span = high - low + 1
        # The largest multiple of ``span`` a draw can reach: draws at or above it are drawn
        # again, so every face is equally likely.
        limit = (1 << (8 * _DRAW)) // span * span
        while True:
            drawn = self._next()
            if drawn < limit:
                return low + drawn % span
