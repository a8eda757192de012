"""A command's few rows are hashed by CPython's own SHA-256 (no OpenSSL load at start-up),
the rest by hashlib's: the digests must be the same bytes either way (eventlog/chain.py)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from skirmish.eventlog import chain
from skirmish.eventlog.sha import own_sha256


@pytest.mark.parametrize("data", [b"", b"abc", "Zoë's 5:event".encode(), bytes(range(256)) * 9])
def test_cpython_s_own_sha256_is_hashlib_s(data: bytes) -> None:
    # FIPS 180-2's example: SHA-256("abc") = ba7816bf...f20015ad, typed from the standard.
    if data == b"abc":
        assert own_sha256(data).hexdigest() == (
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    assert own_sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()


def test_after_a_few_rows_a_process_hashes_with_openssl(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.delitem(sys.modules, "hashlib")
    monkeypatch.setattr(chain, "_own_hashed", [0])
    own = [chain._sha256(b"row") for _ in range(chain._FEW)]
    assert all(type(h).__module__ != "_hashlib" for h in own)
    later = chain._sha256(b"row")
    assert type(later).__module__ == "_hashlib" or type(later).__name__ == "HASH"
    assert {h.hexdigest() for h in [*own, later]} == {hashlib.sha256(b"row").hexdigest()}


def test_cpython_s_own_module_is_looked_for_once_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under Python 3.11 there is no `_sha2`: looked for again each call, its failed import
    walked sys.path every time (1.3 s of an amend of 4,886 commands). After the first call,
    nothing is imported again."""
    import builtins

    own_sha256(b"first")
    looked: list[str] = []
    real = builtins.__import__

    def counted(name: str, *args: Any, **kwargs: Any) -> Any:
        looked.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", counted)
    digests = {own_sha256(b"row").hexdigest() for _ in range(100)}
    monkeypatch.undo()
    assert digests == {hashlib.sha256(b"row").hexdigest()}
    assert looked == []
