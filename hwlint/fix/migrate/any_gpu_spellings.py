"""The module-level spellings of GPU_TYPE a class reaches, as inductor's
tests write them (`test_snode_runtime.py`, `test_perf.py`):

    DEVICE = GPU_TYPE                                    # an alias

    def T(*size, dtype=torch.float32, device=DEVICE):    # a helper placing on it by default
        return torch.randn(size, dtype=dtype, device=device)

    class TestCase(InductorTestCase):                    # a base setting it
        device = DEVICE

    class UnsupportedTests(TestCase):
        device = DEVICE

        def test_no_op(self):
            inp = (T(10, 10),)

The any-gpu migration (hwlint.fix.migrate.any_gpu) takes the class in
GPU_TYPE's own spelling: an alias's uses become `GPU_TYPE`, each call of
a placing helper that does not say its device gets `device=GPU_TYPE`, and
a base's attribute is one more attribute the class sets (its reads,
`self.device`, are rewritten as the class's own). What the migration then
does to GPU_TYPE (the test's `device`, `self.device_type`) is what the
contributors wrote by hand (`T(10, 10, device=device)`). The module-level
definitions stay as they are: other classes and helpers may still use them.
"""

from __future__ import annotations

from typing import Iterator, NamedTuple, Sequence

import libcst as cst

from hwlint.facts import ModuleFacts
from hwlint.facts.devices import ANY_GPU_NAMES
from hwlint.fix.edits import dotted
from hwlint.fix.migrate.any_gpu_methods import gpu_attribute
from hwlint.fix.migrate.outcome import MigrateError, Refusal
from hwlint.fix.migrate.tree import base_name, find_class, node_uses
from hwlint.fix.rewrite import parse_module

# The attribute a module base may set to GPU_TYPE and still be taken: not
# `device_type`, which an instantiated class would inherit ahead of the
# framework's own (the base comes first in its bases).
_BASE_ATTRIBUTE = "device"


class Spellings(NamedTuple):
    """What the module spells GPU_TYPE as, for one class."""

    aliases: frozenset[str]  # `DEVICE = GPU_TYPE`
    placers: frozenset[str]  # `def T(..., device=DEVICE)`
    bases: frozenset[str]  # module classes among the class's bases that set `device = DEVICE`

    @property
    def names(self) -> frozenset[str]:
        """The module-level names the migration no longer finds reaching GPU_TYPE."""
        return self.aliases | self.placers | self.bases


def spellings(body: Sequence[cst.BaseStatement], index: int, reaching: dict[str, str]) -> Spellings:
    """The aliases, placing helpers and setting bases of the module (`body`)
    that the class at `index` may be taken through; `reaching` is every
    module-level name whose definition uses GPU_TYPE (hwlint.fix.migrate.any_gpu)."""
    defs: dict[str, list[cst.CSTNode]] = {}
    for i, stmt in enumerate(body):
        if i != index:
            for name, node in module_bindings(stmt):
                defs.setdefault(name, []).append(node)
    aliases = frozenset(
        name
        for name, nodes in defs.items()
        if len(nodes) == 1 and isinstance(nodes[0], cst.Assign) and dotted(nodes[0].value) in ANY_GPU_NAMES
    )
    gpu = ANY_GPU_NAMES | aliases
    others = frozenset(reaching) - aliases
    placers = frozenset(
        name
        for name, nodes in defs.items()
        if name in reaching and len(nodes) == 1 and _places_by_default(nodes[0], gpu, others)
    )
    cls = body[index]
    assert isinstance(cls, cst.ClassDef)
    own = {base_name(dotted(b.value)) for b in cls.bases}
    bases = frozenset(
        name
        for name, nodes in defs.items()
        if name in own and name in reaching and len(nodes) == 1 and _sets_device_only(nodes[0], gpu, others)
    )
    return Spellings(aliases, placers, bases)


def spelt_as_gpu_type(cls: cst.ClassDef, found: Spellings) -> cst.ClassDef:
    """The class with the aliases' uses spelt `GPU_TYPE` and each call of a
    placing helper given `device=GPU_TYPE` where it says no device; Refusal
    where a helper is used other than called, or called with `**` (its
    device may be there)."""
    if not found.aliases and not found.placers:
        return cls
    spelt = cls.visit(_Spelt(found))
    assert isinstance(spelt, cst.ClassDef)
    for name in found.placers:
        if node_uses(spelt, name, attributes=False) and _uncalled(spelt, name):
            raise Refusal(f"{cls.name.value} uses {name} other than calling it: migrate by hand")
    return spelt


def reaching_any_gpu(body: Sequence[cst.BaseStatement], index: int) -> dict[str, str]:
    """The module-level functions, classes and names (other than the class
    at `index`) whose definition uses GPU_TYPE, directly or through another
    of them: name -> what it is. A name bound in a branch (`if HAS_GPU:
    DEVICE = GPU_TYPE` / `else: DEVICE = "cpu"`) counts with each binding."""
    defs: dict[str, list[cst.CSTNode]] = {}
    for i, stmt in enumerate(body):
        if i != index:
            for name, node in module_bindings(stmt):
                defs.setdefault(name, []).append(node)
    reaching = {
        name: f"def {name}" if isinstance(nodes[0], cst.FunctionDef) else name
        for name, nodes in defs.items()
        if any(_uses_outside_messages(node) for node in nodes)
    }
    grew = True
    while grew:
        grew = False
        for name, nodes in defs.items():
            through = next((r for r in reaching for node in nodes if node_uses(node, r)), None)
            if name not in reaching and through is not None:
                reaching[name] = f"through {through}"
                grew = True
    return reaching


# Calls whose arguments after the condition are a message, by their last name.
_CONDITIONAL_SKIPS = frozenset({"skipIf", "skipUnless", "skipif"})


class _OutsideMessages(cst.CSTVisitor):
    """Whether a node names GPU_TYPE other than in a skip's reason or a
    message (`skipIf(not HAS_MULTIGPU, f"requires multiple {GPU_TYPE} devices")`,
    `functools.partial(unittest.skipIf, ..., f"...{GPU_TYPE}...")`): a
    message places nothing on a device."""

    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def visit_Call(self, node: cst.Call) -> bool:
        name = dotted(node.func).rsplit(".", 1)[-1]
        positional = [a for a in node.args if a.keyword is None and a.star == ""]
        first = 0
        if name in _CONDITIONAL_SKIPS:
            first = 1
        elif name == "partial" and positional and dotted(positional[0].value).rsplit(".", 1)[-1] in _CONDITIONAL_SKIPS:
            first = 2
        node.func.visit(self)
        for arg in node.args:
            message = (arg.keyword is not None and arg.keyword.value in ("msg", "reason", "message")) or (
                first and arg in positional[first:]
            )
            if not message:
                arg.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in ANY_GPU_NAMES:
            self.found = True


def _uses_outside_messages(node: cst.CSTNode) -> bool:
    visitor = _OutsideMessages()
    node.visit(visitor)
    return visitor.found


def refuse_reaching(cls: cst.ClassDef, reaching: dict[str, str]) -> None:
    """Refusal when the class uses a module-level name whose definition
    uses GPU_TYPE (`reaching`: name -> what it is): no rewrite of the class
    changes what that one makes."""
    for name, what in reaching.items():
        if node_uses(cls, name):
            raise Refusal(
                f"{cls.name.value} uses {name}, which uses GPU_TYPE at module level ({what}): "
                f"give it the test's `device`, then migrate"
            )


def module_bindings(stmt: cst.CSTNode) -> Iterator[tuple[str, cst.CSTNode]]:
    """The names a module-level statement binds, each with what binds it,
    into the arms of its `if`, `try` and `with` blocks."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        yield stmt.name.value, stmt
    elif isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            targets = (
                [t.target for t in small.targets]
                if isinstance(small, cst.Assign)
                else [small.target]
                if isinstance(small, cst.AnnAssign) and small.value is not None
                else []
            )
            for target in targets:
                if isinstance(target, cst.Name):
                    yield target.value, small
    elif isinstance(stmt, (cst.If, cst.Try, cst.With, cst.Else, cst.ExceptHandler, cst.Finally)):
        inner = stmt.body
        for child in inner.body if isinstance(inner, cst.IndentedBlock) else ():
            yield from module_bindings(child)
        for arm in (
            getattr(stmt, "orelse", None),
            *getattr(stmt, "handlers", ()),
            getattr(stmt, "finalbody", None),
        ):
            if arm is not None:
                yield from module_bindings(arm)


def _places_by_default(node: cst.CSTNode, gpu: frozenset[str], others: frozenset[str]) -> bool:
    """Whether `node` is a function whose parameter `device` defaults to
    GPU_TYPE (or an alias) and that uses GPU_TYPE nowhere else."""
    if not isinstance(node, cst.FunctionDef):
        return False
    params = node.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    device = next((p for p in every if p.name.value == "device"), None)
    if device is None or device.default is None or dotted(device.default) not in gpu:
        return False
    if device not in params.kwonly_params:
        return False  # a positional `device`: a call's positional arguments may reach it
    names = gpu | others
    parts: list[cst.CSTNode] = [
        node.body,
        *node.decorators,
        *(p.default for p in every if p is not device and p.default),
    ]
    return not any(node_uses(part, n) for part in parts for n in names)


def _sets_device_only(node: cst.CSTNode, gpu: frozenset[str], others: frozenset[str]) -> bool:
    """Whether `node` is a class whose only use of GPU_TYPE is `device =
    GPU_TYPE` (or an alias), and that never reads `self.device` itself."""
    if not isinstance(node, cst.ClassDef) or not isinstance(node.body, cst.IndentedBlock):
        return False
    setting = False
    for stmt in node.body.body:
        if gpu_attribute(stmt, gpu) == _BASE_ATTRIBUTE:
            setting = True
        elif any(node_uses(stmt, n) for n in gpu | others):
            return False
        elif isinstance(stmt, cst.FunctionDef) and node_uses(stmt, _BASE_ATTRIBUTE):
            return False  # may read `self.device`
    # Its decorators and its own bases may reach GPU_TYPE in no other way.
    outside: list[cst.CSTNode] = [*node.decorators, *node.bases, *node.keywords]
    return setting and not any(node_uses(d, n) for d in outside for n in gpu | others)


def _uncalled(cls: cst.ClassDef, name: str) -> bool:
    """Whether `name` appears in the class other than as the function of a call."""
    visitor = _Uncalled(name)
    cls.visit(visitor)
    return visitor.found


class _Uncalled(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.called: set[int] = set()
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        self.called.add(id(node.func))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False  # `x.T` names another object's attribute

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name and id(node) not in self.called:
            self.found = True


class _Spelt(cst.CSTTransformer):
    """Aliases renamed GPU_TYPE; placing calls given `device=GPU_TYPE`."""

    def __init__(self, found: Spellings) -> None:
        super().__init__()
        self.found = found
        self.attributes: set[int] = set()
        self.refusal = ""

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attributes.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.attributes.add(id(node.keyword))

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        if original_node.value in self.found.aliases and id(original_node) not in self.attributes:
            return cst.Name("GPU_TYPE")
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if not isinstance(original_node.func, cst.Name) or original_node.func.value not in self.found.placers:
            return updated_node
        if any(a.star == "**" for a in updated_node.args):
            raise Refusal(
                f"a call of {original_node.func.value} passes `**` arguments, its device unknown: migrate by hand"
            )
        if any(a.keyword is not None and a.keyword.value == "device" for a in updated_node.args):
            return updated_node
        args = list(updated_node.args)
        device = cst.Arg(
            cst.Name("GPU_TYPE"),
            keyword=cst.Name("device"),
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
            ),
        )
        if args and isinstance(args[-1].comma, cst.Comma):
            # A trailing comma (a call over several lines): the device on a line of its own, as the others.
            device = device.with_changes(comma=args[-1].comma)
        elif args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return updated_node.with_changes(args=[*args, device])


def respelt(data: bytes, class_name: str, occurrence: int, facts: ModuleFacts) -> bytes:
    """The module with the class (`class_name`, its `occurrence`-th) in
    GPU_TYPE's own spelling (`spelt_as_gpu_type`), for a split that sorts its
    tests by what they use; `data` itself when the module binds no alias of
    GPU_TYPE (the facts say: no parse) or nothing changes. Refusal as
    `spelt_as_gpu_type`'s."""

    if not facts.gpu_bindings:
        return data
    module = parse_module(data, MigrateError)
    index = find_class(module.body, class_name, occurrence)
    cls = module.body[index]
    assert isinstance(cls, cst.ClassDef)
    reaching = reaching_any_gpu(module.body, index)
    found = spellings(module.body, index, reaching)
    spelt = spelt_as_gpu_type(cls, found)
    refuse_reaching(spelt, {k: v for k, v in reaching.items() if k not in found.names})
    if spelt is cls:
        return data
    body = list(module.body)
    body[index] = spelt
    return module.with_changes(body=body).code.encode(module.encoding)
