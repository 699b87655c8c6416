"""What a test or a class requires to run at all, from its decorators
(`@skipIf(not TEST_CUDA, ...)`, `@requires_nccl()`, `@skip_if_lt_x_gpu(2)`)
and the skips at the top of its setUp: the accelerator needed, "" for any,
None when it needs none."""

import ast
import re

from hwlint.facts.records import ClassFacts, Site
from hwlint.facts.vocabulary import LazyPattern, dotted_name

# What runs only with an accelerator, whichever it is: pinning memory
# (`.pin_memory()`, `torch.empty(..., pin_memory=True)`) pins it for the
# accelerator, and raises where there is none. (A DataLoader's
# `pin_memory=True` only warns there.)
PINNED = re.compile(r"\.pin_memory\(\s*\)|\btorch\.\w+\(.*\bpin_memory\s*=\s*True")

# Names of decorators that skip unless an accelerator is there (PyTorch's
# common_distributed, common_utils and inductor helpers, torch_npu's and
# torch-xpu-ops' own): what in the name says which one.
_REQUIRES = LazyPattern(
    r"^(?:requires_|skip_?if_?no_?|skip_?unless_?(?:torch_)?|skip_?if_?unsupport_?(?:multi_?)?)"
    r"(cuda|gpu|npu|xpu|mps|accelerator|multi_?gpu|multi_?npu|nccl|xccl|hccl)(?:_and_\w+)?$",
    re.IGNORECASE,
)
_REQUIRED = {
    "cuda": "cuda",
    "nccl": "cuda",
    "npu": "npu",
    "multinpu": "npu",
    "hccl": "npu",
    "xpu": "xpu",
    "xccl": "xpu",
    "mps": "mps",
    "gpu": "",
    "accelerator": "",
    "multigpu": "",
}
# `skip_if_lt_x_gpu(n)` counts the accelerators there are, whichever they are.
_REQUIRES_ANY = frozenset({"skip_if_lt_x_gpu", "skip_if_no_gpu", "skip_but_pass_in_sandcastle_if_lt_x_gpu"})
# Flags that say an accelerator is there (`TEST_CUDA`, `TEST_MULTIGPU`,
# inductor's `HAS_GPU`), and which. TEST_MULTIGPU is CUDA's in common_cuda,
# but the out-of-tree copies of PyTorch's tests redefine it for their own
# device: any accelerator.
_FLAG = LazyPattern(r"^(?:TEST|HAS)_(?:MULTI_?)?(CUDA|CUDNN|GPU|XPU|MPS|NPU|PRIVATEUSE1|ACCELERATOR)(?:_\w+)?$")
_FLAG_DEVICE = {
    "CUDA": "cuda",
    "CUDNN": "cuda",
    "GPU": "",
    "XPU": "xpu",
    "MPS": "mps",
    "NPU": "npu",
    "PRIVATEUSE1": "privateuse1",
    "ACCELERATOR": "",
}


# The same decorators for a device hwlint was not told of (`@skipIfNoMLU`,
# `@requires_musa`): the name is kept when it is a device of the module.
_REQUIRES_OTHER = LazyPattern(
    r"^(?:requires_|skip_?if_?no_?|skip_?unless_?(?:torch_)?|skip_?if_?unsupport_?(?:multi_?)?)(?:multi_?)?"
    r"([a-z][a-z0-9]*)(?:_and_\w+)?$",
    re.IGNORECASE,
)


def required_device(name: str, names: frozenset[str]) -> str | None:
    """The device a skip-unless decorator needs ("" for any accelerator), or None."""
    if name in _REQUIRES_ANY:
        return ""
    match = _REQUIRES.match(name)
    if match is None:
        other = _REQUIRES_OTHER.match(name)
        device = other.group(1).lower() if other is not None else ""
        return device if device in names else None
    return _REQUIRED[match.group(1).lower().replace("_", "")]


def _present(node: ast.expr, names: frozenset[str]) -> str | None:
    """The accelerator whose presence `node` asserts (`TEST_CUDA`,
    `torch.cuda.is_available()`, `torch.cuda.device_count() >= 2`), "" for
    any, None when it asserts none."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, op = node.left, node.ops[0]
        if isinstance(op, (ast.Gt, ast.GtE)) and _counts(left, names) is not None:
            return _counts(left, names)
        return None
    if isinstance(node, ast.Call) and not node.args:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "is_available":
            return _module_device(dotted_name(func.value), names)
        return None
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    match = _FLAG.match(name) if name else None
    if match is None:
        # `TEST_MLU`: the flag of a device of the module's.
        device = name.partition("_")[2].lower() if name.startswith(("TEST_", "HAS_")) else ""
        return device if device in names else None
    return _FLAG_DEVICE[match.group(1)]


def _absent(node: ast.expr, names: frozenset[str]) -> str | None:
    """The accelerator whose absence `node` asserts (`not TEST_CUDA`,
    `torch.cuda.device_count() < 2`), "" for any, None when it asserts none."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _present(node.operand, names)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        op = node.ops[0]
        if isinstance(op, (ast.Lt, ast.LtE, ast.Eq)):
            return _counts(node.left, names)
    return None


def _counts(node: ast.expr, names: frozenset[str]) -> str | None:
    """`torch.cuda.device_count()`: the accelerator counted, or None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "device_count":
        return _module_device(dotted_name(node.func.value), names)
    return None


def _module_device(dotted: str, names: frozenset[str]) -> str | None:
    """`torch.cuda` -> "cuda", `torch.accelerator` -> "", `torch_npu.npu` -> "npu"."""
    parts = dotted.split(".")
    if len(parts) < 2 or not parts[0].startswith("torch"):
        return None
    last = parts[-1]
    if last == "accelerator":
        return ""
    if last in names:
        return last
    return None


def guard_device(cond: ast.expr, skip_if: bool, names: frozenset[str]) -> str | None:
    """The accelerator a skip condition needs: `skipIf(cond)` (skip_if) skips
    when cond holds, `skipUnless(cond)` when it does not. "" for any
    accelerator; None when the condition needs none (it skips for other
    reasons, or only on some accelerator)."""
    if isinstance(cond, ast.BoolOp):
        # skipIf(a or b) skips whenever a does; skipUnless(a and b) unless a.
        # skipIf(a and b) needs every one of them to skip: without CUDA and
        # without XPU, some accelerator at least.
        one = isinstance(cond.op, ast.Or) == skip_if
        found = [guard_device(v, skip_if, names) for v in cond.values]
        if one:
            named = [d for d in found if d is not None]
            return named[0] if named else None
        if any(d is None for d in found):
            return None
        return found[0] if len(set(found)) == 1 else ""
    return _absent(cond, names) if skip_if else _present(cond, names)


def is_skip(stmt: ast.stmt) -> bool:
    """`self.skipTest(...)`, `raise unittest.SkipTest(...)`."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        return isinstance(func, ast.Attribute) and func.attr == "skipTest"
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return dotted_name(exc).rsplit(".", 1)[-1] == "SkipTest"
    return False


def required_tests(cls: ClassFacts) -> dict[int, list[Site]]:
    """The tests (by their line) that requirements of their own make need
    an accelerator, with those requirements: a guard among its decorators
    (kind "test", above its `def`), or a use in its body that runs only
    with one (kind "body", below it)."""
    lines = [m.line for m in cls.methods]
    required: dict[int, list[Site]] = {}
    for site in cls.requires:
        if site.kind == "test":
            at = min((n for n in lines if n >= site.line), default=0)
        elif site.kind == "body":
            at = max((n for n in lines if n <= site.line), default=0)
        else:
            continue
        if at:
            required.setdefault(at, []).append(site)
    return required
