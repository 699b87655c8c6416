"""Many `hwlint check --fix` and `hwlint allowlist prune` processes on one
tree at once, as pre-commit's parallel hooks run them: the final state is
what one run gives, with no lost, duplicated or torn line in any file."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import write_project

UNCLASSIFIED = "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\nclass Test{n}(TestCase):\n    def test_a(self): pass\n"
CLEAN = "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\nclass Test{n}(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n    def test_a(self): pass\n"
NEEDS_HUMAN = "class Test{n}(TestCase):\n    def test_a(self, device): pass\n"


def make_tree(root: Path) -> None:
    files = {}
    listed = []
    for n in range(24):
        kind = n % 3
        rel = f"test/d{n % 2}/test_{n:02}.py"
        files[rel] = (UNCLASSIFIED, CLEAN, NEEDS_HUMAN)[kind].format(n=n)
        if n % 4 == 0:
            listed.append(f"{rel} 1")
    listed.append("test/test_gone.py 3")
    write_project(root, files, allowlist="# header\n" + "\n".join(sorted(listed)) + "\n")


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the tree but the cache (what is in it depends on the
    order runs came in: settings are remembered only once the folder exists)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".hwlint_cache" not in p.relative_to(root).parts
    }


def check_output(root: Path, *args: str) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, "-m", "hwlint", "check", *args], cwd=root, capture_output=True, text=True)
    return proc.returncode, proc.stdout


def test_parallel_check_fix_and_prune_equal_one_run(tmp_path: Path) -> None:
    reference = tmp_path / "reference"
    make_tree(reference)
    subprocess.run(
        [sys.executable, "-m", "hwlint", "check", "--fix", "--jobs", "1"], cwd=reference, capture_output=True
    )
    expected = snapshot(reference)

    for attempt in range(3):
        root = tmp_path / f"parallel{attempt}"
        make_tree(root)
        commands = [["check", "--fix", "--jobs", "1"]] * 6 + [["allowlist", "prune", "--jobs", "1"]] * 4
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "hwlint", *args],
                cwd=root,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for args in commands
        ]
        outputs = [p.communicate(timeout=300) for p in procs]
        assert all("Traceback" not in err for _, err in outputs)
        assert all(p.returncode in (0, 1) for p in procs), [err for _, err in outputs]
        got = snapshot(root)
        assert got == expected
        allowlist = got["allowlist.txt"].decode().splitlines()
        assert len(allowlist) == len(set(allowlist))
        # The cache the ten runs wrote at once is sound: it gives what no cache gives.
        assert check_output(root) == check_output(root, "--no-cache")
    shutil.rmtree(tmp_path, ignore_errors=True)
