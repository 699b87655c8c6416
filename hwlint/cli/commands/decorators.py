"""The options of hwlint.cli.options as click options, and click's side of the
error policy (hwlint.cli.commands.console)."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any, Callable, TypeVar, cast

import click

from hwlint.cli.commands.console import error_exit
from hwlint.cli.options import Option

F = TypeVar("F", bound=Callable[..., Any])


def _click_type(option: Option) -> Any:
    if option.kind == "file":
        return click.Path(path_type=Path, dir_okay=False)
    if option.kind == "folder":
        return click.Path(path_type=Path, file_okay=False)
    if option.kind == "count":
        return click.IntRange(min=option.minimum)
    if option.kind == "choice":
        return click.Choice(option.choices)
    if option.kind == "seconds":
        return click.FloatRange(min=0, min_open=True)
    return None  # text, flag


def options(*declared: Option) -> Callable[[F], F]:
    """Decorate a command with these options, in this order."""

    def decorate(func: F) -> F:
        for option in reversed(declared):
            settings: dict[str, Any] = {"help": option.help}
            if option.kind == "flag":
                settings["is_flag"] = True
            else:
                settings.update(
                    type=_click_type(option),
                    default=option.default,
                    envvar=option.envvar,
                    metavar=option.metavar,
                    multiple=option.multiple,
                    show_default=option.show_default,
                )
            func = click.option(*option.flags, option.dest, **settings)(func)
        return func

    return decorate


def guarded(func: F) -> F:
    """console.error_exit around a click command: errors are one line and
    exit 2; click's own exits and usage errors pass."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except (Exception, KeyboardInterrupt) as exc:
            sys.exit(error_exit(exc, click.echo))

    return cast(F, wrapper)  # functools.wraps keeps the signature; mypy cannot see it


def write_output(text: str, output: Path | None) -> None:
    """console.write_output with click.echo."""
    from hwlint.cli.commands.console import write_output as write

    write(text, output, click.echo)
