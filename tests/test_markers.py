"""The quick loop's split: a test is `slow` exactly when it starts processes
(tests/slowness.py), through however many helpers and fixtures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.slowness import TESTS, starts_processes

ROOT = TESTS.parent


def _module(tmp_path: Path, source: str, name: str = "test_snippet.py") -> Path:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return path


def test_a_test_that_calls_the_cli_through_helpers_is_slow(tmp_path: Path) -> None:
    path = _module(
        tmp_path,
        "from tests.conftest import run_cli\n"
        "def fixed(root):\n    return helper(root)\n"
        "def helper(root):\n    return run_cli('fix', cwd=root)\n"
        "def test_slow(tmp_path):\n    fixed(tmp_path)\n"
        "def test_quick():\n    assert sum([1, 2]) == 3\n",
    )
    assert starts_processes(path, "test_slow")
    assert not starts_processes(path, "test_quick")


def test_a_fixture_or_a_method_that_starts_a_process_makes_its_tests_slow(tmp_path: Path) -> None:
    path = _module(
        tmp_path,
        "import os, subprocess, pytest\n"
        "@pytest.fixture\ndef repo(tmp_path):\n    subprocess.run(['git', 'init'], cwd=tmp_path)\n    return tmp_path\n"
        "def test_uses_repo(repo):\n    assert repo\n"
        "class TestShell:\n"
        "    def shell(self):\n        os.system('true')\n"
        "    def test_through_self(self):\n        self.shell()\n"
        "    def test_plain(self):\n        assert True\n",
    )
    assert starts_processes(path, "test_uses_repo")
    assert starts_processes(path, "TestShell.test_through_self")
    assert not starts_processes(path, "TestShell.test_plain")


def test_recursion_between_helpers_ends(tmp_path: Path) -> None:
    path = _module(
        tmp_path, "def a(n):\n    return b(n)\ndef b(n):\n    return a(n - 1) if n else 0\ndef test_x():\n    a(3)\n"
    )
    assert not starts_processes(path, "test_x")


def test_the_suite_splits_where_processes_start() -> None:
    # The runs of real tools and of the command line are slow; the rules'
    # examples, which lint in this process, and a check of a hooks file that
    # only reads it, are the quick loop.
    quick = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", "not slow"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout.splitlines()
    assert any(line.startswith("tests/test_rule_examples.py::") for line in quick)
    assert "tests/test_integration_precommit.py::test_hooks_file_declares_the_hooks" in quick
    for module in ("test_kill", "test_daily_loop", "test_style", "test_concurrency"):
        assert not any(line.startswith(f"tests/{module}.py::") for line in quick), module
