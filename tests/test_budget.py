"""An allowlisted file over its budget: the violations beyond it are
reported where they are (HWC302 at the test file's line, with the fix),
chosen from git history: those not in the file when its budget was set."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import lint, run_cli, write_project

HEADER = "from torch.testing._internal.common_utils import TestCase\n\n\n"
# Takes a device but is never instantiated: no fix, a human decides.
OLD = "class TestOld(TestCase):\n    def test_a(self, device):\n        pass\n"
NEW = "class TestNew(TestCase):\n    def test_n(self):\n        pass\n\n\n"


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def adopted(tmp_path: Path, source: str = HEADER + OLD) -> Path:
    """A repository whose allowlist was committed with the file at `source`."""
    root = write_project(tmp_path / "repo", {"test/test_old.py": source})
    git(root, "init", "-q")
    assert run_cli("allowlist", "init", cwd=root).returncode == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "adopt hwlint")
    return root


def test_a_new_class_is_reported_at_its_line_even_above_the_old_ones(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    # Added above the old class: "the last in the file" would pick TestOld;
    # git says which one is new.
    (root / "test/test_old.py").write_text(HEADER + NEW + OLD)
    (diag,) = lint(root).diagnostics
    assert (diag.path, diag.line, diag.column, diag.code, diag.class_name) == (
        "test/test_old.py",
        4,
        1,
        "HWC302",
        "TestNew",
    )
    assert diag.message == (
        "HWC001 test class TestNew declares no hw_classification: add `hw_classification = "
        "HardwareClassification.GENERIC` (not instantiated per device, no device parameter, no accelerator use); "
        "over the budget of test/test_old.py at allowlist.txt:3 (1 allowed, 2 found; new since the budget was set)"
    )
    assert diag.fix is not None and diag.fix.applicability == "safe" and diag.fix.classification == "GENERIC"


def test_only_as_many_as_the_file_is_over_are_reported(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    # Three new classes against a budget of 1: the file has 4, 3 too many.
    news = "".join(NEW.replace("TestNew", f"TestNew{i}") for i in range(3))
    (root / "test/test_old.py").write_text(HEADER + news + OLD)
    assert [(d.line, d.class_name) for d in lint(root).diagnostics] == [
        (4, "TestNew0"),
        (9, "TestNew1"),
        (14, "TestNew2"),
    ]
    # Once the old one is fixed, 3 violations against 1 allowed: the last two new ones.
    fixed_old = OLD.replace("(TestCase):\n", "(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n")
    fixed_old = fixed_old.replace("test_a(self, device)", "test_a(self)")
    (root / "test/test_old.py").write_text(
        HEADER.replace("TestCase\n", "TestCase, HardwareClassification\n") + news + fixed_old
    )
    assert [(d.line, d.class_name) for d in lint(root).diagnostics] == [(9, "TestNew1"), (14, "TestNew2")]


def test_without_history_the_last_ones_in_the_file_are_reported(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"test/test_old.py": HEADER + NEW + OLD}, allowlist="test/test_old.py 1\n")
    (diag,) = lint(root).diagnostics  # not a git repository
    assert (diag.line, diag.class_name, diag.fix.kind) == (9, "TestOld", "device-not-instantiated")
    assert diag.message.endswith("(1 allowed, 2 found; the last in the file: no history of when the budget was set)")
    # An entry written since the last commit has no history either.
    git(root, "init", "-q")
    assert lint(root).diagnostics[0].message == diag.message


def test_check_fix_clears_a_new_class_and_leaves_the_old_ones(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    (root / "test/test_old.py").write_text(HEADER + NEW + OLD)
    assert run_cli("check", cwd=root).returncode == 1
    fixed = run_cli("check", "--fix", cwd=root)
    assert (fixed.returncode, fixed.stdout) == (0, "All checks passed (1 file checked, 1 allowlisted).\n"), fixed.stderr
    text = (root / "test/test_old.py").read_text()
    assert "class TestNew(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n" in text
    assert text.endswith(OLD)  # the allowlisted class stays for `hwlint fix` and a human
    assert (root / "allowlist.txt").read_text().endswith("test/test_old.py 1\n")


def test_ci_formats_point_at_the_test_file(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    (root / "test/test_old.py").write_text(HEADER + NEW + OLD)
    github = run_cli("check", "--format", "github", cwd=root).stdout
    assert github.startswith("::error file=test/test_old.py,line=4,col=1,title=HWC302::HWC001 test class TestNew")
    sarif = json.loads(run_cli("check", "--format", "sarif", cwd=root).stdout)
    (result,) = sarif["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert (result["ruleId"], location["artifactLocation"]["uri"], location["region"]["startLine"]) == (
        "HWC302",
        "test/test_old.py",
        4,
    )
    (message,) = [json.loads(line) for line in run_cli("check", "--format", "lintrunner", cwd=root).stdout.splitlines()]
    assert (message["path"], message["line"], message["name"]) == (
        str(root / "test/test_old.py"),
        4,
        "HWC302 allowlist-budget",
    )
    assert message["replacement"] == (
        HEADER.replace("TestCase\n", "TestCase, HardwareClassification\n")
        + NEW.replace("(TestCase):\n", "(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n")
        + OLD
    )
    data = json.loads(run_cli("check", "--format", "json", cwd=root).stdout)
    assert data[0]["fix"] == {
        "applicability": "safe",
        "classification": "GENERIC",
        "evidence": "not instantiated per device, no device parameter, no accelerator use",
    }
