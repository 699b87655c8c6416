"""The README's and the docs' promises about the example tree hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import run_cli

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_readme_example_output_is_what_check_prints(page: str) -> None:
    readme = (REPO / page).read_text()
    match = re.search(r"<!-- example-output[^>]*-->\n```text\n(.*?)```", readme, re.S)
    assert match, f"{page} lost its example output block"
    result = run_cli("check", cwd=REPO)
    assert result.returncode == 1
    assert result.stdout == match.group(1)


def test_readme_phases_output_is_what_report_prints() -> None:
    """The example tree's two phases, as `hwlint report --today 2026-12-01`
    shows them (docs/allowlist.md). Their start figures come from the
    allowlist's git history."""
    readme = (REPO / "docs" / "allowlist.md").read_text()
    match = re.search(r"<!-- phases-output[^>]*-->\n```text\n(.*?)```", readme, re.S)
    assert match, "docs/allowlist.md lost its Phases example"
    if not (REPO / ".git").exists():
        pytest.skip("the example's phase figures come from git history, and this copy has no .git")
    result = run_cli("report", "--today", "2026-12-01", cwd=REPO)
    assert result.returncode == 0, result.stderr
    section = result.stdout.split("\nPhases\n", 1)[1].split("\n\n", 1)[0]
    assert "Phases\n" + section + "\n" == match.group(1)
    assert "core      2030-03-31  on-track           2               2" in section


def test_readme_has_exactly_two_setup_commands() -> None:
    readme = (REPO / "README.md").read_text()
    setup = readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)```", setup, re.S)
    assert [c.strip() for c in commands] == [
        "python -m pip install -e . && hwlint check",
        "python -m pip install -e '.[test]' && python -m pytest",
    ]
    ci = (REPO / ".ci" / "run").read_text()
    assert "python -m pip install -e '.[test]' && python -m pytest\n" in ci
