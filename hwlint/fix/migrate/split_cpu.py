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

# Where a call hands a helper its device: a positional index or a keyword.
Slot = int | str


def cpu_tests(tests: Mapping[int, cst.FunctionDef], generic: Sequence[int], device: Sequence[int]) -> bool:
    """Whether every device-free test (`generic`, indices of `tests`) hands a
    helper of the class (`self.<helper>(...)`) the CPU (`"cpu"`) in a slot
    where a device test hands the same helper something else."""
    if not generic:
        return False
    handed: dict[str, set[Slot]] = {}
    for i in device:
        for helper, slot, value in _helper_arguments(tests[i]):
            if not _is_cpu(value):
                handed.setdefault(helper, set()).add(slot)
    return all(
        any(_is_cpu(value) and slot in handed.get(helper, ()) for helper, slot, value in _helper_arguments(tests[i]))
        for i in generic
    )


def as_cpu_test(fn: cst.BaseStatement) -> cst.FunctionDef:
    """The test given `device` after `self`, and its `"cpu"` handed to a
    helper of the class made `device`; Refusal when it has no `self`."""
    assert isinstance(fn, cst.FunctionDef)  # a test of the class's body
    params = with_device(fn.params)
    if params is None:
        raise Refusal(f"not split: {fn.name.value} has no `self` to put `device` after")
    body = fn.body.visit(_CpuHanded())
    assert isinstance(body, cst.BaseSuite)
    return fn.with_changes(params=params, body=body)


def _is_cpu(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.SimpleString) and value.evaluated_value == "cpu"


def _helper_arguments(fn: cst.FunctionDef) -> list[tuple[str, Slot, cst.BaseExpression]]:
    """Each argument of each `self.<helper>(...)` call in the test: the
    helper, its slot, its value."""
    found: list[tuple[str, Slot, cst.BaseExpression]] = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            helper = dotted(node.func)
            if not helper.startswith("self.") or helper.count(".") != 1:
                return
            for at, arg in enumerate(node.args):
                if arg.star:
                    return
                slot: Slot = arg.keyword.value if arg.keyword is not None else at
                found.append((helper, slot, arg.value))

    fn.body.visit(_Calls())
    return found


class _CpuHanded(cst.CSTTransformer):
    """`self.<helper>(..., "cpu", ...)` -> `self.<helper>(..., device, ...)`."""

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(value=cst.Name("device")) if _is_cpu(original_node.value) else updated_node

    def visit_Call(self, node: cst.Call) -> bool:
        helper = dotted(node.func)
        return helper.startswith("self.") and helper.count(".") == 1
