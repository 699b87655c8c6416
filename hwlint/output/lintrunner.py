"""lintrunner's LintMessage, one JSON object per line.

lintrunner reads `path`, `line`, `char`, `code`, `severity`, `name`,
`original`, `replacement` and `description`; `code` is the linter's name
in .lintrunner.toml (`lintrunner-code`, default HWLINT) and `name` is the
rule, so messages read `HWLINT (HWC001) ...`.
"""

from __future__ import annotations

import json
from typing import Mapping, Optional

from hwlint.engine.api import CheckResult

# (path, line, column, code, class name) of a message -> (original, replacement)
Replacements = Mapping[tuple[str, int, int, str, Optional[str]], tuple[str, str]]


def render(
    result: CheckResult,
    *,
    statistics: bool = False,
    color: bool = False,
    fmt: str = "",
    replacements: Replacements | None = None,
) -> str:
    """The messages; `replacements` (from hwlint.output.lintrunner_fix.lintrunner_replacements,
    which the command computes) gives the whole-file fixes `lintrunner -a` applies."""
    code = result.config.lintrunner_code
    root = result.config.root
    replacements = replacements or {}
    lines = []
    for d in result.diagnostics:
        original, replacement = replacements.get((d.path, d.line, d.column, d.code, d.class_name), (None, None))
        message = {
            # Absolute, as lintrunner passes paths in, so that `lintrunner -a`
            # finds the file whatever its working directory.
            "path": str(root / d.path),
            "line": d.line,
            "char": d.column,
            "code": code,
            "severity": "error" if d.severity == "error" else "warning",
            "name": f"{d.code} {d.name}",
            "original": original,
            "replacement": replacement,
            "description": d.message,
        }
        lines.append(json.dumps(message, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)
