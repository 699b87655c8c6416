"""`hwlint select`: each format on a known tree, device-type instantiation,
and `pytest $(hwlint select GENERIC CPU --format pytest)` run for real."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from hwlint.facts import Instantiation
from hwlint.select.selection import covers, default_device, select_tests
from tests.conftest import lint, run_cli, write_project

# A stand-in for PyTorch's test helpers, so that the tree runs under plain
# pytest without torch: the enum, and instantiate_device_type_tests as
# PyTorch does it (one class per device type, named <Class><DEVICE>, the
# generic class removed from the module), for a runner that has a CPU.
HELPERS = """\
import enum
import unittest

AVAILABLE_DEVICES = ("cpu",)


class HardwareClassification(enum.Enum):
    GENERIC = "generic"
    ACCELERATOR = "accelerator"
    CPU = "cpu"
    CUDA = "cuda"
    MPS = "mps"
    XPU = "xpu"


def instantiate_device_type_tests(generic, scope, only_for=None, except_for=None, allow_mps=False, allow_xpu=False):
    del scope[generic.__name__]
    only = (only_for,) if isinstance(only_for, str) else tuple(only_for or ())
    excluded = (except_for,) if isinstance(except_for, str) else tuple(except_for or ())
    for device in AVAILABLE_DEVICES:
        if (only and device not in only) or device in excluded:
            continue
        methods = {}
        for name in dir(generic):
            if name.startswith("test"):
                def run(self, _test=getattr(generic, name), _device=device):
                    return _test(self, _device)
                methods[f"{name}_{device}"] = run
        scope[generic.__name__ + device.upper()] = type(generic.__name__ + device.upper(), (unittest.TestCase,), methods)
"""

TREE = {
    "pytest.ini": "[pytest]\n",
    "suite/hwlint_testing.py": HELPERS,
    "suite/common_bases.py": """\
import unittest

from hwlint_testing import HardwareClassification


class GenericBase(unittest.TestCase):
    hw_classification = HardwareClassification.GENERIC
""",
    "suite/test_generic.py": """\
import unittest

from common_bases import GenericBase
from hwlint_testing import HardwareClassification


class TestMath(unittest.TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_add(self):
        self.assertEqual(1 + 1, 2)


class TestInherited(GenericBase):
    def test_inherited(self):
        self.assertTrue(True)


class TestUnclassified(unittest.TestCase):
    def test_unclassified(self):
        self.assertTrue(True)
""",
    "suite/test_devices.py": """\
import unittest

from hwlint_testing import HardwareClassification, instantiate_device_type_tests


class TestOps(unittest.TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_ones(self, device):
        self.assertIsInstance(device, str)


class TestCpuOnly(unittest.TestCase):
    hw_classification = HardwareClassification.CPU

    def test_mkldnn(self, device):
        self.assertEqual(device, "cpu")


class TestCudaOnly(unittest.TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_cudnn(self, device):
        self.assertEqual(device, "cuda")


class TestPlainCpu(unittest.TestCase):
    hw_classification = HardwareClassification.CPU

    def test_plain(self):
        self.assertTrue(True)


instantiate_device_type_tests(TestOps, globals(), except_for="meta")
instantiate_device_type_tests(TestCpuOnly, globals(), only_for="cpu")
instantiate_device_type_tests(TestCudaOnly, globals(), only_for="cuda")
""",
    "suite/test_other.py": """\
import unittest

from hwlint_testing import HardwareClassification, instantiate_device_type_tests


class TestMps(unittest.TestCase):
    hw_classification = HardwareClassification.MPS

    def test_metal(self, device):
        pass


class TestXpu(unittest.TestCase):
    hw_classification = HardwareClassification.XPU

    def test_xpu(self):
        pass


class TestNoMps(unittest.TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_anywhere(self, device):
        pass


instantiate_device_type_tests(TestMps, globals(), only_for="mps", allow_mps=True)
instantiate_device_type_tests(TestNoMps, globals(), except_for=["cpu"])
""",
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_project(tmp_path / "proj", TREE, {"include": ["suite/**/test_*.py"]})


def select(root: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`hwlint select ARGS` in this process (click's test runner, in `cwd`):
    a fresh interpreter per call would make this file slow. The end-to-end
    test below runs the real command."""
    from click.testing import CliRunner

    from hwlint.cli.main import main

    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]  # click < 8.2
    except TypeError:
        runner = CliRunner()  # click >= 8.2 keeps stderr apart by default
    previous = os.getcwd()
    os.chdir(cwd or root)
    try:
        result = runner.invoke(main, ["select", *args], catch_exceptions=False)
    finally:
        os.chdir(previous)
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def test_files(tree: Path) -> None:
    result = select(tree, "GENERIC", "CPU")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == "suite/test_devices.py\nsuite/test_generic.py\n"


def test_pytest_node_ids_with_the_device_of_the_members(tree: Path) -> None:
    # GENERIC CPU: the runner is a CPU; instantiated classes as pytest
    # collects them there. TestOps is ACCELERATOR, TestCudaOnly CUDA.
    result = select(tree, "GENERIC", "CPU", "--format", "pytest")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "suite/test_devices.py::TestCpuOnlyCPU\n"
        "suite/test_devices.py::TestPlainCpu\n"
        "suite/test_generic.py::TestMath\n"
        "suite/test_generic.py::TestInherited\n"
    )


def test_accelerator_runner(tree: Path) -> None:
    result = select(tree, "ACCELERATOR", "CUDA", "--format", "pytest")
    assert result.stdout == (
        "suite/test_devices.py::TestOpsCUDA\n"
        "suite/test_devices.py::TestCudaOnlyCUDA\n"
        "suite/test_other.py::TestNoMpsCUDA\n"
    )
    # On a CPU: TestNoMps is not instantiated there (except_for=["cpu"]).
    assert (
        select(tree, "ACCELERATOR", "--device", "cpu", "--format", "pytest").stdout
        == "suite/test_devices.py::TestOpsCPU\n"
    )
    # MPS and XPU classes exist only with allow_mps/allow_xpu, as in PyTorch.
    assert select(tree, "ACCELERATOR", "MPS", "--format", "pytest").stdout == "suite/test_other.py::TestMpsMPS\n"
    assert select(tree, "ACCELERATOR", "XPU", "--format", "pytest").stdout == "suite/test_other.py::TestXpu\n"


def test_pytest_format_needs_a_device_for_instantiated_classes(tree: Path) -> None:
    result = select(tree, "ACCELERATOR", "--format", "pytest")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        "hwlint: error: suite/test_devices.py: TestOps is instantiated per device type, so pytest collects it as "
        "TestOps<DEVICE> (e.g. TestOpsCUDA): pass --device to name the classes this runner collects (1 more like it)\n"
    )
    # Files do not depend on it.
    assert select(tree, "ACCELERATOR").stdout == "suite/test_devices.py\nsuite/test_other.py\n"


def test_include_unclassified(tree: Path) -> None:
    result = select(tree, "GENERIC", "--include-unclassified", "--format", "pytest")
    assert result.stdout == (
        "suite/test_generic.py::TestMath\n"
        "suite/test_generic.py::TestInherited\n"
        "suite/test_generic.py::TestUnclassified\n"
    )


def test_json(tree: Path) -> None:
    result = select(tree, "cpu", "--format", "json")  # member names are case-insensitive
    assert result.returncode == 0
    document = json.loads(result.stdout)
    assert document == {
        "root": str(tree.resolve()),
        "members": ["CPU"],
        "include_unclassified": False,
        "device": "cpu",
        "files": ["suite/test_devices.py"],
        "tests": [
            {
                "path": "suite/test_devices.py",
                "class_name": "TestCpuOnly",
                "classification": "CPU",
                "inherited_from": None,
                "instantiated": True,
                "collected_as": "TestCpuOnlyCPU",
                "node_id": "suite/test_devices.py::TestCpuOnlyCPU",
                "imported_from": None,
            },
            {
                "path": "suite/test_devices.py",
                "class_name": "TestPlainCpu",
                "classification": "CPU",
                "inherited_from": None,
                "instantiated": False,
                "collected_as": "TestPlainCpu",
                "node_id": "suite/test_devices.py::TestPlainCpu",
                "imported_from": None,
            },
        ],
        "uncertain": [],
    }
    inherited = json.loads(select(tree, "GENERIC", "--format", "json").stdout)["tests"][1]
    assert (inherited["class_name"], inherited["inherited_from"]) == (
        "TestInherited",
        "GenericBase in suite/common_bases.py",
    )
    # Without a device, an instantiated class has no node id.
    accelerator = json.loads(select(tree, "ACCELERATOR", "--format", "json").stdout)
    assert accelerator["device"] is None
    assert [(t["class_name"], t["node_id"]) for t in accelerator["tests"]] == [("TestOps", None), ("TestNoMps", None)]


def test_nothing_selected_exits_1(tree: Path) -> None:
    result = select(tree, "XPU", "--device", "cuda", "--format", "pytest")
    assert result.returncode == 0  # TestXpu is not instantiated: it runs anywhere asked
    result = select(tree, "CUDA", "--device", "cpu", "--format", "pytest")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "hwlint: no test class is CUDA for device cpu\n"


def test_exit_codes_of_the_installed_command(tree: Path) -> None:
    assert run_cli("select", "GENERIC", cwd=tree).returncode == 0
    assert run_cli("select", "CUDA", "--device", "cpu", cwd=tree).returncode == 1
    bad = run_cli("select", "GPU", cwd=tree)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_bad_member_and_device(tree: Path) -> None:
    result = select(tree, "GPU")
    assert result.returncode == 2
    assert (
        result.stderr
        == "hwlint: error: unknown classification 'GPU': expected one of GENERIC, ACCELERATOR, CPU, CUDA, MPS, XPU\n"
    )
    result = select(tree, "CPU", "--device", "cuda:0")
    assert result.returncode == 2 and "--device 'cuda:0'" in result.stderr
    assert select(tree).returncode == 2  # a member is required


def test_paths_are_relative_to_the_current_directory(tree: Path) -> None:
    result = select(tree, "GENERIC", "--format", "pytest", cwd=tree / "suite")
    assert result.stdout == "test_generic.py::TestMath\ntest_generic.py::TestInherited\n"


def test_aliases_and_unparsable_files(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "proj",
        {
            "test/test_a.py": "class TestA(TestCase):\n    hw_classification = HardwareClassification.DEVICE_GENERIC\n    def test_a(self, device): pass\n",
            "test/test_broken.py": "class TestBroken(TestCase)\n",
        },
        {"aliases": {"DEVICE_GENERIC": "ACCELERATOR"}},
    )
    result = select(root, "device_generic", "--format", "pytest")
    assert result.stdout == "test/test_a.py::TestA\n"
    assert result.stderr.startswith("hwlint: warning: test/test_broken.py: cannot be parsed (")


def test_instantiation_coverage() -> None:
    def call(**kwargs: object) -> Instantiation:
        base = {"only_for": None, "except_for": None, "allow_mps": False, "allow_xpu": False}
        return Instantiation(1, 1, "TestA", **{**base, **kwargs})  # type: ignore[arg-type]

    assert covers(call(), "cuda") is True
    assert covers(call(), "mps") is False and covers(call(allow_mps=True), "mps") is True
    assert covers(call(), "xpu") is False and covers(call(allow_xpu=True), "XPU") is True
    assert covers(call(only_for=("cuda", "cpu")), "cpu") is True
    assert covers(call(only_for=("cuda",)), "cpu") is False
    assert covers(call(except_for=("cpu",)), "cpu") is False
    assert covers(call(only_for=()), "cpu") is None  # not a literal
    assert covers(call(only_for=("privateuse1",)), "npu") is True
    assert covers(call(only_for=("privateuse1",)), "cuda") is False
    assert default_device(("GENERIC", "CPU")) == "cpu"
    assert default_device(("ACCELERATOR",)) is None
    assert default_device(("CPU", "CUDA")) is None


def test_selection_in_process_dedupes_alternative_definitions(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "proj",
        {
            "test/test_a.py": (
                "import sys\n"
                "if sys.platform == 'win32':\n"
                "    class TestA(TestCase):\n        hw_classification = HardwareClassification.CPU\n        def test_a(self): pass\n"
                "else:\n"
                "    class TestA(TestCase):\n        hw_classification = HardwareClassification.CPU\n        def test_a(self): pass\n"
            ),
        },
    )
    selection = select_tests(lint(root), ("CPU",))
    assert [t.node_id for t in selection.tests] == ["test/test_a.py::TestA"]


def test_pytest_runs_what_select_chose(tree: Path) -> None:
    """End to end, as a CPU runner does it, with the README's command."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "pytest $(hwlint select GENERIC CPU --format pytest)" in readme
    shell = f"{shlex.quote(sys.executable)} -m pytest -v -p no:cacheprovider $({shlex.quote(sys.executable)} -m hwlint select GENERIC CPU --format pytest)"
    result = subprocess.run(["bash", "-c", shell], cwd=tree, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    passed = sorted(re.findall(r"^(\S+::\S+::\S+) PASSED", result.stdout, re.MULTILINE))
    assert passed == [
        "suite/test_devices.py::TestCpuOnlyCPU::test_mkldnn_cpu",
        "suite/test_devices.py::TestPlainCpu::test_plain",
        "suite/test_generic.py::TestInherited::test_inherited",
        "suite/test_generic.py::TestMath::test_add",
    ]
    assert "4 passed" in result.stdout


def test_classes_imported_and_instantiated_for_another_backend(tmp_path: Path) -> None:
    """Out-of-tree backends reuse PyTorch's tests: they import a class and
    instantiate it for their device in a file of their own."""
    root = write_project(
        tmp_path / "proj",
        {
            "test/test_ops.py": (
                "class TestCommon(TestCase):\n"
                "    hw_classification = HardwareClassification.ACCELERATOR\n"
                "    def test_add(self, device): pass\n\n"
                "instantiate_device_type_tests(TestCommon, globals())\n"
            ),
            "test/xpu/test_ops_xpu.py": (
                "from test_ops import TestCommon as Common\n"
                "from test_helpers import TestHelperBase\n\n"
                "instantiate_device_type_tests(Common, globals(), only_for='xpu', allow_xpu=True)\n"
                "instantiate_device_type_tests(TestHelperBase, globals(), only_for='xpu', allow_xpu=True)\n"
                "instantiate_device_type_tests(Unknown, globals(), only_for='xpu', allow_xpu=True)\n"
            ),
            # Not a test file (include is test_*.py... but it is read on demand).
            "test/xpu/test_helpers.py": "class TestHelperBase:\n    def helper(self): pass\n",
        },
    )
    result = select(root, "ACCELERATOR", "XPU", "--format", "pytest")
    assert (result.returncode, result.stderr) == (0, "")
    # test_ops.py does not instantiate for XPU (no allow_xpu); the XPU file
    # does, under the class's own name.
    assert result.stdout == "test/xpu/test_ops_xpu.py::TestCommonXPU\n"
    assert select(root, "ACCELERATOR", "CUDA", "--format", "pytest").stdout == "test/test_ops.py::TestCommonCUDA\n"
    tests = json.loads(select(root, "ACCELERATOR", "--device", "xpu", "--format", "json").stdout)["tests"]
    assert [(t["path"], t["class_name"], t["classification"], t["instantiated"]) for t in tests] == [
        ("test/xpu/test_ops_xpu.py", "TestCommon", "ACCELERATOR", True)
    ]
