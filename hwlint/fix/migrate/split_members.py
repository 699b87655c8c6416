"""Where each member of a class being split by test
(hwlint.fix.migrate.split) goes that is no test: which members each test
reaches through `self.<name>`, `cls.<name>` and `<Class>.<name>`
(transitively, through the class's members), and so which member that
uses a device may go with the device tests to the ACCELERATOR class
rather than to the mixin that the device-free tests share.

A member runs for every test when the test framework calls it (setUp,
tearDown, their class forms, a dunder, another unittest.TestCase method
overridden) or when it is no function (a class attribute, a nested class:
run when the class is made): those are reached by the device-free tests
too. A test that passes `self` on, or names a member through `getattr`
with a computed name, may reach any member."""

from __future__ import annotations

import re
import unittest
from typing import NamedTuple, cast

import libcst as cst

from hwlint.facts.devices import ASKED_OF, DEVICE_TYPE_ATTRIBUTES, DEVICE_TYPE_NAME, QUESTION_PREFIXES
from hwlint.fix.edits import dotted
from hwlint.fix.migrate.outcome import Refusal

# Any member: `self` passed on, or `getattr(self, name)` with a computed name.
ANY = "*"
# The methods the test framework calls for every test (unittest's and
# pytest's hooks; unittest.TestCase's own methods, when overridden, are
# called by it or by the tests through `self.`: reached either way).
_HOOK = re.compile(r"_?(setUp|tearDown|setup|teardown|set_up|tear_down)\w*|__\w+__")
_FRAMEWORK = frozenset(name for name in dir(unittest.TestCase) if not name.startswith("test"))
# The names that stand for the instance or the class in a member's body.
_SELF = ("self", "cls")
# A member that names another through a function: getattr(self, "name").
_BY_NAME = frozenset({"getattr", "hasattr", "setattr", "delattr"})


class Use(NamedTuple):
    """How a member that is no test uses a device: an accelerator site of
    the facts in it (`line` > 0) or a name in its code (`line` 0)."""

    text: str
    line: int = 0


class _Prose(cst.CSTTransformer):
    """Comments and string statements (docstrings) removed, and the
    messages of skips and assertions emptied (`self.skipTest("CUDA is
    available")`, `skipIf(cond, "needs XPU")`, `msg=...`): prose too; so
    are the strings a device type is compared with (`self.device_type ==
    "xpu"`, `_is_device("xpu", w.device)`: asked, as
    hwlint.facts.devices.compared_device_types and asked_device_strings say)."""

    def leave_Comparison(self, original_node: cst.Comparison, updated_node: cst.Comparison) -> cst.Comparison:
        sides = [updated_node.left, *(c.comparator for c in updated_node.comparisons)]
        if not any(
            (isinstance(side, cst.Attribute) and side.attr.value in DEVICE_TYPE_ATTRIBUTES)
            or (isinstance(side, cst.Name) and side.value == DEVICE_TYPE_NAME)
            for side in sides
        ):
            return updated_node
        return cast(cst.Comparison, updated_node.visit(_Emptied()))

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        name = dotted(updated_node.func).rsplit(".", 1)[-1]
        if name.startswith(QUESTION_PREFIXES) and any(
            (isinstance(a.value, cst.Attribute) and a.value.attr.value in ASKED_OF)
            or (isinstance(a.value, cst.Name) and a.value.value in ASKED_OF)
            for a in updated_node.args
        ):
            # `_is_device("xpu", w.device)`: asked (hwlint.facts.devices.asked_device_strings).
            return updated_node.with_changes(
                args=[
                    a.with_changes(value=cst.SimpleString('""')) if isinstance(a.value, _STRINGS) else a
                    for a in updated_node.args
                ]
            )
        # Where the messages start among the positional arguments (None: none are).
        first = 1 if name in ("skipIf", "skipUnless") else 0 if name in ("skip", "skipTest") else None
        args = []
        positional = 0
        for arg in updated_node.args:
            message = arg.keyword is not None and arg.keyword.value in ("msg", "reason", "message")
            if arg.keyword is None and not arg.star:
                message = first is not None and positional >= first
                positional += 1
            if message and isinstance(arg.value, _STRINGS):
                arg = arg.with_changes(value=cst.SimpleString('""'))
            args.append(arg)
        return updated_node.with_changes(args=args)

    def leave_EmptyLine(self, original_node: cst.EmptyLine, updated_node: cst.EmptyLine) -> cst.EmptyLine:
        return updated_node.with_changes(comment=None)

    def leave_TrailingWhitespace(
        self, original_node: cst.TrailingWhitespace, updated_node: cst.TrailingWhitespace
    ) -> cst.TrailingWhitespace:
        return updated_node.with_changes(comment=None)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement:
        if all(isinstance(s, cst.Expr) and isinstance(s.value, _STRINGS) for s in updated_node.body):
            return updated_node.with_changes(body=[cst.Pass()])
        return updated_node


_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


class _Emptied(cst.CSTTransformer):
    """Every simple string emptied."""

    def leave_SimpleString(self, original_node: cst.SimpleString, updated_node: cst.SimpleString) -> cst.SimpleString:
        return updated_node.with_changes(value='""')


def without_prose(node: cst.ClassDef) -> cst.ClassDef:
    """The class without its comments and docstrings: what runs."""
    stripped = node.visit(_Prose())
    assert isinstance(stripped, cst.ClassDef)
    return stripped


def code_without_prose(node: cst.BaseStatement) -> str:
    """The statement's code without its comments and docstrings: what runs."""
    stripped = node.visit(_Prose())
    assert isinstance(stripped, cst.CSTNode)
    return cst.Module(body=[]).code_for_node(stripped)


def runs_for_every_test(stmt: cst.BaseStatement) -> bool:
    """Whether the framework runs `stmt` for every test of its class: a hook,
    an overridden TestCase method, or a member that is no function."""
    if not isinstance(stmt, cst.FunctionDef):
        return True
    name = stmt.name.value
    return name in _FRAMEWORK or _HOOK.fullmatch(name) is not None


class _References(cst.CSTVisitor):
    """The members a statement of the class names: `self.x`, `cls.x`,
    `<Class>.x`, `type(self).x`, `self.__class__.x`, `getattr(self, "x")`;
    a bare member name where the class body's scope is (a class
    attribute, a decorator); ANY when `self` or `cls` is used otherwise
    (passed on) or getattr's name is computed."""

    def __init__(self, class_name: str, members: frozenset[str]) -> None:
        self.class_name = class_name
        self.members = members
        self.found: set[str] = set()
        self._ok: set[int] = set()  # the `self` Name nodes seen in a form above
        self._scope = 0  # > 0 inside a function's parameters and body
        self.bare: set[str] = set()  # the members named where the class body is the scope

    def _is_self(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return node.value in (*_SELF, self.class_name)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "type":
            return len(node.args) == 1 and self._is_self(node.args[0].value)
        if isinstance(node, cst.Attribute) and node.attr.value == "__class__":
            return self._is_self(node.value)
        return False

    def _accept(self, node: cst.BaseExpression) -> None:
        """`node` (a `self` form) names the instance as a base: no escape."""
        for name in _names_in(node):
            self._ok.add(id(name))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._ok.add(id(node.attr))
        if self._is_self(node.value):
            self._accept(node.value)
            self.found.add(node.attr.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Name) and func.value in _BY_NAME and node.args):
            return
        if not self._is_self(node.args[0].value):
            return
        self._accept(node.args[0].value)
        given = node.args[1].value if len(node.args) > 1 else None
        if isinstance(given, cst.SimpleString) and given.prefix.lower() in ("", "u"):
            self.found.add(given.evaluated_value if isinstance(given.evaluated_value, str) else ANY)
        else:
            self.found.add(ANY)

    def visit_Param(self, node: cst.Param) -> None:
        self._ok.add(id(node.name))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._ok.add(id(node.keyword))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._ok.add(id(node.name))
        for d in node.decorators:
            d.visit(self)  # in the class body's scope: bare member names count
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            # A default and an annotation are evaluated where the function is made.
            for made in (param.default, param.annotation):
                if made is not None:
                    made.visit(self)
        self._scope += 1  # (the parameters' names bind, they name nothing)
        node.body.visit(self)
        self._scope -= 1
        return False

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._scope += 1

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._scope -= 1

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self._ok:
            return
        if node.value in _SELF and self._scope:
            self.found.add(ANY)  # the instance passed on: it may reach any member
        elif not self._scope and node.value in self.members:
            self.found.add(node.value)
            self.bare.add(node.value)


def members_named(stmt: cst.CSTNode, class_name: str) -> set[str]:
    """The members `stmt` names through `self.`, `cls.` or `<Class>.` (ANY
    when it passes `self` on)."""
    visitor = _References(class_name, frozenset())
    stmt.visit(visitor)
    return visitor.found


def _names_in(node: cst.BaseExpression) -> list[cst.Name]:
    """The `self`/`cls` Name nodes of a `self` form (`type(self)`, `self.__class__`)."""
    if isinstance(node, cst.Name):
        return [node]
    if isinstance(node, cst.Call):
        return [n for a in node.args for n in _names_in(a.value)] + _names_in(node.func)
    if isinstance(node, cst.Attribute):
        return [node.attr, *_names_in(node.value)]
    return []


def _bound(stmt: cst.BaseStatement) -> set[str]:
    """The member names a statement of the class body binds."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return {stmt.name.value}
    names: set[str] = set()
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            targets = (
                [t.target for t in small.targets]
                if isinstance(small, cst.Assign)
                else [small.target]
                if isinstance(small, (cst.AnnAssign, cst.AugAssign))
                else []
            )
            for target in targets:
                elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else [target]
                names.update(e.value for e in elements if isinstance(e, cst.Name))
                names.update(
                    e.value.value for e in elements if isinstance(e, cst.Element) and isinstance(e.value, cst.Name)
                )
    return names


def reached(body: list[cst.BaseStatement], class_name: str, starts: list[int]) -> tuple[dict[int, int], bool]:
    """The members (indices in `body`) that the statements `starts` reach,
    transitively, with the start that first reaches each; and whether one
    may reach any member (ANY)."""
    names: dict[str, list[int]] = {}
    for i, stmt in enumerate(body):
        for name in _bound(stmt):
            names.setdefault(name, []).append(i)
    members = frozenset(names)
    refs: dict[int, set[str]] = {}
    first: dict[int, int] = {}
    anything = False
    for start in starts:
        todo = [start]
        while todo:
            i = todo.pop()
            if i in first:
                continue
            first[i] = start
            if i not in refs:
                visitor = _References(class_name, members)
                body[i].visit(visitor)
                refs[i] = visitor.found
            anything = anything or ANY in refs[i]
            todo.extend(j for name in refs[i] for j in names.get(name, ()))
    return first, anything


def placed(
    body: list[cst.BaseStatement],
    class_name: str,
    kinds: tuple[list[int], list[int]],
    uses: dict[int, Use],
    names: dict[int, str],
) -> list[int]:
    """The members that use a device (`uses`, by index in `body`) and go to
    the ACCELERATOR class: each one the device-free tests (`kinds[0]`) do
    not reach. Refusal when one of them is reached by a device-free test or
    runs for every test (the device-free tests would share it). `names`:
    how the refusal names each member."""
    generic, device = kinds
    tests = {*generic, *device}
    shared = [i for i, stmt in enumerate(body) if i not in tests and runs_for_every_test(stmt)]
    for i in shared:
        if i in uses:
            raise Refusal(_shared(names[i], uses[i]))
    free, anything = reached(body, class_name, generic + shared)
    for i, use in sorted(uses.items()):
        start = free.get(i)
        if start is None and not anything:
            continue
        if start is None:
            via = "a device-free test passes `self` on or names a member it computes: it may reach it"
        elif start in shared:
            via = f"{names[start]}, which every test runs, reaches it"
        else:
            via = f"the device-free test {names[start]} reaches it"
        said = f"{use.text} (line {use.line})" if use.line else use.text
        raise Refusal(f"not split: {names[i]}, which is no test, uses a device ({said}) and {via}: split by hand")
    _refuse_left_behind(body, class_name, tests | set(uses), names)
    return sorted(uses)


def _refuse_left_behind(
    body: list[cst.BaseStatement], class_name: str, leaving: set[int], names: dict[int, str]
) -> None:
    """Refusal when a statement that leaves for a new class (a test, a
    member going with the device tests) names, where the class body is the
    scope (a decorator, a default), a member that stays in the mixin: the
    new class's body would not find it."""
    bound = {i: _bound(stmt) for i, stmt in enumerate(body)}
    staying = {name for i, found in bound.items() if i not in leaving for name in found}
    members = frozenset(name for found in bound.values() for name in found)
    for i in sorted(leaving):
        visitor = _References(class_name, members)
        body[i].visit(visitor)
        left = sorted(visitor.bare & staying)
        if left:
            raise Refusal(
                f"not split: {names[i]} names {left[0]} where the class is made (a decorator, a default), "
                "and it stays in the mixin: split by hand"
            )


def _shared(name: str, use: Use) -> str:
    """Why a member every test runs cannot keep its device use."""
    if use.line:
        return (
            f"not split: {use.text} (line {use.line}) is outside the tests: the tests that stay "
            "device-free would share it"
        )
    return f"not split: {name}, which is no test, uses a device ({use.text}): split by hand"
