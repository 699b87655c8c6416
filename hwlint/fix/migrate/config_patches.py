"""A class's config patches moved onto its tests, as PyTorch's contributors
do when they instantiate a class (`@inductor_config.patch({...})` above
the class -> above each test).

On a TestCase class, torch's config patch (torch.utils._config_module)
returns a subclass of the same name whose setUpClass enters the patch. The
device-type framework instantiates a class by copying the tests of its own
body onto a class per device, built from the class's bases: the patch's
subclass has no test of its own, and the tests, left on its base, would be
collected untouched (without `device`). On each test, the patch applies
where the test runs, per device.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from hwlint.facts import ModuleFacts
from hwlint.fix.edits import dotted
from hwlint.fix.migrate.guards import Rewritten, decorators_changed
from hwlint.fix.migrate.outcome import MigrateError
from hwlint.fix.migrate.tree import class_facts, decorators_left, find_class
from hwlint.fix.rewrite import parse_module


def is_config_patch(decorator: cst.Decorator) -> bool:
    """`@config.patch(...)`, `@inductor_config.patch(...)`,
    `@torch._dynamo.config.patch(...)`: a patch of a torch config module
    (never unittest.mock's `patch`, which wraps the tests themselves)."""
    call = decorator.decorator
    func = call.func if isinstance(call, cst.Call) else call
    if not (isinstance(func, cst.Attribute) and func.attr.value == "patch"):
        return False
    owner = dotted(func.value)
    return owner.rsplit(".", 1)[-1].endswith("config")


def config_patches_on_tests(cls: cst.ClassDef) -> tuple[cst.ClassDef, int]:
    """The class with its config patches moved onto each of its tests (the
    outermost of a test's decorators, as they were around the class), and
    how many patches moved; the class itself when it has none."""
    moving = [d for d in cls.decorators if is_config_patch(d)]
    if not moving or not isinstance(cls.body, cst.IndentedBlock):
        return cls, 0
    body = [
        stmt.with_changes(decorators=[*moving, *stmt.decorators])
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value.startswith("test")
        else stmt
        for stmt in cls.body.body
    ]
    kept = decorators_left(cls, [d for d in cls.decorators if not is_config_patch(d)])
    return cls.with_changes(decorators=kept, body=cls.body.with_changes(body=body)), len(moving)


def config_patches_applied(
    data: bytes, class_name: str, occurrence: int, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, Rewritten]:
    """`data` with the class's config patches on its tests, and the tests
    whose decorators changed (for the verification); `data` itself when the
    class has none."""
    if b".patch" not in data:
        return data, ()  # without reading the module with libcst
    module = parse_module(data, MigrateError)
    body = list(module.body)
    where = find_class(body, class_name, occurrence)
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    moved, count = config_patches_on_tests(cls)
    if not count:
        return data, ()
    body[where] = moved
    fixed = module.with_changes(body=body).bytes
    was, now = (class_facts(facts_of(x), class_name, occurrence) for x in (data, fixed))
    assert was is not None and now is not None
    return fixed, decorators_changed(was, now)


def composed(first: Rewritten, then: Rewritten) -> Rewritten:
    """The tests' decorators changed by `first`, then by `then`: each test
    from what it had before `first` to what it has after `then`."""
    out = {test: (before, after) for test, before, after in first}
    for test, before, after in then:
        out[test] = (out[test][0] if test in out else before, after)
    return tuple((test, before, after) for test, (before, after) in out.items())
