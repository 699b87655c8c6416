"""Which tests are `slow`: those that start processes (the real tools, the
command line in a fresh interpreter, git), found from the tests' own code.

The quick loop (`pytest -m "not slow"`) runs the in-process tests. Marking
by hand drifts: a test that starts calling `run_cli` through a helper would
stay in the quick loop. So a test is slow when its function, or a function
or fixture it uses (in its module, in conftest.py, or imported from another
test module), calls a process starter: `run_cli`, anything of `subprocess`,
`os.system`/`os.exec*`/`os.spawn*`. Tests that measure time or wait carry
an explicit `@pytest.mark.slow` (or a module's `pytestmark`).
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# Calls that start a process, by the name they are called through.
STARTERS = frozenset({"run_cli", "Popen", "check_output", "check_call"})
_OS_STARTERS = ("system", "exec", "spawn", "posix_spawn")


def _starts_directly(node: ast.AST) -> bool:
    """Whether a function's body itself calls something that starts a process."""
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        if isinstance(func, ast.Name) and func.id in STARTERS:
            return True
        if isinstance(func, ast.Attribute):
            owner = func.value
            if isinstance(owner, ast.Name) and owner.id == "subprocess":
                return True
            if isinstance(owner, ast.Name) and owner.id == "os" and func.attr.startswith(_OS_STARTERS):
                return True
    return False


def _names_used(node: ast.AST) -> set[str]:
    """The names a function reads (calls, references) and the fixtures it takes."""
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    used |= {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in ("self", "cls")
    }
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        used |= {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
    return used


@lru_cache(maxsize=None)
def _module(path: Path) -> tuple[dict[str, ast.AST], dict[str, Path]]:
    """A test module's top-level functions by name, and the names it imports
    from other test modules (name -> that module's path)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions: dict[str, ast.AST] = {}
    imported: dict[str, Path] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            # A test class's methods as `Class.method`; `self.helper()` reads
            # `helper`, looked up in the class first.
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    functions[f"{node.name}.{item.name}"] = item
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tests."):
            source = TESTS / (node.module.split(".", 1)[1].replace(".", "/") + ".py")
            for alias in node.names:
                imported[alias.asname or alias.name] = source
    return functions, imported


@lru_cache(maxsize=None)
def starts_processes(path: Path, name: str) -> bool:
    """Whether the function `name` (`Class.method` for a method) of the test
    module at `path`, or conftest's fixture of that name, starts a process,
    directly or through what it uses."""
    return _starts(path, name, frozenset())


def _starts(path: Path, name: str, seen: frozenset[tuple[Path, str]]) -> bool:
    if (path, name) in seen:
        return False
    seen = seen | {(path, name)}
    functions, imported = _module(path)
    if name in imported:
        return _starts(imported[name], name, seen)
    node = functions.get(name)
    if node is None:
        conftest = TESTS / "conftest.py"
        return path != conftest and name in _module(conftest)[0] and _starts(conftest, name, seen)
    if _starts_directly(node):
        return True
    owner = name.rpartition(".")[0]
    for used in _names_used(node):
        if owner and f"{owner}.{used}" in functions and _starts(path, f"{owner}.{used}", seen):
            return True
        if used != name and _starts(path, used, seen):
            return True
    return False
