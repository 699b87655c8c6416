from __future__ import annotations

from hwlint.rules.base import Rule


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
    scope = "engine"
