"""HWC103 `device-decorator`: ACCELERATOR test uses a device-specific @only* decorator.

The rule, its examples and its check; `hwlint rule HWC103` prints its
explanation (the class docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Sequence

from hwlint.facts.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation, plural, snippet

if TYPE_CHECKING:
    from hwlint.core.diagnostics import Diagnostic
    from hwlint.facts import ModuleFacts

# The one @only* decorator that does not tie a test to some devices.
DEVICE_NEUTRAL = frozenset({"onlyAccelerator"})


def is_device_specific(decorator: str, allowed: frozenset[str] | tuple[str, ...] = ()) -> bool:
    """`@onlyCUDA`, `@onlyOn(...)`, `@onlyNativeDeviceTypes`...: any `only` +
    capital letter but `@onlyAccelerator` and the `allowed-only-decorators` setting."""
    return (
        decorator.startswith("only")
        and decorator[4:5].isupper()
        and decorator not in DEVICE_NEUTRAL
        and decorator not in allowed
    )


class DeviceDecorator(Rule):
    """
    ## What it does
    Reports a test method of an ACCELERATOR class decorated with a
    device-specific `@only*` decorator, once per decorator: `@onlyCPU`,
    `@onlyCUDA`, `@onlyMPS`, `@onlyXPU`, `@onlyHPU`, `@onlyPRIVATEUSE1`,
    `@onlyCUDAAndPRIVATEUSE1`, `@onlyOn(...)`, `@onlyNativeDeviceTypes`,
    `@onlyNativeDeviceTypesAnd(...)` (PyTorch's TEST_LINTER list), and any
    other `@only` + capital letter decorator (`@onlyCUDAAndXPU`). Only
    `@onlyAccelerator` is allowed.

    ## Why is this bad?
    ACCELERATOR promises that the tests run on every accelerator. A test
    limited to some devices runs nowhere else, so the class's claim is false
    for that test. `@onlyNativeDeviceTypes` is one of them: it skips every
    PrivateUse1 backend (NPU, OpenReg, ...), exactly the out-of-tree
    accelerators the classification exists for. `@onlyAccelerator` runs on
    any accelerator, which is what ACCELERATOR means.

    ## Example
    ```python
        @onlyCUDA
        def test_cuda_graph(self, device): ...

        @onlyNativeDeviceTypes
        def test_sort(self, device): ...
    ```

    ## Use instead
    Move the test to a class classified for that device (e.g. CUDA), or use
    `@onlyAccelerator` if it works on every accelerator.

    ## Options
    `allowed-only-decorators` (default `[]`): decorators accepted besides
    `@onlyAccelerator`. `["onlyNativeDeviceTypes", "onlyNativeDeviceTypesAnd"]`
    restores hwlint's older, narrower rule, which TEST_LINTER does not have.
    """

    code = "HWC103"
    counted_by = "finding"  # one per site or test
    name = "device-decorator"
    summary = "ACCELERATOR test uses a device-specific @only* decorator"
    VALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    @onlyAccelerator
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals())
                """)
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CUDA
                    @onlyCUDA
                    def test_a(self, device): pass
                """)
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    @onlyNativeDeviceTypes
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals())
                """),
            settings={"allowed-only-decorators": ["onlyNativeDeviceTypes"]},
        ),
    )
    INVALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    @onlyCUDA
                    @dtypes(torch.float)
                    def test_a(self, device, dtype): pass

                instantiate_device_type_tests(TestA, globals())
                """),
            expect=((5, 5),),
            messages=("TestA.test_a is ACCELERATOR but decorated @onlyCUDA",),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    @onlyNativeDeviceTypes
                    @common_device_type.onlyOn(['cuda', 'xpu'])
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals())
                """),
            expect=((5, 5), (5, 5)),
            messages=(
                "TestA.test_a is ACCELERATOR but decorated @onlyNativeDeviceTypes, which limits it to some devices",
                "TestA.test_a is ACCELERATOR but decorated @onlyOn, which limits it to some devices",
            ),
        ),
    )

    @classmethod
    def surfaced(cls, diagnostics: Sequence[Diagnostic], member: str, module: ModuleFacts) -> str:
        # The decorators, from the facts of the methods reported.
        lines = {d.line for d in diagnostics}
        names = sorted(
            {
                dec
                for c in module.classes
                for m in c.methods
                if m.line in lines
                for dec in m.decorators
                if is_device_specific(dec)
            }
        )
        used = "/".join(f"@{name}" for name in names) or "a device-specific @only* decorator"
        return f"{plural(len(diagnostics), 'test uses', 'tests use')} {used} ({cls.code})"

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        allowed = frozenset(ctx.config.allowed_only_decorators)
        for info in ctx.test_classes():
            if info.classification != "ACCELERATOR":
                continue
            for method in info.facts.methods:
                for decorator in method.decorators:
                    if is_device_specific(decorator, allowed):
                        yield Violation(
                            method.line,
                            method.column,
                            f"{info.facts.name}.{method.name} is ACCELERATOR but decorated @{decorator}, "
                            "which limits it to some devices: move it to a class for that device, or use @onlyAccelerator",
                            info.facts.name,
                            method=method.name,
                        )
