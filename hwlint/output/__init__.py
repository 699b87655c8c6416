"""Output formats, of both kinds: `hwlint check`'s (a CheckResult's
diagnostics) and `hwlint report`'s (a report.blocks.Layout). Each module
renders one format to text; they are imported only when asked for, so the
check path pays for one. This registry is the one list of them: `--format`
takes its choices from it (hwlint.cli.options). `hwlint select`'s formats,
a third kind with choices of its own, are in selection.py."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:  # a Protocol class costs a measurable part of a one-file run to create
    from typing import Callable, Literal, Protocol

    from hwlint.engine.check import CheckResult
    from hwlint.report.blocks import Layout

    class Renderer(Protocol):
        def __call__(
            self, result: CheckResult, *, statistics: bool = False, color: bool = False, fmt: str = ""
        ) -> str: ...

    ReportRenderer = Callable[[Layout], str]

# Each kind's formats, in the order `--help` lists them, and the module that
# renders each (json and jsonl share one).
_MODULES = {
    "check": {
        "text": "text",
        "json": "json_",
        "jsonl": "json_",
        "lintrunner": "lintrunner",
        "github": "github",
        "sarif": "sarif",
        "junit": "junit",
    },
    "report": {"text": "report_text", "markdown": "report_markdown", "json": "report_json", "html": "report_html"},
}
CHECK_FORMATS = tuple(_MODULES["check"])
REPORT_FORMATS = tuple(_MODULES["report"])
NAMES = CHECK_FORMATS  # the name callers knew before there were two kinds


@overload
def renderer(name: str, kind: Literal["check"] = "check") -> Renderer: ...
@overload
def renderer(name: str, kind: Literal["report"]) -> ReportRenderer: ...
def renderer(name: str, kind: str = "check") -> Renderer | ReportRenderer:
    """The `render` function of format `name` of `kind` ("check": of a
    CheckResult; "report": of a report's Layout)."""
    module = importlib.import_module(f"hwlint.output.{_MODULES[kind][name]}")
    render: Renderer | ReportRenderer = module.render
    return render
