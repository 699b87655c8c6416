"""The content key of a file: what the cache and the whole-tree memo compare."""

from __future__ import annotations

try:
    from _sha1 import sha1 as _sha1
except ImportError:  # pragma: no cover - an interpreter built without it
    _sha1 = None

DIGEST_SIZE = 20  # SHA-1


def digest(data: bytes, bulk: bool = False) -> bytes:
    """SHA-1 of `data`: from OpenSSL (1-2 GB/s with the CPU's SHA
    instructions) when there is much to hash, else from the interpreter's
    built-in module, which costs nothing to import."""
    if bulk or _sha1 is None:
        import hashlib

        return hashlib.sha1(data).digest()
    digest: bytes = _sha1(data).digest()
    return digest
