"""PyTorch's JSON allowlist (`test_linter_allowlist.json`): a sorted array
of repo-relative paths, read for `hwlint allowlist import-json` and written
by `export-json`."""

from __future__ import annotations

import json
from pathlib import Path

from hwlint.allowlist.model import Allowlist
from hwlint.core.diagnostics import UserError


def read_json_allowlist(file: Path) -> list[str]:
    """The paths of a `test_linter_allowlist.json`, or a UserError naming the file."""
    try:
        text = file.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise UserError(f"{file}: cannot read ({exc.strerror or exc}): pass an existing JSON allowlist") from None
    except UnicodeDecodeError:
        raise UserError(f"{file}: not UTF-8 text: pass a JSON array of paths") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{file}:{exc.lineno}: not valid JSON ({exc.msg}): pass a JSON array of paths") from None
    if not isinstance(data, list) or not all(isinstance(p, str) for p in data):
        raise UserError(
            f"{file}: expected a JSON array of root-relative paths, like PyTorch's test_linter_allowlist.json"
        )
    return data


def export_json_allowlist(allowlist: Allowlist) -> str:
    """The entries' paths as PyTorch writes its JSON allowlist: a sorted array,
    two-space indent, a final newline."""
    return json.dumps(sorted(allowlist.entries), indent=2) + "\n"
