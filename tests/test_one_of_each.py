"""One of each: the process pool, the git module, the "could be a TestCase"
heuristic and the format registry, each used by every caller that needs one."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Mapping

import pytest

import hwlint
from hwlint.infra.git import GitError, NotARepository, check_repository, read_blobs, tracks_under
from hwlint.infra.pool import plan, run_in_pool

# -- the process pool ----------------------------------------------------------


def _echo(
    batch: list[tuple[str, int]], tag: str, payloads: Mapping[str, int] | None = None
) -> list[tuple[str, str, int | None, int, tuple[str, ...]]]:
    """(path, tag, payload, pid, paths whose payloads the task got) per file."""
    seen = tuple(sorted(payloads)) if payloads is not None else ()
    return [(rel, tag, payloads[rel] if payloads is not None else None, os.getpid(), seen) for rel, _ in batch]


def test_pool_with_one_job_runs_here_in_order() -> None:
    sizes = [("b.py", 10), ("a.py", 500), ("c.py", 20)]
    done = []
    out = list(
        run_in_pool(
            _echo,
            ("t",),
            sizes,
            1,
            lambda n, total: done.append((n, total)),
            3,
            payloads={"a.py": 1, "b.py": 2, "c.py": 3},
        )
    )
    assert [(rel, tag, payload) for rel, tag, payload, _, _ in out] == [
        ("b.py", "t", 2),
        ("a.py", "t", 1),
        ("c.py", "t", 3),
    ]
    assert {pid for _, _, _, pid, _ in out} == {os.getpid()}
    assert [seen for *_, seen in out] == [("b.py",), ("a.py",), ("c.py",)]
    assert done == [(1, 3)] * 3


def test_pool_below_min_files_runs_here() -> None:
    sizes = [(f"{n}.py", 10) for n in range(5)]
    out = list(run_in_pool(_echo, ("t",), sizes, 4, None, 5, min_files=6))
    assert [rel for rel, *_ in out] == [rel for rel, _ in sizes]
    assert {pid for _, _, _, pid, _ in out} == {os.getpid()}


def test_pool_sends_each_task_its_own_payloads() -> None:
    sizes = [(f"{n:02}.py", 100 + n) for n in range(12)]
    payloads = {rel: n for n, (rel, _) in enumerate(sizes)}
    out = list(run_in_pool(_echo, ("t",), sizes, 2, None, 12, payloads=payloads, batch_files=2, min_files=8))
    assert sorted((rel, payload) for rel, _, payload, _, _ in out) == sorted(payloads.items())
    assert os.getpid() not in {pid for _, _, _, pid, _ in out}
    for rel, _, _, _, seen in out:
        assert rel in seen and len(seen) <= 2


def test_plan_batch_files() -> None:
    sizes = [(f"{n}.py", 10) for n in range(5)]
    assert [len(batch) for batch, _ in plan(sizes)] == [5]
    assert [len(batch) for batch, _ in plan(sizes, 2)] == [2, 2, 1]


def test_plan_sends_few_large_tasks_to_few_workers_and_counts_big_trees() -> None:
    kib = 1024
    sizes = [(f"{n:03}.py", 40 * kib) for n in range(400)] + [("big.py", 700 * kib), ("huge.py", 9000 * kib)]
    total = sum(size for _, size in sizes)
    two, sixteen = plan(sizes, jobs=2), plan(sizes, jobs=16)
    assert sorted(rel for batch, _ in two for rel, _ in batch) == sorted(rel for rel, _ in sizes)
    # About 8 tasks per worker: each costs the main process the same.
    assert len(two) <= 2 * 8 + 2 < len(sixteen) and len(sixteen) <= 16 * 8 + 2
    assert all(sum(s for _, s in batch) <= total // 16 + 40 * kib for batch, _ in two if len(batch) > 1)
    # A file bigger than a batch is a task of its own; a batch with a big
    # file counts its tree against the memory budget, one of small files nothing.
    assert two[0] == ([("huge.py", 9000 * kib)], 9000 * kib * 110)
    assert two[1][0][0] == ("big.py", 700 * kib) and two[1][1] == 700 * kib * 110
    assert two[-1][1] == 0


# -- the git module --------------------------------------------------------------


def _repo(root: Path) -> Path:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@b",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@b",
    }
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "list.txt").write_text("a\nb\n")
    for args in (("init", "-q"), ("add", "sub/list.txt"), ("commit", "-q", "-m", "one")):
        subprocess.run(["git", "-C", str(root), *args], env=env, check=True, capture_output=True)
    return root


def test_every_git_process_starts_in_the_git_module() -> None:
    package = Path(hwlint.__file__).parent
    for path in package.rglob("*.py"):
        if path.name == "git.py" and path.parent.name == "infra":
            continue
        text = path.read_text(encoding="utf-8")
        assert '"git"' not in text and "'git'" not in text, path


def test_read_blobs(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    assert read_blobs(root, []) == []
    assert read_blobs(root / "sub", ["HEAD:./list.txt", "HEAD:./gone.txt", "HEAD:sub"]) == [b"a\nb\n", None, None]


def test_check_repository(tmp_path: Path) -> None:
    check_repository(_repo(tmp_path / "repo"))
    (tmp_path / "plain").mkdir()
    with pytest.raises(NotARepository) as caught:
        check_repository(tmp_path / "plain")
    assert caught.value.reason is None and isinstance(caught.value, GitError)


def test_git_missing_names_what_needs_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(GitError, match=r"^git is not installed \(or not on PATH\): --history needs it$"):
        read_blobs(tmp_path, ["HEAD:x"], "--history")
    assert not tracks_under(tmp_path, "sub/")


def test_tracks_under(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    assert tracks_under(root, "sub/")
    assert not tracks_under(root, "other/")
    (tmp_path / "plain").mkdir()
    assert not tracks_under(tmp_path / "plain", "sub/")


# -- the "could be a TestCase" heuristic -------------------------------------------


@pytest.mark.parametrize(
    "base, maybe",
    [
        ("TestCase", True),
        ("NNTestCase", True),
        ("common_utils.DistributedTestBase", True),
        ("", True),
        ("nn.Module", False),
        ("Enum", False),
        ("test.Mixin", False),
        ("object", False),
    ],
)
def test_base_may_be_testcase(base: str, maybe: bool) -> None:
    from hwlint.rules.uncertain import base_may_be_testcase

    assert base_may_be_testcase(base) is maybe


def test_select_judges_by_the_rules_heuristic() -> None:
    import inspect

    from hwlint.select import selection

    source = inspect.getsource(selection)
    assert "base_may_be_testcase(" in source and '"Test" in' not in source


# -- the format registry ------------------------------------------------------------


def test_one_registry_knows_both_kinds_of_format() -> None:
    import importlib

    from hwlint import output
    from hwlint.cli import options

    assert output.CHECK_FORMATS == ("text", "json", "jsonl", "lintrunner", "github", "sarif", "junit")
    assert output.REPORT_FORMATS == ("text", "markdown", "json", "html")
    assert options.CHECK_FORMATS is output.CHECK_FORMATS and options.REPORT_FORMATS is output.REPORT_FORMATS
    assert [o.choices for o in options.CHECK if o.dest == "fmt"] == [output.CHECK_FORMATS]
    assert [o.choices for o in options.REPORT if o.dest == "fmt"] == [output.REPORT_FORMATS]
    for fmt in output.REPORT_FORMATS:
        assert output.renderer(fmt, "report") is importlib.import_module(f"hwlint.output.report_{fmt}").render
    assert (
        output.renderer("jsonl")
        is output.renderer("json", "check")
        is importlib.import_module("hwlint.output.json_").render
    )
    with pytest.raises(KeyError):
        output.renderer("markdown", "check")
