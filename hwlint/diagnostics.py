"""The one record every stage after the rules speaks: a diagnostic."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, order=True)
class Diagnostic:
    # Field order is the sort order the spec promises: path, line, column, code.
    path: str
    line: int
    column: int
    code: str
    name: str = field(compare=False)
    message: str = field(compare=False)
    severity: str = field(default="error", compare=False)
    class_name: str | None = field(default=None, compare=False)
    fix: dict[str, Any] | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "class_name": self.class_name,
            "fix": self.fix,
        }


class UserError(Exception):
    """A problem the user must fix (configuration, arguments, allowlist I/O).

    The CLI prints it as one line and exits 2; it never becomes a traceback.
    """
