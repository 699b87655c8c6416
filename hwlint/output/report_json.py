"""`hwlint report --format json`: the report's figures as they are, keys in
the spec's order (dashboards read them; the README lists them)."""

from __future__ import annotations

import json

from hwlint.report.blocks import Layout


def render(report: Layout) -> str:
    return json.dumps(report.figures, indent=2, ensure_ascii=False) + "\n"
