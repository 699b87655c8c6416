"""One formatter and one small lint set (`ruff format`, `ruff check`,
configured in pyproject.toml) hold for the whole tree, as mypy's types do
(tests/test_types.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What the project's code is: the package, its tests, benchmarks, fuzzers and
# the docs' build hooks (the example tree is data, excluded in pyproject.toml).
PATHS = ["hwlint", "tests", "benchmarks", "fuzz", "docs"]

pytestmark = pytest.mark.slow


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *PATHS], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_the_tree_is_formatted() -> None:
    run = _ruff("format", "--check", "--diff")
    assert run.returncode == 0, run.stdout + run.stderr


def test_ruff_check_passes() -> None:
    run = _ruff("check", "--no-cache", "--output-format", "concise")
    assert run.returncode == 0, run.stdout + run.stderr


def test_ruff_reads_the_projects_settings(tmp_path: Path) -> None:
    # The two tests above mean something only if ruff applies pyproject's
    # line length and rule set: a 121-column line and an unsorted import fail.
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nimport os\n\nx = " + "1 + " * 29 + "1\n", encoding="utf-8")
    config = ["--config", str(ROOT / "pyproject.toml")]
    check = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", *config, "--output-format", "concise", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "I001" in check.stdout, check.stdout + check.stderr
    fmt = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", *config, str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert fmt.returncode == 1, fmt.stdout + fmt.stderr
