"""HWC302 `allowlist-budget`: Allowlisted file has more violations than its budget.

The rule, its examples and its check; `hwlint rule HWC302` prints its
explanation (the class docstring)."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from hwlint.core.diagnostics import Diagnostic
from hwlint.rules.base import Example, Rule, snippet

# The examples count violations of the default rules, as budgets do.
_DEFAULT_SELECT = {"select": ["HWC0", "HWC1", "HWC3"]}


class AllowlistBudget(Rule):
    """
    ## What it does
    Reports the violations of an allowlisted file beyond the budget on its
    allowlist line, each where it is, in the test file, with its fix.
    Violations of every selected rule except HWC000 and the allowlist rules
    count, after `# noqa` and `ignore`.

    Which ones are beyond the budget: the violations that were not in the
    file when its budget was set (the commit that last changed the
    allowlist line, `git blame`; matched by rule, class and method), the
    last ones in the file first. Without that history (no git, the line not
    committed yet, a shallow clone) or when fewer are new than the excess,
    the last ones in the file are reported. Exactly as many as the file is
    over its budget are reported: fixing them makes the check pass.

    ## Why is this bad?
    An allowlisted file is exempt from the rules so that migration can go
    file by file, but it may not get worse: a new unclassified class in an
    old file must be classified like anywhere else.

    ## Example
    ```
    test/test_old.py 1           # allowlist.txt: TestA was unclassified when it was listed
    ```
    ```python
    class TestA(TestCase):       # counted against the budget
        def test_a(self): ...

    class TestB(TestCase):       # HWC302: new, over the budget
        def test_b(self): ...
    ```

    ## Use instead
    Fix the violation reported (`hwlint fix FILE`, `hwlint check --fix` and
    `lintrunner -a` apply its fix when it has a safe one). Never raise the
    budget. `hwlint check --no-allowlist FILE` shows all of the file's
    violations.
    """

    code = "HWC302"
    name = "allowlist-budget"
    summary = "Allowlisted file has more violations than its budget"
    scope = "allowlist"
    VALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    def test_a(self): pass
                """),
            settings=_DEFAULT_SELECT,
            allowlist="test/test_example.py 2\n",
        ),
    )
    INVALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    def test_a(self): pass

                class TestB(TestCase):
                    def test_b(self): pass
                """),
            settings=_DEFAULT_SELECT,
            allowlist="test/test_example.py 1\n",
            expect=((4, 1),),
            messages=(
                "; over the budget of test/test_example.py at allowlist.txt:1 (1 allowed, 2 found; "
                "the last in the file: no history of when the budget was set)",
            ),
        ),
    )


def _key(d: Diagnostic) -> tuple[str, str | None, str | None]:
    return (d.code, d.class_name, d.method)


def beyond_budget(
    where: str, line: int, path: str, budget: int, found: Sequence[Diagnostic], earlier: Sequence[Diagnostic] | None
) -> list[Diagnostic]:
    """HWC302 for the violations of `path` beyond its `budget` (the entry at
    `line` of the allowlist `where`), each at its own place and with its
    fix. `found`: the file's counted violations; `earlier`: those it had
    when the budget was set (None: unknown). See the rule's explanation for
    which ones are picked."""
    excess = len(found) - budget
    left = Counter(_key(d) for d in earlier or ())
    new: list[Diagnostic] = []
    old: list[Diagnostic] = []
    for d in sorted(found):
        if left[_key(d)] > 0:
            left[_key(d)] -= 1
            old.append(d)
        else:
            new.append(d)
    if earlier is None:
        why = "the last in the file: no history of when the budget was set"
    else:
        why = "new since the budget was set"
    picked = [(d, why) for d in new[-excess:]]
    if len(picked) < excess:
        picked += [(d, "the last in the file beyond the budget") for d in old[len(old) - (excess - len(picked)) :]]
    out = []
    for d, reason in sorted(picked, key=lambda item: item[0]):
        message = (
            f"{d.code} {d.message}; over the budget of {path} at {where}:{line} ({budget} allowed, "
            f"{len(found)} found; {reason})"
        )
        out.append(
            Diagnostic(
                d.path,
                d.line,
                d.column,
                AllowlistBudget.code,
                AllowlistBudget.name,
                message,
                d.severity,
                d.class_name,
                d.fix,
                d.method,
            )
        )
    return out
