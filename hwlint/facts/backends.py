"""What distributed tests hard-code for one device family's collective
backend (HWC201 in distributed tests): the backends' names, what only one
backend has (its process group class, its environment variables, the
decorators that require it), and where a module's text may hold them."""

import ast

from hwlint.facts.prescan import Places
from hwlint.facts.records import Site
from hwlint.facts.vocabulary import LazyPattern

# One device family's collective backends.
BACKENDS = frozenset({"nccl", "xccl", "hccl"})
# What only one collective backend has.
BACKEND_CLASSES = frozenset({"ProcessGroupNCCL", "ProcessGroupXCCL", "ProcessGroupHCCL"})
BACKEND_ENV = LazyPattern(r"^(?:TORCH_)?(?:NCCL|XCCL|HCCL)_[A-Z0-9_]+$")
# `@requires_nccl()`, `@skip_if_no_nccl`, `@requires_nccl_version(...)`.
BACKEND_DECORATOR = LazyPattern(r"^(?:requires_|skip_if_no_)(?:nccl|xccl|hccl)(?:_version)?$")


# The members through which the distributed test bases (MultiProcContinuousTest,
# DTensorTestBase) ask a class for its collective backend.
BACKEND_HOOKS = frozenset({"backend", "backend_str"})


def returned_backends(node: ast.FunctionDef) -> list[tuple[ast.Constant, str]]:
    """The collective backends a backend hook returns (`def backend_str(cls):
    return "nccl"`), each with its name: named as plainly as
    `init_process_group("nccl")`."""
    if node.name not in BACKEND_HOOKS:
        return []
    found: list[tuple[ast.Constant, str]] = []
    stack: list[ast.AST] = list(node.body)
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue  # (another function's)
        value = current.value if isinstance(current, ast.Return) else None
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value in BACKENDS:
            found.append((value, value.value))
        stack.extend(ast.iter_child_nodes(current))
    return found


def is_distributed(site: Site) -> bool:
    """A hard-coded device that ClassFacts keeps apart, in `distributed`."""
    return site.kind in ("backend", "backend-options") or (
        site.kind == "module" and site.name.endswith(".device_count")
    )


def distributed_places(found: Places, devices: frozenset[str]) -> list[int]:
    """Where the text holds a collective backend's name in quotes (`nccl"`,
    `ccl'`), its upper-case name (`NCCL`, `ProcessGroupXCCL`) or a device
    with a computed index (`cuda:{`), in order: from the places of "ccl",
    "CCL" and ":{" (each rare), the character around checked, instead of a
    pass over the text per token and device."""
    text = found.text
    result = [at for at in found.of("ccl") if text.startswith(('"', "'"), at + 3)]
    result += found.of("CCL")
    for at in found.of(":{"):
        for device in devices:
            if at >= len(device) and text.startswith(device, at - len(device)):
                result.append(at - len(device))
    result.sort()
    return result
