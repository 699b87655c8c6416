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
from typing import TYPE_CHECKING, Any

import click

from hwlint.cli.commands.console import EXIT_VIOLATIONS
from hwlint.cli.commands.decorators import guarded, options, write_output
from hwlint.cli.options import (
    ALLOWLIST_CHECK,
    ALLOWLIST_EXPORT_JSON,
    ALLOWLIST_IMPORT_JSON,
    ALLOWLIST_INIT,
    ALLOWLIST_PRUNE,
    ALLOWLIST_SHOW,
    ALLOWLIST_SYNC,
    PHASE,
    cache_choice,
)
from hwlint.core.diagnostics import UserError
from hwlint.engine.api import load_project
from hwlint.rules.parse_error import ParseError

if TYPE_CHECKING:
    from hwlint.allowlist.change import AllowlistChange
    from hwlint.engine.api import CheckResult


def _diagnostic_line(diag: Any) -> str:
    return f"{diag.path}:{diag.line}:{diag.column}: {diag.code} {diag.message}"


def _warn_outside(outside: list[str], root: Path) -> None:
    for path in outside:
        click.echo(f"hwlint: warning: {path} is outside the project root {root}: not checked", err=True)


def _report(change: Any, command: str, dry_run: bool, quiet: bool = False) -> None:
    """Print a change as prune, sync and import-json do; exit 1 when the
    list is blocked, growth was refused, or (dry run) it would change.
    `quiet`: the refusals and the summary, not a line per entry changed."""
    for diag in change.blocked:
        click.echo(_diagnostic_line(diag))
    # A missing list refuses every file of the tree: one line pointing to
    # `init` says more than a line per file.
    if change.exists or change.changed:
        lines = change.lines(dry_run=dry_run)
        if quiet:
            lines = lines[len(lines) - len(change.refused) :]
        for line in lines:
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
@options(*ALLOWLIST_PRUNE)
@guarded
def prune(
    paths: tuple[Path, ...],
    config_file: Path | None,
    jobs: int | None,
    no_cache: bool,
    cache_dir: Path | None,
    dry_run: bool,
    quiet: bool,
) -> None:
    """Remove clean or missing files from the allowlist and lower budgets to
    the current counts. Never adds a file, never raises a budget.

    With PATHS, only the entries of the files checked (and of files that no
    longer exist) are judged."""
    from hwlint.allowlist.edit import prune_allowlist
    from hwlint.engine.api import run_check

    cache = cache_choice(no_cache, cache_dir, True)
    config = load_project(config_file, cache=cache)
    result = run_check(config, list(paths) or None, jobs=jobs, use_allowlist=False, cache=cache)
    _warn_outside(result.outside, config.root)
    change = prune_allowlist(config, result, write=not dry_run, jobs=jobs)
    _report(change, "prune", dry_run, quiet)


@allowlist.command()
@options(*ALLOWLIST_INIT)
@guarded
def init(config_file: Path | None, jobs: int | None, no_cache: bool, cache_dir: Path | None, quiet: bool) -> None:
    """Adopt hwlint: create the allowlist from the tree as it is, every file
    with violations at its current count as its budget. Refuses when a list
    exists (prune shrinks it, sync rebuilds it)."""
    from hwlint.allowlist.edit import init_allowlist
    from hwlint.engine.api import run_check
    from hwlint.facts.devices import note

    cache = cache_choice(no_cache, cache_dir, True)
    config = load_project(config_file, cache=cache)
    result = run_check(config, None, jobs=jobs, use_allowlist=False, cache=cache)
    if result.files_checked == 0:
        from hwlint.facts.discover import explain_empty

        raise UserError(f"nothing to adopt: {explain_empty(config)}")
    change = init_allowlist(config, result, jobs=jobs)
    _report_adoption(change, result)
    if quiet:
        return
    found = note(result.unconfigured_devices(), config)
    if found:
        click.echo(found, nl=False)
    _next_steps(change.where, bool(found))


def _report_adoption(change: AllowlistChange, result: CheckResult) -> None:
    """init's summary line, and a warning for each file that does not parse."""
    broken = sorted({d.path for d in result.diagnostics if d.code == ParseError.code})
    files, violations = change.entries_after, sum(a.new or 0 for a in change.actions)
    where = change.where
    if files:
        click.echo(
            f"Created {where}: {files} file{'s' if files != 1 else ''} with "
            f"{violations} violation{'s' if violations != 1 else ''} "
            f"({result.files_checked} test files checked)."
        )
    else:
        click.echo(f"Created {where} with no entries: all {result.files_checked} test files are clean.")
    for path in broken:
        click.echo(
            f"hwlint: warning: {path} does not parse ({ParseError.code}): it cannot be allowlisted; "
            "`hwlint check` reports it until it is fixed",
            err=True,
        )


def _next_steps(where: str, devices_found: bool) -> None:
    """What to do after adoption: commit the list, ratchet it in CI, fix."""
    click.echo("Next:")
    if devices_found:
        click.echo("  hwlint devices --write (covers the devices above), then hwlint allowlist sync")
    click.echo(f"  git add {where} && git commit -m 'Adopt hwlint: allowlist the files not yet migrated'")
    click.echo("  in CI: hwlint check && hwlint allowlist check --base origin/main")
    click.echo("  then: hwlint fix (classifies what can be inferred, prunes the list)")


@allowlist.command()
@options(*ALLOWLIST_SYNC)
@guarded
def sync(
    config_file: Path | None,
    jobs: int | None,
    no_cache: bool,
    cache_dir: Path | None,
    allow_growth: bool,
    dry_run: bool,
    quiet: bool,
) -> None:
    """Rebuild the allowlist from the whole tree: every file with violations,
    at its count. Refuses to add files or raise budgets (exit 1, the rest is
    applied) unless --allow-growth. Repairs a broken or conflicted list
    without growing it."""
    from hwlint.allowlist.edit import sync_allowlist
    from hwlint.engine.api import run_check

    cache = cache_choice(no_cache, cache_dir, True)
    config = load_project(config_file, cache=cache)
    result = run_check(config, None, jobs=jobs, use_allowlist=False, cache=cache)
    change = sync_allowlist(config, result, allow_growth=allow_growth, write=not dry_run, jobs=jobs)
    _report(change, "sync", dry_run, quiet)


@allowlist.command("check")
@options(*ALLOWLIST_CHECK)
@guarded
def check_command(base_ref: str | None, config_file: Path | None, fmt: str, output: Path | None) -> None:
    """Fail when the allowlist grew compared to a git ref: a new entry or a
    raised budget is HWC303. A renamed test file keeps its entry when git
    sees the rename."""
    from hwlint.allowlist.edit import configured_rules
    from hwlint.allowlist.ratchet import check_ratchet
    from hwlint.rules.allowlist_syntax import AllowlistSyntax

    config = load_project(config_file, cache=None)
    result = check_ratchet(config, base_ref, syntax=AllowlistSyntax.code in configured_rules(config))
    diagnostics = result.diagnostics
    if fmt == "json":
        text = json.dumps([d.to_dict() for d in diagnostics], ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    else:
        lines = [_diagnostic_line(d) for d in diagnostics]
        where, label = result.current.path, result.base.label
        before = (
            f"{len(result.previous.entries)} at {label}" if result.previous.exists else f"it did not exist at {label}"
        )
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
@options(*ALLOWLIST_IMPORT_JSON)
@guarded
def import_json(
    file: Path,
    config_file: Path | None,
    jobs: int | None,
    no_cache: bool,
    cache_dir: Path | None,
    allow_growth: bool,
    quiet: bool,
) -> None:
    """Replace the allowlist's entries with the paths of PyTorch's
    test_linter_allowlist.json (a JSON array of root-relative paths), each
    with its current number of violations as its budget."""
    from hwlint.allowlist.edit import import_allowlist
    from hwlint.allowlist.json_list import read_json_allowlist
    from hwlint.engine.api import run_check

    paths = read_json_allowlist(file)
    cache = cache_choice(no_cache, cache_dir, True)
    config = load_project(config_file, cache=cache)
    result = run_check(config, None, jobs=jobs, use_allowlist=False, cache=cache)
    change, skipped = import_allowlist(config, result, paths, allow_growth=allow_growth, write=True, jobs=jobs)
    if quiet and skipped:
        n = len(skipped)
        click.echo(f"{file}: skipped {n} path{'s' if n != 1 else ''} (run without --quiet to list them and why)")
    else:
        for reason in skipped:
            click.echo(f"{file}: skipped {reason}")
    _report(change, "import-json", False, quiet)


@allowlist.command("export-json")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False, allow_dash=True))
@options(*ALLOWLIST_EXPORT_JSON)
@guarded
def export_json(file: Path, config_file: Path | None) -> None:
    """Write the allowlist's paths as PyTorch's test_linter_allowlist.json
    (a sorted JSON array; budgets are dropped). FILE `-` is stdout."""
    from hwlint.allowlist.json_list import export_json_allowlist
    from hwlint.allowlist.model import load_allowlist

    config = load_project(config_file, cache=None)
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


@allowlist.command()
@options(*ALLOWLIST_SHOW)
@guarded
def show(config_file: Path | None, phase: str | None, fmt: str, output: Path | None) -> None:
    """List the allowlist's entries, one `path budget` line each; with
    --phase, those of one migration phase: what it has left (a count and its
    due date on stderr). json: `[{path, budget, line, phase}]`."""
    from hwlint.allowlist.model import load_allowlist
    from hwlint.allowlist.phases import PhaseMap

    config = load_project(config_file)
    current = load_allowlist(config.root, config.allowlist, layout=False)
    for problem in current.problems:
        click.echo(f"hwlint: warning: {_diagnostic_line(problem)}", err=True)
    phase_map = PhaseMap(config.phases, config.source)
    index_of = {path: phase_map.index_of(path) for path in current.entries}
    entries = list(current.entries.values())
    if phase is not None:
        wanted = phase_map.named(phase, PHASE.flags[0])
        entries = [e for e in entries if index_of[e.path] == wanted]
    if fmt == "json":
        rows = [
            {"path": e.path, "budget": e.budget, "line": e.line, "phase": _phase_name(config, index_of[e.path])}
            for e in entries
        ]
        text = json.dumps(rows, ensure_ascii=False, indent=2) + "\n"
    else:
        text = "".join(f"{e.path} {e.budget}\n" for e in entries)
    write_output(text, output)
    if phase is not None:
        chosen = config.phases[wanted]
        n = len(entries)
        click.echo(
            f"{n} file{'s' if n != 1 else ''} left in phase {chosen.name!r} (due {chosen.due.isoformat()}).", err=True
        )


def _phase_name(config: Any, index: int | None) -> str | None:
    return None if index is None else str(config.phases[index].name)
