"""lintrunner's LintMessage, one JSON object per line.

lintrunner reads `path`, `line`, `char`, `code`, `severity`, `name`,
`original`, `replacement` and `description`; `code` is the linter's name
in .lintrunner.toml (`lintrunner-code`, default HWLINT) and `name` is the
rule, so messages read `HWLINT (HWC001) ...`.
"""

from __future__ import annotations

import json

from hwlint.check import CheckResult


def render(result: CheckResult, *, statistics: bool = False, color: bool = False, fmt: str = "") -> str:
    code = result.config.lintrunner_code
    root = result.config.root
    lines = []
    for d in result.diagnostics:
        message = {
            # Absolute, as lintrunner passes paths in, so that `lintrunner -a`
            # finds the file whatever its working directory.
            "path": str(root / d.path),
            "line": d.line,
            "char": d.column,
            "code": code,
            "severity": "error" if d.severity == "error" else "warning",
            "name": f"{d.code} {d.name}",
            "original": None,
            "replacement": None,
            "description": d.message,
        }
        lines.append(json.dumps(message, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)
