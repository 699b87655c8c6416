"""What `hwlint check` does, without click: both front doors call `check`,
hwlint.cli.commands.check (click) and hwlint.__main__'s fast path for a one-file
run, so they cannot drift apart."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from hwlint.cli.commands.console import EXIT_CLEAN, EXIT_VIOLATIONS, Echo, parse_codes, plain_echo, write_output
from hwlint.cli.options import EXTEND_SELECT, IGNORE, SELECT, TODAY, cache_choice

if TYPE_CHECKING:
    from hwlint.core.config import Config
    from hwlint.engine.api import CheckResult


def check(
    paths: Sequence[str | Path] = (),
    *,
    config_file: str | Path | None = None,
    jobs: int | None = None,
    select: str | None = None,
    extend_select: str | None = None,
    ignore: str | None = None,
    output: str | Path | None = None,
    no_cache: bool = False,
    cache_dir: str | Path | None = None,
    fmt: str = "text",
    exit_zero: bool = False,
    statistics: bool = False,
    no_allowlist: bool = False,
    fix: bool = False,
    today: str | None = None,
    echo: Echo = plain_echo,
) -> int:
    """Check test classes under `paths` (default: the whole project); the
    exit code. The keywords are hwlint.cli.options.CHECK's destinations."""
    from hwlint.engine.api import load_project

    cache = cache_choice(no_cache, cache_dir, True)
    config = load_project(Path(config_file) if config_file else None, cache=cache)
    given = [Path(p) for p in paths]
    lint_tree = _tree_linter(
        config,
        given,
        cache,
        jobs=jobs,
        select=select,
        extend_select=extend_select,
        ignore=ignore,
        no_allowlist=no_allowlist,
        today=today,
        count_fixable=fmt == "text",
    )
    result = lint_tree()
    if fix:
        result = _fix_and_prune(config, result, lint_tree, jobs, echo)
    _warn_of_nothing_checked(config, result, given, fmt, echo)
    write_output(_rendered(result, fmt, output, statistics), output, echo)
    return EXIT_VIOLATIONS if result.diagnostics and not exit_zero else EXIT_CLEAN


def _tree_linter(
    config: Config,
    given: list[Path],
    cache: bool | Path | None,
    *,
    jobs: int | None,
    select: str | None,
    extend_select: str | None,
    ignore: str | None,
    no_allowlist: bool,
    today: str | None,
    count_fixable: bool = False,
) -> Callable[[], CheckResult]:
    """The check this run makes, to make again after a fix or a prune."""
    from hwlint.engine.api import run_check

    day = None
    if today is not None:
        from hwlint.allowlist.phases import parse_day

        day = parse_day(today, TODAY.flags[0])
    return functools.partial(
        run_check,
        config,
        given or None,
        jobs=jobs,
        select=parse_codes(select, SELECT),
        extend_select=parse_codes(extend_select, EXTEND_SELECT) or (),
        ignore=parse_codes(ignore, IGNORE),
        use_allowlist=not no_allowlist,
        cache=cache,
        today=day,
        # The text format's "N fixable": counted in the workers too.
        per_module=fixable_in_module if count_fixable else None,
    )


def fixable_in_module(result: CheckResult) -> int:
    """hwlint.fix.fixable.fixable_in_module, imported where it runs (in a
    worker, for each module it judged alone): a run that counts nothing
    never imports `fix`."""
    from hwlint.fix.fixable import fixable_in_module as count

    return count(result)


def _fix_and_prune(
    config: Config, result: CheckResult, lint_tree: Callable[[], CheckResult], jobs: int | None, echo: Echo
) -> CheckResult:
    """`check --fix`, like `ruff check --fix`: fix what this check reports,
    then prune the allowlist; what is left. In an allowlisted file that is
    only what is over its budget (HWC302); the rest stays for `hwlint fix`,
    which migrates files."""
    from hwlint.allowlist.edit import prune_allowlist
    from hwlint.fix.apply import apply_fixes

    fixed = apply_fixes(config, result, jobs=jobs)
    if fixed.files:
        echo("\n".join(fixed.summary()[:1]), err=True)
        result = lint_tree()

    change = prune_allowlist(config, result, write=True, jobs=jobs)
    for line in change.lines():
        echo(line, err=True)
    if change.blocked:
        echo(f"hwlint: {change.summary('prune')}", err=True)
    if change.written:
        result = lint_tree()  # report what is left after pruning
    return result


def _warn_of_nothing_checked(config: Config, result: CheckResult, given: list[Path], fmt: str, echo: Echo) -> None:
    """Warnings on stderr: paths outside the project, and a run that checked
    no file."""
    for outside in result.outside:
        echo(f"hwlint: warning: {outside} is outside the project root {config.root}: not checked", err=True)
    if given and result.files_checked == 0 and not result.diagnostics and fmt == "text":
        echo("hwlint: no test files among the given paths (see `include`/`exclude`)", err=True)
    elif not given and result.files_checked == 0:
        from hwlint.facts.discover import explain_empty

        # Exit 0 stays (an empty project is clean), but a green run that
        # looked at nothing must say so, whatever the format.
        echo(f"hwlint: warning: {explain_empty(config)}", err=True)


def _rendered(result: CheckResult, fmt: str, output: str | Path | None, statistics: bool) -> str:
    """The result in format `fmt`: in colour on a terminal (text, to stdout,
    NO_COLOR unset), with the format's extras."""
    from hwlint.output import renderer

    color = (
        fmt == "text"
        and output is None
        and sys.stdout is not None
        and sys.stdout.isatty()
        and "NO_COLOR" not in os.environ
    )
    extra: dict[str, Any] = {}
    if fmt == "lintrunner":
        extra["replacements"] = lintrunner_replacements(result)
    elif fmt == "text":
        extra["fixable"] = fixable_count(result)
    return renderer(fmt)(result, statistics=statistics, color=color, fmt=fmt, **extra)


def lintrunner_replacements(result: CheckResult) -> dict[Any, tuple[str, str]]:
    """The whole-file fixes lintrunner's format carries; libcst (hwlint.fix.apply)
    is imported only when there is a fix to compute."""
    from hwlint.core.diagnostics import gives_replacement

    if not any(gives_replacement(d.fix) for d in result.diagnostics):
        return {}
    from hwlint.output.lintrunner_fix import lintrunner_replacements as compute

    return compute(result)


def fixable_count(result: CheckResult) -> int:
    """How many classes a plain `hwlint fix` would classify: the safe fixes
    the trial keeps (hwlint.fix.plan), not every fix marked safe, so that the
    "N fixable" line is what `fix` then does."""
    from hwlint.core.diagnostics import is_safe_fix

    if not any(is_safe_fix(d.fix) for d in result.diagnostics):
        return 0

    def count() -> int:
        from hwlint.fix.fixable import fixable_count as trials

        return trials(result)

    # The trials cost more than a warm check itself: remembered with the run.
    return result.remember("fixable", count)
