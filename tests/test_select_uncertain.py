"""`hwlint select` on modules whose test classes only exist at run time:
such a file is uncertain, selected whole with one warning line; imported
test classes are listed where they are collected; `--runtime` imports each
module in a child process and survives children that fail, crash or hang."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hwlint.facts import Dynamic, extract_source, from_blob, to_blob
from tests.conftest import run_cli, write_project
from tests.test_select import select

HEADER = "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n"
CPU_CLASS = "class TestCpu(TestCase):\n    hw_classification = HardwareClassification.CPU\n    def test_a(self): pass\n"


def test_facts_record_what_makes_classes_at_run_time() -> None:
    source = (
        "generated = generate_tests('TensorPipe', Mixin, TESTS, __name__)\n"  # 1
        "globals().update(generated)\n"  # 2
        "for _cls in generated.values():\n"  # 3
        "    _cls.hw_classification = HardwareClassification.CPU\n"  # 4
        "TestDyn = make_test_cls_with_patches(TestA, 'Dyn', '_dyn')\n"  # 5
        "globals()['X'] = make_test_cls_with_patches(TestA, 'Strict', '_s')\n"  # 6
        "TestA.test_b = lambda self: None\n"  # 7
        "def helper(cls):\n    setattr(cls, 'test_' + name, f)\n"  # 8, 9
        "setattr(sys.modules[__name__], 'Y', Y)\n"  # 10
        "device = torch.device('cpu')\n"  # 11: makes no class
        "for c in (TestA, TestB):\n    c.hw_classification = HardwareClassification.CPU\n"  # 12, 13: classes of the module
        "class TestA(TestCase): pass\nclass TestB(TestCase): pass\n"
    )
    facts = extract_source("test/test_a.py", source)
    assert facts.dynamic == (
        Dynamic(1, 13, "call", "generate_tests", "generated", ("TensorPipe", "Mixin", "TESTS", "__name__")),
        Dynamic(2, 1, "publish", "update", "", ()),
        Dynamic(4, 5, "classification", "", "", ()),
        Dynamic(5, 11, "call", "make_test_cls_with_patches", "TestDyn", ("TestA", "Dyn", "_dyn")),
        Dynamic(6, 18, "call", "make_test_cls_with_patches", "globals()", ("TestA", "Strict", "_s")),
        Dynamic(7, 1, "setattr", "", "TestA", ("test_b",)),
        Dynamic(9, 5, "setattr", "setattr", "cls", (None,)),
        Dynamic(10, 1, "publish", "setattr", "", ()),
    )
    assert from_blob(to_blob(facts)) == facts


def test_uncertain_files_are_in_every_selection_with_one_line_each(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "proj",
        {
            "test/test_cpu.py": HEADER + CPU_CLASS,
            "test/test_rpc.py": HEADER + "class RpcMixin:\n    def test_rpc(self): pass\n\n"
            "globals().update(generate_tests('TensorPipe', RpcMixin, [TestCase], __name__))\n",
            "test/test_exposed.py": HEADER + "@expose_mixin_tests(FooMixin)\nclass TestFoo(TestCase):\n"
            "    hw_classification = HardwareClassification.CUDA\n",
        },
    )
    result = select(root, "CUDA", "--device", "cuda")
    assert result.returncode == 0
    assert result.stdout == "test/test_exposed.py\ntest/test_rpc.py\n"
    assert result.stderr == (
        "hwlint: warning: test/test_exposed.py:4: uncertain, selected whole: TestFoo has no test methods hwlint can "
        "see, but @expose_mixin_tests may add some\n"
        "hwlint: warning: test/test_rpc.py:6: uncertain, selected whole: a class published through globals() is made "
        "by generate_tests() at run time\n"
    )
    # Node ids: what is known, and the uncertain files whole (pytest runs all of them).
    assert select(root, "CPU", "--format", "pytest").stdout == (
        "test/test_cpu.py::TestCpu\ntest/test_exposed.py\ntest/test_rpc.py\n"
    )
    document = json.loads(select(root, "CPU", "--format", "json").stdout)
    assert document["files"] == ["test/test_cpu.py", "test/test_exposed.py", "test/test_rpc.py"]
    assert document["uncertain"][1] == {
        "path": "test/test_rpc.py",
        "reasons": [
            {
                "line": 6,
                "column": 18,
                "kind": "created-by-call",
                "class_name": None,
                "message": "a class published through globals() is made by generate_tests() at run time",
            }
        ],
    }


def test_a_mixin_with_test_methods_is_not_collected(tmp_path: Path) -> None:
    """unittest collects TestCase classes only; neither does select list a mixin."""
    root = write_project(
        tmp_path / "proj",
        {
            "test/test_a.py": HEADER + "class OpsMixin:\n    hw_classification = HardwareClassification.CPU\n"
            "    def test_ops(self): pass\n\n"
            "class TestOps(OpsMixin, TestCase):\n    pass\n"
            # pytest collects a plain class named Test*: listed.
            "class TestPlain:\n    hw_classification = HardwareClassification.CPU\n"
            "    def test_p(self): pass\n",
        },
    )
    assert select(root, "CPU", "--format", "pytest").stdout == "test/test_a.py::TestOps\ntest/test_a.py::TestPlain\n"


def test_setattr_on_a_name_hwlint_cannot_follow_makes_the_file_uncertain(tmp_path: Path) -> None:
    """PyTorch's cpp-extension tests pick the class with a conditional and add
    a test method per source file: the class is not known, the file is."""
    root = write_project(
        tmp_path / "proj",
        {
            "test/test_a.py": HEADER
            + CPU_CLASS
            + "class _Base(TestCase):\n    pass\nclass _Other(TestCase):\n    pass\n"
            "for f in files:\n    target = TestCpu if f.endswith('.cu') else _Base\n"
            "    setattr(target, 'test_' + f, make(f))\n",
        },
    )
    result = select(root, "CUDA", "--device", "cuda")
    assert (result.returncode, result.stdout) == (0, "test/test_a.py\n")
    assert result.stderr == (
        "hwlint: warning: test/test_a.py:12: uncertain, selected whole: setattr on target, which hwlint cannot "
        "follow, may add test methods to a class that has none it can see, such as _Base or _Other\n"
    )


def test_imported_test_classes_are_listed_where_they_are_collected(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "proj",
        {
            "test/test_base.py": HEADER + CPU_CLASS + "\nclass _Private(TestCase):\n    def test_p(self): pass\n",
            "test/test_reuse.py": HEADER + "from test_base import TestCpu as Reused\n",
            "test/test_star.py": HEADER + "from test_base import *\n",
            # Instantiated where it is defined: removed from that module, so no import finds it there.
            "test/test_devices.py": HEADER
            + "class TestDev(TestCase):\n    hw_classification = HardwareClassification.CPU\n"
            "    def test_d(self, device): pass\n\ninstantiate_device_type_tests(TestDev, globals())\n",
            "test/test_uses_devices.py": HEADER + "from test_devices import TestDev\n",
        },
    )
    assert select(root, "CPU", "GENERIC", "--include-unclassified", "--format", "pytest").stdout == (
        # _Private is not public: `import *` leaves it out.
        "test/test_base.py::TestCpu\ntest/test_base.py::_Private\ntest/test_devices.py::TestDevCPU\n"
        "test/test_reuse.py::Reused\ntest/test_star.py::TestCpu\n"
    )
    tests = json.loads(select(root, "CPU", "--format", "json").stdout)["tests"]
    assert [(t["node_id"], t["imported_from"]) for t in tests if t["imported_from"]] == [
        ("test/test_reuse.py::Reused", "test/test_base.py"),
        ("test/test_star.py::TestCpu", "test/test_base.py"),
    ]


def test_known_generators_make_classes_hwlint_sees(tmp_path: Path) -> None:
    files = {
        "test/test_a.py": HEADER
        + CPU_CLASS
        + "\nTestCpuDynamic = make_test_cls_with_patches(TestCpu, 'Dynamic', '_dynamic')\n"
        + "globals()['x'] = make_test_cls_with_patches(TestCpu, 'Strict', '_strict')\n"
        + "class Template:\n    def test_t(self): pass\n"
        + "class CpuTests(TestCase):\n    hw_classification = HardwareClassification.CPU\n"
        + "copy_tests(Template, CpuTests, 'cpu')\n",
    }
    unknown = write_project(tmp_path / "unknown", files)
    result = select(unknown, "CPU", "--format", "pytest")
    assert result.stdout == "test/test_a.py\n" and result.stderr.count("\n") == 1
    generators = {"make_test_cls_with_patches": {"base": 0, "name": "{1}{0}"}, "copy_tests": {"tests-into": 1}}
    known = write_project(tmp_path / "known", files, {"generators": generators})
    result = select(known, "CPU", "--format", "pytest")
    assert (result.stdout, result.stderr) == (
        "test/test_a.py::TestCpu\ntest/test_a.py::CpuTests\n"
        "test/test_a.py::TestCpuDynamic\ntest/test_a.py::StrictTestCpu\n",
        "",
    )


def test_generators_setting_is_validated(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "proj", {"test/test_a.py": CPU_CLASS}, {"generators": {"f": {"name": "{x}", "base": 0}}}
    )
    result = run_cli("select", "CPU", cwd=root)
    assert result.returncode == 2
    assert result.stderr.endswith(
        "[tool.hwlint] generators.f.name '{x}': use {0}, {1}... for the function's arguments\n"
    )


# --runtime without torch: a plain unittest suite and this Python.
ENUM = "import enum\nclass HardwareClassification(enum.Enum):\n    GENERIC = 1\n    CPU = 2\n"


def test_runtime_survives_failing_crashing_and_hanging_modules(tmp_path: Path) -> None:
    plain = "import unittest\nfrom hw import HardwareClassification\n"
    root = write_project(
        tmp_path / "proj",
        {
            "test/hw.py": ENUM,
            "test/test_ok.py": plain
            + "class TestOk(unittest.TestCase):\n    hw_classification = HardwareClassification.CPU\n"
            "    def test_a(self): pass\n"
            "Made = type('Made', (TestOk,), {'hw_classification': HardwareClassification.GENERIC})\n",
            "test/test_missing.py": plain
            + "import not_installed\n"
            + CPU_CLASS.replace("TestCase", "unittest.TestCase"),
            "test/test_crash.py": plain
            + "import os\n"
            + CPU_CLASS.replace("TestCase", "unittest.TestCase")
            + "os.abort()\n",
            "test/test_hang.py": plain + "import time\ntime.sleep(600)\n",
            "test/test_exit.py": plain + "raise SystemExit(0)\n",
        },
    )
    result = select(
        root, "CPU", "GENERIC", "--runtime", "--python", sys.executable, "--timeout", "5", "--format", "pytest"
    )
    assert result.returncode == 0
    assert result.stdout == (
        "test/test_ok.py::Made\ntest/test_ok.py::TestOk\n"
        # Static fallback, whole: cannot be imported here.
        "test/test_crash.py\ntest/test_exit.py\ntest/test_hang.py\ntest/test_missing.py\n"
    )
    assert result.stderr == (
        "hwlint: warning: test/test_crash.py:1: uncertain, selected whole: the import crashed (killed by signal 6): "
        "Fatal Python error: Aborted\n"
        "hwlint: warning: test/test_exit.py:1: uncertain, selected whole: import failed: SystemExit: 0\n"
        "hwlint: warning: test/test_hang.py:1: uncertain, selected whole: importing it took longer than 5 s\n"
        "hwlint: warning: test/test_missing.py:1: uncertain, selected whole: import failed: ModuleNotFoundError: "
        "No module named 'not_installed'\n"
    )
    tests = json.loads(
        select(root, "CPU", "--runtime", "--python", sys.executable, "--timeout", "5", "--format", "json").stdout
    )["tests"]
    # The static view of a module that failed: its classes as hwlint sees them.
    assert [(t["path"], t["collected_as"], t["classification"]) for t in tests] == [
        ("test/test_crash.py", "TestCpu", "CPU"),
        ("test/test_missing.py", "TestCpu", "CPU"),
        ("test/test_ok.py", "TestOk", "CPU"),
    ]


def test_runtime_with_a_python_that_does_not_exist(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", {"test/test_a.py": CPU_CLASS})
    result = select(root, "CPU", "--runtime", "--python", str(tmp_path / "nope"))
    assert (result.returncode, result.stdout) == (0, "test/test_a.py\n")
    assert result.stderr.startswith("hwlint: warning: test/test_a.py:1: uncertain, selected whole: cannot run ")


def test_runtime_imports_package_modules_as_pytest_does(tmp_path: Path) -> None:
    """A test module inside a package (test/xpu/__init__.py) uses relative imports."""
    root = write_project(
        tmp_path / "proj",
        {
            "test/hw.py": ENUM,
            "test/xpu/__init__.py": "",
            "test/xpu/helpers.py": "import unittest\nfrom hw import HardwareClassification\n"
            "class Base(unittest.TestCase):\n    hw_classification = HardwareClassification.CPU\n",
            "test/xpu/test_rel.py": "from .helpers import Base\nclass TestRel(Base):\n    def test_a(self): pass\n",
        },
    )
    result = select(root, "CPU", "--runtime", "--python", sys.executable, "--format", "pytest")
    assert (result.stdout, result.stderr) == ("test/xpu/test_rel.py::TestRel\n", "")


def test_runtime_children_end_with_hwlint(tmp_path: Path) -> None:
    """SIGTERM to hwlint (a cancelled CI job) ends the module imports it runs, and what they started."""
    import signal
    import subprocess
    import time

    marker = tmp_path / "started"
    root = write_project(
        tmp_path / "proj",
        {
            "test/test_slow.py": f"import pathlib, subprocess, sys, time\n"
            f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
            f"pathlib.Path({str(marker)!r}).write_text(str(child.pid))\ntime.sleep(600)\n",
        },
    )
    hwlint = subprocess.Popen(
        [sys.executable, "-m", "hwlint", "select", "CPU", "--runtime", "--python", sys.executable],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not marker.exists() or not marker.read_text():
        assert time.monotonic() < deadline and hwlint.poll() is None
        time.sleep(0.1)
    hwlint.send_signal(signal.SIGTERM)
    assert hwlint.wait(timeout=30) == 128 + signal.SIGTERM
    grandchild = int(marker.read_text())
    deadline = time.monotonic() + 10
    while Path(f"/proc/{grandchild}").exists() and Path(f"/proc/{grandchild}/stat").read_text().split()[2] != "Z":
        assert time.monotonic() < deadline, "the module's own child outlived hwlint"
        time.sleep(0.1)


def test_class_decorators_that_return_the_class_leave_the_file_certain(tmp_path: Path) -> None:
    """skip* and requires* wrap unittest.skipIf: the class stays as it is. Any
    other class decorator may replace the class or make classes from it."""
    cuda = "    hw_classification = HardwareClassification.CUDA\n    def test_a(self): pass\n"
    root = write_project(
        tmp_path / "proj",
        {
            "test/test_cpu.py": HEADER + CPU_CLASS,
            "test/test_skips.py": HEADER + "@requires_triton()\n@skipIfRocm\nclass TestTriton(TestCase):\n" + cuda,
            "test/test_made.py": HEADER
            + "@parameterized_class(('x',), [(1,), (2,)])\nclass TestMade(TestCase):\n"
            + cuda,
        },
    )
    result = select(root, "CPU", "--device", "cpu")
    assert result.stdout == "test/test_cpu.py\ntest/test_made.py\n"
    assert result.stderr == (
        "hwlint: warning: test/test_made.py:4: uncertain, selected whole: @parameterized_class may "
        "replace TestMade, or make other classes from it\n"
    )
