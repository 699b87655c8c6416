"""A first look, with Python's ast, at a class the plan would split by
test (hwlint.fix.migrate.split): whether each of its tests uses a device
by its own code, so that a class whose tests all do is refused before
libcst reads the module (some fifty times the cost of ast's parse). The
plan tries the split from the facts, which cannot see what a test's code
names (`print("XPU ...")`, `x.to(dpcpp_device)`): most of the splits it
tries and that are refused, are refused so.

The look errs one way only: a test it calls a device test, the split's
own reading calls one too (it reads part of what the split reads: the
lines from the test's first decorator to the end of its body, ast's names
among libcst's); a test it cannot tell about is left to the split."""

from __future__ import annotations

import ast
import re

from hwlint.facts.devices import DEVICE_TEST_DECORATORS
from hwlint.rules.device_decorator import is_device_specific

# A name the device framework gives an instantiated class's tests.
DEVICE_TYPE = re.compile(r"\bdevice_type\b|\bself\.device\b")


def every_test_uses_a_device(
    data: bytes, line: int, words: re.Pattern[str], bound: set[str], *, instantiated: bool
) -> bool:
    """Whether each test of the class whose `class` line is `line` uses a
    device by its own code: it takes `device`, has a device-type
    decorator (a `@parametrize` when `instantiated`), names a device
    (`words`) or `device_type`, or uses a name of `bound`. False when the
    module does not parse or the class has no test."""
    try:
        text = data.decode("utf-8")
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    cls = next((n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.lineno == line), None)
    if cls is None:
        return False
    lines = re.split(r"\r\n|\r|\n", text)
    tests = [
        n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")
    ]
    return bool(tests) and all(_uses_a_device(fn, lines, words, bound, instantiated) for fn in tests)


def _uses_a_device(
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    lines: list[str],
    words: re.Pattern[str],
    bound: set[str],
    instantiated: bool,
) -> bool:
    args = fn.args
    if any(a.arg in ("device", "devices") for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)):
        return True
    for d in fn.decorator_list:
        name = decorator_last_name(d)
        if name and (name in DEVICE_TEST_DECORATORS or is_device_specific(name)):
            return True
        if instantiated and name.startswith("parametrize"):
            return True
    first = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
    # Its name, docstring and comments run on no device (the split reads them so too).
    doc = fn.body[0] if fn.body and ast.get_docstring(fn) is not None else None
    kept = [
        re.sub(r"#.*", "", line)
        for n, line in enumerate(lines[first - 1 : fn.end_lineno], start=first)
        if doc is None or not doc.lineno <= n <= (doc.end_lineno or doc.lineno)
    ]
    code = re.sub(rf"\bdef\s+{re.escape(fn.name)}\b", "def test", "\n".join(kept), count=1)
    if words.search(code) or DEVICE_TYPE.search(code):
        return True
    return any(isinstance(n, ast.Name) and n.id in bound for n in ast.walk(fn))


def decorator_last_name(decorator: ast.expr) -> str:
    """`onlyCUDA` for `@onlyCUDA`, `@common.onlyCUDA` or `@onlyCUDA(...)`,
    as hwlint.fix.migrate.tree.decorator_name has it with libcst; "" for
    anything else."""
    return _last_name(decorator.func if isinstance(decorator, ast.Call) else decorator)


def _last_name(node: ast.expr) -> str:
    """A decorator's last name, as hwlint.fix.migrate.tree.decorator_name
    has it for a name or a dotted name; "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and _last_name(node.value):
        return node.attr
    return ""
