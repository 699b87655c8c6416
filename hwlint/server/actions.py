"""What the editor offers on a finding: code actions (the safe fix as the
preferred quick fix, each unsafe migration of a class as an action of its
own, `# noqa: CODE`), and the rule's explanation on hover.

The fixes are `hwlint fix`'s own (`apply_fixes` without writing), on the
file as saved: fix plans, trials and libcst rewrites read the run's files
from disk, so a document with unsaved changes gets only the noqa action
until it is saved. Each edit is the difference between the file and the
fixed file, as whole lines, so that the client keeps the rest.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Sequence

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from hwlint.core.diagnostics import UserError
from hwlint.engine.api import run_check
from hwlint.facts.read import ReadError, decode
from hwlint.rules import BY_CODE
from hwlint.rules.parse_error import ParseError
from hwlint.server.workspace import Project

UNSAFE_KIND = "quickfix.hwlint.unsafe"
_NOQA = re.compile(r"#\s*noqa(?P<colon>:\s*(?P<codes>[A-Z]+[0-9]*(?:[\s,]+[A-Z]+[0-9]*)*))?", re.IGNORECASE)


def line_edits(before: str, after: str, codec: PositionCodec) -> list[types.TextEdit]:
    """The edits that turn `before` into `after`, a run of whole lines each."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    edits: list[types.TextEdit] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        edits.append(
            types.TextEdit(types.Range(_line_start(old, i1, codec), _line_start(old, i2, codec)), "".join(new[j1:j2]))
        )
    return edits


def _line_start(lines: Sequence[str], index: int, codec: PositionCodec) -> types.Position:
    """The start of line `index`; past the last line, the document's end."""
    if index < len(lines) or not lines or lines[-1].endswith(("\n", "\r")):
        return types.Position(index, 0)
    last = lines[-1]
    return types.Position(len(lines) - 1, codec.client_num_units(last))


def noqa_action(
    uri: str, lines: Sequence[str], diagnostic: types.Diagnostic, codec: PositionCodec
) -> types.CodeAction | None:
    """`# noqa: CODE` on the finding's line (the code added to a noqa that
    names others); None for a finding a noqa cannot silence."""
    code = diagnostic.code
    if not isinstance(code, str) or code == ParseError.code or diagnostic.range.start.line >= len(lines):
        return None
    number = diagnostic.range.start.line
    raw = lines[number]
    text = raw.rstrip("\r\n")
    found = _NOQA.search(text)
    if found is not None and found.group("codes") is None:
        return None  # a bare noqa already silences every code
    if found is not None:
        codes = found.group("codes")
        if code in re.split(r"[\s,]+", codes.upper()):
            return None
        at = found.end("codes")
        insert, where = f", {code}", types.Position(number, codec.client_num_units(text[:at]))
    else:
        insert, where = f"  # noqa: {code}", types.Position(number, codec.client_num_units(text))
    edit = types.WorkspaceEdit(changes={uri: [types.TextEdit(types.Range(where, where), insert)]})
    return types.CodeAction(
        title=f"hwlint: silence {code} on this line (# noqa: {code})",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=edit,
    )


def saved_text(path: Path) -> str | None:
    """The file as saved, decoded as a run decodes it (None: unreadable)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    text = decode(data)
    return None if isinstance(text, ReadError) else text


def fix_actions(
    project: Project,
    rel: str,
    uri: str,
    text: str,
    classes: Sequence[str],
    diagnostics: Sequence[types.Diagnostic],
    codec: PositionCodec,
) -> list[types.CodeAction]:
    """The safe fix of `classes` (the preferred quick fix), then one action
    per class that `fix --unsafe` migrates. Only on a saved document."""
    from hwlint.fix.apply import apply_fixes

    path = project.root / rel
    if not classes or saved_text(path) != text:
        return []
    config = project.config
    try:
        # As `hwlint fix FILE` does: the allowlist exempts nothing here.
        result = run_check(config, [path], use_allowlist=False, cache=True, jobs=1)
    except UserError:
        return []
    actions: list[types.CodeAction] = []
    safe = apply_fixes(config, result, classes=classes, write=False, jobs=1)
    for fixed in safe.files:
        if fixed.path != rel or fixed.fixed is None or not fixed.changed:
            continue
        declared = ", ".join(f"{f.class_name} as {f.member}" for f in fixed.declared)
        actions.append(
            types.CodeAction(
                title=f"hwlint: classify {declared}" if declared else "hwlint: apply the safe fix",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=list(diagnostics),
                is_preferred=True,
                edit=_edit(uri, text, fixed.fixed, codec),
            )
        )
    safely = {f.class_name for result_file in safe.files for f in result_file.declared}
    unsafe = apply_fixes(config, result, unsafe=True, classes=classes, write=False, jobs=1)
    for name in classes:
        details = [
            d.detail
            for changed in unsafe.files
            if changed.path == rel
            for d in changed.migrated
            if d.class_name == name or d.to_class == name
        ]
        more = [
            f"classify as {f.member}"
            for changed in unsafe.files
            if changed.path == rel
            for f in changed.declared
            if f.class_name == name and name not in safely
        ]
        if not details and not more:
            continue
        one = apply_fixes(config, result, unsafe=True, classes=[name], write=False, jobs=1)
        for changed in one.files:
            if changed.path != rel or changed.fixed is None or not changed.changed:
                continue
            actions.append(
                types.CodeAction(
                    title=f"hwlint (unsafe): {name}: {'; '.join(details + more)}",
                    kind=UNSAFE_KIND,
                    diagnostics=[d for d in diagnostics if _class_of(d) == name],
                    edit=_edit(uri, text, changed.fixed, codec),
                )
            )
    return actions


def _edit(uri: str, text: str, fixed: bytes, codec: PositionCodec) -> types.WorkspaceEdit:
    after = decode(fixed)
    if isinstance(after, ReadError):  # libcst keeps the encoding: it cannot happen
        after = fixed.decode("utf-8", "replace")
    return types.WorkspaceEdit(changes={uri: line_edits(text, after, codec)})


def _class_of(diagnostic: types.Diagnostic) -> str | None:
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    name = data.get("class_name")
    return name if isinstance(name, str) else None


def classes_of(diagnostics: Sequence[types.Diagnostic]) -> list[str]:
    """The classes the findings are about, in order, once each."""
    names: list[str] = []
    for d in diagnostics:
        name = _class_of(d)
        if name is not None and name not in names:
            names.append(name)
    return names


def hover_text(codes: Sequence[str]) -> str | None:
    """The explanation of each rule, as `hwlint rule CODE` prints it."""
    found = [BY_CODE[code].explanation() for code in dict.fromkeys(codes) if code in BY_CODE]
    return "\n---\n\n".join(found) if found else None
