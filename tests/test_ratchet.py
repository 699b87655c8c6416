"""The ratchet against git: HWC303 growth compared to a base commit, renames,
a list missing at the base, a conflicted list after a real merge. Every test
runs in its own git repository, with the `git` executable."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hwlint.allowlist.ratchet import check_ratchet, resolve_base
from hwlint.core.config import load_config
from tests.conftest import run_cli, write_project

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="needs git"
)

HEADER = (
    "# Test files not yet migrated to hw_classification. This list may only shrink.\n"
    "# <path relative to the project root> <violations allowed>\n"
)
CLEAN = "class TestOk(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n    def test_ok(self): pass\n"


def unclassified(n: int) -> str:
    return "".join(f"class Test{i}(TestCase):\n    def test_{i}(self): pass\n\n" for i in range(n))


@pytest.fixture(autouse=True)
def quiet_git(monkeypatch: pytest.MonkeyPatch) -> None:
    # The user's git configuration (conflict style, hooks, signing) must not
    # change what these tests see; hwlint's own git calls inherit this too.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    assert proc.returncode == 0 or args[0] == "merge", proc.stderr
    return proc.stdout


def repo(tmp_path: Path, files: dict[str, str], allowlist: str | None) -> Path:
    """A git repository on `main` with one commit: the project as given."""
    root = write_project(tmp_path / "repo", files, allowlist=allowlist)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "commit.gpgsign", "false")
    commit(root, "base")
    return root


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)


def head(root: Path, ref: str = "HEAD") -> str:
    return git(root, "rev-parse", ref).strip()


def test_growth_is_refused_with_hwc303_against_a_base_commit(tmp_path: Path) -> None:
    root = repo(
        tmp_path, {"test/test_a.py": unclassified(2), "test/test_b.py": unclassified(1)}, HEADER + "test/test_a.py 1\n"
    )
    base = head(root)
    git(root, "checkout", "-q", "-b", "topic")
    (root / "allowlist.txt").write_text(HEADER + "test/test_a.py 2\ntest/test_b.py 1\n")
    commit(root, "grow")
    result = run_cli("allowlist", "check", "--base", "main", cwd=root)
    label = f"main ({base[:10]})"
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == (
        f"allowlist.txt:3:1: HWC303 test/test_a.py budget raised from 1 at {label} to 2: fix the new violations "
        "instead, and keep the budget\n"
        f"allowlist.txt:4:1: HWC303 test/test_b.py is new in the allowlist (not in it at {label}): classify its "
        "test classes instead (`hwlint check --no-allowlist test/test_b.py` shows them)\n"
        "\n"
        f"Found 2 errors in allowlist.txt (2 entries; 1 at {label}).\n"
    )
    as_json = run_cli("allowlist", "check", "--base", base, "--format", "json", cwd=root)
    assert as_json.returncode == 1
    assert [(d["path"], d["line"], d["code"], d["name"]) for d in json.loads(as_json.stdout)] == [
        ("allowlist.txt", 3, "HWC303", "allowlist-growth"),
        ("allowlist.txt", 4, "HWC303", "allowlist-growth"),
    ]


def test_uncommitted_growth_counts_and_shrinking_passes(tmp_path: Path) -> None:
    root = repo(
        tmp_path,
        {"test/test_a.py": unclassified(1), "test/test_b.py": unclassified(1)},
        HEADER + "test/test_a.py 3\ntest/test_b.py 1\n",
    )
    (root / "allowlist.txt").write_text(HEADER + "test/test_a.py 1\n")  # working tree, not committed
    result = run_cli("allowlist", "check", cwd=root)
    assert (result.returncode, result.stdout) == (
        0,
        f"allowlist.txt did not grow (1 entry; 2 at main ({head(root)[:10]})).\n",
    )
    (root / "allowlist.txt").write_text(HEADER + "test/test_a.py 1\ntest/test_c.py 1\n")
    grown = run_cli("allowlist", "check", cwd=root)
    assert grown.returncode == 1
    assert grown.stdout.startswith("allowlist.txt:4:1: HWC303 test/test_c.py is new in the allowlist")


def test_the_default_base_is_the_merge_base_so_main_moving_on_is_not_growth(tmp_path: Path) -> None:
    root = repo(
        tmp_path,
        {"test/test_a.py": unclassified(1), "test/test_b.py": unclassified(1)},
        HEADER + "test/test_a.py 1\ntest/test_b.py 1\n",
    )
    fork = head(root)
    git(root, "checkout", "-q", "-b", "topic")
    (root / "test/test_other.py").write_text(CLEAN)
    commit(root, "topic work")
    git(root, "checkout", "-q", "main")
    (root / "test/test_b.py").write_text(CLEAN)
    (root / "allowlist.txt").write_text(HEADER + "test/test_a.py 1\n")
    commit(root, "migrate test_b on main")
    git(root, "checkout", "-q", "topic")
    config = load_config(start=root)
    assert resolve_base(root).commit == fork
    assert check_ratchet(config).diagnostics == []
    # origin/main wins over main when it exists.
    git(root, "update-ref", "refs/remotes/origin/main", head(root, "main"))
    assert (resolve_base(root).ref, resolve_base(root).commit) == ("origin/main", fork)


def test_a_rename_is_followed(tmp_path: Path) -> None:
    root = repo(tmp_path, {"test/test_old.py": unclassified(2)}, HEADER + "test/test_old.py 2\n")
    base = head(root)
    git(root, "checkout", "-q", "-b", "topic")
    git(root, "mv", "test/test_old.py", "test/test_new.py")  # staged, not committed
    # prune (and check --fix) move the entry to the new name...
    pruned = run_cli("allowlist", "prune", cwd=root)
    assert (pruned.returncode, pruned.stdout) == (
        0,
        (
            "allowlist.txt:3: moved test/test_old.py to test/test_new.py (renamed), budget 2\n"
            "Pruned allowlist.txt: 1 moved; 1 entry.\n"
        ),
    )
    assert (root / "allowlist.txt").read_text() == HEADER + "test/test_new.py 2\n"
    # ...and the ratchet accepts it: the entry is the old one under a new name.
    checked = run_cli("allowlist", "check", cwd=root)
    assert (checked.returncode, checked.stdout) == (
        0,
        f"allowlist.txt did not grow (1 entry; 1 at main ({base[:10]})).\n",
    )
    assert run_cli("check", cwd=root).returncode == 0
    commit(root, "rename")
    # A raised budget under the new name is still growth, and says where it came from.
    (root / "allowlist.txt").write_text(HEADER + "test/test_new.py 3\n")
    raised = run_cli("allowlist", "check", cwd=root)
    assert (raised.returncode, raised.stdout.splitlines()[0]) == (
        1,
        (
            f"allowlist.txt:3:1: HWC303 test/test_new.py budget raised from 2 (as test/test_old.py) at main ({base[:10]}) "
            "to 3: fix the new violations instead, and keep the budget"
        ),
    )


def test_a_copy_is_not_a_rename(tmp_path: Path) -> None:
    root = repo(tmp_path, {"test/test_old.py": unclassified(2)}, HEADER + "test/test_old.py 2\n")
    (root / "test/test_copy.py").write_text(unclassified(2))
    (root / "allowlist.txt").write_text(HEADER + "test/test_copy.py 2\ntest/test_old.py 2\n")
    commit(root, "copy")
    diagnostics = check_ratchet(load_config(start=root), "HEAD~1").diagnostics
    assert [(d.line, d.code, d.message.split(" (")[0]) for d in diagnostics] == [
        (3, "HWC303", "test/test_copy.py is new in the allowlist")
    ]


def test_an_allowlist_missing_at_the_base_is_an_empty_one(tmp_path: Path) -> None:
    root = repo(tmp_path, {"test/test_a.py": unclassified(1)}, None)
    base = head(root)
    (root / "allowlist.txt").write_text(HEADER + "test/test_a.py 1\n")
    result = run_cli("allowlist", "check", "--base", "HEAD", cwd=root)
    assert (result.returncode, result.stdout) == (
        1,
        (
            f"allowlist.txt:3:1: HWC303 test/test_a.py is new in the allowlist (not in it at HEAD ({base[:10]})): "
            "classify its test classes instead (`hwlint check --no-allowlist test/test_a.py` shows them)\n"
            "\n"
            f"Found 1 error in allowlist.txt (1 entry; it did not exist at HEAD ({base[:10]})).\n"
        ),
    )


def test_an_allowlist_renamed_with_its_setting_is_followed(tmp_path: Path) -> None:
    root = repo(tmp_path, {"test/test_a.py": unclassified(1)}, HEADER + "test/test_a.py 1\n")
    git(root, "mv", "allowlist.txt", "hw_allowlist.txt")
    (root / "pyproject.toml").write_text('[tool.hwlint]\nallowlist = "hw_allowlist.txt"\n')
    result = run_cli("allowlist", "check", "--base", "main", cwd=root)
    assert (result.returncode, result.stdout) == (
        0,
        f"hw_allowlist.txt did not grow (1 entry; 1 at main ({head(root)[:10]})).\n",
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--base", "nope"),
            "--base nope: not a commit of the repository at {root}: pass a branch, tag or commit, e.g. --base origin/main",
        ),
        (
            ("--base", ""),
            "--base '': not a commit of the repository at {root}: pass a branch, tag or commit, e.g. --base origin/main",
        ),
        (
            ("--base", "--help-me"),
            "--base --help-me: not a commit of the repository at {root}: pass a branch, tag or commit, e.g. --base origin/main",
        ),
    ],
)
def test_a_bad_base_is_one_line_and_exit_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    root = repo(tmp_path, {"test/test_a.py": CLEAN}, None)
    result = run_cli("allowlist", "check", *args, cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"hwlint: error: {message.format(root=root)}\n")


def test_no_base_or_no_repository_is_one_line_and_exit_2(tmp_path: Path) -> None:
    root = repo(tmp_path, {"test/test_a.py": CLEAN}, None)
    git(root, "branch", "-m", "main", "trunk")
    result = run_cli("allowlist", "check", cwd=root)
    assert (result.returncode, result.stderr) == (
        2,
        (
            f"hwlint: error: {root}: neither origin/main nor main exists here: pass the ref to compare with, --base REF\n"
        ),
    )
    plain = write_project(tmp_path / "plain", {"test/test_a.py": CLEAN})
    outside = run_cli("allowlist", "check", cwd=plain)
    assert (outside.returncode, outside.stderr) == (
        2,
        (
            f"hwlint: error: {plain}: not inside a git repository: the allowlist can only be compared with a git ref there\n"
        ),
    )


def test_a_conflicted_allowlist_is_detected_and_repaired(tmp_path: Path) -> None:
    files = {
        "test/test_a.py": unclassified(1),
        "test/test_b.py": unclassified(3),
        "test/test_c.py": unclassified(1),
        "test/test_d.py": unclassified(1),
    }
    root = repo(tmp_path, files, HEADER + "test/test_a.py 1\ntest/test_b.py 4\ntest/test_c.py 1\ntest/test_d.py 1\n")
    git(root, "checkout", "-q", "-b", "topic")
    (root / "test/test_c.py").write_text(CLEAN)  # topic migrates test_c and lowers test_b
    (root / "allowlist.txt").write_text(HEADER + "test/test_a.py 1\ntest/test_b.py 3\ntest/test_d.py 1\n")
    commit(root, "topic: migrate test_c")
    git(root, "checkout", "-q", "main")
    (root / "test/test_b.py").write_text(unclassified(2))  # main fixes one in test_b, migrates test_a
    (root / "test/test_a.py").write_text(CLEAN)
    (root / "allowlist.txt").write_text(HEADER + "test/test_b.py 2\ntest/test_c.py 1\ntest/test_d.py 1\n")
    commit(root, "main: migrate test_a")
    git(root, "merge", "-q", "topic")
    conflicted = (root / "allowlist.txt").read_text()
    assert "<<<<<<<" in conflicted

    checked = run_cli("check", cwd=root)
    assert checked.returncode == 1
    markers = [
        n for n, line in enumerate(conflicted.splitlines(), 1) if line.startswith(("<<<<<<<", "=======", ">>>>>>>"))
    ]
    assert [line for line in checked.stdout.splitlines() if "HWC304" in line and "conflict" in line] == [
        f"allowlist.txt:{n}:1: HWC304 merge-conflict marker: resolve the conflict, or run `hwlint allowlist sync`"
        for n in markers
    ]
    refused = run_cli("allowlist", "prune", cwd=root)
    assert refused.returncode == 1 and (root / "allowlist.txt").read_text() == conflicted
    assert refused.stdout.splitlines()[-1] == (
        "allowlist.txt not pruned: fix the lines above (HWC304), or run `hwlint allowlist sync` to rebuild the list from the tree"
    )

    repaired = run_cli("allowlist", "sync", cwd=root)
    assert repaired.returncode == 0, repaired.stdout
    # test_a and test_c are clean in the merged tree; test_b has 2 violations
    # and neither side allowed more than 3; test_d is unchanged.
    assert (root / "allowlist.txt").read_text() == HEADER + "test/test_b.py 2\ntest/test_d.py 1\n"
    assert run_cli("check", cwd=root).returncode == 0
    ratchet = run_cli("allowlist", "check", "--base", "main", cwd=root)
    assert ratchet.returncode == 0, ratchet.stdout
