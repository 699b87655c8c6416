"""A walk of a tree pruned to the nodes that span some lines: the facts
stage looks at the few lines where its text shows something (an
accelerator, `setattr`), never at every node of a module."""

import ast
import bisect
from typing import Iterator

# Fields that never hold a node a walk wants: names and numbers (`id`,
# `attr`, `level`...), and the contexts and operators (`Load`, `Add`), which
# have neither position nor children. A Constant holds no node at all.
_LEAF_FIELDS = frozenset(
    {
        "ctx",
        "op",
        "ops",
        "id",
        "attr",
        "name",
        "asname",
        "module",
        "level",
        "names",
        "arg",
        "kind",
        "type_comment",
        "conversion",
        "is_async",
        "simple",
        "tag",
        "kwd_attrs",
    }
)
# Nodes without a position: always entered (their children have one).
_UNPLACED = frozenset({ast.arguments, ast.comprehension, ast.withitem, ast.match_case})
_DECORATED = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {ast.Constant: ()}


def _child_fields(kind: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _CHILD_FIELDS[kind] = tuple(f for f in getattr(kind, "_fields", ()) if f not in _LEAF_FIELDS)
    return fields


def walk_lines(node: ast.AST, lines: list[int], *, whole_fstrings: bool = False) -> Iterator[ast.AST]:
    """Like ast.walk, but only into nodes spanning one of `lines`: a big
    class mentions CUDA on a few lines, and walking all of it would cost more
    than parsing it did. The nodes come in the order of a stack fed by
    ast.iter_child_nodes (a site found twice at one place keeps the last);
    children are taken from the fields that can hold them (iter_child_nodes,
    a generator over a generator, was most of the walk's cost).
    `whole_fstrings`: inside an f-string, every node, unpruned (before
    Python 3.12 the positions of its parts are not always right)."""
    stack = [node]
    pop, push = stack.pop, stack.append
    bisect_left = bisect.bisect_left
    count = len(lines)
    hit = set(lines)
    fields_of = _CHILD_FIELDS
    while stack:
        current = pop()
        kind = type(current)
        if whole_fstrings and kind is ast.JoinedStr:
            yield from ast.walk(current)
            continue
        yield current
        fields = fields_of.get(kind)
        if fields is None:
            fields = _child_fields(kind)
        for field in fields:
            value = getattr(current, field, None)
            if value is None:
                continue
            for child in value if type(value) is list else (value,):
                if child is None:  # a `**` key of a dict, a keyword-only argument without default
                    continue
                child_kind = type(child)
                if child_kind not in _UNPLACED:
                    line = child.lineno
                    # Most nodes entered start on one of the lines (a call on
                    # a line that mentions CUDA): in, without the search
                    # below, which would find that line (a node's decorators
                    # and its end are never on its wrong side of it).
                    if line not in hit or (child.end_lineno or 0) < line:
                        # A decorated function or class starts at its first
                        # decorator (ast's lineno is the `def` line).
                        low = (
                            child.decorator_list[0].lineno
                            if child_kind in _DECORATED and child.decorator_list
                            else line
                        )
                        index = bisect_left(lines, low)
                        if index == count or lines[index] > (child.end_lineno or low):
                            continue
                push(child)
