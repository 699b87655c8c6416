"""Every option of every command says what it does in `--help`."""

from __future__ import annotations

from collections.abc import Iterator

import click

from hwlint.cli.main import COMMANDS, main


def _commands(command: click.Command, ctx: click.Context) -> Iterator[tuple[str, click.Command]]:
    """`command` and, through the lazy group's own lookup, every subcommand."""
    yield ctx.command_path, command
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, name
            yield from _commands(sub, click.Context(sub, info_name=name, parent=ctx))


def test_every_option_of_every_command_has_help() -> None:
    found = dict(_commands(main, click.Context(main, info_name="hwlint")))
    # The walk reached every command the group declares, and the allowlist's subcommands.
    assert {path.split()[1] for path in found if " " in path} == set(COMMANDS)
    assert {"hwlint allowlist import-json", "hwlint allowlist prune", "hwlint allowlist show"} <= set(found)
    missing = [
        f"{path} {'/'.join(param.opts)}"
        for path, command in found.items()
        for param in command.params
        if isinstance(param, click.Option) and not (param.help or "").strip()
    ]
    assert missing == []
    # --help itself is added by click when the help is shown, not a declared parameter: check it is shown.
    assert all(command.get_help_option(click.Context(command)) is not None for command in found.values())


def test_quiet_is_offered_where_entries_are_printed_one_per_line() -> None:
    found = dict(_commands(main, click.Context(main, info_name="hwlint")))
    quiet = sorted(path for path, command in found.items() if any("--quiet" in param.opts for param in command.params))
    assert quiet == [
        "hwlint allowlist import-json",
        "hwlint allowlist init",
        "hwlint allowlist prune",
        "hwlint allowlist sync",
    ]
