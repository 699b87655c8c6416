from __future__ import annotations

from typing import Iterator

from hwlint.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation

# @only* decorators that do not tie a test to one device.
DEVICE_NEUTRAL = frozenset({"onlyAccelerator", "onlyNativeDeviceTypes", "onlyNativeDeviceTypesAnd"})


def is_device_specific(decorator: str) -> bool:
    return decorator.startswith("only") and decorator[4:5].isupper() and decorator not in DEVICE_NEUTRAL


class DeviceDecorator(Rule):
    """
    ## What it does
    Reports a test method of an ACCELERATOR class decorated with a
    device-specific `@only*` decorator (`@onlyCUDA`, `@onlyCPU`,
    `@onlyPRIVATEUSE1`, `@onlyOn(...)`, ...). `@onlyAccelerator` and
    `@onlyNativeDeviceTypes` are fine.

    ## Why is this bad?
    ACCELERATOR promises that the tests run on every accelerator. A test
    limited to one device runs nowhere else, so the class's claim is false
    for that test.

    ## Example
    ```python
        @onlyCUDA
        def test_cuda_graph(self, device): ...
    ```

    ## Use instead
    Move the test to a class classified for that device (e.g. CUDA), or use
    `@onlyAccelerator` if it works on every accelerator.
    """

    code = "HWC103"
    name = "device-decorator"
    summary = "ACCELERATOR test uses a device-specific @only* decorator"
    VALID = (
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n"
            "    @onlyAccelerator\n    def test_a(self, device): pass\n\ninstantiate_device_type_tests(TestA, globals())\n"
        ),
        Example("class TestA(TestCase):\n    hw_classification = HardwareClassification.CUDA\n    @onlyCUDA\n    def test_a(self, device): pass\n"),
    )
    INVALID = (
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n"
            "    @onlyCUDA\n    @dtypes(torch.float)\n    def test_a(self, device, dtype): pass\n\n"
            "instantiate_device_type_tests(TestA, globals())\n",
            expect=((5, 5),),
            messages=('TestA.test_a is ACCELERATOR but decorated @onlyCUDA',),
        ),
    )

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        for info in ctx.test_classes():
            if info.classification != "ACCELERATOR":
                continue
            for method in info.facts.methods:
                specific = [d for d in method.decorators if is_device_specific(d)]
                if specific:
                    yield Violation(
                        method.line, method.column,
                        f"{info.facts.name}.{method.name} is ACCELERATOR but decorated @{specific[0]}: "
                        "move it to a class for that device, or use @onlyAccelerator",
                        info.facts.name,
                    )
