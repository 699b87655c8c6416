"""The rule registry: every rule, in code order, found in this package.

A rule is a `Rule` subclass in a module of its own here (fixit's model):
adding one is adding its module. Its examples become tests
(tests/test_rule_examples.py), `hwlint rule CODE` prints its explanation,
and the documentation site makes its page, all from the module. The other
modules here (`base`, `infer`, `uncertain`, `torch_api`) are what rules
share.
"""

from __future__ import annotations

import importlib
import os

from hwlint.rules.base import Example, Rule, Violation


def _discover() -> tuple[type[Rule], ...]:
    """Every Rule subclass defined in a module of this package, by code."""
    found: dict[str, type[Rule]] = {}
    for entry in sorted(os.listdir(os.path.dirname(__file__))):
        if not entry.endswith(".py") or entry.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{entry[:-3]}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Rule)
                and value is not Rule
                and value.__module__ == module.__name__
            ):
                if value.code in found:
                    raise RuntimeError(
                        f"{value.code} is defined twice: {found[value.code].__module__}, {module.__name__}"
                    )
                found[value.code] = value
    return tuple(found[code] for code in sorted(found))


ALL_RULES: tuple[type[Rule], ...] = _discover()
BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
FIXABLE: tuple[str, ...] = tuple(rule.code for rule in ALL_RULES if rule.fixable)
# What budgets count (the module rules), and what needs the whole tree and
# the allowlist: the groups come from the rules' `scope`, never from codes.
COUNTED: frozenset[str] = frozenset(rule.code for rule in ALL_RULES if rule.scope == "module")
ALLOWLIST_RULES: frozenset[str] = frozenset(rule.code for rule in ALL_RULES if rule.scope == "allowlist")
# The rules whose findings left unfixed are counted one by one (`counted_by`).
PER_FINDING: frozenset[str] = frozenset(rule.code for rule in ALL_RULES if rule.counted_by == "finding")


def _selects(entry: str, rule: type[Rule]) -> bool:
    """Whether a `select` entry turns a rule on.

    A prefix turns on the default rules it covers; a default-off rule needs
    its own code, `ALL`, or a prefix that covers only default-off rules
    (`HWC2` turns on HWC201), so that the default `select = ["HWC1"]` does
    not switch on HWC112.
    """
    if entry == "ALL":
        return True
    if not rule.code.startswith(entry):
        return False
    if rule.default or entry == rule.code:
        return True
    return not any(other.default for other in ALL_RULES if other.code.startswith(entry))


def is_code(entry: str) -> bool:
    """Whether a `select`/`ignore` entry (a code or a prefix) names a rule."""
    return entry == "ALL" or any(rule.code.startswith(entry) for rule in ALL_RULES)


def enabled_codes(select: tuple[str, ...], ignore: tuple[str, ...]) -> frozenset[str]:
    """The codes on for `select`/`ignore`; the more specific entry wins, as in ruff."""
    codes = set()
    for rule in ALL_RULES:
        chosen = [e for e in select if _selects(e, rule)]
        dropped = [e for e in ignore if e == "ALL" or rule.code.startswith(e)]
        if not chosen:
            continue
        if dropped and max(len(e) if e != "ALL" else 0 for e in dropped) >= max(
            len(e) if e != "ALL" else 0 for e in chosen
        ):
            continue
        codes.add(rule.code)
    return frozenset(codes)


__all__ = [
    "ALLOWLIST_RULES",
    "ALL_RULES",
    "BY_CODE",
    "COUNTED",
    "FIXABLE",
    "Example",
    "Rule",
    "Violation",
    "enabled_codes",
    "is_code",
]
