"""HWC304 `allowlist-syntax`: Malformed, duplicate, unsorted, absolute or conflicted allowlist line.

The rule, its examples and its check; `hwlint rule HWC304` prints its
explanation (the class docstring)."""

from __future__ import annotations

from hwlint.core.diagnostics import Diagnostic
from hwlint.rules.base import Example, Rule, snippet

# The examples count violations of the default rules, as budgets do.
_DEFAULT_SELECT = {"select": ["HWC0", "HWC1", "HWC3"]}


class AllowlistSyntax(Rule):
    """
    ## What it does
    Reports a malformed allowlist line: not `<path> <budget>`, a duplicate,
    an entry out of sorted order, an absolute path or one with `..` or `\\`,
    or a merge-conflict marker.

    ## Why is this bad?
    The allowlist is read by tools and merged by git. A sorted list of
    one-line, root-relative entries merges cleanly; anything else breaks
    the ratchet or hides an entry.

    ## Example
    ```
    test/test_b.py 1
    test/test_a.py 1             # out of order
    /abs/test/test_c.py          # absolute, and no budget
    ```

    ## Use instead
    One root-relative `/` path and its budget per line, sorted. `hwlint
    allowlist sync` rewrites a broken list from the tree (never growing it).
    """

    code = "HWC304"
    name = "allowlist-syntax"
    summary = "Malformed, duplicate, unsorted, absolute or conflicted allowlist line"
    scope = "allowlist"
    VALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    def test_a(self): pass
                """),
            settings=_DEFAULT_SELECT,
            allowlist=snippet("""\
                # comment

                test/test_example.py 1
                """),
        ),
    )
    INVALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    def test_a(self): pass
                """),
            settings=_DEFAULT_SELECT,
            allowlist=snippet("""\
                test/test_z.py 1
                test/test_example.py 1
                /abs/test_x.py 1
                test/test_y.py
                <<<<<<< HEAD
                """),
            expect=((2, 1), (3, 1), (4, 1), (5, 1)),
            messages=(
                "is out of order (after test/test_z.py)",
                "use a path relative to the project root",
                "malformed entry 'test/test_y.py'",
                "merge-conflict marker",
            ),
        ),
    )


def diagnostic(where: str, line: int, message: str) -> Diagnostic:
    """HWC304 at `line` of the allowlist `where`, with one of the messages below."""
    return Diagnostic(where, line, 1, AllowlistSyntax.code, AllowlistSyntax.name, message)


def conflict_message() -> str:
    return "merge-conflict marker: resolve the conflict, or run `hwlint allowlist sync`"


def malformed_message(text: str) -> str:
    shown = text if len(text) <= 100 else text[:97] + "..."  # one line, whatever was pasted there
    return f"malformed entry {shown!r}: expected `<path> <violations allowed>`"


def absolute_message(path: str) -> str:
    return f"{path}: use a path relative to the project root with / separators"


def outside_message(path: str) -> str:
    return f"{path}: use a normalized path inside the project root"


def duplicate_message(path: str, first_line: int) -> str:
    return f"{path} is listed twice (first at line {first_line}): remove this line"


def unsorted_message(path: str, previous: str) -> str:
    return f"{path} is out of order (after {previous}): keep the list sorted"
