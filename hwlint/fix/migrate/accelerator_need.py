"""Whether the tests of a one-device class need an accelerator to run at
all: a class made device-generic is then instantiated with
`except_for="cpu"`, as PyTorch's contributors write it, and its tests stay
off CPU runners, where they never ran; a class with a test that ran on CPU
(one that uses no accelerator, or only asks whether there is one) keeps
its CPU instantiation.

A test needs one when a requirement says so (on the class, in setUp, on
the test: `@skip_if_lt_x_gpu(1)`, `@requires_nccl()`, as
hwlint.facts.requirements finds them), when it, setUp, or a helper method
it calls runs on the device (a hard-coded device, a collective backend, a
call into the device's module that is no question), or when its `device`
defaults to the device.
"""

from __future__ import annotations

import ast
from typing import Mapping

from hwlint.facts import ClassFacts
from hwlint.facts.requirements import required_tests
from hwlint.fix.migrate.blockers import ClassSource

# Run before every test: what they do, every test does.
_EVERY_TEST = frozenset({"setUp", "setUpClass", "__init__"})


def _spans(cls: ast.ClassDef) -> dict[str, tuple[int, int, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Each method's lines (its decorators included) and node, by name."""
    spans = {}
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)])
            spans[stmt.name] = (start, stmt.end_lineno or stmt.lineno, stmt)
    return spans


def _calls(fn: ast.AST) -> set[str]:
    """The methods `fn` calls on its own class (`self.helper(...)`, `cls.helper`)."""
    return {
        node.attr
        for node in ast.walk(fn)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
    }


def _default_names_device(fn: ast.FunctionDef | ast.AsyncFunctionDef, bound: Mapping[str, str]) -> bool:
    """`def test_x(self, device="cuda")` (or a module-level name bound to a device)."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    for arg, default in pairs:
        if arg.arg != "device":
            continue
        if isinstance(default, ast.Constant) and isinstance(default.value, str):
            return default.value.partition(":")[0] not in ("", "cpu", "meta")
        if isinstance(default, ast.Name):
            return default.id in bound
    return False


def accelerator_need(source: ClassSource, bound: Mapping[str, str]) -> str:
    """Why every test of the class needs an accelerator (words for the
    migration's detail), or "" when one may run without it."""
    info: ClassFacts = source.info
    if not info.methods:
        return ""
    whole = next((r for r in info.requires if r.kind in ("class", "setup", "devtype")), None)
    if whole is not None:
        return f"the class requires one ({whole.text})"
    cls = source.node
    if cls is None:
        return ""
    spans = _spans(cls)
    uses = [s.line for s in (*info.devices, *info.distributed) if s.kind != "any-gpu"]
    uses += [s.line for s in info.probes if s.kind == "use"]
    using = {name for name, (start, end, _) in spans.items() if any(start <= n <= end for n in uses)}
    if using & _EVERY_TEST:
        return "setUp uses it"
    # A helper that calls a helper that uses the device uses it too.
    changed = True
    while changed:
        changed = False
        for name, (_, _, fn) in spans.items():
            if name not in using and not name.startswith("test") and _calls(fn) & using:
                using.add(name)
                changed = True
    required = required_tests(info)
    for method in info.methods:
        span = spans.get(method.name)
        if span is None:
            return ""
        fn = span[2]
        if method.name in using or method.line in required or _default_names_device(fn, bound):
            continue
        if _calls(fn) & (using - {method.name}):
            continue
        return ""
    return "every test uses it"
