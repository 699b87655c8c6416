"""A maintainer's daily loop with the real tools: pre-commit's hooks through
`git commit`, and `lintrunner -a`, on a repository whose allowlisted file
keeps classes no tool can classify.

- The hooks agree with `hwlint check`: a comment edit in an allowlisted file
  commits cleanly, though `hwlint fix` leaves classes for a human there.
- A new unclassified class in an allowlisted file is reported at its line in
  the test file (HWC302), and `lintrunner -a` clears it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli
from tests.test_integration_precommit import _env, commit_all, git, hooks_repo, pre_commit, pre_commit_home  # noqa: F401

HEADER = "from torch.testing._internal.common_utils import TestCase\n\n\n"
# Both take a device and are never instantiated: a human decides (no fix).
HUMAN = (
    "class TestOld(TestCase):\n    def test_a(self, device):\n        pass\n\n\n"
    "class TestOlder(TestCase):\n    def test_b(self, devices):\n        pass\n"
)
NEW = "class TestNew(TestCase):\n    def test_n(self):\n        pass\n\n\n"


@pytest.fixture
def adopted(tmp_path: Path) -> Path:
    """hwlint adopted on a repository: the list committed, the file's two
    classes within its budget."""
    repo = tmp_path / "repo"
    (repo / "test").mkdir(parents=True)
    (repo / "pyproject.toml").write_text("[tool.hwlint]\n")
    (repo / "test/test_old.py").write_text(HEADER + HUMAN)
    git("init", "-q", cwd=repo)
    assert run_cli("allowlist", "init", cwd=repo).returncode == 0
    commit_all(repo, "adopt hwlint")
    return repo


def hooks_config(hooks: tuple[Path, str]) -> str:
    """The three hooks, from this working tree, in the README's order."""
    return yaml.safe_dump(
        {
            "repos": [
                {
                    "repo": str(hooks[0]),
                    "rev": hooks[1],
                    "hooks": [{"id": "hwlint-fix"}, {"id": "hwlint"}, {"id": "hwlint-allowlist"}],
                }
            ]
        }
    )


def commit(repo: Path, message: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`git commit -am`, which runs the installed pre-commit hooks."""
    result = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "commit", "-qam", message],
        cwd=repo,
        env=_env(PRE_COMMIT_HOME=str(home)),
        capture_output=True,
        text=True,
        timeout=600,
    )
    print(f"$ git commit -am {message!r} -> {result.returncode}\n{result.stdout}{result.stderr}")
    return result


def test_hooks_pass_when_check_passes_and_report_a_new_class_at_its_line(
    adopted: Path, hooks_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    repo = adopted
    (repo / ".pre-commit-config.yaml").write_text(hooks_config(hooks_repo))
    commit_all(repo, "pre-commit")
    installed = pre_commit("install", cwd=repo, home=pre_commit_home)
    assert installed.returncode == 0

    # The day-one failure: a comment in an allowlisted file that keeps two
    # classes for a human. `hwlint fix` changes nothing there and `hwlint
    # check` passes, so the commit goes through.
    old = repo / "test/test_old.py"
    old.write_text("# Tests of the old API.\n" + old.read_text())
    edited = commit(repo, "document the old tests", pre_commit_home)
    assert edited.returncode == 0
    assert "Failed" not in edited.stderr and "hwlint fix..." in edited.stderr  # git shows the hooks on stderr
    assert git("status", "--porcelain", cwd=repo) == ""

    # A new class in that file: the check hook reports it at its line, in the
    # test file, with the allowlist entry named.
    old.write_text(old.read_text().replace("class TestOld(", NEW + "class TestOld(", 1))
    checked = pre_commit("run", "hwlint", "--files", "test/test_old.py", cwd=repo, home=pre_commit_home)
    assert checked.returncode == 1
    assert (
        "test/test_old.py:5:1: HWC302 HWC001 test class TestNew declares no hw_classification: add "
        "`hw_classification = HardwareClassification.GENERIC`"
    ) in checked.stdout
    assert (
        "over the budget of test/test_old.py at allowlist.txt:3 (2 allowed, 3 found; new since the budget was set)"
        in checked.stdout
    )
    # Committing it: the fix hook classifies it (a changed file fails the
    # hook, as for every fixer); add it, and the commit goes through.
    blocked = commit(repo, "a new test", pre_commit_home)
    assert blocked.returncode == 1 and "files were modified by this hook" in blocked.stderr
    assert "class TestNew(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n" in old.read_text()
    assert commit(repo, "a new test", pre_commit_home).returncode == 0
    assert run_cli("check", cwd=repo).returncode == 0


def test_lintrunner_apply_clears_a_new_class_in_an_allowlisted_file(adopted: Path, tmp_path: Path) -> None:
    repo = adopted
    lintrunner_exe = Path(sys.executable).parent / "lintrunner"
    assert lintrunner_exe.exists(), "lintrunner is in the test extra: pip install -e '.[test]'"
    (repo / ".lintrunner.toml").write_text(
        "[[linter]]\ncode = 'HWLINT'\ninclude_patterns = ['test/**/test_*.py']\n"
        f"command = ['{sys.executable}', '-m', 'hwlint', 'lintrunner', '@{{{{PATHSFILE}}}}']\n"
    )
    commit_all(repo, "lintrunner")
    old = repo / "test/test_old.py"
    old.write_text(old.read_text().replace("class TestOld(", NEW + "class TestOld(", 1))

    def lintrunner(*args: str) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [str(lintrunner_exe), "--data-path", str(tmp_path / "data"), *args],
            cwd=repo,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        print(f"$ lintrunner {' '.join(args)} -> {result.returncode}\n{result.stdout}{result.stderr}")
        return result

    found = lintrunner("--all-files", "--output", "json")
    (message,) = [json.loads(line) for line in found.stdout.splitlines() if line.startswith("{")]
    assert (message["path"], message["line"], message["name"]) == (str(old), 4, "HWC302 allowlist-budget")
    assert message["description"].startswith("HWC001 test class TestNew declares no hw_classification")
    assert message["replacement"] is not None
    applied = lintrunner("-a", "--all-files")
    assert "Successfully applied all patches" in applied.stdout
    assert "class TestNew(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n" in old.read_text()
    assert old.read_text().endswith(HUMAN)  # the allowlisted classes stay for a human
    clean = lintrunner("--all-files")
    assert clean.returncode == 0, clean.stdout
