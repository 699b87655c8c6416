"""The libcst edits `fix` and its migrations share: a declaration put in a
class after its docstring, a name imported (merged into an existing `from
... import` when there is one). Each keeps every other byte, and
`only_inserted` checks that the written file did."""

from __future__ import annotations

import re
from typing import Sequence

import libcst as cst


def is_docstring(stmt: cst.BaseStatement) -> bool:
    """A statement that is a string alone (the first one of a body: its docstring)."""
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def declaration_statement(attribute: str, enum: str, member: str) -> cst.SimpleStatementLine:
    """`attribute = enum.member`, the statement a class is declared by."""
    return cst.SimpleStatementLine(
        [cst.Assign([cst.AssignTarget(cst.Name(attribute))], cst.Attribute(cst.Name(enum), cst.Name(member)))]
    )


def _leading_blanks(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    blanks = []
    for line in lines:
        if line.comment is not None:
            break
        blanks.append(line)
    return blanks


def declare(cls: cst.ClassDef, statement: cst.SimpleStatementLine) -> cst.ClassDef:
    """`cls` with `statement` after its docstring, before anything else."""
    body = cls.body
    if isinstance(body, cst.SimpleStatementSuite):
        # `class A(Base): pass` becomes an indented block: the one-line form
        # cannot hold a second statement readably.
        rest = cst.SimpleStatementLine(body=list(body.body), trailing_whitespace=body.trailing_whitespace)
        return cls.with_changes(body=cst.IndentedBlock(body=[statement, rest]))
    assert isinstance(body, cst.IndentedBlock)
    stmts: list[cst.BaseStatement] = list(body.body)
    index = 1 if stmts and is_docstring(stmts[0]) else 0
    if index < len(stmts):
        following = stmts[index]
        leading = list(getattr(following, "leading_lines", ()))
        if index == 1:
            # Mirror the blank lines the author left after the docstring.
            statement = statement.with_changes(leading_lines=_leading_blanks(leading))
        if not _leading_blanks(leading) and isinstance(following, (cst.FunctionDef, cst.ClassDef)):
            following = following.with_changes(leading_lines=[cst.EmptyLine(indent=False), *leading])
        stmts[index] = following
    stmts.insert(index, statement)
    return cls.with_changes(body=body.with_changes(body=stmts))


def dotted(node: cst.BaseExpression | None) -> str:
    """`a.b.c` for that chain of attributes on a name; "" for any other expression."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr.value}" if head else ""
    return ""


def _imports(stmt: cst.BaseStatement) -> list[cst.Import | cst.ImportFrom]:
    if isinstance(stmt, cst.SimpleStatementLine):
        return [s for s in stmt.body if isinstance(s, (cst.Import, cst.ImportFrom))]
    return []


def _append_alias(node: cst.ImportFrom, name: str) -> cst.ImportFrom:
    assert not isinstance(node.names, cst.ImportStar)
    names = list(node.names)
    last = names[-1]
    space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if node.lpar is not None and isinstance(last.comma, cst.Comma):
        # Parenthesized with a trailing comma: one name per line; the new
        # name takes the old last one's comma (which leads to the `)`).
        between = names[-2].comma if len(names) > 1 else cst.Comma(whitespace_after=node.lpar.whitespace_after)
        names[-1] = last.with_changes(comma=between)
        names.append(cst.ImportAlias(cst.Name(name), comma=last.comma))
    else:
        between = names[-2].comma if len(names) > 1 and node.lpar is not None else space
        names[-1] = last.with_changes(comma=between)
        names.append(cst.ImportAlias(cst.Name(name)))
    return node.with_changes(names=names)


def ensure_import(module: cst.Module, import_from: str, enum: str) -> tuple[cst.Module, str]:
    """The module with `from import_from import enum` (merged into an existing
    import of that module when there is one), and the name to use."""
    body = list(module.body)
    target: tuple[int, int] | None = None
    last_import = -1
    for index, stmt in enumerate(body):
        imports = _imports(stmt)
        if imports:
            last_import = index
        for position, imp in enumerate(imports):
            if not isinstance(imp, cst.ImportFrom) or imp.relative:
                continue
            if isinstance(imp.names, cst.ImportStar):
                if dotted(imp.module) == import_from:
                    return module, enum
                continue
            for alias in imp.names:
                if dotted(alias.name) == enum:
                    local = alias.asname.name if alias.asname is not None else alias.name
                    return module, dotted(local)
            if dotted(imp.module) == import_from and target is None:
                target = (index, position)
    if target is not None:
        index, position = target
        line = body[index]
        assert isinstance(line, cst.SimpleStatementLine)
        parts = list(line.body)
        statement = parts[position]
        assert isinstance(statement, cst.ImportFrom)  # found as one above
        parts[position] = _append_alias(statement, enum)
        body[index] = line.with_changes(body=parts)
        return module.with_changes(body=body), enum
    # Only the newline matters for one unindented line; module.config_for_parsing
    # would also pass the module's indent, which libcst refuses when the
    # file indents with a form feed (ValueError: invalid default_indent).
    new = cst.parse_statement(
        f"from {import_from} import {enum}{module.default_newline}",
        config=cst.PartialParserConfig(default_newline=module.default_newline),
    )
    if last_import >= 0:
        insert_at = last_import + 1
    else:
        insert_at = 1 if body and is_docstring(body[0]) else 0
    body.insert(insert_at, new)
    return module.with_changes(body=body), enum


def only_inserted(
    original: bytes, fixed: bytes, *, attribute: str, enum: str, import_from: str, declarations: int
) -> bool:
    """Whether `fixed` is `original` with nothing but what `declare` and
    `ensure_import` add: at most `declarations` lines `attribute =
    enum.MEMBER`, one `from import_from import enum` (or `enum` merged into
    an existing import), and blank lines beside a declaration.

    It replaces libcst's round trip of the original (a second code
    generation, a seventh of a fix's time) where it can: every line of the
    original must be in `fixed`, in order and byte for byte, so nothing
    libcst failed to reproduce (a form feed, a bare `\\r`) can pass. False
    means "not shown", never "wrong": the caller then checks the round trip
    (a string declaration replaced, `class A: pass` opened up)."""
    old = original.splitlines(keepends=True)
    new = fixed.splitlines(keepends=True)
    name = re.escape(enum.encode())
    declaration = re.compile(rb"[ \t]*" + re.escape(attribute.encode()) + rb" = " + name + rb"\.\w+\r?\n?\Z")
    whole_import = re.compile(
        rb"(from " + re.escape(import_from.encode()) + rb" import " + name + rb"|[ \t]*" + name + rb",)\r?\n?\Z"
    )
    merged = re.compile(rb",[ \t]*(?:\r?\n[ \t]*)?" + name + rb"(?![\w.])")
    imports = 0
    i = j = 0
    beside = False  # only blank lines (kept or added) since a declaration or import was added
    pending = False  # a blank line was added with no declaration beside it yet
    while j < len(new):
        line = new[j]
        blank = not line.strip()
        if i < len(old) and line == old[i]:
            if not blank:
                if pending:
                    return False
                beside = False
            i += 1
            j += 1
            continue
        if declaration.match(line) and declarations > 0:
            declarations -= 1
            beside, pending = True, False
        elif blank:
            pending = pending or not beside
        elif whole_import.match(line) and imports == 0:
            imports += 1
            beside, pending = True, False
        elif i < len(old) and imports == 0 and not pending and (taken := _merged(old[i], new, j, merged)):
            imports += 1
            beside = False
            i += 1
            j += taken
            continue
        else:
            return False
        j += 1
    return i == len(old) and not pending


def _merged(old: bytes, new: list[bytes], j: int, merged: re.Pattern[bytes]) -> int:
    """How many lines from `new[j]` are the import line `old` with `, enum`
    added: 1, 2 (`(a,\\n    b)` gains `,\\n    enum`), or 0 when they are not."""
    for taken in (1, 2):
        if j + taken <= len(new) and merged.sub(b"", b"".join(new[j : j + taken]), count=1) == old:
            return taken
    return 0
