"""A one-device class made device-generic (`hwlint fix --unsafe`, the
"generalize" migration): `except_for="cpu"` when its tests need an
accelerator, `allow_xpu=True` always; the distributed equivalents
(`@requires_nccl()`, `init_process_group("nccl")`, `torch.cuda.set_device`)
with the oldest-torch in force; and, refused, what blocked it, in the
summary and in `--format json` (`blocked_by`). Snippets in, exact text out;
every migrated file is fixed again to show that a second run changes
nothing (tests.test_migrate.migrate)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwlint.core.config import Config
from hwlint.fix.blocker import Blocker, BlockerKind
from hwlint.fix.migrate.outcome import Refused
from hwlint.fix.plan_records import Migration
from hwlint.fix.result import FixReport
from hwlint.fix.summary import not_generalized_lines
from tests.conftest import run_cli, write_project
from tests.test_migrate import MAIN, migrate

HEAD = "import torch\nfrom torch.testing._internal.common_utils import TestCase, run_tests\n"
DECLARED = (
    "import torch\nfrom torch.testing._internal.common_utils import TestCase, run_tests, HardwareClassification\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
)
DIST_HEAD = (
    "import torch\nimport torch.distributed as dist\n"
    "from torch.testing._internal.common_distributed import MultiProcessTestCase, requires_nccl, skip_if_lt_x_gpu\n"
    "from torch.testing._internal.common_utils import run_tests\n"
)
DIST_DECLARED = (
    "import torch\nimport torch.distributed as dist\n"
    "from torch.testing._internal.common_distributed import MultiProcessTestCase, requires_nccl, skip_if_lt_x_gpu, "
    "requires_accelerator_dist_backend\n"
    "from torch.testing._internal.common_utils import run_tests, HardwareClassification\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
)
NEWER = {"oldest-torch": "2.9"}


def generalized(report: FixReport) -> list[str]:
    return [d.detail for f in report.files for d in f.migrated if d.kind == "generalize"]


def blocked(report: FixReport) -> list[dict[str, object]]:
    return [x["blocked_by"] for x in report.to_dict()["not_generalized"]]


# -- except_for="cpu", allow_xpu=True ------------------------------------------


def test_a_class_whose_tests_all_use_the_device_is_kept_off_cpu(tmp_path: Path) -> None:
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def test_a(self):\n        x = torch.ones(2).cuda()\n        self.assertEqual(x.sum().item(), 2)\n\n"
        "    def test_b(self):\n        torch.cuda.synchronize()\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert text == DECLARED + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_a(self, device):\n        x = torch.ones(2).to(device)\n        self.assertEqual(x.sum().item(), 2)\n\n"
        "    def test_b(self, device):\n        torch.accelerator.synchronize()\n\n\n"
        'instantiate_device_type_tests(TestA, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert report.files[0].migrated[0].collected == ("TestACUDA", "TestAXPU", "TestAHPU", "TestAPRIVATEUSE1")
    assert generalized(report) == [
        "CUDA class made device-generic: 2 tests given `device`, 2 hard-coded devices rewritten, "
        'instantiated, except_for="cpu", allow_xpu=True (its tests need an accelerator: every test uses it)'
    ]


def test_a_test_that_only_branches_on_an_accelerator_goes_to_the_generic_class(tmp_path: Path) -> None:
    # test_b only asks whether an accelerator is there, and runs without one
    # the same way: device-free, so the class is split (the contributors' way).
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def test_a(self):\n        x = torch.ones(2).cuda()\n\n"
        "    def test_b(self):\n        if torch.accelerator.is_available():\n"
        "            self.assertGreater(torch.accelerator.device_count(), 0)\n"
        "        self.assertEqual(torch.ones(2).sum().item(), 2)\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert text == DECLARED + (
        "\n\nclass TestAGeneric(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_b(self):\n        if torch.accelerator.is_available():\n"
        "            self.assertGreater(torch.accelerator.device_count(), 0)\n"
        "        self.assertEqual(torch.ones(2).sum().item(), 2)\n\n\n"
        "class TestAAccelerator(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_a(self, device):\n        x = torch.ones(2).to(device)\n\n\n"
        'instantiate_device_type_tests(TestAAccelerator, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    # The GENERIC class is collected as written: no per-device names to list.
    assert [m.collected for m in report.files[0].migrated] == [
        (),
        ("TestAAcceleratorCUDA", "TestAAcceleratorXPU", "TestAAcceleratorHPU", "TestAAcceleratorPRIVATEUSE1"),
    ]


@pytest.mark.parametrize(
    ("member", "test", "why"),
    [
        # A helper the test calls runs on the device.
        (
            "CUDA",
            "    def _ones(self):\n        return torch.ones(2).cuda()\n\n"
            "    def test_a(self):\n        self.assertEqual(self._ones().sum().item(), 2)\n",
            "every test uses it",
        ),
        # setUp runs before every test.
        (
            "XPU",
            "    def setUp(self):\n        super().setUp()\n        self.x = torch.ones(2).xpu()\n\n"
            "    def test_a(self):\n        self.assertEqual(self.x.sum().item(), 2)\n",
            "setUp uses it",
        ),
    ],
)
def test_what_makes_the_tests_need_an_accelerator(tmp_path: Path, member: str, test: str, why: str) -> None:
    text, report = migrate(tmp_path, HEAD + "\n\nclass TestA(TestCase):\n" + test + MAIN)
    assert text.endswith(
        '\n\ninstantiate_device_type_tests(TestA, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert generalized(report)[0].startswith(f"{member} class made device-generic")
    assert generalized(report)[0].endswith(f"(its tests need an accelerator: {why})")


def test_a_device_handed_to_the_classs_own_device_parameter_becomes_the_tests(tmp_path: Path) -> None:
    """`self._check("cuda", 2)` where the class's `_check(self, device, n)`
    takes it: the helper is already device-generic, the string is the
    test's device (PyTorch's `self._test_after_aot_runtime_error("cuda", ...)`).
    A helper the class does not define, or a parameter of another name, is
    not read: the string stays, and blocks."""
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def _check(self, device, n):\n        self.assertEqual(torch.ones(n, device=device).sum().item(), n)\n\n"
        "    @staticmethod\n    def _make(device):\n        return torch.ones(2, device=device)\n\n"
        '    def test_a(self):\n        self._check("cuda", 2)\n\n'
        '    def test_b(self):\n        self._check("cuda:0", n=3)\n'
        '        self.assertEqual(self._make("cuda").sum().item(), 2)\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert text == DECLARED + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def _check(self, device, n):\n        self.assertEqual(torch.ones(n, device=device).sum().item(), n)\n\n"
        "    @staticmethod\n    def _make(device):\n        return torch.ones(2, device=device)\n\n"
        "    def test_a(self, device):\n        self._check(device, 2)\n\n"
        "    def test_b(self, device):\n        self._check(device, n=3)\n"
        "        self.assertEqual(self._make(device).sum().item(), 2)\n\n\n"
        'instantiate_device_type_tests(TestA, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert [m.kind for m in report.files[0].migrated] == ["generalize"]
    other = source.replace("def _check(self, device, n)", "def _check(self, where, n)").replace(
        "torch.ones(n, device=device)", "torch.ones(n, device=where)"
    )
    kept, report = migrate(tmp_path / "other", other + MAIN)
    assert 'self._check("cuda", 2)' in kept and "HardwareClassification.CUDA" in kept
    assert report.files[0].refused[0].blocked_by.site == '"cuda"'


def test_an_mps_class_is_opted_in_to_mps_and_xpu(tmp_path: Path) -> None:
    source = HEAD + '\n\nclass TestM(TestCase):\n    def test_m(self):\n        x = torch.ones(2, device="mps")\n'
    text, report = migrate(tmp_path, source + MAIN)
    assert text == DECLARED + (
        "\n\nclass TestM(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_m(self, device):\n        x = torch.ones(2, device=device)\n\n\n"
        'instantiate_device_type_tests(TestM, globals(), except_for="cpu", allow_xpu=True, allow_mps=True)\n' + MAIN
    )
    assert report.files[0].migrated[0].collected == (
        "TestMCUDA",
        "TestMMPS",
        "TestMXPU",
        "TestMHPU",
        "TestMPRIVATEUSE1",
    )


def test_a_docstring_naming_the_device_blocks_nothing(tmp_path: Path) -> None:
    source = HEAD + (
        '\n\nclass TestA(TestCase):\n    """Runs on CUDA."""\n\n'
        '    def test_a(self):\n        """A cuda tensor."""\n        x = torch.ones(2).cuda()\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert report.migrated == {"generalize": 1}
    assert '    def test_a(self, device):\n        """A cuda tensor."""\n        x = torch.ones(2).to(device)\n' in text


# -- the distributed equivalents ------------------------------------------------

DIST_CLASS = (
    "\n\nclass TestAllReduce(MultiProcessTestCase):\n"
    "    def _init_pg(self):\n"
    '        dist.init_process_group(backend="nccl", rank=self.rank, world_size=self.world_size)\n\n'
    "    @requires_nccl()\n    @skip_if_lt_x_gpu(2)\n    def test_allreduce(self):\n"
    "        self._init_pg()\n        torch.cuda.set_device(self.rank)\n"
    '        t = torch.ones(4, device=f"cuda:{self.rank}")\n'
    "        dist.all_reduce(t)\n        self.assertEqual(t[0].item(), torch.cuda.device_count())\n"
)


def test_a_distributed_class_becomes_accelerator_with_the_generic_backend_and_decorator(tmp_path: Path) -> None:
    text, report = migrate(tmp_path, DIST_HEAD + DIST_CLASS + MAIN, NEWER)
    assert text == DIST_DECLARED + (
        "\n\nclass TestAllReduce(MultiProcessTestCase):\n"
        "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def _init_pg(self):\n"
        "        dist.init_process_group(backend=dist.get_default_backend_for_device(self.device_type), "
        "rank=self.rank, world_size=self.world_size)\n\n"
        "    @requires_accelerator_dist_backend()\n    @skip_if_lt_x_gpu(2)\n    def test_allreduce(self, device):\n"
        "        self._init_pg()\n        torch.accelerator.set_device_index(self.rank)\n"
        '        t = torch.ones(4, device=f"{self.device_type}:{self.rank}")\n'
        "        dist.all_reduce(t)\n        self.assertEqual(t[0].item(), torch.accelerator.device_count())\n\n\n"
        'instantiate_device_type_tests(TestAllReduce, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert report.migrated == {"generalize": 1}
    assert generalized(report)[0].endswith("(its tests need an accelerator: every test uses it)")


def test_a_backend_a_backend_str_hook_returns_becomes_the_generic_backend(tmp_path: Path) -> None:
    # MultiProcContinuousTest asks the class (not a test) for its backend: the
    # accelerator there is stands for the device (a class's own `device_type`
    # may be a method, as the contributors' test_replicate_with_fsdp.py has).
    hook = (
        '    @classmethod\n    def backend_str(cls) -> str:\n        return "nccl"\n\n'
        "    @skip_if_lt_x_gpu(2)\n    def test_allreduce(self):\n"
        '        t = torch.ones(4, device=f"cuda:{self.rank}")\n        dist.all_reduce(t)\n'
    )
    source = DIST_HEAD + "\n\nclass TestAllReduce(MultiProcessTestCase):\n" + hook + MAIN
    text, report = migrate(tmp_path, source, NEWER)
    assert report.migrated == {"generalize": 1}
    assert (
        "    @classmethod\n    def backend_str(cls) -> str:\n"
        "        return dist.get_default_backend_for_device(torch.accelerator.current_accelerator())\n\n"
        "    @skip_if_lt_x_gpu(2)\n    def test_allreduce(self, device):\n"
        '        t = torch.ones(4, device=f"{self.device_type}:{self.rank}")\n'
    ) in text


def test_the_decorator_under_the_name_the_file_imports(tmp_path: Path) -> None:
    source = DIST_HEAD.replace(
        "skip_if_lt_x_gpu\n",
        "skip_if_lt_x_gpu\nfrom torch.testing._internal.common_distributed import "
        "requires_accelerator_dist_backend as needs_ccl\n",
    )
    text, report = migrate(tmp_path, source + DIST_CLASS + MAIN, NEWER)
    assert report.migrated == {"generalize": 1}
    assert "    @needs_ccl()\n    @skip_if_lt_x_gpu(2)\n    def test_allreduce(self, device):\n" in text
    assert text.count("requires_accelerator_dist_backend") == 1  # the import only


@pytest.mark.parametrize(
    ("settings", "site", "line", "why", "kind"),
    [
        (
            None,
            "@requires_nccl()",
            13,
            "has no device-generic equivalent before torch 2.9 (oldest-torch 2.7): requires_accelerator_dist_backend",
            "newer-torch",
        ),
        (
            {"oldest-torch": "2.6"},
            '"nccl"',
            11,
            # get_default_backend_for_device is 2.6's: the backend passes; @requires_nccl() is 2.9's.
            None,
            None,
        ),
    ],
)
def test_an_equivalent_newer_than_oldest_torch_blocks(
    tmp_path: Path, settings: dict | None, site: str, line: int, why: str | None, kind: str | None
) -> None:
    text, report = migrate(tmp_path, DIST_HEAD + DIST_CLASS + MAIN, settings)
    assert "    hw_classification = HardwareClassification.CUDA\n" in text
    (first,) = blocked(report)
    if why is None:  # the first blocker is a later one
        assert first["site"] != site and first["kind"] == "newer-torch"
        return
    assert first == {"line": line, "site": site, "why": why, "kind": kind}


def test_set_device_blocks_before_torch_2_7(tmp_path: Path) -> None:
    source = HEAD + "\n\nclass TestA(TestCase):\n    def test_a(self):\n        torch.cuda.set_device(0)\n"
    text, report = migrate(tmp_path, source + MAIN, {"oldest-torch": "2.6"})
    assert blocked(report) == [
        {
            "line": 9,
            "site": "torch.cuda.set_device(0)",
            "why": "has no device-generic equivalent before torch 2.7 (oldest-torch 2.6): "
            "torch.accelerator.set_device_index",
            "kind": "newer-torch",
        }
    ]
    assert report.files[0].refused[0].reason == (
        "`torch.cuda.set_device(0)` (line 9) has no device-generic equivalent before torch 2.7 (oldest-torch 2.6): "
        "torch.accelerator.set_device_index"
    )


@pytest.mark.parametrize(
    ("body", "blocker"),
    [
        # A string that maps devices to backends: no rewrite writes it from the test's device.
        (
            '        dist.init_process_group("cpu:gloo,cuda:nccl", rank=0, world_size=1)\n',
            {
                "line": 11,
                "site": '"cpu:gloo,cuda:nccl"',
                "why": "names a device in a string, which no rewrite changes",
                "kind": "device-string",
            },
        ),
        # The test asks for CUDA's backend: it asserts what NCCL does.
        (
            '        dist.init_process_group("nccl", rank=0, world_size=1)\n'
            '        backend = dist.group.WORLD._get_backend(torch.device("cuda"))\n',
            {
                "line": 12,
                "site": 'dist.group.WORLD._get_backend(torch.device("cuda"))',
                "why": "asks for one device's backend: the test asserts what that backend does",
                "kind": "backend-assertion",
            },
        ),
        (
            '        opts = dist.ProcessGroupNCCL.Options()\n        dist.init_process_group("nccl", rank=0, world_size=1)\n',
            {
                "line": 11,
                "site": "ProcessGroupNCCL",
                "why": "belongs to one collective backend: it is a test of that backend",
                "kind": "backend-only",
            },
        ),
        (
            '        dist.init_process_group("nccl", pg_options=None, rank=0, world_size=1)\n',
            {
                "line": 11,
                "site": '"nccl"',
                "why": "has no device-generic equivalent: process-group options are backend-specific "
                "(ProcessGroupNCCL.Options and the like)",
                "kind": "no-equivalent",
            },
        ),
        (
            "        if torch.backends.cudnn.enabled:\n            pass\n",
            {
                "line": 11,
                "site": "torch.backends.cudnn.enabled",
                "why": "names 'cudnn', which no rewrite changes: it is a test of that device",
                "kind": "names-device",
            },
        ),
    ],
)
def test_an_unsafe_rewrite_refuses_with_the_site_and_why(tmp_path: Path, body: str, blocker: dict) -> None:
    source = (
        "import torch\nimport torch.distributed as dist\nfrom torch.testing._internal.common_utils import TestCase, "
        "run_tests\n\n\nclass TestPG(TestCase):\n    def test_pg(self):\n        torch.cuda.synchronize()\n" + body
    )
    text, report = migrate(tmp_path, source + MAIN, NEWER)
    assert "    hw_classification = HardwareClassification.CUDA\n" in text
    assert blocked(report) == [blocker]
    reason = f"`{blocker['site']}` (line {blocker['line']}) {blocker['why']}"
    assert report.to_dict()["not_generalized"][0]["reason"] == reason
    assert f"  test/test_a.py:6: TestPG: {reason}" in report.summary()


# -- what the summary and the JSON say -----------------------------------------


def test_the_summary_and_json_say_what_blocked_it(tmp_path: Path) -> None:
    source = HEAD + "\n\nclass TestA(TestCase):\n    def test_a(self):\n        torch.cuda.set_device(0)\n"
    root = write_project(tmp_path / "proj", {"test/test_a.py": source + MAIN}, {"oldest-torch": "2.6"})
    proc = run_cli("fix", "--unsafe", "--diff", cwd=root)
    assert (
        "1 one-device class not made device-generic, by what blocked it:\n"
        "  test/test_a.py:5: TestA: `torch.cuda.set_device(0)` (line 9) has no device-generic equivalent before "
        "torch 2.7 (oldest-torch 2.6): torch.accelerator.set_device_index\n"
    ) in proc.stderr
    data = json.loads(run_cli("fix", "--unsafe", "--diff", "--format", "json", cwd=root).stdout)
    assert data["not_generalized"][0]["blocked_by"] == {
        "line": 9,
        "site": "torch.cuda.set_device(0)",
        "why": "has no device-generic equivalent before torch 2.7 (oldest-torch 2.6): torch.accelerator.set_device_index",
        "kind": "newer-torch",
    }
    assert all(u["blocked_by"] is None for u in data["unfixed"])


def test_a_class_of_an_unconfigured_device_is_left_with_its_blocker(tmp_path: Path) -> None:
    # NPU is no configured member: generalized or nothing, and what blocked it is in `unfixed`.
    source = HEAD + (
        '\n\nclass TestN(TestCase):\n    def test_n(self):\n        x = torch.ones(2, device="npu")\n'
        "        torch.npu.get_device_properties(0)\n"
    )
    root = write_project(tmp_path / "proj", {"test/test_a.py": source + MAIN})
    data = json.loads(run_cli("fix", "--unsafe", "--diff", "--format", "json", cwd=root).stdout)
    (left,) = [u for u in data["unfixed"] if u["class_name"] == "TestN"]
    assert left["kind"] == "not-configured"
    # (No declaration was written for it: the line of the file as read.)
    assert left["blocked_by"] == {
        "line": 8,
        "site": "torch.npu.get_device_properties(0)",
        "why": "has no device-generic equivalent: device properties differ per backend",
        "kind": "no-equivalent",
    }


@pytest.mark.parametrize("decorator", ['@unittest.skip("flaky")', "@skipIfTorchDynamo()"])
def test_a_class_skip_stays_on_the_generalized_class(tmp_path: Path, decorator: str) -> None:
    # The framework's device classes subclass the class: they inherit the mark of a skip.
    head = "import unittest\n" + HEAD.replace("run_tests\n", "run_tests, skipIfTorchDynamo\n")
    source = head + f"\n\n{decorator}\nclass TestA(TestCase):\n    def test_a(self):\n        torch.ones(2).cuda()\n"
    text, report = migrate(tmp_path, source + MAIN)
    assert (
        f"\n\n{decorator}\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_a(self, device):\n        torch.ones(2).to(device)\n\n\n"
        'instantiate_device_type_tests(TestA, globals(), except_for="cpu", allow_xpu=True)\n'
    ) in text
    assert generalized(report)


def test_a_class_decorator_that_is_no_skip_blocks(tmp_path: Path) -> None:
    source = HEAD + "from mymod import register\n\n\n@register\nclass TestA(TestCase):\n"
    source += "    def test_a(self):\n        torch.ones(2).cuda()\n"
    text, report = migrate(tmp_path, source + MAIN)
    # Nor is it instantiated for CUDA: left, saying what blocked each, `blocked_by` in JSON.
    assert text == source + MAIN
    (left,) = report.to_dict()["unfixed"]
    assert (left["kind"], left["reason"]) == (
        "not-instantiable",
        "not generalized: `@register` decorates the class: generalize by hand; "
        'not instantiated only_for="cuda": TestA has class decorators (register): instantiate it by hand',
    )
    assert left["blocked_by"] == {
        "line": 7,
        "site": "@register",
        "why": "decorates the class: generalize by hand",
        "kind": "class",
    }


def test_a_class_whose_name_names_its_device_is_not_generalized(tmp_path: Path) -> None:
    # Instantiated, it would run as TestSDPACudaOnlyCUDA: its name makes it one device's.
    source = HEAD + "\n\nclass TestSDPACudaOnly(TestCase):\n    def test_a(self):\n        torch.ones(2).cuda()\n"
    text, report = migrate(tmp_path, source + MAIN)
    assert "    hw_classification = HardwareClassification.CUDA\n" in text
    assert blocked(report) == [
        {
            "line": 5,
            "site": "TestSDPACudaOnly",
            "why": "is 'cuda' only, by its name: rename it to make it device-generic",
            "kind": "class",
        }
    ]


def test_an_unconfigured_device_named_in_an_expected_message_blocks(tmp_path: Path) -> None:
    # OpenReg's test_autocast.py: the warning the test expects is OpenReg's own.
    source = HEAD + (
        "import torch_openreg\n\n\nclass TestAutocast(TestCase):\n    def test_message(self):\n"
        '        with self.assertWarnsRegex(UserWarning, "In openreg autocast"):\n'
        '            torch.ones(2, device="openreg")\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert "instantiate_device_type_tests" not in text
    (left,) = [u for u in report.unfixed if u.class_name == "TestAutocast"]
    assert left.blocked_by == Blocker(
        8, '"In openreg autocast"', "names a device in a string, which no rewrite changes", "device-string"
    )


# -- a base hwlint resolves ------------------------------------------------------

BASE_HEAD = "import torch\nfrom testbase import Base\nfrom torch.testing._internal.common_utils import run_tests\n"


@pytest.mark.parametrize(
    ("base_body", "why"),
    [
        (
            '    def helper(self):\n        return torch.ones(2, device="npu")\n',
            'its base Base (test/testbase.py:5) uses the device (`device="npu"`, line 7): '
            "make the base device-generic first",
        ),
        (
            "    def test_inherited(self):\n        pass\n",
            "its base Base (test/testbase.py:5) has tests of its own, which do not take `device`: "
            "generalize the base first",
        ),
    ],
)
def test_a_base_that_binds_the_class_refuses_it_saying_so(tmp_path: Path, base_body: str, why: str) -> None:
    # Only the class's own code is rewritten: a base in another file that uses
    # the device (or has tests that would be instantiated) keeps it NPU's, and
    # the reason names the base.
    base = "import torch\nfrom torch.testing._internal.common_utils import TestCase\n\n\nclass Base(TestCase):\n"
    source = BASE_HEAD + '\n\nclass TestN(Base):\n    def test_n(self):\n        torch.ones(2, device="npu")\n'
    files = {"test/testbase.py": base + base_body}
    text, report = migrate(tmp_path, source + MAIN, files=files)
    assert text == source + MAIN
    (left,) = [u for u in report.unfixed if u.class_name == "TestN"]
    assert left.kind == "not-configured"
    assert left.blocked_by == Blocker(6, "", why, "base")
    assert left.reason.endswith(f"; not generalized: {why}")


def test_a_base_that_binds_no_device_lets_the_class_be_generalized(tmp_path: Path) -> None:
    base = (
        "from torch.testing._internal.common_utils import TestCase\n\n\n"
        "class Base(TestCase):\n    def helper(self):\n        return 1\n"
    )
    source = BASE_HEAD + '\n\nclass TestN(Base):\n    def test_n(self):\n        torch.ones(2, device="npu")\n'
    text, report = migrate(tmp_path, source + MAIN, files={"test/testbase.py": base})
    assert text == (
        "import torch\nfrom testbase import Base\n"
        "from torch.testing._internal.common_utils import run_tests, HardwareClassification\n"
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
        "\n\nclass TestN(Base):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_n(self, device):\n        torch.ones(2, device=device)\n\n\n"
        'instantiate_device_type_tests(TestN, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert generalized(report)


def test_a_one_device_class_bound_by_its_base_says_so_in_the_summary(tmp_path: Path) -> None:
    base = (
        "import torch\nfrom torch.testing._internal.common_utils import TestCase\n\n\n"
        "class Base(TestCase):\n    def setUp(self):\n        self.x = torch.ones(2).cuda()\n"
    )
    source = BASE_HEAD + "\n\nclass TestC(Base):\n    def test_c(self):\n        torch.cuda.synchronize()\n"
    root = write_project(tmp_path / "proj", {"test/test_a.py": source + MAIN, "test/testbase.py": base})
    proc = run_cli("fix", "--unsafe", "--diff", cwd=root)
    assert (
        "1 one-device class not made device-generic, by what blocked it:\n"
        "  test/test_a.py:6: TestC: its base Base (test/testbase.py:5) uses the device (`torch.ones(...).cuda()`, "
        "line 7): make the base device-generic first\n"
    ) in proc.stderr


def test_a_backend_packages_own_device_module_has_the_generic_equivalents(tmp_path: Path) -> None:
    # torch_npu installs its `npu` module as torch.npu: torch_npu.npu.synchronize() is torch.npu.synchronize().
    source = (
        HEAD
        + "import torch_npu\n\n\nclass TestN(TestCase):\n    def test_n(self):\n"
        + '        x = torch.ones(2, device="npu")\n        torch_npu.npu.synchronize()\n'
        + "        n = torch_npu.npu.device_count()\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert "        torch.accelerator.synchronize()\n        n = torch.accelerator.device_count()\n" in text
    assert "import torch_npu\n" in text  # it registers the device
    assert generalized(report)


def test_many_classes_not_generalized_are_counted_by_kind() -> None:
    def refused(n: int, kind: BlockerKind) -> tuple[str, Refused]:
        m = Migration("generalize", f"Test{n}", 0, n, "", "CUDA")
        return "test/test_a.py", Refused(m, "r", blocker=Blocker(n + 1, "torch.cuda.f()", "has none", kind))

    stayed = [refused(n, "no-equivalent") for n in range(8)] + [refused(n, "device-string") for n in range(8, 11)]
    assert not_generalized_lines(stayed) == [
        "11 one-device classes not made device-generic, by what blocked them:",
        "  8 no-equivalent (e.g. test/test_a.py:0 Test0: `torch.cuda.f()` (line 1) has none)",
        "  3 device-string (e.g. test/test_a.py:8 Test8: `torch.cuda.f()` (line 9) has none)",
        "`hwlint fix --show-unfixed` lists each class; `--format json` gives each blocker (`not_generalized`).",
    ]
    assert len(not_generalized_lines(stayed, show_all=True)) == 12


# -- docs/fix.md ---------------------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs" / "fix.md"


def test_docs_distributed_generalize_example_is_what_fix_does(tmp_path: Path) -> None:
    text = DOCS.read_text()
    blocks = dict(
        re.findall(r"<!-- migration-example: generalize-distributed (\w+) -->\n```python\n(.*?)```", text, re.S)
    )
    assert set(blocks) == {"before", "after"}, "docs/fix.md lost its distributed generalize example"
    root = write_project(tmp_path / "proj", {"test/test_x.py": blocks["before"]}, NEWER)
    proc = run_cli("fix", "--unsafe", cwd=root)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert (root / "test/test_x.py").read_text() == blocks["after"]
    assert run_cli("fix", "--unsafe", "--diff", cwd=root).stdout == ""
    # With the default oldest-torch it stays CUDA's, and fix says why.
    root = write_project(tmp_path / "default", {"test/test_x.py": blocks["before"]})
    said = re.search(r"the class stays CUDA's, and `fix`\nsays why: ``(.*?)``", text, re.S)
    assert said and " ".join(said.group(1).split()) in run_cli("fix", "--unsafe", "--diff", cwd=root).stderr


def test_docs_device_class_example_says_what_blocked_it(tmp_path: Path) -> None:
    text = DOCS.read_text()
    blocks = dict(re.findall(r"<!-- migration-example: device-class (\w+) -->\n```python\n(.*?)```", text, re.S))
    root = write_project(tmp_path / "proj", {"test/test_x.py": blocks["before"]})
    said = re.search(r"For the device-class example `fix` says what blocked it: ``(.*?)``", text, re.S)
    assert said and " ".join(said.group(1).split()) in run_cli("fix", "--unsafe", "--diff", cwd=root).stderr


# -- a local variable or helper named after a device is only a name -------------


def test_a_local_variable_named_after_the_device_does_not_block(tmp_path: Path) -> None:
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def test_a(self):\n"
        "        x = torch.ones(2)\n"
        '        x_xpu = x.to("xpu")\n'
        "        self.assertEqual(x_xpu.cpu(), x)\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert text == DECLARED + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_a(self, device):\n        x = torch.ones(2)\n        x_xpu = x.to(device)\n"
        "        self.assertEqual(x_xpu.cpu(), x)\n\n\n"
        'instantiate_device_type_tests(TestA, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert blocked(report) == []


def test_a_helper_named_after_the_device_does_not_block(tmp_path: Path) -> None:
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def cuda_reference(self, x):\n        return x * 2\n\n"
        "    def test_a(self):\n"
        "        x_cuda = torch.ones(2).cuda()\n"
        "        self.assertEqual(self.cuda_reference(x_cuda).sum().item(), 4)\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert text == DECLARED + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def cuda_reference(self, x):\n        return x * 2\n\n"
        "    def test_a(self, device):\n        x_cuda = torch.ones(2).to(device)\n"
        "        self.assertEqual(self.cuda_reference(x_cuda).sum().item(), 4)\n\n\n"
        'instantiate_device_type_tests(TestA, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )


@pytest.mark.parametrize(
    ("body", "blocker"),
    [
        # An attribute of something else says what it is (tensor.is_cuda).
        (
            "        x_cuda = torch.ones(2).cuda()\n        self.assertTrue(x_cuda.is_cuda)\n",
            {
                "line": 10,
                "site": "x_cuda.is_cuda",
                "why": "names 'cuda', which no rewrite changes: it is a test of that device",
                "kind": "names-device",
            },
        ),
        # A keyword argument is the callee's name.
        (
            "        x_cuda = torch.ones(2).cuda()\n        check(x_cuda, use_cuda=True)\n",
            {
                "line": 10,
                "site": "use_cuda",
                "why": "names 'cuda', which no rewrite changes: it is a test of that device",
                "kind": "names-device",
            },
        ),
        # A name holding a device string is the device.
        (
            '        dev_cuda = "cuda"\n        x = torch.ones(2).cuda()\n',
            {
                "line": 9,
                "site": 'dev_cuda = "cuda"',
                "why": 'has no device-generic rewrite: a name bound to "cuda": use the test\'s `device` '
                "where the name is used",
                "kind": "rewrite-refused",
            },
        ),
        # An imported module is an API, whatever it is bound to.
        (
            "        import torch.cuda as cuda\n        x = torch.ones(2).cuda()\n        cuda.synchronize()\n",
            {
                "line": 9,
                "site": "torch.cuda",
                "why": "names 'cuda', which no rewrite changes: it is a test of that device",
                "kind": "names-device",
            },
        ),
    ],
)
def test_what_a_name_still_blocks(tmp_path: Path, body: str, blocker: dict) -> None:
    source = HEAD + "\n\nclass TestA(TestCase):\n    def test_a(self):\n" + body
    text, report = migrate(tmp_path, source + MAIN)
    assert "    hw_classification = HardwareClassification.CUDA\n" in text
    assert blocked(report) == [blocker]


def test_masked_local_names_keeps_every_column() -> None:
    from hwlint.core.config import load_config
    from hwlint.fix.migrate.evidence import device_words
    from hwlint.fix.migrate.local_names import masked_local_names

    source = (
        b"x_cuda = 1\n\n\nclass T:\n    a_cuda = 2\n\n"
        b"    def run_cuda(self, p_cuda):\n        import torch_cuda\n"
        b'        y_cuda = [z_cuda for z_cuda in p_cuda] + x_cuda + self.a_cuda + self.run_cuda("cuda")\n'
        b"        return lambda q_cuda: q_cuda + y_cuda + torch_cuda.f(use_cuda=y_cuda)\n"
    )
    words = device_words(load_config(start=Path("/nonexistent")))
    assert masked_local_names(source, 4, words) == (
        b"x_cuda = 1\n\n\nclass T:\n    a_cuda = 2\n\n"
        b"    def run_____(self, p_____):\n        import torch_cuda\n"
        b'        y_____ = [z_____ for z_____ in p_____] + x_cuda + self.a_cuda + self.run_____("cuda")\n'
        b"        return lambda q_____: q_____ + y_____ + torch_cuda.f(use_cuda=y_____)\n"
    )
    assert masked_local_names(b"class T(:\n", 1, words) == b"class T(:\n"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["x", "out", "grad", "a1"]), st.sampled_from(["cuda", "xpu", "npu", "cpu"])),
        min_size=1,
        max_size=5,
    )
)
def test_masking_hides_only_the_locals_and_keeps_the_shape(names: list[tuple[str, str]]) -> None:
    from hwlint.core.config import load_config
    from hwlint.fix.migrate.evidence import device_words
    from hwlint.fix.migrate.local_names import masked_local_names

    words = device_words(load_config(start=Path("/nonexistent")))
    body = "".join(f"        {p}_{d} = torch.ones(2).to(torch.{d}.name)\n" for p, d in names)
    source = f"class T:\n    def test_a(self):\n{body}".encode()
    masked = masked_local_names(source, 1, words)
    assert len(masked) == len(source) and masked.count(b"\n") == source.count(b"\n")
    compile(masked, "<masked>", "exec")
    for line in masked.decode().splitlines()[2:]:
        assert words.search(line.partition(" = ")[0]) is None  # the local's name: hidden
    # What is not a local (the attribute chains on the right) is the original's.
    assert [line.partition(" = ")[2] for line in masked.decode().splitlines()] == [
        line.partition(" = ")[2] for line in source.decode().splitlines()
    ]


def test_a_device_in_a_decorator_is_not_given_the_tests_device(tmp_path: Path) -> None:
    # `device=device` there would be a NameError when the class is made: the runtime check saw it.
    source = (
        "import torch\nfrom torch.testing._internal.common_device_type import largeTensorTest\n"
        "from torch.testing._internal.common_utils import TestCase, run_tests\n\n\nclass TestA(TestCase):\n"
        '    @largeTensorTest("1GB", device="cuda")\n    def test_a(self):\n        x = torch.ones(2).cuda()\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert 'device="cuda"' in text and "device=device" not in text
    assert [(b["site"], b["why"], b["kind"]) for b in blocked(report)] == [
        (
            'device="cuda"',
            "is a decorator's argument: the test's `device` is not defined where decorators run",
            "rewrite-refused",
        )
    ]


def test_messages_and_a_device_free_helper_named_after_a_device_block_nothing(tmp_path: Path) -> None:
    # `add_cuda` adds wherever its tensors are; a message and a skip's reason are prose.
    helper = "\n\ndef add_cuda(a, b):\n    return a + b\n"
    tests = (
        "\n\nclass TestA(TestCase):\n"
        '    def test_a(self):\n        a = torch.ones(2, device="cuda")\n'
        '        self.assertEqual(add_cuda(a, a).sum().item(), 4, msg="wrong on CUDA")\n\n'
        "    def test_b(self):\n        b = torch.ones(2).cuda()\n"
        '        if b.sum() < 0:\n            self.skipTest("CUDA is odd")\n'
    )
    text, report = migrate(tmp_path, HEAD + helper + tests + MAIN)
    assert text == DECLARED + helper + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_a(self, device):\n        a = torch.ones(2, device=device)\n"
        '        self.assertEqual(add_cuda(a, a).sum().item(), 4, msg="wrong on CUDA")\n\n'
        "    def test_b(self, device):\n        b = torch.ones(2).to(device)\n"
        '        if b.sum() < 0:\n            self.skipTest("CUDA is odd")\n\n\n'
        'instantiate_device_type_tests(TestA, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert report.migrated == {"generalize": 1}
    # A helper that does use the device is the device's: it still blocks.
    used = helper.replace("return a + b", 'return (a + b).to("cuda")')
    text, report = migrate(tmp_path / "b", HEAD + used + tests + MAIN)
    assert "hw_classification = HardwareClassification.CUDA\n" in text
    assert [b["site"] for b in blocked(report)] == ["add_cuda(a, a).sum().item"]


# -- a class whose tests need an accelerator but name none ---------------------


def test_a_class_whose_tests_need_an_accelerator_but_name_none_becomes_accelerator(tmp_path: Path) -> None:
    # PyTorch's sharded-tensor init tests, before their migration: the device
    # type is the machine's accelerator's, the backend requirement names
    # every accelerator's; only `@skip_if_lt_x_gpu` says they need one.
    head = (
        "import torch\n"
        "from torch.testing._internal.common_distributed import requires_accelerator_dist_backend, skip_if_lt_x_gpu\n"
        "from torch.testing._internal.common_utils import TestCase, run_tests\n\n"
        'device_type = acc.type if (acc := torch.accelerator.current_accelerator(True)) else "cpu"\n'
    )
    source = head + (
        "\n\nclass TestInit(TestCase):\n"
        "    @skip_if_lt_x_gpu(4)\n"
        '    @requires_accelerator_dist_backend(["nccl", "xccl"])\n'
        "    def test_init(self):\n"
        '        placements = [f"rank:{i}/{device_type}:{i}" for i in range(4)]\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert report.migrated == {"generalize": 1}
    assert (
        "class TestInit(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    @skip_if_lt_x_gpu(4)\n"
        '    @requires_accelerator_dist_backend(["nccl", "xccl"])\n'
        "    def test_init(self, device):\n"
    ) in text
    assert text.endswith(
        'instantiate_device_type_tests(TestInit, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert generalized(report) == [
        "class whose tests need an accelerator made device-generic: 1 test given `device`, 0 hard-coded devices "
        'rewritten, instantiated, except_for="cpu", allow_xpu=True (its tests need an accelerator: every test uses it)'
    ]


def test_a_class_whose_tests_need_an_accelerator_and_name_one_backend_is_left(tmp_path: Path) -> None:
    source = (
        "from torch.testing._internal.common_distributed import skip_if_lt_x_gpu\n"
        "from torch.testing._internal.common_utils import TestCase, run_tests\n"
        "\n\nclass TestInit(TestCase):\n"
        "    @skip_if_lt_x_gpu(2)\n"
        "    def test_init(self):\n"
        '        self.assertEqual(self.backend_name, "nccl")\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert report.migrated == {}
    assert "hw_classification" not in text
    (left,) = report.unfixed
    assert left.kind == "needs-accelerator"
    assert left.reason.endswith(
        'not generalized: `"nccl"` (line 8) names a device in a string, which no rewrite changes'
    )


def test_a_collective_backend_and_a_computed_device_bind_the_class_to_their_device(tmp_path: Path) -> None:
    # PyTorch's collective autotuning tests, before their migration: no
    # requirement names CUDA, but the backend and the device string do; a
    # function the test defines is only named after NCCL.
    source = DIST_HEAD + (
        "\n\nclass TestAutotune(MultiProcessTestCase):\n"
        "    @skip_if_lt_x_gpu(2)\n"
        "    def test_allreduce(self):\n"
        '        dist.init_process_group(backend="nccl", rank=self.rank, world_size=self.world_size)\n'
        '        device = f"cuda:{self.rank}"\n\n'
        "        def nccl_allreduce_direct(x):\n"
        "            return x.clone()\n\n"
        "        nccl_allreduce_direct(torch.ones(2, device=device))\n"
    )
    text, report = migrate(tmp_path, source + MAIN, NEWER)
    assert report.migrated == {"generalize": 1}
    assert (
        "    def test_allreduce(self, device):\n"
        "        dist.init_process_group(backend=dist.get_default_backend_for_device(device), "
        "rank=self.rank, world_size=self.world_size)\n"
        '        device = f"{self.device_type}:{self.rank}"\n\n'
        "        def nccl_allreduce_direct(x):\n"
    ) in text


def test_a_flag_of_triton_on_cuda_asks_for_triton_in_the_accelerator_class(tmp_path: Path) -> None:
    # PyTorch's graph transform observer test, before its migration: an
    # early return unless CUDA and Triton are there.
    source = (
        "import torch\n"
        "from torch.testing._internal.common_utils import TestCase, run_tests\n"
        "from torch.testing._internal.inductor_utils import HAS_CUDA_AND_TRITON\n"
        "\n\nclass TestObserver(TestCase):\n"
        "    def test_rewriter(self):\n"
        "        if not (HAS_CUDA_AND_TRITON and HAS_DOT):\n"
        "            return\n"
        '        q = torch.randn(4, device="cuda")\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert report.migrated == {"generalize": 1}
    assert text == (
        "import torch\n"
        "from torch.testing._internal.common_utils import TestCase, run_tests, HardwareClassification\n"
        "from torch.testing._internal.inductor_utils import HAS_TRITON\n"
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
        "\n\nclass TestObserver(TestCase):\n"
        "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_rewriter(self, device):\n"
        "        if not (HAS_TRITON and HAS_DOT):\n"
        "            return\n"
        "        q = torch.randn(4, device=device)\n\n\n"
        'instantiate_device_type_tests(TestObserver, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert "1 flag of Triton on the device made HAS_TRITON" in generalized(report)[0]


def test_a_guard_of_several_devices_over_accelerator_generic_tests_becomes_only_accelerator(tmp_path: Path) -> None:
    # PyTorch's SAC estimator tests, before their migration: "CUDA or XPU",
    # and the device from torch.accelerator.
    source = (
        "import unittest\n\nimport torch\n"
        "from torch.testing._internal.common_cuda import TEST_CUDA\n"
        "from torch.testing._internal.common_utils import run_tests, TEST_XPU, TestCase\n"
        "\n\nclass TestSAC(TestCase):\n"
        '    @unittest.skipIf(not TEST_CUDA and not TEST_XPU, "CUDA/XPU not available")\n'
        "    def test_estimate(self):\n"
        "        dev = torch.accelerator.current_device_index()\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert report.migrated == {"generalize": 1}
    assert text == (
        "import torch\n"
        "from torch.testing._internal.common_utils import run_tests, TestCase, HardwareClassification\n"
        "from torch.testing._internal.common_device_type import onlyAccelerator, instantiate_device_type_tests\n"
        "\n\nclass TestSAC(TestCase):\n"
        "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    @onlyAccelerator\n"
        "    def test_estimate(self, device):\n"
        "        dev = torch.accelerator.current_device_index()\n\n\n"
        'instantiate_device_type_tests(TestSAC, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )


def test_a_guard_of_several_devices_over_a_test_of_one_is_that_devices(tmp_path: Path) -> None:
    source = (
        "import unittest\n\nimport torch\n"
        "from torch.testing._internal.common_utils import run_tests, TEST_CUDA, TEST_XPU, TestCase\n"
        "\n\nclass TestSAC(TestCase):\n"
        '    @unittest.skipIf(not TEST_CUDA and not TEST_XPU, "CUDA/XPU not available")\n'
        "    def test_estimate(self):\n"
        "        torch.cuda.synchronize()\n"
    )
    _, report = migrate(tmp_path, source + MAIN)
    (left,) = report.unfixed
    assert left.kind == "mixed-accelerator-use"


def test_a_key_of_a_dict_the_test_keeps_is_a_name_and_one_of_options_is_not() -> None:
    from hwlint.fix.migrate.evidence import device_words
    from hwlint.fix.migrate.local_names import masked_local_names

    source = (
        b"class TestA:\n    def test_a(self):\n"
        b'        staged = {"cuda_tensor": 1}\n'
        b'        self.assertIn("cuda_tensor", staged)\n'
        b'        run(**{"use_cuda": True})\n'
    )
    words = device_words(Config(root=Path(".")))
    masked = masked_local_names(source, 1, words).decode()
    assert masked.count('"_____tensor"') == 2 and "cuda_tensor" not in masked
    assert '"use_cuda"' in masked


# -- instantiate_parametrized_tests, and a class instantiated for its device ----

PARAMETRIZED_HEAD = (
    "import torch\nfrom torch.testing._internal.common_utils import (\n"
    "    TestCase,\n    instantiate_parametrized_tests,\n    parametrize,\n    run_tests,\n)\n"
)
PARAMETRIZED_TEST = (
    '    @parametrize("n", [1, 2])\n'
    "    def test_a(self, n):\n"
    '        x = torch.ones(n, device="cuda")\n'
    "        self.assertEqual(x.sum(), n)\n"
)


@pytest.mark.parametrize("form", ["decorator", "call"])
def test_instantiate_parametrized_tests_gives_way_to_the_device_framework(tmp_path: Path, form: str) -> None:
    # It expands @parametrize itself: `device` first, then the parametrized arguments.
    if form == "decorator":
        body = "\n\n@instantiate_parametrized_tests\nclass TestA(TestCase):\n" + PARAMETRIZED_TEST
    else:
        body = (
            "\n\nclass TestA(TestCase):\n" + PARAMETRIZED_TEST + "\n\n# expand\ninstantiate_parametrized_tests(TestA)\n"
        )
    text, report = migrate(tmp_path, PARAMETRIZED_HEAD + body + MAIN)
    assert text == (
        "import torch\nfrom torch.testing._internal.common_utils import (\n"
        "    TestCase,\n    parametrize,\n    run_tests,\n    HardwareClassification,\n)\n"
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        + PARAMETRIZED_TEST.replace("(self, n)", "(self, device, n)").replace('device="cuda"', "device=device")
        + "\n\n"
        + 'instantiate_device_type_tests(TestA, globals(), except_for="cpu", allow_xpu=True)\n'
        # A comment above the call stays, above what followed it.
        + (MAIN if form == "decorator" else MAIN.replace("\n\nif", "\n\n# expand\nif"))
    )
    assert " in place of @instantiate_parametrized_tests" in generalized(report)[0]


def test_a_class_instantiated_for_its_device_gets_device_on_each_test(tmp_path: Path) -> None:
    # The framework passes `device` to every test of a device class (HWC102).
    source = (
        HEAD.replace(
            "import torch\n",
            "import torch\nfrom torch.testing._internal.common_device_type import "
            "dtypes, instantiate_device_type_tests\n",
        )
        + "\nXPU = torch.device('xpu')\n\n\nclass TestCopy(TestCase):\n"
        "    @dtypes(torch.float)\n    def test_a(self, dtype):\n        torch.ones(2, dtype=dtype).to(XPU)\n\n"
        "    def test_b(self):\n        torch.ones(2).to(XPU)\n\n\n"
        'instantiate_device_type_tests(TestCopy, globals(), only_for="xpu", allow_xpu=True)\n' + MAIN
    )
    text, report = migrate(tmp_path, source)
    assert text == source.replace("TestCase, run_tests\n", "TestCase, run_tests, HardwareClassification\n").replace(
        "class TestCopy(TestCase):\n",
        "class TestCopy(TestCase):\n    hw_classification = HardwareClassification.XPU\n\n",
    ).replace("(self, dtype)", "(self, device, dtype)").replace("test_b(self)", "test_b(self, device)")
    assert report.migrated == {"device-tests": 1}
    assert report.classified == {"XPU": 1}


# -- Triton in a class made device-generic ---------------------------------------

TRITON_HEAD = (
    "import torch\nfrom torch._inductor import config\nfrom torch.testing._internal.common_utils import TestCase, "
    "run_tests\n"
)


def test_a_test_that_names_triton_asks_for_it_and_the_class_is_generalized(tmp_path: Path) -> None:
    # A config key of Triton, inductor's code generator for every GPU: no one device's.
    source = TRITON_HEAD + (
        "\n\nclass TestA(TestCase):\n"
        '    @config.patch("triton.unique_kernel_names", True)\n'
        "    def test_a(self):\n"
        '        x = torch.ones(2, device="cuda")\n        self.assertEqual(x, x)\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert text == (
        "import torch\nfrom torch._inductor import config\nfrom torch.testing._internal.common_utils import TestCase, "
        "run_tests, HardwareClassification\n"
        "from torch.utils._triton import has_triton\n"
        "from unittest import skipUnless\n"
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        '    @skipUnless(has_triton(), "requires Triton")\n'
        '    @config.patch("triton.unique_kernel_names", True)\n'
        "    def test_a(self, device):\n"
        "        x = torch.ones(2, device=device)\n        self.assertEqual(x, x)\n"
        '\n\ninstantiate_device_type_tests(TestA, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert report.migrated == {"generalize": 1}


def test_triton_in_a_member_that_is_no_test_keeps_it_the_devices(tmp_path: Path) -> None:
    # The tests that reach the helper cannot be told apart: Triton stays CUDA's.
    source = TRITON_HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def _kernel(self):\n        import triton\n        return triton\n\n"
        "    def test_a(self):\n"
        '        x = torch.ones(2, device="cuda")\n        self.assertEqual(self._kernel(), x)\n'
    )
    _, report = migrate(tmp_path, source + MAIN)
    assert report.migrated == {"device-class": 1}
    assert blocked(report)[0]["why"] == "names 'triton', which no rewrite changes: it is a test of that device"


def test_a_device_class_test_that_cannot_take_device_is_left_saying_so(tmp_path: Path) -> None:
    source = (
        HEAD.replace(
            "import torch\n",
            "import torch\nfrom torch.testing._internal.common_device_type import instantiate_device_type_tests\n",
        )
        + "\n\nclass TestCopy(TestCase):\n"
        "    @staticmethod\n    def test_a():\n        torch.ones(2).to('xpu')\n\n\n"
        'instantiate_device_type_tests(TestCopy, globals(), only_for="xpu", allow_xpu=True)\n' + MAIN
    )
    text, report = migrate(tmp_path, source)
    assert report.migrated == {}
    left = [(u.kind, u.reason) for u in report.unfixed if u.class_name == "TestCopy"]
    assert left == [("device-tests", "test_a has no `self` to put `device` after")]


def test_a_device_class_whose_test_calls_another_test_is_left_saying_why(tmp_path: Path) -> None:
    # Instantiated, the framework copies test_big into TestBigCUDA as test_big_cuda alone:
    # `self.test_big()` would raise AttributeError there. Declared CUDA and not instantiated, the
    # class would be findings of its own (HWC101, HWC102): it is left, and nothing is written.
    source = HEAD + (
        "\n\nclass TestBig(TestCase):\n"
        "    def test_big(self):\n        torch.cuda.set_per_process_memory_fraction(0.5)\n\n"
        "    def test_big_again(self):\n        self.test_big()\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert text == source + MAIN
    assert report.migrated == {}
    left = [(u.kind, u.reason) for u in report.unfixed if u.class_name == "TestBig"]
    assert left == [
        (
            "not-instantiable",
            "not generalized: `torch.cuda.set_per_process_memory_fraction(0.5)` has no known device-generic "
            'equivalent; not instantiated only_for="cuda": a method of TestBig uses self.test_big, a test: instantiated, '
            "the class has test_big_<device> in its place, not test_big: move that test's body into a helper "
            "both call, then migrate",
        )
    ]


def test_device_words_find_a_device_in_a_name_not_inside_another_word() -> None:
    from hwlint.core.config import load_config
    from hwlint.fix.migrate.evidence import device_words

    words = device_words(load_config(start=Path("/nonexistent")))
    named = ["TEST_CUDA", "HAS_CUDA_AND_TRITON", "dtypesIfCUDA", "TestSDPACudaOnly", "x_npu", '"xpu:0"', "torch.mps"]
    assert [w for w in named if words.search(w) is None] == []
    # inductor's `USE_LARGE_INPUT` (test_auto_chunker.py) names no NPU, `CHIP` no HIP, `TIMESTAMPS` no MPS.
    unnamed = ["USE_LARGE_INPUT", "_input", "CHIP", "TIMESTAMPS", "dumps", "ship_it"]
    assert [w for w in unnamed if words.search(w) is not None] == []


def test_a_device_class_keeps_its_requirement_of_the_device(tmp_path: Path) -> None:
    # The contributors' test_cupy_as_tensor.py: `@requires_cuda_p2p_access()` stays on
    # CupyAsTensorTest, instantiated only_for="cuda".
    source = HEAD.replace("import torch\n", "import torch\nfrom mymod import requires_cuda_p2p_access\n") + (
        "\n\n@requires_cuda_p2p_access()\nclass TestA(TestCase):\n"
        "    def test_a(self):\n        torch.cuda.set_per_process_memory_fraction(0.5)\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert report.migrated == {"device-class": 1}
    assert (
        "@requires_cuda_p2p_access()\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.CUDA\n"
        in text
    )
    assert 'instantiate_device_type_tests(TestA, globals(), only_for="cuda")\n' in text
