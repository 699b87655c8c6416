"""Migration phases (`[[tool.hwlint.phases]]`): configuration, HWC305 in
`hwlint check`, and each phase's figures, from real git repositories with
dated commits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from hwlint.core.config import Phase
from hwlint.engine.project import load_project
from hwlint.infra.cache import CACHE_DIR_NAME
from tests.conftest import write_project
from tests.test_config import assert_one_error_line
from tests.test_history import commit, init_repo

HEADER = "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n\n"
UNCLASSIFIED = HEADER + "class TestA(TestCase):\n    def test_a(self):\n        pass\n"  # HWC001 at 4:1

PHASES = """
[[tool.hwlint.phases]]
name = "inductor"
paths = ["test/inductor/**"]
due = 2027-03-31
owners = ["@pytorch/inductor", "@alice"]

[[tool.hwlint.phases]]
name = "nn"
paths = ["test/nn/**", "test/test_nn.py"]
due = 2027-06-30
start = 2027-01-01
"""


def hwlint(*args: str, cwd: Path, today: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HWLINT_TODAY", "HWLINT_CACHE_DIR", "HWLINT_NO_CACHE")}
    if today is not None:
        env["HWLINT_TODAY"] = today
    return subprocess.run(
        [sys.executable, "-m", "hwlint", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def tree(root: Path, phases: str = PHASES) -> Path:
    """Two unclassified files in each phase and one outside them, all allowlisted."""
    files = {
        f"test/{rel}": UNCLASSIFIED
        for rel in ("inductor/test_a.py", "inductor/test_b.py", "nn/test_c.py", "test_nn.py", "test_other.py")
    }
    write_project(root, files)
    (root / "pyproject.toml").write_text("[tool.hwlint]\n" + phases)
    (root / "allowlist.txt").write_text("".join(f"{rel} 1\n" for rel in sorted(files)))
    return root


# -- configuration ---------------------------------------------------------------


def test_phases_are_read_in_order(tmp_path: Path) -> None:
    config = load_project(start=tree(tmp_path))
    assert config.phases == (
        Phase("inductor", ("test/inductor/**",), date(2027, 3, 31), ("@pytorch/inductor", "@alice")),
        Phase("nn", ("test/nn/**", "test/test_nn.py"), date(2027, 6, 30), (), date(2027, 1, 1)),
    )


BAD_PHASES = [
    pytest.param(
        'phases = "inductor"', ["phases must be an array of tables ([[tool.hwlint.phases]])"], id="not-a-list"
    ),
    pytest.param(
        '[[tool.hwlint.phases]]\npaths = ["test/**"]\ndue = 2027-01-01',
        ["[[tool.hwlint.phases]] #1: name must be a non-empty string, got None"],
        id="no-name",
    ),
    pytest.param(
        '[[tool.hwlint.phases]]\nname = "a"\npaths = ["test/**"]\ndue = 2027-01-01\nowner = "@x"',
        ["[[tool.hwlint.phases]] #1 (a): unknown key 'owner' (known keys: due, name, owners, paths, start)"],
        id="unknown-key",
    ),
    pytest.param(
        '[[tool.hwlint.phases]]\nname = "a"\npaths = ["test/**"]',
        ["[[tool.hwlint.phases]] #1 (a): due is required"],
        id="no-due",
    ),
    pytest.param(
        '[[tool.hwlint.phases]]\nname = "a"\npaths = ["test/**"]\ndue = "2027-01-01"',
        [
            "[[tool.hwlint.phases]] #1 (a) due must be a TOML date like 2027-03-31 (write it without quotes), "
            "got '2027-01-01'"
        ],
        id="date-as-string",
    ),
    pytest.param(
        '[[tool.hwlint.phases]]\nname = "a"\npaths = ["test/**"]\ndue = 2027-01-01T10:00:00',
        ["due must be a TOML date like 2027-03-31, got datetime.datetime(2027, 1, 1, 10, 0)"],
        id="datetime",
    ),
    pytest.param(
        '[[tool.hwlint.phases]]\nname = "a"\npaths = ["test/**"]\ndue = 2027-02-30',
        ["invalid TOML"],
        id="impossible-date",
    ),
    pytest.param(
        '[[tool.hwlint.phases]]\nname = "a"\npaths = []\ndue = 2027-01-01',
        ["[[tool.hwlint.phases]] #1 (a) paths must be a non-empty list of non-empty strings"],
        id="empty-paths",
    ),
    pytest.param(
        '[[tool.hwlint.phases]]\nname = "a"\npaths = [""]\ndue = 2027-01-01',
        ["paths must be a non-empty list of non-empty strings"],
        id="empty-pattern",
    ),
    pytest.param(
        '[[tool.hwlint.phases]]\nname = "a"\npaths = ["test/**"]\ndue = 2027-01-01\nowners = "@x"',
        ["phases (a) owners must be a list of strings, got '@x'"],
        id="owners-str",
    ),
    pytest.param(
        '[[tool.hwlint.phases]]\nname = "a"\npaths = ["test/**"]\ndue = 2027-01-01\nstart = 2027-02-01',
        ["[[tool.hwlint.phases]] #1 (a): start 2027-02-01 is after due 2027-01-01"],
        id="start-after-due",
    ),
    pytest.param(
        '[[tool.hwlint.phases]]\nname = "a"\npaths = ["test/a/**"]\ndue = 2027-01-01\n'
        '[[tool.hwlint.phases]]\nname = "a"\npaths = ["test/b/**"]\ndue = 2027-01-01',
        ["[[tool.hwlint.phases]] #2 (a): another phase is named 'a'"],
        id="same-name",
    ),
    pytest.param(
        '[[tool.hwlint.phases]]\nname = "a"\npaths = ["test/a/**"]\ndue = 2027-01-01\n'
        '[[tool.hwlint.phases]]\nname = "b"\npaths = ["test/b/**", "test/a/**"]\ndue = 2027-01-01',
        ["[[tool.hwlint.phases]] #2 (b) paths: 'test/a/**' is already in phase 'a': a file belongs to one phase"],
        id="same-pattern",
    ),
]


@pytest.mark.parametrize(("setting", "fragments"), BAD_PHASES)
def test_bad_phases_are_one_clear_line(tmp_path: Path, setting: str, fragments: list[str]) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.hwlint]\n{setting}\n")
    assert_one_error_line(hwlint("check", cwd=tmp_path), tmp_path / "pyproject.toml", *fragments)


def test_overlapping_patterns_first_phase_wins(tmp_path: Path) -> None:
    """A catch-all phase can come last: a file is in the first phase that matches it."""
    root = tree(tmp_path, PHASES + '\n[[tool.hwlint.phases]]\nname = "rest"\npaths = ["test/**"]\ndue = 2026-01-01\n')
    out = hwlint("check", "--format", "json", cwd=root, today="2026-06-01")
    found = [(d["line"], d["message"].split(" ")[0]) for d in json.loads(out.stdout) if d["code"] == "HWC305"]
    # Only test_other.py is in "rest" (due): the others are in phases not due yet.
    assert found == [(5, "test/test_other.py")]


# -- HWC305 in `hwlint check` ----------------------------------------------------------


def hwc305(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if " HWC305 " in line]


def test_not_due_yet_nothing_to_report(tmp_path: Path) -> None:
    root = tree(tmp_path)
    on_due_date = hwlint("check", cwd=root, today="2027-03-31")  # the due date itself is still on time
    assert (on_due_date.returncode, on_due_date.stdout, on_due_date.stderr) == (
        0,
        "All checks passed (5 files checked, 5 allowlisted).\n",
        "",
    )


def test_overdue_phase_is_hwc305_at_the_allowlist_line(tmp_path: Path) -> None:
    root = tree(tmp_path)
    proc = hwlint("check", cwd=root, today="2027-04-01")
    assert proc.returncode == 1, proc.stderr
    assert hwc305(proc.stdout) == [
        "allowlist.txt:1:1: HWC305 test/inductor/test_a.py is still allowlisted, but phase 'inductor' was due "
        "2027-03-31 (owners: @pytorch/inductor, @alice): migrate it (`hwlint fix --phase inductor`), "
        "or agree a new `due` in pyproject.toml",
        "allowlist.txt:2:1: HWC305 test/inductor/test_b.py is still allowlisted, but phase 'inductor' was due "
        "2027-03-31 (owners: @pytorch/inductor, @alice): migrate it (`hwlint fix --phase inductor`), "
        "or agree a new `due` in pyproject.toml",
    ]
    later = hwlint("check", "--format", "json", cwd=root, today="2027-07-01")
    assert [(d["path"], d["line"], d["code"]) for d in json.loads(later.stdout)] == [
        ("allowlist.txt", line, "HWC305")
        for line in (1, 2, 3, 4)  # nn is due too; test_other.py is in no phase
    ]
    # Off like any rule.
    assert hwlint("check", "--ignore", "HWC305", cwd=root, today="2027-07-01").returncode == 0


def test_partial_run_judges_only_the_files_checked(tmp_path: Path) -> None:
    root = tree(tmp_path)
    proc = hwlint("check", "test/inductor/test_b.py", "test/test_nn.py", cwd=root, today="2027-04-01")
    assert [line.split(" ")[:3] for line in hwc305(proc.stdout)] == [
        ["allowlist.txt:2:1:", "HWC305", "test/inductor/test_b.py"],
    ]


def test_a_migrated_file_leaves_the_phase(tmp_path: Path) -> None:
    root = tree(tmp_path)
    (root / "test/inductor/test_a.py").write_text(
        UNCLASSIFIED.replace("(TestCase):\n", "(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n")
    )
    proc = hwlint("check", cwd=root, today="2027-04-01")
    # Still listed: HWC301 says remove it, HWC305 says it is late; one edit settles both.
    assert [line.split(" ")[:3] for line in proc.stdout.splitlines()[:3]] == [
        ["allowlist.txt:1:1:", "HWC301", "test/inductor/test_a.py"],
        ["allowlist.txt:1:1:", "HWC305", "test/inductor/test_a.py"],
        ["allowlist.txt:2:1:", "HWC305", "test/inductor/test_b.py"],
    ]
    (root / "allowlist.txt").write_text((root / "allowlist.txt").read_text().replace("test/inductor/test_a.py 1\n", ""))
    assert [line.split(" ")[2] for line in hwc305(hwlint("check", cwd=root, today="2027-04-01").stdout)] == [
        "test/inductor/test_b.py"
    ]


@pytest.mark.parametrize("door", [{}, {"HWLINT_NO_FAST_PATH": "1"}])
def test_today_option_wins_over_the_environment(tmp_path: Path, door: dict[str, str]) -> None:
    root = tree(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "HWLINT_TODAY"}
    run = lambda *args, today: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "hwlint", "check", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, **door, "HWLINT_TODAY": today},
    )
    assert run("--today", "2027-04-01", today="2027-01-01").returncode == 1
    assert run("--today", "2027-01-01", today="2027-04-01").returncode == 0
    bad = run("--today", "1st of April", today="2027-04-01")
    assert (bad.returncode, bad.stdout, bad.stderr) == (
        2,
        "",
        "hwlint: error: --today must be a date YYYY-MM-DD, got '1st of April'\n",
    )


@pytest.mark.parametrize("value", ["2027-4-1", "tomorrow", "2027-02-30", ""])
def test_bad_today_is_one_line(tmp_path: Path, value: str) -> None:
    root = tree(tmp_path)
    proc = hwlint("check", cwd=root, today=value)
    if value == "":  # unset in effect: today's date
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr
        return
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"hwlint: error: HWLINT_TODAY must be a date YYYY-MM-DD, got {value!r}\n"


def test_a_config_with_phases_works_cold_and_warm(tmp_path: Path) -> None:
    """TOML dates go through the settings memo (marshal cannot store a date
    as it is): the warm run reads the remembered table and says the same."""
    from hwlint.infra.cache import table_get

    root = tree(tmp_path)
    (root / CACHE_DIR_NAME).mkdir()
    cold = hwlint("check", cwd=root, today="2027-04-01")
    warm = hwlint("check", cwd=root, today="2027-04-01")
    assert (
        (warm.returncode, warm.stdout, warm.stderr)
        == (cold.returncode, cold.stdout, cold.stderr)
        == (1, cold.stdout, "")
    )
    assert len(hwc305(warm.stdout)) == 2
    data = (root / "pyproject.toml").read_bytes()
    known, table = table_get(root / CACHE_DIR_NAME, "pyproject.toml", data)
    assert known and table["phases"][1]["due"] == date(2027, 6, 30) and table["phases"][1]["start"] == date(2027, 1, 1)
    assert hwlint("check", "--no-cache", cwd=root, today="2027-04-01").stdout == cold.stdout
    # The date in the file changes: the memo follows the bytes.
    (root / "pyproject.toml").write_text((root / "pyproject.toml").read_text().replace("2027-03-31", "2027-04-30"))
    assert hwlint("check", cwd=root, today="2027-04-01").returncode == 0


def test_lintrunner_reads_hwlint_today(tmp_path: Path) -> None:
    root = tree(tmp_path)
    listing = tmp_path / "paths.txt"
    listing.write_text(str(root / "test/inductor/test_a.py") + "\n")
    proc = hwlint("lintrunner", f"@{listing}", cwd=root, today="2027-04-01")
    messages = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(m["path"], m["line"], m["name"]) for m in messages] == [
        (str(root / "allowlist.txt"), 1, "HWC305 phase-overdue")
    ]
    bad = hwlint("lintrunner", f"@{listing}", cwd=root, today="soon")
    assert "HWLINT_TODAY must be a date YYYY-MM-DD" in json.loads(bad.stdout)["description"] and bad.returncode == 0


# -- each phase's figures, from a real git history ------------------------------------

STATUS_PHASES = """
[[tool.hwlint.phases]]
name = "on-track"
paths = ["test/a/**"]
due = 2026-12-31

[[tool.hwlint.phases]]
name = "at-risk"
paths = ["test/b/**"]
due = 2026-04-30
owners = ["@b-team"]

[[tool.hwlint.phases]]
name = "overdue"
paths = ["test/c/**"]
due = 2026-03-10

[[tool.hwlint.phases]]
name = "done"
paths = ["test/d/**"]
due = 2026-06-30

[[tool.hwlint.phases]]
name = "empty"
paths = ["test/e/**"]
due = 2026-06-30

[[tool.hwlint.phases]]
name = "late-start"
paths = ["test/f/**"]
due = 2026-12-31
start = 2026-02-15
"""

# Files allowlisted per phase's folder at each commit (and 1 file outside every phase).
VERSIONS = {
    "2026-01-01": {"a": 10, "b": 4, "c": 2, "d": 3, "f": 5},
    "2026-02-01": {"a": 8, "b": 4, "c": 2, "d": 1, "f": 5},
    "2026-03-01": {"a": 6, "b": 3, "c": 2, "d": 0, "f": 3},
}
TODAY = "2026-03-15"


def _allowlist(counts: dict[str, int]) -> str:
    paths = [f"test/{folder}/test_{i:02d}.py" for folder, n in counts.items() for i in range(n)] + ["test/test_z.py"]
    return "".join(f"{p} 1\n" for p in sorted(paths))


def history_repo(root: Path) -> Path:
    init_repo(root)
    for day, counts in VERSIONS.items():
        commit(root, day, {"pyproject.toml": "[tool.hwlint]\n" + STATUS_PHASES, "allowlist.txt": _allowlist(counts)})
    return root


def _projection(points: list[tuple[str, int]]) -> str | None:
    """The spec's rule, computed here independently: least squares over the
    points (all within 90 days), from the newest point to zero."""
    from datetime import timedelta
    from statistics import linear_regression

    days = [date.fromisoformat(day).toordinal() for day, _ in points]
    slope, _ = linear_regression(days, [n for _, n in points])
    if slope >= 0:
        return None
    newest = date.fromisoformat(points[-1][0])
    return (newest + timedelta(seconds=round(points[-1][1] / -slope * 86400))).isoformat()


def expected_phases() -> list[dict[str, object]]:
    series = {folder: [(day, counts.get(folder, 0)) for day, counts in VERSIONS.items()] for folder in "abcdef"}
    a, b = _projection(series["a"]), _projection(series["b"])
    assert a is not None and a <= "2026-12-31" and b is not None and b > "2026-04-30"  # what the names promise
    return [
        {
            "name": "on-track",
            "due": "2026-12-31",
            "paths": ["test/a/**"],
            "owners": [],
            "files_at_start": 10,
            "files_left": 6,
            "projected_done": a,
            "status": "on-track",
        },
        {
            "name": "at-risk",
            "due": "2026-04-30",
            "paths": ["test/b/**"],
            "owners": ["@b-team"],
            "files_at_start": 4,
            "files_left": 3,
            "projected_done": b,
            "status": "at-risk",
        },
        {
            "name": "overdue",
            "due": "2026-03-10",
            "paths": ["test/c/**"],
            "owners": [],
            "files_at_start": 2,
            "files_left": 2,
            "projected_done": None,
            "status": "overdue",
        },  # no progress: no date
        {
            "name": "done",
            "due": "2026-06-30",
            "paths": ["test/d/**"],
            "owners": [],
            "files_at_start": 3,
            "files_left": 0,
            "projected_done": "2026-03-01",
            "status": "done",
        },  # the day it emptied
        {
            "name": "empty",
            "due": "2026-06-30",
            "paths": ["test/e/**"],
            "owners": [],
            "files_at_start": 0,
            "files_left": 0,
            "projected_done": "2026-01-01",
            "status": "done",
        },  # empty from the first commit
        {
            "name": "late-start",
            "due": "2026-12-31",
            "paths": ["test/f/**"],
            "owners": [],
            "files_at_start": 5,
            # Began on 2026-02-15: the list as it was then (5), then March's 3. Two
            # points are one change, too short a history to project from
            # (history.projection_gap): no date, and nothing says it is at risk.
            "files_left": 3,
            "projected_done": None,
            "status": "on-track",
        },
    ]


def test_phase_figures_from_git_history(tmp_path: Path) -> None:
    from hwlint.allowlist.history import allowlist_history
    from hwlint.allowlist.model import load_allowlist
    from hwlint.allowlist.phases import PhaseMap, phase_statuses

    root = history_repo(tmp_path / "repo")
    config = load_project(start=root)
    phase_map = PhaseMap(config.phases)
    points = allowlist_history(root, "allowlist.txt", phase_map.index_of, len(config.phases))
    assert [p.allowlisted for p in points] == [25, 21, 15]
    assert [p.groups for p in points] == [(10, 4, 2, 3, 0, 5), (8, 4, 2, 1, 0, 5), (6, 3, 2, 0, 0, 3)]
    entries = load_allowlist(root, "allowlist.txt").entries
    statuses = phase_statuses(config.phases, entries, points, date.fromisoformat(TODAY))
    assert [s.to_dict() for s in statuses] == expected_phases()
    assert statuses[5].burndown == [("2026-02-15", 5), ("2026-03-01", 3)]
    # Without history: no start, no projection; the status is judged on dates alone.
    bare = phase_statuses(config.phases, entries, None, date.fromisoformat(TODAY))
    assert [(s.files_at_start, s.projected_done, s.status) for s in bare] == [
        (None, None, "on-track"),
        (None, None, "on-track"),
        (None, None, "overdue"),
        (None, None, "done"),
        (None, None, "done"),
        (None, None, "on-track"),
    ]


# -- what a phase has left, and fixing one phase ------------------------------------------

GENERIC_FIXABLE = HEADER + "class TestG(TestCase):\n    def test_g(self):\n        x = 1\n"  # safe fix: GENERIC


def test_allowlist_show_lists_what_a_phase_has_left(tmp_path: Path) -> None:
    root = tree(tmp_path)
    everything = hwlint("allowlist", "show", cwd=root)
    assert (everything.returncode, everything.stdout) == (0, (root / "allowlist.txt").read_text())
    nn = hwlint("allowlist", "show", "--phase", "nn", cwd=root)
    assert (nn.returncode, nn.stdout) == (0, "test/nn/test_c.py 1\ntest/test_nn.py 1\n")
    assert nn.stderr == "2 files left in phase 'nn' (due 2027-06-30).\n"
    as_json = hwlint("allowlist", "show", "--phase", "inductor", "--format", "json", cwd=root)
    assert json.loads(as_json.stdout) == [
        {"path": "test/inductor/test_a.py", "budget": 1, "line": 1, "phase": "inductor"},
        {"path": "test/inductor/test_b.py", "budget": 1, "line": 2, "phase": "inductor"},
    ]
    unknown = hwlint("allowlist", "show", "--phase", "jit", cwd=root)
    assert (unknown.returncode, unknown.stdout) == (2, "")
    assert unknown.stderr == "hwlint: error: --phase: no phase named 'jit' (phases: inductor, nn)\n"


def test_fix_phase_fixes_only_that_phases_files(tmp_path: Path) -> None:
    root = tree(tmp_path)
    before = {p: p.read_text() for p in root.rglob("*.py")}
    proc = hwlint("fix", "--phase", "inductor", cwd=root)
    assert (proc.returncode, proc.stderr) == (
        0,
        "Classified 2 classes in 2 files (GENERIC 2).\nPruned allowlist.txt: 2 removed; 3 entries.\n",
    )
    changed = sorted(p.relative_to(root).as_posix() for p, text in before.items() if p.read_text() != text)
    assert changed == ["test/inductor/test_a.py", "test/inductor/test_b.py"]
    # They left the allowlist (clean now); the other phases' entries stay.
    assert (root / "allowlist.txt").read_text().splitlines() == [
        "test/nn/test_c.py 1",
        "test/test_nn.py 1",
        "test/test_other.py 1",
    ]
    # With PATHS: the phase's files among them.
    diff = hwlint("fix", "--phase", "nn", "test/nn", "test/test_other.py", "--diff", cwd=root)
    assert diff.returncode == 1 and diff.stdout.startswith("--- a/test/nn/test_c.py")
    assert "test_other.py" not in diff.stdout and "test_nn.py" not in diff.stdout
    none = hwlint("fix", "--phase", "nn", "test/inductor", cwd=root)
    assert (none.returncode, none.stderr) == (0, "hwlint: no test files of phase 'nn' among the given paths\n")
    unknown = hwlint("fix", "--phase", "jit", cwd=root)
    assert (unknown.returncode, unknown.stderr) == (
        2,
        "hwlint: error: --phase: no phase named 'jit' (phases: inductor, nn)\n",
    )


# -- the report's Phases section --------------------------------------------------------


def report(root: Path, fmt: str, *args: str, env: dict[str, str] | None = None) -> str:
    from tests.test_history import GIT_ENV

    proc = subprocess.run(
        [sys.executable, "-m", "hwlint", "report", "--format", fmt, "--today", TODAY, *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**GIT_ENV, "SOURCE_DATE_EPOCH": "1773576000", **(env or {})},
    )  # 2026-03-15T12:00Z
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_report_json_phases_are_the_figures_computed_here(tmp_path: Path) -> None:
    root = history_repo(tmp_path / "repo")
    figures = json.loads(report(root, "json"))
    assert figures["phases"] == expected_phases()
    assert figures["history"] == []  # the phases read git quietly; --history adds the list's own burn-down
    with_history = json.loads(report(root, "json", "--history"))
    assert with_history["phases"] == expected_phases() and len(with_history["history"]) == 3
    # HWLINT_TODAY when there is no --today; the option wins.
    proc = subprocess.run(
        [sys.executable, "-m", "hwlint", "report", "--format", "json"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HWLINT_TODAY": "2027-01-01"},
    )
    assert [p["status"] for p in json.loads(proc.stdout)["phases"]] == [
        "overdue",
        "overdue",
        "overdue",
        "done",
        "done",
        "overdue",
    ]


def test_report_phases_without_git(tmp_path: Path) -> None:
    """Phases work without history: no start figure, no projection."""
    root = history_repo(tmp_path / "repo")
    bare = tmp_path / "bare"
    bare.mkdir()
    for name in ("pyproject.toml", "allowlist.txt"):
        (bare / name).write_bytes((root / name).read_bytes())
    phases = json.loads(report(bare, "json"))["phases"]
    assert [(p["files_at_start"], p["projected_done"], p["status"], p["files_left"]) for p in phases] == [
        (None, None, "on-track", 6),
        (None, None, "on-track", 3),
        (None, None, "overdue", 2),
        (None, None, "done", 0),
        (None, None, "done", 0),
        (None, None, "on-track", 3),
    ]


def test_report_text_and_markdown_show_the_phases(tmp_path: Path) -> None:
    root = history_repo(tmp_path / "repo")
    expected = expected_phases()
    text = report(root, "text")
    assert "Phases" in text
    for phase in expected:
        row = next(line for line in text.splitlines() if line.strip().startswith(phase["name"] + " "))
        assert phase["status"] in row and phase["due"] in row and str(phase["files_left"]) in row
    markdown = report(root, "markdown")
    section = markdown.split("## Phases", 1)[1].split("\n## ", 1)[0]
    assert f"| on-track | 2026-12-31 | on-track | 6 | 10 | {expected[0]['projected_done']} |  |" in section
    assert "| at-risk | 2026-04-30 | at-risk | 3 | 4 | " in section and "| `@b-team` |" in section
    # A burn-down per phase with files, drawn against the deadline: the plan
    # goes from the files at start to zero on the due date.
    charts = section.split("```mermaid")[1:]
    assert len(charts) == 5  # not for the phase that never had a file ("done" had three)
    on_track = charts[0]
    assert 'title "on-track: files left (due 2026-12-31)"' in on_track
    assert 'x-axis ["2026-01-01", "2026-02-01", "2026-03-01", "2026-12-31"]' in on_track
    assert "line [10, 8, 6, 6]" in on_track and "line [10, " in on_track.split("line [10, 8, 6, 6]")[1]


def test_report_html_draws_each_phase_against_its_deadline_in_a_browser(tmp_path: Path) -> None:
    import re

    from tests.test_report_html import browse, pixels_like, screenshot

    root = history_repo(tmp_path / "repo")
    page = tmp_path / "report.html"
    page.write_text(report(root, "html"))
    proc = browse(page, tmp_path, "--dump-dom")
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    dom = proc.stdout.decode("utf-8", "replace")
    table = dom.split('<table id="phases">', 1)[1].split("</table>", 1)[0]
    expected = expected_phases()
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1])
    assert len(rows) == len(expected)
    for row, phase in zip(rows, expected):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        assert cells[:6] == [
            phase["name"],
            phase["due"],
            phase["status"],
            str(phase["files_left"]),
            str(phase["files_at_start"]),
            phase["projected_done"] or "—",
        ]
    # A chart per phase that had files (not "empty", the fifth), each with
    # the burn-down and the dashed plan to zero on the due date.
    charts = re.findall(r'<figure id="(phase-chart-\d+)">(.*?)</figure>', dom, re.S)
    assert [name for name, _ in charts] == [
        "phase-chart-1",
        "phase-chart-2",
        "phase-chart-3",
        "phase-chart-4",
        "phase-chart-6",
    ]
    for name, svg in charts:
        assert svg.startswith("<svg") and 'class="pygal-chart"' in svg, name
        assert len(re.findall(r'<path d="M[^"]+" class="line reactive', svg)) == 2, name
        assert "plan: zero by the due date" in svg
    assert "on-track: files left (due 2026-12-31)" in charts[0][1]
    image = screenshot(page, tmp_path)
    assert pixels_like(image, (0xCF, 0x22, 0x2E)) > 3000, "the phases' burn-down lines are not visible"
    # The legend and the page's grey text alone are ~2,600 such pixels; the five plan lines double it.
    assert pixels_like(image, (0x59, 0x63, 0x6E), tolerance=10) > 4000, "the plan lines are not visible"


def test_a_warm_one_file_run_with_phases_imports_only_what_it_needs(tmp_path: Path) -> None:
    """Phases cost a pre-commit run nothing it can avoid: no TOML parser (the
    settings memo keeps the dates), no git history, no pattern matching while
    no phase is due."""
    from tests.test_cache import NOT_ON_A_WARM_RUN, _imported, _tree

    root = _tree(tmp_path)
    (root / "pyproject.toml").write_text(
        (root / "pyproject.toml").read_text()
        + '\n[[tool.hwlint.phases]]\nname = "a"\npaths = ["test/**"]\ndue = 2999-01-01\n'
    )
    _imported(root, "check", "test/test_b.py")
    _imported(root, "check", "test/test_b.py")  # the cache folder exists now: the settings are remembered
    warm, out = _imported(root, "check", "test/test_b.py")
    assert sorted(m for m in warm if m.split(".")[0] in NOT_ON_A_WARM_RUN or m in NOT_ON_A_WARM_RUN) == []
    assert "hwlint.allowlist.history" not in warm and "subprocess" not in warm
    assert "test/test_b.py:3:1: HWC001" in out
