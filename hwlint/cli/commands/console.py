"""What every command shares that needs no click: printing (through an
`echo` with click.echo's signature, so that the click-free `check` and click
print alike), writing -o files, reading rule codes from an option, and the
one error policy: a user error or a bug is one line on stderr and exit 2."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any, Protocol

from hwlint.cli.options import Option

EXIT_CLEAN, EXIT_VIOLATIONS, EXIT_ERROR = 0, 1, 2
# EBADF: stdout open for reading only (`hwlint check 1</dev/null`).
_WRITE_ERRORS = {getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EIO", "EBADF") if hasattr(errno, name)}


class Echo(Protocol):
    """click.echo's signature: what a command body prints through (plain_echo on the fast path)."""

    def __call__(self, message: str, *, err: bool = False, nl: bool = True) -> Any: ...


def plain_echo(message: str, *, err: bool = False, nl: bool = True) -> None:
    """click.echo for a UTF-8 terminal or pipe (the fast path checks that)."""
    stream = sys.stderr if err else sys.stdout
    stream.write(message + "\n" if nl else message)
    stream.flush()


def write_output(text: str, output: Path | str | None, echo: Echo = plain_echo) -> None:
    """`text` to stdout, or atomically to the -o file."""
    from hwlint.core.diagnostics import UserError

    stream = None if output is None else _standard_stream(output)
    if output is None or stream is not None:
        # `-o /dev/stdout` where stdout is a file (`>> log`): renaming over
        # what the link resolves to would replace the file; write to the
        # stream itself, as the shell set it up.
        err = stream == 2
        if (sys.stderr if err else sys.stdout) is None:  # `hwlint check >&-`: click would drop it silently
            raise UserError("cannot write the output: standard output is closed (use -o FILE)")
        echo(text, err=err, nl=False)
        return
    from hwlint.infra.atomic import write_bytes_atomic

    try:
        # surrogateescape: a file name that is not UTF-8 is written back as its own bytes, as on stdout.
        write_bytes_atomic(Path(output), text.encode("utf-8", "surrogateescape"))
    except OSError as exc:
        raise UserError(f"{output}: cannot write: {exc.strerror or exc}") from None


def _standard_stream(output: Path | str) -> int | None:
    """1 or 2 when `output` is the file this process's stdout or stderr
    already writes to (`/dev/stdout`, `/proc/self/fd/2`...), else None."""
    try:
        target = os.stat(output)
    except OSError:
        return None
    for fd in (1, 2):
        try:
            if os.path.samestat(target, os.fstat(fd)):
                return fd
        except OSError:
            continue  # closed
    return None


def parse_codes(value: str | None, option: Option) -> tuple[str, ...] | None:
    """Codes from a comma-separated option (--select...), checked as the
    configuration's are."""
    if value is None:
        return None
    from hwlint.core.diagnostics import UserError
    from hwlint.rules import ALL_RULES

    codes = tuple(c.strip().upper() for c in value.split(",") if c.strip())
    for code in codes:
        if code != "ALL" and not any(rule.code.startswith(code) for rule in ALL_RULES):
            raise UserError(f"{option.flags[0]}: unknown rule code or prefix {code!r} (`hwlint rule` lists them)")
    return codes


def error_exit(exc: BaseException, echo: Echo = plain_echo) -> int:
    """The exit code of a command that raised `exc` (called in the `except`
    block): a user error, an interrupt, a closed pipe or a bug in hwlint is
    one line (or none) on stderr, never a traceback unless HWLINT_DEBUG asks
    for one."""
    from hwlint.core.diagnostics import UserError

    if isinstance(exc, UserError):
        echo(f"hwlint: error: {exc}", err=True)
        return EXIT_ERROR
    if isinstance(exc, KeyboardInterrupt):
        echo("hwlint: interrupted", err=True)
        return 130
    if isinstance(exc, BrokenPipeError):  # `hwlint check | head`: as click does, quietly
        _stdout_to_devnull()
        return EXIT_VIOLATIONS
    if isinstance(exc, OSError) and exc.filename is None and exc.errno in _WRITE_ERRORS:
        # `hwlint check > /dev/full`, a full disk: files hwlint writes itself
        # say which (with a filename); what is left is the standard output.
        _stdout_to_devnull()
        space = "free some space, or " if exc.errno != errno.EBADF else ""
        echo(
            f"hwlint: error: cannot write the output: {exc.strerror or exc}: {space}write elsewhere with -o FILE",
            err=True,
        )
        return EXIT_ERROR
    if os.environ.get("HWLINT_DEBUG") or not isinstance(exc, Exception):
        raise exc
    echo(
        f"hwlint: error: internal error: {type(exc).__name__}: {exc} "
        "(rerun with HWLINT_DEBUG=1 for a traceback, and please report it)",
        err=True,
    )
    return EXIT_ERROR


def _stdout_to_devnull() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush is quiet."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
