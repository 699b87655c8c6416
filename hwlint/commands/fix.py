"""`hwlint fix`: classify what can be inferred, safely."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click

from hwlint.cli import EXIT_VIOLATIONS, _codes, _load, guarded


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False), default=None)
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None)
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff of the fixes and write nothing.")
@click.option("--unsafe", is_flag=True, help="Also apply fixes inferred from weaker evidence.")
@click.option("--select", default=None, help="Fix only these rule codes (fixes exist for HWC001).")
@click.option("--class", "class_names", multiple=True, help="Fix only this class (repeatable).")
@guarded
def fix(paths: tuple[Path, ...], config_file: Path | None, jobs: int | None, show_diff: bool,
        unsafe: bool, select: str | None, class_names: tuple[str, ...]) -> None:
    """Declare the classification of test classes where it can be inferred.

    Instantiated per device without only_for: ACCELERATOR; with only_for one
    device: that device; no device, no instantiation, no accelerator use:
    GENERIC. Weaker evidence needs --unsafe; no evidence, no fix.
    Exit 0 when nothing is left to classify, 1 otherwise (or, with --diff,
    when there is something to change)."""
    from hwlint.check import run_check
    from hwlint.fix import fix_file, plan_fixes, unified_diff, write_fixed

    config = _load(config_file)
    codes = _codes(select)
    if codes is not None and not any("HWC001".startswith(c) or c == "ALL" for c in codes):
        click.echo("hwlint: nothing to fix for the selected rules (fixes exist for HWC001)", err=True)
        return
    # The allowlist does not exempt anything here: fixing allowlisted files
    # is what migration is.
    result = run_check(config, list(paths) or None, jobs=jobs, select=("HWC001",), use_allowlist=False)
    plans, unfixed = plan_fixes(result, unsafe=unsafe, classes=class_names or None)
    facts = {ctx.path: ctx.facts for ctx in result.contexts}
    fixed_classes: Counter[str] = Counter()
    changed_files: list[str] = []
    for plan in plans:
        outcome = fix_file(config.root, plan, facts[plan.path], config)
        if outcome.error is not None:
            for f in plan.fixes:
                unfixed.append(_unfixed(plan.path, f.line, f.class_name, f"not fixed: {outcome.error}"))
            continue
        if show_diff:
            click.echo(unified_diff(outcome), nl=False)
        else:
            error = write_fixed(config.root, outcome)
            if error is not None:
                for f in plan.fixes:
                    unfixed.append(_unfixed(plan.path, f.line, f.class_name, f"not fixed: {error}"))
                continue
        changed_files.append(plan.path)
        fixed_classes.update(f.member for f in plan.fixes)
    if not show_diff and changed_files:
        _prune_after_fix(config, [config.root / p for p in changed_files], jobs)
    total = sum(fixed_classes.values())
    verb = "Would classify" if show_diff else "Classified"
    breakdown = ", ".join(f"{member} {n}" for member, n in sorted(fixed_classes.items()))
    lines = [f"{verb} {total} class{'es' if total != 1 else ''} in {len(changed_files)} file{'s' if len(changed_files) != 1 else ''}"
             + (f" ({breakdown})" if breakdown else "") + "."]
    if unfixed:
        lines.append(f"{len(unfixed)} class{'es' if len(unfixed) != 1 else ''} need{'s' if len(unfixed) == 1 else ''} a human:")
        lines.extend(f"  {u.path}:{u.line}: {u.class_name}: {u.reason}" for u in sorted(unfixed, key=lambda u: (u.path, u.line)))
    click.echo("\n".join(lines), err=True)
    if unfixed or (show_diff and total):
        sys.exit(EXIT_VIOLATIONS)


def _unfixed(path: str, line: int, class_name: str, reason: str):  # type: ignore[no-untyped-def]
    from hwlint.fix import Unfixed

    return Unfixed(path, line, class_name, reason)


def _prune_after_fix(config, files: list[Path], jobs: int | None) -> None:  # type: ignore[no-untyped-def]
    """Files that became clean leave the allowlist, budgets drop."""
    try:
        from hwlint.allowlist import prune_allowlist
    except ImportError:  # the ratchet's prune is not there: nothing to do
        return
    from hwlint.check import run_check

    result = run_check(config, files, jobs=jobs)
    change = prune_allowlist(config, result, write=True)
    for line in getattr(change, "messages", lambda: [])():
        click.echo(line, err=True)
