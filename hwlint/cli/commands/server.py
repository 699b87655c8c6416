"""`hwlint server`: the language server for editors (hwlint.server), over
stdio. pygls and lsprotocol come with the `server` extra; without them the
command says so in one line (exit 2)."""

from __future__ import annotations

import importlib.util
import sys

import click

from hwlint.cli.commands.console import EXIT_ERROR

MISSING = "hwlint server needs the server extra: pip install 'hwlint[server]'"


@click.command()
def server() -> None:
    """Run the language server over stdio (editors: docs/editors.md)."""
    if any(importlib.util.find_spec(name) is None for name in ("pygls", "lsprotocol")):
        click.echo(MISSING, err=True)
        sys.exit(EXIT_ERROR)
    from hwlint.server.app import serve

    serve()
