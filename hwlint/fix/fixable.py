"""The check's "N fixable": how many classes a plain `hwlint fix` would
classify, the safe fixes the trial keeps (hwlint.fix.plan, hwlint.fix.trial).

The trials lint each module again once per fix, which made the count the
largest serial part of a cold check (benchmarks/bench_jobs.py). A module the
workers judged alone (hwlint.engine.alone) is counted there, by the same
planner on a run of that module alone: its fixes cannot reach another
module unless a module judged with the run inherits from it, and its
findings are the run's unless the allowlist changed them. Every other module
is counted here, with the whole run, as before.
"""

from __future__ import annotations

from hwlint.core.diagnostics import Diagnostic
from hwlint.engine.api import CheckResult
from hwlint.fix.plan import plan_fixes


def fixable_count(result: CheckResult) -> int:
    """How many classes a plain `hwlint fix` would classify: the safe fixes
    of `result` that the trial keeps."""
    counted, total = _counted_alone(result)
    if counted and len(counted) == len(result.alone) == len(result.paths()):
        return total
    plans, _ = plan_fixes(result, paths=_Outside(counted) if counted else None)
    return total + sum(len(plan.fixes) for plan in plans)


def fixable_in_module(result: CheckResult) -> int:
    """In a worker, for a module judged alone (run_check's `per_module`):
    its fixable count, planned and tried on a run of the module alone."""
    plans, _ = plan_fixes(result)
    return sum(len(plan.fixes) for plan in plans)


class _Outside:
    """The paths not in `counted` (a Collection only for `in`)."""

    def __init__(self, counted: set[str]) -> None:
        self.counted = counted

    def __contains__(self, path: object) -> bool:
        return path not in self.counted


def _fixable(d: Diagnostic) -> bool:
    return d.fix is not None and d.class_name is not None


def _counted_alone(result: CheckResult) -> tuple[set[str], int]:
    """The modules whose count the workers made and that the run leaves as
    they found them, and the sum of their counts. Not counted there: a module
    whose findings with fixes the allowlist changed (an HWC302 over budget
    carries one), or one a module judged with the run inherits from (its
    fixes may surface findings in that subclass)."""
    if not result.alone:
        return set(), 0
    inherited = result.inherited()
    findings: dict[str, list[Diagnostic]] = {}
    for d in result.diagnostics:
        if _fixable(d):
            findings.setdefault(d.path, []).append(d)
    counted: set[str] = set()
    total = 0
    for path, alone in result.alone.items():
        if type(alone.extra) is not int or path in inherited:
            continue
        if findings.get(path, []) != sorted(d for d in alone.diagnostics if _fixable(d)):
            continue
        counted.add(path)
        total += alone.extra
    return counted, total
