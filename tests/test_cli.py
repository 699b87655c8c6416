"""`hwlint check` as a user runs it: exit codes, options, and each format
against a golden file (HWLINT_UPDATE_GOLDEN=1 rewrites them)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import run_cli, write_project

GOLDEN = Path(__file__).parent / "golden"

SOURCE = '''\
import torch
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class TestUnclassified(TestCase):
    def test_a(self):
        pass


class TestGenericWithDevice(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_b(self, device):
        pass


class TestSuppressed(TestCase):  # noqa: HWC001
    def test_c(self):
        pass
'''


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_project(
        tmp_path / "proj",
        {
            "test/test_a.py": SOURCE,
            "test/test_clean.py": "class TestOk(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n    def test_ok(self): pass\n",
            "test/test_broken.py": "class TestBroken(TestCase)\n    pass\n",
            "test/test_old.py": "class TestOld(TestCase):\n    def test_old(self): pass\n",
        },
        allowlist="test/test_old.py 1\n",
    )


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("HWLINT_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "lintrunner"])
def test_formats_golden(tree: Path, fmt: str) -> None:
    result = run_cli("check", "--format", fmt, cwd=tree)
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    out = result.stdout.replace(str(tree), "<root>")
    check_golden(f"check.{fmt}", out)


def test_json_schema(tree: Path) -> None:
    items = json.loads(run_cli("check", "--format", "json", cwd=tree).stdout)
    keys = {"path", "line", "column", "code", "name", "severity", "message", "class_name", "fix"}
    assert all(set(item) == keys for item in items)
    assert [(i["path"], i["line"], i["column"], i["code"]) for i in items] == sorted(
        (i["path"], i["line"], i["column"], i["code"]) for i in items
    )
    fix = next(i["fix"] for i in items if i["code"] == "HWC001")
    assert fix["applicability"] == "safe" and fix["classification"] == "GENERIC"


def test_exit_codes(tree: Path, tmp_path: Path) -> None:
    assert run_cli("check", cwd=tree).returncode == 1
    assert run_cli("check", "--exit-zero", cwd=tree).returncode == 0
    clean = write_project(tmp_path / "clean", {"test/test_ok.py": "x = 1\n"})
    ok = run_cli("check", cwd=clean)
    assert (ok.returncode, ok.stdout) == (0, "All checks passed (1 file checked).\n")
    bad = run_cli("check", "--format", "nope", cwd=tree)
    assert bad.returncode == 2 and "Invalid value for '--format'" in bad.stderr
    (tree / "pyproject.toml").write_text("[tool.hwlint]\nselct = []\n")
    config = run_cli("check", "--exit-zero", cwd=tree)
    assert config.returncode == 2
    assert config.stderr.count("\n") == 1 and "unknown key 'selct'" in config.stderr


def test_select_ignore_statistics(tree: Path) -> None:
    only = run_cli("check", "--select", "HWC102", cwd=tree)
    assert [line.split()[1] for line in only.stdout.splitlines() if line.startswith("test/")] == ["HWC102"]
    ignored = run_cli("check", "--ignore", "HWC0,HWC1", cwd=tree)
    assert "HWC001" not in ignored.stdout and "HWC000" not in ignored.stdout
    stats = run_cli("check", "--statistics", cwd=tree)
    assert "     1  HWC001  missing-classification" in stats.stdout.splitlines()


def test_output_file(tree: Path) -> None:
    out = tree / "report.json"
    result = run_cli("check", "--format", "json", "-o", str(out), cwd=tree)
    assert result.returncode == 1 and result.stdout == ""
    assert json.loads(out.read_text())[0]["path"] == "test/test_a.py"


def test_explicit_paths_are_filtered_like_force_exclude(tree: Path) -> None:
    result = run_cli("check", "pyproject.toml", "test/test_clean.py", cwd=tree)
    assert (result.returncode, result.stdout) == (0, "All checks passed (1 file checked, 1 allowlisted).\n")
    nothing = run_cli("check", "pyproject.toml", cwd=tree)
    assert nothing.returncode == 0 and "no test files among the given paths" in nothing.stderr


def test_subset_run_does_not_judge_entries_it_did_not_see(tree: Path) -> None:
    # pre-commit passes a few files: the allowlist entry of an unseen file is not stale.
    result = run_cli("check", "test/test_clean.py", cwd=tree)
    assert "HWC301" not in result.stdout


def test_same_output_whatever_jobs(tmp_path: Path) -> None:
    files = {f"test/d{i % 5}/test_{i}.py": SOURCE.replace("TestUnclassified", f"TestU{i}") for i in range(40)}
    root = write_project(tmp_path / "many", files)
    one = run_cli("check", "--format", "json", "--jobs", "1", cwd=root)
    two = run_cli("check", "--format", "json", "--jobs", "2", cwd=root)
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout and len(json.loads(one.stdout)) == 80


def test_rule_command() -> None:
    here = Path(__file__).parent
    text = run_cli("rule", "HWC101", cwd=here).stdout
    assert text.startswith("# instantiation (HWC101)\n") and "## Why is this bad?" in text
    listing = run_cli("rule", cwd=here).stdout.splitlines()
    assert listing[0].startswith("HWC000  parse-error") and len(listing) == 16
    unknown = run_cli("rule", "HWC999", cwd=here)
    assert unknown.returncode == 2 and unknown.stderr == "hwlint: error: unknown rule 'HWC999': `hwlint rule` lists them\n"


def test_unknown_code_on_the_command_line_is_an_error(tree: Path) -> None:
    for option in ("--select", "--extend-select", "--ignore"):
        proc = run_cli("check", option, "HWC9", cwd=tree)
        assert proc.returncode == 2
        assert proc.stderr == f"hwlint: error: {option}: unknown rule code or prefix 'HWC9' (`hwlint rule` lists them)\n"
