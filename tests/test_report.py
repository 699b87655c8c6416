"""`hwlint report`: each figure on a known tree, the formats against golden
files (HWLINT_UPDATE_GOLDEN=1 rewrites them), history from a real git
repository, and the progress bar."""

from __future__ import annotations

import functools
import json
import os
import pty
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hwlint.allowlist.model import load_allowlist
from hwlint.core.config import load_config
from hwlint.report.burndown import burndown_series
from hwlint.report.figures import build_report, percent_migrated
from hwlint.report.time_axis import point_labels
from tests.conftest import lint, run_cli, write_project
from tests.test_history import GIT_ENV, commit, git, init_repo, listing

GOLDEN = Path(__file__).parent / "golden"
PINNED = "1717243200"  # 2024-06-01T12:00:00Z

HEADER = "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n"
DEVICE = "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"

TREE = {
    "test/common_base.py": HEADER
    + """
class GenericBase(TestCase):
    hw_classification = HardwareClassification.GENERIC


class DeviceBase(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR
""",
    "test/test_ops.py": HEADER
    + DEVICE
    + """

class TestOps(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_add(self, device):
        pass


class TestOpsInfo(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_names(self):
        pass


instantiate_device_type_tests(TestOps, globals())
""",
    "test/test_legacy.py": HEADER
    + """

class TestLegacyA(TestCase):
    def test_a(self):
        pass


class TestLegacyB(TestCase):
    def test_b(self):
        pass
""",
    "test/test_broken.py": "class TestBroken(TestCase)\n    pass\n",
    "test/distributed/test_c10d.py": HEADER
    + DEVICE
    + """

class TestC10dA(TestCase):
    def test_a(self):
        pass


class TestC10dB(TestCase):
    def test_b(self):
        pass


class TestC10dCuda(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_c(self, device):
        pass


class C10dHelper:
    def helper(self):
        pass


instantiate_device_type_tests(TestC10dCuda, globals(), only_for="cuda")
""",
    "test/nn/test_conv.py": HEADER
    + DEVICE
    + """from common_base import DeviceBase


class TestConv(DeviceBase):
    def test_conv(self, device):
        pass


class TestConvCpu(TestCase):
    hw_classification = HardwareClassification.CPU

    def test_mkldnn(self, device):
        pass


class TestConvMps(TestCase):
    hw_classification = HardwareClassification.MPS

    def test_mps(self, device):
        pass


instantiate_device_type_tests(TestConv, globals(), except_for="meta")
instantiate_device_type_tests(TestConvCpu, globals(), only_for="cpu")
instantiate_device_type_tests(TestConvMps, globals(), only_for="mps", allow_mps=True)
""",
    "test/nn/test_init.py": HEADER
    + """from common_base import GenericBase


class TestInit(GenericBase):
    def test_init(self):
        pass


class TestInitBad(TestCase):
    hw_classification = "GENERIC"

    def test_bad(self):
        pass


class TestInitDevice(TestCase):
    def test_needs_device(self, device):
        pass
""",
}

ALLOWLIST = """\
# Test files not yet migrated to hw_classification. This list may only shrink.
test/distributed/test_c10d.py 2
test/distributed/test_gone.py 1
test/test_legacy.py 2
"""


def make_tree(root: Path) -> Path:
    return write_project(root, TREE, {"baseline": 10}, allowlist=ALLOWLIST)


def make_repo(root: Path) -> Path:
    """The tree, committed, after a history of four allowlist changes."""
    init_repo(root)
    commit(root, "2024-01-01", {"allowlist.txt": listing(8)}, "start the allowlist")
    commit(root, "2024-01-15", {"allowlist.txt": listing(6)}, "migrate two files")
    commit(root, "2024-02-01", {"README": "tests\n"}, "unrelated")
    commit(root, "2024-02-10", {"allowlist.txt": listing(5)}, "migrate one file")
    make_tree(root)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the tree as it is", date="2024-03-01")
    return root


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "proj")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Read-only for the tests that use it: built once.
    return make_repo(tmp_path_factory.mktemp("report") / "repo")


def figures(root: Path, **kwargs: object) -> dict:
    config = load_config(start=root)
    result = lint(root, use_allowlist=False)
    return build_report(
        result, load_allowlist(root, config.allowlist).entries, now=datetime(2024, 6, 1, tzinfo=timezone.utc), **kwargs
    )  # type: ignore[arg-type]


SPEC_KEYS = [
    "version",
    "generated_at",
    "root",
    "files_checked",
    "files_allowlisted",
    "baseline",
    "percent_migrated",
    "classes_total",
    "classes_by_classification",
    "classes_unclassified",
    "violations_by_code",
    "directories",
    "history",
    "projected_zero_date",
    "phases",
]


def test_each_figure_on_a_known_tree(tree: Path) -> None:
    report = figures(tree)
    assert list(report)[: len(SPEC_KEYS)] == SPEC_KEYS
    assert report["generated_at"] == "2024-06-01T00:00:00Z"
    assert report["root"] == str(tree.resolve())
    # Six test files (common_base.py is not one: include is test_*.py).
    assert report["files_checked"] == 6
    # Three entries, the one whose file is gone included: it must still go.
    assert report["files_allowlisted"] == 3
    assert report["baseline"] == 10
    assert report["percent_migrated"] == 70.0
    assert report["classes_by_classification"] == {
        "GENERIC": 2,
        "ACCELERATOR": 2,
        "CPU": 1,
        "CUDA": 1,
        "MPS": 1,
        "XPU": 0,
    }
    # Legacy A/B, C10d A/B, the invalid declaration, the device-taking class.
    assert report["classes_unclassified"] == 6
    assert report["classes_total"] == 13
    # Allowlisted files' violations count (4 of the 6 HWC001); HWC3xx do not.
    assert report["violations_by_code"] == {"HWC000": 1, "HWC001": 5, "HWC002": 1}
    assert report["directories"] == [
        {"path": "test/distributed", "files": 1, "allowlisted": 2, "classes": 3, "unclassified": 2},
        {"path": "test", "files": 3, "allowlisted": 1, "classes": 4, "unclassified": 2},
        {"path": "test/nn", "files": 2, "allowlisted": 0, "classes": 6, "unclassified": 2},
    ]
    assert report["top_files"] == [
        {"path": "test/distributed/test_c10d.py", "classes": 3, "unclassified": 2, "allowlisted": True},
        {"path": "test/nn/test_init.py", "classes": 3, "unclassified": 2, "allowlisted": False},
        {"path": "test/test_legacy.py", "classes": 2, "unclassified": 2, "allowlisted": True},
    ]
    assert report["history"] == [] and report["projected_zero_date"] is None and report["projection"] is None
    assert report["baseline_source"] == "configuration"
    # test_broken.py (HWC000) and test_nn/test_init.py (HWC001, HWC002); the
    # allowlisted files' violations are covered by the list.
    assert report["files_failing"] == 2
    assert (report["classes_classified"], report["percent_classified"]) == (7, 53.8)


def test_baseline_override_and_percent(tree: Path) -> None:
    report = figures(tree, baseline=4)
    assert (report["baseline"], report["baseline_source"], report["percent_migrated"]) == (4, "option", 25.0)
    assert percent_migrated(1191, 1191) == 0.0
    assert percent_migrated(1191, 0) == 100.0
    assert percent_migrated(1191, 400) == 66.4
    assert percent_migrated(3, 5) == 0.0  # the list grew past the baseline: clamped
    assert percent_migrated(0, 0) == 100.0
    assert percent_migrated(0, 2) == 0.0
    # 100.0 means done: one file left of 2,000 is 99.9, not a rounded 100.0.
    assert percent_migrated(2000, 1) == 99.9
    # An empty list with work left elsewhere (failing files, unclassified classes).
    assert percent_migrated(10, 0, work_left=True) == 99.9
    assert percent_migrated(0, 0, work_left=True) == 0.0


def test_baseline_without_configuration_or_git(tmp_path: Path) -> None:
    """No baseline configured, no repository: the list's current size, so
    nothing reads as migrated yet."""
    root = write_project(tmp_path / "proj", TREE, allowlist=ALLOWLIST)
    report = figures(root)
    assert (report["baseline"], report["baseline_source"], report["percent_migrated"]) == (3, "allowlist", 0.0)


def test_baseline_is_the_largest_size_in_git_history(tmp_path: Path) -> None:
    """No baseline configured: the most entries the list had at any commit
    (the adoption), read from git even without --history."""
    root = make_repo_without_baseline(tmp_path / "repo")
    # Adopted at 8, then 6, 5, and 3 now (committed): 5 of 8 files migrated.
    for args in ((), ("--history",)):
        report = json.loads(_run(root, "--format", "json", *args))
        assert (report["baseline"], report["baseline_source"]) == (8, "history"), args
        assert report["files_allowlisted"] == 3 and report["percent_migrated"] == round((8 - 3) / 8 * 100, 1)
    text = _run(root)
    assert "62.5% migrated: 3 files allowlisted (baseline 8)" in text
    assert "Baseline: the most files the allowlist has listed in its git history (its adoption)." in text
    # Entries added and not committed yet: the list's current size is larger than its history's.
    (root / "allowlist.txt").write_text(listing(9))
    report = json.loads(_run.__wrapped__(root, "--format", "json"))
    assert (report["baseline"], report["baseline_source"], report["percent_migrated"]) == (9, "allowlist", 0.0)


def make_repo_without_baseline(root: Path) -> Path:
    init_repo(root)
    commit(root, "2024-01-01", {"allowlist.txt": listing(8)}, "adopt hwlint")
    commit(root, "2024-01-15", {"allowlist.txt": listing(6)}, "migrate two files")
    commit(root, "2024-02-10", {"allowlist.txt": listing(5)}, "migrate one file")
    write_project(root, TREE, allowlist=ALLOWLIST)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the tree as it is", date="2024-03-01")
    return root


def test_a_tree_without_allowlist_is_never_migrated(tmp_path: Path) -> None:
    """Issue 14: no allowlist and unclassified classes read 0%, with the
    files that fail and the classes left beside it, in every format."""
    root = write_project(tmp_path / "proj", TREE)
    report = json.loads(_run(root, "--format", "json"))
    assert (report["baseline"], report["baseline_source"], report["files_allowlisted"]) == (0, "allowlist", 0)
    assert report["percent_migrated"] == 0.0
    # Every file with a violation fails: test_broken, test_legacy, test_c10d, test_init.
    assert report["files_failing"] == 4
    assert (report["classes_classified"], report["classes_total"], report["percent_classified"]) == (7, 13, 53.8)
    headline = "0.0% migrated: 0 files allowlisted (baseline 0), 4 failing outside the allowlist, 7 of 13 test classes classified (53.8%)"
    assert headline in _run(root)
    assert headline.replace(":", "**:", 1) in _run(root, "--format", "markdown")
    html = _run(root, "--format", "html")
    assert "<strong>0.0% migrated</strong>: 0 files allowlisted (baseline 0), 4 failing outside the allowlist" in html
    assert '<tr><td>files failing outside the allowlist</td><td class="num">4</td></tr>' in html


def test_violations_by_code_follows_select(tree: Path) -> None:
    config = load_config(start=tree)
    result = lint(tree, use_allowlist=False, select=("HWC001",))
    report = build_report(result, load_allowlist(tree, config.allowlist).entries)
    assert report["violations_by_code"] == {"HWC001": 5}


def test_history_figures(repo: Path) -> None:
    from hwlint.allowlist.history import allowlist_history

    report = figures(repo, history=allowlist_history(repo, "allowlist.txt"))
    assert [(p["date"], p["allowlisted"]) for p in report["history"]] == [
        ("2024-01-01T00:00:00Z", 8),
        ("2024-01-15T00:00:00Z", 6),
        ("2024-02-10T00:00:00Z", 5),
        ("2024-03-01T00:00:00Z", 3),
    ]
    assert report["projected_zero_date"] == "2024-04-09"
    assert report["projection"] == {"method": "least-squares", "window_days": 90, "points": 4, "files_per_day": -0.0759}


@functools.lru_cache(maxsize=None)
def _run(root: Path, *args: str) -> str:
    """`hwlint report ARGS` as a user runs it, at a pinned time (once per
    arguments: the repository does not change)."""
    result = subprocess.run(
        [sys.executable, "-m", "hwlint", "report", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**GIT_ENV, "SOURCE_DATE_EPOCH": PINNED},
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no progress bar when stderr is not a terminal
    return result.stdout.replace(str(root.resolve()), "<root>")


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("HWLINT_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


@pytest.mark.parametrize("fmt,suffix", [("markdown", "md"), ("json", "json"), ("text", "txt")])
def test_formats_golden(repo: Path, fmt: str, suffix: str) -> None:
    check_golden(f"report.{suffix}", _run(repo, "--history", "--format", fmt))


def test_json_keys_and_values(repo: Path) -> None:
    report = json.loads(_run(repo, "--history", "--format", "json"))
    assert list(report) == SPEC_KEYS + [
        "baseline_source",
        "files_failing",
        "classes_classified",
        "percent_classified",
        "top_files",
        "projection",
        "phase_burndown",
        "projection_note",
        "runners",
        "orphans",
        "unconfigured_devices",
        "unconfigured_device_settings",
    ]
    assert report["generated_at"] == "2024-06-01T12:00:00Z"
    assert report["root"] == "<root>"
    assert [p["allowlisted"] for p in report["history"]] == [8, 6, 5, 3]
    assert all(set(p) == {"commit", "date", "allowlisted"} and len(p["commit"]) == 40 for p in report["history"])
    assert report["projected_zero_date"] == "2024-04-09"
    assert all(set(d) == {"path", "files", "allowlisted", "classes", "unclassified"} for d in report["directories"])


def test_markdown_chart_is_mermaid_xychart(repo: Path) -> None:
    text = _run(repo, "--history", "--format", "markdown")
    chart = text.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert chart.splitlines()[0] == "xychart-beta"
    assert '    x-axis ["2024-01-01", "2024-01-15", "2024-02-10", "2024-03-01"]' in chart
    assert "    line [8, 6, 5, 3]" in chart


def test_output_file_and_without_history(tree: Path) -> None:
    out = tree / "report.json"
    result = run_cli("report", "--format", "json", "-o", str(out), cwd=tree)
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""
    report = json.loads(out.read_text())
    assert report["history"] == [] and report["projected_zero_date"] is None
    assert "## hwlint report" in run_cli("report", "--format", "markdown", cwd=tree).stdout
    text = run_cli("report", cwd=tree).stdout
    assert (
        "70.0% migrated: 3 files allowlisted (baseline 10), 2 failing outside the allowlist, 7 of 13 test classes classified (53.8%), 6 test files checked."
        in text
    )
    assert "Burn-down\n  Run `hwlint report --history` for the burn-down of the allowlist.\n" in text


SECTIONS = [
    "Summary",
    "Burn-down",
    "Test classes by classification",
    "Violations by rule",
    "Directories by remaining work",
    "Files with the most unclassified classes",
]


def test_every_format_shows_the_same_sections(repo: Path) -> None:
    """One layout: the same section titles, in the same order, with the
    same figures (the percent row, the total row) in text, markdown and html."""
    text = _run(repo, "--history", "--format", "text")
    assert [line for line in text.splitlines() if line in SECTIONS] == SECTIONS
    markdown = _run(repo, "--history", "--format", "markdown")
    assert re.findall(r"^### (.+)$", markdown, re.MULTILINE) == SECTIONS
    html = _run(repo, "--history", "--format", "html")
    assert re.findall(r'<section id="\w+"><h2>([^<]+)</h2>', html) == SECTIONS
    rows = {
        "percent migrated": "70.0%",
        "files failing outside the allowlist": 2,
        "classified classes": 7,
        "percent classified": "53.8%",
    }
    for figure, value in rows.items():
        assert re.search(rf"^  {figure} +{value}$", text, re.MULTILINE), figure
        assert f"| {figure} | {value} |" in markdown, figure
        assert f'<tr><td>{figure}</td><td class="num">{value}</td></tr>' in html, figure
    assert re.search(r"^  total +7$", text, re.MULTILINE) and "| total |  | 7 |" in markdown
    assert '<tfoot><tr><td>total</td><td></td><td class="num">7</td></tr></tfoot>' in html


def test_a_long_burndown_is_folded(tmp_path: Path) -> None:
    """Twenty-one commits: every format shows the newest fifteen and says
    how many more there are; markdown and html also fold them under a
    summary; json and --all-rows have them all."""
    root = tmp_path / "long"
    init_repo(root)
    for day in range(20):
        commit(root, f"2024-01-{day + 1:02d}", {"allowlist.txt": listing(21 - day)}, f"day {day}")
    write_project(
        root,
        {"test/test_a.py": HEADER + "\n\nclass TestA(TestCase):\n    def test_a(self):\n        pass\n"},
        {"baseline": 21},
        allowlist="test/test_a.py 1\n",
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "tree", date="2024-01-21")
    more = "6 more commits (`--all-rows` shows every row; `--format json` lists them all)."
    text = _run(root, "--history")
    burndown = text.split("\nBurn-down\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert burndown[2] == "  date        commit      files allowlisted"
    assert [line[2:12] for line in burndown[3:-1]] == [f"2024-01-{day:02d}" for day in range(21, 6, -1)]
    assert burndown[-1] == "  " + more
    markdown = _run(root, "--history", "--format", "markdown")
    assert "<details><summary>The 21 commits that changed the allowlist</summary>\n\n| date |" in markdown
    assert markdown.count("| 2024-01-") == 15
    assert (
        f"| 2024-01-07 | `{git(root, 'rev-parse', 'HEAD~14').strip()[:10]}` | 15 |\n\n{more}\n\n</details>" in markdown
    )
    assert len(json.loads(_run(root, "--history", "--format", "json"))["history"]) == 21
    assert _run(root, "--history", "--format", "markdown", "--all-rows").count("| 2024-01-") == 21
    assert "more commits" not in _run(root, "--history", "--all-rows")


def commit_at(root: Path, when: str, files: dict[str, str], message: str) -> str:
    """Write files and commit them at `when`, to the second (ISO 8601):
    test_history.commit dates commits by the day."""
    for rel, text in files.items():
        (root / rel).write_text(text)
    env = {**GIT_ENV, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", "-C", str(root), "add", "-A"], env=env, check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-q", "-m", message], env=env, check=True)
    return git(root, "rev-parse", "HEAD").strip()


NOT_YET = "the history spans 36 seconds and 2 commits; a projection needs at least 7 days and 3 commits"


def test_no_projection_on_adoption_day(tmp_path: Path) -> None:
    """Adopt, then `hwlint fix` and prune 36 s later: a slope through those
    two commits read -684,000 files/day and printed a date. Now no date, and
    every format says why."""
    root = init_repo(tmp_path / "repo")
    write_project(root, TREE, allowlist=listing(5))
    commit_at(root, "2026-11-29T07:24:18+0000", {}, "adopt hwlint")
    commit_at(root, "2026-11-29T07:24:54+0000", {"allowlist.txt": ALLOWLIST}, "classify what fix can; prune")
    report = json.loads(_run(root, "--history", "--format", "json"))
    assert [(p["date"], p["allowlisted"]) for p in report["history"]] == [
        ("2026-11-29T07:24:18Z", 5),
        ("2026-11-29T07:24:54Z", 3),
    ]
    assert (report["projected_zero_date"], report["projection"], report["projection_note"]) == (None, None, NOT_YET)
    sentence = f"2 commits changed the allowlist. Projected zero: not yet — {NOT_YET}."
    assert f"\n  █▅\n  {sentence}\n  date " in _run(root, "--history")
    assert f"\n\n{sentence}\n\n<details>" in _run(root, "--history", "--format", "markdown")
    assert f"<p>{sentence}</p>" in _run(root, "--history", "--format", "html")
    # Without --history the note is not asked for.
    assert json.loads(_run(root, "--format", "json"))["projection_note"] is None


def test_projection_once_the_history_spans_enough(tmp_path: Path) -> None:
    """Three commits over six days: not yet. Over ten days (30, 20, 10 files,
    five days apart: -2 files a day): zero five days after the newest."""
    root = init_repo(tmp_path / "repo")
    write_project(root, TREE, {"baseline": 30})
    for day, files in (("2024-01-01", 30), ("2024-01-04", 25), ("2024-01-07", 20)):
        commit(root, day, {"allowlist.txt": listing(files)}, f"{files} left")
    report = json.loads(_run.__wrapped__(root, "--history", "--format", "json"))
    assert (report["projected_zero_date"], report["projection_note"]) == (
        None,
        "the history spans 6 days and 3 commits; a projection needs at least 7 days and 3 commits",
    )
    commit(root, "2024-01-11", {"allowlist.txt": listing(10)}, "10 left")
    report = json.loads(_run.__wrapped__(root, "--history", "--format", "json"))
    # Least squares over (-10, 30), (-7, 25), (-4, 20), (0, 10) days: -1.9863 files a day; 10 files left is
    # 5.03 days after 2024-01-11.
    assert (report["projected_zero_date"], report["projection_note"]) == ("2024-01-16", None)
    assert report["projection"] == {"method": "least-squares", "window_days": 90, "points": 4, "files_per_day": -1.9863}
    assert (
        "4 commits changed the allowlist. Projected zero: 2024-01-16, at -1.9863 files/day (the least-squares slope "
        "over the 4 allowlist commits within 90 days of the newest, further back when those span less than 7 days), "
        "counting from the newest commit."
    ) in _run.__wrapped__(root, "--history")


def test_a_recent_burst_does_not_set_the_rate(tmp_path: Path) -> None:
    """Adopted in January; in May two commits 36 s apart are the only ones
    of the last 90 days. The rate reaches back to the January commit
    instead of reading 10 files in 36 seconds."""
    from statistics import linear_regression

    root = init_repo(tmp_path / "repo")
    write_project(root, TREE, {"baseline": 100})
    commit_at(root, "2024-01-01T00:00:00+0000", {"allowlist.txt": listing(100)}, "adopt")
    commit_at(root, "2024-05-01T00:00:00+0000", {"allowlist.txt": listing(60)}, "60 left")
    commit_at(root, "2024-05-01T00:00:36+0000", {"allowlist.txt": listing(50)}, "50 left")
    report = json.loads(_run.__wrapped__(root, "--history", "--format", "json"))
    days = [-121 - 36 / 86400, -36 / 86400, 0.0]
    slope, _ = linear_regression(days, [100, 60, 50])
    assert report["projection"] == {
        "method": "least-squares",
        "window_days": 90,
        "points": 3,
        "files_per_day": round(slope, 4),
    }
    # -0.3719 files a day: 50 files left is 134.4 days after May 1st.
    assert round(slope, 4) == -0.3719 and report["projected_zero_date"] == "2024-09-12"


def test_projection_gap_says_why() -> None:
    from hwlint.allowlist.history import HistoryPoint, projection_gap

    need = "a projection needs at least 7 days and 3 commits"
    day = 86400
    assert projection_gap([HistoryPoint("a", 0, 4)]) == f"the history has 1 commit; {need}"
    assert (
        projection_gap([HistoryPoint("a", 0, 4), HistoryPoint("b", 60, 3)])
        == f"the history spans 1 minute and 2 commits; {need}"
    )
    three = [HistoryPoint("a", 0, 4), HistoryPoint("b", 3 * 3600, 3), HistoryPoint("c", 5 * 3600 + 59, 2)]
    assert projection_gap(three) == f"the history spans 5 hours and 3 commits; {need}"
    assert (
        projection_gap([HistoryPoint("a", 0, 4), HistoryPoint("b", 30 * day, 3)])
        == f"the history spans 30 days and 2 commits; {need}"
    )
    assert projection_gap([HistoryPoint("a", 0, 4), HistoryPoint("b", day, 3), HistoryPoint("c", 7 * day, 2)]) is None
    # Zero reached is a fact, not a projection; no history, nothing to say.
    assert projection_gap([HistoryPoint("a", 0, 4), HistoryPoint("b", 36, 0)]) is None
    assert projection_gap([]) is None


AREA = HEADER + "\n\nclass TestArea(TestCase):\n    def test_a(self):\n        pass\n"


def make_wide_tree(root: Path) -> Path:
    """51 folders of test files, every file allowlisted: test/area50 has
    three, test/area25 two, the others one each."""
    files = {
        f"test/area{n:02d}/test_{name}.py": AREA
        for n in range(51)
        for name in ("abc"[: 3 if n == 50 else 2 if n == 25 else 1])
    }
    return write_project(
        root, files, {"baseline": len(files)}, allowlist="".join(f"{path} 1\n" for path in sorted(files))
    )


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_wide_tree(tmp_path_factory.mktemp("wide") / "proj")


MORE_DIRECTORIES = "36 more directories (`--all-rows` shows every row; `--format json` lists them all)."
# The folders with the most allowlisted files first, then by path.
FIRST_15 = ["test/area50", "test/area25"] + [f"test/area{n:02d}" for n in range(13)]


def test_a_long_directory_table_folds(wide: Path) -> None:
    report = json.loads(_run(wide, "--format", "json"))
    assert len(report["directories"]) == 51  # json keeps every row
    assert [d["path"] for d in report["directories"][:15]] == FIRST_15
    text = _run(wide).split("\nDirectories by remaining work\n", 1)[1].split("\n\n", 1)[0]
    assert text == "\n".join(
        [
            "  directory    files  allowlisted  classes  unclassified",
            "  test/area50      3            3        3             3",
            "  test/area25      2            2        2             2",
            *(f"  test/area{n:02d}      1            1        1             1" for n in range(13)),
            "  " + MORE_DIRECTORIES,
        ]
    )
    markdown = (
        _run(wide, "--format", "markdown").split("\n### Directories by remaining work\n\n", 1)[1].split("\n\n###", 1)[0]
    )
    assert markdown == "\n".join(
        [
            "| directory | files | allowlisted | classes | unclassified |",
            "|---|---:|---:|---:|---:|",
            "| `test/area50` | 3 | 3 | 3 | 3 |",
            "| `test/area25` | 2 | 2 | 2 | 2 |",
            *(f"| `test/area{n:02d}` | 1 | 1 | 1 | 1 |" for n in range(13)),
            "",
            MORE_DIRECTORIES,
        ]
    )
    every = _run(wide, "--all-rows").split("\nDirectories by remaining work\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(every) == 52 and every[-1] == "  test/area49      1            1        1             1"
    assert "more directories" not in _run(wide, "--format", "markdown", "--all-rows")


def test_a_folded_table_keeps_its_total() -> None:
    """Rules beyond the fifteenth fold too; the total counts every rule."""
    from hwlint.output import report_text
    from hwlint.report.blocks import Table, fold_rows

    table = Table(
        "t",
        ("code", "violations"),
        tuple((f"HWC{n:03d}", 1) for n in range(17)),
        footer=("total", 17),
        noun=("rule", "rules"),
    )
    assert report_text.block(fold_rows(table, 15))[-4:] == [
        "  HWC013           1",
        "  HWC014           1",
        "  total           17",
        "  2 more rules (`--all-rows` shows every row; `--format json` lists them all).",
    ]
    assert fold_rows(table, 17) is table and fold_rows(table, None) is table
    assert fold_rows(table, 16).more == "1 more rule (`--all-rows` shows every row; `--format json` lists them all)."


def test_all_rows_help_says_how_many_rows_show() -> None:
    from hwlint.cli.options import ALL_ROWS, REPORT
    from hwlint.report.layout import TABLE_ROWS

    assert ALL_ROWS in REPORT and f"the first {TABLE_ROWS}, then how many more" in (ALL_ROWS.help or "")


def test_source_date_epoch_must_be_a_number(tree: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hwlint", "report"],
        cwd=tree,
        capture_output=True,
        text=True,
        env={**os.environ, "SOURCE_DATE_EPOCH": "yesterday"},
    )
    assert result.returncode == 2
    assert result.stderr == "hwlint: error: SOURCE_DATE_EPOCH must be a number of seconds since 1970, got 'yesterday'\n"


def test_burndown_series_samples_time_evenly() -> None:
    # 100 commits: 10 a day for 10 days, one file each.
    history = [{"date": f"2024-01-{1 + i // 10:02d}T{i % 10:02d}:00:00Z", "allowlisted": 100 - i} for i in range(100)]
    series = burndown_series(history, 10)
    assert len(series) == 10
    assert series[0] == (datetime(2024, 1, 1, tzinfo=timezone.utc), 100)
    assert series[-1] == (datetime(2024, 1, 10, 9, tzinfo=timezone.utc), 1)
    # Evenly spaced over 9 days 9 hours: a day and an hour apart, one date each.
    assert point_labels([when for when, _ in series]) == ([f"2024-01-{d:02d}" for d in range(1, 11)], None)
    values = [v for _, v in series]
    assert values == sorted(values, reverse=True)
    # Few enough: the commits themselves, five hours of one day, labelled by the hour.
    five = burndown_series(history[:5], 10)
    assert five == [(datetime(2024, 1, 1, h, tzinfo=timezone.utc), 100 - h) for h in range(5)]
    assert point_labels([when for when, _ in five]) == (
        ["00:00", "01:00", "02:00", "03:00", "04:00"],
        "2024-01-01 (UTC)",
    )
    # Two commits in the same second are one state: the one they left.
    same = [{"date": "2024-01-01T00:00:00Z", "allowlisted": 5}, {"date": "2024-01-01T00:00:00Z", "allowlisted": 4}]
    assert burndown_series(same, 10) == [(datetime(2024, 1, 1, tzinfo=timezone.utc), 4)]


def _with_terminal_stderr(root: Path, *args: str) -> tuple[int, str, str]:
    """Run hwlint with stderr on a pseudo-terminal, stdout on a pipe."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hwlint", *args], cwd=root, stdout=subprocess.PIPE, stderr=slave, text=True
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read() if proc.stdout else ""
    proc.wait(timeout=60)
    os.close(master)
    return proc.returncode, out, b"".join(chunks).decode("utf-8", "replace")


def test_progress_bar_only_on_a_terminal(tree: Path) -> None:
    code, out, err = _with_terminal_stderr(tree, "report", "--format", "json", "--jobs", "1")
    assert code == 0
    assert json.loads(out)["files_checked"] == 6  # stdout stays clean
    assert "Checking test files" in err and "6/6" in err
    piped = run_cli("report", "--format", "json", cwd=tree)
    assert piped.stderr == ""


def test_readme_documents_the_json_keys(repo: Path) -> None:
    readme = (Path(__file__).resolve().parent.parent / "docs" / "report.md").read_text()
    section = readme.split("\n## JSON keys\n", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE)
    assert documented == list(json.loads(_run(repo, "--history", "--format", "json")))


def test_history_benchmark_script_runs(tmp_path: Path) -> None:
    """The benchmark itself is not a timed test; this keeps it working."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_history.py"
    result = subprocess.run(
        [sys.executable, str(script), "--commits", "30", "--entries", "40", "--repeat", "1", "--bound", "30"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "for 30 points, 40 -> 4 files" in result.stdout and "OK: under the 30.00 s bound" in result.stdout


def _loop_tree(files: int) -> tuple[dict[str, str], dict[str, int]]:
    """A generated tree: files whose class fix can classify (GENERIC: no
    device, no instantiation), files whose class needs a human (takes a
    device, never instantiated), files with one of each, files already
    migrated. Returns the files and how many there are of each kind."""
    kinds = {"plain": 0, "device": 0, "mixed": 0, "done": 0}
    plain = "\n\nclass TestPlain{i}(TestCase):\n    def test_a(self):\n        pass\n"
    device = "\n\nclass TestDevice{i}(TestCase):\n    def test_b(self, device):\n        pass\n"
    done = "\n\nclass TestDone{i}(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n    def test_c(self):\n        pass\n"
    bodies = {"plain": plain, "device": device, "mixed": plain + device, "done": done}
    tree = {}
    for i in range(files):
        kind = list(kinds)[i % 4]
        kinds[kind] += 1
        tree[f"test/area{i % 5}/test_file{i}.py"] = HEADER + bodies[kind].format(i=i)
    return tree, kinds


def test_the_migration_loop_figures(tmp_path: Path) -> None:
    """Issue 14, in a real git repository with dated commits, no baseline
    configured: adopt (commit) → fix → prune → check passes (commit) →
    report. The figures equal what the test computes from the tree it wrote."""
    root = init_repo(tmp_path / "repo")
    tree, kinds = _loop_tree(40)
    write_project(root, tree)

    # Before adoption: no list, every unmigrated file fails; nothing is migrated.
    before = json.loads(_run.__wrapped__(root, "--format", "json"))
    unmigrated = kinds["plain"] + kinds["device"] + kinds["mixed"]
    classes = kinds["plain"] + kinds["device"] + 2 * kinds["mixed"] + kinds["done"]
    assert (before["baseline"], before["files_allowlisted"], before["percent_migrated"]) == (0, 0, 0.0)
    assert before["files_failing"] == unmigrated
    assert (before["classes_total"], before["classes_classified"]) == (classes, kinds["done"])
    assert before["percent_classified"] == round(kinds["done"] / classes * 100, 1)

    assert run_cli("allowlist", "sync", "--allow-growth", cwd=root).returncode == 0
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "adopt hwlint", date="2024-05-01")
    adopted = git(root, "rev-parse", "HEAD").strip()
    assert run_cli("check", cwd=root).returncode == 0
    # The device-taking classes need a human, but stay allowlisted: check passes, so fix does.
    assert run_cli("fix", cwd=root).returncode == 0
    assert run_cli("allowlist", "prune", cwd=root).returncode == 0
    assert run_cli("check", cwd=root).returncode == 0
    git(root, "commit", "-q", "-am", "classify what fix can", date="2024-05-08")
    fixed = git(root, "rev-parse", "HEAD").strip()

    def entries(rev: str) -> int:
        text = git(root, "show", f"{rev}:allowlist.txt")
        return sum(1 for line in text.splitlines() if line.strip() and not line.startswith("#"))

    baseline, left = entries(adopted), entries(fixed)
    assert (baseline, left) == (unmigrated, kinds["device"] + kinds["mixed"])
    for args in ((), ("--history",)):
        report = json.loads(_run.__wrapped__(root, "--format", "json", *args))
        assert (report["baseline"], report["baseline_source"]) == (baseline, "history")
        assert report["files_allowlisted"] == left
        assert report["percent_migrated"] == round((baseline - left) / baseline * 100, 1)
        assert report["files_failing"] == 0
        classified = classes - kinds["device"] - kinds["mixed"]
        assert (report["classes_classified"], report["classes_total"]) == (classified, classes)
        assert report["percent_classified"] == round(classified / classes * 100, 1)
    assert [(p["commit"], p["date"], p["allowlisted"]) for p in report["history"]] == [
        (adopted, "2024-05-01T00:00:00Z", baseline),
        (fixed, "2024-05-08T00:00:00Z", left),
    ]


# ---- the burn-down's time axis: labels as fine as the span needs ----

AXES = [
    # (span from 2026-03-04 09:12:00 UTC, labels, caption)
    (
        timedelta(seconds=36),
        ["09:12:00", "09:12:05", "09:12:10", "09:12:15", "09:12:20", "09:12:25", "09:12:30", "09:12:35"],
        "2026-03-04 (UTC)",
    ),
    (timedelta(minutes=58), ["09:20", "09:30", "09:40", "09:50", "10:00", "10:10"], "2026-03-04 (UTC)"),
    (
        timedelta(hours=5),
        ["09:30", "10:00", "10:30", "11:00", "11:30", "12:00", "12:30", "13:00", "13:30", "14:00"],
        "2026-03-04 (UTC)",
    ),
    # Past midnight: the date where the day changes.
    (
        timedelta(hours=23),
        ["12:00", "15:00", "18:00", "21:00", "2026-03-05", "03:00", "06:00"],
        "2026-03-04 to 2026-03-05 (UTC)",
    ),
    # A day and more: 12:00 twice would be two different noons, so each time has its date.
    (
        timedelta(hours=30),
        ["2026-03-04 12:00", "2026-03-04 18:00", "2026-03-05", "2026-03-05 06:00", "2026-03-05 12:00"],
        "UTC",
    ),
    (timedelta(days=6), ["2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09", "2026-03-10"], None),
    (timedelta(days=45), ["2026-03-09", "2026-03-16", "2026-03-23", "2026-03-30", "2026-04-06", "2026-04-13"], None),
    (timedelta(days=150), ["2026-04", "2026-05", "2026-06", "2026-07", "2026-08"], None),
    (timedelta(days=400), ["2026-05", "2026-07", "2026-09", "2026-11", "2027-01", "2027-03"], None),
    (timedelta(days=12 * 365), ["2028", "2030", "2032", "2034", "2036", "2038"], None),
]


@pytest.mark.parametrize("span,labels,caption", AXES, ids=[str(span) for span, _, _ in AXES])
def test_time_axis_ticks_at_round_instants_as_finely_as_the_span_needs(
    span: timedelta, labels: list[str], caption: str | None
) -> None:
    from hwlint.report.time_axis import ticks

    start = datetime(2026, 3, 4, 9, 12, tzinfo=timezone.utc)
    axis = ticks(start, start + span, 115)
    assert [label for _, label in axis.ticks] == labels
    assert axis.caption == caption
    assert all(start <= when <= start + span for when, _ in axis.ticks)
    assert len(set(labels)) == len(labels)
    # They fit: each label, and a gap, in the axis's room.
    assert len(labels) * (max(map(len, labels)) + 4) <= 115


def test_time_axis_of_one_instant_is_the_minute_around_it() -> None:
    from hwlint.report.time_axis import ticks

    start = datetime(2026, 3, 4, 9, 12, tzinfo=timezone.utc)
    axis = ticks(start, start)
    assert axis.ticks[0][0] == start - timedelta(seconds=30) and axis.ticks[-1][0] == start + timedelta(seconds=30)
    assert axis.caption == "2026-03-04 (UTC)"


def test_point_labels_are_distinct() -> None:
    day = datetime(2026, 3, 4, 9, 12, tzinfo=timezone.utc)
    minutes = [day, day + timedelta(minutes=7), day + timedelta(hours=1)]
    assert point_labels(minutes) == (["09:12", "09:19", "10:12"], "2026-03-04 (UTC)")
    assert point_labels(minutes, dated=True) == (["2026-03-04 09:12", "2026-03-04 09:19", "2026-03-04 10:12"], "UTC")
    seconds = [day, day + timedelta(seconds=36)]
    assert point_labels(seconds) == (["09:12:00", "09:12:36"], "2026-03-04 (UTC)")
    # Two days, two commits on the second: each label has its date.
    assert point_labels([day, day + timedelta(days=1), day + timedelta(days=1, hours=2)]) == (
        ["2026-03-04 09:12", "2026-03-05 09:12", "2026-03-05 11:12"],
        "UTC",
    )
    assert point_labels([day, day + timedelta(days=1)]) == (["2026-03-04", "2026-03-05"], None)
    # The same second twice (a rebase can do it): still two labels.
    assert point_labels([day, day]) == (["09:12:00", "09:12:00 (2)"], "2026-03-04 (UTC)")
    assert point_labels([]) == ([], None)


def test_adoption_day_text_and_markdown_show_times(tmp_path: Path) -> None:
    """Adopt, fix 36 s later, prune at 07:41: the commits table and the
    Mermaid chart showed 2026-11-29 three times (and Mermaid, whose x axis
    merges equal labels, drew one point). Now times, to the second where
    two commits share a minute, and the day as the axis's title."""
    root = init_repo(tmp_path / "repo")
    write_project(root, TREE, allowlist=listing(5))
    shas = [
        commit_at(root, "2026-11-29T07:24:18+0000", {}, "adopt hwlint"),
        commit_at(root, "2026-11-29T07:24:54+0000", {"allowlist.txt": listing(4)}, "fix"),
        commit_at(root, "2026-11-29T07:41:05+0000", {"allowlist.txt": ALLOWLIST}, "prune"),
    ]
    text = _run(root, "--history")
    rows = text.split("\nBurn-down\n", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    assert rows == [
        "  date (UTC)           commit      files allowlisted",
        f"  2026-11-29 07:41:05  {shas[2][:10]}                  3",
        f"  2026-11-29 07:24:54  {shas[1][:10]}                  4",
        f"  2026-11-29 07:24:18  {shas[0][:10]}                  5",
    ]
    markdown = _run(root, "--history", "--format", "markdown")
    assert '    x-axis "2026-11-29 (UTC)" ["07:24:18", "07:24:54", "07:41:05"]\n' in markdown
    assert "    line [5, 4, 3]\n" in markdown
    assert (
        f"| date (UTC) | commit | files allowlisted |\n|---|---|---:|\n| 2026-11-29 07:41:05 | `{shas[2][:10]}` | 3 |"
        in markdown
    )


def test_a_sampled_mermaid_chart_of_one_morning_has_distinct_times() -> None:
    """Forty commits in two hours: thirty samples four minutes apart, each its own time."""
    from hwlint.output.report_markdown import CHART_POINTS, chart
    from hwlint.report.blocks import Chart

    history = tuple(
        {"commit": f"{i:040x}", "date": f"2026-11-29T{7 + i * 3 // 60:02d}:{i * 3 % 60:02d}:00Z", "allowlisted": 40 - i}
        for i in range(40)
    )
    lines = chart(Chart(history, "2026-11-29T09:00:00Z"))
    axis = lines[3]
    assert axis.startswith('    x-axis "2026-11-29 (UTC)" ["07:00", "07:04", ')
    labels = re.findall(r'"(\d\d:\d\d)"', axis)
    assert len(labels) == CHART_POINTS == len(set(labels)) and labels[-1] == "08:57"
