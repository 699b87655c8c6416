"""lintrunner's LintMessage, one JSON object per line.

lintrunner reads `path`, `line`, `char`, `code`, `severity`, `name`,
`original`, `replacement` and `description`; `code` is the linter's name
in .lintrunner.toml (`lintrunner-code`, default HWLINT) and `name` is the
rule, so messages read `HWLINT (HWC001) ...`.
"""

from __future__ import annotations

import json

from hwlint.check import CheckResult

# The codes whose diagnostics can carry a fix (hwlint.fix.FIXABLE, which
# imports libcst: named here so that a run without fixes never imports it).
_FIXABLE = ("HWC001", "HWC002")


def _replacements(result: CheckResult) -> dict[tuple[str, int, int, str, str | None], tuple[str, str]]:
    """Whole-file (original, replacement) for the first safe-fixable message
    of each file: `lintrunner -a` writes the replacement, fixing every class
    and declaration of the file at once. libcst is imported only when there
    is a fix."""
    if not any(d.code in _FIXABLE and d.fix and d.fix.get("applicability") == "safe" for d in result.diagnostics):
        return {}
    from hwlint.fix import fix_file, plan_fixes
    from hwlint.read import ReadError, decode

    plans, _ = plan_fixes(result)
    facts = {ctx.path: ctx.facts for ctx in result.contexts}
    found: dict[tuple[str, int, int, str, str | None], tuple[str, str]] = {}
    for plan in plans:
        outcome = fix_file(result.config.root, plan, facts[plan.path], result.config)
        if not outcome.changed or outcome.fixed is None:
            continue
        before, after = decode(outcome.original), decode(outcome.fixed)
        if isinstance(before, ReadError) or isinstance(after, ReadError):
            continue
        first = min(plan.fixes, key=lambda f: (f.line, f.column))
        # The class too: a declaration in a loop is reported for each class it assigns to.
        found[(plan.path, first.line, first.column, first.code, first.class_name)] = (before, after)
    return found


def render(result: CheckResult, *, statistics: bool = False, color: bool = False, fmt: str = "") -> str:
    code = result.config.lintrunner_code
    root = result.config.root
    replacements = _replacements(result)
    lines = []
    for d in result.diagnostics:
        original, replacement = replacements.get((d.path, d.line, d.column, d.code, d.class_name), (None, None))
        message = {
            # Absolute, as lintrunner passes paths in, so that `lintrunner -a`
            # finds the file whatever its working directory.
            "path": str(root / d.path),
            "line": d.line,
            "char": d.column,
            "code": code,
            "severity": "error" if d.severity == "error" else "warning",
            "name": f"{d.code} {d.name}",
            "original": original,
            "replacement": replacement,
            "description": d.message,
        }
        lines.append(json.dumps(message, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)
