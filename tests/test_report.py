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
from datetime import datetime, timezone
from pathlib import Path

import pytest

from hwlint.allowlist import load_allowlist
from hwlint.config import load_config
from hwlint.report import build_report, burndown_series, percent_migrated
from tests.conftest import lint, run_cli, write_project
from tests.test_history import GIT_ENV, commit, git, init_repo, listing

GOLDEN = Path(__file__).parent / "golden"
PINNED = "1717243200"  # 2024-06-01T12:00:00Z

HEADER = "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n"
DEVICE = "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"

TREE = {
    "test/common_base.py": HEADER + """
class GenericBase(TestCase):
    hw_classification = HardwareClassification.GENERIC


class DeviceBase(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR
""",
    "test/test_ops.py": HEADER + DEVICE + """

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
    "test/test_legacy.py": HEADER + """

class TestLegacyA(TestCase):
    def test_a(self):
        pass


class TestLegacyB(TestCase):
    def test_b(self):
        pass
""",
    "test/test_broken.py": "class TestBroken(TestCase)\n    pass\n",
    "test/distributed/test_c10d.py": HEADER + DEVICE + """

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
    "test/nn/test_conv.py": HEADER + DEVICE + """from common_base import DeviceBase


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
    "test/nn/test_init.py": HEADER + """from common_base import GenericBase


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
    return build_report(result, load_allowlist(root, config.allowlist).entries, now=datetime(2024, 6, 1, tzinfo=timezone.utc), **kwargs)  # type: ignore[arg-type]


SPEC_KEYS = [
    "version", "generated_at", "root", "files_checked", "files_allowlisted", "baseline", "percent_migrated",
    "classes_total", "classes_by_classification", "classes_unclassified", "violations_by_code", "directories",
    "history", "projected_zero_date",
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
    assert report["classes_by_classification"] == {"GENERIC": 2, "ACCELERATOR": 2, "CPU": 1, "CUDA": 1, "MPS": 1, "XPU": 0}
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


def test_baseline_override_and_percent(tree: Path) -> None:
    assert figures(tree, baseline=4)["percent_migrated"] == 25.0
    assert percent_migrated(1191, 1191) == 0.0
    assert percent_migrated(1191, 0) == 100.0
    assert percent_migrated(1191, 400) == 66.4
    assert percent_migrated(3, 5) == 0.0  # the list grew past the baseline: clamped
    assert percent_migrated(0, 0) == 100.0
    assert percent_migrated(0, 2) == 0.0


def test_violations_by_code_follows_select(tree: Path) -> None:
    config = load_config(start=tree)
    result = lint(tree, use_allowlist=False, select=("HWC001",))
    report = build_report(result, load_allowlist(tree, config.allowlist).entries)
    assert report["violations_by_code"] == {"HWC001": 5}


def test_history_figures(repo: Path) -> None:
    from hwlint.history import allowlist_history

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
        cwd=root, capture_output=True, text=True, timeout=120,
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
    assert list(report) == SPEC_KEYS + ["top_files", "projection"]
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
    assert "70.0% migrated: 3 files allowlisted (baseline 10), 6 test files checked." in text
    assert "Burn-down\n  Run `hwlint report --history` for the burn-down of the allowlist.\n" in text


SECTIONS = [
    "Summary", "Burn-down", "Test classes by classification", "Violations by rule",
    "Directories by remaining work", "Files with the most unclassified classes",
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
    assert "  percent migrated      70.0%" in text and "  total" in text
    assert "| percent migrated | 70.0% |" in markdown and "| total |  | 7 |" in markdown
    assert '<tr><td>percent migrated</td><td class="num">70.0%</td></tr>' in html
    assert '<tfoot><tr><td>total</td><td></td><td class="num">7</td></tr></tfoot>' in html


def test_a_long_burndown_is_folded(tmp_path: Path) -> None:
    """Twelve commits: the terminal shows the newest ten and says so;
    markdown and html fold the whole list under a summary."""
    root = tmp_path / "long"
    init_repo(root)
    for day in range(12):
        commit(root, f"2024-01-{day + 1:02d}", {"allowlist.txt": listing(12 - day)}, f"day {day}")
    write_project(root, {"test/test_a.py": HEADER + "\n\nclass TestA(TestCase):\n    def test_a(self):\n        pass\n"}, {"baseline": 12}, allowlist="test/test_a.py 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "tree", date="2024-01-13")
    text = _run(root, "--history")
    burndown = text.split("\nBurn-down\n", 1)[1].split("\n\n", 1)[0]
    assert "The 13 commits that changed the allowlist, the newest 10 (--format json lists them all):" in burndown
    assert burndown.count("  2024-01-") == 10 and "2024-01-13" in burndown and "2024-01-03" not in burndown
    markdown = _run(root, "--history", "--format", "markdown")
    assert "<details><summary>The 13 commits that changed the allowlist</summary>\n\n| date |" in markdown
    assert markdown.count("| 2024-01-") == 13


def test_source_date_epoch_must_be_a_number(tree: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hwlint", "report"], cwd=tree, capture_output=True, text=True,
        env={**os.environ, "SOURCE_DATE_EPOCH": "yesterday"},
    )
    assert result.returncode == 2
    assert result.stderr == "hwlint: error: SOURCE_DATE_EPOCH must be a number of seconds since 1970, got 'yesterday'\n"


def test_burndown_series_samples_time_evenly() -> None:
    # 100 commits: 10 a day for 10 days, one file each.
    history = [
        {"date": f"2024-01-{1 + i // 10:02d}T{i % 10:02d}:00:00Z", "allowlisted": 100 - i} for i in range(100)
    ]
    series = burndown_series(history, 10)
    assert len(series) == 10
    assert series[0] == ("2024-01-01", 100) and series[-1] == ("2024-01-10", 1)
    assert [label for label, _ in series] == [f"2024-01-{d:02d}" for d in range(1, 11)]
    values = [v for _, v in series]
    assert values == sorted(values, reverse=True)
    assert burndown_series(history[:5], 10) == [(p["date"][:10], p["allowlisted"]) for p in history[:5]]


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
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = readme.split("\n## Report\n", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE)
    assert documented == list(json.loads(_run(repo, "--history", "--format", "json")))


def test_history_benchmark_script_runs(tmp_path: Path) -> None:
    """The benchmark itself is not a timed test; this keeps it working."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_history.py"
    result = subprocess.run(
        [sys.executable, str(script), "--commits", "30", "--entries", "40", "--repeat", "1", "--bound", "30"],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "for 30 points, 40 -> 4 files" in result.stdout and "OK: under the 30.00 s bound" in result.stdout
