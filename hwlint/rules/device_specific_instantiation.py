from __future__ import annotations

from typing import Iterator

from hwlint.facts.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation

# The device string instantiate_device_type_tests uses for each member.
DEVICE_OF = {"CPU": "cpu", "CUDA": "cuda", "MPS": "mps", "XPU": "xpu"}


class DeviceSpecificInstantiation(Rule):
    """
    ## What it does
    Reports the instantiation of a CPU, CUDA, MPS or XPU class that is not
    limited to that device: without `only_for="<device>"`, or with
    `except_for`. MPS and XPU classes must also pass `allow_mps=True` /
    `allow_xpu=True`, without which those devices are never instantiated.
    A device class that is not instantiated at all is fine.

    ## Why is this bad?
    A class classified for one device but instantiated for several runs its
    tests on devices it was not written for, and the runners that select by
    classification disagree with what actually runs.

    ## Example
    ```python
    class TestCudaGraphs(TestCase):
        hw_classification = HardwareClassification.CUDA
        def test_capture(self, device): ...

    instantiate_device_type_tests(TestCudaGraphs, globals())
    ```

    ## Use instead
    ```python
    instantiate_device_type_tests(TestCudaGraphs, globals(), only_for="cuda")
    ```
    """

    code = "HWC111"
    name = "device-specific-instantiation"
    summary = "Device class not instantiated for exactly its device"
    default = False
    VALID = (
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.XPU\n    def test_a(self, device): pass\n\n"
            "instantiate_device_type_tests(TestA, globals(), only_for='xpu', allow_xpu=True)\n"
        ),
    )
    INVALID = (
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.CUDA\n    def test_a(self, device): pass\n\n"
            "instantiate_device_type_tests(TestA, globals())\n",
            expect=((5, 1),),
            messages=("CUDA test class TestA is instantiated for other devices: pass only_for='cuda'",),
        ),
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.MPS\n    def test_a(self, device): pass\n\n"
            "instantiate_device_type_tests(TestA, globals(), only_for='mps')\n",
            expect=((5, 1),),
            messages=('MPS test class TestA is instantiated for other devices: pass allow_mps=True',),
        ),
    )

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        members = {info.facts.name: info.classification for info in ctx.test_classes()}
        for call in ctx.facts.instantiations:
            member = members.get(call.class_name or "")
            device = DEVICE_OF.get(member or "")
            if device is None:
                continue
            problems = []
            if call.except_for is not None:
                problems.append(f"use only_for={device!r} instead of except_for")
            elif call.only_for != (device,):
                problems.append(f"pass only_for={device!r}")
            if member == "MPS" and not call.allow_mps:
                problems.append("pass allow_mps=True")
            if member == "XPU" and not call.allow_xpu:
                problems.append("pass allow_xpu=True")
            if problems:
                yield Violation(
                    call.line, call.column,
                    f"{member} test class {call.class_name} is instantiated for other devices: " + ", ".join(problems),
                    call.class_name,
                )
