"""HWC101 `instantiation`: GENERIC class instantiated per device, or ACCELERATOR or device class not instantiated.

The rule, its examples and its check; `hwlint rule HWC101` prints its
explanation (the class docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Sequence

from hwlint.facts.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation, snippet
from hwlint.rules.device_specific_instantiation import device_instantiation, device_of

if TYPE_CHECKING:
    from hwlint.core.diagnostics import Diagnostic
    from hwlint.facts import ModuleFacts


class Instantiation(Rule):
    """
    ## What it does
    Reports a GENERIC test class passed to `instantiate_device_type_tests`,
    and an ACCELERATOR or device test class (CPU, CUDA, MPS, XPU, or a
    device member the project configures, such as NPU) that is never passed
    to it in its module.

    ## Why is this bad?
    GENERIC means "runs once, on no particular device"; instantiating it per
    device runs the same tests once per backend. ACCELERATOR means "runs on
    every accelerator"; only `instantiate_device_type_tests` makes that
    happen, so an ACCELERATOR class that is not instantiated runs nowhere (or
    fails for want of a `device` argument). A device class is instantiated
    too, `only_for` its device (HWC111): that is how its tests get the
    device, are named for it (`TestFooCUDA`) and are skipped where it is
    missing, the same way for every device, as TEST_LINTER requires.

    ## Differences from TEST_LINTER
    - A base class that is only used through a subclass instantiated in the
      same module is not reported: its tests run through the subclass
      (TEST_LINTER reports it).
    - Every instantiation counts: inside `if`/`try` blocks and loops,
      through `common_device_type.instantiate_device_type_tests`, by
      `generic_test_class=`. TEST_LINTER sees only a module-level
      statement calling the plain name, and reports the other classes as
      never instantiated.
    - The class's effective classification is judged: a class that inherits
      ACCELERATOR or a device must be instantiated too, and a class in an
      `if`/`try` block is checked (TEST_LINTER lints module-level classes
      with test methods of their own).
    - TEST_LINTER reports a GENERIC class that is instantiated at the
      class; hwlint at each call that instantiates it, where the edit is.

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
    summary = "GENERIC class instantiated per device, or ACCELERATOR or device class not instantiated"
    VALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals())
                """)
        ),
        Example(
            snippet("""\
                class Base(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def test_a(self, device): pass

                class TestB(Base):
                    pass

                common_device_type.instantiate_device_type_tests(TestB, globals())
                """)
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CUDA
                    def test_a(self, device): pass

                if TEST_CUDA:
                    instantiate_device_type_tests(TestA, globals(), only_for='cuda')
                """)
        ),
    )
    INVALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    def test_a(self): pass

                instantiate_device_type_tests(TestA, globals())
                """),
            expect=((5, 1),),
            messages=("GENERIC test class TestA is passed to instantiate_device_type_tests",),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def test_a(self, device): pass
                """),
            expect=((1, 1),),
            messages=("ACCELERATOR test class TestA is never passed to instantiate_device_type_tests",),
        ),
        # TEST_LINTER's [instantiation] of a device class.
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CUDA
                    def test_a(self, device): pass
                """),
            expect=((1, 1),),
            messages=(
                "CUDA test class TestA is never passed to instantiate_device_type_tests: "
                "add `instantiate_device_type_tests(TestA, globals(), only_for='cuda')`",
            ),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.XPU
                    def test_a(self, device): pass
                """),
            expect=((1, 1),),
            messages=("add `instantiate_device_type_tests(TestA, globals(), only_for='xpu', allow_xpu=True)`",),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.NPU
                    def test_a(self, device): pass
                """),
            settings={"classifications": ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "NPU"]},
            expect=((1, 1),),
            messages=("NPU test class TestA is never passed to instantiate_device_type_tests",),
        ),
        # A device inherited from a base in another file counts.
        Example(
            snippet("""\
                from common_foo import Base

                class TestA(Base):
                    def test_a(self, device): pass
                """),
            files={
                "test/common_foo.py": snippet("""\
                class Base(TestCase):
                    hw_classification = HardwareClassification.CPU
                """)
            },
            expect=((3, 1),),
            messages=("CPU test class TestA is never passed to instantiate_device_type_tests",),
        ),
    )

    @classmethod
    def surfaced(cls, diagnostics: Sequence[Diagnostic], member: str, module: ModuleFacts) -> str:
        if member == "GENERIC":
            return f"it is instantiated per device ({cls.code})"
        return f"it is never passed to instantiate_device_type_tests ({cls.code})"

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
            member = info.classification
            if member is None or name in instantiated or name in used_as_base:
                continue
            if member == "ACCELERATOR":
                add = f"instantiate_device_type_tests({name}, globals())"
            elif device_of(member, ctx.config) is not None:
                add = device_instantiation(name, member)
            else:
                continue
            yield Violation(
                info.facts.line,
                info.facts.column,
                f"{member} test class {name} is never passed to instantiate_device_type_tests: add `{add}`",
                name,
            )
