"""HWC201 `hardcoded-device`: GENERIC/ACCELERATOR test hard-codes a device.

The rule, its examples and its check; `hwlint rule HWC201` prints its
explanation (the class docstring)."""

from __future__ import annotations

from typing import Iterator

from hwlint.core.diagnostics import FixInfo, NotFixable, Rewrite
from hwlint.facts import DEFAULT_ACCELERATORS, Site
from hwlint.facts.resolve import ClassInfo, ModuleContext
from hwlint.rules.base import Example, Rule, Violation, snippet


class HardcodedDevice(Rule):
    """
    ## What it does
    Reports a GENERIC or ACCELERATOR test class that hard-codes a device:
    `device="cuda"`, `torch.device("xpu")`, `.to("cuda")`, `.cuda()`,
    `torch.cuda.synchronize()` and other calls into one device's module,
    a device type (`device_type="cuda"`, `use_device="cuda"`,
    `torch.autocast("cuda")`, `torch.amp.GradScaler("cuda")`,
    `init_device_mesh("cuda", ...)`), a device handed to the class's own
    helper where it takes `device` (`self._check("cuda")` with
    `def _check(self, device)`), `torch.set_default_device("cuda")`, and a
    device string nothing else places (`check(x, "xpu")`; not a key, a
    message, a skip's reason, a parameter's default or an attribute's name);
    in distributed tests, a collective backend of one device family
    (`init_process_group("nccl")`, `backend="xccl"`), `@requires_nccl()`,
    `f"cuda:{rank}"`, `torch.cuda.device_count()`, and what only one
    backend has (`ProcessGroupNCCL`, `NCCL_*` environment variables).

    ## Why is this bad?
    An ACCELERATOR test receives the device it runs on as `device`; a
    hard-coded "cuda" fails (or silently tests CUDA) on XPU, MPS and
    PrivateUse1 runners. A GENERIC test must not need a device at all: one
    that hard-codes a device is misclassified.

    ## Example
    ```python
        def test_add(self, device):
            x = torch.ones(2).cuda()
            torch.cuda.synchronize()
    ```

    ## Use instead
    ```python
        def test_add(self, device):
            x = torch.ones(2).to(device)
            torch.accelerator.synchronize()
    ```

    ## Fix safety
    In ACCELERATOR classes `hwlint fix --unsafe --select HWC201` rewrites
    (always unsafe: it changes what the test runs on; review the diff):
    `device="cuda"`, `torch.device("cuda")`, `.to("cuda")` and `.cuda()`
    use the test's `device` in a function that takes it (so does a device
    handed to the class's own helper, and `set_default_device("cuda")`), a
    device type (`torch.autocast("cuda")`, `device_type="cuda"`) takes
    `self.device_type`, and so do hard-coded devices in the other methods (`setUp`, helpers) of a class
    passed to `instantiate_device_type_tests`; `"cuda:0"` counts as the
    default device, other indices are left alone; a device string nothing
    else places is left (the reason says so). Calls into one device's
    module become their `torch.accelerator` equivalents (hwlint.rules.torch_api
    has the table), none newer than `oldest-torch`. Calls with no generic
    equivalent (`torch.cuda.tunable.*`, `get_device_capability()`, CUDA
    graphs) are left, and the reason names the API. In distributed tests:
    `"nccl"` becomes `dist.get_default_backend_for_device(device)` (2.6),
    `@requires_nccl()` `@requires_accelerator_dist_backend()` (2.9, imported
    from common_distributed), `f"cuda:{rank}"` and `torch.device("cuda",
    rank)` take `self.device_type`; `pg_options`, `@requires_nccl_version`
    and tests that use `ProcessGroupNCCL` or `NCCL_*` are left. GENERIC
    classes get no rewrite: the message says the class is misclassified.

    ## Options
    `oldest-torch` (default "2.7"): the oldest PyTorch the tests must run
    on. An out-of-tree backend adds its device name and module:
    `extend-devices = ["openreg"]` (then `device="openreg"` and `.openreg()`
    are reported too) and `extend-accelerator-modules = ["torch.openreg"]`.
    """

    code = "HWC201"
    counted_by = "finding"  # one per site or test
    name = "hardcoded-device"
    summary = "GENERIC/ACCELERATOR test hard-codes a device"
    default = False
    fixable = True
    VALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def test_a(self, device):
                        torch.ones(2, device=device)
                        torch.cuda.is_available()

                instantiate_device_type_tests(TestA, globals())
                """)
        ),
    )
    INVALID = (
        Example(
            snippet("""\
                import torch

                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def test_a(self, device):
                        x = torch.ones(2, device='cuda')
                        y = x.cuda()
                        torch.cuda.synchronize()

                instantiate_device_type_tests(TestA, globals())
                """),
            expect=((6, 34), (7, 15), (8, 9)),
            messages=(
                'hard-codes a device (device="cuda")',
                "hard-codes a device (.cuda())",
                "hard-codes a device (torch.cuda.synchronize())",
            ),
            unsafe_fixed=snippet("""\
                import torch

                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def test_a(self, device):
                        x = torch.ones(2, device=device)
                        y = x.to(device)
                        torch.accelerator.synchronize()

                instantiate_device_type_tests(TestA, globals())
                """),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def setUp(self):
                        self.x = torch.ones(2).cuda()  # moved once
                    def test_a(self, device):
                        torch.cuda.get_device_capability()
                        torch.cuda.memory_allocated()
                        torch.ones(1, device='cuda:1')

                instantiate_device_type_tests(TestA, globals())
                """),
            expect=((4, 32), (6, 9), (7, 9), (8, 30)),
            messages=(
                "use the `device` argument",
                "the compute capability is specific",
                "torch.accelerator.memory_allocated needs PyTorch 2.9",
                "a second device",
            ),
            unsafe_fixed=snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def setUp(self):
                        self.x = torch.ones(2).to(self.device_type)  # moved once
                    def test_a(self, device):
                        torch.cuda.get_device_capability()
                        torch.cuda.memory_allocated()
                        torch.ones(1, device='cuda:1')

                instantiate_device_type_tests(TestA, globals())
                """),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    def test_a(self):
                        torch.ones(2).cuda()
                """),
            expect=((4, 23),),
            messages=("GENERIC test class TestA hard-codes a device (.cuda()): it is misclassified",),
        ),
        Example(
            snippet("""\
                import torch

                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def test_a(self, device):
                        x = torch.ones(2, device='openreg:0')
                        y = x.openreg()
                        torch.openreg.synchronize()
                        torch.openreg.is_available()

                instantiate_device_type_tests(TestA, globals())
                """),
            expect=((6, 34), (7, 15), (8, 9)),
            unsafe_fixed=snippet("""\
                import torch

                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def test_a(self, device):
                        x = torch.ones(2, device=device)
                        y = x.to(device)
                        torch.accelerator.synchronize()
                        torch.openreg.is_available()

                instantiate_device_type_tests(TestA, globals())
                """),
            messages=(
                'hard-codes a device (device="openreg:0")',
                "hard-codes a device (.openreg())",
                "hard-codes a device (torch.openreg.synchronize())",
            ),
            settings={"extend-devices": ["openreg"], "extend-accelerator-modules": ["torch.openreg"]},
        ),
        Example(
            snippet("""\
                import torch
                import torch.distributed as dist

                class TestD(MultiProcessTestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    @requires_nccl()
                    def test_a(self, device):
                        dist.init_process_group('nccl', rank=self.rank)
                        torch.cuda.set_device(self.rank)
                        t = torch.ones(2, device=f'cuda:{self.rank}')

                instantiate_device_type_tests(TestD, globals())
                """),
            expect=((6, 6), (8, 33), (9, 9), (10, 34)),
            messages=(
                "use @requires_accelerator_dist_backend() (PyTorch 2.9)",
                "use torch.distributed.get_default_backend_for_device(device) (PyTorch 2.6)",
                "use torch.accelerator.set_device_index() (PyTorch 2.7)",
                'use f"{self.device_type}:..."',
            ),
            unsafe_fixed=snippet("""\
                import torch
                import torch.distributed as dist
                from torch.testing._internal.common_distributed import requires_accelerator_dist_backend

                class TestD(MultiProcessTestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    @requires_accelerator_dist_backend()
                    def test_a(self, device):
                        dist.init_process_group(dist.get_default_backend_for_device(device), rank=self.rank)
                        torch.accelerator.set_device_index(self.rank)
                        t = torch.ones(2, device=f'{self.device_type}:{self.rank}')

                instantiate_device_type_tests(TestD, globals())
                """),
            settings={"oldest-torch": "2.9"},
        ),
    )

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        modules = DEFAULT_ACCELERATORS.extended(ctx.config.extend_accelerator_modules).device_modules
        for info in ctx.test_classes():
            if info.classification not in ("GENERIC", "ACCELERATOR"):
                continue
            features = _backend_features(info)
            for site in sorted((*info.facts.devices, *info.facts.distributed), key=lambda s: (s.line, s.column)):
                if site.kind == "any-gpu":
                    continue  # GPU_TYPE names no one device: not hard-coded
                fix = _fix(site, info, modules, ctx.config.oldest_torch)
                feature = features.get(_test_of(info, site)) if site.kind in ("backend", "decorator") else None
                if isinstance(fix, Rewrite) and feature is not None:
                    fix = NotFixable(
                        f"the test uses {feature.name} (line {feature.line}), which only one backend has: "
                        "it is a test of that backend"
                    )
                yield Violation(site.line, site.column, _message(info, site, fix), info.facts.name, fix)


def _test_of(info: ClassInfo, site: Site) -> int:
    """The line of the test method a site is in (or decorates), 0 when none:
    the last test defined at or above it, or for a decorator the next one."""
    lines = [m.line for m in info.facts.methods]
    if site.kind == "decorator":
        return next((line for line in lines if line > site.line), 0)
    return max((line for line in lines if line <= site.line), default=0)


def _backend_features(info: ClassInfo) -> dict[int, Site]:
    """What only one collective backend has (`ProcessGroupNCCL`, `"NCCL_DEBUG"`),
    by the test that uses it: that test's backend and decorator stay."""
    found: dict[int, Site] = {}
    for site in info.facts.distributed:
        if site.kind == "backend-feature":
            found.setdefault(_test_of(info, site), site)
    found.pop(0, None)
    return found


def _fix(site: Site, info: ClassInfo, modules: tuple[str, ...], oldest_torch: str) -> FixInfo:
    if info.classification == "GENERIC":
        return NotFixable(
            f"{info.facts.name} is GENERIC but uses a device: it is misclassified "
            "(ACCELERATOR, or the device's member), or the device use must go"
        )
    if site.kind == "backend-feature":
        return NotFixable(f"{site.name} belongs to one collective backend: a test of that backend")
    if site.kind == "any-gpu":
        return NotFixable(f"{site.text} is whichever GPU the machine has: the test's `device` takes its place")
    if site.kind == "string":
        return NotFixable(f'"{site.name}" is a device in a string no rewrite places: use the test\'s `device` by hand')
    if site.kind == "assign":
        return NotFixable(f'a name bound to "{site.name}": use the test\'s `device` where the name is used')
    if site.kind in ("backend", "backend-options", "decorator"):
        from hwlint.rules.torch_api import NoEquivalent, distributed_equivalent  # off by default, as below

        dist = distributed_equivalent(site.kind, site.name, oldest_torch)
        if isinstance(dist, NoEquivalent):
            return NotFixable(dist.reason)
        return Rewrite("unsafe", site.kind, site.name, dist.target, dist.since)
    if site.kind == "module":
        from hwlint.rules.torch_api import (  # off by default: a check without it does not import it
            NoEquivalent,
            equivalent,
        )

        # A backend package's own copy of its device module (`torch_npu.npu`,
        # which it installs as `torch.npu`) is that module.
        packaged = [f"torch_{m[6:]}.{m[6:]}" for m in modules if m.startswith("torch.") and m.count(".") == 1]
        module = max((m for m in (*modules, *packaged) if site.name.startswith(m + ".")), key=len, default="")
        found = equivalent(site.name, module, oldest_torch)
        if isinstance(found, NoEquivalent):
            return NotFixable(found.reason)
        return Rewrite("unsafe", site.kind, site.name, found.target, found.since)
    index = site.name.partition(":")[2]
    if index not in ("", "0"):
        return NotFixable(f'"{site.name}" names a second device: such a test takes `devices` (several devices)')
    return Rewrite("unsafe", site.kind, site.name, "device")


def device_fix(site: Site, info: ClassInfo, modules: tuple[str, ...], oldest_torch: str) -> FixInfo:
    """The rewrite (or why there is none) of a hard-coded device of `info`
    judged ACCELERATOR: what `hwlint fix` uses when a migration makes a
    one-device class device-generic (hwlint.fix.migrate)."""
    return _fix(site, info._replace(classification="ACCELERATOR"), modules, oldest_torch)


def _message(info: ClassInfo, site: Site, fix: FixInfo) -> str:
    head = f"{info.classification} test class {info.facts.name} hard-codes a device ({site.text})"
    if info.classification == "GENERIC":
        return f"{head}: it is misclassified (ACCELERATOR, or the device's member), or the device use must go"
    if isinstance(fix, Rewrite) and fix.kind == "decorator":
        return f"{head}: use @{fix.target.rsplit('.', 1)[-1]}() (PyTorch {fix.since})"
    if isinstance(fix, Rewrite) and fix.kind == "backend":
        return f"{head}: use {fix.target}(device) (PyTorch {fix.since})"
    if isinstance(fix, Rewrite) and fix.target != "device":
        return f"{head}: use {fix.target}() (PyTorch {fix.since})"
    if isinstance(fix, Rewrite) and fix.kind == "fstring":
        return f'{head}: use f"{{self.device_type}}:..."'
    if isinstance(fix, Rewrite):
        return f"{head}: use the `device` argument (or self.device_type outside test methods)"
    assert isinstance(fix, NotFixable)
    return f"{head}: no device-generic rewrite: {fix.reason}"
