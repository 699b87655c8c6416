"""The package's types hold (`mypy`, strict, configured in pyproject.toml),
and every `# type: ignore` that remains says which error and why."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_strict_passes() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_type_ignore_names_its_error_and_a_reason() -> None:
    bare = []
    for path in sorted((ROOT / "hwlint").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if "type: ignore" in line and not re.search(r"type: ignore\[[\w,-]+\]\s+#\s*\S", line):
                bare.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert bare == []
