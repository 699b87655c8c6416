from __future__ import annotations

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
        ),
    )
