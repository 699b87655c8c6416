"""Reading a file: bytes to text, the way Python itself would decode it."""

# No `from __future__ import annotations`: typing.NamedTuple would compile
# each string annotation (hwlint.facts.records says why).

import codecs
import errno
import os
import re
import stat
from typing import NamedTuple


class ReadError(NamedTuple):
    """Why a module cannot be read, decoded or parsed, at the place a diagnostic names."""

    line: int
    column: int
    message: str


def decode(data: bytes) -> str | ReadError:
    """Decode source bytes as CPython does: a UTF-8 BOM, else a PEP 263 cookie, else UTF-8."""
    # A cookie is on line 1 or 2 and says "coding": when those lines are
    # ASCII (no BOM) without the word, tokenize.detect_encoding would say
    # UTF-8; say it without importing tokenize (a tenth of a one-file run's
    # imports). Anything else goes to detect_encoding itself.
    first = data.find(b"\n")
    second = -1 if first == -1 else data.find(b"\n", first + 1)
    head = data if second == -1 else data[:second]
    if head.isascii() and b"coding" not in head:
        encoding = "utf-8"
    else:
        detected = _detect_encoding(data)
        if isinstance(detected, ReadError):
            return detected
        encoding = detected
    try:
        codecs.lookup(encoding)
        text = data.decode(encoding)
    except LookupError:
        return ReadError(1, 1, f"cannot decode: unknown encoding {encoding!r} in the coding cookie")
    except UnicodeDecodeError as exc:
        return _decode_error(data, exc, encoding)
    nul = text.find("\0")
    if nul != -1:
        # Python refuses NUL bytes but its SyntaxError (3.11) has no line:
        # the error was always reported at 1:1, wherever the byte was.
        before = re.split(r"\r\n|\r|\n", text[:nul])
        return ReadError(len(before), len(before[-1]) + 1, "cannot parse: NUL byte (the file is binary or corrupt)")
    return text


def _detect_encoding(data: bytes) -> str | ReadError:
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        # detect_encoding also refuses non-UTF-8 bytes in the first two lines
        # when there is no cookie: point at the byte rather than its message.
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            return _decode_error(data, bad, "utf-8")
        # detect_encoding gives no line: point at the cookie, which may be on line 2.
        return ReadError(exc.lineno or _cookie_line(data), 1, f"cannot decode: {exc.msg}")
    return encoding


# Python ends a line at \r\n, \r or \n (universal newlines). These two are
# for errors only: compiled (and cached by `re`) when one happens.
_NEWLINE = rb"\r\n|\r|\n"
# PEP 263: the cookie is a comment on line 1 or 2 that says coding[:=].
_COOKIE_LINE = rb"^[ \t\f]*#.*?coding[:=]"


def _cookie_line(data: bytes) -> int:
    for number, line in enumerate(re.split(_NEWLINE, data, maxsplit=2)[:2], 1):
        if re.match(_COOKIE_LINE, line):
            return number
    return 1


def _decode_error(data: bytes, exc: UnicodeDecodeError, encoding: str) -> ReadError:
    # Where an editor shows the bad byte: lines end at \r and \r\n too (a
    # file with lone-CR endings was all "line 1"), the column counts
    # characters, not bytes (a multi-byte character before the bad byte
    # shifted it right), and a BOM is no character (it shifted line 1 by 3).
    before = re.split(_NEWLINE, data[: exc.start])
    line = len(before)
    text = before[-1]
    if line == 1 and text.startswith(codecs.BOM_UTF8):
        text = text[len(codecs.BOM_UTF8) :]
    column = len(text.decode(encoding, errors="replace")) + 1
    return ReadError(
        line,
        column,
        f"cannot decode as {encoding}: byte 0x{data[exc.start]:02x} is invalid; save the file as UTF-8 "
        "or declare its encoding (PEP 263)",
    )


def _open_nonblocking(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def read_file(path: str) -> bytes:
    """The bytes of the regular file at `path`, or OSError. A FIFO named
    like a test file would block the read forever (and a device never
    end): it is opened without blocking and refused."""
    with open(path, "rb", buffering=0, opener=_open_nonblocking) as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a FIFO, socket or device)")
        os.set_blocking(fh.fileno(), True)  # a regular file: read it as any file is read
        return fh.readall()


def read_source(path: str) -> str | ReadError:
    """The text of the module at `path`, decoded as Python decodes it, or why not."""
    try:
        data = read_file(path)
    except IsADirectoryError:
        return ReadError(1, 1, "is a directory, not a file")
    except FileNotFoundError:
        return ReadError(1, 1, "file not found (deleted or a broken symlink)")
    except OSError as exc:
        return ReadError(1, 1, f"cannot read: {exc.strerror or exc}")
    return decode(data)
