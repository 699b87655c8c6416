"""`hwlint select` against PyTorch's own runtime (the oracle).

A small suite with each pattern that makes test classes at run time is
imported with torch (>= 2.14, which has HardwareClassification,
get_hw_classification and the --hw-classification filter) and collected by
unittest's own loader. Static `select` must list every collected class
with the runtime's classification, or list its file as uncertain, and must
never name a class the runtime does not collect; `select --runtime` must
list exactly what the runtime collects.

torch is several GB: the Python that has it is named by HWLINT_TORCH_PYTHON
(.ci/run makes one). Without it these tests skip, saying so.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli, write_project

MEMBERS = ("GENERIC", "ACCELERATOR", "CPU", "CUDA", "MPS", "XPU")
SETTINGS: dict[str, Any] = {
    "include": ["test/**/test_*.py"],
    "generators": {
        "make_test_cls_with_patches": {"base": 0, "name": "{1}{0}"},
        "copy_tests": {"tests-into": 1},
    },
}

SUITE = {
    "test/common_gen.py": """\
import unittest


def make_test_cls_with_patches(cls, prefix, suffix):
    return type(prefix + cls.__name__, (cls,), {})


def copy_tests(source, target, suffix):
    for name in dir(source):
        if name.startswith("test"):
            setattr(target, f"{name}_{suffix}", getattr(source, name))


def generate_tests(prefix, mixin, tests, module):
    out = {}
    for base in tests:
        name = f"{prefix}{base.__name__}"
        out[name] = type(name, (mixin, base), {"__module__": module})
    return out


def expose_mixin_tests(mixin):
    def wrap(cls):
        for name in dir(mixin):
            if name.startswith("test"):
                setattr(cls, name, getattr(mixin, name))
        return cls
    return wrap
""",
    "test/test_decorated.py": """\
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase

from common_gen import expose_mixin_tests


class FooMixin:
    def test_foo(self, device):
        pass


@expose_mixin_tests(FooMixin)
class TestFoo(TestCase):
    hw_classification = HardwareClassification.CPU


instantiate_device_type_tests(TestFoo, globals(), only_for="cpu")
""",
    "test/test_imports.py": """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase

from test_plain import TestMath, MathMixin
from test_variable import TestThroughVariable as Reused


class TestLocal(MathMixin, TestCase):
    def test_local(self):
        pass
""",
    "test/test_made.py": """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase

from common_gen import copy_tests, make_test_cls_with_patches


class TestBase(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_base(self):
        pass


# A known generator (pyproject.toml): seen, not uncertain.
DynamicTestBase = make_test_cls_with_patches(TestBase, "Dynamic", "_dynamic")
globals()["StrictTestBase"] = make_test_cls_with_patches(TestBase, "Strict", "_strict")


class Template:
    def test_copied(self):
        pass


class CpuTests(TestCase):
    hw_classification = HardwareClassification.CPU


copy_tests(Template, CpuTests, "cpu")
""",
    "test/test_plain.py": """\
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests


class TestMath(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_add(self):
        self.assertEqual(1 + 1, 2)


class TestInherits(TestMath):
    def test_sub(self):
        self.assertEqual(2 - 1, 1)


class MathMixin:
    hw_classification = HardwareClassification.CPU

    def test_mul(self):
        pass


class TestOps(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_ones(self, device):
        pass


instantiate_device_type_tests(TestOps, globals())


class TestCpuOnly(TestCase):
    hw_classification = HardwareClassification.CPU

    def test_mkldnn(self, device):
        pass


instantiate_device_type_tests(TestCpuOnly, globals(), only_for="cpu")


class TestCudaOnly(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_cudnn(self, device):
        pass


instantiate_device_type_tests(TestCudaOnly, globals(), only_for="cuda")


class TestUnclassified(TestCase):
    def test_plain(self):
        pass


if __name__ == "__main__":
    run_tests()
""",
    "test/test_rpc_generated.py": """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase

from common_gen import generate_tests


class RpcTestMixin:
    def test_rpc(self):
        pass


class FaultyAgentTest:
    def test_faulty(self):
        pass


generated = generate_tests("TensorPipe", RpcTestMixin, [TestCase], __name__)
more = generate_tests("Faulty", FaultyAgentTest, [TestCase], __name__)
globals().update(generated)
globals().update(more)
for _cls in (*generated.values(), *more.values()):
    _cls.hw_classification = HardwareClassification.CPU
""",
    "test/test_setattr.py": """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class TestAdded(TestCase):
    hw_classification = HardwareClassification.GENERIC


def _make(n):
    def test(self):
        self.assertEqual(n, n)
    return test


for _n in range(3):
    setattr(TestAdded, f"test_{_n}", _make(_n))
""",
    "test/test_unknown_factory.py": """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase


def make_dynamic(cls):
    return type("Dynamic" + cls.__name__, (cls,), {"hw_classification": HardwareClassification.CPU})


class TestGeneric(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_g(self):
        pass


DynamicTestGeneric = make_dynamic(TestGeneric)
""",
    "test/test_variable.py": """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase

KIND = HardwareClassification.CPU


class TestThroughVariable(TestCase):
    hw_classification = KIND

    def test_a(self):
        pass
""",
}

# Collects like `python -m unittest`: loadTestsFromModule on each module,
# and get_hw_classification on each collected test's class; then names each
# class by the module attributes bound to it (what pytest node ids use).
ORACLE = r"""
import importlib, json, sys, unittest
sys.argv = [sys.argv[0]]
sys.path.insert(0, "test")
from torch.testing._internal.common_utils import get_hw_classification
out = {}
for name in sys.stdin.read().split():
    module = importlib.import_module(name)
    classes = set()
    pending = [unittest.defaultTestLoader.loadTestsFromModule(module)]
    while pending:
        item = pending.pop()
        if isinstance(item, unittest.TestSuite):
            pending.extend(item)
        else:
            classes.add(type(item))
    found = out.setdefault("test/" + name + ".py", [])
    for attr in dir(module):
        obj = getattr(module, attr)
        if isinstance(obj, type) and obj in classes:
            member = get_hw_classification(obj)
            found.append([attr, member.name if member is not None else None])
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("oracle") / "proj", SUITE, SETTINGS)


@pytest.fixture(scope="module")
def runtime(torch_python: str, suite: Path) -> dict[str, set[tuple[str, str | None]]]:
    """What unittest collects from each module with torch: {path: {(class, member)}}."""
    names = " ".join(sorted(Path(p).stem for p in SUITE if Path(p).name.startswith("test_")))
    done = subprocess.run(
        [torch_python, "-c", ORACLE], input=names, cwd=suite, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return {path: {(name, member) for name, member in classes} for path, classes in json.loads(done.stdout).items()}


def select_json(root: Path, *extra: str) -> dict[str, Any]:
    done = run_cli(
        "select", *MEMBERS, "--include-unclassified", "--device", "cpu", "--format", "json", *extra, cwd=root
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_torch_has_what_the_oracle_needs(torch_python: str) -> None:
    probe = (
        "import sys; sys.argv = sys.argv[:1]\n"
        "import inspect, torch\n"
        "from torch.testing._internal import common_utils as cu\n"
        "print(torch.__version__, sorted(cu.HardwareClassification.__members__), callable(cu.get_hw_classification),"
        " '--hw-classification' in inspect.getsource(cu))\n"
    )
    done = subprocess.run([torch_python, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    version, *rest = done.stdout.split(" ", 1)
    assert tuple(int(x) for x in re.findall(r"\d+", version)[:2]) >= (2, 14), version
    assert rest == ["['ACCELERATOR', 'CPU', 'CUDA', 'GENERIC', 'MPS', 'XPU'] True True\n"]


def test_static_select_never_drops_a_class_the_runtime_collects(suite: Path, runtime: dict[str, Any]) -> None:
    static = select_json(suite)
    listed = {(t["path"], t["collected_as"]): t["classification"] for t in static["tests"]}
    uncertain = {u["path"]: {r["kind"] for r in u["reasons"]} for u in static["uncertain"]}
    for path, classes in runtime.items():
        for name, member in classes:
            assert (path, name) in listed or path in uncertain, f"{path}::{name} ({member}) is dropped"
            if path not in uncertain:
                assert listed[(path, name)] == member, f"{path}::{name}"
    # It never names a class the runtime does not collect (MathMixin, RpcTestMixin,
    # Template: test methods, but no TestCase), nor one made for a device this runner lacks.
    for (path, name), _ in listed.items():
        if path not in uncertain:
            assert name in {n for n, _ in runtime[path]}, f"{path}::{name} is not collected"
    # Each dynamic pattern makes its file uncertain, with its reason; the known
    # generators (settings) and plain files are seen.
    assert uncertain == {
        "test/test_decorated.py": {"methods-by-decorator"},
        "test/test_imports.py": {"classification-variable"},
        "test/test_rpc_generated.py": {"published", "classification-variable"},
        "test/test_setattr.py": {"methods-by-setattr"},
        "test/test_unknown_factory.py": {"created-by-call"},
        "test/test_variable.py": {"classification-variable"},
    }
    # Classes the runtime makes or copies tests into, seen through `generators`;
    # classes imported into a module, listed there.
    assert {k: v for k, v in listed.items() if k[0] in ("test/test_made.py", "test/test_imports.py")} == {
        ("test/test_made.py", "TestBase"): "GENERIC",
        ("test/test_made.py", "DynamicTestBase"): "GENERIC",
        ("test/test_made.py", "StrictTestBase"): "GENERIC",
        ("test/test_made.py", "CpuTests"): "CPU",
        ("test/test_imports.py", "TestLocal"): "CPU",
        ("test/test_imports.py", "TestMath"): "GENERIC",
        ("test/test_imports.py", "Reused"): None,  # through a variable: the file is uncertain
    }


def test_a_cpu_runner_gets_every_cpu_test(suite: Path, runtime: dict[str, Any]) -> None:
    """`hwlint select GENERIC CPU --format files` holds every file where the runtime collects a GENERIC or CPU class."""
    files = set(run_cli("select", "GENERIC", "CPU", cwd=suite).stdout.split())
    needed = {path for path, classes in runtime.items() if any(m in ("GENERIC", "CPU") for _, m in classes)}
    assert needed <= files, needed - files


def test_runtime_select_lists_exactly_what_the_runtime_collects(
    suite: Path, torch_python: str, runtime: dict[str, Any]
) -> None:
    found = select_json(suite, "--runtime", "--python", torch_python)
    assert found["uncertain"] == []
    listed: dict[str, set[tuple[str, str | None]]] = {}
    for t in found["tests"]:
        listed.setdefault(t["path"], set()).add((t["collected_as"], t["classification"]))
    assert listed == {path: classes for path, classes in runtime.items() if classes}
    # A class made by instantiate_device_type_tests keeps the generic class's name.
    plain = {t["collected_as"]: t for t in found["tests"] if t["path"] == "test/test_plain.py"}
    assert (plain["TestOpsCPU"]["class_name"], plain["TestOpsCPU"]["instantiated"]) == ("TestOps", True)
    # An imported class names the file that defines it, as the static view does.
    imports = {t["collected_as"]: t["imported_from"] for t in found["tests"] if t["path"] == "test/test_imports.py"}
    assert imports == {"TestMath": "test/test_plain.py", "Reused": "test/test_variable.py", "TestLocal": None}


def test_pytorch_filter_runs_what_select_chose(suite: Path, torch_python: str) -> None:
    """PyTorch's own `--hw-classification CPU` on a file runs the classes `select CPU` names in it."""
    # PyTorch's run_tests writes JUnit XML (and needs xmlrunner) whenever `CI` is set, as it is on CI machines;
    # the filter is what is under test here, so run the file the way a developer does.
    env = {name: value for name, value in os.environ.items() if name != "CI"}
    done = subprocess.run(
        [torch_python, "test/test_plain.py", "--hw-classification", "CPU", "-v"],
        cwd=suite,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    ran = set(re.findall(r"\(__main__\.(\w+)\.", done.stderr))
    chosen = run_cli("select", "CPU", "--format", "pytest", cwd=suite).stdout.split()
    assert (
        ran == {node.split("::")[1] for node in chosen if node.startswith("test/test_plain.py::")} == {"TestCpuOnlyCPU"}
    )


# -- runners of a device this machine lacks ---------------------------------
#
# A CUDA or XPU runner collects classes a CPU machine does not make
# (TestOpsCUDA). PyTorch lets a project add device test bases through
# TORCH_TEST_DEVICES; the oracle below does that for CUDA with a base whose
# setUpClass skips (collection only), and for XPU sets what a machine with an
# XPU has (TEST_XPU, so XPUTestBase joins the calls that pass allow_xpu).
# `select --runtime` for a runner of that device must list what the oracle
# collects, and the static `select --runner` the same classes.

DEVICE_RUNNERS = """
[[tool.hwlint.runners]]
name = "linux-cuda"
members = ["ACCELERATOR", "CUDA"]
device = "cuda"
shards = 2

[[tool.hwlint.runners]]
name = "linux-xpu"
members = ["ACCELERATOR", "XPU"]
device = "xpu"
"""

DEVICE_SUITE = {
    "test/test_devices.py": """\
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class TestOps(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_ones(self, device):
        pass


instantiate_device_type_tests(TestOps, globals())


class TestOpsWithXpu(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_zeros(self, device):
        pass

    def test_full(self, device):
        pass


instantiate_device_type_tests(TestOpsWithXpu, globals(), allow_xpu=True)


class TestNotOnCuda(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_sparse(self, device):
        pass


instantiate_device_type_tests(TestNotOnCuda, globals(), except_for="cuda", allow_xpu=True)


class TestCudaOnly(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_cudnn(self, device):
        pass


instantiate_device_type_tests(TestCudaOnly, globals(), only_for="cuda")


class TestXpuOnly(TestCase):
    hw_classification = HardwareClassification.XPU

    def test_onednn(self, device):
        pass


instantiate_device_type_tests(TestXpuOnly, globals(), only_for="xpu", allow_xpu=True)


class TestCudaStreams(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_stream(self):
        pass


class TestMath(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_add(self):
        pass
""",
}

FAKE_CUDA = """\
import unittest


class CollectOnlyCUDA(DeviceTypeTestBase):  # noqa: F821 (from common_device_type's globals)
    device_type = "cuda"

    @classmethod
    def setUpClass(cls):
        raise unittest.SkipTest("collection only")


TEST_CLASS = CollectOnlyCUDA
"""

AS_ON_AN_XPU_MACHINE = r"""
import unittest
import torch.testing._internal.common_device_type as cdt


class CollectOnlyXPU(cdt.XPUTestBase):
    @classmethod
    def get_primary_device(cls):
        return "xpu:0"

    @classmethod
    def setUpClass(cls):
        raise unittest.SkipTest("collection only")


cdt.XPUTestBase = CollectOnlyXPU
cdt.TEST_XPU = True
"""


@pytest.fixture(scope="module")
def device_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(
        tmp_path_factory.mktemp("devices") / "proj",
        {**DEVICE_SUITE, "fake_cuda.py": FAKE_CUDA},
        {"include": ["test/**/test_*.py"]},
    )
    with (root / "pyproject.toml").open("a") as settings:
        settings.write(DEVICE_RUNNERS)
    return root


def device_oracle(torch_python: str, root: Path, device: str) -> set[tuple[str, str | None]]:
    """(class, member) of every class unittest collects from test_devices.py
    as a runner of `device` would."""
    env = dict(os.environ)
    prelude = ""
    if device == "cuda":
        env["TORCH_TEST_DEVICES"] = str(root / "fake_cuda.py")
    else:
        prelude = AS_ON_AN_XPU_MACHINE
    done = subprocess.run(
        [torch_python, "-c", prelude + ORACLE],
        input="test_devices",
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return {(name, member) for name, member in json.loads(done.stdout)["test/test_devices.py"]}


def runner_view(collected: set[tuple[str, str | None]], members: set[str], device: str) -> set[str]:
    """What a runner with `members` and `device` runs of what was collected:
    its members, and of the per-device classes only its device's."""
    others = tuple(d.upper() for d in ("cpu", "cuda", "xpu", "mps") if d != device)
    return {name for name, member in collected if member in members and not name.endswith(others)}


@pytest.mark.parametrize(
    ("runner", "device", "members", "expected"),
    [
        (
            "linux-cuda",
            "cuda",
            {"ACCELERATOR", "CUDA"},
            {"TestOpsCUDA", "TestOpsWithXpuCUDA", "TestCudaOnlyCUDA", "TestCudaStreams"},
        ),
        ("linux-xpu", "xpu", {"ACCELERATOR", "XPU"}, {"TestOpsWithXpuXPU", "TestNotOnCudaXPU", "TestXpuOnlyXPU"}),
    ],
)
def test_a_runner_of_a_missing_device_gets_what_it_collects(
    device_suite: Path, torch_python: str, runner: str, device: str, members: set[str], expected: set[str]
) -> None:
    collected = device_oracle(torch_python, device_suite, device)
    # The oracle made the device's classes although this machine lacks the device.
    assert runner_view(collected, members, device) == expected
    done = run_cli(
        "select", "--runner", runner, "--runtime", "--python", torch_python, "--format", "json", cwd=device_suite
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["uncertain"] == [] and found["device"] == device
    assert {t["collected_as"] for t in found["tests"]} == expected
    assert all(t["classification"] in members for t in found["tests"])
    # The static view names the same classes, without importing anything.
    static = run_cli("select", "--runner", runner, "--format", "pytest", cwd=device_suite)
    assert static.returncode == 0, static.stderr
    assert {line.split("::")[1] for line in static.stdout.split()} == expected


def test_a_runtime_matrix_partitions_what_each_runner_collects(device_suite: Path, torch_python: str) -> None:
    done = run_cli("select", "--matrix", "--runtime", "--python", torch_python, cwd=device_suite)
    assert done.returncode == 0, done.stderr
    entries = json.loads(done.stdout)["include"]
    assert [(e["runner"], e["shard"]) for e in entries] == [("linux-cuda", 1), ("linux-cuda", 2), ("linux-xpu", 1)]
    cuda = [test for e in entries[:2] for test in e["tests"]]
    assert sorted(cuda) == sorted(
        f"test/test_devices.py::{name}"
        for name in ("TestOpsCUDA", "TestOpsWithXpuCUDA", "TestCudaOnlyCUDA", "TestCudaStreams")
    )
    # Balanced by test methods: TestOpsWithXpuCUDA has 2, the others 1 each.
    assert sorted(len(e["tests"]) for e in entries[:2]) == [2, 2]
