"""The classes a split by test (hwlint.fix.migrate.split) writes in place
of the mixed class: the mixin of what is no test, the GENERIC class of the
device-free tests, the ACCELERATOR class of the others (given `device`, a
device chosen by a probe made theirs, a GPU_TYPE class's uses rewritten as
hwlint.fix.migrate.any_gpu does), and the instantiations renamed or made."""

from __future__ import annotations

import re
from typing import NamedTuple, Sequence

import libcst as cst

from hwlint.core.config import Config
from hwlint.facts.devices import ANY_GPU_NAMES, framework_type, instantiable
from hwlint.fix.edits import declaration_statement, dotted, ensure_import
from hwlint.fix.migrate.any_gpu_methods import accelerator_type_rewritten, gpu_attribute, method_migrated
from hwlint.fix.migrate.class_level import ModuleEdits, refuse_clashing_names, write_class_level
from hwlint.fix.migrate.config_patches import config_patches_on_tests
from hwlint.fix.migrate.evidence import accelerator_type_names
from hwlint.fix.migrate.framework import PARAMETRIZED, opt_in
from hwlint.fix.migrate.outcome import Refusal
from hwlint.fix.migrate.parameters import with_device
from hwlint.fix.migrate.split_cpu import ONLY_CPU, as_cpu_test, own_helpers
from hwlint.fix.migrate.split_members import code_without_prose
from hwlint.fix.migrate.split_names import SplitNames, parametrized_calls
from hwlint.fix.migrate.tree import decorator_name, device_parameter, find_class, instantiation_call, node_uses
from hwlint.fix.migrate.unused_imports import drop_unused_import, names_in
from hwlint.fix.plan_records import Migration

# What a new instantiation of the ACCELERATOR class passes after `globals()`:
# its tests need an accelerator (the contributors' form), or some only ask
# about one and ran on CPU too.
NEEDS_ACCELERATOR = ', except_for="cpu", allow_xpu=True'
ASKS = ", allow_xpu=True"


class SortedTests(NamedTuple):
    """The class's tests by kind (indices in its body), whether every
    device test needs an accelerator to run (else some only ask about one),
    and the members that are no test but go with the device tests (they
    use a device, and no device-free test reaches them)."""

    generic: list[int]
    device: list[int]
    needs: bool
    moved: list[int]
    any_gpu: bool  # its tests use GPU_TYPE: hwlint.fix.migrate.any_gpu's rewrites, not HWC201's
    cpu: bool = False  # its device-free tests are the CPU's case of the device tests (hwlint.fix.migrate.split_cpu)


def member_name(stmt: cst.BaseStatement) -> str:
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return stmt.name.value
    return "a class attribute"


def is_declaration(stmt: cst.BaseStatement, attribute: str) -> bool:
    """Whether `stmt` is the class's `hw_classification = ...` (the fix may have written one)."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if isinstance(small, cst.Assign):
        return any(dotted(t.target) == attribute for t in small.targets)
    if isinstance(small, cst.AnnAssign):
        return dotted(small.target) == attribute
    return False


def write_split(
    module: cst.Module,
    m: Migration,
    names: SplitNames,
    sorted_tests: SortedTests,
    config: Config,
    calls: list[int],
    device: str = "",
) -> tuple[bytes, tuple[str, ...], int]:
    """The module with the class replaced by the mixin, the GENERIC class
    and the ACCELERATOR class, and the latter instantiated: its old
    instantiation renamed, else a new one (after the class's last
    instantiation, before `if __name__ == "__main__":`); the device
    types the ACCELERATOR class is instantiated for; and how many of its
    tests' devices chosen by a probe became theirs (`_ChosenDevice`).
    With `device` (a member: "CUDA"), the device tests' class is that
    device's, instantiated for it alone (`only_for=`)."""
    had = len(module.body)
    module, enum_name = ensure_import(module, config.import_from, config.enum)
    shift = len(module.body) - had
    body = list(module.body)
    where = find_class(body, m.class_name, m.occurrence)
    cls = body[where]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    stmts = list(cls.body.body)
    tests = {*sorted_tests.generic, *sorted_tests.device}
    moved = set(sorted_tests.moved)
    members = [
        s for i, s in enumerate(stmts) if i not in tests and i not in moved and not is_declaration(s, config.attribute)
    ]
    # The device tests, and the members only they may use, in the order of the class.
    chosen = _ChosenDevice()
    if sorted_tests.any_gpu:
        members, device_tests = _gpu_type_rewritten(stmts, members, sorted_tests, chosen)
    else:
        typed = accelerator_type_names(module.code.encode("utf-8"))
        device_tests = [
            _typed(
                _device_chosen(_given_device(stmts[i]), chosen) if i in sorted_tests.device else stmts[i], typed, chosen
            )
            for i in sorted({*sorted_tests.device, *moved})
        ]
    attr = config.attribute
    helpers = own_helpers(cls)
    generic = [as_cpu_test(stmts[i], helpers) if sorted_tests.cpu else stmts[i] for i in sorted_tests.generic]
    member = "CPU" if sorted_tests.cpu else "GENERIC"
    made = [
        _new_class(cls, names.generic, generic, (attr, enum_name, member), names, members),
        _new_class(cls, names.accelerator, device_tests, (attr, enum_name, device or "ACCELERATOR"), names, members),
    ]
    refuse_clashing_names(made[1], (device.lower(),) if device else instantiable(False, True), config.extend_devices)
    if members:
        made.insert(0, _mixin(cls, names.mixin, members))
    else:
        made[0] = made[0].with_changes(leading_lines=cls.leading_lines)
    runs = _instantiations_renamed(body, m.class_name, names, calls[0] + shift if calls else None)
    body[where : where + 1] = made
    state = ModuleEdits(module.with_changes(body=body), config)
    state.imports.update(chosen.needs)
    state.unused.update(chosen.unused)
    if sorted_tests.cpu:
        state.instantiate.append((where + len(made) - 2, names.generic, ONLY_CPU))
    if runs is None and device:
        one = device.lower()
        state.instantiate.append((where + len(made) - 1, names.accelerator, f', only_for="{one}"{opt_in(one)}'))
        runs = (framework_type(one),)
    elif runs is None:
        more = NEEDS_ACCELERATOR if sorted_tests.needs else ASKS
        state.instantiate.append((where + len(made) - 1, names.accelerator, more))
        runs = tuple(d for d in instantiable(False, True) if not (sorted_tests.needs and d == "cpu"))
    written = write_class_level(state)
    if sorted_tests.any_gpu:
        for name in ANY_GPU_NAMES:
            written = drop_unused_import(written, name)
    return written.bytes, runs, chosen.count


def _mixin(cls: cst.ClassDef, name: str, members: Sequence[cst.BaseStatement]) -> cst.ClassDef:
    """The class's members that are no test, in a base of their own."""
    assert isinstance(cls.body, cst.IndentedBlock)
    return cls.with_changes(
        name=cst.Name(name),
        bases=[],
        keywords=[],
        decorators=[],
        lpar=cst.MaybeSentinel.DEFAULT,
        rpar=cst.MaybeSentinel.DEFAULT,
        body=cls.body.with_changes(body=[_first(members[0], blank=False), *members[1:]]),
    )


def _instantiations_renamed(
    body: list[cst.SimpleStatementLine | cst.BaseCompoundStatement], class_name: str, names: SplitNames, at: int | None
) -> tuple[str, ...] | None:
    """In `body`, the class's device-type instantiation (the statement at
    `at`, when there is one) made the ACCELERATOR class's, and its
    `instantiate_parametrized_tests` the GENERIC class's; the device types
    the renamed instantiation makes classes for, None when there was none."""
    runs = None
    if at is not None:
        stmt = body[at]
        call = instantiation_call(stmt, class_name)
        assert call is not None and isinstance(stmt, cst.SimpleStatementLine)
        first = call.args[0].with_changes(value=cst.Name(names.accelerator))
        body[at] = stmt.with_changes(body=[cst.Expr(call.with_changes(args=[first, *call.args[1:]]))])
        runs = _runs(call)
    for where in parametrized_calls(body, class_name):
        stmt = body[where]
        assert isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr)
        given = stmt.body[0].value
        assert isinstance(given, cst.Call)
        renamed = given.with_changes(args=[given.args[0].with_changes(value=cst.Name(names.generic))])
        body[where] = stmt.with_changes(body=[cst.Expr(renamed)])
    return runs


def _gpu_type_rewritten(
    stmts: Sequence[cst.BaseStatement],
    members: list[cst.BaseStatement],
    sorted_tests: SortedTests,
    chosen: _ChosenDevice,
) -> tuple[list[cst.BaseStatement], list[cst.BaseStatement]]:
    """A GPU_TYPE class's split (`sorted_tests.any_gpu`): the mixin's
    members without `device = GPU_TYPE` / `device_type = GPU_TYPE`, and
    the ACCELERATOR class's members (its tests given `device`) with their
    uses of GPU_TYPE and of those attributes rewritten as
    hwlint.fix.migrate.any_gpu rewrites them (`device` where a test places
    a tensor, `self.device_type` elsewhere). Refusal when a member both
    classes share, or a device-free test, uses GPU_TYPE or the attribute."""
    attributes = tuple(a for a in (gpu_attribute(s) for s in stmts) if a is not None)
    shared = [s for s in members if gpu_attribute(s) is None]
    for stmt in [*shared, *(stmts[i] for i in sorted_tests.generic)]:
        text = code_without_prose(stmt)
        named = next((g for g in ANY_GPU_NAMES if node_uses(stmt, g)), None) or next(
            (f"self.{a}" for a in attributes if re.search(rf"\bself\.{a}\b", text)), None
        )
        if named is not None:
            raise Refusal(
                f"not split: {member_name(stmt)} uses {named} and stays with the device-free tests: migrate by hand"
            )
    device_tests = []
    for i in sorted({*sorted_tests.device, *sorted_tests.moved}):
        stmt = stmts[i]
        if gpu_attribute(stmt) is not None:
            continue  # `device = GPU_TYPE`: the device framework's `device` takes its place
        if isinstance(stmt, cst.FunctionDef):
            original = stmt
            try:
                stmt, uses, _, needs = method_migrated(stmt, attributes)
            except Refusal as refusal:
                raise Refusal(f"not split: {refusal.reason}") from None
            chosen.count += uses
            chosen.needs.update(needs)
            chosen.unused |= names_in([d for d in original.decorators if d not in stmt.decorators])
        elif any(node_uses(stmt, g) for g in ANY_GPU_NAMES):
            raise Refusal(f"not split: {member_name(stmt)} uses GPU_TYPE when the class is defined: migrate by hand")
        device_tests.append(stmt)
    return shared, device_tests


def _runs(call: cst.Call) -> tuple[str, ...]:
    """The device types an instantiation makes classes for (its literal
    only_for/except_for; every type it can when they are computed)."""
    from hwlint.fix.migrate.tree import flag_is_true, literal_strings

    types = instantiable(flag_is_true(call, "allow_mps"), flag_is_true(call, "allow_xpu"))
    for arg in call.args[2:]:
        named = literal_strings(arg.value) if arg.keyword is not None else None
        if named is None or arg.keyword is None:
            continue
        kinds = {framework_type(d) for d in named}
        if arg.keyword.value == "only_for":
            types = tuple(d for d in types if d in kinds)
        elif arg.keyword.value == "except_for":
            types = tuple(d for d in types if d not in kinds)
    return types


class _ChosenDevice(cst.CSTTransformer):
    """In a device test, a device type chosen by a probe of that device,
    `"cuda" if torch.cuda.is_available() else "cpu"`, becomes the type of
    the test's own `device`: `torch.device(device).type` (the type, as the
    string was: `device` may have an index). Counted."""

    def __init__(self) -> None:
        self.count = 0
        # The device framework's names the rewritten tests' decorators use.
        self.needs: set[str] = set()
        self.unused: set[str] = set()  # what their replaced decorators named

    def leave_IfExp(self, original_node: cst.IfExp, updated_node: cst.IfExp) -> cst.BaseExpression:
        body, orelse, test = updated_node.body, updated_node.orelse, updated_node.test
        if not (isinstance(body, cst.SimpleString) and isinstance(orelse, cst.SimpleString)):
            return updated_node
        chosen = body.evaluated_value
        if orelse.evaluated_value != "cpu" or not isinstance(chosen, str) or not re.fullmatch(r"[a-z]\w*", chosen):
            return updated_node
        if not (isinstance(test, cst.Call) and not test.args and dotted(test.func) == f"torch.{chosen}.is_available"):
            return updated_node
        self.count += 1
        device = cst.Call(cst.Attribute(cst.Name("torch"), cst.Name("device")), [cst.Arg(cst.Name("device"))])
        return cst.Attribute(device, cst.Name("type"), lpar=updated_node.lpar, rpar=updated_node.rpar)


def _typed(stmt: cst.BaseStatement, typed: frozenset[str], chosen: _ChosenDevice) -> cst.BaseStatement:
    """A device test (or a member only they use) with its uses of the
    module's names for the machine's accelerator type (`device_type =
    acc.type if (acc := torch.accelerator.current_accelerator()) else
    "cpu"`) made its own device's, as GPU_TYPE's are; counted in `chosen`."""
    if not typed or not isinstance(stmt, cst.FunctionDef):
        return stmt
    try:
        made, uses = accelerator_type_rewritten(stmt, typed)
    except Refusal as refusal:
        raise Refusal(f"not split: {refusal.reason}") from None
    chosen.count += uses
    return made


def _device_chosen(stmt: cst.BaseStatement, chosen: _ChosenDevice) -> cst.BaseStatement:
    made = stmt.visit(chosen)
    assert isinstance(made, cst.BaseStatement)
    return made


def _given_device(stmt: cst.BaseStatement) -> cst.BaseStatement:
    """A device test with `device` after `self` when it lacks one; Refusal
    when it has no `self` to put it after."""
    assert isinstance(stmt, cst.FunctionDef)
    param = device_parameter(stmt)
    if param is not None:
        if param.name.value == "devices":
            raise Refusal(f"not split: {stmt.name.value} takes `devices` (several devices)")
        return stmt
    params = with_device(stmt.params)
    if params is None or any(decorator_name(d) in ("staticmethod", "classmethod") for d in stmt.decorators):
        raise Refusal(f"not split: {stmt.name.value} has no `self` to put `device` after")
    return stmt.with_changes(params=params)


def _first(stmt: cst.BaseStatement, *, blank: bool) -> cst.BaseStatement:
    """`stmt` as the first of a body (its blank lines gone, its comments
    kept), after one blank line when `blank` (a declaration precedes it)."""
    leading = [line for line in getattr(stmt, "leading_lines", ()) if line.comment is not None]
    if blank:
        leading = [cst.EmptyLine(indent=False), *leading]
    return stmt.with_changes(leading_lines=leading)


def _new_class(
    cls: cst.ClassDef,
    name: str,
    tests: Sequence[cst.BaseStatement],
    declared: tuple[str, str, str],
    names: SplitNames,
    members: Sequence[cst.BaseStatement],
) -> cst.ClassDef:
    """A class of the split: the original's decorators and bases (after
    the mixin, when there is one), declared (the attribute, the enum's
    local name, the member), holding `tests`. The ACCELERATOR (or CPU) class
    drops `@instantiate_parametrized_tests`: the device framework expands
    its `@parametrize` itself."""
    attribute, enum_name, member = declared
    kept = [d for d in cls.decorators if member == "GENERIC" or decorator_name(d) != PARAMETRIZED]
    assert isinstance(cls.body, cst.IndentedBlock)
    bases = list(cls.bases)
    if members:
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if bases or cls.keywords else None
        bases.insert(0, cst.Arg(cst.Name(names.mixin), comma=comma or cst.MaybeSentinel.DEFAULT))
    blank = cst.EmptyLine(indent=False)
    declaration = declaration_statement(attribute, enum_name, member)
    made = cls.with_changes(
        name=cst.Name(name),
        bases=bases,
        lpar=cst.LeftParen() if bases else cls.lpar,
        rpar=cst.RightParen() if bases else cls.rpar,
        leading_lines=[blank, blank],
        decorators=[d.with_changes(leading_lines=[]) for d in kept],
        body=cls.body.with_changes(body=[declaration, _first(tests[0], blank=True), *tests[1:]]),
    )
    # An instantiated class's config patches go onto its tests (hwlint.fix.migrate.config_patches).
    return made if member == "GENERIC" else config_patches_on_tests(made)[0]
