"""The class-level edits of one module: `ModuleEdits` (the tree, the
declarations and instantiations pending on it) written at once, a class
redeclared, and whether instantiating a class would clash with the name
of one of its tests."""

from __future__ import annotations

from typing import Sequence

import libcst as cst
import libcst.matchers as matchers

from hwlint.core.config import Config
from hwlint.fix.edits import declaration_statement, declare, dotted, ensure_import
from hwlint.fix.migrate.framework import DEVICE_TYPE_MODULE, INSTANTIATE
from hwlint.fix.migrate.outcome import Refusal
from hwlint.fix.migrate.tree import instantiation_call, is_main_guard, test_methods
from hwlint.fix.migrate.unused_imports import drop_unused_name
from hwlint.fix.rewrite import dotted_expr


class ModuleEdits:
    """The module being migrated and the class-level edits pending on it:
    `body` (its statements, edited in place by the migrations), the
    declarations to add (a class's index in `body` -> its member) and the
    instantiations to add (the class's index, its name, the arguments after
    `globals()`). Indices are those of `body` before any is written:
    `write_class_level` writes them all at once."""

    def __init__(self, module: cst.Module, config: Config) -> None:
        self.module = module
        self.config = config
        self.body: list[cst.BaseStatement] = list(module.body)
        self.declare: dict[int, str] = {}  # index in body -> member
        self.instantiate: list[tuple[int, str, str]] = []  # (index of the class, its name, more arguments)
        self.imports: set[str] = set()  # names of the device framework the edits wrote
        self.unused: set[str] = set()  # names whose uses the edits replaced: their imports may go


def write_class_level(state: ModuleEdits) -> cst.Module:
    """The module with `state`'s edits made, and the imports they need."""
    body = state.body
    module = state.module.with_changes(body=body)
    enum_name = state.config.enum
    if state.declare:
        module, enum_name = ensure_import(module, state.config.import_from, state.config.enum)
    instantiate = INSTANTIATE
    if state.instantiate:
        module, instantiate = ensure_import(module, DEVICE_TYPE_MODULE, INSTANTIATE)
    for name in sorted(state.imports):
        module, local = ensure_import(module, DEVICE_TYPE_MODULE, name)
        if local != name:
            module = module.visit(RenameDecorator(name, local))
    # Imports may add a statement: indices move by the same amount.
    shift = len(module.body) - len(body)
    body = list(module.body)
    for index, member in state.declare.items():
        cls = body[index + shift]
        assert isinstance(cls, cst.ClassDef)
        body[index + shift] = declare(cls, declaration_statement(state.config.attribute, enum_name, member))
    # Last first: an insertion moves what follows it.
    for index, name, more in sorted(state.instantiate, reverse=True):
        at, grouped = _instantiation_place(body, index + shift)
        newline = module.default_newline
        line = cst.parse_statement(
            f"{instantiate}({name}, globals(){more}){newline}", config=cst.PartialParserConfig(default_newline=newline)
        )
        blank = cst.EmptyLine(indent=False)
        line = line.with_changes(leading_lines=[] if grouped else [blank, blank])
        body.insert(at, line)
    module = module.with_changes(body=body)
    # Last: dropping an import statement moves every index after it.
    for name in sorted(state.unused):
        module = drop_unused_name(module, name)
    return module


def _instantiation_place(body: Sequence[cst.BaseStatement], index: int) -> tuple[int, bool]:
    """Where the instantiation of the class at `index` goes: after the
    last instantiate_device_type_tests call after it (grouped with them),
    else before `if __name__ == "__main__":`, else at the end."""
    last = None
    for at in range(index + 1, len(body)):
        if instantiation_call(body[at]) is not None:
            last = at
        if is_main_guard(body[at]):
            return (last + 1, True) if last is not None else (at, False)
    return (last + 1, True) if last is not None else (len(body), False)


def refuse_clashing_names(cls: cst.ClassDef, devices: Sequence[str], extend: Sequence[str]) -> None:
    """Refusal when instantiating `cls` for `devices` would break its import:
    the framework names each test `<test>_<device>`, and a test already
    called so (`test_x` beside `test_x_cuda`) makes instantiation raise
    "Redefinition of test" — the runtime would collect none of the module's
    tests."""
    names = {fn.name.value for _, fn in test_methods(cls)}
    for name in sorted(names):
        for device in (*devices, *extend):
            if f"{name}_{device}" in names:
                raise Refusal(
                    f"instantiated, {name} would be named {name}_{device} on {device}, which another test "
                    "already is: rename one, then migrate"
                )
    # The framework copies a test into each device's class under the new name
    # alone: `self.test_a()` in another test would raise AttributeError there.
    for used in matchers.findall(cls.body, matchers.Attribute(value=matchers.Name("self") | matchers.Name("cls"))):
        assert isinstance(used, cst.Attribute)
        if used.attr.value in names:
            assert isinstance(used.value, cst.Name)
            raise Refusal(
                f"a method of {cls.name.value} uses {used.value.value}.{used.attr.value}, a test: instantiated, the class has "
                f"{used.attr.value}_<device> in its place, not {used.attr.value}: move that test's body into a "
                "helper both call, then migrate"
            )


def redeclare(cls: cst.ClassDef, attribute: str, member: str) -> cst.ClassDef | None:
    """`cls` with its body declaration naming `member` instead."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return None
    body = list(cls.body.body)
    for i, stmt in enumerate(body):
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            continue
        small = stmt.body[0]
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and dotted(small.targets[0].target) == attribute
            and isinstance(small.value, cst.Attribute)
        ):
            body[i] = stmt.with_changes(
                body=[small.with_changes(value=small.value.with_changes(attr=cst.Name(member)))]
            )
            return cls.with_changes(body=cls.body.with_changes(body=body))
    return None


class RenameDecorator(cst.CSTTransformer):
    """A decorator of the device framework the edits wrote (`@onlyAccelerator`,
    `@skipCUDAIf(...)`) under the name the file imports it as."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__()
        self.old, self.new = old, new

    def leave_Decorator(self, original_node: cst.Decorator, updated_node: cst.Decorator) -> cst.Decorator:
        expr = updated_node.decorator
        if isinstance(expr, cst.Name) and expr.value == self.old:
            return updated_node.with_changes(decorator=dotted_expr(self.new))
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == self.old:
            return updated_node.with_changes(decorator=expr.with_changes(func=dotted_expr(self.new)))
        return updated_node
