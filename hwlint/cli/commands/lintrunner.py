"""`hwlint lintrunner`: the adapter lintrunner runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from hwlint.cli.commands.console import error_exit
from hwlint.cli.commands.decorators import options
from hwlint.cli.options import CACHE, CONFIG, cache_choice
from hwlint.core.diagnostics import UserError


@click.command()
@click.argument("paths", nargs=-1)
@options(CONFIG, *CACHE)
def lintrunner(paths: tuple[str, ...], config_file: Path | None, no_cache: bool, cache_dir: Path | None) -> None:
    """lintrunner adapter: `python -m hwlint lintrunner @{{PATHSFILE}}`.

    Prints LintMessage JSON lines and always exits 0: lintrunner treats a
    non-zero exit as a crash of the linter. Failures become a message with
    `path: null`."""
    import json

    code = "HWLINT"
    try:
        from hwlint.cli.commands.check_body import lintrunner_replacements
        from hwlint.engine.api import load_project, run_check
        from hwlint.output.lintrunner import render

        files: list[Path] = []
        for arg in paths:
            if arg.startswith("@"):
                # lintrunner's paths file: one path per line (absolute).
                data = Path(arg[1:]).read_bytes()
                try:
                    listing = data.decode("utf-8")
                except UnicodeDecodeError as exc:  # lintrunner writes UTF-8: the file is not its
                    raise UserError(
                        f"{arg[1:]}: the paths file is not UTF-8 (byte 0x{data[exc.start]:02x} "
                        f"at offset {exc.start}): pass lintrunner's @{{{{PATHSFILE}}}}"
                    ) from None
                files.extend(Path(line) for line in listing.splitlines() if line.strip())
            else:
                files.append(Path(arg))
        cache = cache_choice(no_cache, cache_dir, True)
        config = load_project(config_file, cache=cache)
        code = config.lintrunner_code
        if not files:
            return
        result = run_check(config, files, cache=cache)
        click.echo(render(result, replacements=lintrunner_replacements(result)), nl=False)
    except Exception as exc:  # report, never crash: see the docstring
        if os.environ.get("HWLINT_DEBUG"):
            raise
        problem = str(exc) if isinstance(exc, UserError) else f"internal error: {type(exc).__name__}: {exc}"
        if isinstance(exc, OSError) and exc.filename is not None:
            problem = f"{exc.filename}: cannot read: {exc.strerror or exc}"
        message = {
            "path": None,
            "line": None,
            "char": None,
            "code": code,
            "severity": "error",
            "name": "hwlint-failure",
            "original": None,
            "replacement": None,
            "description": f"hwlint failed: {problem}",
        }
        try:
            click.echo(json.dumps(message, ensure_ascii=False))
        except OSError as unwritable:  # `> /dev/full`: the failure cannot be reported on stdout either
            sys.exit(error_exit(unwritable, click.echo))
