"""A mixed class split by test (`hwlint fix --unsafe`, "split"): snippets
in, the exact file out; each reason the split is refused; the runtime
check's mapping of the split tests; docs/fix.md's example; and a property
test over generated mixed classes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import hwlint.fix.migrate.split as split_module
from hwlint.core.config import load_config
from hwlint.facts.extract import extract_source
from hwlint.fix.migrate.evidence import device_constants, device_words
from hwlint.fix.migrate.outcome import Refusal
from hwlint.fix.migrate.split_one_kind import every_test_uses_a_device
from hwlint.fix.migrate.tree import find_class
from hwlint.fix.plan import plan_fixes
from hwlint.fix.plan_records import ClassMove
from hwlint.fix.result import FixReport
from hwlint.fix.split_plan import plan_splits
from hwlint.fix.verify_runtime import compare
from hwlint.infra.runtime import RuntimeClass, RuntimeModule
from hwlint.rules.missing_classification import MissingClassification
from tests.conftest import lint, run_cli, write_project
from tests.test_migrate import migrate

HEAD = "import torch\nfrom torch.testing._internal.common_utils import TestCase, requires_gpu, run_tests\n"
DECLARED_HEAD = (
    "import torch\n"
    "from torch.testing._internal.common_utils import TestCase, requires_gpu, run_tests, HardwareClassification\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
)
MAIN = '\n\nif __name__ == "__main__":\n    run_tests()\n'


def not_split(report: FixReport) -> list[str]:
    """Why each split was refused: a class classified whole keeps its
    classification (the refusal in `refused`), a class left for a human
    is left with why (in `unfixed`)."""
    refused = [r for f in report.files for r in f.refused if r.migration.kind == "split"]
    # A class left for a human is listed in both: once.
    classes = {r.migration.class_name for r in refused}
    left = [
        u.reason[u.reason.index("not split") :]
        for u in report.unfixed
        if "not split" in u.reason and u.class_name not in classes
    ]
    return [r.reason for r in refused] + left


# -- made ----------------------------------------------------------------------

MIXED = (
    "\n\nclass TestA(TestCase):\n"
    "    def setUp(self):\n        super().setUp()\n        self.x = 1\n\n"
    "    def _helper(self):\n        return 2\n\n"
    "    def test_free(self):\n        self.assertEqual(self._helper(), 2)\n\n"
    "    # needs a GPU\n"
    "    @requires_gpu\n    def test_dev(self):\n        torch.ones(2).cuda()\n"
)


def test_a_mixed_class_is_split_into_a_mixin_a_generic_and_an_accelerator_class(tmp_path: Path) -> None:
    text, report = migrate(tmp_path, HEAD + MIXED + MAIN)
    assert (
        text
        == DECLARED_HEAD
        + (
            "\n\nclass _TestAMixin:\n"
            "    def setUp(self):\n        super().setUp()\n        self.x = 1\n\n"
            "    def _helper(self):\n        return 2\n\n\n"
            "class TestAGeneric(_TestAMixin, TestCase):\n"
            "    hw_classification = HardwareClassification.GENERIC\n\n"
            "    def test_free(self):\n        self.assertEqual(self._helper(), 2)\n\n\n"
            "class TestAAccelerator(_TestAMixin, TestCase):\n"
            "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
            "    # needs a GPU\n"
            "    @requires_gpu\n    def test_dev(self, device):\n        torch.ones(2).to(device)\n\n\n"
            'instantiate_device_type_tests(TestAAccelerator, globals(), except_for="cpu", allow_xpu=True)\n'
        )
        + MAIN
    )
    assert report.migrated == {"split": 2}
    assert report.classified == {"ACCELERATOR": 1, "GENERIC": 1}
    assert report.unfixed == []
    (result,) = report.files
    assert result.moves == (
        ClassMove("TestA", "TestAGeneric", ("test_free",)),
        ClassMove("TestA", "TestAAccelerator", ("test_dev",)),
    )
    assert [d.collected for d in result.migrated] == [
        (),
        ("TestAAcceleratorCUDA", "TestAAcceleratorXPU", "TestAAcceleratorHPU", "TestAAcceleratorPRIVATEUSE1"),
    ]
    lines = "\n".join(report.summary())
    assert "tests of TestA now in TestAGeneric: test_free" in lines
    assert "tests of TestA now in TestAAccelerator: test_dev" in lines


def test_an_instantiated_class_keeps_its_instantiation_for_the_accelerator_class(tmp_path: Path) -> None:
    source = (
        "import torch\n"
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
        "from torch.testing._internal.common_utils import TestCase, run_tests\n\n\n"
        "@unittest.skipIf(False, 'never')\n"
        "class TestA(TestCase):\n"
        "    def test_free(self):\n        self.assertEqual(1 + 1, 2)\n\n"
        "    def test_dev(self, device):\n        torch.ones(2, device=device)\n\n\n"
        "instantiate_device_type_tests(TestA, globals(), allow_xpu=True)\n"
    )
    text, report = migrate(tmp_path, "import unittest\n" + source + MAIN)
    assert (
        text
        == (
            "import unittest\n"
            "import torch\n"
            "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
            "from torch.testing._internal.common_utils import TestCase, run_tests, HardwareClassification\n\n\n"
            "@unittest.skipIf(False, 'never')\n"
            "class TestAGeneric(TestCase):\n"
            "    hw_classification = HardwareClassification.GENERIC\n\n"
            "    def test_free(self):\n        self.assertEqual(1 + 1, 2)\n\n\n"
            "@unittest.skipIf(False, 'never')\n"
            "class TestAAccelerator(TestCase):\n"
            "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
            "    def test_dev(self, device):\n        torch.ones(2, device=device)\n\n\n"
            "instantiate_device_type_tests(TestAAccelerator, globals(), allow_xpu=True)\n"
        )
        + MAIN
    )
    assert report.migrated == {"split": 2}
    assert report.files[0].migrated[1].collected == (
        "TestAAcceleratorCPU",
        "TestAAcceleratorCUDA",
        "TestAAcceleratorXPU",
        "TestAAcceleratorHPU",
        "TestAAcceleratorPRIVATEUSE1",
    )


def test_hard_coded_devices_of_several_accelerators_are_rewritten_and_an_adaptive_test_is_generic(
    tmp_path: Path,
) -> None:
    source = HEAD + (
        '\n\nclass TestA(TestCase):\n    """Shared."""\n\n    scale = 2\n\n'
        '    def test_cuda(self):\n        torch.ones(2, device="cuda")\n\n'
        "    def test_free(self):\n        self.assertEqual(self.scale, 2)\n\n"
        '    def test_xpu(self):\n        torch.ones(2, device="xpu")\n\n'
        "    def test_probe(self):\n        if torch.accelerator.is_available():\n            pass\n"
    )
    text, report = migrate(tmp_path, source)
    assert text == DECLARED_HEAD + (
        '\n\nclass _TestAMixin:\n    """Shared."""\n\n    scale = 2\n\n\n'
        "class TestAGeneric(_TestAMixin, TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_free(self):\n        self.assertEqual(self.scale, 2)\n\n"
        # test_probe only branches on an accelerator: it runs, the same way, on a
        # CPU-only runner, so it is device-free (pair 19 of issue 33's contributors).
        "    def test_probe(self):\n        if torch.accelerator.is_available():\n            pass\n\n\n"
        "class TestAAccelerator(_TestAMixin, TestCase):\n"
        "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_cuda(self, device):\n        torch.ones(2, device=device)\n\n"
        "    def test_xpu(self, device):\n        torch.ones(2, device=device)\n\n\n"
        'instantiate_device_type_tests(TestAAccelerator, globals(), except_for="cpu", allow_xpu=True)\n'
    )
    assert report.files[0].migrated[1].collected == (
        "TestAAcceleratorCUDA",
        "TestAAcceleratorXPU",
        "TestAAcceleratorHPU",
        "TestAAcceleratorPRIVATEUSE1",
    )
    assert report.unfixed == []


def test_a_class_without_members_that_are_no_tests_gets_no_mixin(tmp_path: Path) -> None:
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n    def test_free(self):\n        pass\n\n"
        "    def test_dev(self):\n        torch.cuda.synchronize()\n"
    )
    text, _ = migrate(tmp_path, source)
    assert "_TestAMixin" not in text
    assert "\n\nclass TestAGeneric(TestCase):\n" in text and "\n\nclass TestAAccelerator(TestCase):\n" in text
    assert "    def test_dev(self, device):\n        torch.accelerator.synchronize()\n" in text


def test_instantiate_parametrized_tests_goes_to_the_generic_class(tmp_path: Path) -> None:
    # The device framework expands the ACCELERATOR class's @parametrize itself.
    source = (
        "import torch\n"
        "from torch.testing._internal.common_utils import (\n"
        "    TestCase,\n    instantiate_parametrized_tests,\n    parametrize,\n    run_tests,\n)\n\n\n"
        "class TestA(TestCase):\n"
        '    @parametrize("n", [1, 2])\n    def test_free(self, n):\n        self.assertGreater(n, 0)\n\n'
        '    @parametrize("n", [1, 2])\n    def test_dev(self, n):\n        torch.ones(n).cuda()\n\n\n'
        "instantiate_parametrized_tests(TestA)\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert report.migrated == {"split": 2}
    assert "\n\ninstantiate_parametrized_tests(TestAGeneric)\n" in text
    assert (
        '    @parametrize("n", [1, 2])\n    def test_dev(self, device, n):\n        torch.ones(n).to(device)\n'
    ) in text
    assert text.endswith(
        'instantiate_device_type_tests(TestAAccelerator, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )


# -- refused -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        (
            "\n\nclass TestB(TestA):\n    pass\n",
            "not split: `class TestB(TestA):` names TestA: a subclass, a reference or `super(TestA, self)` "
            "would not find its tests; split by hand",
        ),
        ("\n\nTestAGeneric = None\n", "not split: the name TestAGeneric is taken"),
    ],
)
def test_a_split_is_refused_when_the_module_names_the_class_or_a_new_name(tmp_path: Path, extra: str, why: str) -> None:
    source = HEAD + MIXED + extra
    text, report = migrate(tmp_path, source)
    assert "TestAGeneric(" not in text
    assert not_split(report) == [why]


def test_super_with_the_class_name_refuses_the_split(tmp_path: Path) -> None:
    source = HEAD + MIXED.replace("super().setUp()", "super(TestA, self).setUp()")
    text, report = migrate(tmp_path, source)
    assert "class TestA(TestCase):" in text
    assert not_split(report) == [
        "not split: `super(TestA, self).setUp()` names TestA: a subclass, a reference or `super(TestA, self)` "
        "would not find its tests; split by hand"
    ]


def test_a_one_device_mixed_class_whose_split_is_refused_is_left_unclassified(tmp_path: Path) -> None:
    # CUDA by its uses, but test_free ran on every runner: as a CUDA class
    # (instantiated only_for="cuda") it would no longer run on CPU runners.
    source = HEAD + MIXED.replace("super().setUp()", "super(TestA, self).setUp()") + MAIN
    text, report = migrate(tmp_path, source)
    assert text == source and report.files == [] and report.migrated == {}
    (left,) = report.unfixed
    assert (left.class_name, left.line, left.kind) == ("TestA", 5, "mixed-accelerator-use")
    assert left.reason.startswith("every accelerator use in the class is CUDA; not split: `super(TestA, self)")


ONE_DEVICE = (
    "\n\nrequires_cuda = functools.partial(unittest.skipIf, not torch.cuda.is_available(), 'requires cuda')\n\n\n"
    "class TestA(TestCase):\n"
    "    def test_free(self):\n        self.assertEqual(torch.ones(2).sum().item(), 2)\n\n"
    "    @requires_cuda()\n    def test_cuda(self):\n        self.assertEqual(torch.ones(2, device='cuda').sum().item(), 2)\n"
)
ONE_DEVICE_HEAD = "import functools\nimport unittest\n\n" + HEAD


def test_a_one_device_class_another_file_imports_is_not_instantiated_for_its_device(tmp_path: Path) -> None:
    # No split (the other file would lose TestA), and as a CUDA class,
    # instantiated only_for="cuda", test_free would leave the CPU runners it ran on.
    source = ONE_DEVICE_HEAD + ONE_DEVICE + MAIN
    text, report = migrate(tmp_path, source, files={"test/test_b.py": "from test_a import TestA\n"})
    assert text == source and report.migrated == {}
    (left,) = [u for u in report.unfixed if u.class_name == "TestA"]
    assert left.kind == "mixed-accelerator-use"
    assert left.reason.endswith(
        'not split: test_free uses no device and ran on CPU runners: instantiated only_for="cuda", '
        "the class would take it off; split it by hand (GENERIC and CUDA)"
    )


def test_a_one_device_split_is_refused_when_a_device_test_names_another_device(tmp_path: Path) -> None:
    # test_mkldnn names MKL-DNN, a CPU backend: no CUDA test, and it ran on CPU runners.
    source = (
        ONE_DEVICE_HEAD
        + ONE_DEVICE
        + "\n    def test_mkldnn(self):\n        self.assertTrue(torch.ones(2).to_mkldnn().is_mkldnn)\n"
        + MAIN
    )
    text, report = migrate(tmp_path, source)
    assert text == source and report.migrated == {}
    assert not_split(report) == [
        "not split: after the rewrites, a device test still names 'cuda': it is a test of that device; "
        "as a CUDA class: not split: test_mkldnn names a device, and none of them is CUDA's"
    ]
    # Without it, the CUDA test goes to a class of CUDA's.
    _, report = migrate(tmp_path / "b", ONE_DEVICE_HEAD + ONE_DEVICE + MAIN)
    assert report.migrated == {"split": 2}


def test_a_member_that_is_no_test_using_a_device_refuses_the_split(tmp_path: Path) -> None:
    source = HEAD + MIXED.replace("self.x = 1", 'self.x = torch.ones(1, device="cuda")')
    _, report = migrate(tmp_path, source)
    # (Line 10 of the file as the fix phase left it: its declaration added.)
    assert not_split(report) == [
        'not split: device="cuda" (line 10) is outside the tests: the tests that stay device-free would share it'
    ]
    assert report.migrated == {"generalize": 1}  # made device-generic whole, as before


def test_a_test_named_by_another_member_refuses_the_split(tmp_path: Path) -> None:
    source = HEAD + MIXED.replace("return 2", "return self.test_free")
    text, report = migrate(tmp_path, source)
    # Nor can the class be instantiated whole (`self.test_free` is gone from a device's class):
    # test_free, which uses no device, keeps it off one device's class too. Left, saying so.
    assert text == source
    assert not_split(report) == [
        'not split: test_free uses no device and ran on CPU runners: instantiated only_for="cuda", '
        "the class would take it off; split it by hand (GENERIC and CUDA)"
    ]


def test_a_class_another_file_imports_is_not_split(tmp_path: Path) -> None:
    other = "from test_a import TestA\n"
    text, report = migrate(tmp_path, HEAD + MIXED, files={"test/test_b.py": other})
    assert "class TestA(TestCase):" in text
    assert not_split(report) == []


def test_a_left_class_is_left_with_why_it_was_not_split(tmp_path: Path) -> None:
    source = HEAD + (
        '\n\nclass TestA(TestCase):\n    def test_cuda(self):\n        torch.ones(2, device="cuda")\n\n'
        "    def test_free(self):\n        pass\n\n"
        '    def test_xpu(self):\n        torch.ones(2, device="xpu")\n\n'
        "    def test_capability(self):\n        torch.cuda.get_device_capability()\n"
    )
    text, report = migrate(tmp_path, source)
    assert text == source
    (left,) = report.unfixed
    assert left.kind == "mixed-accelerator-use"
    assert left.reason.endswith(
        "(line 23) has no device-generic equivalent: the compute capability is specific to one device's architecture"
    )


def test_a_test_calling_a_helper_that_places_on_a_bound_device_by_default_is_a_device_test(tmp_path: Path) -> None:
    # `T(2)` places on DEVICE, "cuda": the test is no device-free one, and no
    # rewrite of the class changes where T places (it was made GENERIC). Its
    # tests stay CUDA's, in a class of CUDA's (the contributors' `TestSDPACUDA`);
    # the device-free test keeps running on every runner.
    module = '\n\nDEVICE = "cuda"\n\n\ndef T(*size, device=DEVICE):\n    return torch.randn(size, device=device)\n\n\n'
    source = (
        HEAD
        + module
        + "class TestA(TestCase):\n    def test_helper(self):\n        T(2)\n\n"
        + '    def test_cuda(self):\n        torch.ones(2, device="cuda")\n\n'
        + "    def test_free(self):\n        torch.ones(2)\n"
        + MAIN
    )
    text, report = migrate(tmp_path, source)
    assert text == (
        DECLARED_HEAD
        + module
        + "class TestAGeneric(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        + "    def test_free(self):\n        torch.ones(2)\n\n\n"
        + "class TestACUDA(TestCase):\n    hw_classification = HardwareClassification.CUDA\n\n"
        + "    def test_helper(self, device):\n        T(2)\n\n"
        + '    def test_cuda(self, device):\n        torch.ones(2, device="cuda")\n\n\n'
        + 'instantiate_device_type_tests(TestACUDA, globals(), only_for="cuda")\n'
        + MAIN
    )
    assert report.migrated == {"split": 2} and not_split(report) == []
    (made,) = [d for f in report.files for d in f.migrated if d.to_class == "TestACUDA"]
    assert made.member == "CUDA" and made.collected == ("TestACUDACUDA",)


def test_a_device_test_with_no_device_generic_equivalent_goes_to_a_class_of_its_device(tmp_path: Path) -> None:
    # "cuda:1", a second device, has no device-generic rewrite: the
    # ACCELERATOR split is blocked, so the device test stays CUDA's, in a
    # class of CUDA's, and the summary says why; test_free keeps running
    # on every runner.
    body = (
        "\n\nclass TestA(TestCase):\n    def test_free(self):\n        self.assertEqual(torch.ones(2).sum().item(), 2)\n\n"
        '    @requires_gpu\n    def test_second(self):\n        torch.ones(2, device="cuda:1")\n'
    )
    text, report = migrate(tmp_path, HEAD + body + MAIN)
    assert text == (
        DECLARED_HEAD
        + "\n\nclass TestAGeneric(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        + "    def test_free(self):\n        self.assertEqual(torch.ones(2).sum().item(), 2)\n\n\n"
        + "class TestACUDA(TestCase):\n    hw_classification = HardwareClassification.CUDA\n\n"
        + '    @requires_gpu\n    def test_second(self, device):\n        torch.ones(2, device="cuda:1")\n\n\n'
        + 'instantiate_device_type_tests(TestACUDA, globals(), only_for="cuda")\n'
        + MAIN
    )
    (made,) = [d for f in report.files for d in f.migrated if d.to_class == "TestACUDA"]
    assert made.detail == (
        'test_second -> TestACUDA (CUDA, given `device`, instantiated, only_for="cuda"); not device-generic: '
        '`device="cuda:1"` has no device-generic rewrite: "cuda:1" names a second device: such a test takes '
        "`devices` (several devices)"
    )


def test_a_split_whose_device_tests_stay_one_devices_is_refused_when_the_class_is_no_ones(tmp_path: Path) -> None:
    # CUDA and XPU tests that each stay their device's: no one class of a device takes them.
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def test_free(self):\n        self.assertEqual(1, 1)\n\n"
        '    def test_cuda(self):\n        torch.ones(2).cuda()\n        self.assertEqual({"cuda": 1}["cuda"], 1)\n\n'
        '    def test_xpu(self):\n        torch.ones(2).xpu()\n        self.assertEqual({"xpu": 1}["xpu"], 1)\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert "split" not in report.migrated and "TestAGeneric" not in text
    assert any("still names 'cuda'" in why for why in not_split(report)), not_split(report)


def test_a_class_of_one_kind_of_test_is_classified_whole(tmp_path: Path) -> None:
    source = HEAD + "\n\nclass TestA(TestCase):\n    def test_a(self):\n        torch.ones(2).cuda()\n"
    text, report = migrate(tmp_path, source)
    assert "TestAGeneric" not in text and report.migrated == {"generalize": 1}
    assert not_split(report) == []


def test_a_test_whose_only_device_is_cpu_or_gloo_stays_device_free(tmp_path: Path) -> None:
    # PyTorch's contributors keep CPU-only tests GENERIC (a gloo process
    # group, tensors on "cpu" run on every runner: issue 33's pairs 08 and
    # 15); only the accelerator test moves, and as every test that moves
    # needs one, the accelerator class is kept off CPU.
    head = HEAD.replace("import torch\n", "import torch\nimport torch.distributed as dist\n")
    source = head + (
        "\n\nclass TestA(TestCase):\n"
        '    def test_cpu(self):\n        self.assertEqual(torch.ones(2, device="cpu").device.type, "cpu")\n\n'
        '    def test_gloo(self):\n        dist.init_process_group("gloo", rank=0, world_size=1)\n\n'
        '    def test_nccl(self):\n        dist.init_process_group("nccl", rank=0, world_size=1)\n'
        "        torch.ones(2).cuda()\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    declared = DECLARED_HEAD.replace("import torch\n", "import torch\nimport torch.distributed as dist\n")
    assert (
        text
        == declared
        + (
            "\n\nclass TestAGeneric(TestCase):\n"
            "    hw_classification = HardwareClassification.GENERIC\n\n"
            '    def test_cpu(self):\n        self.assertEqual(torch.ones(2, device="cpu").device.type, "cpu")\n\n'
            '    def test_gloo(self):\n        dist.init_process_group("gloo", rank=0, world_size=1)\n\n\n'
            "class TestAAccelerator(TestCase):\n"
            "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
            "    def test_nccl(self, device):\n"
            "        dist.init_process_group(dist.get_default_backend_for_device(device), rank=0, world_size=1)\n"
            "        torch.ones(2).to(device)\n\n\n"
            'instantiate_device_type_tests(TestAAccelerator, globals(), except_for="cpu", allow_xpu=True)\n'
        )
        + MAIN
    )
    assert report.migrated == {"split": 2}
    (result,) = report.files
    assert result.moves == (
        ClassMove("TestA", "TestAGeneric", ("test_cpu", "test_gloo")),
        ClassMove("TestA", "TestAAccelerator", ("test_nccl",)),
    )


def test_a_class_whose_only_devices_are_cpu_and_gloo_is_generic(tmp_path: Path) -> None:
    head = HEAD.replace("import torch\n", "import torch\nimport torch.distributed as dist\n")
    source = head + (
        "\n\nclass TestA(TestCase):\n"
        '    def test_cpu(self):\n        torch.ones(2, device="cpu").cpu().to("cpu")\n\n'
        '    def test_gloo(self):\n        dist.init_process_group(backend="gloo", rank=0, world_size=1)\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert report.classified == {"GENERIC": 1} and report.migrated == {}
    assert "    hw_classification = HardwareClassification.GENERIC\n\n    def test_cpu(self):\n" in text


# -- members that are no test: where they go ------------------------------------

GPU_HELPER = (
    "\n\nclass TestA(TestCase):\n"
    "    def setUp(self):\n        super().setUp()\n        self.x = 1\n\n"
    '    def _gpu_ones(self):\n        """Two ones on the GPU (CUDA)."""\n        return torch.ones(2).cuda()\n\n'
    "    def test_free(self):\n        self.assertEqual(self.x, 1)\n\n"
    "    @requires_gpu\n    def test_dev(self):\n        self.assertEqual(self._gpu_ones().sum().item(), 2)\n"
)


def test_a_helper_only_the_device_tests_reach_goes_with_them(tmp_path: Path) -> None:
    text, report = migrate(tmp_path, HEAD + GPU_HELPER + MAIN)
    assert (
        text
        == DECLARED_HEAD
        + (
            "\n\nclass _TestAMixin:\n    def setUp(self):\n        super().setUp()\n        self.x = 1\n\n\n"
            "class TestAGeneric(_TestAMixin, TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
            "    def test_free(self):\n        self.assertEqual(self.x, 1)\n\n\n"
            "class TestAAccelerator(_TestAMixin, TestCase):\n"
            "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
            # A docstring that says CUDA is no use of it; the helper of an
            # instantiated class takes the device type the framework gives it.
            '    def _gpu_ones(self):\n        """Two ones on the GPU (CUDA)."""\n'
            "        return torch.ones(2).to(self.device_type)\n\n"
            "    @requires_gpu\n    def test_dev(self, device):\n        self.assertEqual(self._gpu_ones().sum().item(), 2)\n\n\n"
            'instantiate_device_type_tests(TestAAccelerator, globals(), except_for="cpu", allow_xpu=True)\n'
        )
        + MAIN
    )
    (_, accelerator) = report.files[0].migrated
    assert accelerator.detail.startswith("test_dev with _gpu_ones -> TestAAccelerator (ACCELERATOR")


def test_a_helper_no_test_reaches_goes_with_the_device_tests(tmp_path: Path) -> None:
    # As PyTorch's test_checkpoint_reader.py had it: a helper no test calls,
    # and a device chosen by a probe of that device.
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def _unused(self, t):\n        return t.cuda()\n\n"
        "    def test_free(self):\n        self.assertEqual(1 + 1, 2)\n\n"
        "    def test_map(self):\n"
        '        where = "cuda" if torch.cuda.is_available() else "cpu"\n'
        "        self.assertEqual(torch.ones(1, device=where).device.type, where)\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert (
        text
        == DECLARED_HEAD
        + (
            "\n\nclass TestAGeneric(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
            "    def test_free(self):\n        self.assertEqual(1 + 1, 2)\n\n\n"
            "class TestAAccelerator(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
            "    def _unused(self, t):\n        return t.to(self.device_type)\n\n"
            # The type, as the string was (`device` may be "cuda:0").
            "    def test_map(self, device):\n        where = torch.device(device).type\n"
            "        self.assertEqual(torch.ones(1, device=where).device.type, where)\n\n\n"
            # test_map only asks whether CUDA is there: it ran on CPU too, and still does.
            "instantiate_device_type_tests(TestAAccelerator, globals(), allow_xpu=True)\n"
        )
        + MAIN
    )
    assert report.migrated == {"split": 2}
    assert "2 hard-coded devices rewritten" in report.files[0].migrated[1].detail


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (
            # the device-free test calls the GPU helper
            (
                "        self.assertEqual(self.x, 1)\n",
                "        self.assertEqual(self.x, 1)\n        self._gpu_ones()\n",
            ),
            "not split: _gpu_ones, which is no test, uses a device (torch.ones(...).cuda() (line 14)) "
            "and the device-free test test_free reaches it: split by hand",
        ),
        (
            # the only device test's decorator gone: the helper its test reaches is why
            ("    @requires_gpu\n    def test_dev(self):\n", "    def test_dev(self):\n"),
            "not split: _gpu_ones, which is no test, uses a device (torch.ones(...).cuda() (line 14)) "
            "and the device-free test test_dev reaches it: split by hand",
        ),
        (
            # ... through another helper, by name through getattr
            (
                "    def test_free(self):\n        self.assertEqual(self.x, 1)\n",
                "    def _twice(self):\n        return 2 * getattr(self, '_gpu_ones')()\n\n"
                "    def test_free(self):\n        self.assertEqual(self.x, 1)\n        self._twice()\n",
            ),
            "not split: _gpu_ones, which is no test, uses a device (torch.ones(...).cuda() (line 14)) "
            "and the device-free test test_free reaches it: split by hand",
        ),
        (
            # setUp runs for every test
            ("        self.x = 1\n", "        self.x = 1\n        self.y = self._gpu_ones()\n"),
            "not split: _gpu_ones, which is no test, uses a device (torch.ones(...).cuda() (line 15)) and setUp, "
            "which "
            "every test runs, reaches it: split by hand",
        ),
        (
            # the instance passed on: any member may be reached
            ("        self.assertEqual(self.x, 1)\n", "        self.assertEqual(self.x, 1)\n        check(self)\n"),
            "not split: _gpu_ones, which is no test, uses a device (torch.ones(...).cuda() (line 14)) and a device-free "
            "test "
            "passes `self` on or names a member it computes: it may reach it: split by hand",
        ),
        (
            # A CUDA class then, no test of which names `self.where`: left
            # (hwlint.fix.migrate.device_free), test_free ran on CPU runners.
            ("        self.x = 1\n", '        self.x = 1\n        self.where = "cuda"\n'),
            'not split: test_free uses no device and ran on CPU runners: instantiated only_for="cuda", '
            "the class would take it off; split it by hand (GENERIC and CUDA)",
        ),
        (
            # a default is evaluated in the class body: the new class would not find it
            ("    def test_free(self):\n", "    limit = 3\n\n    def test_free(self, n=limit):\n"),
            "not split: test_free names limit where the class is made (a decorator, a default), and it "
            "stays in the mixin: split by hand",
        ),
        (
            # ... and a decorator
            (
                "    def test_free(self):\n",
                "    def _case(fn):\n        return fn\n\n    @_case\n    def test_free(self):\n",
            ),
            "not split: test_free names _case where the class is made (a decorator, a default), and it "
            "stays in the mixin: split by hand",
        ),
    ],
)
def test_a_device_member_a_device_free_test_may_reach_refuses_the_split(
    tmp_path: Path, change: tuple[str, str], why: str
) -> None:
    # (Lines of the file as the fix phase left it: its declaration and import added.)
    source = HEAD + GPU_HELPER.replace(*change)
    text, report = migrate(tmp_path, source)
    assert "TestAGeneric" not in text
    assert not_split(report) == [why]


# -- the class named elsewhere -----------------------------------------------


def test_a_class_named_in_comments_docstrings_and_prose_is_split(tmp_path: Path) -> None:
    source = (
        '"""Tests of the reader (TestA holds them)."""\n'
        + HEAD
        + "\n\n# TestA: split me\n"
        + MIXED.lstrip("\n")
        + '\n\ndef describe():\n    """What TestA checks."""\n    return "TestA checks the reader"\n'
    )
    text, report = migrate(tmp_path, source)
    assert report.migrated == {"split": 2}
    assert "# TestA: split me\nclass _TestAMixin:" in text
    assert 'return "TestA checks the reader"' in text


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ('\n\n__all__ = ["TestA"]\n', '__all__ = ["TestA"]'),
        ('\n\nPATCH = "test_a.TestA._helper"\n', 'PATCH = "test_a.TestA._helper"'),
        ("\n\nCASES = [\n    1,\n    TestA,\n]\n", "TestA,"),
    ],
)
def test_a_class_named_in_code_or_a_dotted_string_is_not_split(tmp_path: Path, extra: str, said: str) -> None:
    text, report = migrate(tmp_path, HEAD + MIXED + extra)
    assert "TestAGeneric(" not in text
    assert not_split(report) == [
        f"not split: `{said}` names TestA: a subclass, a reference or `super(TestA, self)` "
        "would not find its tests; split by hand"
    ]


def test_a_new_name_only_a_comment_mentions_is_not_taken(tmp_path: Path) -> None:
    text, report = migrate(tmp_path, HEAD + "\n\n# TestAGeneric: the device-free half\n" + MIXED.lstrip("\n"))
    assert report.migrated == {"split": 2}


# -- the first look: a class whose tests all use a device ---------------------


def test_a_class_whose_tests_all_name_a_device_is_refused_before_libcst_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The facts see no device in test_a (a print, a module-level device):
    # the plan tries the split; the first look refuses it, libcst unread.
    source = HEAD + (
        '\n\ngpu = torch.device("cuda")\n\n\n'
        "class TestA(TestCase):\n"
        "    def test_a(self):\n        print('on CUDA')\n\n"
        "    def test_b(self):\n        torch.ones(1).to(gpu)\n\n"
        "    def test_c(self):\n        torch.ones(1).cuda()\n"
    )
    root = write_project(tmp_path / "proj", {"test/test_a.py": source})
    result = lint(root)
    plans, unfixed = plan_fixes(result, unsafe=True)
    (plan,) = [p for p in plan_splits(result, plans, unfixed, None)[0] if p.migrations]
    assert [m.kind for m in plan.migrations][:1] == ["split"]

    def unread(*args: object) -> None:
        raise AssertionError("libcst read the module")

    monkeypatch.setattr(split_module, "parse_module", unread)
    config = load_config(start=root)
    data = source.encode()
    with pytest.raises(Refusal, match="every test uses a device: one classification fits them all"):
        split_module.split(data, plan.migrations[0], config, lambda d: extract_source("test/test_a.py", d.decode()))


_TEST_BODIES = [
    "pass",
    "self.assertEqual(1, 1)",
    "print('XPU result')",
    "torch.ones(1).to(gpu)",
    "# runs on CUDA too\n        pass",
    '"""Checks the CUDA path."""',
    "torch.ones(1, device=self.device_type)",
    "x = [gpu_like for gpu_like in range(2)]",
]
_DECORATORS = ["", "@requires_gpu\n", "@unittest.skip('no')\n", "@onlyCUDA\n", "@parametrize('n', [1])\n"]


@settings(max_examples=40, deadline=None)
@example([("", "print('XPU result')"), ("@onlyCUDA\n", "pass")])  # every test: the first look says so
@example([("", "print('XPU result')"), ("", '"""Checks the CUDA path."""')])  # a docstring: it may not
@given(st.lists(st.tuples(st.sampled_from(_DECORATORS), st.sampled_from(_TEST_BODIES)), min_size=1, max_size=4))
def test_the_first_look_calls_a_test_a_device_test_only_when_the_split_does(tests: list[tuple[str, str]]) -> None:
    source = HEAD + 'import unittest\n\ngpu = torch.device("cuda")\n\n\nclass TestA(TestCase):\n'
    source += "\n".join(
        f"    {d.replace(chr(10), chr(10) + '    ')}def test_{i}(self):\n        {body}\n"
        for i, (d, body) in enumerate(tests)
    )
    data = source.encode()
    facts = extract_source("test/test_a.py", source)
    words = device_words(load_config(start=Path(__file__).parent))
    bound = device_constants(data, facts.accelerator_lines)
    (cls,) = facts.classes
    first = every_test_uses_a_device(data, cls.line, words, bound, instantiated=False)
    module = cst.parse_module(source)
    tree = module.body[find_class(module.body, "TestA", 0)]
    assert isinstance(tree, cst.ClassDef)
    config = load_config(start=Path(__file__).parent)
    try:
        split_module.sort_tests(module, tree, cls, facts, data, config, instantiated=False)
        why = ""
    except Refusal as refusal:
        why = refusal.reason
    if first:
        assert why == "not split: every test uses a device: one classification fits them all"
    if tests == [("", "print('XPU result')"), ("@onlyCUDA\n", "pass")]:
        assert first


# -- the runtime check ---------------------------------------------------------


def test_the_runtime_check_maps_each_devices_copy_onto_the_generic_test() -> None:
    before = RuntimeModule(
        "m",
        (
            RuntimeClass("TestACPU", None, True, "TestA", "m", "cpu", ("test_free_cpu", "test_dev_cpu")),
            RuntimeClass("TestACUDA", None, True, "TestA", "m", "cuda", ("test_free_cuda", "test_dev_cuda")),
        ),
    )
    after = RuntimeModule(
        "m",
        (
            RuntimeClass("TestAGeneric", "GENERIC", True, None, "m", None, ("test_free",)),
            RuntimeClass("TestAAcceleratorCPU", "ACCELERATOR", True, "TestAAccelerator", "m", "cpu", ("test_dev_cpu",)),
            RuntimeClass(
                "TestAAcceleratorCUDA", "ACCELERATOR", True, "TestAAccelerator", "m", "cuda", ("test_dev_cuda",)
            ),
        ),
    )
    moves = (
        ClassMove("TestA", "TestAGeneric", ("test_free",)),
        ClassMove("TestA", "TestAAccelerator", ("test_dev",)),
    )
    check = compare("m", before, after, moves)
    assert (check.before, check.after, check.renamed, check.lost, check.added) == (4, 3, 4, (), ())
    # Without the moves, the split loses them all.
    assert len(compare("m", before, after).lost) == 4


# -- docs/fix.md ---------------------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs" / "fix.md"


def test_docs_split_example_is_what_fix_does(tmp_path: Path) -> None:
    text = DOCS.read_text()
    blocks = dict(re.findall(r"<!-- migration-example: split (\w+) -->\n```python\n(.*?)```", text, re.S))
    assert set(blocks) == {"before", "after"}, "docs/fix.md lost its split before/after example"
    root = write_project(tmp_path / "proj", {"test/test_x.py": blocks["before"]})
    proc = run_cli("fix", "--unsafe", cwd=root)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert (root / "test/test_x.py").read_text() == blocks["after"]
    said = re.search(r"For the split example `fix` says where the tests went: `(.*?)`\.", text, re.S)
    assert said and " ".join(said.group(1).split()) in proc.stderr
    assert run_cli("fix", "--unsafe", "--diff", cwd=root).stdout == ""


# -- property ------------------------------------------------------------------

_FREE_BODIES = ["self.assertEqual(self._helper(), 1)", "self.assertTrue(self.ready)", "pass"]
_DEVICE_BODIES = [
    'torch.ones(2, device="cuda")',
    "torch.ones(2).cuda()",
    "torch.cuda.synchronize()",
    'torch.zeros(1).to("cuda")',
    'self._on_device(torch.ones(2, device="cuda"))',
]


@st.composite
def mixed_classes(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A class of device-free tests and device tests (some `@requires_gpu`),
    with a helper and setUp, maybe a helper that uses a device (which only
    device tests call, if any), and its tests' names."""
    free = draw(st.lists(st.sampled_from(_FREE_BODIES), min_size=1, max_size=3))
    device = draw(st.lists(st.tuples(st.sampled_from(_DEVICE_BODIES), st.booleans()), min_size=1, max_size=3))
    tests = [(f"test_free_{i}", body, False) for i, body in enumerate(free)]
    tests += [(f"test_dev_{i}", body, needs) for i, (body, needs) in enumerate(device)]
    order = draw(st.permutations(tests))
    members = ["    def setUp(self):\n        super().setUp()\n        self.ready = True\n"]
    if draw(st.booleans()):
        members.append("    def _helper(self):\n        return 1\n")
    else:
        members.insert(0, "    limit = 3\n\n    def _helper(self):\n        return 1\n")
    if draw(st.booleans()) or any("_on_device" in body for _, body, _ in tests):
        members.append("    def _on_device(self, t):\n        return t.cuda()\n")
    for name, body, needs in order:
        members.append(("    @requires_gpu\n" if needs else "") + f"    def {name}(self):\n        {body}\n")
    source = HEAD + "\n\nclass TestA(TestCase):\n" + "\n".join(members) + MAIN
    return source, [name for name, _, _ in order]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mixed_classes())
def test_generated_mixed_classes_split_soundly(tmp_path_factory: pytest.TempPathFactory, drawn: tuple) -> None:
    source, names = drawn
    tmp_path = tmp_path_factory.mktemp("split")
    text, report = migrate(tmp_path, source)  # idempotent: migrate checks a second run
    tree = ast.parse(text)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    assert set(classes) == {"_TestAMixin", "TestAGeneric", "TestAAccelerator"}
    bound = {
        c: [f.name for f in node.body if isinstance(f, ast.FunctionDef) and f.name.startswith("test")]
        for c, node in classes.items()
    }
    # Every test bound in exactly one class; none in the mixin.
    assert sorted(bound["TestAGeneric"] + bound["TestAAccelerator"]) == sorted(names)
    assert bound["_TestAMixin"] == []
    # A helper that uses a device goes with the device tests.
    helpers = {c: [f.name for f in node.body if isinstance(f, ast.FunctionDef)] for c, node in classes.items()}
    assert ("_on_device" in source) == ("_on_device" in helpers["TestAAccelerator"])
    assert "_on_device" not in helpers["_TestAMixin"] + helpers["TestAGeneric"]
    generic = ast.get_source_segment(text, classes["TestAGeneric"]) or ""
    assert not re.search(r"cuda|device|requires_gpu", generic)
    assert all(n.startswith("test_free") for n in bound["TestAGeneric"])
    assert "instantiate_device_type_tests(TestAAccelerator, globals()" in text
    assert "instantiate_device_type_tests(TestAGeneric" not in text
    assert report.migrated == {"split": 2}
    root = tmp_path / "proj"
    assert [d for d in lint(root).diagnostics if d.code == MissingClassification.code] == []


def test_a_device_handed_to_a_helper_the_mixin_keeps_becomes_the_tests(tmp_path: Path) -> None:
    """`self._check("cuda", 2)` in a device test, `_check(self, device, n)`
    in the class: after the split the helper sits in the mixin, a base of
    the same module, and the string still becomes the test's `device`."""
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def _check(self, device, n):\n        self.assertEqual(torch.ones(n, device=device).sum().item(), n)\n\n"
        "    def test_free(self):\n        self.assertEqual(1 + 1, 2)\n\n"
        '    def test_dev(self):\n        self._check("cuda", 2)\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert text == DECLARED_HEAD + (
        "\n\nclass _TestAMixin:\n"
        "    def _check(self, device, n):\n        self.assertEqual(torch.ones(n, device=device).sum().item(), n)\n\n\n"
        "class TestAGeneric(_TestAMixin, TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_free(self):\n        self.assertEqual(1 + 1, 2)\n\n\n"
        "class TestAAccelerator(_TestAMixin, TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_dev(self, device):\n        self._check(device, 2)\n\n\n"
        'instantiate_device_type_tests(TestAAccelerator, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert report.migrated == {"split": 2}


def test_a_gpu_type_class_with_guarded_device_tests_is_split_as_inductors_contributors_do(tmp_path: Path) -> None:
    # The next test's guards are its own (not the device-free test's before it); a
    # skip of MPS binds no test to MPS; @instantiate_parametrized_tests stays with
    # the GENERIC class, the device framework expands the other's @parametrize.
    source = (
        "import torch\nfrom unittest import skipIf\n"
        "from torch.testing._internal.common_utils import (\n"
        "    TestCase,\n    instantiate_parametrized_tests,\n    parametrize,\n    run_tests,\n)\n"
        "from torch.testing._internal.inductor_utils import GPU_TYPE, HAS_GPU, requires_gpu\n\n\n"
        "@instantiate_parametrized_tests\nclass TestA(TestCase):\n"
        '    @parametrize("n", [1, 2])\n    def test_free(self, n):\n        self.assertGreater(n, 0)\n\n'
        "    @requires_gpu()\n"
        '    @skipIf(GPU_TYPE == "mps", "Triton is not available for MPS")\n'
        "    def test_dev(self):\n        torch.ones(2, device=torch.device(GPU_TYPE))\n"
    )
    text, report = migrate(tmp_path, source + '\n\nif __name__ == "__main__":\n    if HAS_GPU:\n        run_tests()\n')
    assert text == (
        "import torch\n"
        "from torch.testing._internal.common_utils import (\n"
        "    TestCase,\n    instantiate_parametrized_tests,\n    parametrize,\n    run_tests,\n"
        "    HardwareClassification,\n)\n"
        "from torch.testing._internal.inductor_utils import HAS_GPU, requires_gpu\n"
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests, skipMPSIf\n\n\n"
        "@instantiate_parametrized_tests\nclass TestAGeneric(TestCase):\n"
        "    hw_classification = HardwareClassification.GENERIC\n\n"
        '    @parametrize("n", [1, 2])\n    def test_free(self, n):\n        self.assertGreater(n, 0)\n\n\n'
        "class TestAAccelerator(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    @requires_gpu()\n"
        '    @skipMPSIf(True, "Triton is not available for MPS")\n'
        "    def test_dev(self, device):\n        torch.ones(2, device=torch.device(self.device_type))\n\n\n"
        'instantiate_device_type_tests(TestAAccelerator, globals(), except_for="cpu", allow_xpu=True)\n'
        '\n\nif __name__ == "__main__":\n    if HAS_GPU:\n        run_tests()\n'
    )
    assert report.migrated == {"split": 2}


def test_a_module_name_for_the_machines_accelerator_type_becomes_the_tests_device(tmp_path: Path) -> None:
    # `device_type = acc.type if (acc := current_accelerator()) else "cpu"`, PyTorch's
    # idiom for "the accelerator here": in a device test, what GPU_TYPE would become.
    head = (
        "import torch\nfrom torch.testing._internal.common_utils import TestCase, run_tests\n"
        "from torch.testing._internal.triton_utils import requires_gpu_and_triton\n\n"
        'device_type = acc.type if (acc := torch.accelerator.current_accelerator()) else "cpu"\n'
    )
    source = head + (
        "\n\nclass TestA(TestCase):\n"
        '    def test_free(self):\n        self.assertEqual(torch.ones(2, device="cpu").sum().item(), 2)\n\n'
        "    @requires_gpu_and_triton\n    def test_dev(self):\n"
        "        def make():\n            return torch.ones(2, device=device_type)\n\n"
        "        self.assertEqual(make().device.type, device_type)\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert text == head.replace("run_tests\n", "run_tests, HardwareClassification\n").replace(
        "requires_gpu_and_triton\n",
        "requires_gpu_and_triton\nfrom torch.testing._internal.common_device_type import instantiate_device_type_tests\n",
    ) + (
        "\n\nclass TestAGeneric(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        '    def test_free(self):\n        self.assertEqual(torch.ones(2, device="cpu").sum().item(), 2)\n\n\n'
        "class TestAAccelerator(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    @requires_gpu_and_triton\n    def test_dev(self, device):\n"
        "        def make():\n            return torch.ones(2, device=device)\n\n"
        "        self.assertEqual(make().device.type, self.device_type)\n\n\n"
        'instantiate_device_type_tests(TestAAccelerator, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert report.migrated == {"split": 2}
    # A test that binds the name itself: refused, with why.
    local = source.replace("        def make():", "        device_type = 'cuda'\n        def make():")
    text, report = migrate(tmp_path / "local", local + MAIN)
    # A CUDA class by its uses, of a device-free test and a device test: left
    # for a human, as no one classification fits it.
    assert not_split(report) == ["not split: test_dev binds device_type itself: migrate by hand"]
    assert text == local + MAIN and report.migrated == {}


def test_a_test_that_names_a_device_only_where_nothing_runs_on_it_is_device_free(tmp_path: Path) -> None:
    # Its name, its docstring, a skip's message and a question it takes either
    # way name CUDA; nothing in it runs there (the contributors' GENERIC test).
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        '    def test_cuda_absent(self):\n        """Without CUDA, this fails."""\n'
        '        if torch.cuda.is_available():\n            self.skipTest("CUDA is available")\n'
        "        self.assertEqual(1, 1)\n\n"
        '    def test_dev(self):\n        torch.ones(2, device="cuda")\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert report.migrated == {"split": 2}
    assert (
        "class TestAGeneric(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        '    def test_cuda_absent(self):\n        """Without CUDA, this fails."""\n'
    ) in text
    assert "    def test_dev(self, device):\n        torch.ones(2, device=device)\n" in text


def test_an_answer_inside_a_condition_and_a_dict_key_named_after_a_device_run_on_no_device(tmp_path: Path) -> None:
    # PyTorch's checkpoint staging tests, before their split: a test that
    # branches on `options.async and torch.accelerator.is_available()` ran
    # on CPU too; a key "cuda_tensor" the test puts in its own dict is a
    # name, and the `.cuda()` beside it becomes the test's device.
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def test_options(self):\n"
        "        for use_async in (False, True):\n"
        "            if use_async and torch.accelerator.is_available():\n"
        "                self.assertTrue(use_async)\n\n"
        "    @requires_gpu\n"
        "    def test_tensors(self):\n"
        '        staged = {"cuda_tensor": torch.ones(2).cuda(), "cpu_tensor": torch.ones(2)}\n'
        '        self.assertIn("cuda_tensor", staged)\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert report.migrated == {"split": 2}
    assert (
        "class TestAGeneric(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_options(self):\n"
    ) in text
    assert (
        "    def test_tensors(self, device):\n"
        '        staged = {"cuda_tensor": torch.ones(2).to(device), "cpu_tensor": torch.ones(2)}\n'
        '        self.assertIn("cuda_tensor", staged)\n'
    ) in text


def test_a_key_that_is_a_device_string_still_names_the_device(tmp_path: Path) -> None:
    # {"cuda": ...} is a table by device: the test is that device's, in a class of CUDA's.
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def test_free(self):\n        self.assertEqual(1, 1)\n\n"
        "    @requires_gpu\n"
        "    def test_table(self):\n"
        '        expected = {"cuda": 1, "cpu": 2}\n'
        "        torch.ones(2).cuda()\n"
        '        self.assertEqual(expected["cuda"], 1)\n'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert report.migrated == {"split": 2}
    assert "class TestACUDA(TestCase):\n    hw_classification = HardwareClassification.CUDA\n\n" in text
    assert "    @requires_gpu\n    def test_table(self, device):\n" in text
    assert 'instantiate_device_type_tests(TestACUDA, globals(), only_for="cuda")\n' in text


def test_the_accelerator_class_of_a_split_gets_the_config_patch_on_its_tests(tmp_path: Path) -> None:
    # The Generic class keeps it on the class (it is not instantiated).
    head = HEAD.replace("import torch\n", "import torch\nfrom torch._inductor import config\n")
    source = (
        "\n\n@config.patch(fallback_random=True)\nclass TestA(TestCase):\n"
        "    def test_free(self):\n        self.assertEqual(1, 1)\n\n"
        '    def test_dev(self):\n        torch.ones(2, device="cuda")\n'
    )
    text, report = migrate(tmp_path, head + source + MAIN)
    assert report.migrated == {"split": 2}
    assert (
        "\n\n@config.patch(fallback_random=True)\nclass TestAGeneric(TestCase):\n"
        "    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_free(self):\n        self.assertEqual(1, 1)\n\n\n"
        "class TestAAccelerator(TestCase):\n"
        "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    @config.patch(fallback_random=True)\n"
        "    def test_dev(self, device):\n        torch.ones(2, device=device)\n"
    ) in text


def test_a_device_test_that_names_triton_asks_for_it_in_the_accelerator_class(tmp_path: Path) -> None:
    # As test_minifier_isolate.py: a CPU-code test stays generic, the Triton one asks for Triton.
    head = HEAD.replace("import torch\n", "import torch\nfrom torch._inductor import config\n")
    source = (
        "\n\nclass TestA(TestCase):\n"
        '    @config.patch("cpp.inject_relu_bug_TESTING_ONLY", "runtime_error")\n'
        "    def test_cpu(self):\n        torch.ones(2)\n\n"
        '    @config.patch("triton.inject_relu_bug_TESTING_ONLY", "runtime_error")\n'
        '    def test_dev(self):\n        torch.ones(2, device="cuda")\n'
    )
    text, report = migrate(tmp_path, head + source + MAIN)
    assert report.migrated == {"split": 2}
    assert (
        "class TestAAccelerator(TestCase):\n"
        "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        '    @skipUnless(has_triton(), "requires Triton")\n'
        '    @config.patch("triton.inject_relu_bug_TESTING_ONLY", "runtime_error")\n'
        "    def test_dev(self, device):\n        torch.ones(2, device=device)\n"
    ) in text
    # Not inductor_utils' requires_triton(): its import imports functorch, which a tree may shadow.
    assert "from torch.utils._triton import has_triton\nfrom unittest import skipUnless\n" in text
