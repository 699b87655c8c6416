"""Atomic file writes: a reader sees the old file or the new one, never half.

Write to a temporary file in the same folder, flush it to disk, then rename
over the target; the target's permissions are kept.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_bytes_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Replace `path` with `data` atomically. `durable=False` skips the
    fsync: for files that may be lost on a power cut but never torn (the
    cache, which is rebuilt when missing)."""
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    try:
        mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_text_atomic(path: Path, text: str, encoding: str = "utf-8") -> None:
    write_bytes_atomic(path, text.encode(encoding))
