"""HWC001 `missing-classification`: Test class declares no classification (and inherits none).

The rule, its examples and its check; `hwlint rule HWC001` prints its
explanation (the class docstring)."""

from __future__ import annotations

from typing import Iterator

from hwlint.core.diagnostics import NotFixable
from hwlint.facts.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation, snippet
from hwlint.rules.infer import infer


class MissingClassification(Rule):
    """
    ## What it does
    Reports a test class (a class with test methods of its own, or inherited
    from a base hwlint can resolve) that declares no `hw_classification` and
    inherits none.

    With `inheritance = "explicit"` (PyTorch's TEST_LINTER policy), every
    class with test methods of its own must declare it in its own body.

    ## Why is this bad?
    The test runner of each accelerator selects tests by this attribute. An
    unclassified class is run everywhere or nowhere, and nobody can tell
    which tests apply to which hardware.

    ## Example
    ```python
    class TestAdd(TestCase):
        def test_add(self):
            self.assertEqual(1 + 1, 2)
    ```

    ## Use instead
    ```python
    class TestAdd(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_add(self):
            self.assertEqual(1 + 1, 2)
    ```

    ## Fix safety
    `hwlint fix` infers the value: instantiated by
    `instantiate_device_type_tests` without `only_for` is ACCELERATOR, with
    `only_for` one device is that device, no device anywhere is GENERIC
    (safe fixes); a class whose only accelerator use is one device gets an
    unsafe fix; contradicting evidence gets none.

    A class whose tests need an accelerator is never a safe GENERIC (a
    GENERIC class runs on CPU runners only, where they would skip): a base
    class, in any file, that hard-codes or uses a device
    (`torch.device("npu")` in a helper), skip-unless decorators on the class
    or on every test (`@skip_if_lt_x_gpu(2)`, `@requires_nccl()`,
    `@requires_cuda`, `@skipIf(not TEST_CUDA, ...)`), a skip in `setUp`
    without an accelerator, a device from `get_devtype()`. One device named:
    an unsafe fix to it; any accelerator: no fix, and why. Some guarded
    tests only, or a base that asks about an accelerator: GENERIC, unsafe.

    ## Options
    `inheritance`, `attribute`, `enum`.
    """

    code = "HWC001"
    name = "missing-classification"
    summary = "Test class declares no classification (and inherits none)"
    fixable = True
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
            class Helper:
                def helper(self): pass
            """)
        ),
        Example(
            snippet("""\
                class Base(TestCase):
                    hw_classification = HardwareClassification.GENERIC

                class TestB(Base):
                    def test_b(self): pass
                """)
        ),
        Example(
            snippet("""\
                from common_foo import Base

                class TestC(Base):
                    def test_c(self): pass
                """),
            files={
                "test/common_foo.py": snippet("""\
                    class Base(TestCase):
                        hw_classification = HardwareClassification.GENERIC
                    """)
            },
        ),
        Example(
            snippet("""\
                class TestD(TestCase):
                    def test_d(self): pass

                TestD.hw_classification = HardwareClassification.GENERIC
                """)
        ),
        Example(
            snippet("""\
            class TestE(TestCase):  # noqa: HWC001
                def test_e(self): pass
            """)
        ),
    )
    INVALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    def test_a(self): pass
                """),
            expect=((1, 1),),
            messages=(
                "test class TestA declares no hw_classification: add `hw_classification = HardwareClassification.GENERIC`",
            ),
            fixed=snippet("""\
                from torch.testing._internal.common_utils import HardwareClassification
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC

                    def test_a(self): pass
                """),
        ),
        Example(
            snippet("""\
                if True:
                    class TestB(TestCase):
                        async def test_b(self): pass
                """),
            expect=((2, 5),),
            messages=("test class TestB declares no hw_classification",),
            fixed=snippet("""\
                from torch.testing._internal.common_utils import HardwareClassification
                if True:
                    class TestB(TestCase):
                        hw_classification = HardwareClassification.GENERIC

                        async def test_b(self): pass
                """),
        ),
        Example(
            snippet("""\
                from common_foo import Base

                class TestC(Base):
                    pass
                """),
            files={
                "test/common_foo.py": snippet("""\
                class Base(TestCase):
                    def test_inherited(self): pass
                """)
            },
            expect=((3, 1),),
            messages=("test class TestC declares no hw_classification",),
            fixed=snippet("""\
                from common_foo import Base
                from torch.testing._internal.common_utils import HardwareClassification

                class TestC(Base):
                    hw_classification = HardwareClassification.GENERIC
                    pass
                """),
        ),
        Example(
            snippet("""\
                class Base(TestCase):
                    hw_classification = HardwareClassification.GENERIC

                class TestB(Base):
                    def test_b(self): pass
                """),
            settings={"inheritance": "explicit"},
            expect=((4, 1),),
            messages=("it inherits GENERIC from Base, but inheritance is explicit",),
            fixed=snippet("""\
                from torch.testing._internal.common_utils import HardwareClassification
                class Base(TestCase):
                    hw_classification = HardwareClassification.GENERIC

                class TestB(Base):
                    hw_classification = HardwareClassification.GENERIC

                    def test_b(self): pass
                """),
        ),
        # Weaker evidence: an unsafe fix; contradicting evidence: none, and why.
        Example(
            snippet("""\
                class TestA(TestCase):
                    @onlyCUDA
                    def test_a(self): pass
                """),
            expect=((1, 1),),
            messages=(
                "add `hw_classification = HardwareClassification.CUDA` (every accelerator use in the class is CUDA)",
            ),
            # `fix --unsafe` makes it device-generic: its test names no device but in
            # its @onlyCUDA, which becomes @onlyAccelerator (hwlint.fix.migrate).
            unsafe_fixed=snippet("""\
                from torch.testing._internal.common_utils import HardwareClassification
                from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyAccelerator
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR

                    @onlyAccelerator
                    def test_a(self, device): pass


                instantiate_device_type_tests(TestA, globals(), allow_xpu=True)
                """),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    def test_a(self, device): pass
                """),
            expect=((1, 1),),
            messages=("test methods take a device (test_a) but the class is never instantiated",),
            # `fix --unsafe` drops the parameter no test uses (hwlint.fix.migrate).
            unsafe_fixed=snippet("""\
                from torch.testing._internal.common_utils import HardwareClassification
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC

                    def test_a(self): pass
                """),
        ),
        # Tests that need an accelerator: never a safe GENERIC.
        Example(
            snippet("""\
                from testutils import TestUtils

                class TestAbs(TestUtils):
                    def test_abs(self): pass
                """),
            files={
                "test/testutils.py": snippet("""\
                    class TestUtils(TestCase):
                        def make(self):
                            return torch.ones(2, device=torch.device('cuda'))
                    """)
            },
            expect=((3, 1),),
            messages=(
                "add `hw_classification = HardwareClassification.CUDA` (its tests need CUDA: "
                'torch.device("cuda") in TestUtils, test/testutils.py:3)',
            ),
            unsafe_fixed=snippet("""\
                from testutils import TestUtils
                from torch.testing._internal.common_utils import HardwareClassification

                class TestAbs(TestUtils):
                    hw_classification = HardwareClassification.CUDA

                    def test_abs(self): pass
                """),
        ),
        Example(
            snippet("""\
                class TestFSDP(FSDPTest):
                    @skip_if_lt_x_gpu(2)
                    def test_a(self): pass
                """),
            expect=((1, 1),),
            messages=("its tests run only with an accelerator (@skip_if_lt_x_gpu(2), line 2)",),
            # `fix --unsafe`: ACCELERATOR, kept off CPU, where its tests never ran (hwlint.fix.migrate.generalize).
            unsafe_fixed=snippet("""\
                from torch.testing._internal.common_utils import HardwareClassification
                from torch.testing._internal.common_device_type import instantiate_device_type_tests
                class TestFSDP(FSDPTest):
                    hw_classification = HardwareClassification.ACCELERATOR

                    @skip_if_lt_x_gpu(2)
                    def test_a(self, device): pass


                instantiate_device_type_tests(TestFSDP, globals(), except_for="cpu", allow_xpu=True)
                """),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals(), only_for='privateuse1')
                """),
            expect=((1, 1),),
            messages=(
                "instantiated with only_for='privateuse1' (one device), which is not a configured "
                "classification: add it to `classifications`",
            ),
            # `fix --unsafe`: ACCELERATOR, blacklisting the other devices (hwlint.fix.migrate).
            unsafe_fixed=snippet("""\
                from torch.testing._internal.common_utils import HardwareClassification
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR

                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals(), except_for=('cpu', 'cuda', 'hpu'))
                """),
        ),
        Example(
            snippet("""\
                class _OpsTests(object):
                    def test_a(self, device): pass
                """),
            expect=((1, 1),),
            messages=(
                "test methods take a device (test_a) but the class is a mixin, never instantiated: give it the "
                "classification of the classes that run its tests",
            ),
        ),
    )

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        explicit = ctx.config.inheritance == "explicit"
        attribute, enum = ctx.config.attribute, ctx.config.enum
        for info in ctx.test_classes():
            if info.declared:
                continue
            if explicit:
                if not info.facts.methods:
                    continue
            elif info.classification is not None:
                continue
            guess = infer(ctx, info)
            fix = guess.as_fix()
            if fix is not None:
                hint = f"`{attribute} = {enum}.{fix.classification}` ({fix.evidence})"
            else:
                hint = f"`{attribute} = {enum}.<MEMBER>`; {guess.evidence}"
            inherited = (info.classification, info.inherited_from) if explicit and info.classification else None
            yield Violation(
                info.facts.line,
                info.facts.column,
                message(info.facts.name, attribute, hint, inherited),
                info.facts.name,
                fix if fix is not None else NotFixable(hint, guess.kind, guess.device),
            )


def message(class_name: str, attribute: str, hint: str, inherited: tuple[str, str | None] | None) -> str:
    """HWC001's message. `hint` is the declaration to add (and its evidence),
    or what a human must decide; `inherited` the (classification, base) an
    explicit-inheritance project does not accept."""
    note = f"; it inherits {inherited[0]} from {inherited[1]}, but inheritance is explicit" if inherited else ""
    return f"test class {class_name} declares no {attribute}{note}: add {hint}"
