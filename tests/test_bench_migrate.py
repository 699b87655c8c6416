"""benchmarks/bench_migrate.py on small generated trees: the figures it
reports are those of the trees the test wrote."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_migrate.py"

IMPORTS = "from torch.testing._internal.common_utils import TestCase\n"
PLAIN = IMPORTS + "\n\nclass TestPlain{i}(TestCase):\n    def test_a(self):\n        pass\n"
CUDA = (
    "from torch.testing._internal.common_device_type import onlyCUDA\n"
    + IMPORTS
    + "\n\nclass TestCuda(TestCase):\n    @onlyCUDA\n    def test_a(self):\n        pass\n"
)
DEVICE = IMPORTS + "\n\nclass TestDev(TestCase):\n    def test_a(self, device):\n        pass\n"
# Two accelerators in one class: no fix, and no migration splits it yet.
MIXED = (
    "import torch\n" + IMPORTS + "\n\nclass TestMixed(TestCase):\n    def test_a(self):\n"
    "        if torch.cuda.is_available():\n            torch.cuda.synchronize()\n"
    "        if torch.xpu.is_available():\n            torch.xpu.synchronize()\n\n"
    "    def test_b(self):\n        pass\n"
)


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=300)


def test_figures_of_two_trees(tmp_path: Path) -> None:
    # One tree with a GENERIC class (safe), a CUDA-only one (unsafe), a class
    # whose tests take a device (an unsafe migration drops the unused
    # parameter) and one using two accelerators (left in both runs); another
    # with four GENERIC files.
    first = _tree(
        tmp_path / "first",
        {
            "test_plain.py": PLAIN.format(i=0),
            "sub/test_cuda.py": CUDA,
            "test_dev.py": DEVICE,
            "test_mixed.py": MIXED,
            "helper.py": "X = 1\n",
        },
    )
    second = _tree(tmp_path / "second", {f"test_{c}.py": PLAIN.format(i=i) for i, c in enumerate("abcd", start=1)})
    figures = tmp_path / "figures.json"
    proc = _run(first, second, "--json", figures)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # 1 of 8 files left after fix --unsafe: over 10%
    data = json.loads(figures.read_text())
    assert (data["test_files"], data["listed_at_init"]) == (8, 8)
    safe, unsafe = data["runs"]["safe"], data["runs"]["unsafe"]
    assert (safe["listed"], safe["entries_left_share"], safe["classified"]) == (3, 0.375, {"GENERIC": 5})
    assert safe["unfixed_by_reason"] == {
        "unsafe CUDA (one-device)": 1,
        "mixed-accelerator-use": 1,
        "device-not-instantiated": 1,
    }
    assert (unsafe["listed"], unsafe["entries_left_share"], unsafe["classified"]) == (
        1,
        0.125,
        # TestCuda's one test names no device but in its @onlyCUDA: made device-generic (@onlyAccelerator).
        {"ACCELERATOR": 1, "GENERIC": 6},
    )
    assert unsafe["unfixed_by_reason"] == {"mixed-accelerator-use": 1}
    for run in (safe, unsafe):
        assert (run["over_budget_files"], run["check_exit"]) == (0, 0)
    assert data["targets"] == {
        "safe: at most 40% of the listed files left": True,
        "safe: no file over budget": True,
        "safe: check passes": True,
        "unsafe: at most 10% of the listed files left": False,
        "unsafe: no file over budget": True,
        "unsafe: check passes": True,
    }
    assert "fix: 3 of 8 listed files left (37.5%; target <= 40%)" in proc.stdout
    assert "FAIL  unsafe: at most 10% of the listed files left" in proc.stdout
    # The trees are only read.
    assert not (first / "allowlist.txt").exists() and (first / "test_plain.py").read_text() == PLAIN.format(i=0)


def test_targets_met_exit_zero(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "tree", {f"test_{i}.py": PLAIN.format(i=i) for i in range(3)})
    proc = _run(tree)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "fix: 0 of 3 listed files left (0.0%; target <= 40%)" in proc.stdout


def test_a_tree_inside_the_repository_is_refused() -> None:
    proc = _run(SCRIPT.parent)
    assert proc.returncode == 2
    assert "inside this repository" in proc.stderr.splitlines()[-1]
