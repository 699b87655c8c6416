"""Writing the allowlist: the lock that serialises read-modify-write between
processes, and the atomic rewrite of the file, with one line saying why
not when it cannot be written."""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterable, Iterator

from hwlint.core.diagnostics import UserError

if TYPE_CHECKING:
    from hwlint.core.config import Config


@contextmanager
def allowlist_lock(config: Config) -> Iterator[None]:
    """Serialise read-modify-write of the allowlist between processes
    (pre-commit runs hooks in parallel; two prunes must not lose lines).

    The lock is `flock` on the project root folder, not on the list: writes
    replace the list by a rename, so a lock on the old file would not exclude
    a process that opened the new one; a lock file would be a stray file in
    the user's tree (and `.git/` is not always there); the root always
    exists, whatever folder the list is in and whether it exists yet. The
    lock goes with the file descriptor, so a killed process never leaves it
    held.
    """
    try:
        import fcntl
    except ImportError:  # Windows: no flock; writes are still atomic
        yield
        return
    fd = os.open(config.root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def write_list(config: Config, text: str, hint: str, paths: Iterable[str]) -> None:
    """Write the allowlist (`text`, listing `paths`) atomically, or say in
    one line why not and what to do (`hint`)."""
    from hwlint.infra.atomic import write_text_atomic

    for path in paths:
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            # A file name that is not UTF-8 (POSIX allows it); the list is UTF-8 text.
            name = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            state = "unchanged" if config.allowlist_path.exists() else "not written"
            raise UserError(
                f"{name}: the file name is not UTF-8, and the allowlist is UTF-8 text: rename the file "
                f"({config.allowlist_path} is {state})"
            ) from None
    try:
        config.allowlist_path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(config.allowlist_path, text)
    except OSError as exc:
        raise UserError(
            f"{config.allowlist_path}: cannot write the allowlist ({exc.strerror or exc}): {hint}"
        ) from None
