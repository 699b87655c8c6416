from __future__ import annotations

from hwlint.rules.base import Rule


class AllowlistGrowth(Rule):
    """
    ## What it does
    With `hwlint allowlist check --base REF`, reports an allowlist entry that
    is new compared to the allowlist at the git ref `REF`, or whose budget
    is higher there.

    ## Why is this bad?
    The allowlist exists to go to zero. A new file or a raised budget lets
    unclassified tests back in, which is exactly what the ratchet forbids.

    ## Example
    ```
    test/test_new.py 1           # not in the allowlist on origin/main
    ```

    ## Use instead
    Classify the new test classes instead of allowlisting them.
    """

    code = "HWC303"
    name = "allowlist-growth"
    summary = "The allowlist gained an entry or a budget grew compared to a git ref"
    scope = "engine"
