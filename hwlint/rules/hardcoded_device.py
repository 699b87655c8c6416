from __future__ import annotations

from typing import Iterator

from hwlint.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation


class HardcodedDevice(Rule):
    """
    ## What it does
    Reports a GENERIC or ACCELERATOR test class that hard-codes a device:
    `device="cuda"`, `torch.device("xpu")`, `.to("cuda")`, `.cuda()`,
    `torch.cuda.synchronize()` and other calls into one device's module.

    ## Why is this bad?
    An ACCELERATOR test receives the device it runs on as `device`; a
    hard-coded "cuda" fails (or silently tests CUDA) on XPU, MPS and
    PrivateUse1 runners. A GENERIC test must not need a device at all.

    ## Example
    ```python
        def test_add(self, device):
            x = torch.ones(2).cuda()
            torch.cuda.synchronize()
    ```

    ## Use instead
    ```python
        def test_add(self, device):
            x = torch.ones(2, device=device)
            torch.accelerator.synchronize()
    ```

    ## Options
    An out-of-tree backend adds its device name and module:
    `extend-devices = ["openreg"]` (then `device="openreg"` and `.openreg()`
    are reported too) and `extend-accelerator-modules = ["torch.openreg"]`.
    """

    code = "HWC201"
    name = "hardcoded-device"
    summary = "GENERIC/ACCELERATOR test hard-codes a device"
    default = False
    VALID = (
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n"
            "    def test_a(self, device):\n        torch.ones(2, device=device)\n        torch.cuda.is_available()\n\n"
            "instantiate_device_type_tests(TestA, globals())\n"
        ),
    )
    INVALID = (
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n"
            "    def test_a(self, device):\n        x = torch.ones(2, device='cuda')\n        y = x.cuda()\n"
            "        torch.cuda.synchronize()\n\ninstantiate_device_type_tests(TestA, globals())\n",
            expect=((4, 34), (5, 15), (6, 9)),
            messages=('hard-codes a device (device="cuda")', 'hard-codes a device (.cuda())', 'hard-codes a device (torch.cuda.synchronize())'),
        ),
        Example(
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n"
            "    def test_a(self, device):\n        x = torch.ones(2, device='openreg:0')\n        y = x.openreg()\n"
            "        torch.openreg.synchronize()\n        torch.openreg.is_available()\n\n"
            "instantiate_device_type_tests(TestA, globals())\n",
            expect=((4, 34), (5, 15), (6, 9)),
            messages=('hard-codes a device (device="openreg:0")', 'hard-codes a device (.openreg())', 'hard-codes a device (torch.openreg.synchronize())'),
            settings={"extend-devices": ["openreg"], "extend-accelerator-modules": ["torch.openreg"]},
        ),
    )

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        for info in ctx.test_classes():
            if info.classification not in ("GENERIC", "ACCELERATOR"):
                continue
            for site in info.facts.devices:
                yield Violation(
                    site.line, site.column,
                    f"{info.classification} test class {info.facts.name} hard-codes a device ({site.text}): "
                    "use the `device` argument, or torch.accelerator",
                    info.facts.name,
                )
