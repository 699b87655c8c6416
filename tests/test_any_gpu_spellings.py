"""The any-gpu migration through the module's own spellings of GPU_TYPE
(hwlint.fix.migrate.any_gpu_spellings): `DEVICE = GPU_TYPE`, a helper
placing on it by default, a base setting `device = DEVICE`, as inductor's
`test_snode_runtime.py` writes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_migrate import migrate
from tests.test_migrate_any_gpu import AFTER_HEAD, GATED, HEAD, refusals

MODULE = (
    "\n\nDEVICE = GPU_TYPE\n\n\n"
    "def T(*size, dtype=torch.float32, device=DEVICE, grad=False):\n"
    "    return torch.randn(size, dtype=dtype, device=device, requires_grad=grad)\n\n\n"
    "class Base(TestCase):\n    device = DEVICE\n\n"
    "    def assertZero(self, x):\n        self.assertEqual(x, 0.0)\n"
)
CLASS = (
    "\n\nclass TestA(Base):\n    device = DEVICE\n\n"
    "    def test_one(self):\n        inp = (T(10, 10),)\n        self.assertZero(inp[0].sum() * 0)\n\n"
    "    def test_many(self):\n        inp = [\n            T(2),\n            T(3, dtype=torch.float64),\n        ]\n"
    "        self.assertEqual(inp[0].device.type, self.device)\n"
)


def test_an_alias_a_placing_helper_and_a_setting_base_are_taken_as_gpu_type(tmp_path: Path) -> None:
    text, report = migrate(tmp_path, HEAD + MODULE + CLASS + GATED)
    assert report.migrated == {"any-gpu": 1}, report.unfixed
    # The module's definitions stay (other classes may use them); GPU_TYPE with them.
    assert text == AFTER_HEAD.replace("import HAS_GPU", "import GPU_TYPE, HAS_GPU") + MODULE + (
        "\n\nclass TestA(Base):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_one(self, device):\n        inp = (T(10, 10, device=device),)\n"
        "        self.assertZero(inp[0].sum() * 0)\n\n"
        "    def test_many(self, device):\n        inp = [\n            T(2, device=device),\n"
        "            T(3, dtype=torch.float64, device=device),\n        ]\n"
        "        self.assertEqual(inp[0].device.type, self.device_type)\n"
        '\n\ninstantiate_device_type_tests(TestA, globals(), allow_xpu=True, except_for="cpu")\n' + GATED
    )


def test_a_test_that_places_on_the_cpu_itself_is_split_off(tmp_path: Path) -> None:
    # `torch.ones(10, 10, device="cpu")` uses no GPU: that test goes to a GENERIC class, the others are migrated.
    source = HEAD + MODULE + CLASS.replace("T(10, 10)", 'torch.ones(10, 10, device="cpu")') + GATED
    text, report = migrate(tmp_path, source)
    assert report.migrated == {"split": 2}, report.unfixed
    generic = text[text.index("class TestAGeneric(Base):") : text.index("class TestAAccelerator")]
    assert '    def test_one(self):\n        inp = (torch.ones(10, 10, device="cpu"),)\n' in generic
    accelerator = text[text.index("class TestAAccelerator(Base):") :]
    assert "    def test_many(self, device):\n        inp = [\n            T(2, device=device),\n" in accelerator
    assert "DEVICE" not in generic + accelerator


SPELT_REFUSED = [
    (
        # The helper handed on uncalled: where it runs, its default places on GPU_TYPE.
        CLASS.replace("inp = (T(10, 10),)", "inp = (list(map(T, [2])),)"),
        MODULE,
        "TestA uses T other than calling it: migrate by hand",
    ),
    (
        CLASS.replace("T(10, 10)", "T(10, **options)"),
        MODULE,
        "a call of T passes `**` arguments, its device unknown: migrate by hand",
    ),
    (
        # `device` may be reached by a call's positional arguments: the helper places as it is.
        CLASS,
        MODULE.replace(
            "def T(*size, dtype=torch.float32, device=DEVICE", "def T(size, dtype=torch.float32, device=DEVICE"
        ),
        "TestA uses T, which uses GPU_TYPE at module level (through DEVICE): give it the test's `device`, then migrate",
    ),
    (
        # A helper that uses GPU_TYPE besides its default is no placing helper.
        CLASS,
        MODULE.replace("requires_grad=grad)", "requires_grad=grad).to(DEVICE)"),
        "TestA uses T, which uses GPU_TYPE at module level (through DEVICE): give it the test's `device`, then migrate",
    ),
    (
        # A base that reads `self.device` itself would read what GPU_TYPE was on each device class.
        CLASS,
        MODULE.replace("self.assertEqual(x, 0.0)", "self.assertEqual(x, torch.zeros((), device=self.device))"),
        "TestA uses Base, which uses GPU_TYPE at module level (through DEVICE): give it the test's `device`, then migrate",
    ),
    (
        # A base whose own base reaches GPU_TYPE is not taken for its attribute alone.
        CLASS,
        MODULE.replace(
            "class Base(TestCase):",
            "Gpu = type(GPU_TYPE, (TestCase,), {})\n\n\nclass Base(Gpu):",
        ),
        "TestA uses Base, which uses GPU_TYPE at module level (through DEVICE): give it the test's `device`, then migrate",
    ),
]


@pytest.mark.parametrize(("cls", "module", "reason"), SPELT_REFUSED, ids=[str(i) for i in range(len(SPELT_REFUSED))])
def test_what_cannot_be_taken_as_gpu_type_is_refused(tmp_path: Path, cls: str, module: str, reason: str) -> None:
    text, report = migrate(tmp_path, HEAD + module + cls + GATED)
    assert refusals(report) == [reason]
    assert "instantiate_device_type_tests" not in text
