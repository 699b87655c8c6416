"""Imports a migration leaves unused (flake8's F401 would report them):
the decorators it replaced, the flags and modules its guards no longer
name. Each is dropped only when nothing else in the module names it, and
never with a comment."""

from __future__ import annotations

import re
from typing import Sequence

import libcst as cst

from hwlint.fix.edits import dotted


def drop_unused_import(module: cst.Module, name: str) -> cst.Module:
    """`module` without `name` in its `from ... import` lists when nothing
    else names it any more (the moves dropped its last uses). An import of
    it alone, or under another name, stays."""
    if len(re.findall(rf"\b{re.escape(name)}\b", module.code)) != 1:
        return module

    class Drop(cst.CSTTransformer):
        def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> cst.ImportFrom:
            if isinstance(updated_node.names, cst.ImportStar) or len(updated_node.names) < 2:
                return updated_node
            names = list(updated_node.names)
            for at, alias in enumerate(names):
                if alias.asname is None and dotted(alias.name) == name:
                    names.pop(at)
                    if at == len(names):  # it was last: the one now last keeps its comma (or none)
                        names[-1] = names[-1].with_changes(comma=alias.comma)
                    return updated_node.with_changes(names=names)
            return updated_node

    return module.visit(Drop())


def drop_unused_name(module: cst.Module, name: str) -> cst.Module:
    """`module` without its import of `name` when nothing else names it:
    out of a `from ... import` list (`drop_unused_import`), or the
    statement that imports it alone (`import unittest`, `from x import
    name`) when no comment is on or above that statement."""
    module = drop_unused_import(module, name)
    if len(re.findall(rf"\b{re.escape(name)}\b", module.code)) != 1:
        return module
    body = list(module.body)
    at = next((i for i, stmt in enumerate(body) if _imports_alone(stmt, name)), None)
    if at is None:
        return module
    gone = body.pop(at)
    if at == 0 and body:
        # The module's first statement now: it starts where the one dropped did.
        first = body[0]
        kept = [line for line in getattr(first, "leading_lines", ()) if line.comment is not None]
        body[0] = first.with_changes(leading_lines=[*getattr(gone, "leading_lines", ()), *kept])
    return module.with_changes(body=body)


def _imports_alone(stmt: cst.BaseStatement, name: str) -> bool:
    """Whether `stmt` is `import name` or `from x import name`, uncommented."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    if stmt.trailing_whitespace.comment is not None or any(line.comment is not None for line in stmt.leading_lines):
        return False
    small = stmt.body[0]
    if not isinstance(small, (cst.Import, cst.ImportFrom)) or isinstance(small.names, cst.ImportStar):
        return False
    return len(small.names) == 1 and small.names[0].asname is None and dotted(small.names[0].name) == name


def names_in(nodes: Sequence[cst.CSTNode]) -> set[str]:
    """The names `nodes` use (`unittest`, `TEST_CUDA` of a decorator a
    migration replaced): the imports that may now be unused."""
    found: set[str] = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

    for node in nodes:
        node.visit(Names())
    return found
