"""`hwlint allowlist ...`: keep the allowlist shrinking.

init (create the list from the tree as it is: adoption), prune (remove
clean or missing files, lower budgets), sync (rebuild from the
tree, growth only with --allow-growth), check (HWC303 against a git ref),
import-json / export-json (PyTorch's test_linter_allowlist.json).
Exit codes as for `check`: 0 clean or nothing to do, 1 violations, refused
growth, or (with --check) a change to make, 2 errors.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable, TypeVar

import click

from hwlint.cli import EXIT_VIOLATIONS, _load, guarded, write_output
from hwlint.diagnostics import UserError

F = TypeVar("F", bound=Callable[..., Any])


def _config_option(func: F) -> F:
    return click.option(
        "--config", "config_file", type=click.Path(path_type=Path, dir_okay=False), default=None,
        help="Read settings from this pyproject.toml or hwlint.toml; its folder is the project root.",
    )(func)


def _jobs_option(func: F) -> F:
    return click.option(
        "--jobs", "-j", type=click.IntRange(min=1), default=None,
        help="Processes to use (default: all cores; 1: no process pool).",
    )(func)


def _dry_run_option(command: str) -> Callable[[F], F]:
    return click.option(
        "--check", "dry_run", is_flag=True,
        help=f"Change nothing: print what {command} would change and exit 1 if anything (for CI).",
    )


def _diagnostic_line(diag: Any) -> str:
    return f"{diag.path}:{diag.line}:{diag.column}: {diag.code} {diag.message}"


def _warn_outside(outside: list[str], root: Path) -> None:
    for path in outside:
        click.echo(f"hwlint: warning: {path} is outside the project root {root}: not checked", err=True)


def _report(change: Any, command: str, dry_run: bool) -> None:
    """Print a change as prune, sync and import-json do; exit 1 when the
    list is blocked, growth was refused, or (dry run) it would change."""
    for diag in change.blocked:
        click.echo(_diagnostic_line(diag))
    # A missing list refuses every file of the tree: one line pointing to
    # `init` says more than a line per file.
    if change.exists or change.changed:
        for line in change.lines(dry_run=dry_run):
            click.echo(line)
    click.echo(change.summary(command, dry_run=dry_run))
    if change.blocked or change.refused or (dry_run and change.changed):
        sys.exit(EXIT_VIOLATIONS)


@click.group()
def allowlist() -> None:
    """Keep the allowlist of unmigrated test files shrinking.

    `prune` and `sync` rewrite the list (atomically, one run at a time);
    `check --base REF` fails when it grew compared to a git ref."""


@allowlist.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@_config_option
@_jobs_option
@_dry_run_option("pruning")
@guarded
def prune(paths: tuple[Path, ...], config_file: Path | None, jobs: int | None, dry_run: bool) -> None:
    """Remove clean or missing files from the allowlist and lower budgets to
    the current counts. Never adds a file, never raises a budget.

    With PATHS, only the entries of the files checked (and of files that no
    longer exist) are judged."""
    from hwlint.allowlist_edit import prune_allowlist
    from hwlint.check import run_check

    config = _load(config_file)
    result = run_check(config, list(paths) or None, jobs=jobs, use_allowlist=False)
    _warn_outside(result.outside, config.root)
    change = prune_allowlist(config, result, write=not dry_run, jobs=jobs)
    _report(change, "prune", dry_run)


@allowlist.command()
@_config_option
@_jobs_option
@guarded
def init(config_file: Path | None, jobs: int | None) -> None:
    """Adopt hwlint: create the allowlist from the tree as it is, every file
    with violations at its current count as its budget. Refuses when a list
    exists (prune shrinks it, sync rebuilds it)."""
    from hwlint.allowlist_edit import init_allowlist
    from hwlint.check import run_check

    config = _load(config_file)
    result = run_check(config, None, jobs=jobs, use_allowlist=False)
    if result.files_checked == 0:
        from hwlint.discover import explain_empty

        raise UserError(f"nothing to adopt: {explain_empty(config)}")
    change = init_allowlist(config, result, jobs=jobs)
    broken = sorted({d.path for d in result.diagnostics if d.code == "HWC000"})
    files, violations = change.entries_after, sum(a.new or 0 for a in change.actions)
    where = change.where
    if files:
        click.echo(f"Created {where}: {files} file{'s' if files != 1 else ''} with "
                   f"{violations} violation{'s' if violations != 1 else ''} "
                   f"({result.files_checked} test files checked).")
    else:
        click.echo(f"Created {where} with no entries: all {result.files_checked} test files are clean.")
    for path in broken:
        click.echo(f"hwlint: warning: {path} does not parse (HWC000): it cannot be allowlisted; "
                   "`hwlint check` reports it until it is fixed", err=True)
    click.echo("Next:")
    click.echo(f"  git add {where} && git commit -m 'Adopt hwlint: allowlist the files not yet migrated'")
    click.echo(f"  in CI: hwlint check && hwlint allowlist check --base origin/main")
    click.echo("  then: hwlint fix (classifies what can be inferred, prunes the list)")


@allowlist.command()
@_config_option
@_jobs_option
@click.option("--allow-growth", is_flag=True,
              help="Also add files with violations and raise budgets (each addition is printed).")
@_dry_run_option("sync")
@guarded
def sync(config_file: Path | None, jobs: int | None, allow_growth: bool, dry_run: bool) -> None:
    """Rebuild the allowlist from the whole tree: every file with violations,
    at its count. Refuses to add files or raise budgets (exit 1, the rest is
    applied) unless --allow-growth. Repairs a broken or conflicted list
    without growing it."""
    from hwlint.allowlist_edit import sync_allowlist
    from hwlint.check import run_check

    config = _load(config_file)
    result = run_check(config, None, jobs=jobs, use_allowlist=False)
    change = sync_allowlist(config, result, allow_growth=allow_growth, write=not dry_run, jobs=jobs)
    _report(change, "sync", dry_run)


@allowlist.command("check")
@click.option("--base", "base_ref", default=None, metavar="REF",
              help="Compare with the allowlist at the merge base of HEAD and REF "
                   "(default: origin/main, else main).")
@_config_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the output to this file instead of stdout.")
@guarded
def check_command(base_ref: str | None, config_file: Path | None, fmt: str, output: Path | None) -> None:
    """Fail when the allowlist grew compared to a git ref: a new entry or a
    raised budget is HWC303. A renamed test file keeps its entry when git
    sees the rename."""
    from hwlint.allowlist_edit import configured_rules
    from hwlint.ratchet import check_ratchet
    from hwlint.rules import AllowlistSyntax

    config = _load(config_file)
    result = check_ratchet(config, base_ref, syntax=AllowlistSyntax.code in configured_rules(config))
    diagnostics = result.diagnostics
    if fmt == "json":
        text = json.dumps([d.to_dict() for d in diagnostics], ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    else:
        lines = [_diagnostic_line(d) for d in diagnostics]
        where, label = result.current.path, result.base.label
        before = (f"{len(result.previous.entries)} at {label}" if result.previous.exists
                  else f"it did not exist at {label}")
        now = f"{len(result.current.entries)} entr{'y' if len(result.current.entries) == 1 else 'ies'}"
        if diagnostics:
            n = len(diagnostics)
            lines += ["", f"Found {n} error{'s' if n != 1 else ''} in {where} ({now}; {before})."]
        else:
            lines.append(f"{where} did not grow ({now}; {before}).")
        text = "\n".join(lines) + "\n"
    write_output(text, output)
    if diagnostics:
        sys.exit(EXIT_VIOLATIONS)


@allowlist.command("import-json")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@_config_option
@_jobs_option
@click.option("--allow-growth", is_flag=True,
              help="Allow new files and higher budgets than the current list has (a first import always may).")
@guarded
def import_json(file: Path, config_file: Path | None, jobs: int | None, allow_growth: bool) -> None:
    """Replace the allowlist's entries with the paths of PyTorch's
    test_linter_allowlist.json (a JSON array of root-relative paths), each
    with its current number of violations as its budget."""
    from hwlint.allowlist_edit import import_allowlist, read_json_allowlist
    from hwlint.check import run_check

    paths = read_json_allowlist(file)
    config = _load(config_file)
    result = run_check(config, None, jobs=jobs, use_allowlist=False)
    change, skipped = import_allowlist(config, result, paths, allow_growth=allow_growth, write=True, jobs=jobs)
    for reason in skipped:
        click.echo(f"{file}: skipped {reason}")
    _report(change, "import-json", False)


@allowlist.command("export-json")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False, allow_dash=True))
@_config_option
@guarded
def export_json(file: Path, config_file: Path | None) -> None:
    """Write the allowlist's paths as PyTorch's test_linter_allowlist.json
    (a sorted JSON array; budgets are dropped). FILE `-` is stdout."""
    from hwlint.allowlist import load_allowlist
    from hwlint.allowlist_edit import export_json_allowlist

    config = _load(config_file)
    current = load_allowlist(config.root, config.allowlist)
    for problem in current.problems:
        click.echo(f"hwlint: warning: {_diagnostic_line(problem)}", err=True)
    text = export_json_allowlist(current)
    if str(file) == "-":
        click.echo(text, nl=False)
        return
    write_output(text, file)
    n = len(current.entries)
    click.echo(f"Exported {n} entr{'y' if n == 1 else 'ies'} of {current.path} to {file}.")
