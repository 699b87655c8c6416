"""`instantiate_parametrized_tests` dropped from a class about to be
instantiated per device: `instantiate_device_type_tests` expands the
tests' `@parametrize` itself (`device` first, then the parametrized
arguments), as PyTorch's contributors write it. Both forms go: the class
decorator and the module-level `instantiate_parametrized_tests(TestFoo)`.
"""

from __future__ import annotations

import libcst as cst

from hwlint.fix.migrate.framework import PARAMETRIZED
from hwlint.fix.migrate.outcome import MigrateError
from hwlint.fix.migrate.split_names import parametrized_calls
from hwlint.fix.migrate.tree import decorator_name, decorators_left, find_class
from hwlint.fix.migrate.unused_imports import drop_unused_import
from hwlint.fix.rewrite import parse_module


def parametrized_dropped(data: bytes, class_name: str, occurrence: int) -> tuple[bytes, bool]:
    """`data` without the class's `instantiate_parametrized_tests` (its
    decorator, or the module-level call on it), its import dropped when
    nothing else names it; and whether there was one."""
    if PARAMETRIZED.encode() not in data:
        return data, False  # without reading the module with libcst
    module = parse_module(data, MigrateError)
    body = list(module.body)
    where = find_class(body, class_name, occurrence)
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    kept = [d for d in cls.decorators if decorator_name(d) != PARAMETRIZED]
    calls = parametrized_calls(body, class_name)
    if len(kept) == len(cls.decorators) and not calls:
        return data, False
    body[where] = cls.with_changes(decorators=decorators_left(cls, kept))
    for at in reversed(calls):
        comments = [line for line in body[at].leading_lines if line.comment is not None]
        following = body[at + 1] if at + 1 < len(body) else None
        if comments and following is not None:
            # A comment above the call stays, above what follows it.
            body[at + 1] = following.with_changes(leading_lines=[*following.leading_lines, *comments])
        del body[at]
    return drop_unused_import(module.with_changes(body=body), PARAMETRIZED).bytes, True
