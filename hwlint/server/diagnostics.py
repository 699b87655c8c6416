"""hwlint's findings as LSP diagnostics.

hwlint reports a 1-based line and a 1-based column counted in characters
(code points); LSP wants 0-based lines and columns in the code units the
client negotiated (UTF-16 unless it said otherwise), so each position goes
through pygls' position codec. hwlint gives no end: the range covers the
name (or dotted name) at the position, else one character, so that an
editor underlines what the finding is about.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from hwlint.core.diagnostics import Diagnostic

SOURCE = "hwlint"
_NAME = re.compile(r"[\w.]+")
_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}


def diagnostic_range(d: Diagnostic, lines: Sequence[str], codec: PositionCodec) -> types.Range:
    """Where `d` is in a document of `lines`, in the client's units."""
    if not lines:
        return types.Range(types.Position(0, 0), types.Position(0, 0))
    line = min(max(d.line - 1, 0), len(lines) - 1)
    text = lines[line].rstrip("\r\n")
    start = min(max(d.column - 1, 0), len(text))
    match = _NAME.match(text, start)
    end = match.end() if match is not None else min(start + 1, len(text))
    return types.Range(
        codec.position_to_client_units(lines, types.Position(line, start)),
        codec.position_to_client_units(lines, types.Position(line, end)),
    )


def to_lsp(d: Diagnostic, lines: Sequence[str], codec: PositionCodec) -> types.Diagnostic:
    """`d` for the client: code, message and severity as `hwlint check` has them."""
    data: dict[str, Any] = {"name": d.name, "line": d.line, "column": d.column}
    if d.class_name is not None:
        data["class_name"] = d.class_name
    return types.Diagnostic(
        range=diagnostic_range(d, lines, codec),
        message=d.message,
        severity=_SEVERITY.get(d.severity, types.DiagnosticSeverity.Error),
        code=d.code,
        source=SOURCE,
        data=data,
    )


def hwlint_position(diagnostic: types.Diagnostic) -> tuple[int, int]:
    """The 1-based (line, column) hwlint reported for a diagnostic the server
    sent (kept in its data), else its start as the client has it."""
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    line, column = data.get("line"), data.get("column")
    if isinstance(line, int) and isinstance(column, int):
        return line, column
    return diagnostic.range.start.line + 1, diagnostic.range.start.character + 1
