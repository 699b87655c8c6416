"""docs/ci.md's GitHub Actions workflow: its hwlint commands, run as the
workflow's `run:` steps run them (bash, in a git checkout with the base
branch fetched, `$GITHUB_STEP_SUMMARY` set), do what the page says."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.test_formats_ci import validate_sarif
from tests.test_integration_precommit import UNCLASSIFIED, _env, commit_all, git

REPO = Path(__file__).resolve().parent.parent

CLASSIFIED = (
    "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n\n"
    "class TestOps(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
    "    def test_add(self):\n        pass\n"
)


def workflow() -> dict:
    text = (REPO / "docs" / "ci.md").read_text()
    match = re.search(r"<!-- ci-workflow[^>]*-->\n```yaml\n(.*?)```", text, re.S)
    assert match, "docs/ci.md lost its workflow"
    loaded: dict = yaml.safe_load(match.group(1))
    return loaded


def steps() -> list[dict]:
    (job,) = workflow()["jobs"].values()
    return list(job["steps"])


def test_workflow_shape() -> None:
    flow = workflow()
    assert flow["permissions"]["security-events"] == "write"
    assert set(flow[True] if True in flow else flow["on"]) >= {"pull_request"}  # YAML 1.1 reads `on` as true
    all_steps = steps()
    checkout = next(s for s in all_steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0
    names = [s.get("name") for s in all_steps]
    check = names.index("Check")
    assert all(s.get("if", "").startswith("always()") for s in all_steps[check + 1 :])
    upload = next(s for s in all_steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    sarif_step = next(s for s in all_steps if "--format sarif" in s.get("run", ""))
    assert f"--output {upload['with']['sarif_file']}" in sarif_step["run"]
    runs = " ".join(s.get("run", "") for s in all_steps)
    assert "hwlint check --format github" in runs
    assert 'hwlint allowlist check --base "origin/${{ github.base_ref }}"' in runs
    assert 'hwlint report --history --format markdown >> "$GITHUB_STEP_SUMMARY"' in runs


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A pull request's checkout: main (fetched as origin/main) and a branch on top."""
    repo = tmp_path / "checkout"
    files = {
        "test/test_ops.py": CLASSIFIED,
        "test/test_nn.py": UNCLASSIFIED,
        "test/test_old.py": UNCLASSIFIED.replace("TestNN", "TestOld"),
        "allowlist.txt": "test/test_old.py 1\n",
    }
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git("init", "-q", cwd=repo)
    base = commit_all(repo, "main")
    git("update-ref", "refs/remotes/origin/main", base, cwd=repo)
    git("checkout", "-q", "-b", "feature", cwd=repo)
    (repo / "test" / "test_more.py").write_text(CLASSIFIED.replace("TestOps", "TestMore"))
    commit_all(repo, "feature")
    return repo


def run_step(step: dict, repo: Path, summary: Path) -> subprocess.CompletedProcess[str]:
    script = step["run"].replace("${{ github.base_ref }}", "main")
    return subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(GITHUB_STEP_SUMMARY=str(summary), GITHUB_ACTIONS="true"),
    )


def test_workflow_commands(checkout: Path, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("")
    by_name = {s.get("name"): s for s in steps()}
    assert "pip install" in by_name["Install hwlint"]["run"]  # (hwlint is installed here already)

    check = run_step(by_name["Check"], checkout, summary)
    assert check.returncode == 1
    assert check.stdout.startswith("::error file=test/test_nn.py,line=4,col=1,title=HWC001::test class TestNN ")

    ratchet = run_step(by_name["Allowlist may only shrink"], checkout, summary)
    assert ratchet.returncode == 0, ratchet.stdout + ratchet.stderr

    sarif = run_step(by_name["SARIF"], checkout, summary)
    assert sarif.returncode == 0
    log = json.loads((checkout / "hwlint.sarif").read_text())
    validate_sarif(log)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["HWC001"]

    report = run_step(by_name["Report"], checkout, summary)
    assert report.returncode == 0 and report.stdout == ""
    text = summary.read_text()
    assert text.startswith("## hwlint report") and "files allowlisted" in text

    # The ratchet fails a pull request that grows the list.
    (checkout / "allowlist.txt").write_text("test/test_nn.py 1\ntest/test_old.py 1\n")
    commit_all(checkout, "grow")
    grown = run_step(by_name["Allowlist may only shrink"], checkout, summary)
    assert grown.returncode == 1 and "HWC303" in grown.stdout
