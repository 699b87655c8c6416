"""`hwlint check`: click's front door to hwlint.cli.commands.check_body."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from hwlint.cli.commands.check_body import check as run_body
from hwlint.cli.commands.decorators import guarded, options
from hwlint.cli.options import CHECK


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@options(*CHECK)
@guarded
def check(paths: tuple[Path, ...], **settings: Any) -> None:
    """Check test classes under PATHS (default: the whole project).

    Paths given explicitly are checked only when they match `include` and
    not `exclude` (pre-commit passes every staged file)."""
    code = run_body(paths, **settings, echo=click.echo)
    if code:
        sys.exit(code)
