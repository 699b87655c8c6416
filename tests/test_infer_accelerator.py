"""`fix` inference for classes whose tests need an accelerator: inherited
device use (bases in other files), skip-unless decorators and guards, setUp
skips, get_devtype(), and `only_for` one unconfigured device. None of them
may get a safe GENERIC: a GENERIC class runs on CPU runners only, where such
tests skip (or fail)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hwlint.core.diagnostics import Fix, NotFixable
from hwlint.facts import extract_source, from_tuple, to_tuple
from tests.conftest import lint, run_cli, write_project

HEADER = "from torch.testing._internal.common_utils import TestCase\n\n"

# Ascend's test/_inductor/testutils.py, reduced: the base every _inductor test
# class inherits, hard-coding the NPU in a helper.
TESTUTILS = (
    "import torch\n"
    "from torch.testing._internal.common_utils import TestCase\n\n"
    "class TestUtils(TestCase):\n"
    "    @staticmethod\n"
    "    def _generate_tensor(shape, dtype):\n"
    '        return torch.randn(size=shape, dtype=dtype, device=torch.device("npu"))\n'
)
TEST_ABS = (
    "from testutils import TestUtils\n\n"
    "class TestAbs(TestUtils):\n"
    "    def test_pointwise_cases(self):\n"
    "        self._generate_tensor((2,), 'float32').abs()\n"
)


def hwc001(root: Path, path: str = "test/test_x.py") -> tuple[Any, str]:
    """The one HWC001 finding of `path`: (its fix, its message)."""
    found = [d for d in lint(root).diagnostics if d.code == "HWC001" and d.path == path]
    assert len(found) == 1, found
    return found[0].fix, found[0].message


def one(tmp_path: Path, source: str, settings: dict[str, Any] | None = None) -> tuple[Any, str]:
    return hwc001(write_project(tmp_path / "proj", {"test/test_x.py": HEADER + source}, settings))


# -- bases in another file ---------------------------------------------------


def test_a_base_in_another_file_that_hard_codes_the_npu_is_no_generic(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p", {"test/_inductor/testutils.py": TESTUTILS, "test/_inductor/test_abs.py": TEST_ABS}
    )
    fix, message = hwc001(root, "test/_inductor/test_abs.py")
    assert fix == NotFixable(
        '`hw_classification = HardwareClassification.<MEMBER>`; its tests need NPU: torch.device("npu") in '
        "TestUtils, test/_inductor/testutils.py:7, but NPU is not a configured classification: add it to "
        "`classifications`, or make the tests device-generic (ACCELERATOR)",
        "not-configured",
        "NPU",
    )
    assert message.startswith("test class TestAbs declares no hw_classification: add ")


def test_with_an_npu_member_the_inherited_device_is_an_unsafe_fix(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        {"test/_inductor/testutils.py": TESTUTILS, "test/_inductor/test_abs.py": TEST_ABS},
        {"classifications": ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "NPU"]},
    )
    fix, _ = hwc001(root, "test/_inductor/test_abs.py")
    assert fix == Fix(
        "unsafe",
        "NPU",
        'its tests need NPU: torch.device("npu") in TestUtils, test/_inductor/testutils.py:7',
        kind="one-device",
    )


def test_a_base_in_the_same_file_counts_too(tmp_path: Path) -> None:
    fix, _ = one(
        tmp_path,
        "class Base(TestCase):\n    def helper(self):\n        return torch.ones(2).cuda()\n\n"
        "class TestA(Base):\n    def test_a(self): self.helper()\n",
    )
    assert fix == Fix("unsafe", "CUDA", "its tests need CUDA: .cuda() in Base, line 5", kind="one-device")


def test_a_base_that_asks_before_it_uses_is_an_unsafe_generic(tmp_path: Path) -> None:
    # ipex's tests/cpu/common_utils.py TestCase: `y.cuda() if x.is_cuda`, and
    # TEST_CUDA = torch.cuda.is_available(): it runs anywhere.
    base = (
        "import torch\nfrom torch.testing._internal.common_utils import TestCase as Base\n\n"
        "class TestCase(Base):\n"
        "    def setUp(self):\n        self.cuda = torch.cuda.is_available()\n"
        "    def assertClose(self, x, y):\n        y = y.cuda() if x.is_cuda else y\n"
    )
    root = write_project(
        tmp_path / "p",
        {
            "test/common_utils.py": base,
            "test/test_x.py": "from common_utils import TestCase\n\n"
            "class TestA(TestCase):\n    def test_a(self): pass\n",
        },
    )
    fix, _ = hwc001(root)
    assert fix == Fix(
        "unsafe",
        "GENERIC",
        "no accelerator use in the class, but a base class asks about one "
        "(torch.cuda.is_available() in TestCase, test/common_utils.py:6)",
        kind="base-probes",
    )


def test_a_base_without_accelerator_use_leaves_a_safe_generic(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        {
            "test/common.py": "class Base(TestCase):\n    def helper(self): return 1\n",
            "test/test_x.py": "from common import Base\n\nclass TestA(Base):\n    def test_a(self): pass\n",
        },
    )
    fix, _ = hwc001(root)
    assert fix == Fix(
        "safe", "GENERIC", "not instantiated per device, no device parameter, no accelerator use", kind="generic"
    )


# -- tests that need an accelerator -------------------------------------------

FSDP = (
    "from torch.testing._internal.common_distributed import skip_if_lt_x_gpu\n"
    "from torch.testing._internal.common_fsdp import FSDPTest\n\n"
    "class TestFSDPMixedPrecision(FSDPTest):\n"
    "    @skip_if_lt_x_gpu(2)\n    def test_a(self): pass\n\n"
    "    @skip_if_lt_x_gpu(2)\n    def test_b(self): pass\n"
)


def test_every_test_needing_an_accelerator_gets_no_fix_and_says_why(tmp_path: Path) -> None:
    fix, message = one(tmp_path, FSDP)
    assert isinstance(fix, NotFixable) and fix.kind == "needs-accelerator"
    assert message.endswith(
        "its tests run only with an accelerator (@skip_if_lt_x_gpu(2), line 7): GENERIC would send them to CPU "
        "runners, where they skip; make the class ACCELERATOR (instantiated per device) or classify it as the "
        "device its runners have"
    )


def test_the_accelerator_api_in_a_class_whose_tests_need_one_is_no_mixed_use(tmp_path: Path) -> None:
    # `if torch.accelerator.device_count() < world_size: skip`: no device's API.
    source = FSDP.replace("import skip_if_lt_x_gpu\n", "import skip_if_lt_x_gpu\nimport torch\n").replace(
        "class TestFSDPMixedPrecision(FSDPTest):\n",
        "class TestFSDPMixedPrecision(FSDPTest):\n"
        "    def setUp(self):\n        super().setUp()\n"
        "        if torch.accelerator.device_count() < 2:\n            self.skipTest('two devices')\n\n",
    )
    fix, message = one(tmp_path, source)
    assert isinstance(fix, NotFixable) and fix.kind == "needs-accelerator"
    assert "its tests run only with an accelerator (setUp: if torch.accelerator.device_count() < 2: skip" in message
    # With a device's API beside it, it is mixed as before.
    fix, _ = one(tmp_path, source.replace("super().setUp()", "super().setUp()\n        torch.cuda.synchronize()"))
    assert isinstance(fix, Fix) and fix.classification == "CUDA"


def test_requires_nccl_names_cuda(tmp_path: Path) -> None:
    fix, _ = one(
        tmp_path,
        "class TestC10d(TestCase):\n    @requires_nccl()\n    @skip_if_lt_x_gpu(2)\n    def test_a(self): pass\n",
    )
    assert fix == Fix("unsafe", "CUDA", "its tests need CUDA: @requires_nccl(), line 4", kind="one-device")


def test_some_tests_needing_an_accelerator_make_generic_unsafe(tmp_path: Path) -> None:
    fix, _ = one(
        tmp_path, "class TestA(TestCase):\n    @requires_cuda\n    def test_a(self): pass\n    def test_b(self): pass\n"
    )
    assert fix == Fix(
        "unsafe",
        "GENERIC",
        "no accelerator use in the class, but some of its tests run only with an "
        "accelerator (@requires_cuda, line 4): on CPU runners they skip; move them to an ACCELERATOR "
        "class",
        kind="some-tests-need-accelerator",
    )


def test_a_class_level_guard_on_a_flag_outside_the_probe_vocabulary(tmp_path: Path) -> None:
    # HAS_GPU (inductor's) is no accelerator probe for the rules, but the
    # guard skips the whole class without a GPU.
    fix, _ = one(
        tmp_path, "@unittest.skipIf(not HAS_GPU, 'requires gpu')\nclass TestA(TestCase):\n    def test_a(self): pass\n"
    )
    assert isinstance(fix, NotFixable) and fix.kind == "needs-accelerator"
    assert "(@unittest.skipIf(not HAS_GPU, ...), line 3)" in fix.reason


def test_a_skip_unless_on_one_device(tmp_path: Path) -> None:
    fix, _ = one(tmp_path, "@skipUnless(HAS_XPU, 'xpu')\nclass TestA(TestCase):\n    def test_a(self): pass\n")
    assert fix == Fix("unsafe", "XPU", "its tests need XPU: @skipUnless(HAS_XPU, ...), line 3", kind="one-device")


def test_a_base_whose_setup_skips_without_cuda(tmp_path: Path) -> None:
    base = (
        "class GpuTest(TestCase):\n    def setUp(self):\n        super().setUp()\n"
        "        if not HAS_CUDA:\n            raise unittest.SkipTest('no cuda')\n"
    )
    root = write_project(
        tmp_path / "p",
        {
            "test/common_gpu.py": base,
            "test/test_x.py": "from common_gpu import GpuTest\n\nclass TestA(GpuTest):\n    def test_a(self): pass\n",
        },
    )
    fix, _ = hwc001(root)
    assert fix == Fix(
        "unsafe",
        "CUDA",
        "its tests need CUDA: setUp: if not HAS_CUDA: skip in GpuTest, test/common_gpu.py:4",
        kind="one-device",
    )


def test_a_device_from_get_devtype(tmp_path: Path) -> None:
    fix, _ = one(tmp_path, "class TestA(TestCase):\n    def test_a(self):\n        device = get_devtype()\n")
    assert isinstance(fix, NotFixable) and fix.kind == "needs-accelerator"
    assert "(get_devtype(), line 5)" in fix.reason


def test_a_skip_for_other_reasons_leaves_a_safe_generic(tmp_path: Path) -> None:
    fix, _ = one(
        tmp_path,
        "@skipIf(IS_WINDOWS, 'no windows')\nclass TestA(TestCase):\n"
        "    @skipIfTorchDynamo\n    @unittest.skipUnless(HAS_SCIPY, 'scipy')\n"
        "    def test_a(self): pass\n",
    )
    assert fix is not None and fix.applicability == "safe" and fix.classification == "GENERIC"


def test_requires_are_in_facts_and_survive_the_codec() -> None:
    facts = extract_source(
        "test/test_x.py",
        HEADER
        + (
            "@pytest.mark.skipif(not TEST_CUDA and not TEST_XPU, reason='x')\nclass TestA(TestCase):\n"
            "    def setUp(self):\n        if torch.cuda.device_count() < 2:\n            self.skipTest('x')\n"
            "    @skipIf(TEST_CUDA, 'x')\n    @skipIfUnsupportMultiNPU(4)\n    def test_a(self): pass\n"
        ),
    )
    (cls,) = facts.classes
    assert [(s.line, s.text, s.kind, s.name) for s in cls.requires] == [
        (3, "@pytest.mark.skipif(not TEST_CUDA and (not TEST_XPU), ...)", "class", ""),
        (6, "setUp: if torch.cuda.device_count() < 2: skip", "setup", "cuda"),
        (9, "@skipIfUnsupportMultiNPU(4)", "test", "npu"),
    ]
    assert from_tuple(to_tuple(facts)) == facts


# -- only_for one device ---------------------------------------------------------

PRIVATEUSE1 = (
    "class TestA(TestCase):\n    def test_a(self, device): pass\n\n"
    "instantiate_device_type_tests(TestA, globals(), only_for='privateuse1')\n"
)


def test_only_for_privateuse1_is_one_device_not_several(tmp_path: Path) -> None:
    fix, message = one(tmp_path, PRIVATEUSE1)
    assert fix == NotFixable(
        "`hw_classification = HardwareClassification.<MEMBER>`; instantiated with only_for='privateuse1' (one "
        "device), which is not a configured classification: add it to `classifications` (and the enum), or "
        "instantiate the class for every device (ACCELERATOR, with except_for)",
        "only-for-unconfigured",
    )
    assert "several" not in message


def test_only_for_a_configured_extra_member_is_a_safe_fix(tmp_path: Path) -> None:
    members = ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "NPU", "PRIVATEUSE1"]
    fix, _ = one(tmp_path, PRIVATEUSE1, {"classifications": members})
    assert fix == Fix("safe", "PRIVATEUSE1", "instantiated with only_for='privateuse1'", kind="only-for")
    fix, _ = one(
        tmp_path, PRIVATEUSE1.replace("privateuse1", "npu"), {"classifications": members, "extend-devices": ["npu"]}
    )
    assert fix == Fix("safe", "NPU", "instantiated with only_for='npu'", kind="only-for")


def test_fix_leaves_the_npu_class_alone_and_counts_the_reason(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p", {"test/_inductor/testutils.py": TESTUTILS, "test/_inductor/test_abs.py": TEST_ABS}
    )
    proc = run_cli("fix", cwd=root)
    assert (root / "test/_inductor/test_abs.py").read_text() == TEST_ABS
    assert "Classified 0 classes" in proc.stderr and "NPU is not a configured classification" in proc.stderr


# -- device uses the facts see besides calls into a device module -------------


@pytest.mark.parametrize(
    ("body", "member", "shown"),
    [
        # A device type: torch's APIs that take one first, and the keywords that are one.
        ('        with torch.autocast("cuda"):\n            pass\n', "CUDA", 'autocast("cuda")'),
        ('        torch.amp.GradScaler("xpu")\n', "XPU", 'GradScaler("xpu")'),
        ('        torch.get_autocast_dtype(device_type="cuda")\n', "CUDA", 'device_type="cuda"'),
        ("        torch.autograd.profiler.profile(use_device='cuda')\n", "CUDA", 'use_device="cuda"'),
        ('        torch.set_default_device("xpu")\n', "XPU", 'set_default_device("xpu")'),
        # A device string nothing else places: handed to a callable the facts do not know.
        ('        compare(run(x, "cpu"), run(x, "xpu"))\n', "XPU", '"xpu"'),
        ('        self.assertEqual(out.device.type, "cuda")\n', "CUDA", '"cuda"'),
    ],
)
def test_a_device_named_so_is_no_safe_generic(tmp_path: Path, body: str, member: str, shown: str) -> None:
    fix, message = one(tmp_path, f"class TestA(TestCase):\n    def test_a(self):\n{body}")
    assert fix == Fix("unsafe", member, f"every accelerator use in the class is {member}", kind="one-device")
    assert "GENERIC" not in message
    # In an ACCELERATOR class, HWC201 reports the same site as a hard-coded device.
    accelerator = (
        "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        f"    def test_a(self, device):\n{body}\n\ninstantiate_device_type_tests(TestA, globals())\n"
    )
    root = write_project(tmp_path / "hw", {"test/test_x.py": HEADER + accelerator}, {"select": ["HWC1", "HWC201"]})
    found = [d.message for d in lint(root).diagnostics if d.code == "HWC201"]
    assert found and f"hard-codes a device ({shown})" in found[0], found


@pytest.mark.parametrize(
    "body",
    [
        '        self.assertEqual(results["xla"], 1)\n',  # a key
        '        d = {"cuda": 1}\n',
        '        self.assertIs(getattr(torch, "cuda"), torch.cuda)\n',  # an attribute's name
        '        self.skipTest("cuda")\n',  # a message
        '        self.assertTrue(ok, msg="cuda")\n',
        '        """Runs on "cuda" too."""\n',  # prose
    ],
)
def test_a_device_word_that_names_no_device_to_run_on_leaves_a_safe_generic(tmp_path: Path, body: str) -> None:
    fix, _ = one(tmp_path, f"class TestA(TestCase):\n    def test_a(self, x=None, ok=True, results=None):\n{body}")
    assert isinstance(fix, Fix) and (fix.classification, fix.applicability) == ("GENERIC", "safe")


def test_the_privateuse1_backend_name_is_a_question_about_the_device(tmp_path: Path) -> None:
    """Ascend's tests build their device from it: no safe GENERIC."""
    fix, _ = one(
        tmp_path,
        "class TestA(TestCase):\n    def setUp(self):\n"
        "        self.device = torch.device(torch._C._get_privateuse1_backend_name())\n\n"
        "    def test_a(self):\n        torch.ones(2, device=self.device)\n",
    )
    assert isinstance(fix, NotFixable) and fix.kind == "mixed-accelerator-use"


@pytest.mark.parametrize(
    ("body", "member"),
    [
        ('dist.init_process_group(backend="nccl")', "CUDA"),
        ('dist.init_process_group(backend="xccl")', "XPU"),
        ('x = torch.ones(2, device=f"cuda:{self.rank}")', "CUDA"),
    ],
)
def test_a_collective_backend_or_a_computed_device_names_the_member(tmp_path: Path, body: str, member: str) -> None:
    fix, _ = one(tmp_path, f"class TestA(TestCase):\n    @skip_if_lt_x_gpu(2)\n    def test_a(self):\n        {body}\n")
    assert fix == Fix("unsafe", member, f"every accelerator use in the class is {member}", kind="one-device")
