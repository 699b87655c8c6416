"""A `hwlint fix` killed at any moment leaves every file either as it was or
completely fixed, byte for byte: writes are atomic renames."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import write_project

CLASS = (
    "class Test{i}(TestCase):\n    def test_a(self):\n        x = {i}\n"
    + "\n".join(f"    def test_{k}(self): pass" for k in range(40))
    + "\n\n"
)


def make_tree(root: Path, files: int) -> dict[str, bytes]:
    sources = {
        f"test/d{n % 4}/test_{n}.py": "from torch.testing._internal.common_utils import TestCase\n\n\n"
        + "".join(CLASS.format(i=i) for i in range(20))
        for n in range(files)
    }
    write_project(root, sources)
    return {rel: text.encode() for rel, text in sources.items()}


def test_sigkill_during_fix_never_leaves_a_torn_file(tmp_path: Path) -> None:
    reference = tmp_path / "reference"
    originals = make_tree(reference, 30)
    start = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "hwlint", "fix", "--jobs", "1"], cwd=reference, capture_output=True, check=False
    )
    # Kills land between the start and a little past the end of a whole run
    # as long as this machine takes for one now (a loaded machine is slower).
    whole = time.monotonic() - start
    fixed = {rel: (reference / rel).read_bytes() for rel in originals}
    assert all(fixed[rel] != originals[rel] for rel in originals)

    rng = random.Random(1234)
    outcomes = set()
    for attempt in range(12):
        root = tmp_path / f"run{attempt}"
        make_tree(root, 30)
        proc = subprocess.Popen(
            [sys.executable, "-m", "hwlint", "fix", "--jobs", "1"],
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.1, 1.1) * whole)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        states = []
        for rel in originals:
            data = (root / rel).read_bytes()
            assert data in (originals[rel], fixed[rel]), f"{rel} is torn after SIGKILL (attempt {attempt})"
            states.append(data == fixed[rel])
        outcomes.add((any(states), all(states)))
        # A temporary file a kill leaves behind is never taken for a test file.
        assert sorted(p.relative_to(root).as_posix() for p in root.rglob("test_*.py")) == sorted(originals)
    # The kills landed at different moments (before, during and after writing).
    assert len(outcomes) >= 2
