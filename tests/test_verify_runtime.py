"""`hwlint fix --verify-runtime`: the tests PyTorch collects from each
changed module, before and after the fix, mapped through the renames.

The mapping (hwlint.fix.verify_runtime.compare) is tested on collected
records; the collection itself with torch (>= 2.14) in the Python named by
HWLINT_TORCH_PYTHON, on small generated modules, including rewrites that
rename (instantiated per device, a class moved) and a broken one that loses
a test. Without that Python those tests skip, saying so.
"""

from __future__ import annotations

import json
from pathlib import Path

from hwlint.fix.plan_records import ClassMove
from hwlint.fix.result import FileResult
from hwlint.fix.verify_runtime import RuntimeCheck, compare, verify_runtime
from hwlint.infra.runtime import RuntimeClass, RuntimeModule, collect_module
from tests.conftest import run_cli, write_project


def _cls(
    name: str, *tests: str, generic: str | None = None, device: str | None = None, skipped: tuple[str, ...] = ()
) -> RuntimeClass:
    return RuntimeClass(name, None, True, generic, "test/test_x.py", device, tests, skipped)


# -- the mapping -------------------------------------------------------------


def test_unchanged_tests_map_to_themselves() -> None:
    before = RuntimeModule("m", (_cls("TestA", "test_a", "test_b"),))
    check = compare("m", before, before)
    assert (check.before, check.after, check.renamed, check.per_device, check.added, check.lost) == (
        2,
        2,
        0,
        (),
        (),
        (),
    )


def test_instantiated_per_device_is_a_rename_with_per_device_tests() -> None:
    before = RuntimeModule("m", (_cls("TestA", "test_a", "test_b"),))
    after = RuntimeModule(
        "m",
        (
            _cls("TestACPU", "test_a_cpu", "test_b_cpu_float32", "test_b_cpu_float64", generic="TestA", device="cpu"),
            _cls("TestACUDA", "test_a_cuda", "test_b_cuda_float32", generic="TestA", device="cuda"),
        ),
    )
    check = compare("m", before, after)
    assert (check.renamed, check.lost, check.added) == (2, (), ())
    assert check.per_device == (
        "TestACPU.test_a_cpu",
        "TestACPU.test_b_cpu_float32",
        "TestACPU.test_b_cpu_float64",
        "TestACUDA.test_a_cuda",
        "TestACUDA.test_b_cuda_float32",
    )


def test_a_device_suffix_belongs_to_its_own_test_only() -> None:
    # test_a_extra_cuda is test_a_extra's, not test_a's: test_a is lost.
    before = RuntimeModule("m", (_cls("TestA", "test_a", "test_a_extra"),))
    after = RuntimeModule("m", (_cls("TestACUDA", "test_a_extra_cuda", generic="TestA", device="cuda"),))
    assert compare("m", before, after).lost == ("TestA.test_a",)


def test_moves_map_tests_to_the_new_class_and_its_device_classes() -> None:
    before = RuntimeModule(
        "m",
        (_cls("TestMixed", "test_a", "test_gpu"), _cls("TestOldCUDA", "test_c_cuda", generic="TestOld", device="cuda")),
    )
    after = RuntimeModule(
        "m",
        (
            _cls("TestMixed", "test_a"),
            _cls("TestMixedCUDA", "test_gpu"),
            _cls("TestNewCUDA", "test_c_cuda", generic="TestNew", device="cuda"),
        ),
    )
    moves = (ClassMove("TestMixed", "TestMixedCUDA"), ClassMove("TestOld", "TestNew"))
    check = compare("m", before, after, moves)
    assert (check.renamed, check.lost) == (2, ())
    without = compare("m", before, after)
    assert without.lost == ("TestMixed.test_gpu", "TestOldCUDA.test_c_cuda")


def test_a_moved_one_device_test_is_not_lost_where_its_decorator_skipped_it() -> None:
    # test_b was @onlyCPU: collected (skipped) in TestACUDA before; now only in TestACPUOnlyCPU.
    before = RuntimeModule(
        "m",
        (
            _cls("TestACPU", "test_a_cpu", "test_b_cpu", generic="TestA", device="cpu"),
            _cls("TestACUDA", "test_a_cuda", "test_b_cuda", generic="TestA", device="cuda"),
        ),
    )
    after = RuntimeModule(
        "m",
        (
            _cls("TestACPU", "test_a_cpu", generic="TestA", device="cpu"),
            _cls("TestACUDA", "test_a_cuda", generic="TestA", device="cuda"),
            _cls("TestACPUOnlyCPU", "test_b_cpu", generic="TestACPUOnly", device="cpu"),
        ),
    )
    check = compare("m", before, after, (ClassMove("TestA", "TestACPUOnly", ("test_b",), ("cpu",)),))
    assert (check.renamed, check.lost, check.narrowed) == (1, (), ("TestACUDA.test_b_cuda",))
    # Parameters before the device, a dtype after: still test_b's (PyTorch's names; ipex's test_sparse.py).
    param = RuntimeModule(
        "m", (_cls("TestACUDA", "test_a_cuda", "test_b_grad_False_cuda_float32", generic="TestA", device="cuda"),)
    )
    moved = (ClassMove("TestA", "TestACPUOnly", ("test_b",), ("cpu",)),)
    assert compare(
        "m", param, RuntimeModule("m", (_cls("TestACUDA", "test_a_cuda", generic="TestA", device="cuda"),)), moved
    ).narrowed == ("TestACUDA.test_b_grad_False_cuda_float32",)
    # The same tests gone, without the move's devices, are lost.
    assert compare("m", before, after, (ClassMove("TestA", "TestACPUOnly"),)).lost == ("TestACUDA.test_b_cuda",)


def test_a_module_that_does_not_import_before_is_skipped_and_one_broken_after_loses_all() -> None:
    broken = RuntimeModule("m", error="import failed: ModuleNotFoundError: No module named 'x'")
    assert compare("m", broken, broken).skipped == "import failed: ModuleNotFoundError: No module named 'x'"
    check = compare("m", RuntimeModule("m", (_cls("TestA", "test_a"),)), broken)
    assert (check.lost, check.error) == (("TestA.test_a",), broken.error)


# -- with torch --------------------------------------------------------------

PLAIN = """\
import torch
from torch.testing._internal.common_utils import TestCase, run_tests


class TestOps(TestCase):
    def test_add(self):
        self.assertEqual(torch.ones(1) + 1, torch.full((1,), 2.0))

    def test_mul(self):
        pass


if __name__ == "__main__":
    run_tests()
"""

# TestOps made device-generic: what a class migration writes.
INSTANTIATED = """\
import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase, run_tests


class TestOps(TestCase):
    def test_add(self, device):
        self.assertEqual(torch.ones(1, device=device) + 1, torch.full((1,), 2.0, device=device))

    def test_mul(self, device):
        pass


instantiate_device_type_tests(TestOps, globals(), allow_xpu=True)

if __name__ == "__main__":
    run_tests()
"""

# A broken rewrite: test_mul is gone.
BROKEN = PLAIN.replace("    def test_mul(self):\n        pass\n", "")


def _result(path: str, before: str, after: str, moves: tuple[ClassMove, ...] = ()) -> FileResult:
    return FileResult(path, before.encode(), after.encode(), [], moves=moves)


def test_per_device_renames_with_torch(tmp_path: Path, torch_python: str) -> None:
    root = write_project(tmp_path / "p", {"test/test_ops.py": PLAIN})
    check = verify_runtime(
        root,
        [_result("test/test_ops.py", PLAIN, INSTANTIATED)],
        python=torch_python,
        attribute="hw_classification",
        timeout=300,
        jobs=1,
    )
    (module,) = check.modules
    assert (module.skipped, module.error, module.before, module.renamed, module.lost, module.added) == (
        None,
        None,
        2,
        2,
        (),
        (),
    )
    # CPU natively; CUDA and XPU (allow_xpu) from the collection-only bases; MPS needs allow_mps.
    assert module.per_device == tuple(
        sorted(f"TestOps{d.upper()}.test_{t}_{d}" for d in ("cpu", "cuda", "xpu") for t in ("add", "mul"))
    )
    assert module.after == 6
    # Nothing was written: the module on disk is the original.
    assert (root / "test/test_ops.py").read_text() == PLAIN


def test_a_broken_rewrite_loses_a_test_with_torch(tmp_path: Path, torch_python: str) -> None:
    root = write_project(tmp_path / "p", {"test/test_ops.py": PLAIN})
    check = verify_runtime(
        root,
        [_result("test/test_ops.py", PLAIN, BROKEN)],
        python=torch_python,
        attribute="hw_classification",
        timeout=300,
        jobs=1,
    )
    assert check.lost == 1 and check.modules[0].lost == ("TestOps.test_mul",)
    assert "  LOST test/test_ops.py::TestOps.test_mul" in check.summary()
    # The broken text left no bytecode behind for the file's own import.
    plain = collect_module(root, "test/test_ops.py", python=torch_python, attribute="hw_classification", timeout=300)
    assert [(c.name, c.tests) for c in plain.classes] == [("TestOps", ("test_add", "test_mul"))]


def test_a_split_class_with_its_move_loses_nothing_with_torch(tmp_path: Path, torch_python: str) -> None:
    split = PLAIN.replace("    def test_mul(self):\n        pass\n", "").replace(
        "\n\nif __name__", "\n\nclass TestOpsMul(TestCase):\n    def test_mul(self):\n        pass\n\n\nif __name__"
    )
    root = write_project(tmp_path / "p", {"test/test_ops.py": PLAIN})
    results = [_result("test/test_ops.py", PLAIN, split, (ClassMove("TestOps", "TestOpsMul"),))]
    check = verify_runtime(root, results, python=torch_python, attribute="hw_classification", timeout=300, jobs=1)
    assert (check.modules[0].renamed, check.lost) == (1, 0)


def test_fix_verify_runtime_command(tmp_path: Path, torch_python: str) -> None:
    files = {
        # A safe GENERIC fix: the declaration renames nothing.
        "test/test_ops.py": PLAIN,
        # Does not import on CPU here: skipped, with the reason, and still fixed.
        "test/test_missing.py": "import not_installed_anywhere\n" + PLAIN,
        # In a package, with a relative import: imported as pytest does.
        "test/pkg/__init__.py": "",
        "test/pkg/helpers.py": "VALUE = 1\n",
        "test/pkg/test_rel.py": PLAIN.replace("import torch\n", "import torch\nfrom .helpers import VALUE\n"),
    }
    root = write_project(tmp_path / "p", files)
    proc = run_cli("fix", "--verify-runtime", "--python", torch_python, "--format", "json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)["verify_runtime"]
    assert {
        k: data[k]
        for k in (
            "modules",
            "checked",
            "skipped",
            "tests_before",
            "tests_after",
            "renamed",
            "per_device",
            "added",
            "lost",
        )
    } == {
        "modules": 3,
        "checked": 2,
        "skipped": 1,
        "tests_before": 4,
        "tests_after": 4,
        "renamed": 0,
        "per_device": 0,
        "added": 0,
        "lost": 0,
    }
    assert data["skipped_modules"] == [
        {
            "path": "test/test_missing.py",
            "reason": "import failed: ModuleNotFoundError: No module named 'not_installed_anywhere'",
        }
    ]
    assert (
        "Runtime check (" + torch_python + "): 2 of 3 changed modules collected before and after, 1 skipped; "
        "4 tests before, 4 after: 0 renamed, 0 newly per-device, 0 new, 0 lost."
    ) in proc.stderr
    for path in ("test/test_ops.py", "test/test_missing.py", "test/pkg/test_rel.py"):
        assert "hw_classification = HardwareClassification.GENERIC" in (root / path).read_text()


def test_a_file_whose_fix_loses_tests_is_withheld() -> None:
    from hwlint.fix.plan_records import ClassFix
    from hwlint.fix.result import FixReport
    from hwlint.fix.verify_runtime import ModuleCheck, RuntimeCheck, withhold

    fix = ClassFix("TestOps", 0, "GENERIC", "safe", "evidence", 5)
    losing = FileResult("test/test_a.py", b"a", b"b", [fix])
    fine = FileResult("test/test_b.py", b"a", b"b", [fix._replace(line=7)])
    report = FixReport(files=[losing, fine])
    check = RuntimeCheck(
        "python",
        (
            ModuleCheck("test/test_a.py", before=2, after=1, lost=("TestOps.test_mul",)),
            ModuleCheck("test/test_b.py", before=1, after=1),
        ),
    )
    withhold(report, check)
    assert report.files == [fine]
    (left,) = report.unfixed
    assert (left.path, left.line, left.kind, left.reason) == (
        "test/test_a.py",
        5,
        "lost-tests",
        "not written: after the fix the runtime does not collect 1 of its tests: TestOps.test_mul",
    )
    assert left.group == "not written: the runtime collects fewer tests after the fix (--verify-runtime)"


def test_a_test_that_ran_on_cpu_runners_and_is_now_only_in_other_devices_classes_is_off_cpu() -> None:
    # test_cpu ran on CPU runners; test_gpu was skipped there at import.
    before = RuntimeModule("m", (_cls("TestA", "test_cpu", "test_gpu", skipped=("test_gpu",)),))
    cuda_only = RuntimeModule(
        "m", (_cls("TestACUDA", "test_cpu_cuda", "test_gpu_cuda", generic="TestA", device="cuda"),)
    )
    check = compare("m", before, cuda_only)
    assert (check.lost, check.off_cpu, check.renamed) == ((), ("TestA.test_cpu",), 2)
    # Split: the device-free test stays in a class every runner collects.
    split = RuntimeModule(
        "m",
        (
            _cls("TestAGeneric", "test_cpu"),
            _cls("TestACUDACUDA", "test_gpu_cuda", generic="TestACUDA", device="cuda"),
        ),
    )
    moves = (ClassMove("TestA", "TestAGeneric", ("test_cpu",)), ClassMove("TestA", "TestACUDA", ("test_gpu",)))
    assert compare("m", before, split, moves).off_cpu == ()
    # Still collected for the CPU too: not off CPU.
    everywhere = RuntimeModule(
        "m",
        (
            _cls("TestACPU", "test_cpu_cpu", "test_gpu_cpu", generic="TestA", device="cpu"),
            _cls("TestACUDA", "test_cpu_cuda", "test_gpu_cuda", generic="TestA", device="cuda"),
        ),
    )
    assert compare("m", before, everywhere).off_cpu == ()
    summary = RuntimeCheck("python", (check,)).summary()
    assert summary[0].endswith("; 1 no longer collected on CPU runners, where they ran before (no skip at import).")
    assert summary[1:] == ["  OFF CPU m::TestA.test_cpu"]


def test_the_collection_says_which_tests_a_skip_decorator_skips_here(tmp_path: Path) -> None:
    import sys

    source = (
        "import unittest\n\n\nclass TestA(unittest.TestCase):\n    def test_runs(self):\n        pass\n\n"
        '    @unittest.skipIf(True, "no GPU")\n    def test_skipped(self):\n        pass\n\n\n'
        '@unittest.skip("no GPU")\nclass TestB(unittest.TestCase):\n    def test_b(self):\n        pass\n'
    )
    root = write_project(tmp_path / "p", {"test/test_s.py": source})
    module = collect_module(root, "test/test_s.py", python=sys.executable, attribute="hw_classification", timeout=60)
    assert [(c.name, c.tests, c.skipped) for c in module.classes] == [
        ("TestA", ("test_runs", "test_skipped"), ("test_skipped",)),
        ("TestB", ("test_b",), ("test_b",)),
    ]


def test_the_fork_server_survives_what_modules_do(tmp_path: Path) -> None:
    """Each module is collected in a fork of one process (no torch needed
    for unittest modules): printing at import, hanging past the timeout,
    crashing, all leave the next module's collection as it should be."""
    import sys

    from hwlint.infra.runtime import collect_served

    case = "import unittest\n\n\nclass TestA(unittest.TestCase):\n    def test_a(self):\n        pass\n"
    files = {
        "test/test_prints.py": "print('hello from the module')\n" + case,
        "test/test_hangs.py": "import time\ntime.sleep(60)\n" + case,
        "test/test_crashes.py": "import os\nos.abort()\n" + case,
        "test/test_fine.py": case,
    }
    root = write_project(tmp_path / "p", files)
    found = collect_served(
        root,
        list(files),
        python=sys.executable,
        attribute="hw_classification",
        timeout=2,
        jobs=1,
        sources={"test/test_fine.py": (case + "    def test_b(self):\n        pass\n").encode()},
    )
    assert [c.tests for c in found["test/test_prints.py"].classes] == [("test_a",)]
    assert found["test/test_hangs.py"].error == "importing it took longer than 2 s"
    assert (found["test/test_crashes.py"].error or "").startswith("the import crashed (killed by signal 6)")
    # From the text given, not the file.
    assert [c.tests for c in found["test/test_fine.py"].classes] == [("test_a", "test_b")]


MOVABLE = """\
import torch
from torch.testing._internal.common_device_type import (
    instantiate_device_type_tests,
    onlyCPU,
    onlyCUDA,
    onlyNativeDeviceTypes,
)
from torch.testing._internal.common_utils import TestCase, run_tests


class TestFoo(TestCase):
    def setUp(self):
        super().setUp()
        self.k = 3

    def test_a(self, device):
        self.assertEqual(self.k, 3)

    @onlyCPU
    def test_b(self, device):
        self.assertEqual(self.k, 3)

    @onlyNativeDeviceTypes
    def test_c(self, device):
        self.assertEqual(torch.ones(2, device=device).sum().item(), 2)

    @onlyCUDA
    def test_d(self, device):
        torch.cuda.synchronize()


instantiate_device_type_tests(TestFoo, globals())

if __name__ == "__main__":
    run_tests()
"""


def test_moving_one_device_tests_loses_none_with_torch(tmp_path: Path, torch_python: str) -> None:
    root = write_project(tmp_path / "p", {"test/test_foo.py": MOVABLE})
    proc = run_cli("fix", "--unsafe", "--verify-runtime", "--python", torch_python, "--format", "json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    check = data["verify_runtime"]
    # Before: TestFooCPU and TestFooCUDA (no allow_xpu/allow_mps), 4 tests each. After: test_a in both,
    # test_b in TestFooCPUOnlyCPU, test_c in TestFooNativeCPU and TestFooNativeCUDA, test_d in
    # TestFooCUDAOnlyCUDA; test_b_cuda and test_d_cpu, which their decorators skipped, are not collected.
    assert {k: check[k] for k in ("tests_before", "tests_after", "renamed", "lost", "narrowed")} == {
        "tests_before": 8,
        "tests_after": 6,
        "renamed": 4,
        "lost": 0,
        "narrowed": 2,
    }
    assert data["moves"] == [
        {"path": "test/test_foo.py", "old": "TestFoo", "new": new}
        for new in ("TestFooCPUOnly", "TestFooNative", "TestFooCUDAOnly")
    ]
    text = (root / "test/test_foo.py").read_text()
    assert "    onlyNativeDeviceTypes,\n" not in text
    assert text.endswith(
        "instantiate_device_type_tests(TestFoo, globals())\n"
        'instantiate_device_type_tests(TestFooCPUOnly, globals(), only_for="cpu")\n'
        'instantiate_device_type_tests(TestFooNative, globals(), except_for=("hpu", "xla"))\n'
        'instantiate_device_type_tests(TestFooCUDAOnly, globals(), only_for="cuda")\n'
        '\nif __name__ == "__main__":\n    run_tests()\n'
    )
