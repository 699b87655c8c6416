"""Whether a one-device class names its device only as data
(`only_as_data`), asked before it is instantiated for that device alone
(hwlint.fix.migrate.driver).

TorchRec's planner tests describe a CUDA machine to the planner
(`Topology(world_size=2, compute_device="cuda")`, `compute_device = "cuda"`
handed to `kernel_bw_lookup`) and place nothing on it: they ran on CPU
runners and passed. To the facts, a device string is a device (a test of
torch-xpu-ops hands `"xpu"` to the helper that places its tensors), so the
class is CUDA's by its uses; instantiated `only_for="cuda"`, its tests
would leave the CPU runners they passed on. Which it is, the code cannot
say, so a class is left, with why, when each of its accelerator sites is a
device string, or a name bound to one, that goes only to what the module
imports from elsewhere (a library's constructor or function, torch's own
placements aside), by position or by a keyword that is no device's
(`compute_device=`, not `device=` nor `map_location=`). A string handed to
anything the module or the test defines (`self._check(x, "xpu")`, a local
`test(x, "xpu")`), or that a class reaches through a base or a
module-level binding, keeps the class its device's.
"""

from __future__ import annotations

import ast

from hwlint.facts import ClassFacts, ModuleFacts, Site
from hwlint.facts.vocabulary import dotted_name

# Keywords that place what they are given (a string there is a device).
_PLACING_KEYWORDS = frozenset({"device", "device_type", "map_location"})
_DATA_KINDS = frozenset({"string", "assign"})


def only_as_data(data: bytes, info: ClassFacts, facts: ModuleFacts) -> Site | None:
    """The class's first device string when every accelerator site it has
    is a device string (or a name bound to one) that goes only to what the
    module imports, as data; None otherwise."""
    if info.probes or info.requires or info.distributed or not info.devices:
        return None
    if any(s.kind not in _DATA_KINDS for s in info.devices) or facts.bindings_reached(info):
        return None
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.lineno == info.line), None)
    if node is None or any(isinstance(b, ast.Name) and b.id in {c.name for c in facts.classes} for b in node.bases):
        return None  # (A base of the module's own: what it does with the device is not seen here.)
    imported = _imported(tree)
    parents = {id(child): parent for parent in ast.walk(node) for child in ast.iter_child_nodes(parent)}
    at = {(s.line, s.name) for s in info.devices}
    strings = [
        c
        for c in ast.walk(node)
        if isinstance(c, ast.Constant) and isinstance(c.value, str) and (c.lineno, c.value.split(":")[0]) in at
    ]
    if not strings or not all(_goes_to_data(c, node, parents, imported) for c in strings):
        return None
    return info.devices[0]


def _imported(tree: ast.Module) -> frozenset[str]:
    """The names the module imports from elsewhere than torch."""
    names: set[str] = set()
    for stmt in ast.walk(tree):
        if isinstance(stmt, ast.ImportFrom) and not (stmt.module or "").split(".")[0] == "torch" and stmt.level == 0:
            names.update(a.asname or a.name for a in stmt.names)
        elif isinstance(stmt, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in stmt.names if a.name.split(".")[0] != "torch")
    return frozenset(names)


def _goes_to_data(value: ast.expr, cls: ast.ClassDef, parents: dict[int, ast.AST], imported: frozenset[str]) -> bool:
    """Whether `value` (a device string) goes only to an imported callable:
    as its argument, or bound to a local name whose every use is one."""
    parent = parents.get(id(value))
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is value:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name):
            return False
        name = targets[0].id
        uses = [n for n in ast.walk(cls) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        return bool(uses) and all(_argument_of_import(u, parents, imported) for u in uses)
    return _argument_of_import(value, parents, imported)


def _argument_of_import(value: ast.expr, parents: dict[int, ast.AST], imported: frozenset[str]) -> bool:
    """Whether `value` is an argument of a call to an imported name, by
    position or by a keyword that places nothing."""
    parent = parents.get(id(value))
    if isinstance(parent, ast.keyword):
        if parent.arg in _PLACING_KEYWORDS or parent.arg is None:
            return False
        parent = parents.get(id(parent))
    if not isinstance(parent, ast.Call) or value is parent.func:
        return False
    called = dotted_name(parent.func)
    return bool(called) and called.split(".")[0] in imported
