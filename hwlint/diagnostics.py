"""The one record every stage after the rules speaks: a diagnostic."""

from __future__ import annotations

from typing import Any


class Diagnostic:
    """One finding. Equal and ordered by (path, line, column, code), the sort
    order the spec promises; the other fields do not take part. Treat it as
    immutable. (A plain class: a dataclass costs ~0.5 ms to define, and a
    one-file check is a few tens of milliseconds of imports.)"""

    __slots__ = ("path", "line", "column", "code", "name", "message", "severity", "class_name", "fix")

    def __init__(
        self,
        path: str,
        line: int,
        column: int,
        code: str,
        name: str,
        message: str,
        severity: str = "error",
        class_name: str | None = None,
        fix: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.code = code
        self.name = name
        self.message = message
        self.severity = severity
        self.class_name = class_name
        self.fix = fix

    def _key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.code)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, Diagnostic) else NotImplemented

    def __lt__(self, other: "Diagnostic") -> bool:
        return self._key() < other._key()

    def __le__(self, other: "Diagnostic") -> bool:
        return self._key() <= other._key()

    def __gt__(self, other: "Diagnostic") -> bool:
        return self._key() > other._key()

    def __ge__(self, other: "Diagnostic") -> bool:
        return self._key() >= other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"Diagnostic({fields})"

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
