"""Filesystem surprises: each gets one clear diagnostic or line, and the run
goes on with the other files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hwlint.engine.check
from hwlint.core.config import load_config
from hwlint.engine.check import run_check
from tests.conftest import run_cli, write_project

UNCLASSIFIED = "class TestA(TestCase):\n    def test_a(self): pass\n"


def test_file_vanishing_between_discovery_and_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_project(tmp_path, {"test/test_a.py": UNCLASSIFIED, "test/test_b.py": UNCLASSIFIED})
    real = hwlint.engine.check.discover

    def discover_then_delete(config, paths=None, store=None):  # type: ignore[no-untyped-def]
        found = real(config, paths, store)
        (root / "test/test_a.py").unlink()
        return found

    monkeypatch.setattr(hwlint.engine.check, "discover", discover_then_delete)
    result = run_check(load_config(start=root), jobs=1)
    assert [(d.path, d.code, d.message) for d in result.diagnostics] == [
        ("test/test_a.py", "HWC000", "file not found (deleted or a broken symlink)"),
        ("test/test_b.py", "HWC001", result.diagnostics[1].message),
    ]


def test_paths_with_spaces_and_non_ascii_names(tmp_path: Path) -> None:
    root = write_project(tmp_path / "a project", {"test/größe ü/test_naïve café.py": UNCLASSIFIED})
    proc = run_cli("check", "--format", "json", cwd=root)
    assert proc.returncode == 1
    (item,) = json.loads(proc.stdout)
    assert item["path"] == "test/größe ü/test_naïve café.py" and item["code"] == "HWC001"
    named = run_cli("check", "test/größe ü/test_naïve café.py", cwd=root)
    assert named.returncode == 1 and "test/größe ü/test_naïve café.py:1:1: HWC001" in named.stdout


def test_huge_allowlist(tmp_path: Path) -> None:
    entries = "".join(f"test/gone/test_{n:06}.py 1\n" for n in range(100_000))
    root = write_project(tmp_path, {"test/test_a.py": UNCLASSIFIED}, allowlist=entries + "test/test_a.py 1\n")
    proc = run_cli("check", "--format", "json", cwd=root)
    items = json.loads(proc.stdout)
    # Every entry of a file that is gone is stale; the listed file is within budget.
    assert proc.returncode == 1 and len(items) == 100_000
    assert {i["code"] for i in items} == {"HWC301"} and items[0]["line"] == 1


def test_allowlist_entries_pointing_outside_the_root(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {"test/test_a.py": UNCLASSIFIED},
        allowlist="../elsewhere/test_x.py 1\n/etc/test_y.py 1\ntest/test_a.py 1\n",
    )
    proc = run_cli("check", cwd=root)
    assert proc.stdout.splitlines()[:2] == [
        "allowlist.txt:1:1: HWC304 ../elsewhere/test_x.py: use a normalized path inside the project root",
        "allowlist.txt:2:1: HWC304 /etc/test_y.py: use a path relative to the project root with / separators",
    ]


def test_unwritable_output_file_is_one_line(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"test/test_a.py": UNCLASSIFIED})
    proc = run_cli("check", "-o", str(root / "missing-dir" / "out.txt"), cwd=root)
    assert proc.returncode == 2 and proc.stderr.startswith("hwlint: error: ") and proc.stderr.count("\n") == 1
