"""Reading a file: bytes to text, the way Python itself would decode it."""

from __future__ import annotations

import codecs
import io
import tokenize
from dataclasses import dataclass


@dataclass(frozen=True)
class ReadError:
    line: int
    column: int
    message: str


def decode(data: bytes) -> str | ReadError:
    """Decode source bytes as CPython does: a UTF-8 BOM, else a PEP 263 cookie, else UTF-8."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        # detect_encoding also refuses non-UTF-8 bytes in the first two lines
        # when there is no cookie: point at the byte rather than its message.
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            return _decode_error(data, bad, "utf-8")
        return ReadError(exc.lineno or 1, 1, f"cannot decode: {exc.msg}")
    try:
        codecs.lookup(encoding)
        return data.decode(encoding)
    except LookupError:
        return ReadError(1, 1, f"cannot decode: unknown encoding {encoding!r} in the coding cookie")
    except UnicodeDecodeError as exc:
        return _decode_error(data, exc, encoding)


def _decode_error(data: bytes, exc: UnicodeDecodeError, encoding: str) -> ReadError:
    line = data.count(b"\n", 0, exc.start) + 1
    column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
    return ReadError(
        line, column,
        f"cannot decode as {encoding}: byte 0x{data[exc.start]:02x} is invalid; save the file as UTF-8 "
        "or declare its encoding (PEP 263)",
    )


def read_source(path: str) -> str | ReadError:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except IsADirectoryError:
        return ReadError(1, 1, "is a directory, not a file")
    except FileNotFoundError:
        return ReadError(1, 1, "file not found (deleted or a broken symlink)")
    except OSError as exc:
        return ReadError(1, 1, f"cannot read: {exc.strerror or exc}")
    return decode(data)
