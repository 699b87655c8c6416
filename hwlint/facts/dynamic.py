"""Dynamic test classes: the module-level statements that may make, publish
or change test classes at run time (records.Dynamic)."""

import ast
import bisect
from typing import Callable, Iterable

from hwlint.facts.prescan import line_numbers, places
from hwlint.facts.records import Dynamic, DynamicKind
from hwlint.facts.vocabulary import INSTANTIATE, LazyPattern, dotted_name
from hwlint.facts.walk import walk_lines

# What the runtime may collect that the class statements do not show:
# classes made by calls and published into the module, test methods added
# after the class statement, the attribute set through a variable. Only
# module-level statements are looked at (plus setattr anywhere): what a test
# module does at import time.


def _namespace(node: ast.expr) -> bool:
    """`globals()`, `vars()`, `locals()` at module level, `sys.modules[__name__]`."""
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in ("globals", "vars", "locals") and not node.args
    return (
        isinstance(node, ast.Subscript)
        and dotted_name(node.value) == "sys.modules"
        and isinstance(node.slice, ast.Name)
        and node.slice.id == "__name__"
    )


def _static(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


# 1-based character column of a (line, ast byte offset): the extractor's.
Column = Callable[[int, int], int]


class _DynamicFinder:
    def __init__(self, column: Column, attribute: str, classes: set[str]) -> None:
        self.column = column
        self.attribute = attribute
        self.classes = classes
        self.found: list[Dynamic] = []

    def add(
        self,
        node: ast.expr | ast.stmt,
        kind: DynamicKind,
        func: str = "",
        target: str = "",
        args: tuple[str | None, ...] = (),
    ) -> None:
        line = node.lineno
        self.found.append(Dynamic(line, self.column(line, node.col_offset), kind, func, target, args))

    def call(self, node: ast.Call, target: str) -> None:
        func = dotted_name(node.func).rsplit(".", 1)[-1]
        if func == INSTANTIATE:
            return
        args = node.args
        if func == "setattr" and len(args) >= 2:
            if _namespace(args[0]):
                self.add(node, "publish", func)
                return
            name = _static(args[1]) if isinstance(args[1], ast.Constant) else None
            owner = args[0].id if isinstance(args[0], ast.Name) else ""
            if name == self.attribute:
                self.add(node, "classification", func, owner)
            elif name is None or name.startswith("test"):
                self.add(node, "setattr", func, owner, (name,))
            return
        if isinstance(node.func, ast.Attribute) and node.func.attr == "update" and _namespace(node.func.value):
            inner = args[0] if args else None
            if isinstance(inner, ast.Call):
                self.call(inner, "globals()")
            else:
                self.add(node, "publish", "update")
            return
        if any(_namespace(a) for a in (*args, *(k.value for k in node.keywords))):
            self.add(node, "publish", func)  # f(..., globals()): it may put classes there
            return
        positional = tuple(_static(a) for a in args)
        # `device = torch.device("cpu")` makes no class; `TestFooDyn = f(...)`,
        # `type(...)` and calls given a class may.
        if (
            (target and ("Test" in target or target == "globals()"))
            or func == "type"
            or any(isinstance(a, ast.Name) for a in args)
        ):
            self.add(node, "call", func, target, positional)

    def assign(
        self, stmt: ast.Assign | ast.AnnAssign, targets: list[ast.expr], loops: dict[str, tuple[str, ...]]
    ) -> None:
        value = stmt.value
        for target in targets:
            if isinstance(target, ast.Subscript) and _namespace(target.value):
                if isinstance(value, ast.Call):
                    self.call(value, "globals()")
                else:
                    self.add(stmt, "publish", "")
            elif isinstance(target, ast.Attribute):
                owner = target.value
                if _namespace(owner):
                    self.add(stmt, "publish", "")
                elif isinstance(owner, ast.Name):
                    names = loops.get(owner.id, (owner.id,))
                    if target.attr == self.attribute:
                        # TestFoo.attr = ... on a class of the module is a Declaration.
                        for name in names:
                            if name not in self.classes:
                                self.add(stmt, "classification", "", name)
                    elif target.attr.startswith("test"):
                        for name in names:
                            self.add(stmt, "setattr", "", name, (target.attr,))
            elif isinstance(target, ast.Name) and isinstance(value, ast.Call):
                self.call(value, target.id)

    def block(self, body: Iterable[ast.stmt], loops: dict[str, tuple[str, ...]]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.Expr):
                if isinstance(stmt.value, ast.Call):
                    self.call(stmt.value, "")
            elif isinstance(stmt, ast.Assign):
                self.assign(stmt, stmt.targets, loops)
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                self.assign(stmt, [stmt.target], loops)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                inner = dict(loops)
                target, it = stmt.target, stmt.iter
                if isinstance(target, ast.Name):
                    inner.pop(target.id, None)
                    elts = it.elts if isinstance(it, (ast.Tuple, ast.List)) else None
                    names = [e.id for e in elts if isinstance(e, ast.Name)] if elts is not None else []
                    if elts is not None and len(names) == len(elts):  # a loop over names: each of them
                        inner[target.id] = tuple(names)
                    else:
                        inner[target.id] = ("",)  # a variable: not a class name
                self.block(stmt.body, inner)
                self.block(stmt.orelse, loops)
            elif (
                isinstance(stmt, (ast.If, ast.While, ast.With, ast.AsyncWith, ast.Try))
                or type(stmt).__name__ == "TryStar"
            ):
                for part in ("body", "orelse", "finalbody"):
                    self.block(getattr(stmt, part, ()), loops)
                for handler in getattr(stmt, "handlers", ()):
                    self.block(handler.body, loops)
            elif isinstance(stmt, ast.Match):
                for case in stmt.cases:
                    self.block(case.body, loops)

    def setattrs_in_functions(self, tree: ast.Module, lines: list[int]) -> None:
        """setattr(cls, name, fn) in a function the module calls at import
        (PyTorch's generate_tests(cls) helpers): the calls named `setattr`
        in the module's top-level functions and classes. Only the nodes
        spanning one of `lines` (those where `setattr` may be written) are
        looked at: walking every function of a module that mentions setattr
        once cost a third as much as parsing it."""
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and _spans(stmt, lines):
                for node in walk_lines(stmt, lines, whole_fstrings=True):
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
                        self.call(node, "")


def _spans(node: ast.AST, lines: list[int]) -> bool:
    """Whether `node` (a decorated one from its first decorator) spans one
    of `lines` (sorted); a node without a position spans them all."""
    low: int | None = getattr(node, "lineno", None)
    if low is None:
        return True
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        low = decorators[0].lineno  # ast gives a decorated def or class its `def` line
    high: int = getattr(node, "end_lineno", None) or low
    index = bisect.bisect_left(lines, low)
    return index < len(lines) and lines[index] <= high


def _lines_of(source: str, token: str) -> list[int]:
    """Sorted numbers of the lines where `token` may be written as a name:
    those holding it, and in a module with non-ASCII text, also those with a
    non-ASCII character (Python reads an identifier such as `ｓetattr` as
    `setattr`: NFKC)."""
    text = source if "\r" not in source else source.replace("\r\n", "\n").replace("\r", "\n")
    positions = places(text, token)
    if not text.isascii():
        positions.extend(m.start() for m in _NON_ASCII.compiled().finditer(text))
        positions.sort()
    return line_numbers(text, positions)


_NON_ASCII = LazyPattern(r"[^\x00-\x7f]")


def dynamic_sites(
    tree: ast.Module, source: str, column: Column, attribute: str, classes: set[str]
) -> tuple[Dynamic, ...]:
    """The statements of `tree` that may make or change test classes at run
    time; `classes` are the module's own (an attribute set on one of them is
    a Declaration, not dynamic)."""
    finder = _DynamicFinder(column, attribute, classes)
    finder.block(tree.body, {})
    if "setattr" in source:
        finder.setattrs_in_functions(tree, _lines_of(source, "setattr"))
    return tuple(sorted(dict.fromkeys(finder.found), key=lambda d: (d.line, d.column)))
