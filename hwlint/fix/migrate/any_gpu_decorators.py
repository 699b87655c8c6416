"""A GPU_TYPE test's decorators in the form a device-generic test has
them (the any-gpu migration, hwlint.fix.migrate.any_gpu, and a GPU_TYPE
class's split): a decorator runs when the class is defined, where no test
has its `device` yet, so each use of GPU_TYPE there becomes what the
device framework says of the test's device type:

- `@skipIf(GPU_TYPE != "cuda", ...)` / `@skipUnless(GPU_TYPE == "cuda", ...)`:
  the test runs on CUDA only, `@onlyCUDA` (the ACCELERATOR tests'
  migration, hwlint.fix.migrate.accelerator_tests, goes on from there);
- `@skipIf(GPU_TYPE == "mps", "why")`: skipped on MPS, `@skipMPSIf(True, "why")`;
- `@largeTensorTest(size, device=GPU_TYPE)`: `@largeTensorTest(size)`,
  which measures the test's own device (`self`'s, when it decorates a
  helper the test calls: the only form a helper's decorators get).

Any other use stays, and the migration says so.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import libcst as cst

from hwlint.facts.devices import ANY_GPU_NAMES
from hwlint.fix.edits import dotted
from hwlint.fix.migrate.framework import ONLY_ON

# The framework's decorators of one device type (torch.testing._internal.common_device_type).
_SKIP_ON = {"cuda": "skipCUDAIf", "xpu": "skipXPUIf", "mps": "skipMPSIf", "hpu": "skipHPUIf"}
# The framework's skips of one device type: they name a device to leave
# it out, never to bind a test to it.
DEVICE_SKIPS = frozenset({*_SKIP_ON.values(), "skipCPUIf", "skipXLAIf", "skipMPS", "skipXPU", "skipHPU"})


class Decorated(NamedTuple):
    """A test's decorators rewritten, the framework's names they use, and
    how many were rewritten."""

    decorators: tuple[cst.Decorator, ...]
    needs: frozenset[str]
    rewritten: int


def decorators_migrated(decorators: Sequence[cst.Decorator], *, helper: bool = False) -> Decorated:
    """`decorators` with their uses of GPU_TYPE rewritten where the device
    framework has a form for them (see the module's docstring); a
    `helper`'s (a method that is no test), `@largeTensorTest`'s alone."""
    made, needs = [], set()
    for d in decorators:
        new, name = _migrated(d, helper)
        made.append(new)
        if name:
            needs.add(name)
    return Decorated(tuple(made), frozenset(needs), sum(a is not b for a, b in zip(made, decorators)))


def _migrated(d: cst.Decorator, helper: bool) -> tuple[cst.Decorator, str]:
    expr = d.decorator
    if not isinstance(expr, cst.Call):
        return d, ""
    called = dotted(expr.func).rsplit(".", 1)[-1]
    if called == "largeTensorTest":
        kept = [a for a in expr.args if not (a.keyword and a.keyword.value == "device" and _is_gpu_type(a.value))]
        if len(kept) == len(expr.args) or not kept:
            return d, ""
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return d.with_changes(decorator=expr.with_changes(args=kept)), ""
    if helper or called not in ("skipIf", "skipUnless") or not expr.args or expr.args[0].keyword is not None:
        return d, ""
    compared = _compared(expr.args[0].value)
    if compared is None:
        return d, ""
    equal, device = compared
    if equal == (called == "skipIf"):
        # Skipped on that device.
        name = _SKIP_ON.get(device)
        if name is None:
            return d, ""
        first = cst.Arg(cst.Name("True"), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        reasons = list(expr.args[1:]) or [cst.Arg(cst.SimpleString(f'"not on {device}"'))]
        return d.with_changes(decorator=cst.Call(cst.Name(name), [first, *reasons])), name
    # Run on that device only.
    name = ONLY_ON.get(device)
    if name is None:
        return d, ""
    return d.with_changes(decorator=cst.Name(name)), name


def _compared(cond: cst.BaseExpression) -> tuple[bool, str] | None:
    """`GPU_TYPE == "cuda"` (or `"cuda" == GPU_TYPE`): whether it asks
    equality, and the device type; None for any other condition."""
    if not isinstance(cond, cst.Comparison) or len(cond.comparisons) != 1:
        return None
    target = cond.comparisons[0]
    if not isinstance(target.operator, (cst.Equal, cst.NotEqual)):
        return None
    sides = (cond.left, target.comparator)
    strings = [s for s in sides if isinstance(s, cst.SimpleString)]
    if len(strings) != 1 or not any(_is_gpu_type(s) for s in sides):
        return None
    device = strings[0].evaluated_value
    if not isinstance(device, str):
        return None
    return isinstance(target.operator, cst.Equal), device


def _is_gpu_type(node: cst.BaseExpression) -> bool:
    return dotted(node) in ANY_GPU_NAMES
