"""`github`: GitHub Actions workflow commands, one annotation per diagnostic.

    ::error file=test/test_a.py,line=5,col=1,title=HWC001::test class ...

Values are escaped as @actions/core escapes them (`escapeData` for the
message, `escapeProperty` for `file` and `title`), so a message with `%`,
a newline, `:` or `,` arrives intact. Paths are relative to the git
repository (where `actions/checkout` puts it, `$GITHUB_WORKSPACE`), not to
the hwlint project root, which may be a folder of the repository.

GitHub turns only the first 10 commands of each kind (error, warning) of a
step into annotations; past that, the last line is a notice (a kind of its
own, so it is shown) that says how many more there are.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from hwlint.core.config import Config, find_git_root
from hwlint.engine.api import CheckResult

# Annotations of one kind that GitHub shows per step.
ANNOTATIONS_PER_KIND = 10


def escape_data(value: str) -> str:
    """@actions/core `escapeData`: the message after `::`."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """@actions/core `escapeProperty`: a `key=value` before `::`."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def repo_prefix(config: Config) -> str:
    """The project root relative to the git repository's root, as a
    prefix ('' when they are the same, or when there is no git repository):
    CI systems want paths from the repository's root."""
    root = Path(os.path.abspath(config.root))
    git_root = find_git_root(root)
    if git_root is None or git_root == root:
        return ""
    return root.relative_to(git_root).as_posix() + "/"


def command(kind: str, message: str, **properties: object) -> str:
    """One GitHub Actions workflow command (`::error file=...::message`), escaped."""
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None)
    return f"::{kind}{' ' + props if props else ''}::{escape_data(message)}"


def render(result: CheckResult, *, statistics: bool = False, color: bool = False, fmt: str = "") -> str:
    """The diagnostics as workflow commands: annotations on the pull request's files."""
    prefix = repo_prefix(result.config)
    out: list[str] = []
    kinds: Counter[str] = Counter()
    for d in result.diagnostics:
        kind = "error" if d.severity == "error" else "warning"
        kinds[kind] += 1
        out.append(command(kind, d.message, file=prefix + d.path, line=d.line, col=d.column, title=d.code))
    hidden = {kind: n - ANNOTATIONS_PER_KIND for kind, n in sorted(kinds.items()) if n > ANNOTATIONS_PER_KIND}
    if hidden:
        more = " and ".join(f"{n} more {kind}{'s' if n != 1 else ''}" for kind, n in hidden.items())
        out.append(
            command(
                "notice",
                f"hwlint found {len(result.diagnostics)} problems; GitHub annotates only the first "
                f"{ANNOTATIONS_PER_KIND} of each kind per step: {more} are listed in this step's log only",
                title="hwlint",
            )
        )
    return "".join(line + "\n" for line in out)
