"""Independent verification: the tree re-read with `ast`, without the plan."""

from __future__ import annotations

import ast
import json
import time
import warnings
from pathlib import Path
from typing import Any

from .generate import MARKER, percentiles

# ---------------------------------------------------------------------------
# Independent verification: re-read the tree with `ast`, without the plan.
# ---------------------------------------------------------------------------

_SCOPES = (ast.If, ast.Try, ast.With, ast.For, ast.While) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


def _classes_in(body: list[ast.stmt]) -> list[ast.ClassDef]:
    found: list[ast.ClassDef] = []
    for node in body:
        if isinstance(node, ast.ClassDef):
            found.append(node)
        elif isinstance(node, _SCOPES):
            for part in ("body", "orelse", "finalbody"):
                found += _classes_in(getattr(node, part, []))
            for h in getattr(node, "handlers", []):
                found += _classes_in(h.body)
    return found


def _declares(cls: ast.ClassDef) -> bool:
    for s in cls.body:
        if isinstance(s, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "hw_classification" for t in s.targets
        ):
            return True
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == "hw_classification":
            return True
    return False


def _tests_of(cls: ast.ClassDef) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name.startswith("test")]


def census(out_dir: Path) -> dict[str, tuple[int, int]]:
    """(test classes, unclassified test classes) of every test file that
    parses, recounted with `ast` from the files as they are now (after
    `hwlint fix`, say), independently of hwlint and of the generator's plan.

    A class counts when it has test methods of its own or inherits them from
    a base in a common_<dir>.py module; it is classified when it declares
    the attribute in its body, by a module-level assignment after it, or by
    inheriting from a common base that declares it.
    """
    out_dir = Path(out_dir)
    meta = json.loads((out_dir / MARKER).read_text(encoding="utf-8"))
    common_classified: dict[tuple[str, str], bool] = {}
    common_tests: dict[tuple[str, str], bool] = {}
    for rel in meta["common_files"]:
        for c in _classes_in(ast.parse((out_dir / rel).read_bytes()).body):
            common_classified[(rel, c.name)] = _declares(c)
            common_tests[(rel, c.name)] = bool(_tests_of(c))
    found: dict[str, tuple[int, int]] = {}
    for path in sorted((out_dir / "test").rglob("*.py")):
        if not (path.name.startswith("test_") or path.name.endswith("_test.py")):
            continue
        rel = path.relative_to(out_dir).as_posix()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                tree = ast.parse(path.read_bytes(), filename=rel)
            except SyntaxError:
                continue
        folder = path.parent.relative_to(out_dir).as_posix()
        imported = {
            a.asname or a.name: f"{folder}/{node.module}.py"
            for node in tree.body
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("common_")
            for a in node.names
        }
        post = {
            t.value.id
            for node in tree.body
            if isinstance(node, ast.Assign)
            for t in node.targets
            if isinstance(t, ast.Attribute) and t.attr == "hw_classification" and isinstance(t.value, ast.Name)
        }
        classes = unclassified = 0
        for c in _classes_in(tree.body):
            bases = [(imported.get(b.id, ""), b.id) for b in c.bases if isinstance(b, ast.Name)]
            if not _tests_of(c) and not any(common_tests.get(b, False) for b in bases):
                continue
            classes += 1
            if not (_declares(c) or c.name in post or any(common_classified.get(b, False) for b in bases)):
                unclassified += 1
        found[rel] = (classes, unclassified)
    return found


def verify(out_dir: Path) -> dict[str, Any]:
    """Parse every file with `ast` and recount, independently of the plan.

    Checks: only the recorded syntax-error files fail to parse; exactly the
    recorded invalid-escape files warn; the unclassified classes per file equal
    the allowlist budgets.
    """
    out_dir = Path(out_dir)
    meta = json.loads((out_dir / MARKER).read_text(encoding="utf-8"))
    allow = {}
    for line in (out_dir / "allowlist.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            path_, n = line.rsplit(" ", 1)
            allow[path_] = int(n)
    # Classified bases exported by the common_<dir>.py modules.
    common_classified: dict[tuple[str, str], bool] = {}
    common_tests: dict[tuple[str, str], bool] = {}
    for rel in meta["common_files"]:
        tree = ast.parse((out_dir / rel).read_bytes())
        for c in _classes_in(tree.body):
            common_classified[(rel, c.name)] = _declares(c)
            common_tests[(rel, c.name)] = bool(_tests_of(c))

    t0 = time.perf_counter()
    parse_failures: list[str] = []
    warned: list[str] = []
    unclassified: dict[str, int] = {}
    classes_per_file: list[int] = []
    methods_per_class: list[int] = []
    device_methods = 0
    total_methods = 0
    inst_calls = 0
    files = sorted(
        p for p in (out_dir / "test").rglob("*.py") if p.name.startswith("test_") or p.name.endswith("_test.py")
    )
    for path in files:
        rel = path.relative_to(out_dir).as_posix()
        src = path.read_bytes()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                tree = ast.parse(src, filename=rel)
            except SyntaxError:
                parse_failures.append(rel)
                continue
        if any(issubclass(c.category, (SyntaxWarning, DeprecationWarning)) for c in caught):
            warned.append(rel)
        imported: dict[str, str] = {}
        post: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("common_"):
                for a in node.names:
                    imported[a.asname or a.name] = f"{path.parent.relative_to(out_dir).as_posix()}/{node.module}.py"
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and t.attr == "hw_classification" and isinstance(t.value, ast.Name):
                        post.add(t.value.id)
        # Text count is enough: the name is followed by "(" only in calls.
        inst_calls += src.count(b"instantiate_device_type_tests(")
        n_classes = 0
        for c in _classes_in(tree.body):
            own = _tests_of(c)
            base_names = [b.id for b in c.bases if isinstance(b, ast.Name)]
            inherited_tests = any(common_tests.get((imported.get(b, ""), b), False) for b in base_names)
            if not own and not inherited_tests:
                continue
            n_classes += 1
            methods_per_class.append(len(own))
            total_methods += len(own)
            device_methods += sum(1 for m in own if len(m.args.args) > 1 and m.args.args[1].arg == "device")
            classified = (
                _declares(c)
                or c.name in post
                or any(common_classified.get((imported.get(b, ""), b), False) for b in base_names)
            )
            if not classified:
                unclassified[rel] = unclassified.get(rel, 0) + 1
        classes_per_file.append(n_classes)
    elapsed = time.perf_counter() - t0
    total_bytes = sum(p.stat().st_size for p in files)
    result = {
        "files": len(files),
        "bytes": total_bytes,
        "seconds": round(elapsed, 2),
        "parse_failures_match": sorted(parse_failures) == meta["syntax_error_files"],
        "parse_failures": len(parse_failures),
        "escape_warnings_match": sorted(warned) == meta["invalid_escape_files"],
        "escape_warnings": len(warned),
        "allowlist_matches": unclassified == allow,
        "allowlist_mismatches": sorted(
            f"{k}: allowlist {allow.get(k, 0)}, found {unclassified.get(k, 0)}"
            for k in set(allow) | set(unclassified)
            if allow.get(k, 0) != unclassified.get(k, 0)
        )[:10],
        "classes": sum(classes_per_file),
        "methods": total_methods,
        "device_method_fraction": round(device_methods / max(1, total_methods), 4),
        "instantiate_calls": inst_calls,
        "classes_per_file": percentiles(classes_per_file),
        "methods_per_class": percentiles(methods_per_class),
    }
    return result
