"""Adopting hwlint on an existing test suite: `allowlist init`, and a run
that matched no file explaining itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli, write_project
from tests.test_allowlist import CLEAN, HEADER, unclassified

NEXT = (
    "Next:\n"
    "  git add allowlist.txt && git commit -m 'Adopt hwlint: allowlist the files not yet migrated'\n"
    "  in CI: hwlint check && hwlint allowlist check --base origin/main\n"
    "  then: hwlint fix (classifies what can be inferred, prunes the list)\n"
)


def test_init_lists_every_file_with_violations_at_its_count(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {
            "test/test_a.py": unclassified(2),
            "test/nn/test_b.py": unclassified(1),
            "test/test_clean.py": CLEAN,
        },
    )
    before = run_cli("check", cwd=root)
    assert before.returncode == 1
    result = run_cli("allowlist", "init", cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        ("Created allowlist.txt: 2 files with 3 violations (3 test files checked).\n" + NEXT),
        "",
    )
    assert (root / "allowlist.txt").read_text() == HEADER + "test/nn/test_b.py 1\ntest/test_a.py 2\n"
    after = run_cli("check", cwd=root)
    assert (after.returncode, after.stdout) == (0, "All checks passed (3 files checked, 2 allowlisted).\n")


def test_init_refuses_when_a_list_exists_even_an_empty_one(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"test/test_a.py": unclassified(1)}, allowlist=HEADER)
    result = run_cli("allowlist", "init", cwd=root)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "hwlint: error: allowlist.txt already exists (0 entries): `hwlint allowlist init` only creates a list; "
        "`hwlint allowlist prune` shrinks it, `hwlint allowlist sync` rebuilds it\n"
    )
    assert (root / "allowlist.txt").read_text() == HEADER


def test_init_on_a_clean_tree_writes_an_empty_list(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"test/test_ok.py": CLEAN})
    result = run_cli("allowlist", "init", cwd=root)
    assert result.returncode == 0
    assert result.stdout.splitlines()[0] == "Created allowlist.txt with no entries: all 1 test files are clean."
    assert (root / "allowlist.txt").read_text() == HEADER


def test_init_warns_about_files_that_cannot_be_allowlisted(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"test/test_a.py": unclassified(1), "test/test_broken.py": "def (:\n"})
    result = run_cli("allowlist", "init", cwd=root)
    assert result.returncode == 0
    assert result.stderr == (
        "hwlint: warning: test/test_broken.py does not parse (HWC000): it cannot be allowlisted; "
        "`hwlint check` reports it until it is fixed\n"
    )
    assert (root / "allowlist.txt").read_text() == HEADER + "test/test_a.py 1\n"


def test_sync_on_a_missing_list_points_to_init_in_one_line(tmp_path: Path) -> None:
    root = write_project(tmp_path, {f"test/test_{i}.py": unclassified(1) for i in range(5)})
    result = run_cli("allowlist", "sync", cwd=root)
    assert (result.returncode, result.stdout) == (
        1,
        (
            "allowlist.txt does not exist: nothing to sync. To adopt hwlint, create it from the tree as it is: "
            "`hwlint allowlist init`. Growth refused: 5 files not added.\n"
        ),
    )
    assert not (root / "allowlist.txt").exists()


def test_init_with_nothing_matched_explains_and_writes_nothing(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"tests/unit/test_a.py": unclassified(1)})
    result = run_cli("allowlist", "init", cwd=root)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"hwlint: error: nothing to adopt: no test file matched under {root} (settings from {root / 'pyproject.toml'}; "
        'include = ["test/**/test_*.py", "test/**/*_test.py"]); 1 file named like tests exists under tests/: '
        f'set include (e.g. include = ["tests/**/test_*.py"]) in [tool.hwlint] of {root / "pyproject.toml"}\n'
    )
    assert not (root / "allowlist.txt").exists()


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast-path", "click"])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_check_that_matched_nothing_says_where_it_looked(tmp_path: Path, fast_path: bool, fmt: str) -> None:
    """Exit 0 stays (nothing is wrong with an empty project), but stderr
    names the root, the settings, the patterns and how to change them."""
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "test_x.py").write_text(unclassified(1))
    (root / "other").mkdir()
    (root / "other" / "y_test.py").write_text(unclassified(1))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    env = {**os.environ, "HWLINT_NO_FAST_PATH": "" if fast_path else "1"}
    result = subprocess.run(
        [sys.executable, "-m", "hwlint", "check", "--format", fmt],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0
    assert result.stdout == ("All checks passed (0 files checked).\n" if fmt == "text" else "[]\n")
    assert result.stderr == (
        f"hwlint: warning: no test file matched under {root} (default settings: no hwlint.toml or pyproject.toml "
        'with [tool.hwlint] found; include = ["test/**/test_*.py", "test/**/*_test.py"]); 2 files named like '
        'tests exist under other/, src/: set include (e.g. include = ["other/**/test_*.py"]) in [tool.hwlint] of '
        "pyproject.toml at the project root\n"
    )


def test_a_check_with_exclude_shows_it(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"test/test_a.py": unclassified(1)}, settings={"exclude": ["test/**"]})
    result = run_cli("check", cwd=root)
    assert result.returncode == 0
    assert (
        'include = ["test/**/test_*.py", "test/**/*_test.py"], exclude = ["test/**"]); 1 file named like tests exists under test/'
        in result.stderr
    )


# ---------------------------------------------------------------------------
# The whole loop, on a generated PyTorch-like tree (benchmarks/corpus/).


def _corpus():  # type: ignore[no-untyped-def]
    from benchmarks import corpus

    return corpus


def _git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env).stdout


def unadopted_tree(root: Path, files: int, seed: int) -> Path:
    """A generated tree as a project meets hwlint: no allowlist, no settings,
    every file parses, committed in a fresh git repository."""
    corpus = _corpus()
    summary = corpus.generate(root, files=files, seed=seed)
    for rel in summary["syntax_error_files"]:
        (root / rel).unlink()
    (root / "allowlist.txt").unlink()
    (root / "pyproject.toml").unlink()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "The test suite")
    return root


def readme_adoption_lines() -> list[str]:
    readme = (Path(__file__).resolve().parents[1] / "docs" / "adopting.md").read_text(encoding="utf-8")
    block = readme.split("<!-- adoption:", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_the_readme_adoption_section_runs_word_for_word(tmp_path: Path) -> None:
    root = unadopted_tree(tmp_path / "suite", files=80, seed=5)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    lines = readme_adoption_lines()
    # Every line passes: `hwlint fix` leaves classes for a human, but in
    # allowlisted files within their budgets, so `hwlint check` passes and
    # fix exits as check does.
    expected = [0 for line in lines]
    codes = []
    for line in lines:
        done = subprocess.run(["bash", "-c", line], cwd=root, capture_output=True, text=True, env=env, timeout=600)
        codes.append(done.returncode)
        assert done.returncode == expected[len(codes) - 1], (line, done.stdout[-2000:], done.stderr[-2000:])
        if "git commit" in line and "Adopt" in line:
            # The adoption commit lands on main before CI gates pull requests on it.
            _git(root, "update-ref", "refs/remotes/origin/main", "HEAD")
    assert codes == expected
    assert lines[0] == "hwlint allowlist init" and "hwlint check" in lines and lines[-1].startswith("hwlint report")


def test_the_migration_loop_keeps_ci_green_and_every_figure_true(tmp_path: Path) -> None:
    """init → commit → check → fix → check → prune → commit → report, on a
    generated tree of a few hundred files whose unmigrated device-type
    classes use @onlyCPU/@onlyCUDA (what ACCELERATOR would surface). The
    report's figures equal a recount of the files with `ast`."""
    corpus = _corpus()
    root = unadopted_tree(tmp_path / "suite", files=250, seed=11)
    before = corpus.census(root)
    adopted = {rel: n for rel, (_, n) in before.items() if n}
    assert len(adopted) > 50

    init = run_cli("allowlist", "init", cwd=root)
    assert init.returncode == 0, init.stderr
    assert (root / "allowlist.txt").read_text() == HEADER + "".join(f"{p} {n}\n" for p, n in sorted(adopted.items()))
    _git(root, "add", "allowlist.txt")
    _git(root, "commit", "-q", "-m", "Adopt hwlint")
    assert run_cli("check", cwd=root).returncode == 0

    fix = run_cli("fix", cwd=root)
    assert fix.returncode == 0  # classes are left for a human, allowlisted within their budgets
    check = run_cli("check", cwd=root)
    assert check.returncode == 0, check.stdout
    prune = run_cli("allowlist", "prune", cwd=root)
    assert prune.returncode == 0
    _git(root, "commit", "-q", "-am", "Classify what hwlint can infer")

    after = corpus.census(root)
    left = {rel: n for rel, (_, n) in after.items() if n}
    # A safe fix surfaces nothing: every file's violations are its unclassified classes.
    assert (root / "allowlist.txt").read_text() == HEADER + "".join(f"{p} {n}\n" for p, n in sorted(left.items()))
    assert 0 < len(left) < len(adopted)
    assert all(n <= adopted[rel] for rel, n in left.items())

    report = run_cli("report", "--format", "json", "--history", cwd=root)
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    assert data["files_allowlisted"] == len(left)
    assert data["classes_total"] == sum(total for total, _ in after.values())
    assert data["classes_unclassified"] == sum(left.values())
    assert [h["allowlisted"] for h in data["history"]] == [len(adopted), len(left)]
    assert data["baseline"] == len(adopted)
    assert data["percent_migrated"] == round(100 * (len(adopted) - len(left)) / len(adopted), 1)
