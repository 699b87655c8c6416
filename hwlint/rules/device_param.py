from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Sequence

from hwlint.facts.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation, plural

if TYPE_CHECKING:
    from hwlint.core.diagnostics import Diagnostic
    from hwlint.facts import ModuleFacts

_DEVICE_PARAMS = frozenset({"device", "devices"})


class DeviceParam(Rule):
    """
    ## What it does
    Reports a test method of a GENERIC class that takes a `device` (or
    `devices`) parameter, and a test method of an ACCELERATOR class that
    takes neither. The class's effective classification counts: a class that
    inherits ACCELERATOR from a base in another file must still take `device`.

    ## Why is this bad?
    `instantiate_device_type_tests` passes the device under test as that
    parameter. A GENERIC test that takes one is written for devices; an
    ACCELERATOR test that takes none ignores the device it is run for and
    tests the CPU once per accelerator.

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
    name = "device-param"
    summary = "GENERIC test takes `device`, or ACCELERATOR test does not"
    VALID = (
        Example("class TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n    def test_a(self): pass\n"),
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n    def test_a(self, devices): pass\n\n"
            "instantiate_device_type_tests(TestA, globals())\n"
        ),
    )
    INVALID = (
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n    def test_a(self, device): pass\n", expect=((3, 5),),
            messages=('TestA.test_a takes a device but the class is GENERIC',),
        ),
        Example(
            "from common_foo import Base\n\nclass TestA(Base):\n    def test_a(self): pass\n\n"
            "instantiate_device_type_tests(TestA, globals())\n",
            files={"test/common_foo.py": "class Base(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n"},
            expect=((4, 5),),
            messages=('TestA.test_a takes no device but the class is ACCELERATOR (inherited from Base',),
        ),
    )

    @classmethod
    def surfaced(cls, diagnostics: Sequence[Diagnostic], member: str, module: ModuleFacts) -> str:
        n = len(diagnostics)
        if member == "ACCELERATOR":
            verb = "takes no device" if n == 1 else "take no device"
        else:
            verb = "takes a device" if n == 1 else "take a device"
        return f"{plural(n, 'test', 'tests')} {verb} ({cls.code})"

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        for info in ctx.test_classes():
            member = info.classification
            if member not in ("GENERIC", "ACCELERATOR"):
                continue
            for method in info.facts.methods:
                takes = bool(_DEVICE_PARAMS & set(method.params))
                where = f" (inherited from {info.inherited_from})" if info.inherited_from else ""
                if member == "GENERIC" and takes:
                    yield Violation(
                        method.line, method.column,
                        f"{info.facts.name}.{method.name} takes a device but the class is GENERIC{where}: "
                        "drop the parameter, or classify the class ACCELERATOR and instantiate it",
                        info.facts.name, method=method.name,
                    )
                elif member == "ACCELERATOR" and not takes:
                    yield Violation(
                        method.line, method.column,
                        f"{info.facts.name}.{method.name} takes no device but the class is ACCELERATOR{where}: "
                        "add a `device` parameter and use it",
                        info.facts.name, method=method.name,
                    )
