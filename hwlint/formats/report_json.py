"""`hwlint report --format json`: the report's dict as it is, keys in the
spec's order (dashboards read them; the README lists them)."""

from __future__ import annotations

import json
from typing import Any


def render(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"
