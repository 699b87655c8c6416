"""`hwlint report`: the migration's figures for a terminal, a CI summary, a
dashboard or a page."""

from __future__ import annotations

import contextlib
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import click

from hwlint.cli.commands.console import parse_codes
from hwlint.cli.commands.decorators import guarded, options, write_output
from hwlint.cli.options import EXTEND_SELECT, IGNORE, REPORT, SELECT, TODAY, cache_choice
from hwlint.engine.api import load_project

if TYPE_CHECKING:
    from hwlint.core.config import Config
    from hwlint.engine.api import CheckResult


@contextlib.contextmanager
def progress_bar(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr, fed by run_check's `progress` hook, only
    when stderr is a terminal: CI logs and pipes get no control characters.
    Yields the hook, or None when there is no bar."""
    if not sys.stderr.isatty():
        yield None
        return
    state: dict[str, Any] = {}

    def advance(done: int, total: int) -> None:
        if "bar" not in state:
            bar = click.progressbar(length=total, label=label, file=sys.stderr, show_pos=True)
            state["bar"] = bar.__enter__()
        state["bar"].update(done)

    try:
        yield advance
    finally:
        if "bar" in state:
            state["bar"].__exit__(None, None, None)


@click.command()
@options(*REPORT)
@guarded
def report(
    config_file: Path | None,
    jobs: int | None,
    select: str | None,
    extend_select: str | None,
    ignore: str | None,
    output: Path | None,
    no_cache: bool,
    cache_dir: Path | None,
    fmt: str,
    history: bool,
    baseline: int | None,
    today: str | None,
    all_rows: bool,
) -> None:
    """Report the migration's progress: files allowlisted against the
    baseline, test classes by classification, violations by rule, a
    per-directory table, the migration phases' status and, with --history,
    the burn-down. Long tables show their first rows and how many more
    there are (--all-rows: every row; json always has every row).

    Markdown suits `$GITHUB_STEP_SUMMARY`; json is for dashboards (stable
    keys); html is one self-contained page. Always exits 0 unless it fails."""
    from hwlint.allowlist.model import load_allowlist
    from hwlint.output import renderer
    from hwlint.report.figures import build_report
    from hwlint.report.history import read_history
    from hwlint.report.layout import TABLE_ROWS, layout

    cache = cache_choice(no_cache, cache_dir, True)
    config = load_project(config_file, cache=cache)
    day = _judging_day(config, today)
    # First, so that a repository problem is reported before the tree is linted.
    read = read_history(config, history, baseline)
    result = _check_everything(config, cache, jobs=jobs, select=select, extend_select=extend_select, ignore=ignore)
    allowlist = load_allowlist(config.root, config.allowlist)
    figures = build_report(
        result,
        allowlist.entries,
        history=read.points,
        baseline=baseline,
        largest=read.largest,
        phase_history=read.phase_points,
        today=day,
    )
    write_output(renderer(fmt, "report")(layout(figures, None if all_rows else TABLE_ROWS)), output)


def _judging_day(config: Config, today: str | None) -> date | None:
    """The day the phases are judged on: --today, else $HWLINT_TODAY or the
    report's date when there are phases."""
    if today is not None:
        from hwlint.allowlist.phases import parse_day

        return parse_day(today, TODAY.flags[0])
    if config.phases:
        from hwlint.allowlist.phases import today as judged_on
        from hwlint.report.figures import report_time

        return judged_on(report_time().date())
    return None


def _check_everything(
    config: Config,
    cache: bool | Path | None,
    *,
    jobs: int | None,
    select: str | None,
    extend_select: str | None,
    ignore: str | None,
) -> CheckResult:
    """The whole tree checked without the allowlist (the allowlisted files'
    violations are the work left, and the report counts them), with a
    progress bar on a terminal."""
    from hwlint.engine.api import run_check

    with progress_bar("Checking test files") as hook:
        return run_check(
            config,
            None,
            jobs=jobs,
            select=parse_codes(select, SELECT),
            extend_select=parse_codes(extend_select, EXTEND_SELECT) or (),
            ignore=parse_codes(ignore, IGNORE),
            use_allowlist=False,
            progress=hook,
            cache=cache,
        )
