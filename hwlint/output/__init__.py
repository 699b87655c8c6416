"""Output formats. Each module renders a list of diagnostics to text; they
are imported only when asked for, so the check path pays for one."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a Protocol class costs a measurable part of a one-file run to create
    from typing import Protocol

    from hwlint.engine.check import CheckResult

    class Renderer(Protocol):
        def __call__(self, result: CheckResult, *, statistics: bool = False, color: bool = False,
                     fmt: str = "") -> str: ...

NAMES = ("text", "json", "jsonl", "lintrunner", "github", "sarif", "junit")
_MODULES = {"text": "text", "json": "json_", "jsonl": "json_", "lintrunner": "lintrunner",
            "github": "github", "sarif": "sarif", "junit": "junit"}


def renderer(name: str) -> Renderer:
    module = importlib.import_module(f"hwlint.output.{_MODULES[name]}")
    return module.render  # type: ignore[no-any-return]
