"""`hwlint fix`: classify what can be inferred, safely."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import click

from hwlint.cli.commands.console import EXIT_VIOLATIONS, parse_codes
from hwlint.cli.commands.decorators import guarded, options, write_output
from hwlint.cli.options import FIX_COMMAND, PHASE, SELECT, cache_choice
from hwlint.engine.api import load_project
from hwlint.rules.allowlist_budget import AllowlistBudget

if TYPE_CHECKING:
    from hwlint.core.config import Config
    from hwlint.core.diagnostics import Diagnostic
    from hwlint.engine.api import CheckResult
    from hwlint.fix.pr_description import Description, Target
    from hwlint.fix.result import FixReport
    from hwlint.fix.verify_runtime import RuntimeCheck


# How many of the errors left `fix` prints (`check` prints them all).
_SHOW_FAILING = 10


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@options(*FIX_COMMAND)
@guarded
def fix(
    paths: tuple[Path, ...],
    config_file: Path | None,
    jobs: int | None,
    no_cache: bool,
    cache_dir: Path | None,
    show_diff: bool,
    unsafe: bool,
    select: str | None,
    class_names: tuple[str, ...],
    phase: str | None,
    show_unfixed: bool,
    fmt: str,
    verify_runtime: bool,
    python: str | None,
    timeout: float,
    pr_description: str | None,
    pr_per: str | None,
) -> None:
    """Declare the classification of test classes where it can be inferred.

    Instantiated per device without only_for: ACCELERATOR; with only_for one
    device: that device; no device, no instantiation, no accelerator use:
    GENERIC. Weaker evidence needs --unsafe; no evidence, no fix. A string
    declaration naming a member ("GENERIC") becomes that member (HWC002).
    With HWC201 selected, --unsafe rewrites hard-coded devices in
    ACCELERATOR classes (device="cuda" -> device=device, .cuda() ->
    .to(device), torch.cuda.synchronize() -> torch.accelerator.synchronize()).
    A fix that would surface violations of the class's own rules is not
    safe: it is left, with what it would surface, unless --unsafe. Files
    that become clean leave the allowlist (with --phase, only the files
    of that migration phase are fixed); a budget is never raised.

    Exit status as `hwlint check` on the same files after the fix: 0 when
    it passes (classes left in allowlisted files, within their budgets, do
    not fail it), 1 when it fails (its errors are printed); with --diff, 1
    when there is something to change. As with every fixer, pre-commit
    fails the hook when a file changed. With --verify-runtime, each changed
    module's tests are collected by unittest (in --python, with torch)
    before and after the fix, mapped through its renames: a file whose
    fix loses a test is not written, and the command exits 1."""
    from hwlint.engine.api import run_check
    from hwlint.fix.apply import apply_fixes

    pr = _pr_target(pr_description, pr_per, unsafe, fmt=fmt, show_diff=show_diff)
    cache = cache_choice(no_cache, cache_dir, True)
    config = load_project(config_file, cache=cache)
    scope = _scope(config, select, paths, phase)
    if scope is None:
        return
    chosen, targets = scope
    # The allowlist exempts nothing here: fixing allowlisted files is what
    # migration is.
    result = run_check(config, targets, jobs=jobs, select=chosen, use_allowlist=False, cache=cache)
    _warn_about_arguments(config, result, paths, class_names)
    report = apply_fixes(
        config,
        result,
        unsafe=unsafe,
        classes=class_names or None,
        write=not show_diff and not verify_runtime,
        jobs=jobs,
    )
    # Before anything is written: a file whose fix loses a test is not.
    runtime = _verify_at_runtime(config, report, python, timeout, jobs, write=not show_diff) if verify_runtime else None
    pruned = _show_or_prune(config, report, show_diff=show_diff, fmt=fmt, jobs=jobs, cache=cache)
    # What `hwlint check` now says of the same files: fix fails only when
    # check would (or, with --diff, when there is something to change), so
    # that the hwlint-fix hook and the hwlint hook agree. Classes left in
    # allowlisted files, within their budgets, are the migration's work, not
    # a failure of this commit.
    after = None if show_diff else run_check(config, targets, jobs=jobs, cache=cache)
    _print_report(config, report, after, runtime, pruned, fmt=fmt, show_unfixed=show_unfixed, pr=pr)
    failing = after.diagnostics if after is not None else []
    if failing:
        _print_failing(failing, everywhere=targets is None)
    elif after is not None and report.unfixed:
        click.echo("`hwlint check` passes: the classes left are in allowlisted files, within their budgets", err=True)
    if failing or (show_diff and report.files) or (runtime is not None and runtime.lost):
        sys.exit(EXIT_VIOLATIONS)


def _show_or_prune(
    config: Config, report: FixReport, *, show_diff: bool, fmt: str, jobs: int | None, cache: bool | Path | None
) -> str | None:
    """--diff: the diff of the files the fix changes, on stdout; else the
    allowlist pruned of the files the fix made clean (what the prune did,
    in one line)."""
    from hwlint.fix.apply import unified_diff

    if show_diff and fmt == "text":
        if report.files:
            write_output("".join(unified_diff(outcome) for outcome in report.files), None)
    elif report.files and not show_diff:
        return _prune_after_fix(config, [config.root / f.path for f in report.files], jobs, cache)
    return None


def _scope(
    config: Config, select: str | None, paths: tuple[Path, ...], phase: str | None
) -> tuple[tuple[str, ...], list[Path] | None] | None:
    """The fixable rules chosen and the files to fix (None: the project's),
    or None, saying why, when there is nothing to fix."""
    chosen = _chosen_rules(config, select)
    if not chosen:
        return None
    targets: list[Path] | None = list(paths) or None
    if phase is not None:
        targets = _phase_files(config, phase, targets)
        if not targets:
            where = "among the given paths" if paths else "in the project"
            click.echo(f"hwlint: no test files of phase {phase!r} {where}", err=True)
            return None
    return chosen, targets


def _chosen_rules(config: Config, select: str | None) -> tuple[str, ...]:
    """The fixable rules to fix: like check, the configured rules or
    --select's; a default-off rule (HWC201's rewrites) only when chosen by
    name or by the configuration. None: it says so."""
    from hwlint.rules import FIXABLE, enabled_codes

    codes = parse_codes(select, SELECT)
    enabled = enabled_codes(
        tuple(codes) if codes is not None else config.select, () if codes is not None else config.ignore
    )
    chosen = tuple(f for f in FIXABLE if f in enabled)
    if not chosen:
        click.echo(f"hwlint: nothing to fix for the selected rules (fixes exist for {', '.join(FIXABLE)})", err=True)
    return chosen


def _verify_at_runtime(
    config: Config, report: FixReport, python: str | None, timeout: float, jobs: int | None, *, write: bool
) -> RuntimeCheck:
    """--verify-runtime: each changed module's tests collected before and
    after its fix, before anything is written; a file whose fix loses a
    test is withheld, the others written (unless only shown)."""
    from hwlint.fix.apply import write_report
    from hwlint.fix.verify_runtime import verify_runtime as collect_both
    from hwlint.fix.verify_runtime import withhold

    runtime = collect_both(
        config.root,
        report.files,
        python=python or sys.executable,
        attribute=config.attribute,
        timeout=timeout,
        jobs=jobs,
    )
    withhold(report, runtime)
    if write:
        write_report(config, report)
    return runtime


def _print_report(
    config: Config,
    report: FixReport,
    after: CheckResult | None,
    runtime: RuntimeCheck | None,
    pruned: str | None,
    *,
    fmt: str,
    show_unfixed: bool,
    pr: Target | None = None,
) -> None:
    """The report (`--format json` on stdout), the summary, the pull-request
    descriptions (--pr-description), and the devices nobody configured, as
    check names them (its own run's words)."""
    from hwlint.facts.devices import note

    found = after.unconfigured_devices() if after is not None else ()
    described, wrote = _describe(config, report, runtime, pr) if pr is not None else (None, None)
    if fmt == "json":
        over = [d for d in (after.diagnostics if after is not None else []) if d.code == AllowlistBudget.code]
        data = report.to_dict(over_budget=over)
        data["unconfigured_devices"] = [{"name": name, "files": n} for name, n in found]
        if runtime is not None:
            data["verify_runtime"] = runtime.to_dict()
        if described is not None:
            data["pr_descriptions"] = [d.to_dict() for d in described]
        write_output(json.dumps(data, ensure_ascii=False, indent=2) + "\n", None)
    done, *left = report.summary(show_unfixed=show_unfixed)
    lines = [
        done,
        *([pruned] if pruned else []),
        *left,
        *(runtime.summary() if runtime else []),
        *([wrote] if wrote else []),
    ]
    click.echo("\n".join(lines), err=True)
    if found:
        click.echo(note(found, config).rstrip("\n"), err=True)


def _pr_target(value: str | None, per: str | None, unsafe: bool, *, fmt: str, show_diff: bool) -> Target | None:
    """Where --pr-description writes (checked before anything is fixed), or None."""
    from hwlint.core.diagnostics import UserError
    from hwlint.fix.pr_description import target

    if value is None:
        if per is not None:
            raise UserError(f"--pr-per {per} says how to cut the pull-request descriptions: add --pr-description")
        return None
    stdout = "--format json" if fmt == "json" else "--diff" if show_diff else None
    return target(value, per, unsafe=unsafe, stdout_used_by=stdout)


def _describe(
    config: Config, report: FixReport, runtime: RuntimeCheck | None, where: Target
) -> tuple[list[Description], str]:
    """--pr-description: the descriptions, written (on stdout for `-`), and what was written, in one line."""
    from hwlint.fix.pr_description import STDOUT, describe, write

    described = describe(report, runtime, where, members=config.classifications)
    if where.path == STDOUT:
        write_output("".join(d.text for d in described), None)
    return described, write(described, where)


def _print_failing(failing: Sequence[Diagnostic], *, everywhere: bool) -> None:
    """The check's own words, so that the hook's output says what to do; a
    few, not a tree's worth before adoption."""
    for diag in failing[:_SHOW_FAILING]:
        click.echo(f"{diag.path}:{diag.line}:{diag.column}: {diag.code} {diag.message}", err=True)
    n = len(failing)
    where = "the project" if everywhere else "these files"
    more = f", {n - _SHOW_FAILING} more not shown (`hwlint check` lists them)" if n > _SHOW_FAILING else ""
    over_files = len({d.path for d in failing if d.code == AllowlistBudget.code})
    if over_files:
        click.echo(
            f"{over_files} allowlisted file{'s are' if over_files != 1 else ' is'} over budget after the "
            f"fix: fix the violations reported ({AllowlistBudget.code}); budgets never grow on their own",
            err=True,
        )
    click.echo(f"`hwlint check` fails on {where}: {n} error{'s' if n != 1 else ''}{more}", err=True)


def _warn_about_arguments(
    config: Config, result: CheckResult, paths: tuple[Path, ...], class_names: tuple[str, ...]
) -> None:
    """What check says of its paths, and a --class that names no class:
    a typo must not read as "nothing to fix"."""
    for outside in result.outside:
        click.echo(f"hwlint: warning: {outside} is outside the project root {config.root}: not fixed", err=True)
    for missing in result.missing:
        click.echo(f"hwlint: warning: {missing} does not exist", err=True)
    if paths and result.files_checked == 0 and not result.missing:
        click.echo("hwlint: no test files among the given paths (see `include`/`exclude`)", err=True)
    if class_names and result.files_checked:
        known = {cls.name for ctx in result.contexts for cls in ctx.facts.classes}
        for name in class_names:
            if name not in known:
                click.echo(
                    f"hwlint: warning: no class {name} in the {result.files_checked} file"
                    f"{'s' if result.files_checked != 1 else ''} checked: --class {name} fixes nothing",
                    err=True,
                )


def _phase_files(config: Config, name: str, paths: list[Path] | None) -> list[Path]:
    """The test files (among `paths`, else the project's) of the phase `name`."""
    from hwlint.allowlist.phases import PhaseMap
    from hwlint.facts.discover import discover

    phase_map = PhaseMap(config.phases, config.source)
    wanted = phase_map.named(name, PHASE.flags[0])
    return [config.root / rel for rel in discover(config, paths).files if phase_map.index_of(rel) == wanted]


def _prune_after_fix(config: Config, files: list[Path], jobs: int | None, cache: bool | Path | None) -> str | None:
    """Files that became clean leave the allowlist, and budgets drop. Returns
    what the prune did, in one line."""
    from hwlint.allowlist.edit import prune_allowlist
    from hwlint.engine.api import run_check

    result = run_check(config, files, jobs=jobs, cache=cache)
    change = prune_allowlist(config, result, write=True, jobs=jobs)
    return change.summary("prune") if change.changed else None
