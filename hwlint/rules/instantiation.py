from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Sequence

from hwlint.facts.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation, plural

if TYPE_CHECKING:
    from hwlint.core.diagnostics import Diagnostic
    from hwlint.facts import ModuleFacts


class Instantiation(Rule):
    """
    ## What it does
    Reports a GENERIC test class passed to `instantiate_device_type_tests`,
    and an ACCELERATOR test class that is never passed to it in its module.

    ## Why is this bad?
    GENERIC means "runs once, on no particular device"; instantiating it per
    device runs the same tests once per backend. ACCELERATOR means "runs on
    every accelerator"; only `instantiate_device_type_tests` makes that
    happen, so an ACCELERATOR class that is not instantiated runs nowhere (or
    fails for want of a `device` argument).

    A base class that is only used through a subclass instantiated in the
    same module is not reported.

    ## Example
    ```python
    class TestOps(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR

        def test_add(self, device): ...
    ```

    ## Use instead
    ```python
    class TestOps(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR

        def test_add(self, device): ...

    instantiate_device_type_tests(TestOps, globals())
    ```
    """

    code = "HWC101"
    name = "instantiation"
    summary = "GENERIC class instantiated per device, or ACCELERATOR class not instantiated"
    VALID = (
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n    def test_a(self, device): pass\n\n"
            "instantiate_device_type_tests(TestA, globals())\n"
        ),
        Example(
            "class Base(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n    def test_a(self, device): pass\n\n"
            "class TestB(Base):\n    pass\n\ncommon_device_type.instantiate_device_type_tests(TestB, globals())\n"
        ),
    )
    INVALID = (
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n    def test_a(self): pass\n\n"
            "instantiate_device_type_tests(TestA, globals())\n",
            expect=((5, 1),),
            messages=('GENERIC test class TestA is passed to instantiate_device_type_tests',),
        ),
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n    def test_a(self, device): pass\n",
            expect=((1, 1),),
            messages=('ACCELERATOR test class TestA is never passed to instantiate_device_type_tests',),
        ),
    )

    @classmethod
    def surfaced(cls, diagnostics: Sequence[Diagnostic], member: str, module: ModuleFacts) -> str:
        if member == "ACCELERATOR":
            return f"it is never passed to instantiate_device_type_tests ({cls.code})"
        return f"it is instantiated per device ({cls.code})"

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        by_name = {info.facts.name: info for info in ctx.test_classes()}
        calls = ctx.facts.instantiations
        instantiated = {i.class_name for i in calls if i.class_name}
        for call in calls:
            info = by_name.get(call.class_name or "")
            if info is not None and info.classification == "GENERIC":
                yield Violation(
                    call.line,
                    call.column,
                    f"GENERIC test class {info.facts.name} is passed to instantiate_device_type_tests: "
                    "classify it ACCELERATOR (or a device), or do not instantiate it per device",
                    info.facts.name,
                )
        # Bases of instantiated classes are mixins: their tests run through the subclass.
        used_as_base = {
            base.rsplit(".", 1)[-1]
            for info in ctx.classes
            if info.facts.name in instantiated
            for base in info.facts.bases
        }
        for info in ctx.test_classes():
            name = info.facts.name
            if info.classification == "ACCELERATOR" and name not in instantiated and name not in used_as_base:
                yield Violation(
                    info.facts.line,
                    info.facts.column,
                    f"ACCELERATOR test class {name} is never passed to instantiate_device_type_tests: "
                    f"add `instantiate_device_type_tests({name}, globals())`",
                    name,
                )
