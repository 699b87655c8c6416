"""A mixed class split by test ("split"), as PyTorch's contributors do in
their "[Testcase Refactoring]" pull requests: a class whose tests are
partly device-free and partly use an accelerator becomes

    class _TestFooMixin:                                # every member that is no test
    class TestFooGeneric(_TestFooMixin, TestCase):      # GENERIC: the device-free tests
    class TestFooAccelerator(_TestFooMixin, TestCase):  # ACCELERATOR: the others, taking `device`
    instantiate_device_type_tests(TestFooAccelerator, globals(), except_for="cpu", allow_xpu=True)

The device tests' hard-coded devices get HWC201's device-generic rewrites
(hwlint.fix.migrate.generalize); their `@onlyCUDA`-style decorators are
left to the ACCELERATOR tests' migration (hwlint.fix.migrate.accelerator_tests),
which runs on the new class next. The split is refused, with why, when the
class's name is used anywhere else in the module, when something that is
no test uses a device, when a test is named by another member, or when a
new name is taken; a class with one kind of test is not split.
"""

from __future__ import annotations

import re
from typing import Callable, NamedTuple, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from hwlint.core.config import Config
from hwlint.facts import ClassFacts, ModuleFacts
from hwlint.facts.devices import ANY_GPU_NAMES, DEVICE_TEST_DECORATORS, framework_type, instantiable
from hwlint.fix.edits import declaration_statement, dotted, ensure_import
from hwlint.fix.migrate.accelerator_tests import drop_unused_import
from hwlint.fix.migrate.any_gpu import gpu_attribute, method_migrated
from hwlint.fix.migrate.class_level import ModuleEdits, refuse_clashing_names, write_class_level
from hwlint.fix.migrate.evidence import bound_at, device_constants, device_words, names_a_device
from hwlint.fix.migrate.framework import instantiated_names
from hwlint.fix.migrate.generalize import class_devices_rewritten
from hwlint.fix.migrate.outcome import Done, MigrateError, Refusal
from hwlint.fix.migrate.parameters import with_device
from hwlint.fix.migrate.split_members import Use, code_without_prose, placed, without_prose
from hwlint.fix.migrate.split_names import SplitNames, parametrized_calls, refuse_other_uses
from hwlint.fix.migrate.split_one_kind import DEVICE_TYPE, every_test_uses_a_device
from hwlint.fix.migrate.tree import (
    class_facts,
    decorator_name,
    device_parameter,
    find_class,
    instantiation_call,
    node_uses,
    test_methods,
)
from hwlint.fix.plan import ClassMove, Migration
from hwlint.fix.rewrite import parse_module
from hwlint.rules.device_decorator import is_device_specific

# What a new instantiation of the ACCELERATOR class passes after `globals()`:
# its tests need an accelerator (the contributors' form), or some only ask
# about one and ran on CPU too.
NEEDS_ACCELERATOR = ', except_for="cpu", allow_xpu=True'
ASKS = ", allow_xpu=True"


class _Sorted(NamedTuple):
    """The class's tests by kind (indices in its body), whether every
    device test needs an accelerator to run (else some only ask about one),
    and the members that are no test but go with the device tests (they
    use a device, and no device-free test reaches them)."""

    generic: list[int]
    device: list[int]
    needs: bool
    moved: list[int]
    any_gpu: bool  # its tests use GPU_TYPE: hwlint.fix.migrate.any_gpu's rewrites, not HWC201's


def split(
    data: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, list[Done], tuple[ClassMove, ...]]:
    """The class `m` names split into a mixin, a GENERIC class of its
    device-free tests and an instantiated ACCELERATOR class of the others
    (see the module's docstring); the records of the two classes made and
    the moves of their tests. Refusal, with why, when it cannot be."""
    for member in ("GENERIC", "ACCELERATOR"):
        if member not in config.classifications:
            raise Refusal(f"not split: {member} is not a configured classification")
    facts = facts_of(data)
    info = class_facts(facts, m.class_name, m.occurrence)
    if info is None:
        raise Refusal(f"class {m.class_name} not found in the facts")
    names = SplitNames.of(m.class_name)
    # A first look with ast: libcst's parse costs some fifty times more.
    reached = [n for n in facts.accelerator_lines if n not in set(info.unreached)]
    if every_test_uses_a_device(
        data, info.line, device_words(config), device_constants(data, reached), instantiated=False
    ):
        raise Refusal(_ONE_KIND.format("every"))
    module = parse_module(data, MigrateError)
    where = find_class(module.body, m.class_name, m.occurrence)
    cls = module.body[where]
    assert isinstance(cls, cst.ClassDef)
    if not isinstance(cls.body, cst.IndentedBlock):
        raise Refusal(f"not split: {m.class_name} has a one-line body")
    calls = [at for at, stmt in enumerate(module.body) if instantiation_call(stmt, m.class_name) is not None]
    # The tests sorted first: a class whose tests are all of one kind (most
    # of the splits the plan tries and the facts cannot rule out) is refused
    # before the module is read whole.
    sorted_tests = sort_tests(module, cls, info, facts, data, config, instantiated=bool(calls))
    refuse_other_uses(module, calls, names, facts)
    fixed, runs, chosen = _written(module, m, names, sorted_tests, config, calls)
    # The device tests' hard-coded devices, as a device-generic class has them.
    accelerator = m._replace(class_name=names.accelerator, occurrence=0)
    fixed, rewritten = class_devices_rewritten(fixed, accelerator, config, facts_of)
    rewritten += chosen
    _refuse_still_bound(fixed, names, config, facts_of, triton=not sorted_tests.any_gpu)
    generic = tuple(fn.name.value for i, fn in test_methods(cls) if i in sorted_tests.generic)
    device = tuple(fn.name.value for i, fn in test_methods(cls) if i in sorted_tests.device)
    assert isinstance(cls.body, cst.IndentedBlock)
    helpers = [_member_name(cls.body.body[i]) for i in sorted_tests.moved]
    done = [
        Done(
            "split",
            m.class_name,
            m.line,
            "GENERIC",
            f"{_listed(generic)} -> {names.generic} (GENERIC)",
            to_class=names.generic,
        ),
        Done(
            "split",
            m.class_name,
            m.line,
            "ACCELERATOR",
            f"{_listed(device)}{' with ' + _listed(helpers) if helpers else ''} -> {names.accelerator} "
            "(ACCELERATOR, given `device`, "
            f"{rewritten} hard-coded device{'s' if rewritten != 1 else ''} rewritten, "
            f"{'instantiation renamed' if calls else 'instantiated' + (NEEDS_ACCELERATOR if sorted_tests.needs else ASKS)})",
            instantiated_names(names.accelerator, runs),
            to_class=names.accelerator,
        ),
    ]
    moves = (ClassMove(m.class_name, names.generic, generic), ClassMove(m.class_name, names.accelerator, device))
    return fixed, done, moves


def _listed(tests: Sequence[str]) -> str:
    return ", ".join(tests[:3]) + (f" and {len(tests) - 3} more" if len(tests) > 3 else "")


def _spans(cls: cst.ClassDef, line: int) -> dict[int, tuple[int, int]]:
    """Each member's lines in the file (a function's from its first
    decorator), by its index in the class body; `line`: the facts' line of
    the class's `class` keyword. (The class alone is laid out, not the
    module: a large module's positions cost seconds.)"""
    assert isinstance(cls.body, cst.IndentedBlock)
    alone = cls.with_changes(leading_lines=[])
    positions = MetadataWrapper(cst.Module(body=[alone]), unsafe_skip_copy=True).resolve(PositionProvider)
    shift = line - positions[alone].start.line
    spans: dict[int, tuple[int, int]] = {}
    for i, stmt in enumerate(cls.body.body):
        first: cst.CSTNode = stmt
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and stmt.decorators:
            first = stmt.decorators[0]
        spans[i] = (positions[first].start.line + shift, positions[stmt].end.line + shift)
    return spans


def sort_tests(
    module: cst.Module,
    cls: cst.ClassDef,
    info: ClassFacts,
    facts: ModuleFacts,
    data: bytes,
    config: Config,
    *,
    instantiated: bool,
) -> _Sorted:
    """The class's tests sorted into device-free ones and device ones: a
    device test takes `device`, has an accelerator site of the facts (a
    probe, a hard-coded device, a requirement) or a device-type decorator,
    names a device, `device_type`, or a module-level name bound on a line
    that mentions an accelerator; in an instantiated class, a
    `@parametrize` too (the device framework expands it). Refusal when a
    member that is no test uses a device, when a test is named by another
    member, or when the tests are all of one kind."""
    assert isinstance(cls.body, cst.IndentedBlock)
    words = device_words(config)
    reached = [n for n in facts.accelerator_lines if n not in set(info.unreached)]
    bound = device_constants(data, reached)
    tests = {i: fn for i, fn in test_methods(cls)}
    # What each test's own code says, first: when it makes every test a
    # device test (most of the splits the plan tries and the facts cannot
    # rule out), the lines of the class are not laid out.
    named = {i: _named_use(module, fn, words, bound, instantiated) for i, fn in tests.items()}
    if named and all(named.values()):
        raise Refusal(_ONE_KIND.format("every"))
    _refuse_unnamed_mentions(data, reached)
    spans = _spans(cls, info.line)
    sites = [
        (s.line, s.text, s in info.requires) for s in (*info.probes, *info.devices, *info.distributed, *info.requires)
    ]
    outside = [s for s in sites if not any(a <= s[0] <= b for a, b in spans.values())]
    if outside:
        raise Refusal(
            f"not split: {outside[0][1]} (line {outside[0][0]}) is outside the tests: the tests that stay "
            "device-free would share it"
        )
    known = {method.name for method in info.methods}
    for fn in tests.values():
        if fn.name.value not in known:
            raise Refusal(f"not split: {fn.name.value} is not among the facts' tests")
    generic: list[int] = []
    device: list[int] = []
    needs = True
    asked = [q.line for q in info.questions]
    for i in tests:
        start, end = spans[i]
        mine = [s for s in sites if start <= s[0] <= end]
        why = named[i] or (mine[0][1] if mine else "")
        (device if why else generic).append(i)
        if why and (
            not any(required or _is_use(text) for _, text, required in mine) or any(start <= q <= end for q in asked)
        ):
            # It only asks about an accelerator, or falls back when there is
            # none (`"cuda" if torch.cuda.is_available() else "cpu"`): it ran on CPU too.
            needs = False
    if not generic:
        raise Refusal(_ONE_KIND.format("every"))
    uses = _member_uses(module, cls, tests, (sites, spans), words, bound, config)
    any_gpu = any(s.kind == "any-gpu" for s in info.devices)
    if any_gpu:
        # `device = GPU_TYPE` goes: the tests' `device` takes its place (`_gpu_type_rewritten`).
        uses = {i: use for i, use in uses.items() if gpu_attribute(cls.body.body[i]) is None}
    names = {i: _member_name(stmt) for i, stmt in enumerate(cls.body.body)}
    # (With no device test, a test that reaches a member's device use is why.)
    moved = placed(list(cls.body.body), cls.name.value, (generic, device), uses, names)
    if not device:
        raise Refusal(_ONE_KIND.format("no"))
    return _Sorted(generic, device, needs, moved, any_gpu)


_ONE_KIND = "not split: {} test uses a device: one classification fits them all"


def _is_use(text: str) -> bool:
    """Whether a site's text runs on an accelerator rather than asks about one."""
    return not re.search(r"is_available|device_count|TEST_|HAS_", text)


def _refuse_unnamed_mentions(data: bytes, reached: list[int]) -> None:
    """Refusal when the class reaches a module-level mention of an
    accelerator that binds no name a test could be seen to use (a
    function's body, a statement run at import)."""
    for n, (names, _) in sorted(bound_at(data, reached).items()):
        if not names:
            raise Refusal(
                f"not split: the class reaches the module's mention of an accelerator at line {n}, "
                "which no test is seen to use"
            )


def _member_uses(
    module: cst.Module,
    cls: cst.ClassDef,
    tests: dict[int, cst.FunctionDef],
    where: tuple[list[tuple[int, str, bool]], dict[int, tuple[int, int]]],
    words: re.Pattern[str],
    bound: set[str],
    config: Config,
) -> dict[int, Use]:
    """How each member that is no test (a helper, setUp, a class attribute)
    uses a device, by its index in the body: an accelerator site in its
    lines, a device or `device_type` its code names (comments and
    docstrings aside), a name bound to one. Refusal when one binds a
    `test*` name, or when a test is named by another member."""
    assert isinstance(cls.body, cst.IndentedBlock)
    sites, spans = where
    uses: dict[int, Use] = {}
    for i, stmt in enumerate(cls.body.body):
        if i in tests or _is_declaration(stmt, config.attribute):
            continue
        start, end = spans[i]
        mine = [s for s in sites if start <= s[0] <= end]
        text = code_without_prose(stmt)
        named = words.search(text) or DEVICE_TYPE.search(text)
        used = _bound_used(stmt, text, bound)
        if mine:
            uses[i] = Use(mine[0][1], mine[0][0])
        elif named is not None or used:
            uses[i] = Use(repr(named.group(0)) if named is not None else used[0])
        if not isinstance(stmt, cst.FunctionDef) and re.search(r"^\s*test\w*\s*[:=]", text, re.M):
            raise Refusal(f"not split: {_member_name(stmt)} binds a test by assignment")
    code = module.code_for_node(cls.body)
    for fn in tests.values():
        if len(re.findall(rf"\b{re.escape(fn.name.value)}\b", code)) > 1:
            raise Refusal(f"not split: {fn.name.value} is named elsewhere in the class")
    return uses


def _member_name(stmt: cst.BaseStatement) -> str:
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return stmt.name.value
    return "a class attribute"


def _is_declaration(stmt: cst.BaseStatement, attribute: str) -> bool:
    """Whether `stmt` is the class's `hw_classification = ...` (the fix may have written one)."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if isinstance(small, cst.Assign):
        return any(dotted(t.target) == attribute for t in small.targets)
    if isinstance(small, cst.AnnAssign):
        return dotted(small.target) == attribute
    return False


def _named_use(
    module: cst.Module, fn: cst.FunctionDef, words: re.Pattern[str], bound: set[str], instantiated: bool
) -> str:
    """What in `fn`'s own code makes it a device test, or "": it takes
    `device`, a device-type decorator, a device or `device_type` named, a
    module-level name bound to a device used (the facts' sites aside)."""
    if device_parameter(fn) is not None:
        return "takes `device`"
    for d in fn.decorators:
        name = decorator_name(d)
        if name in DEVICE_TEST_DECORATORS or is_device_specific(name):
            return f"@{name}"
        if instantiated and name.startswith("parametrize"):
            return f"@{name} (expanded by the device framework)"
    text = module.code_for_node(fn.with_changes(leading_lines=[]))
    found = words.search(text) or DEVICE_TYPE.search(text)
    if found is not None:
        return repr(found.group(0))
    used = _bound_used(fn, text, bound)
    return used[0] if used else ""


def _bound_used(node: cst.CSTNode, text: str, bound: set[str]) -> list[str]:
    """The names of `bound` that `node` (whose code is `text`) uses."""
    return sorted(name for name in bound if re.search(rf"\b{re.escape(name)}\b", text) and node_uses(node, name))


def _written(
    module: cst.Module,
    m: Migration,
    names: SplitNames,
    sorted_tests: _Sorted,
    config: Config,
    calls: list[int],
) -> tuple[bytes, tuple[str, ...], int]:
    """The module with the class replaced by the mixin, the GENERIC class
    and the ACCELERATOR class, and the latter instantiated: its old
    instantiation renamed, else a new one (after the class's last
    instantiation, before `if __name__ == "__main__":`); the device
    types the ACCELERATOR class is instantiated for; and how many of its
    tests' devices chosen by a probe became theirs (`_ChosenDevice`)."""
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
        s for i, s in enumerate(stmts) if i not in tests and i not in moved and not _is_declaration(s, config.attribute)
    ]
    # The device tests, and the members only they may use, in the order of the class.
    chosen = _ChosenDevice()
    if sorted_tests.any_gpu:
        members, device_tests = _gpu_type_rewritten(stmts, members, sorted_tests, chosen)
    else:
        device_tests = [
            _device_chosen(_given_device(stmts[i]), chosen) if i in sorted_tests.device else stmts[i]
            for i in sorted({*sorted_tests.device, *moved})
        ]
    attr = config.attribute
    made = [
        _new_class(
            cls, names.generic, [stmts[i] for i in sorted_tests.generic], (attr, enum_name, "GENERIC"), names, members
        ),
        _new_class(cls, names.accelerator, device_tests, (attr, enum_name, "ACCELERATOR"), names, members),
    ]
    refuse_clashing_names(made[1], instantiable(False, True), config.extend_devices)
    if members:
        mixin = cls.with_changes(
            name=cst.Name(names.mixin),
            bases=[],
            keywords=[],
            decorators=[],
            lpar=cst.MaybeSentinel.DEFAULT,
            rpar=cst.MaybeSentinel.DEFAULT,
            body=cls.body.with_changes(body=[_first(members[0], blank=False), *members[1:]]),
        )
        made.insert(0, mixin)
    else:
        made[0] = made[0].with_changes(leading_lines=cls.leading_lines)
    if calls:
        at = calls[0] + shift
        stmt = body[at]
        call = instantiation_call(stmt, m.class_name)
        assert call is not None and isinstance(stmt, cst.SimpleStatementLine)
        first = call.args[0].with_changes(value=cst.Name(names.accelerator))
        body[at] = stmt.with_changes(body=[cst.Expr(call.with_changes(args=[first, *call.args[1:]]))])
        runs = _runs(call)
    for at in parametrized_calls(body, m.class_name):
        stmt = body[at]
        assert isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr)
        given = stmt.body[0].value
        assert isinstance(given, cst.Call)
        renamed = given.with_changes(args=[given.args[0].with_changes(value=cst.Name(names.generic))])
        body[at] = stmt.with_changes(body=[cst.Expr(renamed)])
    body[where : where + 1] = made
    state = ModuleEdits(module.with_changes(body=body), config)
    if not calls:
        more = NEEDS_ACCELERATOR if sorted_tests.needs else ASKS
        state.instantiate.append((where + len(made) - 1, names.accelerator, more))
        runs = tuple(d for d in instantiable(False, True) if not (sorted_tests.needs and d == "cpu"))
    written = write_class_level(state)
    if sorted_tests.any_gpu:
        for name in ANY_GPU_NAMES:
            written = drop_unused_import(written, name)
    return written.bytes, runs, chosen.count


def _gpu_type_rewritten(
    stmts: Sequence[cst.BaseStatement], members: list[cst.BaseStatement], sorted_tests: _Sorted, chosen: _ChosenDevice
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
                f"not split: {_member_name(stmt)} uses {named} and stays with the device-free tests: migrate by hand"
            )
    device_tests = []
    for i in sorted({*sorted_tests.device, *sorted_tests.moved}):
        stmt = stmts[i]
        if gpu_attribute(stmt) is not None:
            continue  # `device = GPU_TYPE`: the device framework's `device` takes its place
        if isinstance(stmt, cst.FunctionDef):
            try:
                stmt, uses, _ = method_migrated(stmt, attributes)
            except Refusal as refusal:
                raise Refusal(f"not split: {refusal.reason}") from None
            chosen.count += uses
        elif any(node_uses(stmt, g) for g in ANY_GPU_NAMES):
            raise Refusal(f"not split: {_member_name(stmt)} uses GPU_TYPE when the class is defined: migrate by hand")
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
    local name, the member), holding `tests`."""
    attribute, enum_name, member = declared
    assert isinstance(cls.body, cst.IndentedBlock)
    bases = list(cls.bases)
    if members:
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if bases or cls.keywords else None
        bases.insert(0, cst.Arg(cst.Name(names.mixin), comma=comma or cst.MaybeSentinel.DEFAULT))
    blank = cst.EmptyLine(indent=False)
    declaration = declaration_statement(attribute, enum_name, member)
    return cls.with_changes(
        name=cst.Name(name),
        bases=bases,
        lpar=cst.LeftParen() if bases else cls.lpar,
        rpar=cst.RightParen() if bases else cls.rpar,
        leading_lines=[blank, blank],
        decorators=[d.with_changes(leading_lines=[]) for d in cls.decorators],
        body=cls.body.with_changes(body=[declaration, _first(tests[0], blank=True), *tests[1:]]),
    )


def _refuse_still_bound(
    fixed: bytes,
    names: SplitNames,
    config: Config,
    facts_of: Callable[[bytes], ModuleFacts],
    *,
    triton: bool,
) -> None:
    """Refusal when, after the rewrites, a test of the ACCELERATOR class
    still names a device (but in its `@only*` decorators, which the
    ACCELERATOR tests' migration replaces or moves next) or uses a
    module-level name bound to one: it is a test of that device. Without
    `triton`, a GPU_TYPE class's split, naming Triton is no device's."""
    body = parse_module(fixed, MigrateError).body
    cls = body[find_class(body, names.accelerator, 0)]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    stmts = [
        s.with_changes(decorators=[d for d in s.decorators if not is_device_specific(decorator_name(d))])
        if isinstance(s, cst.FunctionDef)
        else s
        for s in cls.body.body
    ]
    # What a comment or a docstring says runs on no device.
    bare = without_prose(cls.with_changes(body=cls.body.with_changes(body=stmts)))
    words = device_words(config, triton=triton)
    named = names_a_device(bare, words, config.attribute)
    if named:
        raise Refusal(f"not split: after the rewrites, a device test still names {named}: it is a test of that device")
    # A GPU_TYPE class's: a name bound to whichever GPU the machine has
    # (`requires_multigpu = skipIf(not HAS_MULTIGPU, ...)`) is no device's.
    bound = device_constants(fixed, facts_of(fixed).accelerator_lines, None if triton else words)
    used = sorted(name for name in bound if node_uses(bare, name))
    if used:
        raise Refusal(f"not split: a device test uses {used[0]}, which the module binds to a device")
