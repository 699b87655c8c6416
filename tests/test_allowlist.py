"""The allowlist's local half of the ratchet: prune, sync, import/export,
`check --fix`, HWC304, and concurrent prunes. The git half (HWC303) is in
test_ratchet.py."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwlint.allowlist.edit import prune_allowlist
from hwlint.allowlist.model import load_allowlist, parse_allowlist
from hwlint.allowlist.plan import TreeCounts, plan_prune, plan_sync, render_allowlist
from hwlint.core.config import load_config
from tests.conftest import lint, run_cli, write_project

DATA = Path(__file__).parent / "data"

HEADER = (
    "# Test files not yet migrated to hw_classification. This list may only shrink.\n"
    "# <path relative to the project root> <violations allowed>\n"
)
CLEAN = "class TestOk(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n    def test_ok(self): pass\n"


def unclassified(n: int) -> str:
    """A test file with `n` unclassified test classes: n HWC001."""
    return "".join(f"class Test{i}(TestCase):\n    def test_{i}(self): pass\n\n" for i in range(n))


def everything_exists(path: str) -> bool:
    return True


def describe(plan, where: str = "allowlist.txt", dry_run: bool = False) -> list[str]:
    return [a.describe(where, dry_run=dry_run) for a in plan.actions] + [
        a.describe(where, refused=True) for a in plan.refused
    ]


# ---------------------------------------------------------------------------
# The plans, as pure functions.


def test_prune_removes_clean_and_gone_files_and_lowers_budgets() -> None:
    allowlist = parse_allowlist(
        HEADER + "test/test_a.py 3\ntest/test_b.py 2\ntest/test_c.py 4\ntest/test_gone.py 1\ntest/test_over.py 1\n",
        "allowlist.txt",
    )
    tree = TreeCounts({"test/test_a.py": 3, "test/test_b.py": 0, "test/test_c.py": 1, "test/test_over.py": 5})
    plan = plan_prune(allowlist, tree, exists=lambda p: p != "test/test_gone.py")
    assert describe(plan) == [
        "allowlist.txt:4: removed test/test_b.py: clean now",
        "allowlist.txt:5: lowered test/test_c.py from 4 to 1",
        "allowlist.txt:6: removed test/test_gone.py: no longer exists",
    ]
    # Never raised: test_over.py stays at 1 (HWC302 keeps reporting it).
    assert render_allowlist(allowlist, plan) == HEADER + "test/test_a.py 3\ntest/test_c.py 1\ntest/test_over.py 1\n"


def test_prune_never_adds_a_file() -> None:
    allowlist = parse_allowlist("test/test_a.py 1\n", "allowlist.txt")
    tree = TreeCounts({"test/test_a.py": 1, "test/test_new.py": 7})
    plan = plan_prune(allowlist, tree, exists=everything_exists)
    assert (plan.budgets, plan.actions, plan.refused) == ({"test/test_a.py": 1}, [], [])


def test_prune_keeps_comments_and_unchanged_lines_byte_for_byte() -> None:
    text = (
        "# Header kept.\n"
        "\n"
        "test/test_a.py   2   # flaky on ROCm\n"
        "# test_b needs a device split first\n"
        "test/test_b.py 5  # tracked in #123\n"
        "# this one is done\n"
        "test/test_c.py 1\n"
        "# footer kept\n"
    )
    allowlist = parse_allowlist(text, "allowlist.txt")
    tree = TreeCounts({"test/test_a.py": 2, "test/test_b.py": 3, "test/test_c.py": 0})
    plan = plan_prune(allowlist, tree, exists=everything_exists)
    assert render_allowlist(allowlist, plan) == (
        "# Header kept.\n"
        "\n"
        "test/test_a.py   2   # flaky on ROCm\n"
        "# test_b needs a device split first\n"
        "test/test_b.py 3  # tracked in #123\n"
        "# footer kept\n"
    )


def test_prune_on_a_partial_run_judges_only_checked_and_missing_files() -> None:
    allowlist = parse_allowlist(
        "test/test_a.py 2\ntest/test_b.py 2\ntest/test_gone.py 1\ntest/test_other.py 3\n", "a.txt"
    )
    tree = TreeCounts({"test/test_a.py": 1, "test/test_b.py": 0}, whole_tree=False)
    plan = plan_prune(allowlist, tree, exists=lambda p: p != "test/test_gone.py")
    assert plan.budgets == {"test/test_a.py": 1, "test/test_other.py": 3}
    assert describe(plan, "a.txt") == [
        "a.txt:1: lowered test/test_a.py from 2 to 1",
        "a.txt:2: removed test/test_b.py: clean now",
        "a.txt:3: removed test/test_gone.py: no longer exists",
    ]


def test_prune_on_the_whole_tree_removes_files_that_are_not_linted() -> None:
    allowlist = parse_allowlist("docs/test_notes.py 1\n", "allowlist.txt")
    plan = plan_prune(allowlist, TreeCounts({}), exists=everything_exists)
    assert describe(plan) == [
        "allowlist.txt:1: removed docs/test_notes.py: not a test file hwlint lints (see include/exclude)"
    ]


def test_prune_keeps_entries_of_files_that_do_not_parse() -> None:
    allowlist = parse_allowlist("test/test_broken.py 4\n", "allowlist.txt")
    plan = plan_prune(allowlist, TreeCounts({}, frozenset({"test/test_broken.py"})), exists=everything_exists)
    assert (plan.budgets, plan.actions) == ({"test/test_broken.py": 4}, [])


def test_prune_sorts_and_merges_duplicates_at_the_lowest_budget() -> None:
    allowlist = parse_allowlist("test/test_b.py 5\ntest/test_a.py 4\ntest/test_b.py 2\n", "allowlist.txt")
    tree = TreeCounts({"test/test_a.py": 4, "test/test_b.py": 3})
    plan = plan_prune(allowlist, tree, exists=everything_exists)
    assert describe(plan) == [
        "allowlist.txt:3: merged the duplicate line of test/test_b.py (kept the lowest budget, 2)",
        "allowlist.txt: sorted the entries",
    ]
    assert render_allowlist(allowlist, plan) == "test/test_a.py 4\ntest/test_b.py 2\n"


def test_prune_follows_a_rename() -> None:
    allowlist = parse_allowlist("test/test_old.py 3\n", "allowlist.txt")
    plan = plan_prune(
        allowlist,
        TreeCounts({"test/test_new.py": 2}),
        exists=lambda p: p != "test/test_old.py",
        renames={"test/test_old.py": "test/test_new.py"},
    )
    assert describe(plan) == [
        "allowlist.txt:1: moved test/test_old.py to test/test_new.py (renamed), budget lowered from 3 to 2"
    ]
    assert render_allowlist(allowlist, plan) == "test/test_new.py 2\n"


def test_prune_does_not_guess_about_conflicts_or_bad_lines() -> None:
    text = (
        "test/test_a.py 1\n<<<<<<< HEAD\ntest/test_b.py 2\n=======\ntest/test_b.py 3\n>>>>>>> topic\n/abs/test_c.py 1\n"
    )
    allowlist = parse_allowlist(text, "allowlist.txt")
    plan = plan_prune(allowlist, TreeCounts({"test/test_a.py": 0, "test/test_b.py": 1}), exists=everything_exists)
    assert plan.actions == []
    assert [(d.line, d.code) for d in plan.blocked] == [(2, "HWC304"), (4, "HWC304"), (6, "HWC304"), (7, "HWC304")]


def test_sync_refuses_growth_without_the_flag_and_applies_the_rest() -> None:
    allowlist = parse_allowlist(HEADER + "test/test_a.py 1\ntest/test_b.py 3\ntest/test_c.py 1\n", "allowlist.txt")
    tree = TreeCounts(
        {"test/test_a.py": 2, "test/test_b.py": 1, "test/test_c.py": 0, "test/test_new.py": 4, "test/test_ok.py": 0}
    )
    plan = plan_sync(allowlist, tree, exists=everything_exists)
    assert describe(plan) == [
        "allowlist.txt:4: lowered test/test_b.py from 3 to 1",
        "allowlist.txt:5: removed test/test_c.py: clean now",
        "allowlist.txt:3: not raising test/test_a.py from 1 to 2: fix its new violations, or pass --allow-growth",
        "allowlist.txt: not adding test/test_new.py (4 violations): classify its test classes, or pass --allow-growth",
    ]
    assert render_allowlist(allowlist, plan) == HEADER + "test/test_a.py 1\ntest/test_b.py 1\n"


def test_sync_with_allow_growth_adds_and_raises_and_says_so() -> None:
    allowlist = parse_allowlist(HEADER + "test/test_a.py 1\n", "allowlist.txt")
    tree = TreeCounts({"test/test_a.py": 2, "test/test_new.py": 4})
    plan = plan_sync(allowlist, tree, exists=everything_exists, allow_growth=True)
    assert describe(plan) == [
        "allowlist.txt:3: raised test/test_a.py from 1 to 2",
        "allowlist.txt: added test/test_new.py 4",
    ]
    assert render_allowlist(allowlist, plan) == HEADER + "test/test_a.py 2\ntest/test_new.py 4\n"


def test_sync_resolves_a_conflict_from_the_tree_without_growth() -> None:
    text = (
        HEADER + "test/test_a.py 2\n"
        "<<<<<<< HEAD\n"
        "test/test_b.py 2\n"
        "||||||| base\n"
        "test/test_b.py 4\n"
        "test/test_gone.py 1\n"
        "=======\n"
        "test/test_b.py 5\n"
        "test/test_c.py 1\n"
        ">>>>>>> topic\n"
        "test/test_z.py 1\n"
    )
    allowlist = parse_allowlist(text, "allowlist.txt")
    tree = TreeCounts({"test/test_a.py": 2, "test/test_b.py": 3, "test/test_c.py": 1, "test/test_z.py": 0})
    plan = plan_sync(allowlist, tree, exists=lambda p: p != "test/test_gone.py")
    # test_b: 3 violations, but neither side allowed more than 2.
    assert render_allowlist(allowlist, plan) == HEADER + "test/test_a.py 2\ntest/test_b.py 2\ntest/test_c.py 1\n"
    assert describe(plan) == [
        "allowlist.txt:4: dropped a merge-conflict marker",
        "allowlist.txt:6: dropped a merge-conflict marker",
        "allowlist.txt:7: merged the duplicate line of test/test_b.py (kept the lowest budget, 2)",
        "allowlist.txt:8: removed test/test_gone.py: no longer exists",
        "allowlist.txt:9: dropped a merge-conflict marker",
        "allowlist.txt:10: merged the duplicate line of test/test_b.py (kept the lowest budget, 2)",
        "allowlist.txt:12: dropped a merge-conflict marker",
        "allowlist.txt:13: removed test/test_z.py: clean now",
        "allowlist.txt:5: not raising test/test_b.py from 2 to 3: fix its new violations, or pass --allow-growth",
    ]


def test_sync_drops_lines_it_cannot_read_and_never_takes_their_budget() -> None:
    allowlist = parse_allowlist("/abs/test/test_a.py 1\ntest/test_b.py\ntest/../test_c.py 2\n", "allowlist.txt")
    tree = TreeCounts({"test/test_b.py": 2})
    plan = plan_sync(allowlist, tree, exists=everything_exists)
    assert describe(plan) == [
        "allowlist.txt:1: dropped '/abs/test/test_a.py 1': not a root-relative path",
        "allowlist.txt:2: dropped 'test/test_b.py': no budget",
        "allowlist.txt:3: dropped 'test/../test_c.py 2': not a root-relative path",
        "allowlist.txt: not adding test/test_b.py (2 violations): classify its test classes, or pass --allow-growth",
    ]
    assert plan.budgets == {}


# ---------------------------------------------------------------------------
# HWC304: every problem at its line.


def test_syntax_problems_are_reported_at_their_lines(tmp_path: Path) -> None:
    allowlist = (
        "# comment\n"
        "test/test_b.py 1\n"
        "test/test_a.py 1\n"
        "test/test_b.py 1\n"
        "/abs/test_x.py 1\n"
        "test/../test_y.py 1\n"
        "test/test_c.py many\n"
        "<<<<<<< HEAD\n"
    )
    root = write_project(
        tmp_path,
        {"test/test_a.py": unclassified(1), "test/test_b.py": unclassified(1), "test/test_c.py": unclassified(1)},
        allowlist=allowlist,
    )
    found = [(d.line, d.message) for d in lint(root).diagnostics if d.code == "HWC304"]
    assert found == [
        (3, "test/test_a.py is out of order (after test/test_b.py): keep the list sorted"),
        (4, "test/test_b.py is listed twice (first at line 2): remove this line"),
        (5, "/abs/test_x.py: use a path relative to the project root with / separators"),
        (6, "test/../test_y.py: use a normalized path inside the project root"),
        (7, "malformed entry 'test/test_c.py many': expected `<path> <violations allowed>`"),
        (8, "merge-conflict marker: resolve the conflict, or run `hwlint allowlist sync`"),
    ]


def test_a_budget_too_long_to_be_a_count_is_a_malformed_entry(tmp_path: Path) -> None:
    # 5,000 digits is more than int() converts: this was an internal error.
    for budget in ("9" * 19, "9" * 5000):
        root = write_project(
            tmp_path / str(len(budget)), {"test/test_a.py": unclassified(1)}, allowlist=f"test/test_a.py {budget}\n"
        )
        found = [(d.line, d.message) for d in lint(root).diagnostics if d.code == "HWC304"]
        shown = f"test/test_a.py {budget}" if len(budget) == 19 else "test/test_a.py " + "9" * 82 + "..."
        assert found == [(1, f"malformed entry {shown!r}: expected `<path> <violations allowed>`")]
    assert (
        parse_allowlist("test/test_a.py 999999999999999999\n", "a.txt").entries["test/test_a.py"].budget == 10**18 - 1
    )


def test_a_path_written_with_a_colon_is_malformed_but_keeps_its_file_and_budget(tmp_path: Path) -> None:
    # `path: 2`, as YAML or a dict would write it: it named a file
    # `test/test_a.py:` that "no longer exists" (HWC301), and the file's
    # findings were over no budget.
    root = write_project(tmp_path, {"test/test_a.py": unclassified(2)}, allowlist="test/test_a.py: 2\n")
    assert [(d.path, d.line, d.code, d.message) for d in lint(root).diagnostics] == [
        ("allowlist.txt", 1, "HWC304", "malformed entry 'test/test_a.py: 2': expected `<path> <violations allowed>`")
    ]
    for layout in (True, False):
        assert parse_allowlist("test/test_a.py: 2\n", "a.txt", layout=layout).entries["test/test_a.py"].budget == 2


# ---------------------------------------------------------------------------
# Budgets against a real tree, through the API other commands use.


def test_a_new_unclassified_class_in_an_allowlisted_file_is_caught(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"test/test_old.py": unclassified(2)}, allowlist="test/test_old.py 1\n")
    assert [(d.path, d.line, d.code, d.message) for d in lint(root).diagnostics] == [
        # Reported where it is (tests/test_budget.py: which one, from git).
        (
            "test/test_old.py",
            4,
            "HWC302",
            "HWC001 test class Test1 declares no hw_classification: add `hw_classification = "
            "HardwareClassification.GENERIC` (not instantiated per device, no device parameter, no accelerator use); "
            "over the budget of test/test_old.py at allowlist.txt:1 (1 allowed, 2 found; the last in the file: no "
            "history of when the budget was set)",
        ),
    ]


def test_prune_api_takes_a_fresh_check_result(tmp_path: Path) -> None:
    # `hwlint fix` calls prune_allowlist with the result of a normal run
    # (allowlist applied): the exempt files' counts must still be right.
    root = write_project(
        tmp_path,
        {
            "test/test_a.py": unclassified(1),
            "test/test_b.py": CLEAN,
            "test/test_c.py": unclassified(3),
            "test/test_d.py": unclassified(2),
        },
        allowlist="test/test_a.py 1\ntest/test_b.py 1\ntest/test_c.py 5\n",
    )
    config = load_config(start=root)
    change = prune_allowlist(config, lint(root), write=True)
    assert [line for line in change.lines()] == [
        "allowlist.txt:2: removed test/test_b.py: clean now",
        "allowlist.txt:3: lowered test/test_c.py from 5 to 3",
    ]
    assert change.written
    assert (root / "allowlist.txt").read_text() == "test/test_a.py 1\ntest/test_c.py 3\n"
    # The same from a run that ignored the allowlist: nothing left to do.
    again = prune_allowlist(config, lint(root, use_allowlist=False), write=True)
    assert (again.changed, again.written, again.summary("prune")) == (
        False,
        False,
        "allowlist.txt is up to date (2 entries).",
    )


def test_prune_counts_the_configured_rules_whatever_the_run_selected(tmp_path: Path) -> None:
    # `check --select HWC102 --fix` sees no HWC001: it must not call test_a.py clean.
    root = write_project(tmp_path, {"test/test_a.py": unclassified(2)}, allowlist="test/test_a.py 2\n")
    config = load_config(start=root)
    change = prune_allowlist(config, lint(root, select=("HWC102",)), write=True)
    assert (change.actions, (root / "allowlist.txt").read_text()) == ([], "test/test_a.py 2\n")


def test_prune_on_a_partial_run_leaves_other_entries_alone(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {"test/test_a.py": CLEAN, "test/test_b.py": CLEAN},
        allowlist="test/test_a.py 1\ntest/test_b.py 1\ntest/test_gone.py 1\n",
    )
    change = prune_allowlist(load_config(start=root), lint(root, [root / "test/test_a.py"]), write=True)
    assert change.lines() == [
        "allowlist.txt:1: removed test/test_a.py: clean now",
        "allowlist.txt:3: removed test/test_gone.py: no longer exists",
    ]
    assert (root / "allowlist.txt").read_text() == "test/test_b.py 1\n"


# ---------------------------------------------------------------------------
# The commands.


@pytest.fixture
def stale(tmp_path: Path) -> Path:
    return write_project(
        tmp_path / "proj",
        {
            "test/test_a.py": unclassified(1),
            "test/test_b.py": CLEAN,
            "test/test_c.py": unclassified(2),
            "test/test_new.py": unclassified(1),
        },
        allowlist=HEADER + "test/test_a.py 1\ntest/test_b.py 1\ntest/test_c.py 4\ntest/test_gone.py 2\n",
    )


def test_prune_check_mode_changes_nothing_and_exits_1(stale: Path) -> None:
    before = (stale / "allowlist.txt").read_text()
    result = run_cli("allowlist", "prune", "--check", cwd=stale)
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == (
        "allowlist.txt:4: would remove test/test_b.py: clean now\n"
        "allowlist.txt:5: would lower test/test_c.py from 4 to 2\n"
        "allowlist.txt:6: would remove test/test_gone.py: no longer exists\n"
        "allowlist.txt would change (2 removed, 1 lowered; 2 entries): run `hwlint allowlist prune`.\n"
    )
    assert (stale / "allowlist.txt").read_text() == before


def test_prune_writes_keeps_permissions_and_is_idempotent(stale: Path) -> None:
    os.chmod(stale / "allowlist.txt", 0o640)
    result = run_cli("allowlist", "prune", cwd=stale)
    assert (result.returncode, result.stdout) == (
        0,
        (
            "allowlist.txt:4: removed test/test_b.py: clean now\n"
            "allowlist.txt:5: lowered test/test_c.py from 4 to 2\n"
            "allowlist.txt:6: removed test/test_gone.py: no longer exists\n"
            "Pruned allowlist.txt: 2 removed, 1 lowered; 2 entries.\n"
        ),
    )
    assert (stale / "allowlist.txt").read_text() == HEADER + "test/test_a.py 1\ntest/test_c.py 2\n"
    assert stat.S_IMODE(os.stat(stale / "allowlist.txt").st_mode) == 0o640
    # No stray files (the cache folder is the project's own).
    assert sorted(p.name for p in stale.iterdir() if p.name != ".hwlint_cache") == [
        "allowlist.txt",
        "pyproject.toml",
        "test",
    ]
    again = run_cli("allowlist", "prune", "--check", cwd=stale)
    assert (again.returncode, again.stdout) == (0, "allowlist.txt is up to date (2 entries).\n")


def test_check_fix_prunes_stale_entries_and_reports_what_is_left(stale: Path) -> None:
    result = run_cli("check", "--fix", cwd=stale)
    # The unlisted file's class is fixed first (safe: GENERIC), then the list is pruned.
    assert result.stderr == (
        "Classified 1 class in 1 file (GENERIC 1).\n"
        "allowlist.txt:4: removed test/test_b.py: clean now\n"
        "allowlist.txt:5: lowered test/test_c.py from 4 to 2\n"
        "allowlist.txt:6: removed test/test_gone.py: no longer exists\n"
    )
    assert "hw_classification = HardwareClassification.GENERIC" in (stale / "test/test_new.py").read_text()
    # HWC301 is gone with the entries; nothing is left outside the list.
    assert result.stdout == "All checks passed (4 files checked, 2 allowlisted).\n"
    assert result.returncode == 0
    assert (stale / "allowlist.txt").read_text() == HEADER + "test/test_a.py 1\ntest/test_c.py 2\n"


def test_check_fix_leaves_a_conflicted_list_to_sync(tmp_path: Path) -> None:
    text = "<<<<<<< HEAD\ntest/test_a.py 1\n=======\ntest/test_a.py 2\n>>>>>>> topic\n"
    root = write_project(tmp_path, {"test/test_a.py": CLEAN}, allowlist=text)
    result = run_cli("check", "--fix", cwd=root)
    assert result.stderr == (
        "hwlint: allowlist.txt not pruned: fix the lines above (HWC304), "
        "or run `hwlint allowlist sync` to rebuild the list from the tree\n"
    )
    assert result.returncode == 1
    assert (root / "allowlist.txt").read_text() == text


def test_sync_command_refuses_growth_then_allows_it(stale: Path) -> None:
    refused = run_cli("allowlist", "sync", cwd=stale)
    assert (refused.returncode, refused.stdout) == (
        1,
        (
            "allowlist.txt:4: removed test/test_b.py: clean now\n"
            "allowlist.txt:5: lowered test/test_c.py from 4 to 2\n"
            "allowlist.txt:6: removed test/test_gone.py: no longer exists\n"
            "allowlist.txt: not adding test/test_new.py (1 violation): classify its test classes, or pass --allow-growth\n"
            "Synced allowlist.txt: 2 removed, 1 lowered; 2 entries. Growth refused: 1 file not added.\n"
        ),
    )
    assert (stale / "allowlist.txt").read_text() == HEADER + "test/test_a.py 1\ntest/test_c.py 2\n"
    dry = run_cli("allowlist", "sync", "--allow-growth", "--check", cwd=stale)
    assert (dry.returncode, dry.stdout) == (
        1,
        (
            "allowlist.txt: would add test/test_new.py 1\n"
            "allowlist.txt would change (1 added; 3 entries): run `hwlint allowlist sync`.\n"
        ),
    )
    assert (stale / "allowlist.txt").read_text() == HEADER + "test/test_a.py 1\ntest/test_c.py 2\n"
    grown = run_cli("allowlist", "sync", "--allow-growth", cwd=stale)
    assert (grown.returncode, grown.stdout) == (
        0,
        ("allowlist.txt: added test/test_new.py 1\nSynced allowlist.txt: 1 added; 3 entries.\n"),
    )
    assert (stale / "allowlist.txt").read_text() == HEADER + "test/test_a.py 1\ntest/test_c.py 2\ntest/test_new.py 1\n"


def test_a_missing_allowlist_is_an_empty_one(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"test/test_a.py": unclassified(1)})
    result = run_cli("allowlist", "prune", cwd=root)
    assert (result.returncode, result.stdout) == (0, "allowlist.txt does not exist: nothing to prune.\n")
    assert not (root / "allowlist.txt").exists()
    grown = run_cli("allowlist", "sync", "--allow-growth", cwd=root)
    assert grown.returncode == 0
    assert (root / "allowlist.txt").read_text() == HEADER + "test/test_a.py 1\n"


def test_an_unreadable_allowlist_is_one_line_and_exit_2(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"test/test_a.py": CLEAN})
    (root / "allowlist.txt").mkdir()
    for args in (("allowlist", "prune"), ("check", "--fix"), ("allowlist", "export-json", "-")):
        result = run_cli(*args, cwd=root)
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr == (
            f"hwlint: error: {root / 'allowlist.txt'}: cannot read the allowlist (Is a directory): make it a "
            "readable file, or delete it (a missing allowlist is an empty one)\n"
        )


def test_a_bom_is_not_part_of_the_list_and_other_encodings_are_one_line(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"test/test_a.py": unclassified(1)})
    (root / "allowlist.txt").write_bytes(b"\xef\xbb\xbf# header\ntest/test_a.py 1\n")
    result = run_cli("check", cwd=root)
    assert (result.returncode, result.stdout) == (0, "All checks passed (1 file checked, 1 allowlisted).\n")
    # Lines are counted in the list's text: the BOM shifts nothing.
    (root / "allowlist.txt").write_bytes(b"\xef\xbb\xbf# header\n\ntest/test_\xe9.py 1\n")
    for args in (("check",), ("check", "test/test_a.py"), ("allowlist", "prune")):
        result = run_cli(*args, cwd=root)
        assert (result.returncode, result.stdout) == (2, ""), args
        assert result.stderr == (
            f"hwlint: error: {root / 'allowlist.txt'}:3: the allowlist is not UTF-8 text: save it as UTF-8\n"
        )


# ---------------------------------------------------------------------------
# PyTorch's JSON allowlist.


def test_import_export_round_trip_of_pytorchs_json_allowlist(tmp_path: Path) -> None:
    source = DATA / "pytorch_test_linter_allowlist.json"
    paths = json.loads(source.read_text())
    assert len(paths) >= 1200
    root = write_project(tmp_path / "proj", {})
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(unclassified(1))
    imported = run_cli("allowlist", "import-json", str(source), cwd=root)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.splitlines()[-1] == f"Imported allowlist.txt: {len(paths)} added; {len(paths)} entries."
    listed = (root / "allowlist.txt").read_text().splitlines()
    assert listed == HEADER.splitlines() + [f"{p} 1" for p in paths]
    exported = run_cli("allowlist", "export-json", str(tmp_path / "out.json"), cwd=root)
    assert (exported.returncode, exported.stdout) == (
        0,
        f"Exported {len(paths)} entries of allowlist.txt to {tmp_path / 'out.json'}.\n",
    )
    assert (tmp_path / "out.json").read_bytes() == source.read_bytes()


def test_import_computes_budgets_skips_what_it_cannot_list_and_refuses_growth(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "proj",
        {
            "test/test_a.py": unclassified(3),
            "test/test_b.py": CLEAN,
            "test/test_c.py": unclassified(1),
            "test/test_broken.py": "class (\n",
        },
    )
    listing = tmp_path / "allowlist.json"
    listing.write_text(
        json.dumps(["test/test_a.py", "test/test_b.py", "test/test_broken.py", "test/test_gone.py", "/abs/test_x.py"])
    )
    first = run_cli("allowlist", "import-json", str(listing), cwd=root)
    assert (first.returncode, first.stdout) == (
        0,
        (
            f"{listing}: skipped /abs/test_x.py: not a root-relative path\n"
            f"{listing}: skipped test/test_b.py: clean now\n"
            f"{listing}: skipped test/test_broken.py: does not parse (HWC000): fix it, then list it\n"
            f"{listing}: skipped test/test_gone.py: not a test file hwlint lints (see include/exclude)\n"
            "allowlist.txt: added test/test_a.py 3\n"
            "Imported allowlist.txt: 1 added; 1 entry.\n"
        ),
    )
    assert (root / "allowlist.txt").read_text() == HEADER + "test/test_a.py 3\n"
    # Into a list with entries, a new file is growth.
    listing.write_text(json.dumps(["test/test_a.py", "test/test_c.py"]))
    again = run_cli("allowlist", "import-json", str(listing), cwd=root)
    assert (again.returncode, again.stdout) == (
        1,
        (
            "allowlist.txt: not adding test/test_c.py (1 violation): classify its test classes, or pass --allow-growth\n"
            "allowlist.txt is up to date (1 entry). Growth refused: 1 file not added.\n"
        ),
    )
    assert run_cli("allowlist", "import-json", "--allow-growth", str(listing), cwd=root).returncode == 0
    assert (root / "allowlist.txt").read_text() == HEADER + "test/test_a.py 3\ntest/test_c.py 1\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "{not json",
            "{file}:1: not valid JSON (Expecting property name enclosed in double quotes): pass a JSON array of paths",
        ),
        ('{"a": 1}', "{file}: expected a JSON array of root-relative paths, like PyTorch's test_linter_allowlist.json"),
    ],
)
def test_import_rejects_what_is_not_a_json_array_of_paths(tmp_path: Path, content: str, message: str) -> None:
    root = write_project(tmp_path / "proj", {"test/test_a.py": CLEAN})
    listing = tmp_path / "bad.json"
    listing.write_text(content)
    result = run_cli("allowlist", "import-json", str(listing), cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        f"hwlint: error: {message.format(file=listing)}\n",
    )


# ---------------------------------------------------------------------------
# Concurrency: pre-commit runs hooks in parallel processes.


def _prune_processes(root: Path, argument_lists: list[list[str]]) -> list[subprocess.CompletedProcess[str]]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "hwlint", "allowlist", "prune", "--jobs", "1", *args],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for args in argument_lists
    ]
    done = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        done.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return done


def test_concurrent_prunes_never_lose_duplicate_or_tear_lines(tmp_path: Path) -> None:
    # 24 listed files: the even ones are clean now, the odd ones have 1
    # violation for a budget of 3. Twelve prunes at once, each on its own
    # pair of files (pre-commit splits files across processes): without a
    # lock, one prune's read-modify-write overwrites another's and brings
    # its removed lines and old budgets back.
    names = [f"test/test_{i:02d}.py" for i in range(24)]
    files = {name: (CLEAN if i % 2 == 0 else unclassified(1)) for i, name in enumerate(names)}
    text = HEADER + "".join(f"{name} 3\n" for name in names)
    root = write_project(tmp_path / "proj", files, allowlist=text)
    reference = write_project(tmp_path / "ref", files, allowlist=text)
    assert run_cli("allowlist", "prune", cwd=reference).returncode == 0
    expected = (reference / "allowlist.txt").read_text()
    assert expected == HEADER + "".join(f"{name} 1\n" for i, name in enumerate(names) if i % 2)

    results = _prune_processes(root, [[names[i], names[i + 12]] for i in range(12)])
    assert [(r.returncode, r.stderr) for r in results] == [(0, "")] * 12
    assert (root / "allowlist.txt").read_text() == expected
    assert load_allowlist(root, "allowlist.txt").problems == []
    assert sorted(p.name for p in root.iterdir() if p.name != ".hwlint_cache") == [
        "allowlist.txt",
        "pyproject.toml",
        "test",
    ]
    # Every change was made exactly once, by the process that checked its file.
    made = [line.split(": ", 1)[1] for r in results for line in r.stdout.splitlines()[:-1]]
    assert sorted(made) == sorted(
        f"removed {name}: clean now" if i % 2 == 0 else f"lowered {name} from 3 to 1" for i, name in enumerate(names)
    )


def test_the_lock_serialises_read_modify_write(tmp_path: Path) -> None:
    # A process that holds the lock keeps a prune from reading the list
    # until it lets go: the prune then sees (and keeps) the holder's write.
    root = write_project(
        tmp_path / "proj", {"test/test_a.py": CLEAN, "test/test_b.py": CLEAN}, allowlist="test/test_a.py 1\n"
    )
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from hwlint.allowlist.rewrite import allowlist_lock\n"
            "from hwlint.core.config import load_config\n"
            "with allowlist_lock(load_config()):\n"
            "    print('locked', flush=True)\n"
            "    time.sleep(1.0)\n"
            "    open('allowlist.txt', 'w').write('test/test_a.py 1\\ntest/test_b.py 1\\n')\n",
        ],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    result = run_cli("allowlist", "prune", "test/test_b.py", cwd=root)
    holder.wait(timeout=30)
    assert result.stdout == (
        "allowlist.txt:2: removed test/test_b.py: clean now\nPruned allowlist.txt: 1 removed; 1 entry.\n"
    )
    assert (root / "allowlist.txt").read_text() == "test/test_a.py 1\n"


def test_example_tree_prunes_to_what_check_says(tmp_path: Path) -> None:
    # The README's example: HWC301 names test_migrated.py; prune removes it.
    repo = Path(__file__).resolve().parent.parent
    root = tmp_path / "copy"
    shutil.copytree(repo / "examples", root / "examples")
    shutil.copy(repo / "allowlist.txt", root / "allowlist.txt")
    shutil.copy(repo / "pyproject.toml", root / "pyproject.toml")
    result = run_cli("allowlist", "prune", "--check", cwd=root)
    assert (result.returncode, result.stdout) == (
        1,
        (
            "allowlist.txt:4: would remove examples/test/test_migrated.py: clean now\n"
            "allowlist.txt would change (1 removed; 1 entry): run `hwlint allowlist prune`.\n"
        ),
    )


# Lines of every kind the parser tells apart, for the property below.
_LINES = st.sampled_from(
    [
        "test/a.py 1",
        "test/b.py 2",
        "test/c.py 0  # later",
        "test/a.py 3",
        "test/b.py",
        "test/d.py x",
        "/abs/test_x.py 1",
        "C:/test_x.py 1",
        "test\\x.py 1",
        "test/../x.py 1",
        "./test/x.py 1",
        "test/..x.py 1",
        "<<<<<<< HEAD",
        "=======",
        ">>>>>>> 1234",
        "||||||| base",
        "# comment",
        "",
        "   ",
        "test/z.py 1 trailing",
        ">x.py 1",
        "test/e.py 4\r",
    ]
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(_LINES, max_size=12), st.sampled_from(["\n", "\r\n"]))
def test_parse_without_layout_finds_what_the_full_parse_finds(lines: list[str], newline: str) -> None:
    """check parses the list with layout=False, which takes a fast path for
    the common line: the entries and problems must be those of the full
    parse, which does not."""
    text = newline.join(lines)
    full = parse_allowlist(text, "allowlist.txt")
    fast = parse_allowlist(text, "allowlist.txt", layout=False)
    assert fast.entries == full.entries
    assert [(d.line, d.message) for d in fast.problems] == [(d.line, d.message) for d in full.problems]
    assert fast.records == [] and fast.header == fast.footer == []
