"""HWC301 `allowlist-stale`: Allowlisted file is clean now, or gone.

The rule, its examples and its check; `hwlint rule HWC301` prints its
explanation (the class docstring)."""

from __future__ import annotations

from hwlint.core.diagnostics import Diagnostic
from hwlint.rules.base import Example, Rule, snippet

# The examples count violations of the default rules, as budgets do.
_DEFAULT_SELECT = {"select": ["HWC0", "HWC1", "HWC3"]}


class AllowlistStale(Rule):
    """
    ## What it does
    Reports an allowlist entry whose file is now clean, no longer exists, or
    is no longer a linted test file. Reported at the entry's line in the
    allowlist; the message names the test file.

    ## Why is this bad?
    The allowlist must only shrink. A clean file that stays listed could
    regress unnoticed, and a stale entry hides real progress in the report.

    ## Example
    ```
    test/test_migrated.py 2      # the file has no violations any more
    ```

    ## Use instead
    Delete the line, or run `hwlint allowlist prune` (`hwlint check --fix`
    prunes too, after checking).

    ## Fix safety
    `hwlint allowlist prune` removes it; the removal is always safe.
    """

    code = "HWC301"
    name = "allowlist-stale"
    summary = "Allowlisted file is clean now, or gone"
    scope = "allowlist"
    VALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    def test_a(self): pass
                """),
            settings=_DEFAULT_SELECT,
            allowlist="test/test_example.py 1\n",
        ),
    )
    INVALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    def test_a(self): pass
                """),
            settings=_DEFAULT_SELECT,
            allowlist=snippet("""\
                # header
                test/test_example.py 1
                """),
            expect=((2, 1),),
            messages=("test/test_example.py is clean now",),
        ),
        Example(
            "x = 1\n",
            settings=_DEFAULT_SELECT,
            allowlist=snippet("""\
                test/test_example.py 1
                test/test_gone.py 1
                """),
            expect=((1, 1), (2, 1)),
            messages=("test/test_example.py is clean now", "test/test_gone.py no longer exists"),
        ),
    )


def clean(where: str, line: int, path: str) -> Diagnostic:
    """HWC301 for the entry at `line` of the allowlist `where`: its file has no violations."""
    return _diagnostic(where, line, f"{path} is clean now")


def gone(where: str, line: int, path: str, *, exists: bool) -> Diagnostic:
    """HWC301 for an entry whose file is not linted: not a test file when it `exists`, else deleted."""
    reason = "is not a test file hwlint lints (see include/exclude)" if exists else "no longer exists"
    return _diagnostic(where, line, f"{path} {reason}")


def _diagnostic(where: str, line: int, what: str) -> Diagnostic:
    message = f"{what}: remove it from the allowlist (`hwlint allowlist prune`)"
    return Diagnostic(where, line, 1, AllowlistStale.code, AllowlistStale.name, message)
