"""`--quiet`/`-q` on the commands that print a line per allowlist entry they
change (prune, sync, import-json): the summary line stays, and so do what
needs a human (refused growth, a list that cannot be read); the entries go.
`allowlist init` prints no line per entry: quiet, its summary and its
warnings stay, the devices found and the next steps go."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli, write_project
from tests.test_allowlist import CLEAN, HEADER, unclassified


@pytest.mark.parametrize("flag", ["--quiet", "-q"])
def test_import_json_quiet_prints_the_summary_not_806_added_lines(tmp_path: Path, flag: str) -> None:
    files = {f"test/test_{i}.py": unclassified(1) for i in range(5)}
    root = write_project(tmp_path / "proj", {**files, "test/test_clean.py": CLEAN})
    listing = tmp_path / "test_linter_allowlist.json"
    listing.write_text(json.dumps(sorted([*files, "test/test_clean.py"]), indent=2) + "\n")
    loud = run_cli("allowlist", "import-json", str(listing), cwd=root)
    assert loud.returncode == 0 and len(loud.stdout.splitlines()) == 7  # 1 skipped, 5 added, the summary
    (root / "allowlist.txt").unlink()

    quiet = run_cli("allowlist", "import-json", flag, str(listing), cwd=root)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (
        0,
        (
            f"{listing}: skipped 1 path (run without --quiet to list them and why)\n"
            "Imported allowlist.txt: 5 added; 5 entries.\n"
        ),
        "",
    )
    # The same list as without --quiet: only the printing changes.
    assert (root / "allowlist.txt").read_text() == HEADER + "".join(f"{p} 1\n" for p in sorted(files))


def test_import_json_quiet_still_prints_refused_growth(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "proj",
        {"test/test_a.py": unclassified(2), "test/test_b.py": unclassified(1)},
        allowlist=HEADER + "test/test_a.py 2\n",
    )
    listing = tmp_path / "list.json"
    listing.write_text(json.dumps(["test/test_a.py", "test/test_b.py"]))
    result = run_cli("allowlist", "import-json", "--quiet", str(listing), cwd=root)
    assert (result.returncode, result.stdout) == (
        1,
        (
            "allowlist.txt: not adding test/test_b.py (1 violation): classify its test classes, or pass --allow-growth\n"
            "allowlist.txt is up to date (1 entry). Growth refused: 1 file not added.\n"
        ),
    )


def test_prune_quiet_prints_only_the_summary(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {"test/test_a.py": unclassified(1), "test/test_b.py": CLEAN},
        allowlist=HEADER + "test/test_a.py 3\ntest/test_b.py 1\ntest/test_gone.py 1\n",
    )
    dry = run_cli("allowlist", "prune", "--check", "-q", cwd=root)
    assert (dry.returncode, dry.stdout) == (
        1,
        "allowlist.txt would change (2 removed, 1 lowered; 1 entry): run `hwlint allowlist prune`.\n",
    )
    result = run_cli("allowlist", "prune", "--quiet", cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "Pruned allowlist.txt: 2 removed, 1 lowered; 1 entry.\n",
        "",
    )
    assert (root / "allowlist.txt").read_text() == HEADER + "test/test_a.py 1\n"


def test_prune_quiet_still_prints_the_lines_it_cannot_read(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"test/test_a.py": unclassified(1)}, allowlist=HEADER + "test/test_a.py one\n")
    result = run_cli("allowlist", "prune", "--quiet", cwd=root)
    assert result.returncode == 1
    first, last = result.stdout.splitlines()
    assert first.startswith("allowlist.txt:3:1: HWC304 ") and last.startswith("allowlist.txt not pruned: ")


def test_sync_quiet_prints_refusals_and_the_summary(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {"test/test_a.py": unclassified(2), "test/test_b.py": unclassified(1), "test/test_c.py": CLEAN},
        allowlist=HEADER + "test/test_a.py 3\ntest/test_c.py 1\n",
    )
    result = run_cli("allowlist", "sync", "-q", cwd=root)
    assert (result.returncode, result.stdout) == (
        1,
        (
            "allowlist.txt: not adding test/test_b.py (1 violation): classify its test classes, or pass --allow-growth\n"
            "Synced allowlist.txt: 1 removed, 1 lowered; 1 entry. Growth refused: 1 file not added.\n"
        ),
    )
    grown = run_cli("allowlist", "sync", "--allow-growth", "--quiet", cwd=root)
    assert (grown.returncode, grown.stdout) == (0, "Synced allowlist.txt: 1 added; 2 entries.\n")
    assert (root / "allowlist.txt").read_text() == HEADER + "test/test_a.py 2\ntest/test_b.py 1\n"


@pytest.mark.parametrize("flag", ["--quiet", "-q"])
def test_init_quiet_prints_the_summary_and_the_warnings_not_the_next_steps(tmp_path: Path, flag: str) -> None:
    files = {
        "test/test_a.py": unclassified(2),
        "test/test_broken.py": "def (:\n",
        "test/test_mlu.py": "import torch\n\nclass TestM(TestCase):\n    def test_m(self):\n        torch.ones(2).to('mlu')\n",
    }
    loud_root = write_project(tmp_path / "loud", files)
    loud = run_cli("allowlist", "init", cwd=loud_root)
    assert loud.returncode == 0 and "Found a device the configuration does not name: mlu" in loud.stdout
    assert "\nNext:\n" in loud.stdout

    root = write_project(tmp_path / "quiet", files)
    quiet = run_cli("allowlist", "init", flag, cwd=root)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (
        0,
        "Created allowlist.txt: 2 files with 3 violations (3 test files checked).\n",
        loud.stderr,
    )
    assert quiet.stderr.startswith("hwlint: warning: test/test_broken.py does not parse")
    # The same list as without --quiet: only the printing changes.
    assert (root / "allowlist.txt").read_text() == (loud_root / "allowlist.txt").read_text()
