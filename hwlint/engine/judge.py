"""One file's judgement: which of its findings are reported.

`# noqa` comments are part of the facts (hwlint.engine.check.lint_module applies
them; flake8 applies its own). Here: `per-file-ignores`, and the allowlist's
exemption (an allowlisted file's violations count against its budget
instead of being reported). `hwlint check` (and lintrunner, which runs it)
and the flake8 plugin use this one judgement.
"""

from __future__ import annotations

from typing import Any, Collection

from hwlint.allowlist.model import exempts
from hwlint.core.config import Config
from hwlint.core.diagnostics import Diagnostic
from hwlint.facts.discover import pattern_spec


class Judge:
    """One file's judgement after the rules: what `per-file-ignores` drops
    (its patterns compiled once) and what the allowlist exempts."""

    def __init__(self, config: Config, allowlisted: Collection[str] = ()) -> None:
        self.allowlisted = allowlisted
        self._ignores: list[tuple[Any, tuple[str, ...]]] | None = None
        self._patterns = config.per_file_ignores
        self._source = config.source

    def ignored_codes(self, path: str) -> list[str]:
        """The codes (and prefixes) `per-file-ignores` drops for `path`."""
        if not self._patterns:
            return []
        if self._ignores is None:
            self._ignores = [
                (pattern_spec([pattern], f"{self._source}: [tool.hwlint] per-file-ignores"), codes)
                for pattern, codes in self._patterns.items()
            ]
        return [c for matcher, codes in self._ignores if matcher.match_file(path) for c in codes]

    def without_ignored(self, path: str, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """`diagnostics` of `path` without the codes `per-file-ignores` drops for it."""
        dropped = self.ignored_codes(path)
        if not dropped:
            return diagnostics
        return [d for d in diagnostics if not d.code.startswith(tuple(dropped))]

    def exempt(self, path: str, code: str) -> bool:
        """Whether the allowlist exempts this finding (it counts against the budget)."""
        return exempts(self.allowlisted, path, code)
