from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hwlint.core.config import load_config
from hwlint.engine.check import CheckResult, run_check


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f'"{k}" = {_toml_value(v)}' for k, v in value.items()) + " }"
    return str(value)


def write_project(
    root: Path, files: dict[str, str], settings: dict[str, Any] | None = None, allowlist: str | None = None
) -> Path:
    """A project folder: pyproject.toml with [tool.hwlint], the files, an allowlist."""
    root.mkdir(parents=True, exist_ok=True)
    lines = ["[tool.hwlint]"] + [f"{k} = {_toml_value(v)}" for k, v in (settings or {}).items()]
    (root / "pyproject.toml").write_text("\n".join(lines) + "\n")
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if allowlist is not None:
        (root / "allowlist.txt").write_text(allowlist)
    return root


def lint(root: Path, paths: list[Path] | None = None, **kwargs: Any) -> CheckResult:
    return run_check(load_config(start=root), paths, jobs=1, **kwargs)


def run_cli(*args: str, cwd: Path, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """The installed command as a user runs it, in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "hwlint", *args], cwd=cwd, capture_output=True, text=True, input=input, timeout=120
    )


@pytest.fixture
def project(tmp_path: Path):
    def make(files: dict[str, str], settings: dict[str, Any] | None = None, allowlist: str | None = None) -> Path:
        return write_project(tmp_path / "proj", files, settings, allowlist)

    return make


@pytest.fixture(scope="module")
def torch_python() -> str:
    """A Python with torch (the oracle tests; .ci/run makes one and names it in HWLINT_TORCH_PYTHON)."""
    python = os.environ.get("HWLINT_TORCH_PYTHON")
    if not python:
        pytest.skip("HWLINT_TORCH_PYTHON is not set: these tests need a Python with torch>=2.14 (.ci/run makes one)")
    return python


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that start processes are `slow` (tests/slowness.py says how it is told)."""
    from tests.slowness import starts_processes

    for item in items:
        function = getattr(item, "function", None)
        if function is None or item.get_closest_marker("slow"):
            continue
        name = f"{item.cls.__name__}.{function.__name__}" if getattr(item, "cls", None) else function.__name__
        if starts_processes(Path(item.path), name):
            item.add_marker(pytest.mark.slow)
