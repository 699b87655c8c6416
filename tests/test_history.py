"""The allowlist's history, read from real git repositories, and the
projected date for zero."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwlint.allowlist.history import HistoryPoint, allowlist_history, count_entries, count_versions, project_zero
from hwlint.core.diagnostics import UserError
from tests.conftest import run_cli, write_project

# A git that ignores the machine's and the user's settings (signing, hooks,
# default branch), with fixed identities: the same commits give the same
# hashes on every machine, which the golden files rely on.
GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


def git(root: Path, *args: str, date: str | None = None) -> str:
    env = dict(GIT_ENV)
    if date is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{date}T00:00:00+0000"
    proc = subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True)
    return proc.stdout


def init_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    return root


def commit(root: Path, date: str, files: dict[str, str | None], message: str = "change") -> str:
    """Write (or, for None, delete) files and commit them at `date` (YYYY-MM-DD)."""
    for rel, text in files.items():
        path = root / rel
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, date=date)
    return git(root, "rev-parse", "HEAD").strip()


def listing(count: int, prefix: str = "test/test_") -> str:
    lines = ["# Test files not yet migrated.", "# <path> <violations allowed>"]
    lines += [f"{prefix}{i:03d}.py 1" for i in range(count)]
    return "\n".join(lines) + "\n"


def test_count_entries() -> None:
    text = b"# comment\n\n  # indented comment\ntest/a.py 2\ntest/b.py 1  # why\ntest/a.py 3\n"
    assert count_entries(text) == 2  # a duplicated line names one file
    conflicted = b"test/a.py 1\n<<<<<<< HEAD\ntest/b.py 1\n=======\ntest/c.py 1\n>>>>>>> branch\n"
    assert count_entries(conflicted) == 3
    assert count_entries(b"") == 0


_LINES = st.sampled_from(
    [
        b"test/a.py 1",
        b"test/a.py 2",
        b"test/b.py 1",
        b"  test/c.py 3  # why",
        b"# comment",
        b"",
        b"   ",
        b"<<<<<<< HEAD",
        b"=======",
        b"test/d.py 1\r",
        b"test/e.py",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.lists(_LINES, max_size=8).map(b"\n".join)), max_size=8))
def test_incremental_counts_equal_counting_each_version(blobs: list[bytes | None]) -> None:
    assert count_versions(blobs) == [count_entries(b) if b is not None else 0 for b in blobs]


def test_history_of_several_commits(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo")
    first = commit(root, "2024-01-01", {"allowlist.txt": listing(8)})
    second = commit(root, "2024-01-15", {"allowlist.txt": listing(6)})
    commit(root, "2024-02-01", {"test/test_x.py": "x = 1\n"}, "not about the allowlist")
    third = commit(root, "2024-02-10", {"allowlist.txt": listing(5)})
    fourth = commit(root, "2024-03-01", {"allowlist.txt": listing(3)})
    (root / "allowlist.txt").write_text(listing(1))  # uncommitted: not history

    history = allowlist_history(root, "allowlist.txt")
    assert [p.to_dict() for p in history] == [
        {"commit": first, "date": "2024-01-01T00:00:00Z", "allowlisted": 8},
        {"commit": second, "date": "2024-01-15T00:00:00Z", "allowlisted": 6},
        {"commit": third, "date": "2024-02-10T00:00:00Z", "allowlisted": 5},
        {"commit": fourth, "date": "2024-03-01T00:00:00Z", "allowlisted": 3},
    ]
    projection = project_zero(history)
    assert projection is not None
    # Least squares over (-60, 8), (-46, 6), (-20, 5), (0, 3) days: slope
    # -163/2147 files/day; 3 files left at that rate is 39.5 days after
    # 2024-03-01.
    assert projection.files_per_day == pytest.approx(-163 / 2147)
    assert projection.points == 4
    assert projection.date == "2024-04-09"


def test_deleted_and_recreated_allowlist(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo")
    commit(root, "2024-01-01", {"allowlist.txt": listing(2), "README": "x\n"})
    commit(root, "2024-01-02", {"allowlist.txt": None})
    commit(root, "2024-01-03", {"allowlist.txt": listing(4)})
    assert [p.allowlisted for p in allowlist_history(root, "allowlist.txt")] == [2, 0, 4]


def test_first_parent_history_of_a_merged_branch(tmp_path: Path) -> None:
    """Points are states the main line had: a merged branch's intermediate
    commits are not, the merge commit is."""
    root = init_repo(tmp_path / "repo")
    base = commit(root, "2024-01-01", {"allowlist.txt": listing(5)})
    git(root, "checkout", "-q", "-b", "feature")
    commit(root, "2024-01-02", {"allowlist.txt": listing(4)})
    commit(root, "2024-01-03", {"allowlist.txt": listing(3)})
    git(root, "checkout", "-q", "main")
    commit(root, "2024-01-04", {"other.txt": "x\n"})
    git(root, "merge", "-q", "--no-ff", "feature", "-m", "merge feature", date="2024-01-05")
    merge = git(root, "rev-parse", "HEAD").strip()
    history = allowlist_history(root, "allowlist.txt")
    assert [(p.commit, p.allowlisted) for p in history] == [(base, 5), (merge, 3)]


def test_project_in_a_subfolder_of_the_repository(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo")
    commit(root, "2024-01-01", {"tools/lint/allowlist.txt": listing(3), "allowlist.txt": listing(9)})
    commit(root, "2024-01-02", {"tools/lint/allowlist.txt": listing(2)})
    history = allowlist_history(root / "tools" / "lint", "allowlist.txt")
    assert [p.allowlisted for p in history] == [3, 2]


def test_no_commits_yet_and_never_committed(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo")
    assert allowlist_history(root, "allowlist.txt") == []
    commit(root, "2024-01-01", {"README": "x\n"})
    assert allowlist_history(root, "allowlist.txt") == []


def test_outside_a_repository_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not in a git repository"):
        allowlist_history(tmp_path, "allowlist.txt")


def test_cli_history_outside_a_repository(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", {"test/test_a.py": "x = 1\n"}, allowlist="")
    result = run_cli("report", "--history", cwd=root)
    assert result.returncode == 2
    assert result.stdout == ""
    assert (
        result.stderr
        == f"hwlint: error: --history reads the allowlist's git history, but {root} is not in a git repository\n"
    )


def _points(*pairs: tuple[str, int]) -> list[HistoryPoint]:
    from datetime import datetime, timezone

    return [
        HistoryPoint(f"{i:040x}", int(datetime.strptime(d, "%Y-%m-%d").replace(tzinfo=timezone.utc).timestamp()), n)
        for i, (d, n) in enumerate(pairs)
    ]


def test_projection_straight_line() -> None:
    # 10 files a day down from 100: 50 left on day 5, zero on day 10.
    projection = project_zero(_points(("2024-01-01", 100), ("2024-01-03", 80), ("2024-01-06", 50)))
    assert projection is not None
    assert projection.files_per_day == pytest.approx(-10)
    assert projection.date == "2024-01-11"
    assert projection.to_dict() == {"method": "least-squares", "window_days": 90, "points": 3, "files_per_day": -10.0}


def test_projection_uses_the_recent_window() -> None:
    # Fast early progress, then 1 file per 10 days in the last 90 days: the
    # recent pace decides.
    history = _points(
        ("2023-01-01", 500), ("2023-02-01", 100), ("2024-01-01", 30), ("2024-01-11", 29), ("2024-01-21", 28)
    )
    projection = project_zero(history)
    assert projection is not None and projection.points == 3
    assert projection.files_per_day == pytest.approx(-0.1)
    assert projection.date == "2024-10-27"  # 280 days after 2024-01-21


def test_projection_falls_back_to_the_last_two_points() -> None:
    projection = project_zero(_points(("2020-01-01", 10), ("2023-01-01", 20), ("2024-01-01", 10)))
    assert projection is not None and projection.points == 2
    assert projection.date == "2024-12-31"  # 10 files in 365 days, 10 left: 365 days of leap year 2024


def test_projection_none_when_not_shrinking() -> None:
    growing = project_zero(_points(("2024-01-01", 3), ("2024-01-02", 4)))
    assert growing is not None and growing.date is None and growing.files_per_day == pytest.approx(1)
    flat = project_zero(_points(("2024-01-01", 3), ("2024-01-02", 3)))
    assert flat is not None and flat.date is None
    assert project_zero(_points(("2024-01-01", 3))) is None
    assert project_zero([]) is None
    same_instant = project_zero(_points(("2024-01-01", 3), ("2024-01-01", 2)))
    assert same_instant is not None and same_instant.date is None


def test_projection_when_zero_is_reached() -> None:
    projection = project_zero(_points(("2024-01-01", 3), ("2024-02-01", 0), ("2024-03-01", 0)))
    assert projection is not None
    assert (projection.method, projection.date) == ("reached", "2024-02-01")


def test_projection_centuries_away_has_no_date() -> None:
    projection = project_zero(_points(("2024-01-01", 10**9), ("2024-01-02", 10**9 - 1)))
    assert projection is not None and projection.date is None and projection.files_per_day < 0


def test_cli_history_without_git(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", {"test/test_a.py": "x = 1\n"}, allowlist="")
    result = subprocess.run(
        [sys.executable, "-m", "hwlint", "report", "--history"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": str(tmp_path / "empty")},
    )
    assert result.returncode == 2
    assert result.stderr == "hwlint: error: git is not installed (or not on PATH): --history needs it\n"


def test_largest_size_is_the_adoption(tmp_path: Path) -> None:
    """The report's default baseline: the most entries at any commit; None
    without a history (no repository, no commit, the list never committed)."""
    from hwlint.allowlist.history import largest_size

    root = init_repo(tmp_path / "repo")
    assert largest_size(root, "allowlist.txt") is None  # no commit yet
    commit(root, "2024-01-01", {"README": "x\n"})
    assert largest_size(root, "allowlist.txt") is None  # never committed
    commit(root, "2024-01-02", {"allowlist.txt": listing(4)})
    commit(root, "2024-01-03", {"allowlist.txt": listing(7)})  # it grew after the adoption
    commit(root, "2024-01-04", {"allowlist.txt": listing(2)})
    assert largest_size(root, "allowlist.txt") == 7
    plain = tmp_path / "plain"
    plain.mkdir()
    assert largest_size(plain, "allowlist.txt") is None  # not a repository: no error either
