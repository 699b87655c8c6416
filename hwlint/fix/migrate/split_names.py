"""The names a split by test (hwlint.fix.migrate.split) takes away and
makes: the classes it makes of class `TestFoo`, the module-level
statements that name `TestFoo` and are rewritten with it (its
instantiation, `instantiate_parametrized_tests(TestFoo)`), and the
refusal when anything else names it. What names it is code: a name, or a
string that is the name or a dotted path through it (`"TestFoo"`,
`"test_foo.TestFoo.test_x"`, as `mock.patch` and `__all__` have it); a
comment, a docstring or prose in a string ("TestFoo checks...") does not."""

from __future__ import annotations

import re
from typing import NamedTuple, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from hwlint.facts import ModuleFacts
from hwlint.fix.edits import dotted
from hwlint.fix.migrate.outcome import Refusal
from hwlint.fix.migrate.tree import instantiation_call

# The parametrized tests' instantiation, given a split class's name: the
# GENERIC class takes it (the device framework expands the ACCELERATOR
# class's `@parametrize` itself).
PARAMETRIZED = "instantiate_parametrized_tests"


class SplitNames(NamedTuple):
    """The classes a split of class `old` makes."""

    old: str
    mixin: str
    generic: str
    accelerator: str

    @classmethod
    def of(cls, old: str) -> SplitNames:
        """`_<old>Mixin`, `<old>Generic`, `<old>Accelerator`: nothing stripped."""
        return cls(old, f"_{old}Mixin", f"{old}Generic", f"{old}Accelerator")


def parametrized_calls(body: Sequence[cst.BaseStatement], name: str) -> list[int]:
    """The indices of the module-level `instantiate_parametrized_tests(name)` statements."""
    found = []
    for at, stmt in enumerate(body):
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            continue
        small = stmt.body[0]
        call = small.value if isinstance(small, cst.Expr) else None
        if (
            isinstance(call, cst.Call)
            and dotted(call.func).rsplit(".", 1)[-1] == PARAMETRIZED
            and len(call.args) == 1
            and isinstance(call.args[0].value, cst.Name)
            and call.args[0].value.value == name
        ):
            found.append(at)
    return found


class _Mentions(cst.CSTVisitor):
    """The nodes that name one of `names` in code: a Name (not a class's
    own name in its `class` line, not an attribute of something else:
    `other.TestFoo` is another module's), or a string that is the name or
    a dotted path through it. Docstrings and comments are not visited."""

    def __init__(self, names: Sequence[str], *, class_lines: bool) -> None:
        self.names = frozenset(names)
        self.found: list[cst.CSTNode] = []
        self._skip: set[int] = set()
        self._class_lines = class_lines  # whether `class TestFoo` counts
        path = "|".join(re.escape(n) for n in names)
        self._path = re.compile(rf"(?:[\w.]*\.)?(?:{path})(?:\.[\w.]*)?")

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if not self._class_lines:
            self._skip.add(id(node.name))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(id(node.attr))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names and id(node) not in self._skip:
            self.found.append(node)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = node.evaluated_value
        if isinstance(value, str) and self._path.fullmatch(value):
            self.found.append(node)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        # A string statement (a docstring) is prose.
        return not all(isinstance(s, cst.Expr) and isinstance(s.value, _STRINGS) for s in node.body)


_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _names_in(node: cst.CSTNode, name: str) -> bool:
    """Whether `node` names `name` in code."""
    visitor = _Mentions([name], class_lines=True)
    node.visit(visitor)
    return bool(visitor.found)


def _mentions(module: cst.Module, names: Sequence[str], skipped: set[int], *, class_lines: bool) -> list[int]:
    """The lines where the module names one of `names` in code, but in
    the top-level statements `skipped`."""
    text = re.compile("|".join(rf"\b{re.escape(n)}\b" for n in names))
    visitor = _Mentions(names, class_lines=class_lines)
    for at, stmt in enumerate(module.body):
        # The text first: a statement that does not spell a name cannot name it.
        if at not in skipped and text.search(module.code_for_node(stmt)):
            stmt.visit(visitor)
    if not visitor.found:
        return []
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return [positions[node].start.line for node in visitor.found]


def refuse_other_uses(module: cst.Module, calls: list[int], names: SplitNames, facts: ModuleFacts) -> None:
    """Refusal when the module names the class anywhere but in its own
    `class` line, one instantiation and `instantiate_parametrized_tests`
    (subclassed, referenced, `super(TestFoo, self)`, given to a function),
    or already names one of the classes a split makes."""
    if len(calls) > 1:
        raise Refusal(f"not split: {names.old} is instantiated {len(calls)} times")
    call = instantiation_call(module.body[calls[0]], names.old) if calls else None
    if call is not None and any(_names_in(a, names.old) for a in call.args[1:]):
        raise Refusal(f"not split: {names.old}'s instantiation names it again")
    skipped = {*calls, *parametrized_calls(module.body, names.old)}
    lines = _mentions(module, [names.old], skipped, class_lines=False)
    if lines:
        said = module.code.splitlines()[lines[0] - 1].strip()
        raise Refusal(
            f"not split: `{said}` names {names.old}: a subclass, a reference or "
            f"`super({names.old}, self)` would not find its tests; split by hand"
        )
    for new in names[1:]:
        if _mentions(module, [new], set(), class_lines=True):
            raise Refusal(f"not split: the name {new} is taken")
    if any((names.old in d.args or d.target == names.old) and d.func != PARAMETRIZED for d in facts.dynamic):
        raise Refusal(f"not split: {names.old} is passed to a function at module level")
