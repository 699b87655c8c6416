"""`hwlint rule`: a rule's explanation, or the list of rules."""

from __future__ import annotations

import click

from hwlint.cli.commands.decorators import guarded, options, write_output
from hwlint.cli.options import SHOW_ALL
from hwlint.core.diagnostics import UserError


@click.command()
@click.argument("code", required=False)
@options(SHOW_ALL)
@guarded
def rule(code: str | None, show_all: bool) -> None:
    """Explain a rule (`hwlint rule HWC101`), or list them all."""
    from hwlint.rules import ALL_RULES, BY_CODE

    if show_all:
        write_output("\n".join(r.explanation() for r in ALL_RULES), None)
        return
    if code is None:
        write_output(
            "".join(
                f"{r.code}  {r.name:<32} {r.summary}{'' if r.default else '  (off by default)'}\n" for r in ALL_RULES
            ),
            None,
        )
        return
    found = BY_CODE.get(code.upper()) or next((r for r in ALL_RULES if r.name == code), None)
    if found is None:
        raise UserError(f"unknown rule {code!r}: `hwlint rule` lists them")
    write_output(found.explanation(), None)
