"""HWC305 `phase-overdue`: Allowlisted file under a migration phase whose due date has passed.

The rule, its examples and its check; `hwlint rule HWC305` prints its
explanation (the class docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hwlint.core.diagnostics import Diagnostic
from hwlint.rules.base import Example, Rule, snippet

if TYPE_CHECKING:
    from hwlint.core.config import Phase

_UNCLASSIFIED = snippet("""\
    class TestA(TestCase):
        def test_a(self): pass
    """)


def _settings(due: str, paths: str = '"test/**"') -> dict[str, str]:
    """The example's configuration as a user writes it: hwlint.toml, which
    takes precedence over the pyproject.toml beside it. (As TOML, not as
    `Example.settings`: a date value would make every run import datetime.)"""
    return {
        "hwlint.toml": (
            f'select = ["HWC305"]\n\n[[phases]]\nname = "core"\npaths = [{paths}]\n'
            f'due = {due}\nowners = ["@core-team"]\n'
        )
    }


class PhaseOverdue(Rule):
    """
    ## What it does
    Reports an allowlisted file that belongs to a migration phase whose `due`
    date has passed (`[[tool.hwlint.phases]]`). Reported at the entry's line
    in the allowlist, like the other allowlist rules; the message names the
    test file, the phase, its due date and its owners.

    A file belongs to the first phase, in configuration order, whose `paths`
    match it. A phase is due the day after its `due` date: on the date itself
    the files are still on time. "Today" is the UTC date, or `--today
    YYYY-MM-DD`, or the environment variable `HWLINT_TODAY` (for pre-commit
    and lintrunner), so that CI and tests can pin it. On a partial run
    (pre-commit) only the entries of the files checked are judged. An entry
    whose file is clean or gone is reported by HWC301 as well: removing the
    line settles both.

    ## Why is this bad?
    A phase is a date agreed with the area's maintainers. Without enforcement
    the date passes and nothing happens; with it, the files left are new
    findings, and moving the date is a reviewed change to the configuration,
    visible in the diff.

    ## Example
    ```toml
    [[tool.hwlint.phases]]
    name = "inductor"
    paths = ["test/inductor/**"]
    due = 2027-03-31
    owners = ["@pytorch/inductor"]
    ```
    ```
    test/inductor/test_torchinductor.py 3     # still listed on 2027-04-01
    ```

    ## Use instead
    Migrate the file (`hwlint fix --phase inductor`, then `hwlint allowlist
    prune`), or agree a new date with the owners and change `due`.

    ## Options
    `[[tool.hwlint.phases]]`: `name`, `paths`, `due`, `owners`, `start`.
    """

    code = "HWC305"
    name = "phase-overdue"
    summary = "Allowlisted file under a migration phase whose due date has passed"
    scope = "allowlist"
    VALID = (
        Example(_UNCLASSIFIED, files=_settings("2999-12-31"), allowlist="test/test_example.py 1\n"),
        # Outside every phase's paths: no deadline.
        Example(_UNCLASSIFIED, files=_settings("2000-01-01", '"test/nn/**"'), allowlist="test/test_example.py 1\n"),
    )
    INVALID = (
        Example(
            _UNCLASSIFIED,
            files=_settings("2000-01-01"),
            allowlist=snippet("""\
                # header
                test/test_example.py 1
                """),
            expect=((2, 1),),
            messages=(
                "test/test_example.py is still allowlisted, but phase 'core' was due 2000-01-01 (owners: @core-team)",
            ),
        ),
    )


def overdue(where: str, line: int, path: str, phase: Phase, settings: str) -> Diagnostic:
    """HWC305 for the entry at `line` of the allowlist `where`: `path` is in
    `phase`, which is past due; `settings` names the configuration file."""
    owners = f" (owners: {', '.join(phase.owners)})" if phase.owners else ""
    message = (
        f"{path} is still allowlisted, but phase {phase.name!r} was due {phase.due.isoformat()}{owners}: "
        f"migrate it (`hwlint fix --phase {phase.name}`), or agree a new `due` in {settings}"
    )
    return Diagnostic(where, line, 1, PhaseOverdue.code, PhaseOverdue.name, message)
