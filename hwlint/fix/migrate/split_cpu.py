"""The CPU tests of a split (hwlint.fix.migrate.split), as PyTorch's
contributors made them ("[Testcase Refactoring]" of inductor's
`test_minifier_isolate.py`: `MinifierIsolateTestsOnlyCPU`, CPU): a
device-free test that hands a helper of the class the CPU where a device
test hands it its device

    def test_after_aot_cpu_runtime_error(self):
        self._test_after_aot_runtime_error("cpu", "")

    @requires_cuda
    def test_after_aot_cuda_runtime_error(self):
        self._test_after_aot_runtime_error("cuda", "device-side assert")

is the CPU's case of a test of each device, not a test of no device.
When every device-free test of the class is one, their class is
`<Name>OnlyCPU`, CPU, its tests taking `device` in the CPU's place, and
instantiated with `only_for="cpu"`; a class with device-free tests of
both kinds keeps them all GENERIC (a third class is not made)."""

from __future__ import annotations

from typing import Mapping, Sequence

import libcst as cst

from hwlint.fix.edits import dotted
from hwlint.fix.migrate.outcome import Refusal
from hwlint.fix.migrate.parameters import with_device

# What the CPU class's instantiation passes after `globals()`.
ONLY_CPU = ', only_for="cpu"'

# Where a call hands a helper its device: the parameter's name.
Slot = str


def cpu_tests(
    tests: Mapping[int, cst.FunctionDef],
    generic: Sequence[int],
    device: Sequence[int],
    helpers: Mapping[str, Sequence[str]],
) -> bool:
    """Whether every device-free test (`generic`, indices of `tests`) hands a
    helper of the class (`helpers`: its own methods and their parameters
    after `self`) the CPU (`"cpu"`) for a parameter that names a device,
    where a device test hands the same helper something else."""
    if not generic:
        return False
    handed: dict[str, set[Slot]] = {}
    for i in device:
        for helper, slot, value in _helper_arguments(tests[i], helpers):
            if not _is_cpu(value):
                handed.setdefault(helper, set()).add(slot)
    return all(
        any(
            _is_cpu(value) and slot in handed.get(helper, ())
            for helper, slot, value in _helper_arguments(tests[i], helpers)
        )
        for i in generic
    )


def own_helpers(cls: cst.ClassDef) -> dict[str, tuple[str, ...]]:
    """The class's own methods that are no test, and their parameters after
    `self` (a `unittest.TestCase` method such as `assertEqual` is none of them)."""
    assert isinstance(cls.body, cst.IndentedBlock)
    found: dict[str, tuple[str, ...]] = {}
    for stmt in cls.body.body:
        if not isinstance(stmt, cst.FunctionDef) or stmt.name.value.startswith("test"):
            continue
        if any(dotted(d.decorator) == "staticmethod" for d in stmt.decorators):
            continue  # no `self` first: its parameters would not line up
        params = [*stmt.params.posonly_params, *stmt.params.params]
        found[stmt.name.value] = tuple(p.name.value for p in params[1:])
    return found


def as_cpu_test(fn: cst.BaseStatement, helpers: Mapping[str, Sequence[str]]) -> cst.FunctionDef:
    """The test given `device` after `self`, and its `"cpu"` handed to a
    helper of the class (`helpers`, as `own_helpers` says) made `device`;
    Refusal when it has no `self`."""
    assert isinstance(fn, cst.FunctionDef)  # a test of the class's body
    params = with_device(fn.params)
    if params is None:
        raise Refusal(f"not split: {fn.name.value} has no `self` to put `device` after")
    body = fn.body.visit(_CpuHanded(helpers))
    assert isinstance(body, cst.BaseSuite)
    return fn.with_changes(params=params, body=body)


def _is_cpu(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.SimpleString) and value.evaluated_value == "cpu"


def _device_slots(call: cst.Call, helpers: Mapping[str, Sequence[str]]) -> list[tuple[int, str]]:
    """The arguments of a `self.<helper>(...)` call that go to a parameter of
    the helper naming a device: their index and the parameter; none for
    another call, or one with `*` or `**` (where each goes is not known)."""
    helper = dotted(call.func)
    params = helpers.get(helper[len("self.") :]) if helper.startswith("self.") else None
    if params is None or any(arg.star for arg in call.args):
        return []
    slots = []
    for at, arg in enumerate(call.args):
        name = arg.keyword.value if arg.keyword is not None else params[at] if at < len(params) else ""
        if "device" in name:
            slots.append((at, name))
    return slots


def _helper_arguments(
    fn: cst.FunctionDef, helpers: Mapping[str, Sequence[str]]
) -> list[tuple[str, Slot, cst.BaseExpression]]:
    """Each argument of each `self.<helper>(...)` call in the test that goes
    to a parameter of the helper naming a device: the helper, its slot, its value."""
    found: list[tuple[str, Slot, cst.BaseExpression]] = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            found.extend((dotted(node.func), name, node.args[at].value) for at, name in _device_slots(node, helpers))

    fn.body.visit(_Calls())
    return found


class _CpuHanded(cst.CSTTransformer):
    """`self.<helper>(..., "cpu", ...)` -> `self.<helper>(..., device, ...)`,
    for a parameter of a helper of the class that names a device."""

    def __init__(self, helpers: Mapping[str, Sequence[str]]) -> None:
        super().__init__()
        self.helpers = helpers

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        args = list(updated_node.args)
        for at, _ in _device_slots(original_node, self.helpers):
            if _is_cpu(args[at].value):
                args[at] = args[at].with_changes(value=cst.Name("device"))
        return updated_node.with_changes(args=args)
