"""The lintrunner adapter, run by the real lintrunner (from PyPI, in the test
extra) with the `.lintrunner.toml` entry the README documents.

`lintrunner init` runs the entry's init_command for real: it installs
`hwlint==<version>` from the package index (which sees a wheel built from a
copy of this working tree: PIP_FIND_LINKS) into a fresh virtualenv whose
`python3` is first on PATH, so the lint runs that follow use that
installation, as a user's would. The entry is the README's, word for word.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from hwlint import __version__
from tests.conftest import run_cli, write_project
from tests.test_integration_precommit import (  # noqa: F401 (fixtures)
    UNCLASSIFIED,
    _env,
    commit_all,
    git,
    hooks_repo,
    pip_sees,
    wheelhouse,
)

REPO = Path(__file__).resolve().parent.parent

CLASSIFIED = """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class TestOps(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_add(self):
        pass
"""

DEVICE = """\
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class TestDevice(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_to(self, device):
        pass
"""


def readme_entry() -> str:
    readme = (REPO / "docs" / "integrations.md").read_text()
    match = re.search(r"<!-- lintrunner-config[^>]*-->\n```toml\n(.*?)```", readme, re.S)
    assert match, "docs/integrations.md lost its .lintrunner.toml entry"
    return match.group(1)


def test_readme_entry_is_complete() -> None:
    (linter,) = tomllib.loads(readme_entry())["linter"]
    assert linter["code"] == "HWLINT"  # = the default lintrunner-code
    assert linter["include_patterns"] and linter["exclude_patterns"] == []
    assert linter["command"] == ["python3", "-m", "hwlint", "lintrunner", "@{{PATHSFILE}}"]
    # pip-installs this release from the package index, as PyTorch's pip_init does; no placeholder.
    assert linter["init_command"][-2:] == ["{{DRYRUN}}", f"hwlint=={__version__}"]
    assert "<" not in readme_entry() and "git+" not in readme_entry()


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path) -> dict[str, str]:  # noqa: F811 (the fixture)
    """A fresh virtualenv, empty: `lintrunner init` is what installs hwlint in
    it, from the package index (which sees `wheelhouse`)."""
    base = tmp_path_factory.mktemp("lintrunner-venv")
    venv.create(base / "venv", with_pip=True)
    bindir = base / "venv" / "bin"
    assert (bindir / "python3").exists()
    lintrunner = Path(sys.executable).parent / "lintrunner"
    assert lintrunner.exists(), "lintrunner is in the test extra: pip install -e '.[test]'"
    return {
        "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
        "lintrunner": str(lintrunner),
        "data": str(base / "data"),
        **pip_sees(wheelhouse),
    }


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, tools: dict[str, str]) -> Path:
    repo = tmp_path_factory.mktemp("lintrunner-project")
    files = {
        "test/test_ops.py": CLASSIFIED,
        "test/test_nn.py": UNCLASSIFIED,
        "test/nn/test_device.py": DEVICE,
        "tools/helper.py": UNCLASSIFIED,  # not under include_patterns
    }
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    (repo / ".lintrunner.toml").write_text(readme_entry())
    git("init", "-q", cwd=repo)
    commit_all(repo, "tests")
    return repo


def lintrunner(tools: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [tools["lintrunner"], "--data-path", tools["data"], *args],
        cwd=cwd,
        env=_env(PATH=tools["PATH"], PIP_FIND_LINKS=tools["PIP_FIND_LINKS"]),
        capture_output=True,
        text=True,
        timeout=600,
    )
    print(f"$ lintrunner {' '.join(args)} -> {result.returncode}\n{result.stdout}{result.stderr}")
    return result


def messages(result: subprocess.CompletedProcess[str]) -> list[dict]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_lintrunner_end_to_end(project: Path, tools: dict[str, str]) -> None:
    dry = lintrunner(tools, "init", "--dry-run", cwd=project)
    assert dry.returncode == 0
    assert re.search(
        rf"would run: \S+/python3? -m pip install --quiet hwlint=={re.escape(__version__)}$",
        dry.stdout + dry.stderr,
        re.M,
    )
    venv_python = Path(tools["PATH"].split(os.pathsep)[0]) / "python3"

    def hwlint_in_venv() -> bool:
        probe = [str(venv_python), "-c", "import hwlint"]
        return subprocess.run(probe, cwd=project, env=_env(PATH=tools["PATH"]), capture_output=True).returncode == 0

    assert not hwlint_in_venv()  # a dry run installs nothing
    init = lintrunner(tools, "init", cwd=project)
    assert init.returncode == 0
    assert hwlint_in_venv()

    found = lintrunner(tools, "--all-files", "--output", "json", cwd=project)
    assert found.returncode == 1  # lint found, no linter crash
    got = sorted(messages(found), key=lambda m: m["path"])
    assert [(m["path"], m["line"], m["char"], m["code"], m["name"], m["severity"]) for m in got] == [
        (str(project / "test/nn/test_device.py"), 8, 5, "HWLINT", "HWC102 device-param", "error"),
        (str(project / "test/test_nn.py"), 4, 1, "HWLINT", "HWC001 missing-classification", "error"),
    ]
    fixable = got[1]
    assert fixable["description"].startswith("test class TestNN declares no hw_classification")
    assert fixable["original"] == UNCLASSIFIED
    assert "    hw_classification = HardwareClassification.GENERIC\n" in fixable["replacement"]
    assert got[0].get("replacement") is None  # no fix for HWC102

    human = lintrunner(tools, "--all-files", cwd=project)
    assert "HWC001 missing-classification" in human.stdout and "You can run `lintrunner -a`" in human.stdout

    applied = lintrunner(tools, "-a", "--all-files", cwd=project)
    assert "Successfully applied all patches" in applied.stdout
    assert applied.returncode == 1  # HWC102 has no fix: it is still reported
    assert (project / "test/test_nn.py").read_text() == fixable["replacement"]

    # --paths-cmd: only the files it names; tools/helper.py is outside include_patterns.
    rest = lintrunner(tools, "--paths-cmd", "git ls-files", "--output", "json", cwd=project)
    assert [(Path(m["path"]).name, m["name"]) for m in messages(rest)] == [("test_device.py", "HWC102 device-param")]


def test_lintrunner_shows_a_hwlint_failure_not_a_crash(project: Path, tools: dict[str, str]) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text("[tool.hwlint]\nselct = []\n")
    try:
        result = lintrunner(tools, "--all-files", "--output", "json", cwd=project)
    finally:
        pyproject.unlink()
    (message,) = messages(result)
    assert message["path"] is None and message["name"] == "hwlint-failure"
    assert "unknown key 'selct'" in message["description"]


# -- the adapter alone -------------------------------------------------------


def test_adapter_exits_0_and_reads_the_paths_file(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"test/test_nn.py": UNCLASSIFIED, "test/test_ops.py": CLASSIFIED})
    paths = tmp_path / "paths.txt"
    paths.write_text(f"{root / 'test/test_nn.py'}\n{root / 'test/test_ops.py'}\n\n")
    result = run_cli("lintrunner", f"@{paths}", cwd=root)
    assert result.returncode == 0 and result.stderr == ""
    (message,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert set(message) == {
        "path",
        "line",
        "char",
        "code",
        "severity",
        "name",
        "original",
        "replacement",
        "description",
    }
    assert (message["path"], message["line"], message["char"]) == (str(root / "test/test_nn.py"), 4, 1)
    # Plain paths work too; no paths, no output.
    assert run_cli("lintrunner", "test/test_nn.py", cwd=root).stdout == result.stdout
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    nothing = run_cli("lintrunner", f"@{empty}", cwd=root)
    assert (nothing.returncode, nothing.stdout) == (0, "")


@pytest.mark.parametrize("problem", ["missing paths file", "bad configuration"])
def test_adapter_reports_failures_as_a_message(tmp_path: Path, problem: str) -> None:
    root = write_project(tmp_path / "p", {"test/test_nn.py": UNCLASSIFIED})
    if problem == "bad configuration":
        (root / "pyproject.toml").write_text("[tool.hwlint]\nlintrunner-code = 'HWX'\ninheritance = 'sometimes'\n")
        args = ["test/test_nn.py"]
    else:
        args = [f"@{tmp_path / 'nowhere.txt'}"]
    result = run_cli("lintrunner", *args, cwd=root)
    assert result.returncode == 0 and result.stderr == ""
    (message,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert message["path"] is None and message["line"] is None and message["name"] == "hwlint-failure"
    assert message["severity"] == "error" and message["code"] == "HWLINT"
    expected = "nowhere.txt: cannot read" if problem == "missing paths file" else "inheritance must be"
    assert expected in message["description"]
