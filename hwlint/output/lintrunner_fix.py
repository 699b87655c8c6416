"""The whole-file fixes lintrunner's format carries (hwlint.output.lintrunner's
`replacements`): each fixable file fixed with libcst (hwlint.fix.apply), as
`lintrunner -a` writes it. Apart from the format itself so that libcst is
imported only when there is a fix to compute.
"""

from __future__ import annotations

from hwlint.engine.api import CheckResult
from hwlint.facts.read import ReadError, decode
from hwlint.fix.apply import fix_file
from hwlint.fix.plan import plan_fixes
from hwlint.rules.hardcoded_device import HardcodedDevice


def lintrunner_replacements(result: CheckResult) -> dict[tuple[str, int, int, str, str | None], tuple[str, str]]:
    """Whole-file (original, replacement) for the first fixable message of
    each file, keyed by (path, line, column, code, class name): `lintrunner
    -a` writes the replacement, fixing every class and declaration of the
    file at once. Safe fixes, and HWC201's rewrites: that rule is off unless
    the project turns it on, and lintrunner shows each replacement as a diff
    before `-a` applies it."""
    plans, _ = plan_fixes(result, rewrite=True)
    facts = {ctx.path: ctx.facts for ctx in result.contexts}
    found: dict[tuple[str, int, int, str, str | None], tuple[str, str]] = {}
    for plan in plans:
        outcome = fix_file(result.config.root, plan, facts[plan.path], result.config)
        if not outcome.changed or outcome.fixed is None:
            continue
        before, after = decode(outcome.original), decode(outcome.fixed)
        if isinstance(before, ReadError) or isinstance(after, ReadError):
            continue
        # The class too: a declaration in a loop is reported for each class it assigns to.
        line, column, code, class_name = min(
            [(f.line, f.column, f.code, f.class_name) for f in plan.fixes]
            + [(r.line, r.column, HardcodedDevice.code, r.class_name) for r in outcome.rewritten]
        )
        found[(plan.path, line, column, code, class_name)] = (before, after)
    return found
