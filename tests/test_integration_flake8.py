"""The flake8 plugin (`HWC`), run by the real flake8 (from PyPI, in the test
extra; the entry point comes with `pip install -e .`)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hwlint import __version__
from hwlint.core.config import load_config
from hwlint.facts import extract_source
from hwlint.integrations.flake8 import HwlintChecker, facts_from_tree
from tests.conftest import run_cli, write_project

REPO = Path(__file__).resolve().parent.parent

BASE = """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class DeviceBase(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR
"""

FILES = {
    # Inherits ACCELERATOR from a base in another file: must take `device`.
    "test/nn/test_inherit.py": (
        "from common_base import DeviceBase\n\n\n"
        "class TestInherit(DeviceBase):\n"
        "    def test_no_device(self):\n"
        "        pass\n\n"
        "    def test_device(self, device):\n"
        "        pass\n\n\n"
        "instantiate_device_type_tests(TestInherit, globals())\n"
    ),
    "test/common_base.py": BASE,
    "test/test_plain.py": (
        "from torch.testing._internal.common_utils import TestCase\n\n\n"
        "class TestPlain(TestCase):\n"
        "    def test_a(self):\n"
        "        pass\n\n\n"
        "class TestQuiet(TestCase):  # noqa: HWC001\n"
        "    def test_b(self):\n"
        "        pass\n"
    ),
    "test/test_allowlisted.py": "class TestOld(TestCase):\n    def test_old(self):\n        pass\n",
    "test/test_clean.py": "class TestOk(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n    def test_ok(self):\n        pass\n",
    "test/legacy/test_excluded.py": "class TestExcluded(TestCase):\n    def test_x(self):\n        pass\n",
    "test/test_skipped.py": "# hwlint: skip-file\nclass TestSkipped(TestCase):\n    def test_x(self):\n        pass\n",
    # Not a test file for hwlint (include): flake8 lints it, the plugin says nothing.
    "tools/helper.py": "class TestHelper(TestCase):\n    def test_x(self):\n        pass\n",
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_project(
        tmp_path / "proj",
        FILES,
        {"exclude": ["test/legacy/**"]},
        # test_allowlisted.py is exempt; test_clean.py's entry is stale (HWC301 in hwlint check).
        allowlist="test/test_allowlisted.py 1\ntest/test_clean.py 1\n",
    )


def flake8(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--no-show-source", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


EXPECTED = [
    "test/nn/test_inherit.py:5:5: HWC102 TestInherit.test_no_device takes no device but the class is ACCELERATOR "
    "(inherited from DeviceBase in test/common_base.py): add a `device` parameter and use it",
    "test/test_plain.py:4:1: HWC001 test class TestPlain declares no hw_classification: add "
    "`hw_classification = HardwareClassification.GENERIC` (not instantiated per device, no device parameter, no accelerator use)",
]


def test_plugin_is_registered(tree: Path) -> None:
    result = flake8("--version", cwd=tree)
    assert f"hwlint: {__version__}" in result.stdout


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_select_hwc(tree: Path, jobs: str) -> None:
    result = flake8("--select", "HWC", "--jobs", jobs, ".", cwd=tree)
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    assert sorted(line.removeprefix("./") for line in result.stdout.splitlines()) == EXPECTED


def test_same_as_hwlint_check_but_the_allowlist_rules(tree: Path) -> None:
    """What flake8 reports is what `hwlint check` reports, less HWC3xx."""
    checked = json.loads(run_cli("check", "--format", "json", cwd=tree).stdout)
    assert {d["code"] for d in checked} == {"HWC001", "HWC102", "HWC301"}
    expected = sorted(
        f"{d['path']}:{d['line']}:{d['column']}: {d['code']} {d['message']}"
        for d in checked
        if not d["code"].startswith("HWC3")
    )
    assert expected == EXPECTED


def test_with_other_flake8_checks_and_options(tree: Path) -> None:
    plain = tree / "test" / "test_plain.py"
    plain.write_text("import os\n" + plain.read_text())
    everything = flake8("test/test_plain.py", cwd=tree)  # no --select: plugins are on by default
    assert [line.split()[1] for line in everything.stdout.splitlines()] == ["F401", "HWC001"]
    plain.write_text(FILES["test/test_plain.py"])
    ignored = flake8("--select", "HWC", "--extend-ignore", "HWC102", ".", cwd=tree)
    assert [line.split()[1] for line in ignored.stdout.splitlines()] == ["HWC001"]
    per_file = flake8("--select", "HWC", "--per-file-ignores", "test/test_plain.py:HWC001", ".", cwd=tree)
    assert [line.split()[1] for line in per_file.stdout.splitlines()] == ["HWC102"]
    # flake8 owns the noqa comments: --disable-noqa brings TestQuiet back.
    loud = flake8("--select", "HWC", "--disable-noqa", "test/test_plain.py", cwd=tree)
    assert [line.split(":")[1] for line in loud.stdout.splitlines()] == ["4", "9"]


def test_hwlint_settings_apply(tree: Path) -> None:
    pyproject = tree / "pyproject.toml"
    pyproject.write_text(
        '[tool.hwlint]\nexclude = ["test/legacy/**"]\nignore = ["HWC102"]\n'
        'per-file-ignores = { "test/test_plain.py" = ["HWC001"] }\n'
    )
    assert flake8("--select", "HWC", ".", cwd=tree).stdout == ""
    pyproject.write_text("[tool.hwlint]\nselect = ['HWC0', 'HWC1', 'HWC2']\n")
    (tree / "test" / "test_cuda.py").write_text(
        "class TestCuda(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_x(self):\n        torch.ones(2).cuda()\n"
    )
    codes = {line.split()[1] for line in flake8("--select", "HWC", ".", cwd=tree).stdout.splitlines()}
    assert "HWC201" in codes  # off by default in hwlint, on through [tool.hwlint] select
    assert "TestExcluded" in flake8("--select", "HWC", ".", cwd=tree).stdout  # no exclude any more


def test_bad_configuration_is_one_hwc000_per_file(tree: Path) -> None:
    (tree / "pyproject.toml").write_text("[tool.hwlint]\nselct = []\n")
    result = flake8("--select", "HWC", "test/test_plain.py", cwd=tree)
    (line,) = result.stdout.splitlines()
    assert line.startswith("test/test_plain.py:1:1: HWC000 hwlint cannot check this file: ")
    assert "unknown key 'selct'" in line


def test_facts_from_flake8_tree_match_a_parse_of_the_source() -> None:
    """The plugin does not parse again: the facts it builds from flake8's
    tree are the ones hwlint gets from the source (noqa aside: flake8's)."""
    config = load_config(start=REPO)
    files = sorted((REPO / "examples").rglob("*.py")) + sorted((REPO / "tests").glob("test_*.py"))[:5]
    assert files
    for path in files:
        source = path.read_text(encoding="utf-8")
        rel = path.relative_to(REPO).as_posix()
        expected = extract_source(rel, source, enum=config.enum, attribute=config.attribute)
        got = facts_from_tree(rel, source, ast.parse(source), config)
        assert got.noqa == {}
        assert got == expected._replace(noqa={}), rel


def test_plugin_uses_the_tree_flake8_gives(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tree / "test" / "test_plain.py"
    source = path.read_text()
    parsed = ast.parse(source)

    def no_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(ast, "parse", no_parse)
    found = list(HwlintChecker(parsed, str(path), source.splitlines(keepends=True)).run())
    assert [(line, col, text.split()[0]) for line, col, text, _ in found] == [(4, 0, "HWC001"), (9, 0, "HWC001")]
