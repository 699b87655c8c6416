"""Finding things in the module being migrated: its classes (at the top
level or inside a block), their tests, a test's `device` parameter and
decorators, `instantiate_device_type_tests` calls, literal strings and
module constants, in the libcst tree; and the same classes in its facts."""

from __future__ import annotations

import re
from typing import Sequence

import libcst as cst

from hwlint.facts import ClassFacts, ModuleFacts
from hwlint.fix.edits import dotted
from hwlint.fix.migrate.framework import INSTANTIATE
from hwlint.fix.migrate.outcome import Refusal


def _classes(body: Sequence[cst.BaseStatement]) -> list[tuple[cst.ClassDef, int | None]]:
    """Module-level classes in source order, as facts lists them (inside
    if/try/with/for/while too), each with its index in `body` when it is a
    statement of the module itself, else None (inside a block)."""
    found: list[tuple[cst.ClassDef, int | None]] = []

    def walk(stmts: Sequence[cst.BaseStatement], top: bool) -> None:
        for index, stmt in enumerate(stmts):
            if isinstance(stmt, cst.ClassDef):
                found.append((stmt, index if top else None))
                continue
            for suite in _suites(stmt):
                if isinstance(suite, cst.IndentedBlock):
                    walk(suite.body, False)

    walk(body, True)
    return found


def _suites(stmt: cst.BaseStatement) -> list[cst.BaseSuite]:
    if isinstance(stmt, cst.If):
        out = [stmt.body]
        orelse = stmt.orelse
        if isinstance(orelse, cst.If):
            out.extend(_suites(orelse))
        elif isinstance(orelse, cst.Else):
            out.append(orelse.body)
        return out
    if isinstance(stmt, (cst.Try, cst.TryStar)):
        return [
            stmt.body,
            *(h.body for h in stmt.handlers),
            *([stmt.orelse.body] if stmt.orelse else []),
            *([stmt.finalbody.body] if stmt.finalbody else []),
        ]
    if isinstance(stmt, (cst.For, cst.While)):
        return [stmt.body, *([stmt.orelse.body] if stmt.orelse else [])]
    if isinstance(stmt, cst.With):
        return [stmt.body]
    return []


def find_class(body: Sequence[cst.BaseStatement], name: str, occurrence: int) -> int:
    """The index in `body` of the `occurrence`-th class `name`; Refusal when
    it is not a statement of the module itself."""
    named = [index for cls, index in _classes(body) if cls.name.value == name]
    if occurrence >= len(named):
        raise Refusal(f"class {name} not found where expected")
    index = named[occurrence]
    if index is None:
        raise Refusal(f"{name} is defined inside a block (if/try/with): migrate it by hand")
    return index


def _call_of(stmt: cst.BaseStatement) -> cst.Call | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
        value = stmt.body[0].value
        if isinstance(value, cst.Call):
            return value
    return None


def instantiation_call(stmt: cst.BaseStatement, name: str | None = None) -> cst.Call | None:
    """The `instantiate_device_type_tests(name, ...)` call `stmt` is, if it is one."""
    call = _call_of(stmt)
    if call is None or dotted(call.func).rsplit(".", 1)[-1] != INSTANTIATE or not call.args:
        return None
    first = call.args[0].value
    if name is not None and not (isinstance(first, cst.Name) and first.value == name):
        return None
    return call


def is_main_guard(stmt: cst.BaseStatement) -> bool:
    """Whether `stmt` is `if __name__ == "__main__":`."""
    if not isinstance(stmt, cst.If) or not isinstance(stmt.test, cst.Comparison):
        return False
    return dotted(stmt.test.left) == "__name__"


def literal_strings(node: cst.BaseExpression) -> tuple[str, ...] | None:
    """The strings a literal `"cuda"`, `("cpu", "cuda")` or `["cuda"]` names."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return (value,) if isinstance(value, str) else None
    if isinstance(node, (cst.Tuple, cst.List)):
        out = []
        for element in node.elements:
            if not isinstance(element, cst.Element) or not isinstance(element.value, cst.SimpleString):
                return None
            value = element.value.evaluated_value
            if not isinstance(value, str):
                return None
            out.append(value)
        return tuple(out)
    return None


def module_constant(body: Sequence[cst.BaseStatement], name: str) -> cst.BaseExpression:
    """The value of a name the module assigns once, at its top level, to a
    literal; Refusal, with why, when it is not one."""
    values: list[cst.BaseExpression] = []
    nested = False

    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
                ):
                    values.append(small.value)
                elif isinstance(small, (cst.AugAssign, cst.AnnAssign)) and dotted(small.target) == name:
                    nested = True
        elif _suites(stmt):
            code = cst.Module(body=[]).code_for_node(stmt)
            if re.search(rf"(?<![\w.]){re.escape(name)}\s*(=[^=]|\+=|:)", code):
                nested = True
    if nested or len(values) != 1:
        raise Refusal(f"`{name}` is computed (assigned {'under a condition' if nested else f'{len(values)} times'})")
    return values[0]


def flag_is_true(call: cst.Call, name: str) -> bool:
    """Whether `call` passes `name=True` (`allow_xpu=True`)."""
    return any(
        a.keyword is not None and a.keyword.value == name and isinstance(a.value, cst.Name) and a.value.value == "True"
        for a in call.args
    )


def test_methods(cls: cst.ClassDef) -> list[tuple[int, cst.FunctionDef]]:
    """The test methods written in the class body (index in the body)."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return []
    return [
        (i, s)
        for i, s in enumerate(cls.body.body)
        if isinstance(s, cst.FunctionDef) and s.name.value.startswith("test")
    ]


def device_parameter(fn: cst.FunctionDef) -> cst.Param | None:
    """The test's `device` (or `devices`) parameter, if it takes one."""
    params = fn.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        if p.name.value in ("device", "devices"):
            return p
    return None


def decorator_name(d: cst.Decorator) -> str:
    """The decorator's last name: `onlyCUDA` for `@common.onlyCUDA` or `@onlyCUDA(...)`."""
    expr = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
    return dotted(expr).rsplit(".", 1)[-1]


class _Uses(cst.CSTVisitor):
    def __init__(self, name: str, *, attributes: bool = True) -> None:
        self.name = name
        self.found = False
        self.attributes = attributes  # whether `x.name` counts (an attribute of that name)
        self.skip: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not self.attributes:
            self.skip.add(id(node.attr))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name and id(node) not in self.skip:
            self.found = True


def body_uses(fn: cst.FunctionDef, name: str) -> bool:
    """Whether the function's body names `name`."""
    visitor = _Uses(name)
    fn.body.visit(visitor)
    return visitor.found


def node_uses(node: cst.CSTNode, name: str, *, attributes: bool = True) -> bool:
    """Whether `node` names `name` anywhere in it; without `attributes`,
    as a variable (`self.name` aside)."""
    visitor = _Uses(name, attributes=attributes)
    node.visit(visitor)
    return visitor.found


def class_facts(facts: ModuleFacts, name: str, occurrence: int) -> ClassFacts | None:
    """The facts of the `occurrence`-th class `name`, if there is one."""
    named = [c for c in facts.classes if c.name == name]
    return named[occurrence] if occurrence < len(named) else None


def base_name(dotted: str) -> str:
    """A base as its class's name: `TestFoo` for `module.TestFoo`."""
    return dotted.rsplit(".", 1)[-1]


def bindings(facts: ModuleFacts) -> dict[str, str]:
    """Module-level name -> the device it is bound to."""
    return {b.name: b.device for b in facts.device_bindings}


def decorators_left(cls: cst.ClassDef, kept: list[cst.Decorator]) -> list[cst.Decorator]:
    """`kept`, some of the class's decorators in their order, with the
    comments above its first decorator still above the first one left."""
    if kept and kept[0] is not cls.decorators[0]:
        kept = [kept[0].with_changes(leading_lines=cls.decorators[0].leading_lines), *kept[1:]]
    return kept
