"""A device test's guards as PyTorch's contributors rewrite them when they
make a class device-generic (hwlint.fix.migrate.guards): a skip that only
says the device is there becomes the framework's device check and then
`@onlyAccelerator`; a Triton capability skip becomes `has_triton()`; any
other skip stays, and blocks. Snippets in, exact text out; a second run
changes nothing (tests.test_migrate.migrate)."""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
import pytest

from hwlint.fix.migrate.guards import guards_rewritten
from tests.test_migrate import MAIN, migrate

HEAD = (
    "import unittest\n\nimport torch\n"
    "from torch.testing._internal.common_cuda import TEST_CUDA\n"
    "from torch.testing._internal.common_utils import IS_WINDOWS, TestCase, run_tests\n"
)
DECLARED = (
    "import unittest\n\nimport torch\n"
    "from torch.testing._internal.common_cuda import TEST_CUDA\n"
    "from torch.testing._internal.common_utils import IS_WINDOWS, TestCase, run_tests, HardwareClassification\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyAccelerator\n"
)
ADD = "        a = torch.ones(2, device=DEV)\n        self.assertEqual((a + a).sum().item(), 4)\n"


def _add(device: str) -> str:
    return ADD.replace("DEV", device)


def test_a_skip_without_the_device_becomes_only_accelerator(tmp_path: Path) -> None:
    source = HEAD + (
        '\nrequires_cuda = unittest.skipUnless(TEST_CUDA, "requires CUDA")\n'
        "\n\nclass TestOps(TestCase):\n"
        '    @unittest.skipIf(not TEST_CUDA, "no CUDA")\n    def test_add(self):\n' + _add('"cuda"') + "\n"
        "    @requires_cuda\n    def test_mul(self):\n        torch.ones(2).cuda()\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert text == DECLARED + (
        '\nrequires_cuda = unittest.skipUnless(TEST_CUDA, "requires CUDA")\n'
        "\n\nclass TestOps(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    @onlyAccelerator\n    def test_add(self, device):\n" + _add("device") + "\n"
        "    @onlyAccelerator\n    def test_mul(self, device):\n        torch.ones(2).to(device)\n\n\n"
        'instantiate_device_type_tests(TestOps, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    (done, *_) = report.files[0].migrated
    assert done.detail == (
        "CUDA class made device-generic: 2 tests given `device`, 2 hard-coded devices rewritten, "
        '2 guards of the device made generic, instantiated, except_for="cpu", allow_xpu=True '
        "(its tests need an accelerator: every test uses it)"
    )
    assert done.guards == (("test_add", ("skipIf",), ("onlyCUDA",)), ("test_mul", ("requires_cuda",), ("onlyCUDA",)))


def test_a_triton_capability_skip_asks_for_triton(tmp_path: Path) -> None:
    skip = '    @unittest.skipIf(torch.cuda.get_device_capability() < (7, 0), "Triton does not support this GPU")\n'
    source = HEAD + "\n\nclass TestOps(TestCase):\n" + skip + "    def test_add(self):\n" + _add('"cuda"')
    text, _ = migrate(tmp_path, source + MAIN)
    declared = DECLARED.replace(
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyAccelerator\n",
        "from torch.utils._triton import has_triton\n"
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n",
    )
    assert text == declared + (
        "\n\nclass TestOps(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        '    @unittest.skipUnless(has_triton(), "Triton does not support this GPU")\n'
        "    def test_add(self, device):\n" + _add("device") + "\n\n"
        'instantiate_device_type_tests(TestOps, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )


def test_a_mixed_class_with_a_guarded_device_test_is_split(tmp_path: Path) -> None:
    # The guard's probe is the guarded test's, not the device-free test's before it.
    source = HEAD + (
        "\n\nclass TestMixed(TestCase):\n    def test_math(self):\n        self.assertEqual(1 + 1, 2)\n\n"
        '    @unittest.skipIf(not TEST_CUDA, "no CUDA")\n    def test_add(self):\n' + _add('"cuda"')
    )
    text, report = migrate(tmp_path, source + MAIN)
    # `unittest` and TEST_CUDA went with the guard, the last to name them.
    bare = DECLARED.replace("import unittest\n\n", "").replace(
        "from torch.testing._internal.common_cuda import TEST_CUDA\n", ""
    )
    assert text == bare + (
        "\n\nclass TestMixedGeneric(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_math(self):\n        self.assertEqual(1 + 1, 2)\n\n\n"
        "class TestMixedAccelerator(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    @onlyAccelerator\n    def test_add(self, device):\n" + _add("device") + "\n\n"
        'instantiate_device_type_tests(TestMixedAccelerator, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert report.migrated == {"split": 2, "only-accelerator": 1}


@pytest.mark.parametrize(
    "guard",
    [
        '@unittest.skipIf(not TEST_CUDA or IS_WINDOWS, "no CUDA")',  # another condition too
        '@unittest.skipIf(TEST_CUDA, "not on CUDA")',  # skipped where the device is
        '@unittest.skipUnless(torch.cuda.is_available() and TEST_CUDNN, "cuDNN")',  # cuDNN too
    ],
)
def test_a_skip_on_anything_else_stays_and_blocks(tmp_path: Path, guard: str) -> None:
    source = HEAD + f"\n\nclass TestOps(TestCase):\n    {guard}\n    def test_add(self):\n" + _add('"cuda"')
    text, report = migrate(tmp_path, source + MAIN)
    assert f"    {guard}\n    def test_add(self, device):\n" + _add('"cuda"') in text
    assert "hw_classification = HardwareClassification.CUDA\n" in text
    assert report.migrated == {"device-class": 1}


def test_a_name_bound_twice_is_no_guard() -> None:
    source = (
        'requires_cuda = unittest.skipUnless(TEST_CUDA, "CUDA")\nrequires_cuda = unittest.skip("off")\n\n'
        "class TestOps(TestCase):\n    @requires_cuda\n    def test_a(self):\n        pass\n"
    )
    module, count = guards_rewritten(cst.parse_module(source), "TestOps", 0)
    assert (module.code, count) == (source, 0)


def test_pytorchs_own_device_skips_are_rewritten_and_their_imports_go(tmp_path: Path) -> None:
    # common_utils' requires_cuda is skipUnless(torch.cuda.is_available());
    # triton_utils' requires_cuda_and_triton asks for Triton too, which every
    # device that has it offers: `@requires_triton()`.
    head = (
        "import torch\n"
        "from torch.testing._internal.common_utils import TestCase, requires_cuda, run_tests\n"
        "from torch.testing._internal.triton_utils import requires_cuda_and_triton\n"
    )
    source = head + (
        "\n\nclass TestOps(TestCase):\n    @requires_cuda\n    def test_add(self):\n" + _add('"cuda"') + "\n"
        "    @requires_cuda_and_triton\n    def test_compiled(self):\n"
        "        torch.compile(torch.sin)(torch.ones(2).cuda())\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert text == (
        "import torch\n"
        "from torch.testing._internal.common_utils import TestCase, run_tests, HardwareClassification\n"
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyAccelerator\n"
        "from torch.testing._internal.inductor_utils import requires_triton\n"
        "\n\nclass TestOps(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    @onlyAccelerator\n    def test_add(self, device):\n" + _add("device") + "\n"
        "    @onlyAccelerator\n    @requires_triton()\n    def test_compiled(self, device):\n"
        "        torch.compile(torch.sin)(torch.ones(2).to(device))\n\n\n"
        'instantiate_device_type_tests(TestOps, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert report.files[0].migrated[0].guards == (
        ("test_add", ("requires_cuda",), ("onlyCUDA",)),
        ("test_compiled", ("requires_cuda_and_triton",), ("onlyCUDA", "requires_triton")),
    )
    # The same name from a module of the project's own is no known skip: it blocks.
    own = source.replace("torch.testing._internal.triton_utils", "helpers")
    text, report = migrate(tmp_path / "own", own + MAIN)
    assert "    @requires_cuda_and_triton\n    def test_compiled(self, device):\n" in text
    assert "hw_classification = HardwareClassification.CUDA\n" in text


def test_docs_guards_example_is_what_fix_does(tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "fix.md").read_text()
    blocks = dict(re.findall(r"<!-- migration-example: guards (\w+) -->\n```python\n(.*?)```", text, re.S))
    assert set(blocks) == {"before", "after"}, "docs/fix.md lost its guards before/after example"
    fixed, report = migrate(tmp_path, blocks["before"])
    assert fixed == blocks["after"]
    assert report.migrated == {"split": 2, "only-accelerator": 3}
