"""The command line: the click group. Each command lives in hwlint/commands/
and is imported only when run, so that `hwlint rule` does not pay for report
or git code. Exit codes: 0 clean, 1 violations, 2 usage, configuration or
internal error (hwlint.cli.commands.console)."""

from __future__ import annotations

import importlib
import importlib.util

import click

from hwlint import __version__

# name: module:attribute
COMMANDS = {
    "allowlist": "hwlint.cli.commands.allowlist:allowlist",
    "check": "hwlint.cli.commands.check:check",
    "devices": "hwlint.cli.commands.devices:devices",
    "fix": "hwlint.cli.commands.fix:fix",
    "lintrunner": "hwlint.cli.commands.lintrunner:lintrunner",
    "report": "hwlint.cli.commands.report:report",
    "rule": "hwlint.cli.commands.rule:rule",
    "select": "hwlint.cli.commands.select:select",
    "server": "hwlint.cli.commands.server:server",
}


def module_exists(target: str) -> bool:
    return importlib.util.find_spec(target.split(":")[0]) is not None


class LazyGroup(click.Group):
    """click's documented lazy-loading group."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name, target in COMMANDS.items() if module_exists(target))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS or not module_exists(COMMANDS[cmd_name]):
            return None
        module_name, attribute = COMMANDS[cmd_name].split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hwlint")
def main() -> None:
    """Keep a PyTorch-style test suite honest about hardware: every test
    class declares `hw_classification`, consistently with how it is written."""
