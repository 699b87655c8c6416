"""Discovery: which files a run lints (include/exclude, .gitignore, paths on
the command line, symlinks, order). Each test builds a small tree and
compares the exact list of linted files."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

import hwlint.facts.discover
from hwlint.core.config import load_config
from hwlint.facts.discover import discover
from tests.conftest import lint, run_cli, write_project

# One test class without hw_classification: every linted file reports
# exactly one HWC001 at 2:1, so the diagnostics tell which files were linted.
UNCLASSIFIED = "import unittest\nclass TestA(unittest.TestCase):\n    def test_a(self):\n        pass\n"


def tree(root: Path, files: list[str], settings: dict | None = None, extra: dict[str, str] | None = None) -> Path:
    write_project(root, {**{f: UNCLASSIFIED for f in files}, **(extra or {})}, settings)
    return root


def found(root: Path, paths: list[Path] | None = None) -> list[str]:
    return discover(load_config(start=root), paths).files


def cli_paths(
    root: Path, *args: str, cwd: Path | None = None
) -> tuple[list[tuple[str, int, int, str]], subprocess.CompletedProcess[str]]:
    proc = run_cli("check", "--format", "json", "--no-allowlist", *args, cwd=cwd or root)
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    diags = json.loads(proc.stdout)
    return [(d["path"], d["line"], d["column"], d["code"]) for d in diags], proc


# -- include / exclude ------------------------------------------------------


def test_default_include(tmp_path: Path) -> None:
    root = tree(
        tmp_path / "p",
        [
            "test/test_a.py",
            "test/a/b/test_c.py",
            "test/x_test.py",
            "tests/test_a.py",
            "test/common_a.py",
            "test_top.py",
            "test/test_a.txt",
            "src/test/test_s.py",
        ],
    )
    assert found(root) == ["test/a/b/test_c.py", "test/test_a.py", "test/x_test.py"]
    diags, proc = cli_paths(root)
    assert diags == [
        ("test/a/b/test_c.py", 2, 1, "HWC001"),
        ("test/test_a.py", 2, 1, "HWC001"),
        ("test/x_test.py", 2, 1, "HWC001"),
    ]
    assert proc.returncode == 1


def test_custom_include_exclude_are_relative_to_the_root(tmp_path: Path) -> None:
    root = tree(
        tmp_path / "p",
        [
            "suite/check_a.py",
            "suite/x/check_b.py",
            "suite/vendor/check_c.py",
            "suite/x/check_skip.py",
            "other/suite/check_d.py",
            "test/test_e.py",
            "suite/helper.py",
        ],
        {"include": ["suite/**/check_*.py"], "exclude": ["suite/vendor/", "check_skip.py"]},
    )
    expected = ["suite/check_a.py", "suite/x/check_b.py"]
    assert found(root) == expected
    # Run from a subfolder: the globs still mean root-relative paths, and
    # the output names root-relative paths.
    diags, _ = cli_paths(root, cwd=root / "suite" / "x")
    assert [d[0] for d in diags] == expected


def test_excluded_directory_named_on_the_command_line(tmp_path: Path) -> None:
    root = tree(tmp_path / "p", ["test/test_a.py", "test/gen/test_g.py"], {"exclude": ["test/gen/"]})
    assert found(root) == ["test/test_a.py"]
    assert found(root, [root / "test" / "gen"]) == []
    assert found(root, [root / "test" / "gen" / "test_g.py"]) == []


# -- .gitignore -------------------------------------------------------------

GITIGNORE_FILES = [
    "test/test_plain.py",
    "test/build/test_b.py",  # build/ (directory pattern, any depth)
    "test/test_dironly.py",  # test_dironly.py/ is a directory pattern: a file is kept
    "test/test_gen1.py",  # test_gen*.py
    "test/test_gen_keep.py",  # !test_gen_keep.py re-includes it
    "test/test_drop.py",  # /test/test_drop.py (anchored in the root)
    "test/sub/test_drop.py",  # ... but not this one
    "test/sub/test_local.py",  # test/sub/.gitignore: test_local.py
    "test/test_local.py",  # ... which does not apply one level up
    "test/sub/test_gen_sub.py",  # root ignores test_gen*, test/sub/.gitignore re-includes
    "test/vendor/test_v.py",  # vendor/ then !vendor/test_v.py: a file in an
    # ignored folder cannot be re-included (git)
    "test/anchored/test_x.py",  # test/.gitignore: /anchored/
    "test/sub/anchored/test_x.py",  # ... only test/anchored, not test/sub/anchored
]
GITIGNORES = {
    ".gitignore": "# comment\nbuild/\ntest_dironly.py/\ntest_gen*.py\n!test_gen_keep.py\n/test/test_drop.py\n"
    "vendor/\n!vendor/test_v.py\n",
    "test/.gitignore": "/anchored/\n",
    "test/sub/.gitignore": "test_local.py\n!test_gen_sub.py\n",
}
GITIGNORE_EXPECTED = [
    "test/sub/anchored/test_x.py",
    "test/sub/test_drop.py",
    "test/sub/test_gen_sub.py",
    "test/test_dironly.py",
    "test/test_gen_keep.py",
    "test/test_local.py",
    "test/test_plain.py",
]


def test_gitignore_without_git(tmp_path: Path) -> None:
    root = tree(tmp_path / "p", GITIGNORE_FILES, extra=GITIGNORES)
    assert not (root / ".git").exists()
    assert found(root) == GITIGNORE_EXPECTED
    diags, _ = cli_paths(root)
    assert sorted({d[0] for d in diags}) == GITIGNORE_EXPECTED


def test_gitignore_agrees_with_git(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tree(tmp_path / "p", GITIGNORE_FILES, extra=GITIGNORES)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert sorted(f for f in listed if f.startswith("test/") and f.endswith(".py")) == GITIGNORE_EXPECTED
    assert found(root) == GITIGNORE_EXPECTED


def test_explicit_paths_go_through_gitignore(tmp_path: Path) -> None:
    root = tree(tmp_path / "p", GITIGNORE_FILES, extra=GITIGNORES)
    result = discover(load_config(start=root), [root / f for f in GITIGNORE_FILES])
    assert result.files == GITIGNORE_EXPECTED
    assert result.missing == []
    # A folder named on the command line that .gitignore ignores: nothing.
    assert found(root, [root / "test" / "build"]) == []
    # A missing file under an ignored folder is not "file not found" either.
    result = discover(load_config(start=root), [root / "test" / "build" / "test_gone.py"])
    assert (result.files, result.missing) == ([], [])


@pytest.mark.parametrize(
    ("gitignore", "expected"),
    [
        # The whitelist idiom: ignore everything, then re-include folders and .py files.
        ("*\n!*/\n!*.py\n", ["test/sub/test_b.py", "test/test_a.py"]),
        # Everything under sub is ignored, but not sub itself: a negation inside works.
        ("test/sub/*\n!test/sub/test_b.py\n", ["test/sub/test_b.py", "test/test_a.py"]),
        ("test/sub/**\n!test/sub/test_b.py\n", ["test/sub/test_b.py", "test/test_a.py"]),
        # Ignoring the folder itself: nothing inside can come back.
        ("test/sub/\n!test/sub/test_b.py\n", ["test/test_a.py"]),
        ("*\n!*.py\n", []),  # folders stay ignored by `*`
        ("sub\n", ["test/test_a.py"]),
        ("\\!x\ntest_a.py\n!/test/test_a.py\n", ["test/sub/test_b.py", "test/test_a.py"]),
    ],
)
def test_gitignore_negation_and_folders(tmp_path: Path, gitignore: str, expected: list[str]) -> None:
    root = tree(tmp_path / "p", ["test/test_a.py", "test/sub/test_b.py"], extra={".gitignore": gitignore})
    assert found(root) == expected
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        listed = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.split()
        assert sorted(f for f in listed if f.startswith("test/")) == expected
        assert found(root) == expected


def test_dot_git_is_never_walked(tmp_path: Path) -> None:
    root = tree(
        tmp_path / "p",
        ["test/test_a.py", ".git/test_x.py", ".git/modules/test/test_y.py", "vendored/.git/test_z.py"],
        {"include": ["**/test_*.py"]},
    )
    assert found(root) == ["test/test_a.py"]
    # Not through the command line either.
    assert found(root, [root / ".git" / "test_x.py"]) == []
    assert found(root, [root / ".git"]) == []


# -- paths on the command line ---------------------------------------------


def test_explicit_files_are_filtered_like_the_tree(tmp_path: Path) -> None:
    """pre-commit passes every staged file: only test files are linted."""
    root = tree(
        tmp_path / "p", ["test/test_a.py", "test/common_a.py"], extra={"README.md": "# hi\n", "setup.py": "x = 1\n"}
    )
    diags, proc = cli_paths(root, "README.md", "test/test_a.py", "test/common_a.py", "setup.py")
    assert diags == [("test/test_a.py", 2, 1, "HWC001")]
    assert proc.returncode == 1
    # None of them a test file: exit 0, and the text output says why nothing ran.
    proc = run_cli("check", "README.md", "setup.py", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no test files among the given paths" in proc.stderr


def test_explicit_directory_walks_only_that_directory(tmp_path: Path) -> None:
    root = tree(tmp_path / "p", ["test/test_a.py", "test/a/test_b.py", "test/a/b/test_c.py", "test/z/test_d.py"])
    assert found(root, [root / "test" / "a"]) == ["test/a/b/test_c.py", "test/a/test_b.py"]
    diags, _ = cli_paths(root, "a", cwd=root / "test")
    assert [d[0] for d in diags] == ["test/a/b/test_c.py", "test/a/test_b.py"]
    # The root itself, and the same file twice, give each file once.
    assert found(root, [root, root / "test" / "test_a.py"]) == [
        "test/a/b/test_c.py",
        "test/a/test_b.py",
        "test/test_a.py",
        "test/z/test_d.py",
    ]


def test_missing_path_that_matches_include_is_hwc000(tmp_path: Path) -> None:
    root = tree(tmp_path / "p", ["test/test_a.py"])
    diags, proc = cli_paths(root, "test/test_gone.py", "docs/gone.md", "test/test_a.py")
    assert diags == [("test/test_a.py", 2, 1, "HWC001"), ("test/test_gone.py", 1, 1, "HWC000")]
    messages = [d["message"] for d in json.loads(proc.stdout) if d["code"] == "HWC000"]
    assert messages == ["file not found"]


def test_path_outside_the_root_is_a_warning(tmp_path: Path) -> None:
    root = tree(tmp_path / "p", ["test/test_a.py"])
    outside = tmp_path / "elsewhere" / "test" / "test_o.py"
    outside.parent.mkdir(parents=True)
    outside.write_text(UNCLASSIFIED)
    proc = run_cli("check", "--no-allowlist", str(outside), cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"hwlint: warning: {outside} is outside the project root" in proc.stderr
    assert "test_o.py" not in proc.stdout
    diags, proc = cli_paths(root, "../elsewhere/test/test_o.py", "test/test_a.py")
    assert diags == [("test/test_a.py", 2, 1, "HWC001")]
    assert "outside the project root" in proc.stderr
    assert discover(load_config(start=root), [outside]).outside == [str(outside)]


# -- order ------------------------------------------------------------------


def test_output_does_not_depend_on_scandir_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [f"test/{d}/test_{n}.py" for d in ("a", "b", "c/d") for n in "xyz"] + ["test/test_top.py", "test/z_test.py"]
    root = tree(tmp_path / "p", files)
    real_scandir = os.scandir
    calls = 0

    def runs() -> tuple[list[str], list[tuple[str, int, int, str]]]:
        result = lint(root)
        return found(root), [(d.path, d.line, d.column, d.code) for d in result.diagnostics]

    baseline = runs()
    assert baseline[0] == sorted(files)
    for seed in range(5):
        rng = random.Random(seed)

        def shuffled(path: object = ".") -> list[os.DirEntry[str]]:
            nonlocal calls
            calls += 1
            with real_scandir(path) as it:  # type: ignore[call-overload]
                entries = list(it)
            rng.shuffle(entries)  # noqa: B023 (called within this iteration)
            return entries

        monkeypatch.setattr(hwlint.facts.discover.os, "scandir", shuffled)
        assert runs() == baseline
        monkeypatch.setattr(hwlint.facts.discover.os, "scandir", real_scandir)
    assert calls > 0  # the patch was in effect


# -- symlinks and odd entries ------------------------------------------------


@pytest.fixture
def can_symlink(tmp_path: Path) -> None:
    try:
        os.symlink(tmp_path, tmp_path / "probe-link")
    except (OSError, NotImplementedError):
        pytest.skip("symlinks are not available here")
    os.unlink(tmp_path / "probe-link")


def test_symlink_loop_is_not_followed(tmp_path: Path, can_symlink: None) -> None:
    root = tree(tmp_path / "p", ["test/test_a.py", "test/a/test_b.py"])
    os.symlink("..", root / "test" / "a" / "up")  # test/a/up -> test
    os.symlink(".", root / "test" / "a" / "self")  # test/a/self -> test/a
    os.symlink(root / "test", root / "test" / "again")  # absolute link into the tree
    # In a thread with a deadline: following the links would fail the test, not hang it.
    outcome: list[list[str]] = []
    worker = threading.Thread(target=lambda: outcome.append(found(root)), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert outcome == [["test/a/test_b.py", "test/test_a.py"]], "discovery followed a symlink loop"
    diags, _ = cli_paths(root)
    assert [d[0] for d in diags] == ["test/a/test_b.py", "test/test_a.py"]
    # A linked folder named on the command line is walked, once, links inside not followed.
    assert found(root, [root / "test" / "a" / "up"]) == ["test/a/up/a/test_b.py", "test/a/up/test_a.py"]


def test_symlinked_directory_named_like_a_test_file(tmp_path: Path, can_symlink: None) -> None:
    root = tree(tmp_path / "p", ["test/test_a.py", "test/real/test_b.py"])
    os.symlink("real", root / "test" / "test_link.py")
    assert found(root) == ["test/real/test_b.py", "test/test_a.py"]
    codes = [d.code for d in lint(root).diagnostics]
    assert "HWC000" not in codes


def test_symlinked_file_is_linted(tmp_path: Path, can_symlink: None) -> None:
    root = tree(tmp_path / "p", ["test/test_a.py"], extra={"test/common_impl.py": UNCLASSIFIED})
    os.symlink("common_impl.py", root / "test" / "test_alias.py")
    assert found(root) == ["test/test_a.py", "test/test_alias.py"]


def test_broken_symlink_is_hwc000_not_a_crash(tmp_path: Path, can_symlink: None) -> None:
    root = tree(tmp_path / "p", ["test/test_a.py"])
    os.symlink("nowhere.py", root / "test" / "test_broken.py")
    assert found(root) == ["test/test_a.py", "test/test_broken.py"]
    diags, proc = cli_paths(root)
    assert diags == [("test/test_a.py", 2, 1, "HWC001"), ("test/test_broken.py", 1, 1, "HWC000")]
    assert "Traceback" not in proc.stderr
    # Named on the command line: the same.
    diags, _ = cli_paths(root, "test/test_broken.py")
    assert diags == [("test/test_broken.py", 1, 1, "HWC000")]


def test_directory_named_like_a_test_file_is_walked_not_read(tmp_path: Path) -> None:
    root = tree(tmp_path / "p", ["test/test_a.py", "test/test_dir.py/test_inner.py"])
    (root / "test" / "test_empty.py").mkdir()
    assert found(root) == ["test/test_a.py", "test/test_dir.py/test_inner.py"]
    diags, _ = cli_paths(root)
    assert diags == [("test/test_a.py", 2, 1, "HWC001"), ("test/test_dir.py/test_inner.py", 2, 1, "HWC001")]
    assert found(root, [root / "test" / "test_empty.py"]) == []
