"""`hwlint rule`: a rule's explanation, or the list of rules."""

from __future__ import annotations

import click

from hwlint.commands.decorators import guarded, options
from hwlint.diagnostics import UserError
from hwlint.options import SHOW_ALL


@click.command()
@click.argument("code", required=False)
@options(SHOW_ALL)
@guarded
def rule(code: str | None, show_all: bool) -> None:
    """Explain a rule (`hwlint rule HWC101`), or list them all."""
    from hwlint.rules import ALL_RULES, BY_CODE

    if show_all:
        click.echo("\n".join(r.explanation() for r in ALL_RULES), nl=False)
        return
    if code is None:
        for r in ALL_RULES:
            state = "" if r.default else "  (off by default)"
            click.echo(f"{r.code}  {r.name:<32} {r.summary}{state}")
        return
    found = BY_CODE.get(code.upper()) or next((r for r in ALL_RULES if r.name == code), None)
    if found is None:
        raise UserError(f"unknown rule {code!r}: `hwlint rule` lists them")
    click.echo(found.explanation(), nl=False)
