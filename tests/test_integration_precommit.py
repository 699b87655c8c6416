"""hwlint's pre-commit hooks, run by the real pre-commit (from PyPI, in the
test extra) the way a user runs them.

The code is a copy of this working tree (not the last commit of the
checkout: the current code is what is tested). `pre-commit try-repo` takes
the hooks from a git repository of that copy (.pre-commit-hooks.yaml); the
README's `.pre-commit-config.yaml` snippet, used word for word, installs
`hwlint==<version>` from the package index, which sees a wheel built from
that copy (PIP_FIND_LINKS; click, libcst and pathspec come from the normal
index). pre-commit installs each once per session, in a session-wide
PRE_COMMIT_HOME.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hwlint import __version__

REPO = Path(__file__).resolve().parent.parent

GIT_ENV = {
    "GIT_AUTHOR_NAME": "hwlint tests",
    "GIT_AUTHOR_EMAIL": "tests@hwlint.invalid",
    "GIT_COMMITTER_NAME": "hwlint tests",
    "GIT_COMMITTER_EMAIL": "tests@hwlint.invalid",
}

CLASSIFIED = """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class TestOps(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_add(self):
        self.assertEqual(1 + 1, 2)
"""

UNCLASSIFIED = """\
from torch.testing._internal.common_utils import TestCase


class TestNN(TestCase):
    def test_linear(self):
        self.assertTrue(True)
"""

# A base in another file, found through the import: the class inherits ACCELERATOR.
BASE = """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class DeviceBase(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR
"""

INHERITS = """\
from common_device import DeviceBase
from torch.testing._internal.common_device_type import instantiate_device_type_tests


class TestCudaOps(DeviceBase):
    def test_mul(self, device):
        pass


instantiate_device_type_tests(TestCudaOps, globals())
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE")}
    env.update(GIT_ENV)
    env.update(extra)
    return env


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", "-c", "commit.gpgsign=false", *args], cwd=cwd, env=_env(), check=True, capture_output=True, text=True
    ).stdout


def commit_all(repo: Path, message: str = "commit") -> str:
    git("add", "-A", cwd=repo)
    git("commit", "-q", "--allow-empty", "-m", message, cwd=repo)
    return git("rev-parse", "HEAD", cwd=repo).strip()


@pytest.fixture(scope="session")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This working tree (tracked and untracked, not ignored files) as a git
    repository of its own with one commit: what try-repo clones."""
    dest = tmp_path_factory.mktemp("hwlint-hooks-repo")
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for rel in filter(None, listing.split("\0")):
        source = REPO / rel
        if not source.is_file():  # deleted in the working tree
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    git("init", "-q", cwd=dest)
    return dest, commit_all(dest, "hwlint working tree")


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory, hooks_repo: tuple[Path, str]) -> Path:
    """A folder holding the wheel of this working tree, `hwlint-<version>`:
    what the package index offers once pip's environment points at it."""
    dest = tmp_path_factory.mktemp("wheelhouse")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dest), str(hooks_repo[0])],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    (wheel,) = dest.glob("hwlint-*.whl")
    assert wheel.name.startswith(f"hwlint-{__version__}-"), wheel.name
    return dest


def pip_sees(wheels: Path) -> dict[str, str]:
    """The environment under which `pip install hwlint==<version>` finds the
    wheel in `wheels`, and everything else where pip looks already."""
    return {"PIP_FIND_LINKS": " ".join(filter(None, [str(wheels), os.environ.get("PIP_FIND_LINKS", "")]))}


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository of PyTorch-style tests, with an exclusion."""
    repo = tmp_path / "pytorch"
    files = {
        "pyproject.toml": '[tool.hwlint]\nexclude = ["test/legacy/**"]\n',
        "test/test_ops.py": CLASSIFIED,
        "test/test_nn.py": UNCLASSIFIED,
        "test/legacy/test_old.py": UNCLASSIFIED.replace("TestNN", "TestOld"),
        "test/common_device.py": BASE,
        "test/test_cuda_ops.py": INHERITS,
        "README.md": "# a project\n",
    }
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git("init", "-q", cwd=repo)
    commit_all(repo, "tests")
    return repo


def pre_commit(*args: str, cwd: Path, home: Path, wheels: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`pre-commit ARGS`; with `wheels`, the package index sees that folder's wheels."""
    extra = pip_sees(wheels) if wheels is not None else {}
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", *args, "--color", "never"],
        cwd=cwd,
        env=_env(PRE_COMMIT_HOME=str(home), **extra),
        capture_output=True,
        text=True,
        timeout=600,
    )
    # Shown when an assertion fails.
    print(f"$ pre-commit {' '.join(args)}  -> {result.returncode}\n{result.stdout}{result.stderr}")
    return result


def try_repo(hooks: tuple[Path, str], hook: str, *args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return pre_commit("try-repo", str(hooks[0]), hook, "--ref", hooks[1], *args, cwd=cwd, home=home)


def hook_line(output: str, name: str) -> str:
    """pre-commit's status line for a hook: `name.....Passed`."""
    match = re.search(rf"^{re.escape(name)}\.+(\w+)$", output, re.M)
    assert match, output
    return match.group(1)


def test_hooks_file_declares_the_hooks() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"hwlint", "hwlint-fix", "hwlint-allowlist"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["minimum_pre_commit_version"] == "2.9.0"  # types_or
    assert hooks["hwlint"]["entry"] == "hwlint check" and hooks["hwlint"]["types_or"] == ["python", "pyi"]
    assert hooks["hwlint-fix"]["entry"] == "hwlint fix" and hooks["hwlint-fix"]["types_or"] == ["python", "pyi"]
    prune = hooks["hwlint-allowlist"]
    assert prune["entry"] == "hwlint allowlist prune"
    assert (prune["pass_filenames"], prune["always_run"], prune["require_serial"]) == (False, True, True)


# -- try-repo: the hooks straight from the repository --------------------
# (try-repo installs hwlint into a fresh environment each time: two runs.)


def test_try_repo_hook_fails_on_an_unclassified_class(
    project: Path, hooks_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    result = try_repo(
        hooks_repo,
        "hwlint",
        "--files",
        "test/test_nn.py",
        "test/legacy/test_old.py",
        "test/test_ops.py",
        "README.md",
        cwd=project,
        home=pre_commit_home,
    )
    assert result.returncode == 1
    assert hook_line(result.stdout, "hwlint") == "Failed"
    assert "test/test_nn.py:4:1: HWC001 test class TestNN declares no hw_classification" in result.stdout
    # The exclusion holds for a file pre-commit passes.
    assert "TestOld" not in result.stdout
    assert "Found 1 error in 1 file (2 files checked)." in result.stdout


def test_try_repo_fix_hook_all_files(project: Path, hooks_repo: tuple[Path, str], pre_commit_home: Path) -> None:
    fixed = try_repo(hooks_repo, "hwlint-fix", "--all-files", cwd=project, home=pre_commit_home)
    # pre-commit fails a hook that modified files, whatever its exit code.
    assert fixed.returncode == 1
    assert hook_line(fixed.stdout, "hwlint fix") == "Failed"
    assert "files were modified by this hook" in fixed.stdout
    assert "Classified 1 class in 1 file (GENERIC 1)." in fixed.stdout
    assert_fixed(project)


def assert_fixed(project: Path) -> None:
    text = (project / "test" / "test_nn.py").read_text()
    assert "class TestNN(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n" in text
    assert re.search(r"^from torch\.testing\._internal\.common_utils import .*HardwareClassification", text, re.M)
    # The excluded file is left alone.
    assert (project / "test" / "legacy" / "test_old.py").read_text() == UNCLASSIFIED.replace("TestNN", "TestOld")


# -- pre-commit run, with the README's .pre-commit-config.yaml -------------


def readme_snippet() -> str:
    readme = (REPO / "docs" / "integrations.md").read_text()
    match = re.search(r"<!-- pre-commit-config[^>]*-->\n```yaml\n(.*?)```", readme, re.S)
    assert match, "docs/integrations.md lost its .pre-commit-config.yaml snippet"
    return match.group(1)


def readme_config() -> dict:
    config: dict = yaml.safe_load(readme_snippet())
    return config


def test_readme_hooks_are_the_manifests_installed_from_the_index() -> None:
    """The README's local hooks are .pre-commit-hooks.yaml's (same ids,
    entries and settings), with hwlint pinned to this version, and name no
    placeholder or tag that does not exist."""
    snippet = readme_snippet()
    assert "<" not in snippet and "rev:" not in snippet and "github.com" not in snippet
    config = readme_config()
    assert config["minimum_pre_commit_version"] == "2.9.0"  # types_or
    (entry,) = config["repos"]
    assert entry["repo"] == "local"
    manifest = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in entry["hooks"]] == ["hwlint-fix", "hwlint", "hwlint-allowlist"]
    by_id = {h["id"]: h for h in manifest}
    for hook in entry["hooks"]:
        local = dict(hook)
        assert local.pop("additional_dependencies") == [f"hwlint=={__version__}"]
        shipped = {k: v for k, v in by_id[hook["id"]].items() if k not in ("description", "minimum_pre_commit_version")}
        assert local == shipped, hook["id"]


@pytest.fixture
def configured(project: Path) -> Path:
    """The user's way: the README's snippet, word for word, as
    .pre-commit-config.yaml, then `pre-commit run` (with `wheels=`, so that
    the index has hwlint). The environment is installed once for the
    session (PRE_COMMIT_HOME)."""
    (project / ".pre-commit-config.yaml").write_text(readme_snippet())
    commit_all(project, "pre-commit")
    return project


def test_hook_passes_classified_files(configured: Path, pre_commit_home: Path, wheelhouse: Path) -> None:
    result = pre_commit(
        "run",
        "hwlint",
        "--files",
        "test/test_ops.py",
        "test/test_cuda_ops.py",
        "test/legacy/test_old.py",
        cwd=configured,
        home=pre_commit_home,
        wheels=wheelhouse,
    )
    assert result.returncode == 0
    assert hook_line(result.stdout, "hwlint") == "Passed"


def test_all_hooks_all_files(configured: Path, pre_commit_home: Path, wheelhouse: Path) -> None:
    check = pre_commit("run", "hwlint", "--all-files", cwd=configured, home=pre_commit_home, wheels=wheelhouse)
    assert check.returncode == 1 and "HWC001 test class TestNN" in check.stdout

    first = pre_commit("run", "--all-files", cwd=configured, home=pre_commit_home, wheels=wheelhouse)
    assert first.returncode == 1
    assert hook_line(first.stdout, "hwlint fix") == "Failed"  # it classified TestNN
    assert "files were modified by this hook" in first.stdout
    assert hook_line(first.stdout, "hwlint") == "Passed"  # the check sees the fixed file
    assert hook_line(first.stdout, "hwlint allowlist prune") == "Passed"
    assert_fixed(configured)

    git("add", "-A", cwd=configured)  # what the user does next
    second = pre_commit("run", "--all-files", cwd=configured, home=pre_commit_home, wheels=wheelhouse)
    assert second.returncode == 0
    assert [hook_line(second.stdout, h) for h in ("hwlint fix", "hwlint", "hwlint allowlist prune")] == ["Passed"] * 3


def test_allowlist_hook_prunes(configured: Path, pre_commit_home: Path, wheelhouse: Path) -> None:
    # test_nn.py has its one violation; test_ops.py is clean: its entry must go.
    (configured / "allowlist.txt").write_text("test/test_nn.py 1\ntest/test_ops.py 1\n")
    commit_all(configured, "allowlist")
    pruned = pre_commit("run", "hwlint-allowlist", cwd=configured, home=pre_commit_home, wheels=wheelhouse)
    assert pruned.returncode == 1
    assert hook_line(pruned.stdout, "hwlint allowlist prune") == "Failed"
    assert "files were modified by this hook" in pruned.stdout
    assert "removed test/test_ops.py: clean now" in pruned.stdout
    entries = [
        line for line in (configured / "allowlist.txt").read_text().splitlines() if line and not line.startswith("#")
    ]
    assert entries == ["test/test_nn.py 1"]
    git("add", "-A", cwd=configured)
    again = pre_commit("run", "hwlint-allowlist", cwd=configured, home=pre_commit_home, wheels=wheelhouse)
    assert again.returncode == 0 and hook_line(again.stdout, "hwlint allowlist prune") == "Passed"
    # Staged files only (no --files/--all-files): the hook runs all the same (always_run).
    (configured / "README.md").write_text("# changed\n")
    git("add", "README.md", cwd=configured)
    staged = pre_commit("run", cwd=configured, home=pre_commit_home, wheels=wheelhouse)
    assert hook_line(staged.stdout, "hwlint allowlist prune") == "Passed"


# Its test takes a device but nothing instantiates the class: no evidence, no fix.
NEEDS_A_HUMAN = """\
from torch.testing._internal.common_utils import TestCase


class TestMap(TestCase):
    def test_map_location(self, device):
        pass
"""


def test_fix_hook_passes_when_what_it_leaves_is_allowlisted(
    configured: Path, pre_commit_home: Path, wheelhouse: Path
) -> None:
    """The README's word: hwlint-fix fails when it changed a file or when
    `hwlint check` on the same files would fail, not because a class in an
    allowlisted file, within its budget, is left for a human."""
    (configured / "test" / "test_map.py").write_text(NEEDS_A_HUMAN)
    (configured / "allowlist.txt").write_text("test/test_map.py 1\n")
    commit_all(configured, "a class only a human can classify, allowlisted")
    left = pre_commit(
        "run", "hwlint-fix", "--files", "test/test_map.py", cwd=configured, home=pre_commit_home, wheels=wheelhouse
    )
    assert left.returncode == 0 and hook_line(left.stdout, "hwlint fix") == "Passed"
    (configured / "allowlist.txt").write_text("")
    commit_all(configured, "the same class, not allowlisted")
    failed = pre_commit(
        "run", "hwlint-fix", "--files", "test/test_map.py", cwd=configured, home=pre_commit_home, wheels=wheelhouse
    )
    assert failed.returncode == 1 and hook_line(failed.stdout, "hwlint fix") == "Failed"
    assert "test/test_map.py:4:1: HWC001 test class TestMap declares no hw_classification" in failed.stdout
    assert "files were modified by this hook" not in failed.stdout
    assert (configured / "test" / "test_map.py").read_text() == NEEDS_A_HUMAN
