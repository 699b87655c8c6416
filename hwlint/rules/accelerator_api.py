"""HWC105 `accelerator-api`: GENERIC class probes or uses an accelerator.

The rule, its examples and its check; `hwlint rule HWC105` prints its
explanation (the class docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Sequence

from hwlint.facts.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation, plural, snippet

if TYPE_CHECKING:
    from hwlint.core.diagnostics import Diagnostic
    from hwlint.facts import ModuleFacts


class AcceleratorApi(Rule):
    """
    ## What it does
    Reports each call into an accelerator in the body of a GENERIC test
    class (its methods, their decorators and default arguments, nested
    code, and the class's own decorators), GENERIC by its own declaration or
    inherited (TEST_LINTER looks only at classes with test methods of their
    own, and at their own declaration):

    - every call TEST_LINTER's `[accelerator_availability]` flags: a callee
      that starts with `torch` and has a segment among `accelerator`,
      `cuda`, `hpu`, `ipu`, `mps`, `mtia`, `xla`, `xpu`. That is probes
      (`torch.cuda.is_available()`, `torch.accelerator.is_available()` —
      it still needs some accelerator —, `torch.xpu.has_fp64_dtype()`) and
      uses (`torch.empty(4).cuda()`, `torch.cuda.synchronize()`,
      `torch.backends.cuda.sdp_kernel()`, `torch.ops.xla.add(...)`);
    - deliberately broader than TEST_LINTER: calls into `torch.npu` (a
      PrivateUse1 backend) or an `extend-accelerator-modules` module, the
      `TEST_CUDA`-style flags of `common_utils` (`TEST_CUDA`, `TEST_XPU`,
      `TEST_MPS`, `TEST_MULTIGPU`, `TEST_CUDNN`, `TEST_PRIVATEUSE1`,
      `TEST_NPU`, `extend-accelerator-flags`), and probes in a decorator of
      the class itself (`@unittest.skipIf(not torch.cuda.is_available(), ...)`
      above `class`: no test of the class runs on a CPU-only runner).

    Deliberately narrower than that rule (PyTorch's current TEST_LINTER has
    none): what leaves a test running on a CPU-only runner, the same way, is
    not reported, since PyTorch's own migrated GENERIC classes do it:

    - a skip *when* there is an accelerator (`@unittest.skipIf(torch.cuda.is_available(), ...)`,
      `@skipUnless(not TEST_CUDA, ...)`, `if torch.accelerator.is_available():
      self.skipTest(...)`): the test is for CPU-only runners;
    - an answer handed on to the code under test
      (`Config(use_pinned_memory=torch.accelerator.is_available())`);
    - a branch on one, and the calls in the arm only an accelerator takes
      (`if torch.cuda.is_available(): expected = torch.cuda.device(0)`,
      `x if TEST_CUDA else y`, `if torch.cuda.is_available() and
      torch.cuda.device_count() > 1: ...`).

    A skip *unless* there is one (`skipIf(not ...)`, `skipUnless(...)`,
    `if not ...: self.skipTest(...)` or `return`) and an assertion on one
    (`self.assertTrue(torch.cuda.is_available())`) still are: on a CPU-only
    runner the test never runs, or fails.

    A module named but not called is not accelerator use: a patch target
    (`mock.patch.object(torch.cuda, "is_available", lambda: True)`,
    `mock.patch("torch.cuda.is_available")`), an annotation, an
    `isinstance(x, torch.cuda.Stream)` type, a default `device_module=torch.cuda`.
    Tensor methods on other names (`x.cuda()`) are HWC201's.

    ## Why is this bad?
    GENERIC tests run once, on CPU-only runners too. A test that asks
    whether an accelerator is there, or runs on one, behaves differently per
    runner: it is really an accelerator test, and accelerator runners never
    select it.

    ## Example
    ```python
    class TestSerialization(TestCase):
        hw_classification = HardwareClassification.GENERIC

        @unittest.skipIf(not torch.cuda.is_available(), "needs CUDA")
        def test_load_to_cuda(self):
            torch.load(buf, map_location=lambda s, _: s.cuda())

        def test_pinned(self):
            self.assertTrue(torch.empty(4).cuda().is_cuda)  # TEST_LINTER flags it too
    ```

    ## Use instead
    Move the accelerator tests into an ACCELERATOR class instantiated with
    `instantiate_device_type_tests`, or into a CUDA class.

    ## Options
    An out-of-tree backend adds its own API: `extend-accelerator-modules`
    (e.g. `["torch_npu.npu"]`) and `extend-accelerator-flags` (e.g.
    `["TEST_OPENREG"]`).
    """

    code = "HWC105"
    name = "accelerator-api"
    summary = "GENERIC class probes or uses an accelerator"
    VALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    def test_a(self): torch.ones(2)
                """)
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CUDA
                    def test_a(self): torch.cuda.synchronize()
                """)
        ),
        # A skip when there is an accelerator, an answer handed on, a branch:
        # the test runs on a CPU-only runner, the same way.
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    @unittest.skipIf(torch.accelerator.is_available(), 'CPU-only hosts')
                    def test_a(self):
                        make(pinned=torch.accelerator.is_available())
                    def test_b(self):
                        if torch.cuda.is_available():
                            expected = type(torch.cuda.device(0))
                """)
        ),
        # A patched module, a type, an annotation: named, not called.
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    @mock.patch.object(torch.cuda, 'is_available', lambda: True)
                    def test_a(self, s: torch.cuda.Stream = None):
                        with mock.patch.object(torch.accelerator, 'current_accelerator', return_value=None):
                            self.assertFalse(isinstance(s, torch.cuda.Stream))
                        with mock.patch('torch.cuda.is_available', return_value=False):
                            pass
                """)
        ),
    )
    INVALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    @unittest.skipIf(not torch.cuda.is_available(), 'no cuda')
                    def test_a(self):
                        if not TEST_XPU:
                            self.skipTest('no device')
                """),
            expect=((3, 26), (5, 16)),
            messages=("probes an accelerator (torch.cuda.is_available())", "checks an accelerator flag (TEST_XPU)"),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    @unittest.skipIf(not torch_npu.npu.is_available(), 'no npu')
                    def test_a(self):
                        if not TEST_OPENREG:
                            self.skipTest('no device')
                """),
            expect=((3, 26), (5, 16)),
            messages=(
                "probes an accelerator (torch_npu.npu.is_available())",
                "checks an accelerator flag (TEST_OPENREG)",
            ),
            settings={"extend-accelerator-modules": ["torch_npu.npu"], "extend-accelerator-flags": ["TEST_OPENREG"]},
        ),
        # TEST_LINTER's calls: uses on torch expressions, and every segment.
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    def test_a(self):
                        x = torch.empty(4, 5).cuda()
                        self.assertTrue(torch.accelerator.is_available() and torch.xpu.has_fp64_dtype())
                        torch.backends.cuda.sdp_kernel()
                        torch.ops.xla.add(x, x)
                """),
            expect=((4, 13), (5, 25), (5, 62), (6, 9), (7, 9)),
            messages=(
                "uses an accelerator (torch.empty(...).cuda())",
                "probes an accelerator (torch.accelerator.is_available())",
                "probes an accelerator (torch.xpu.has_fp64_dtype())",
                "uses an accelerator (torch.backends.cuda.sdp_kernel())",
                "uses an accelerator (torch.ops.xla.add())",
            ),
        ),
    )

    @classmethod
    def surfaced(cls, diagnostics: Sequence[Diagnostic], member: str, module: ModuleFacts) -> str:
        return f"{plural(len(diagnostics), 'call', 'calls')} into an accelerator ({cls.code})"

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        for info in ctx.test_classes():
            if info.classification != "GENERIC":
                continue
            for probe in info.facts.probes:
                yield Violation(
                    probe.line,
                    probe.column,
                    f"GENERIC test class {info.facts.name} {_DOES[probe.kind]} ({probe.text}): "
                    "move these tests to an ACCELERATOR or device class",
                    info.facts.name,
                )


# What the code at a probe site does (hwlint.facts.Site.kind).
_DOES = {
    "probe": "probes an accelerator",
    "use": "uses an accelerator",
    "flag": "checks an accelerator flag",
}
