"""The layers written down in pyproject.toml ([tool.importlinter]) hold, and
nothing in hwlint/ imports in a circle (lazy imports inside functions count)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]


def test_lint_imports_keeps_every_contract() -> None:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    run = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "BROKEN" not in run.stdout and "KEPT" in run.stdout


def test_no_import_cycle_inside_hwlint() -> None:
    graph = grimp.build_graph("hwlint", include_external_packages=False)  # function-level imports included
    cycles = []
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if module.startswith(imported + ".") or imported == "hwlint":
                continue  # a package's own __init__ is imported first: not a cycle of code
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                cycles.append((module, *back))
    assert cycles == []


def test_the_stages_never_import_the_cache_or_click() -> None:
    """A fresh interpreter importing each stage loads neither."""
    stages = [
        "core.config",
        "facts.discover",
        "facts.read",
        "facts",
        "facts.resolve",
        "rules.infer",
        "rules",
        "allowlist.model",
        "allowlist.phases",
        "engine.judge",
        "facts.collect",
        "infra.pool",
    ]
    code = (
        "import sys\n"
        f"for stage in {stages!r}:\n"
        "    __import__('hwlint.' + stage)\n"
        "print(sorted(m for m in sys.modules if m in ('click', 'hwlint.infra.cache', 'hwlint.engine.cached', 'hwlint.cli.main', 'hwlint.cli.options')))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert (run.returncode, run.stdout) == (0, "[]\n"), run.stderr
