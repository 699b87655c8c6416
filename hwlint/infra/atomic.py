"""Atomic file writes: a reader sees the old file or the new one, never half.

Write to a temporary file in the same folder, flush it to disk, then rename
over the target (through a symlink, the file it points to); the target's
permissions are kept. A target that is not a regular file (a device, a FIFO)
is written in place.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def _create_temporary(directory: Path, name: str) -> tuple[int, str]:
    """A new, empty, private file next to the target (what tempfile.mkstemp
    does; importing tempfile costs as much as a one-file check's parsing)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = os.path.join(directory, f".{name}.{os.getpid()}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:  # pragma: no cover - 48 random bits collided
            continue


def write_bytes_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Replace `path` with `data` atomically. `durable=False` skips the
    fsync: for files that may be lost on a power cut but never torn (the
    cache, which is rebuilt when missing)."""
    path = Path(path)
    try:
        mode: int | None = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        # `-o /dev/null`, `-o /dev/stdout`, a FIFO: renaming over one would
        # replace the device with a file. They have no half-written state.
        with open(path, "wb") as fh:
            fh.write(data)
        return
    if path.is_symlink():
        # Write through the link, as open() would: renaming over it would
        # replace the link with a copy (a symlinked test file or allowlist
        # silently stops being shared).
        path = Path(os.path.realpath(path))
    directory = path.parent if str(path.parent) else Path(".")
    if mode is not None:
        mode = stat.S_IMODE(mode)
    fd, tmp = _create_temporary(directory, path.name)
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
