"""The command line. It only wires stages together: options in, a stage's
result out, an exit code. Exit codes: 0 clean, 1 violations, 2 usage,
configuration or internal error."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import click

from hwlint import __version__
from hwlint.diagnostics import UserError, is_safe_fix

if TYPE_CHECKING:
    from hwlint.check import CheckResult

F = TypeVar("F", bound=Callable[..., Any])

EXIT_CLEAN, EXIT_VIOLATIONS, EXIT_ERROR = 0, 1, 2


def _codes(value: str | None, option: str = "--select") -> tuple[str, ...] | None:
    """Codes from a comma-separated option, checked as the configuration's are."""
    if value is None:
        return None
    codes = tuple(c.strip().upper() for c in value.split(",") if c.strip())
    from hwlint.rules import ALL_RULES

    for code in codes:
        if code != "ALL" and not any(rule.code.startswith(code) for rule in ALL_RULES):
            raise UserError(f"{option}: unknown rule code or prefix {code!r} (`hwlint rule` lists them)")
    return codes


def _fail(message: str) -> None:
    click.echo(f"hwlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def guarded(func: F) -> F:
    """Turn user errors into one line and exit 2; never show a traceback
    unless HWLINT_DEBUG asks for one."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except UserError as exc:
            _fail(str(exc))
        except KeyboardInterrupt:
            click.echo("hwlint: interrupted", err=True)
            sys.exit(130)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as exc:  # a bug in hwlint: say so in one line
            if os.environ.get("HWLINT_DEBUG"):
                raise
            _fail(f"internal error: {type(exc).__name__}: {exc} (rerun with HWLINT_DEBUG=1 for a traceback, and please report it)")

    return wrapper  # type: ignore[return-value]


def write_output(text: str, output: Path | None) -> None:
    if output is None:
        click.echo(text, nl=False)
        return
    from hwlint.atomic import write_text_atomic

    try:
        write_text_atomic(output, text)
    except OSError as exc:
        raise UserError(f"{output}: cannot write: {exc.strerror or exc}") from None


def _cache_option(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    from hwlint.cache import click_callback

    return click_callback(ctx, param, value)


def common_options(func: F) -> F:
    options = [
        click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False), help="Read settings from this pyproject.toml or hwlint.toml; its folder is the project root."),
        click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Processes to use (default: all cores; 1: no process pool)."),
        click.option("--select", default=None, help="Comma-separated rule codes or prefixes to enable (replaces `select`)."),
        click.option("--extend-select", default=None, help="Codes or prefixes to enable on top of `select`."),
        click.option("--ignore", default=None, help="Comma-separated rule codes or prefixes to disable (replaces `ignore`)."),
        click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None, help="Write the output to this file instead of stdout."),
        # Not passed to the command: stored for run_check (hwlint.cache.open_cache).
        click.option("--no-cache", is_flag=True, expose_value=False, callback=_cache_option, help="Neither read nor write the cache."),
        click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False), envvar="HWLINT_CACHE_DIR", expose_value=False, callback=_cache_option, help="Cache folder (default: .hwlint_cache at the project root; env HWLINT_CACHE_DIR)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


# Commands that live in hwlint/commands/, imported only when run, so that
# `hwlint check` on one file does not pay for report, fix or git code.
LAZY_COMMANDS = {
    "allowlist": "hwlint.commands.allowlist:allowlist",
    "fix": "hwlint.commands.fix:fix",
    "report": "hwlint.commands.report:report",
    "select": "hwlint.commands.select:select",
}


class LazyGroup(click.Group):
    """click's documented lazy-loading group."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        available = [name for name, target in LAZY_COMMANDS.items() if _module_exists(target)]
        return sorted(set(super().list_commands(ctx)) | set(available))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS and _module_exists(LAZY_COMMANDS[cmd_name]):
            import importlib

            module_name, attribute = LAZY_COMMANDS[cmd_name].split(":")
            command: click.Command = getattr(importlib.import_module(module_name), attribute)
            return command
        return super().get_command(ctx, cmd_name)


def _module_exists(target: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(target.split(":")[0]) is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hwlint")
def main() -> None:
    """Keep a PyTorch-style test suite honest about hardware: every test
    class declares `hw_classification`, consistently with how it is written."""


def _load(config_file: Path | None, cache: bool | None = None) -> Any:
    """The configuration; `cache` as run_check's (the settings read are
    remembered in the cache folder)."""
    from hwlint.project import load_project

    return load_project(config_file, cache=cache)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@common_options
@click.option("--format", "fmt", type=click.Choice(["text", "json", "jsonl", "lintrunner", "github", "sarif", "junit"]), default="text", show_default=True)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are violations (errors still exit 2).")
@click.option("--statistics", is_flag=True, help="Count the violations per rule after the list.")
@click.option("--no-allowlist", is_flag=True, help="Ignore the allowlist: show every violation of allowlisted files too.")
@click.option("--fix", is_flag=True, help="Apply safe fixes, then prune the allowlist (clean or missing files, lower budgets); changes are printed on stderr.")
@guarded
def check(
    paths: tuple[Path, ...],
    config_file: Path | None,
    jobs: int | None,
    select: str | None,
    extend_select: str | None,
    ignore: str | None,
    output: Path | None,
    fmt: str,
    exit_zero: bool,
    statistics: bool,
    no_allowlist: bool,
    fix: bool,
) -> None:
    """Check test classes under PATHS (default: the whole project).

    Paths given explicitly are checked only when they match `include` and
    not `exclude` (pre-commit passes every staged file)."""
    from hwlint.check import run_check
    from hwlint.formats import renderer

    config = _load(config_file, cache=True)
    lint_tree = functools.partial(
        run_check,
        config,
        list(paths) or None,
        jobs=jobs,
        select=_codes(select),
        extend_select=_codes(extend_select, "--extend-select") or (),
        ignore=_codes(ignore, "--ignore"),
        use_allowlist=not no_allowlist,
        cache=True,  # unless --no-cache
    )
    result = lint_tree()
    if fix:
        from hwlint.allowlist_edit import prune_allowlist
        from hwlint.fix import apply_fixes

        # Like `ruff check --fix`: fix what this check reports (allowlisted
        # files stay as they are: `hwlint fix` migrates those), then prune.
        fixed = apply_fixes(config, result, jobs=jobs)
        if fixed.files:
            click.echo("\n".join(fixed.summary()[:1]), err=True)
            result = lint_tree()

        change = prune_allowlist(config, result, write=True, jobs=jobs)
        for line in change.lines():
            click.echo(line, err=True)
        if change.blocked:
            click.echo(f"hwlint: {change.summary('prune')}", err=True)
        if change.written:
            result = lint_tree()  # report what is left after pruning
    for outside in result.outside:
        click.echo(f"hwlint: warning: {outside} is outside the project root {config.root}: not checked", err=True)
    if paths and result.files_checked == 0 and not result.diagnostics and fmt == "text":
        click.echo("hwlint: no test files among the given paths (see `include`/`exclude`)", err=True)
    color = fmt == "text" and output is None and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    extra = {"replacements": _lintrunner_replacements(result)} if fmt == "lintrunner" else {}
    write_output(renderer(fmt)(result, statistics=statistics, color=color, fmt=fmt, **extra), output)
    if result.diagnostics and not exit_zero:
        sys.exit(EXIT_VIOLATIONS)


@main.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="Print every rule's explanation.")
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


def _lintrunner_replacements(result: CheckResult) -> dict[Any, tuple[str, str]]:
    """The whole-file fixes lintrunner's format carries; libcst (hwlint.fix)
    is imported only when there is a safe fix to compute."""
    if not any(is_safe_fix(d.fix) for d in result.diagnostics):
        return {}
    from hwlint.fix import lintrunner_replacements

    return lintrunner_replacements(result)


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False), default=None)
def lintrunner(paths: tuple[str, ...], config_file: Path | None) -> None:
    """lintrunner adapter: `python -m hwlint lintrunner @{{PATHSFILE}}`.

    Prints LintMessage JSON lines and always exits 0: lintrunner treats a
    non-zero exit as a crash of the linter. Failures become a message with
    `path: null`."""
    import json

    code = "HWLINT"
    try:
        from hwlint.check import run_check
        from hwlint.formats.lintrunner import render

        files: list[Path] = []
        for arg in paths:
            if arg.startswith("@"):
                # lintrunner's paths file: one path per line (absolute).
                listing = Path(arg[1:]).read_text(encoding="utf-8")
                files.extend(Path(line) for line in listing.splitlines() if line.strip())
            else:
                files.append(Path(arg))
        config = _load(config_file)
        code = config.lintrunner_code
        if not files:
            return
        result = run_check(config, files)
        click.echo(render(result, replacements=_lintrunner_replacements(result)), nl=False)
    except Exception as exc:  # report, never crash: see the docstring
        if os.environ.get("HWLINT_DEBUG"):
            raise
        problem = str(exc) if isinstance(exc, UserError) else f"internal error: {type(exc).__name__}: {exc}"
        if isinstance(exc, OSError) and exc.filename is not None:
            problem = f"{exc.filename}: cannot read: {exc.strerror or exc}"
        message = {
            "path": None, "line": None, "char": None, "code": code, "severity": "error",
            "name": "hwlint-failure", "original": None, "replacement": None,
            "description": f"hwlint failed: {problem}",
        }
        click.echo(json.dumps(message, ensure_ascii=False))
