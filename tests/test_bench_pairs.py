"""benchmarks/bench_pairs.py on a pair the test writes: a mixed class
before, the contributor's split after (one test renamed after the device);
the verdicts and figures are those of hwlint's real `fix --unsafe`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_pairs.py"

BEFORE = """\
import torch
from torch.testing._internal.common_utils import TestCase, run_tests


class TestStager(TestCase):
    def test_plain(self):
        self.assertEqual(torch.ones(2).sum().item(), 2)

    def test_cuda_copy(self):
        x = torch.ones(2, device="cuda")
        self.assertEqual(x.sum().item(), 2)


if __name__ == "__main__":
    run_tests()
"""

AFTER = """\
import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests


class TestStagerGeneric(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_plain(self):
        self.assertEqual(torch.ones(2).sum().item(), 2)


class TestStagerAccelerator(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_accelerator_copy(self, device):
        x = torch.ones(2, device=device)
        self.assertEqual(x.sum().item(), 2)


instantiate_device_type_tests(TestStagerAccelerator, globals(), except_for="cpu", allow_xpu=True)

if __name__ == "__main__":
    run_tests()
"""


def _pairs(root: Path) -> Path:
    pair = root / "01-area-test_stager"
    pair.mkdir(parents=True)
    (pair / "before.py").write_text(BEFORE)
    (pair / "after.py").write_text(AFTER)
    meta = {"repo_path": "test/test_stager.py", "pr": "none", "area": "area"}
    (pair / "meta.json").write_text(json.dumps(meta))
    return root


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=300)


def test_a_split_agrees_and_a_test_renamed_after_its_device_is_found(tmp_path: Path) -> None:
    out = tmp_path / "pairs.json"
    done = _run(_pairs(tmp_path / "pairs"), "--show", "--json", out)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    rows = report["pairs"][0]["rows"]
    assert [(r["cls"], r["contributor"], r["hwlint"], r["verdict"]) for r in rows] == [
        ("TestStagerGeneric", "GENERIC", "GENERIC", "agree"),
        ("TestStagerAccelerator", "ACCELERATOR", "ACCELERATOR", "agree"),
    ]
    # test_accelerator_copy is test_cuda_copy in hwlint's output: found with the device word hidden.
    place = rows[1]["places"][0]
    assert (place["test"], place["found_as"], place["classes"]) == (
        "test_accelerator_copy",
        "test_cuda_copy",
        ["TestStagerAccelerator"],
    )
    assert report["totals"]["agree"] == 2 and report["totals"]["classes"] == 2
    assert "test_accelerator_copy -> test_cuda_copy" not in done.stdout  # --show lists only what does not agree
    assert "1 pairs, 2 contributor classes scored: agree 2 (100.0%" in done.stdout


def test_no_report_from_fix_prints_no_figures(tmp_path: Path) -> None:
    broken = f"{sys.executable} -c 'import sys; sys.exit(3)'"
    done = _run(_pairs(tmp_path / "pairs"), "--hwlint", broken)
    assert done.returncode == 2
    assert "1 pair(s) got no report from `fix` (first: 01-area-test_stager: exit 3, no JSON): no figures" in done.stderr
    assert "agree" not in done.stdout.splitlines()[-1]


def test_a_missing_oracle_is_one_line(tmp_path: Path) -> None:
    done = _run(_pairs(tmp_path / "pairs"), "--oracle", tmp_path / "nowhere.py")
    assert done.returncode == 2
    assert done.stderr.strip() == f"--oracle {tmp_path / 'nowhere.py'}: no such file"


def test_a_test_two_classes_bind_is_judged_in_the_class_named_as_the_contributors() -> None:
    # PyTorch's export opinfo tests: `test_fake_export` is a CPU class's and
    # the fake-CUDA class's; the contributor renamed the latter `...Device`.
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import bench_pairs
    finally:
        sys.path.remove(str(SCRIPT.parent))
    info = bench_pairs.ClassInfo
    fixed = {
        "TestExportOpInfo": info("TestExportOpInfo", 1, "CPU", ["TestCase"], ["test_fake_export"]),
        "TestExportOnFakeCuda": info("TestExportOnFakeCuda", 9, None, ["TestCase"], ["test_fake_export"]),
    }
    contributor = info("TestExportOnFakeDevice", 9, "ACCELERATOR", ["TestCase"], ["test_fake_export"])
    row = bench_pairs.judge(contributor, fixed, {"TestExportOnFakeCuda": "only-for-several"})
    assert (row.hwlint, row.verdict) == ("-", "left")
    assert row.places[0].classes == ["TestExportOnFakeCuda"]


def test_a_class_with_nothing_to_judge_is_unscored_and_one_whose_tests_hwlint_lost_is_left(tmp_path: Path) -> None:
    # Its tests written by the contributor, or no test of its own: no answer to match.
    # Its tests in the before file yet not in hwlint's output: left.
    extra = (
        "\n\nclass TestStagerCUDA(TestCase):\n    hw_classification = HardwareClassification.CUDA\n\n"
        "    def test_pinned(self, device):\n        pass\n\n\n"
        "class TestStagerBase(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n"
    )
    pairs = _pairs(tmp_path / "pairs")
    after = pairs / "01-area-test_stager" / "after.py"
    after.write_text(AFTER.replace("\n\ninstantiate_device_type_tests", extra + "\n\ninstantiate_device_type_tests"))
    out = tmp_path / "pairs.json"
    done = _run(pairs, pairs, "--json", out)  # one folder given twice: its pairs counted twice
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text())["pairs"][0]["rows"]
    assert [(r["cls"], r["verdict"], r["why"]) for r in rows][2:] == [
        ("TestStagerCUDA", "unscored", "none of its tests is in the before file"),
        ("TestStagerBase", "unscored", "it defines no test of its own"),
    ]
    assert (
        "2 pairs, 4 contributor classes scored (4 more with nothing to judge: no test of their own, "
        "or none in the before file): agree 4 (100.0%" in done.stdout
    )
    assert "all 8 classes: agree 4 (50.0%), differ 0 (0.0%), left 4 (50.0%)" in done.stdout

    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import bench_pairs
    finally:
        sys.path.remove(str(SCRIPT.parent))
    info = bench_pairs.ClassInfo
    contributor = info("TestA", 1, "GENERIC", ["TestCase"], ["test_a"])
    row = bench_pairs.judge(contributor, {}, {}, frozenset({"test_a"}))
    assert (row.verdict, row.why) == ("left", "no test of it in hwlint's output")
