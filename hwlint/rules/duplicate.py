"""HWC106 `duplicate`: Test class defined or instantiated twice in one module.

The rule, its examples and its check; `hwlint rule HWC106` prints its
explanation (the class docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from hwlint.facts.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation, snippet

if TYPE_CHECKING:
    from hwlint.facts import ClassFacts
    from hwlint.facts import Instantiation as InstantiationFacts


class Duplicate(Rule):
    """
    ## What it does
    Reports a test class defined twice in one module, and a class passed to
    `instantiate_device_type_tests` twice. Definitions in alternative arms
    of one `if`/`try` (only one of which runs) are not duplicates.

    ## Why is this bad?
    The second definition replaces the first: the first class's tests never
    run, without any error. A second instantiation registers the device
    classes again and may hide the first set.

    ## Example
    ```python
    class TestFoo(TestCase): ...
    class TestFoo(TestCase): ...   # the first TestFoo is lost
    ```

    ## Use instead
    Rename one of the classes, or merge them.
    """

    code = "HWC106"
    name = "duplicate"
    summary = "Test class defined or instantiated twice in one module"
    VALID = (
        Example(
            snippet("""\
                if IS_WINDOWS:
                    class TestA(TestCase):
                        hw_classification = HardwareClassification.GENERIC
                        def test_a(self): pass
                else:
                    class TestA(TestCase):
                        hw_classification = HardwareClassification.GENERIC
                        def test_a(self): pass
                """)
        ),
    )
    INVALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    def test_a(self): pass

                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    def test_b(self): pass
                """),
            expect=((5, 1),),
            messages=("test class TestA is defined twice (first at line 1)",),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals())
                instantiate_device_type_tests(TestA, globals())
                """),
            expect=((6, 1),),
            messages=("TestA is instantiated twice (first at line 5)",),
        ),
    )

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        seen: dict[str, list[ClassFacts]] = {}
        for info in ctx.test_classes():
            cls = info.facts
            earlier = [c for c in seen.get(cls.name, ()) if not c.branch.excludes(cls.branch)]
            if earlier:
                yield Violation(
                    cls.line,
                    cls.column,
                    f"test class {cls.name} is defined twice (first at line {earlier[0].line}): "
                    "the first definition's tests never run; rename or merge them",
                    cls.name,
                )
            seen.setdefault(cls.name, []).append(cls)
        calls: dict[str, list[InstantiationFacts]] = {}
        for call in ctx.facts.instantiations:
            if call.class_name is None:
                continue
            before = [c for c in calls.get(call.class_name, ()) if not c.branch.excludes(call.branch)]
            if before:
                yield Violation(
                    call.line,
                    call.column,
                    f"{call.class_name} is instantiated twice (first at line {before[0].line}): keep one call",
                    call.class_name,
                )
            calls.setdefault(call.class_name, []).append(call)
