"""A device test's guards, in the form a device-generic class keeps, as
PyTorch's contributors write them when they make a class device-generic:

- a skip that only says the test's device is there (`@skipIf(not
  TEST_CUDA, ...)`, `@skipUnless(torch.cuda.is_available(), ...)`, or
  `@requires_cuda` bound at module level to one) becomes the device
  framework's `@onlyCUDA`. In an instantiated class it runs the test
  where it ran, on that device; the ACCELERATOR tests' migration
  (hwlint.fix.migrate.accelerator_tests) then makes it
  `@onlyAccelerator` once the test names no device.
- PyTorch's own such skips, imported: `requires_cuda`
  (torch.testing._internal.common_utils) is `@onlyCUDA`;
  `requires_cuda_and_triton` (triton_utils, inductor_utils) is `@onlyCUDA`
  and inductor_utils' `@requires_triton()`: Triton is a capability every
  device that has it offers, not a device.
- a skip on CUDA's compute capability below 7.0 whose reason is Triton
  (`@skipIf(torch.cuda.get_device_capability() < (7, 0), "Triton does not
  support ...")`) becomes `@skipUnless(has_triton(), ...)`:
  `torch.utils._triton.has_triton()` is that check on CUDA, and on every
  other device Triton runs on.

- a skip that only says one of several devices is there (`@skipIf(not
  TEST_CUDA and not TEST_XPU, ...)`) becomes `@onlyAccelerator`: its test
  runs on every accelerator then.

A skip with any other condition (`not TEST_CUDA or IS_WINDOWS`, a count of
devices, `TEST_CUDNN`) stays: the generalization still sees its device
and says so.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence, cast

import libcst as cst

from hwlint.facts import ClassFacts, ModuleFacts
from hwlint.fix.edits import dotted, ensure_import
from hwlint.fix.migrate.framework import DEVICE_TYPE_MODULE, ONLY_ACCELERATOR, ONLY_ON
from hwlint.fix.migrate.outcome import MigrateError
from hwlint.fix.migrate.tree import class_facts, find_class, test_methods
from hwlint.fix.migrate.unused_imports import drop_unused_name, names_in
from hwlint.fix.rewrite import parse_module

# Each test whose guards were rewritten: its name, its decorators' names
# before and after (what the verification expects of it: hwlint.fix.verify).
Rewritten = tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]

# The flags that say one device is there.
_FLAG = re.compile(r"^(?:TEST|HAS)_(CUDA|XPU|MPS|PRIVATEUSE1)$")
_SKIPS = ("skipIf", "skipUnless")
TRITON_MODULE = "torch.utils._triton"
HAS_TRITON = "has_triton"
INDUCTOR_UTILS = "torch.testing._internal.inductor_utils"
REQUIRES_TRITON = "requires_triton"
# PyTorch's skips of one device, by the modules that define them: the
# device, and whether they ask for Triton too.
_IMPORTED = {
    ("torch.testing._internal.common_utils", "requires_cuda"): ("cuda", False),
    ("torch.testing._internal.triton_utils", "requires_cuda_and_triton"): ("cuda", True),
    (INDUCTOR_UTILS, "requires_cuda_and_triton"): ("cuda", True),
}


def guards_applied(
    data: bytes, class_name: str, occurrence: int, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, int, Rewritten]:
    """`data` with the class's guards rewritten (`guards_rewritten`), how
    many, and the tests whose decorators changed; `data` itself when none is."""
    was = class_facts(facts_of(data), class_name, occurrence)
    if was is None or not _may_guard(data, was):
        return data, 0, ()  # without reading the module with libcst, which costs
    guarded, count = guards_rewritten(parse_module(data, MigrateError), class_name, occurrence)
    if not count:
        return data, 0, ()
    now = class_facts(facts_of(guarded.bytes), class_name, occurrence)
    assert now is not None
    return guarded.bytes, count, decorators_changed(was, now)


def _may_guard(data: bytes, info: ClassFacts) -> bool:
    """Whether a test of the class has a decorator that may be a guard
    of the forms rewritten: a skip, PyTorch's own, or a name the module
    binds (the facts' decorator names)."""
    names = {d for m in info.methods if m.name.startswith("test") for d in m.decorators}
    if names & {*_SKIPS, *(name for _, name in _IMPORTED)}:
        return True
    return any(re.search(rb"^" + re.escape(n.encode()) + rb"\s*=", data, re.M) for n in names)


def decorators_changed(was: ClassFacts, now: ClassFacts) -> Rewritten:
    """The tests of `now` (a class rewritten from `was`, or made of its
    tests) whose decorators differ from the same test's in `was`."""
    before = {m.name: m.decorators for m in was.methods}
    return tuple(
        (m.name, before[m.name], m.decorators)
        for m in now.methods
        if m.name in before and before[m.name] != m.decorators
    )


def guards_rewritten(module: cst.Module, class_name: str, occurrence: int) -> tuple[cst.Module, int]:
    """The module with the guards of the class's tests rewritten (see the
    module's docstring), and how many; `module` itself when none is."""
    bound = {**_imported_skips(module.body), **_bound_skips(module.body)}
    needed = {
        name: source
        for _, stmt in _tests(module, class_name, occurrence)
        for d in stmt.decorators
        for _, name, source in _rewritten(d, bound, {}) or ()
    }
    if not needed:
        return module, 0
    local: dict[str, str] = {}
    for name, source in needed.items():
        module, local[name] = ensure_import(module, source, name)
    body = list(module.body)
    where = find_class(body, class_name, occurrence)
    cls = body[where]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    stmts = list(cls.body.body)
    replaced: list[cst.Decorator] = []
    for i, stmt in _tests(module, class_name, occurrence):
        decorators: list[cst.Decorator] = []
        for d in stmt.decorators:
            new = _rewritten(d, bound, local)
            if new is not None:
                replaced.append(d)
            decorators.extend([d] if new is None else [n[0] for n in new])
        stmts[i] = stmt.with_changes(decorators=decorators)
    body[where] = cls.with_changes(body=cls.body.with_changes(body=stmts))
    module = module.with_changes(body=body)
    # What the replaced guards named (`unittest`, `TEST_CUDA`, `requires_cuda`), once nothing else does.
    for name in sorted(names_in(replaced)):
        module = drop_unused_name(module, name)
    return module, len(replaced)


def _tests(module: cst.Module, class_name: str, occurrence: int) -> list[tuple[int, cst.FunctionDef]]:
    """The class's test methods, by their index in its body."""
    cls = module.body[find_class(module.body, class_name, occurrence)]
    assert isinstance(cls, cst.ClassDef)
    return test_methods(cls)


def _rewritten(
    d: cst.Decorator, bound: dict[str, tuple[str, bool]], local: dict[str, str]
) -> list[tuple[cst.Decorator, str, str]] | None:
    """The decorator in its device-generic form (one decorator or two),
    with the name each uses and that name's module; None when it is no
    guard of those forms. `bound`: the names bound or imported as a skip
    of one device (`_bound_skips`, `_imported_skips`). `local`: the name
    each is imported as in the module (itself when not listed)."""
    expr = d.decorator
    if isinstance(expr, cst.Name) and expr.value in bound:
        named, triton = bound[expr.value]
        only = ONLY_ON[named]
        made = [(d.with_changes(decorator=cst.Name(local.get(only, only))), only, DEVICE_TYPE_MODULE)]
        if triton:
            asked = cst.Call(cst.Name(local.get(REQUIRES_TRITON, REQUIRES_TRITON)))
            made.append((cst.Decorator(asked), REQUIRES_TRITON, INDUCTOR_UTILS))
        return made
    if not isinstance(expr, cst.Call) or dotted(expr.func).rsplit(".", 1)[-1] not in _SKIPS:
        return None
    devices = _devices_present(expr)
    if devices is not None:
        only = ONLY_ON[devices[0]] if len(devices) == 1 else ONLY_ACCELERATOR
        return [(d.with_changes(decorator=cst.Name(local.get(only, only))), only, DEVICE_TYPE_MODULE)]
    if _triton_capability(expr):
        condition = cst.Call(cst.Name(local.get(HAS_TRITON, HAS_TRITON)))
        func = expr.func
        unless = (
            func.with_changes(attr=cst.Name("skipUnless"))
            if isinstance(func, cst.Attribute)
            else cst.Name("skipUnless")
            if isinstance(func, cst.Name) and func.value == "skipIf"
            else None
        )
        if unless is None:
            return None
        call = expr.with_changes(func=unless, args=[expr.args[0].with_changes(value=condition), *expr.args[1:]])
        return [(d.with_changes(decorator=call), HAS_TRITON, TRITON_MODULE)]
    return None


def _one_device(call: cst.Call) -> str | None:
    """The device a `skipIf(not FLAG, ...)` / `skipUnless(FLAG, ...)` only
    says is there (`TEST_CUDA`, `torch.cuda.is_available()`), or None."""
    devices = _devices_present(call)
    return devices[0] if devices is not None and len(devices) == 1 else None


def _devices_present(call: cst.Call) -> list[str] | None:
    """The devices a skip only says are there, one per term: `skipIf(not
    TEST_CUDA, ...)` says CUDA is; `skipIf(not TEST_CUDA and not TEST_XPU,
    ...)` / `skipUnless(TEST_CUDA or TEST_XPU, ...)` that one of several
    is, which `@onlyAccelerator` says of every accelerator. None when a
    term says anything else."""
    if not call.args or call.args[0].keyword is not None:
        return None
    cond = call.args[0].value
    skip_if = dotted(call.func).rsplit(".", 1)[-1] == "skipIf"
    parts = _terms(cond, cst.And if skip_if else cst.Or)
    if skip_if:
        if not all(isinstance(p, cst.UnaryOperation) and isinstance(p.operator, cst.Not) for p in parts):
            return None
        parts = [cast(cst.UnaryOperation, p).expression for p in parts]
    devices = [_present(p) for p in parts]
    return None if None in devices else cast("list[str]", devices)


def _terms(cond: cst.BaseExpression, operator: type[cst.BaseBooleanOp]) -> list[cst.BaseExpression]:
    """The terms of `a and b and c` (with `operator` cst.And), parentheses aside."""
    if isinstance(cond, cst.BooleanOperation) and isinstance(cond.operator, operator):
        return [*_terms(cond.left, operator), *_terms(cond.right, operator)]
    return [cond]


def _present(cond: cst.BaseExpression) -> str | None:
    """`TEST_CUDA` / `HAS_XPU` / `torch.cuda.is_available()`: that device."""
    if isinstance(cond, cst.Name):
        match = _FLAG.match(cond.value)
        return match.group(1).lower() if match else None
    if isinstance(cond, cst.Call) and not cond.args:
        parts = dotted(cond.func).split(".")
        if len(parts) == 3 and parts[0] == "torch" and parts[2] == "is_available" and parts[1] in ONLY_ON:
            return parts[1]
    return None


def _triton_capability(call: cst.Call) -> bool:
    """`skipIf([torch.cuda.is_available() and] torch.cuda.get_device_capability()
    < (7, 0), "... Triton ...")`: a skip of what Triton does not support."""
    if dotted(call.func).rsplit(".", 1)[-1] != "skipIf" or len(call.args) < 2:
        return False
    reason = call.args[1].value
    if not (isinstance(reason, cst.SimpleString) and "triton" in str(reason.evaluated_value).lower()):
        return False
    cond = call.args[0].value
    if isinstance(cond, cst.BooleanOperation) and isinstance(cond.operator, cst.And):
        if _present(cond.left) != "cuda":
            return False
        cond = cond.right
    if not (isinstance(cond, cst.Comparison) and len(cond.comparisons) == 1):
        return False
    target = cond.comparisons[0]
    left = cond.left
    return (
        isinstance(target.operator, cst.LessThan)
        and isinstance(left, cst.Call)
        and dotted(left.func) == "torch.cuda.get_device_capability"
        and not left.args
        and cst.Module(body=[]).code_for_node(target.comparator).replace(" ", "") == "(7,0)"
    )


def _imported_skips(body: Sequence[cst.BaseStatement]) -> dict[str, tuple[str, bool]]:
    """PyTorch's skips of one device the module imports (`_IMPORTED`), by
    the name it imports them as: the device, and whether Triton too."""
    found = {}
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if not isinstance(small, cst.ImportFrom) or small.module is None or isinstance(small.names, cst.ImportStar):
                continue
            source = dotted(small.module)
            for alias in small.names:
                known = _IMPORTED.get((source, dotted(alias.name)))
                if known is not None:
                    asname = alias.asname.name if alias.asname is not None else alias.name
                    found[dotted(asname)] = known
    return found


def _bound_skips(body: Sequence[cst.BaseStatement]) -> dict[str, tuple[str, bool]]:
    """Module-level names bound to a skip that only says one device is
    there (`requires_cuda = unittest.skipUnless(TEST_CUDA, "...")`), by
    name: that device. A name bound more than once is left out."""
    found: dict[str, tuple[str, bool]] = {}
    seen: set[str] = set()
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                continue
            target = small.targets[0].target
            if not isinstance(target, cst.Name):
                continue
            name = target.value
            value = small.value
            device = None
            if isinstance(value, cst.Call) and dotted(value.func).rsplit(".", 1)[-1] in _SKIPS:
                device = _one_device(value)
            if name in seen:
                found.pop(name, None)
            elif device is not None:
                found[name] = (device, False)
            seen.add(name)
    return found
