"""`json`: one array of diagnostics; `jsonl`: the same objects, one per line."""

from __future__ import annotations

import json

from hwlint.engine.api import CheckResult


def render(result: CheckResult, *, statistics: bool = False, color: bool = False, fmt: str = "json") -> str:
    """The diagnostics as one JSON array, or (`fmt` "jsonl") one object a line."""
    items = [d.to_dict() for d in result.diagnostics]
    if fmt == "jsonl":
        return "".join(json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n" for item in items)
    return json.dumps(items, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
