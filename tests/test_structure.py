"""The package's shape: modules and functions that read in one sitting, and
rule codes written only by the rules that own them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "hwlint"
MODULE_LINES = 600
FUNCTION_LINES = 80
# A string that names a rule code (or a code prefix such as "HWC4").
CODE = re.compile(r"\bHWC\d")
# Where a code may be written outside hwlint/rules/: the documented default
# `select` (spec.md, "Configuration"), which names prefixes, not rules.
CODES_ALLOWED = {"core/config.py"}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the string constants that are docstrings."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_module_is_at_most_600_lines(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MODULE_LINES, f"hwlint/{_rel(path)} has {lines} lines: split it by what its parts hold"


def test_functions_are_at_most_80_lines() -> None:
    long = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > FUNCTION_LINES:
                    long.append(f"hwlint/{_rel(path)}:{node.lineno} {node.name} ({length} lines)")
    assert long == []


def test_rule_codes_are_written_only_by_their_rules() -> None:
    written = []
    for path in _modules():
        rel = _rel(path)
        if rel.startswith("rules/") or rel in CODES_ALLOWED:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and CODE.search(node.value)
            ):
                written.append(f"hwlint/{rel}:{node.lineno} {node.value[:60]!r}")
    assert written == [], "name a code through its rule (`Rule.code`), not as a literal"


def test_the_size_check_sees_a_long_function(tmp_path: Path) -> None:
    # The walk above counts from `def` to the last line, decorators aside.
    body = "".join(f"    x{i} = {i}\n" for i in range(FUNCTION_LINES))
    node = ast.parse(f"@decorator\ndef f():\n{body}").body[0]
    assert isinstance(node, ast.FunctionDef)
    assert (node.end_lineno or 0) - node.lineno + 1 == FUNCTION_LINES + 1
