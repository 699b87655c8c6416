"""Properties of HWC201's rewrites over generated test classes (hypothesis):
each hard-coded device becomes exactly what its place allows (the test's
`device`, `self.device_type` in other methods, the torch.accelerator call
anywhere, nothing in a static method or where there is no generic form),
every other line stays byte for byte, and a second run changes nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwlint.core.config import load_config
from hwlint.fix.apply import apply_fixes
from tests.conftest import lint, write_project

# (statement, in a function that takes `device`, in another method, in a
# static method); {d} is where the device goes.
SITES = [
    ('x = torch.ones(2, device="cuda")', "x = torch.ones(2, device={d})"),
    ("y = t.cuda()", "y = t.to({d})"),
    ("y = t.xpu(non_blocking=True)", "y = t.to({d}, non_blocking=True)"),
    ('y = t.to("cuda:0")', "y = t.to({d})"),
    ('e = torch.device("xpu")', "e = torch.device({d})"),
]
# A device type (`torch.autocast("cuda")`): never `device` ("cuda:0"), the
# class's type; in a static method there is none: left.
DEVICE_TYPES = [
    ('a = torch.get_autocast_dtype(device_type="cuda")', "a = torch.get_autocast_dtype(device_type={t})"),
    ('s = torch.amp.GradScaler("xpu")', "s = torch.amp.GradScaler({t})"),
]
MODULE_CALLS = [
    ("torch.cuda.synchronize()", "torch.accelerator.synchronize()"),
    ("s = torch.xpu.current_stream()", "s = torch.accelerator.current_stream()"),
    ("torch.cuda.set_device(0)", "torch.accelerator.set_device_index(0)"),
]
UNCHANGED = [
    'name = "cuda"',
    "y = t.to(other)",
    "torch.accelerator.synchronize()",
    "ok = torch.cuda.is_available()",
    "torch.cuda.get_device_capability()",
    "y = t.cuda(1)",
    'z = torch.ones(2, device="cuda:1")',
    "s = \"device='cuda'\"",
    "y = t.cpu()",
    "pass",
]
COMMENTS = ["", "  # cuda", "  # noqa: E501", "  # .cuda() here"]


@st.composite
def statement(draw: st.DrawFn, where: str) -> tuple[str, str]:
    """One statement of a method and what it becomes: `where` is "device"
    (a test method taking `device`), "method" (a helper) or "static"."""
    comment = draw(st.sampled_from(COMMENTS))
    kind = draw(st.sampled_from(["site", "type", "module", "unchanged"]))
    if kind == "type":
        before, template = draw(st.sampled_from(DEVICE_TYPES))
        after = before if where == "static" else template.format(t="self.device_type")
    elif kind == "site":
        before, template = draw(st.sampled_from(SITES))
        device = {"device": "device", "method": "self.device_type", "static": None}[where]
        after = before if device is None else template.format(d=device)
    elif kind == "module":
        before, after = draw(st.sampled_from(MODULE_CALLS))
    else:
        before = after = draw(st.sampled_from(UNCHANGED))
    return before + comment, after + comment


@st.composite
def modules(draw: st.DrawFn) -> tuple[str, str]:
    head = (
        "import torch\n"
        "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n\n"
        "class TestGen(TestCase):\n"
        "    hw_classification = HardwareClassification.ACCELERATOR\n"
    )
    before, after = [head], [head]
    for index in range(draw(st.integers(1, 4))):
        where = draw(st.sampled_from(["device", "method", "static"]))
        signature = {
            "device": f"    def test_{index}(self, device):\n",
            "method": f"    def _helper_{index}(self, t):\n",
            "static": f"    @staticmethod\n    def _static_{index}(t):\n",
        }[where]
        before.append("\n" + signature)
        after.append("\n" + signature)
        for b, a in draw(st.lists(statement(where), min_size=1, max_size=5)):
            before.append(f"        {b}\n")
            after.append(f"        {a}\n")
    if "def test_" not in "".join(before):
        before.append("\n    def test_last(self, device):\n        pass\n")
        after.append("\n    def test_last(self, device):\n        pass\n")
    tail = "\n\ninstantiate_device_type_tests(TestGen, globals())\n"
    return "".join(before) + tail, "".join(after) + tail


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_only_the_intended_sites_change(case: tuple[str, str]) -> None:
    assert_rewrites_to(*case)


def assert_rewrites_to(source: str, expected: str) -> None:
    """`hwlint fix --unsafe --select HWC201` turns `source` into `expected`,
    and a second run changes nothing."""
    with tempfile.TemporaryDirectory() as tmp:
        root = write_project(
            Path(tmp) / "proj", {"test/test_gen.py": source}, {"select": ["HWC201"], "allowlist": "none.txt"}
        )
        config = load_config(start=root)
        report = apply_fixes(config, lint(root, select=("HWC201",)), unsafe=True, write=True, jobs=1)
        assert (root / "test/test_gen.py").read_text() == expected, report.summary()
        again = apply_fixes(config, lint(root, select=("HWC201",)), unsafe=True, write=False, jobs=1)
        assert again.rewritten == 0 and not again.files
