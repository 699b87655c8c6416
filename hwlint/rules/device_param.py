"""HWC102 `device-param`: GENERIC test takes `device`, or ACCELERATOR or device-class test does not.

The rule, its examples and its check; `hwlint rule HWC102` prints its
explanation (the class docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Sequence

from hwlint.facts.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation, plural, snippet
from hwlint.rules.device_specific_instantiation import device_of

if TYPE_CHECKING:
    from hwlint.core.diagnostics import Diagnostic
    from hwlint.facts import ModuleFacts

_DEVICE_PARAMS = frozenset({"device", "devices"})


class DeviceParam(Rule):
    """
    ## What it does
    Reports a test method of a GENERIC class that takes a `device` (or
    `devices`) parameter, and a test method of an ACCELERATOR or device
    class (CPU, CUDA, MPS, XPU, or a device member the project configures,
    such as NPU) that takes neither. The class's effective classification
    counts: a class that inherits ACCELERATOR from a base in another file
    must still take `device`.

    ## Why is this bad?
    `instantiate_device_type_tests` passes the device under test as that
    parameter. A GENERIC test that takes one is written for devices; an
    ACCELERATOR test that takes none ignores the device it is run for and
    tests the CPU once per accelerator. A device class is instantiated for
    its device (HWC101, HWC111), and a test that takes no device hard-codes
    it (`"cuda"`, `.cuda()`) instead of using the one it is given
    (`cuda:1` on a runner that assigns devices, or a device type renamed
    for a PrivateUse1 backend).

    ## Differences from TEST_LINTER
    TEST_LINTER checks the `def test_*` methods written directly in the body
    of a module-level class; hwlint also checks `async def` tests, tests
    named `test` or `testFoo`, tests inside `if`/`try` blocks of the body,
    and classes in `if`/`try` blocks, by their effective classification.

    ## Example
    ```python
    class TestOps(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR

        def test_add(self):
            torch.ones(2) + 1
    ```

    ## Use instead
    ```python
        def test_add(self, device):
            torch.ones(2, device=device) + 1
    ```
    """

    code = "HWC102"
    counted_by = "finding"  # one per site or test
    name = "device-param"
    summary = "GENERIC test takes `device`, or ACCELERATOR or device-class test does not"
    VALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    def test_a(self): pass
                """)
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def test_a(self, devices): pass

                instantiate_device_type_tests(TestA, globals())
                """)
        ),
    )
    INVALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    def test_a(self, device): pass
                """),
            expect=((3, 5),),
            messages=("TestA.test_a takes a device but the class is GENERIC",),
        ),
        Example(
            snippet("""\
                from common_foo import Base

                class TestA(Base):
                    def test_a(self): pass

                instantiate_device_type_tests(TestA, globals())
                """),
            files={
                "test/common_foo.py": snippet("""\
                    class Base(TestCase):
                        hw_classification = HardwareClassification.ACCELERATOR
                    """)
            },
            expect=((4, 5),),
            messages=("TestA.test_a takes no device but the class is ACCELERATOR (inherited from Base",),
        ),
        # TEST_LINTER's [device_param] of a device class.
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CUDA
                    def test_a(self):
                        torch.ones(2).cuda()
                    async def test_b(self, devices): pass

                instantiate_device_type_tests(TestA, globals(), only_for='cuda')
                """),
            expect=((3, 5),),
            messages=(
                "TestA.test_a takes no device but the class is CUDA: add a `device` parameter and use it "
                "(instantiate_device_type_tests passes the cuda device under test)",
            ),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.NPU
                    def test_a(self): pass

                instantiate_device_type_tests(TestA, globals(), only_for='npu')
                """),
            settings={"classifications": ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "NPU"]},
            expect=((3, 5),),
            messages=("TestA.test_a takes no device but the class is NPU",),
        ),
    )

    @classmethod
    def surfaced(cls, diagnostics: Sequence[Diagnostic], member: str, module: ModuleFacts) -> str:
        n = len(diagnostics)
        if member == "GENERIC":
            verb = "takes a device" if n == 1 else "take a device"
        else:
            verb = "takes no device" if n == 1 else "take no device"
        return f"{plural(n, 'test', 'tests')} {verb} ({cls.code})"

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        for info in ctx.test_classes():
            member = info.classification
            device = device_of(member, ctx.config)
            if member not in ("GENERIC", "ACCELERATOR") and device is None:
                continue
            for method in info.facts.methods:
                takes = bool(_DEVICE_PARAMS & set(method.params))
                where = f" (inherited from {info.inherited_from})" if info.inherited_from else ""
                if member == "GENERIC" and takes:
                    yield Violation(
                        method.line,
                        method.column,
                        f"{info.facts.name}.{method.name} takes a device but the class is GENERIC{where}: "
                        "drop the parameter, or classify the class ACCELERATOR and instantiate it",
                        info.facts.name,
                        method=method.name,
                    )
                elif member == "ACCELERATOR" and not takes:
                    yield Violation(
                        method.line,
                        method.column,
                        f"{info.facts.name}.{method.name} takes no device but the class is ACCELERATOR{where}: "
                        "add a `device` parameter and use it",
                        info.facts.name,
                        method=method.name,
                    )
                elif device is not None and not takes:
                    yield Violation(
                        method.line,
                        method.column,
                        f"{info.facts.name}.{method.name} takes no device but the class is {member}{where}: "
                        f"add a `device` parameter and use it (instantiate_device_type_tests passes the {device} "
                        "device under test)",
                        info.facts.name,
                        method=method.name,
                    )
