"""rules: the enabled rules over one module's resolved context, noqa applied.

A stage of its own so that the check pipeline (hwlint.engine.check) and the
workers that judge a module where they parsed it (hwlint.engine.alone) run
the same rules the same way.
"""

from __future__ import annotations

from hwlint.core.diagnostics import Diagnostic
from hwlint.facts.resolve import ModuleContext
from hwlint.rules import ALL_RULES, Rule, Violation, parse_error
from hwlint.rules.parse_error import ParseError


def _diagnostic(rule: type[Rule], path: str, v: Violation) -> Diagnostic:
    return Diagnostic(path, v.line, v.column, rule.code, rule.name, v.message, "error", v.class_name, v.fix, v.method)


def lint_module(ctx: ModuleContext, enabled: frozenset[str]) -> list[Diagnostic]:
    """Run the enabled rules on one module; noqa applied."""
    facts = ctx.facts
    if facts.skip_file:
        return []
    found: list[Diagnostic] = []
    if facts.error is not None:
        if ParseError.code in enabled:
            found.append(parse_error.diagnostic(facts.path, facts.error))
        return found
    for rule in ALL_RULES:
        if rule.code not in enabled or rule.scope == "allowlist":
            continue
        for v in rule().check(ctx):
            if not facts.suppressed(v.line, rule.code):
                found.append(_diagnostic(rule, facts.path, v))
    return found
