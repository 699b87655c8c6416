"""Triton in a class made device-generic: the tests that name it (a config
key, `"triton.inject_relu_bug_TESTING_ONLY"`; a kernel, `@triton.jit`) ask
for Triton, as PyTorch's contributors write it (`test_minifier_isolate.py`:
`@skipUnless(has_triton(), "Triton not available")`).

Triton is inductor's code generator for every GPU it has (CUDA, ROCm,
XPU), no one device's: a test of a CUDA class that names it runs where
Triton is once it is given `@skipUnless(has_triton(), "requires Triton")`
(`torch.utils._triton.has_triton`: Triton there, and a device it runs
on), which skips it elsewhere (an HPU, a PrivateUse1 backend). Not
inductor_utils' `@requires_triton()`: importing inductor_utils imports
functorch, which a backend's tree may shadow with a folder of its own
(torch-xpu-ops' `test/xpu/functorch`), and the module would not import. A test that already
asks (`@requires_triton()`, `@skipUnless(has_triton(), ...)`,
`HAS_TRITON`) is left as it is. When a member of the class that is no test
names Triton (a helper, `setUp`), the tests that reach it cannot be told
apart: nothing is guarded, and Triton stays the device's.
"""

from __future__ import annotations

import re
from typing import Callable

import libcst as cst

from hwlint.facts import ModuleFacts
from hwlint.fix.edits import dotted, ensure_import
from hwlint.fix.migrate.guards import HAS_TRITON, TRITON_MODULE, Rewritten, decorators_changed
from hwlint.fix.migrate.outcome import MigrateError
from hwlint.fix.migrate.split_members import code_without_prose
from hwlint.fix.migrate.tree import class_facts, find_class, test_methods
from hwlint.fix.rewrite import parse_module

# Triton named, not asked about (`has_triton()`, `HAS_TRITON`, `@requires_triton()`,
# `@requires_gpu_and_triton`: hwlint.fix.migrate.evidence.device_words).
_NAMED = re.compile(r"(?<!has_)(?<!HAS_)(?<!requires_)(?<!gpu_and_)(?<!GPU_AND_)(?<![A-Za-z])[tT]riton(?![a-z])")
_ASKED = re.compile(r"has_triton|HAS_TRITON|requires_triton|requires_gpu_and_triton|requires_cuda_and_triton")


def asks_for_triton(code: str) -> bool:
    """Whether a test's code asks for Triton (`@requires_triton()`,
    `has_triton()`, `HAS_TRITON`...): then naming it names no device."""
    return _ASKED.search(code) is not None


def triton_guarded(
    data: bytes, class_name: str, occurrence: int, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, bool, Rewritten]:
    """`data` with `@skipUnless(has_triton(), ...)` on each test of the class that
    names Triton and does not ask for it; whether Triton is then asked for
    wherever the class names it (so that it names no device); and the
    tests whose decorators changed."""
    if b"riton" not in data:
        return data, True, ()  # without reading the module with libcst
    module = parse_module(data, MigrateError)
    body = list(module.body)
    where = find_class(body, class_name, occurrence)
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    if not isinstance(cls.body, cst.IndentedBlock):
        return data, False, ()
    tests = dict(test_methods(cls))
    empty = cst.Module(body=[])
    for i, stmt in enumerate(cls.body.body):
        if i not in tests and _NAMED.search(code_without_prose(stmt)):
            return data, False, ()
    if _NAMED.search("\n".join(empty.code_for_node(d) for d in cls.decorators)):
        return data, False, ()
    naming = [i for i, fn in tests.items() if _NAMED.search(code_without_prose(fn))]
    unasked = [i for i in naming if not _ASKED.search(code_without_prose(tests[i]))]
    if not unasked:
        return data, True, ()
    module, has_triton = ensure_import(module, TRITON_MODULE, HAS_TRITON)
    if _imports_unittest(module):
        skip_unless: cst.BaseExpression = cst.Attribute(cst.Name("unittest"), cst.Name("skipUnless"))
    else:
        module, name = ensure_import(module, "unittest", "skipUnless")
        skip_unless = cst.Name(name)
    body = list(module.body)
    where = find_class(body, class_name, occurrence)
    cls = body[where]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    members = list(cls.body.body)
    asked = cst.Decorator(
        cst.Call(
            skip_unless,
            [cst.Arg(cst.Call(cst.Name(has_triton))), cst.Arg(cst.SimpleString('"requires Triton"'))],
        )
    )
    for i in unasked:
        fn = members[i]
        assert isinstance(fn, cst.FunctionDef)
        members[i] = fn.with_changes(decorators=[asked, *fn.decorators])
    body[where] = cls.with_changes(body=cls.body.with_changes(body=members))
    fixed = module.with_changes(body=body).bytes
    was, now = (class_facts(facts_of(x), class_name, occurrence) for x in (data, fixed))
    assert was is not None and now is not None
    return fixed, True, decorators_changed(was, now)


def _imports_unittest(module: cst.Module) -> bool:
    """Whether the module has `import unittest` at its top level."""
    return any(
        isinstance(small, cst.Import)
        and any(dotted(alias.name) == "unittest" and alias.asname is None for alias in small.names)
        for stmt in module.body
        if isinstance(stmt, cst.SimpleStatementLine)
        for small in stmt.body
    )
