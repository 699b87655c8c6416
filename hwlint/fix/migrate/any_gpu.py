"""A class whose tests run on whichever GPU the machine has (inductor's
`GPU_TYPE`, hwlint.facts.devices.ANY_GPU_NAMES) migrated as PyTorch's
contributors do it by hand ("any-gpu"): ACCELERATOR, its tests taking
`device`, the class attribute `device = GPU_TYPE` / `device_type =
GPU_TYPE` gone, `@instantiate_parametrized_tests` replaced by
`instantiate_device_type_tests(TestFoo, globals(), allow_xpu=True,
except_for="cpu")` after the class.

Each use of `GPU_TYPE` in the class gets the value it had on the machine
that ran it: where it places a tensor in a test (`device=GPU_TYPE`,
`.to(GPU_TYPE)`) the test's `device`; anywhere else (`GPU_TYPE == "xpu"`,
`f"{GPU_TYPE}:0"`, `torch.device(GPU_TYPE)`, a helper's argument, setUp)
`self.device_type`, the framework's device type string of the class the
test runs in, which is what GPU_TYPE was (`device` is `"cuda:0"`, not
`"cuda"`). What cannot get either is refused with why: a use evaluated when
the class is defined (a decorator, a default, a class attribute), in a
static method, or in a module-level helper or value the class uses
(the module's own spellings of GPU_TYPE aside: an alias, a helper placing
on it by default, a base setting `device` to it, hwlint.fix.migrate.any_gpu_spellings).
Guards (`@requires_gpu()`, `@unittest.skipIf(not HAS_GPU, ...)`, `if
HAS_GPU: run_tests()`) stay: they are still right on each device class.
"""

from __future__ import annotations

import re
from typing import Sequence

import libcst as cst

from hwlint.core.config import Config
from hwlint.facts import ModuleFacts
from hwlint.facts.devices import ANY_GPU_NAMES, instantiable
from hwlint.facts.requirements import required_tests
from hwlint.fix.edits import dotted
from hwlint.fix.migrate.any_gpu_methods import gpu_attribute, method_migrated
from hwlint.fix.migrate.any_gpu_spellings import reaching_any_gpu, refuse_reaching, spellings, spelt_as_gpu_type
from hwlint.fix.migrate.class_decorators import CLASS_SAFE_SKIPS, refused_decorator
from hwlint.fix.migrate.class_level import ModuleEdits, refuse_clashing_names
from hwlint.fix.migrate.config_patches import config_patches_on_tests
from hwlint.fix.migrate.framework import PARAMETRIZED, instantiated_names
from hwlint.fix.migrate.generalize import class_to_instantiate
from hwlint.fix.migrate.outcome import Done, Refusal
from hwlint.fix.migrate.tree import (
    base_name,
    class_facts,
    decorator_name,
    decorators_left,
    is_main_guard,
    node_uses,
)
from hwlint.fix.migrate.unused_imports import drop_unused_import, names_in
from hwlint.fix.plan_records import Migration

# What the instantiation adds after `globals()`: every accelerator the
# framework can instantiate, XPU included, never CPU (GPU_TYPE is never "cpu").
ARGUMENTS = ', allow_xpu=True, except_for="cpu"'
DEVICE_TYPES = tuple(d for d in instantiable(False, True) if d != "cpu")
# The bases known not to read `self.device` (a project base may: the
# attribute then stays needed).
_PLAIN_BASES = frozenset({"TestCase", "InductorTestCase", "object"})


def any_gpu(state: ModuleEdits, m: Migration, index: int, facts: ModuleFacts) -> Done:
    """The class at `state.body[index]`, whose tests use GPU_TYPE, as an
    instantiated ACCELERATOR class (see the module's docstring); Refusal,
    with why, where a use cannot become `device` or `self.device_type`."""
    cls = state.body[index]
    assert isinstance(cls, cst.ClassDef)
    if "ACCELERATOR" not in state.config.classifications:
        raise Refusal("ACCELERATOR is not a configured classification")
    if not isinstance(cls.body, cst.IndentedBlock):
        raise Refusal(f"{m.class_name} has a one-line body")
    # The module's own spellings of GPU_TYPE (`DEVICE = GPU_TYPE`, `def T(..., device=DEVICE)`) as GPU_TYPE.
    reaching = reaching_any_gpu(state.body, index)
    found = spellings(state.body, index, reaching)
    cls = spelt_as_gpu_type(cls, found)
    assert isinstance(cls.body, cst.IndentedBlock)
    _refuse_uninstantiable(
        m, facts, state.body, index, cls, {k: v for k, v in reaching.items() if k not in found.names}
    )
    # Instantiated, its config patches go onto its tests (hwlint.fix.migrate.config_patches).
    declared = {s.name.value: _names(s) for s in cls.body.body if isinstance(s, cst.FunctionDef)}
    cls, patches = config_patches_on_tests(cls)
    assert isinstance(cls.body, cst.IndentedBlock)
    decorators = _kept_decorators(cls, state.config)
    body, attributes = _without_attributes(cls, cls.body.body, found.bases)
    if found.bases and "device" not in attributes:
        attributes = (*attributes, "device")  # a base's `device = DEVICE`: its reads rewritten as the class's own
    rewritten = 0
    using: dict[str, bool] = {}  # each method: whether it used GPU_TYPE
    tests: list[cst.FunctionDef] = []
    renamed: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []  # tests whose decorators changed
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.FunctionDef):
            migrated, uses, test, needs = method_migrated(stmt, attributes)
            body[i] = migrated
            state.imports.update(needs)
            # As the test was written, before its class's config patches came onto it.
            was, now = declared.get(stmt.name.value, _names(stmt)), _names(migrated)
            if test and was != now:
                renamed.append((stmt.name.value, was, now))
                state.unused |= names_in([d for d in stmt.decorators if d not in migrated.decorators])
            rewritten += uses
            using[stmt.name.value] = uses > 0
            if test:
                tests.append(stmt)
    if not tests:
        raise Refusal(f"no test written in {m.class_name}'s body: its tests are inherited, migrate by hand")
    added = len(tests)
    _refuse_cpu_tests(m, facts, tests, using, state.body)
    new_cls = cls.with_changes(decorators=decorators, body=cls.body.with_changes(body=body))
    _refuse_still_named(new_cls)
    refuse_clashing_names(new_cls, DEVICE_TYPES, state.config.extend_devices)
    state.body[index] = new_cls
    state.declare[index] = "ACCELERATOR"
    state.instantiate.append((index, m.class_name, ARGUMENTS))
    dropped = len(decorators) != len(cls.decorators)
    _drop_imports(state, dropped)
    detail = (
        f"GPU_TYPE class made ACCELERATOR: {added} test{'s' if added != 1 else ''} given `device`, "
        f"{rewritten} use{'s' if rewritten != 1 else ''} of GPU_TYPE rewritten"
        f"{', ' + ' and '.join(a + ' = GPU_TYPE' for a in attributes) + ' dropped' if attributes else ''}, "
        f"instantiated{ARGUMENTS}{f' in place of @{PARAMETRIZED}' if dropped else ''}"
        f"{', its config patch moved onto its tests' if patches else ''}"
    )
    collected = instantiated_names(m.class_name, DEVICE_TYPES)
    return Done("any-gpu", m.class_name, m.line, "ACCELERATOR", detail, collected, guards=tuple(renamed))


def _names(fn: cst.FunctionDef) -> tuple[str, ...]:
    return tuple(decorator_name(d) for d in fn.decorators)


def _refuse_uninstantiable(
    m: Migration,
    facts: ModuleFacts,
    body: Sequence[cst.BaseStatement],
    index: int,
    cls: cst.ClassDef,
    reaching: dict[str, str],
) -> None:
    """Refusal when instantiating the class would break its module (the
    call deletes it from the module's globals), or it reaches a
    module-level helper or value that uses GPU_TYPE (no rewrite of the
    class changes what that one makes)."""
    class_to_instantiate(facts, m)
    empty = cst.Module(body=[])
    rest = "\n".join(empty.code_for_node(s) for i, s in enumerate(body) if i != index)
    if re.search(rf"(?<![\w.]){re.escape(m.class_name)}\b", rest):
        raise Refusal(
            f"the module names {m.class_name} outside it, which instantiating it deletes from the module: migrate by hand"
        )
    refuse_reaching(cls, reaching)


# Flags that are false on a machine without a GPU (inductor_utils' HAS_GPU,
# HAS_GPU_AND_TRITON, RUN_GPU; HAS_CUDA_AND_TRITON, TEST_CUDA, TEST_XPU...).
_GPU_FLAG = re.compile(r"^(?:HAS|TEST|RUN)_(?:MULTI_?)?(?:GPU|CUDA|XPU)(?:_\w+)?$")


def _refuse_cpu_tests(
    m: Migration,
    facts: ModuleFacts,
    tests: Sequence[cst.FunctionDef],
    using: dict[str, bool],
    body: Sequence[cst.BaseStatement],
) -> None:
    """Refusal when a test ran on CPU runners and `except_for="cpu"` would
    drop it there: it uses no GPU_TYPE (nor a helper method that does),
    nothing requires a GPU of it (a decorator, the class's, a skip in
    setUp) and the module's `__main__` runs its tests without a GPU flag
    (`if HAS_GPU: run_tests()`, how PyTorch's run_test.py runs a file,
    keeps them all off CPU runners)."""
    info = class_facts(facts, m.class_name, m.occurrence)
    assert info is not None  # checked by _refuse_uninstantiable
    if any(r.kind in ("class", "setup") for r in info.requires) or _main_needs_gpu(body):
        return
    lines = {t.name: t.line for t in info.methods}
    required = required_tests(info)
    helpers = [name for name, used in using.items() if used and not name.startswith("test")]
    for fn in tests:
        if using.get(fn.name.value) or lines.get(fn.name.value, -1) in required:
            continue
        if any(node_uses(fn.body, h) for h in helpers):
            continue
        raise Refusal(
            f"{fn.name.value} uses no GPU and nothing keeps it off CPU runners (no GPU skip, no `if HAS_GPU:` "
            f'around run_tests()): instantiated with except_for="cpu" it would no longer run there; '
            "move it to a GENERIC class, then migrate"
        )


def _main_needs_gpu(body: Sequence[cst.BaseStatement]) -> bool:
    """Whether the module's `if __name__ == "__main__":` calls run_tests
    only under an `if` that a GPU flag is a term of (`if IS_LINUX and HAS_GPU:`)."""
    main = next((s for s in body if is_main_guard(s)), None)
    if not isinstance(main, cst.If):
        return False
    calls = _RunTests()
    main.body.visit(calls)
    return bool(calls.gated) and all(calls.gated)


class _RunTests(cst.CSTVisitor):
    """Each `run_tests(...)` call in a block: whether a GPU flag guards it."""

    def __init__(self) -> None:
        super().__init__()
        self.guards = 0
        self.gated: list[bool] = []

    def visit_If(self, node: cst.If) -> bool:
        # The guard holds in the `if` branch only: its `else` runs without a GPU.
        gpu = _needs_gpu(node.test)
        self.guards += gpu
        node.body.visit(self)
        self.guards -= gpu
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if dotted(node.func).rsplit(".", 1)[-1] == "run_tests":
            self.gated.append(self.guards > 0)


def _needs_gpu(test: cst.BaseExpression) -> bool:
    """Whether a GPU flag is a term of `test` (`HAS_GPU`, `IS_LINUX and HAS_GPU`; never `not HAS_GPU`)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _needs_gpu(test.left) or _needs_gpu(test.right)
    return isinstance(test, cst.Name) and bool(_GPU_FLAG.match(test.value))


def _kept_decorators(cls: cst.ClassDef, config: Config) -> list[cst.Decorator]:
    """The class's decorators without `@instantiate_parametrized_tests`;
    Refusal for one whose effect on the device classes is not known."""
    kept = []
    for d in cls.decorators:
        name = decorator_name(d)
        if name == PARAMETRIZED:
            continue
        why = refused_decorator(name, config, requires=True)
        if why is not None and name in CLASS_SAFE_SKIPS:
            raise Refusal(f"{cls.name.value} has a class decorator (@{name}) that {why}")
        if why is not None:
            raise Refusal(f"{cls.name.value} has a class decorator (@{name}): migrate by hand")
        if any(node_uses(d, g) for g in ANY_GPU_NAMES):
            raise Refusal(f"{cls.name.value}'s class decorator @{name} uses GPU_TYPE: migrate by hand")
        kept.append(d)
    return decorators_left(cls, kept)


def _without_attributes(
    cls: cst.ClassDef, stmts: Sequence[cst.BaseStatement], plain: frozenset[str] = frozenset()
) -> tuple[list[cst.BaseStatement], tuple[str, ...]]:
    """The class body without `device = GPU_TYPE` / `device_type = GPU_TYPE`
    (their comments kept on what follows), and which of the two it set;
    Refusal for any other statement of the class body that uses GPU_TYPE
    (it runs when the class is defined), or `device` set with a base that
    may read it."""
    body: list[cst.BaseStatement] = []
    found: list[str] = []
    carried: list[cst.EmptyLine] = []
    for stmt in stmts:
        attribute = gpu_attribute(stmt)
        if attribute is not None:
            assert isinstance(stmt, cst.SimpleStatementLine)
            found.append(attribute)
            carried.extend(stmt.leading_lines)
            comment = stmt.trailing_whitespace.comment
            if comment is not None:
                carried.append(cst.EmptyLine(comment=comment))
            continue
        if not isinstance(stmt, cst.FunctionDef) and any(node_uses(stmt, g) for g in ANY_GPU_NAMES):
            code = cst.Module(body=[]).code_for_node(stmt).strip().splitlines()[0]
            raise Refusal(f"{cls.name.value}'s body uses GPU_TYPE when the class is defined ({code}): migrate by hand")
        if carried and isinstance(stmt, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            # After its blank lines: the comments then sit right above it.
            own = list(stmt.leading_lines)
            blanks = next((i for i, line in enumerate(own) if line.comment is not None), len(own))
            stmt = stmt.with_changes(leading_lines=[*own[:blanks], *carried, *own[blanks:]])
            carried = []
        body.append(stmt)
    bases = {base_name(dotted(b.value)) for b in cls.bases}
    if "device" in found and not bases <= _PLAIN_BASES | plain:
        raise Refusal(
            f"{cls.name.value} sets `device = GPU_TYPE` and its base {sorted(bases - _PLAIN_BASES - plain)[0]} may read "
            "`self.device`: migrate by hand"
        )
    return body, tuple(found)


def _refuse_still_named(cls: cst.ClassDef) -> None:
    """Refusal when the migrated class still names GPU_TYPE (a use no rewrite reached)."""
    if any(node_uses(cls, g) for g in ANY_GPU_NAMES):
        raise Refusal(f"{cls.name.value} still names GPU_TYPE after the rewrites: migrate by hand")


def _drop_imports(state: ModuleEdits, dropped_parametrized: bool) -> None:
    """GPU_TYPE, and `instantiate_parametrized_tests` when its decorator
    went, dropped from the module's imports when nothing else names them."""
    module = state.module.with_changes(body=state.body)
    names = [*ANY_GPU_NAMES, *([PARAMETRIZED] if dropped_parametrized else [])]
    for name in names:
        module = drop_unused_import(module, name)
    state.body[:] = list(module.body)
