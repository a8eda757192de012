"""SHA-256 by CPython's own module: a command's few digests without loading OpenSSL.

hashlib's SHA-256 is OpenSSL's, whose load is 11M instructions of a command at the table
(docs/performance.md); CPython's own is three times slower a digest and gives the same bytes, so
it serves a command's few rows and rolls, and the whole log's (verify, import) keeps OpenSSL's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any


def own_sha256(data: bytes) -> Any:
    """SHA-256 of ``data``, by CPython's own module where there is one (else hashlib's)."""
    return _own_sha256()(data)


@functools.cache
def _own_sha256() -> Callable[[bytes], Any]:
    # Looked for once a process, on first use (a command that hashes nothing pays nothing).
    # A failed import walks sys.path: looked for on every call, the `_sha2` Python 3.11 has
    # not cost an amend of 4,886 commands 1.3 s.
    from importlib import import_module

    for name in ("_sha2", "_sha256"):  # CPython 3.12 and later; CPython 3.11
        try:
            own: Callable[[bytes], Any] = import_module(name).sha256
        except ImportError:
            continue
        return own
    from hashlib import sha256  # another interpreter

    return sha256
