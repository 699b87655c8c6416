"""HWC303 `allowlist-growth`: The allowlist gained an entry or a budget grew compared to a git ref.

The rule, its examples and its check; `hwlint rule HWC303` prints its
explanation (the class docstring)."""

from __future__ import annotations

from hwlint.core.diagnostics import Diagnostic
from hwlint.rules.base import Example, Rule, snippet

_SOURCE = snippet("""\
    class TestA(TestCase):
        def test_a(self): pass
    """)


class AllowlistGrowth(Rule):
    """
    ## What it does
    With `hwlint allowlist check --base REF`, reports an allowlist entry that
    is new compared to the allowlist at the merge base of HEAD and `REF`
    (default: `origin/main`, else `main`), or whose budget is higher than
    there. Reported at the entry's line; the message names the file. A test
    file that git sees renamed since the base keeps its entry under the new
    name. A list that did not exist at the base is an empty one.

    ## Why is this bad?
    The allowlist exists to go to zero. A new file or a raised budget lets
    unclassified tests back in, which is exactly what the ratchet forbids.

    ## Example
    ```
    test/test_new.py 1           # not in the allowlist on origin/main
    test/test_old.py 3           # 2 on origin/main
    ```

    ## Use instead
    Classify the new test classes instead of allowlisting them (`hwlint check
    --no-allowlist test/test_new.py` shows them), and fix the new violations
    of an allowlisted file instead of raising its budget. `hwlint allowlist
    sync` never grows the list unless told `--allow-growth`.
    """

    code = "HWC303"
    name = "allowlist-growth"
    summary = "The allowlist gained an entry or a budget grew compared to a git ref"
    scope = "allowlist"
    # The examples run in a git repository whose one commit holds
    # `base_allowlist`; `allowlist` is the working tree's list, compared
    # with `--base HEAD`.
    VALID = (
        Example(
            _SOURCE,
            base_allowlist=snippet("""\
                test/test_a.py 2
                test/test_example.py 1
                """),
            allowlist="test/test_example.py 1\n",
        ),
        Example(_SOURCE, base_allowlist="test/test_example.py 2\n", allowlist="test/test_example.py 1\n"),
    )
    INVALID = (
        Example(
            _SOURCE,
            base_allowlist="test/test_example.py 1\n",
            allowlist=snippet("""\
                test/test_example.py 2
                test/test_new.py 1
                """),
            expect=((1, 1), (2, 1)),
            messages=(
                "test/test_example.py budget raised from 1 at HEAD (",
                "test/test_new.py is new in the allowlist (not in it at HEAD (",
            ),
        ),
        Example(
            _SOURCE,
            allowlist=snippet("""\
                # migrate these
                test/test_example.py 1
                """),
            base_allowlist="# migrate these\n",
            expect=((2, 1),),
            messages=("test/test_example.py is new in the allowlist",),
        ),
    )


def new_entry(where: str, line: int, path: str, base: str) -> Diagnostic:
    """HWC303 for the entry at `line` of the allowlist `where`: not in the list at `base` (a label)."""
    message = (
        f"{path} is new in the allowlist (not in it at {base}): classify its test classes "
        f"instead (`hwlint check --no-allowlist {path}` shows them)"
    )
    return Diagnostic(where, line, 1, AllowlistGrowth.code, AllowlistGrowth.name, message)


def raised(where: str, line: int, path: str, budget: int, base: str, base_budget: int, base_path: str) -> Diagnostic:
    """HWC303 for an entry whose budget is higher than `base_budget`, its
    budget at `base` (where the file was `base_path`, before a rename)."""
    was = f" (as {base_path})" if base_path != path else ""
    message = (
        f"{path} budget raised from {base_budget}{was} at {base} to "
        f"{budget}: fix the new violations instead, and keep the budget"
    )
    return Diagnostic(where, line, 1, AllowlistGrowth.code, AllowlistGrowth.name, message)
