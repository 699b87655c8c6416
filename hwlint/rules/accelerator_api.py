from __future__ import annotations

from typing import Iterator

from hwlint.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation


class AcceleratorApi(Rule):
    """
    ## What it does
    Reports a GENERIC test class that probes an accelerator anywhere in its
    body: `torch.cuda.*`, `torch.xpu.*`, `torch.mps.*`, `torch.npu.*`,
    `torch.backends.mps.*`, `torch.accelerator.*`, or the `TEST_CUDA`-style
    flags of `common_utils`.

    ## Why is this bad?
    GENERIC tests run once, on CPU-only runners too. A test that asks
    whether an accelerator is there behaves differently per runner: it is
    really an accelerator test, and accelerator runners never select it.

    ## Example
    ```python
    class TestSerialization(TestCase):
        hw_classification = HardwareClassification.GENERIC

        @unittest.skipIf(not torch.cuda.is_available(), "needs CUDA")
        def test_load_to_cuda(self): ...
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
    summary = "GENERIC class probes an accelerator"
    VALID = (
        Example("class TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n    def test_a(self): torch.ones(2)\n"),
        Example("class TestA(TestCase):\n    hw_classification = HardwareClassification.CUDA\n    def test_a(self): torch.cuda.synchronize()\n"),
    )
    INVALID = (
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n"
            "    @unittest.skipIf(not torch.cuda.is_available(), 'no cuda')\n    def test_a(self):\n"
            "        if TEST_XPU:\n            pass\n",
            expect=((3, 26), (5, 12)),
            messages=('probes an accelerator (torch.cuda.is_available)', 'probes an accelerator (TEST_XPU)'),
        ),
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n"
            "    @unittest.skipIf(not torch_npu.npu.is_available(), 'no npu')\n    def test_a(self):\n"
            "        if TEST_OPENREG:\n            pass\n",
            expect=((3, 26), (5, 12)),
            messages=('probes an accelerator (torch_npu.npu.is_available)', 'probes an accelerator (TEST_OPENREG)'),
            settings={"extend-accelerator-modules": ["torch_npu.npu"], "extend-accelerator-flags": ["TEST_OPENREG"]},
        ),
    )

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        for info in ctx.test_classes():
            if info.classification != "GENERIC":
                continue
            for probe in info.facts.probes:
                yield Violation(
                    probe.line, probe.column,
                    f"GENERIC test class {info.facts.name} probes an accelerator ({probe.text}): "
                    "move these tests to an ACCELERATOR or device class",
                    info.facts.name,
                )
