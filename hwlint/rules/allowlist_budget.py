from __future__ import annotations

from collections import Counter
from typing import Sequence

from hwlint.diagnostics import Diagnostic
from hwlint.rules.base import Example, Rule

# The examples count violations of the default rules, as budgets do.
_DEFAULT_SELECT = {"select": ["HWC0", "HWC1", "HWC3"]}


class AllowlistBudget(Rule):
    """
    ## What it does
    Reports an allowlisted file that has more violations than the budget on
    its allowlist line. Violations of every selected rule except HWC000 and
    the allowlist rules count, after `# noqa` and `ignore`.

    ## Why is this bad?
    An allowlisted file is exempt from the rules so that migration can go
    file by file, but it may not get worse: a new unclassified class in an
    old file must be classified like anywhere else.

    ## Example
    ```
    test/test_old.py 2           # the file now has 3 violations
    ```

    ## Use instead
    Fix the new violation (run `hwlint check --no-allowlist test/test_old.py`
    to see them all). Never raise the budget.
    """

    code = "HWC302"
    name = "allowlist-budget"
    summary = "Allowlisted file has more violations than its budget"
    scope = "engine"
    VALID = (
        Example("class TestA(TestCase):\n    def test_a(self): pass\n", settings=_DEFAULT_SELECT, allowlist="test/test_example.py 2\n"),
    )
    INVALID = (
        Example(
            "class TestA(TestCase):\n    def test_a(self): pass\n\nclass TestB(TestCase):\n    def test_b(self): pass\n",
            settings=_DEFAULT_SELECT, allowlist="test/test_example.py 1\n",
            expect=((1, 1),),
            messages=('test/test_example.py has 2 violations, over its budget of 1 (2× HWC001; lines 1, 4)',),
        ),
    )


def over_budget(where: str, line: int, path: str, budget: int, found: Sequence[Diagnostic]) -> Diagnostic:
    """HWC302 for the entry at `line` of the allowlist `where`: `found`, the
    counted violations of its file, are more than its `budget`."""
    codes = Counter(d.code for d in found)
    summary = ", ".join(f"{n}× {c}" for c, n in sorted(codes.items()))
    first = ", ".join(f"{d.line}" for d in sorted(found)[:5])
    message = (f"{path} has {len(found)} violations, over its budget of {budget} "
               f"({summary}; lines {first}{', ...' if len(found) > 5 else ''}): fix the new ones, "
               f"see them with `hwlint check --no-allowlist {path}`")
    return Diagnostic(where, line, 1, AllowlistBudget.code, AllowlistBudget.name, message)
