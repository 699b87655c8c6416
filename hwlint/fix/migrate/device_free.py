"""Which tests of a class bound to one device use no device
(`device_free_tests`), asked before the class is instantiated for that
device alone (hwlint.fix.migrate.driver): those tests ran on CPU runners,
and the class would take them off.

The split's own sorting answers first (hwlint.fix.migrate.split.sort_tests).
When it cannot sort the tests for a split (a member that is no test uses
the device, and the device-free tests would share it), they are sorted by
what each one reaches (`_by_reach`):

- a test is a device test when its own code names a device (as the split
  sees it) or holds a site of the facts (a probe, a device, a requirement
  among its decorators), when it names an attribute that a member binds to a mention of
  the device (`cls.cuda = torch.device("cuda")` in `setUpClass`: a device
  object, made without the device), when it reaches a helper that names
  the device, or when it passes `self` on;
- a member that runs for every test (`setUp`, a class attribute) and names
  the device otherwise (`.cuda()`, `torch.cuda.set_device(0)`), or sets the
  class's own `device` or `device_type` to it (`device = "mps"`, which code
  the class calls but does not show reads: inductor's `check_model`), makes
  every test a device test: none is device-free, and the class is that
  device's.

A class skipped on CPU runners as a whole (a class decorator, a skip in
`setUp`) has no test that ran there: none is counted.

The tests that are left ran on CPU runners and use no device: the driver
leaves the class, with why, rather than take them off.
"""

from __future__ import annotations

import re
from typing import Callable

import libcst as cst
import libcst.matchers as matchers

from hwlint.core.config import Config
from hwlint.facts import ClassFacts, ModuleFacts
from hwlint.fix.edits import dotted
from hwlint.fix.migrate.evidence import device_words, mentioning_functions
from hwlint.fix.migrate.outcome import MigrateError, Refusal
from hwlint.fix.migrate.split import (
    OneKind,
    bound_names,
    bound_used,
    first_look,
    member_spans,
    named_use,
    names_another_device,
    names_device,
    refuse_unnamed_mentions,
    sort_tests,
)
from hwlint.fix.migrate.split_classes import is_declaration
from hwlint.fix.migrate.split_members import ANY, code_without_prose, members_named, reached, runs_for_every_test
from hwlint.fix.migrate.tree import class_facts, find_class, instantiation_call, test_methods
from hwlint.fix.plan_records import Migration
from hwlint.fix.rewrite import parse_module


def device_free_tests(
    data: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[str, ...]:
    """The tests of the class `m` names (bound to `m.member`'s device) that
    use no device, when others do; () when its tests are of one kind or
    cannot be told apart. A test that names only another device's backend
    (`mkldnn` in a CUDA class) counts as one that uses no device."""
    facts = facts_of(data)
    info = class_facts(facts, m.class_name, m.occurrence)
    if info is None or any(r.kind in _EVERY_TEST for r in info.requires):
        return ()  # (A skip for every test when there is no accelerator: none ran on CPU runners.)
    words = device_words(config, found=(f.name for f in facts.devices_found))
    try:
        # (With ast first: a class whose tests all use a device is most of those asked about.)
        masked = first_look(data, info, facts, words)
        module = parse_module(data, MigrateError)
        cls = module.body[find_class(module.body, m.class_name, m.occurrence)]
    except (Refusal, MigrateError):
        return ()
    assert isinstance(cls, cst.ClassDef)
    calls = any(instantiation_call(stmt, m.class_name) is not None for stmt in module.body)
    device = m.member.lower()
    try:
        sorted_tests = sort_tests(module, cls, info, facts, data, config, instantiated=calls, masked=masked)
        free, used = set(sorted_tests.generic), set(sorted_tests.device)
    except OneKind:
        return ()
    except (Refusal, MigrateError):
        by_reach = _by_reach(module, cls, (info, facts, data), words, device, config, instantiated=calls)
        if by_reach is None:
            return ()
        free, used = by_reach
    if not used:
        return ()
    return tuple(
        fn.name.value
        for i, fn in test_methods(cls)
        if i in free or (i in used and names_another_device(fn, words, device))
    )


# Where a requirement (ClassFacts.requires) skips every test of the class on a CPU runner.
_EVERY_TEST = frozenset({"class", "setup"})
# The attributes through which a class says its device to what it calls
# (inductor's `device = "mps"`, read by its base's and the module's helpers).
_THE_DEVICE = frozenset({"device", "device_type"})


def _by_reach(
    module: cst.Module,
    cls: cst.ClassDef,
    read: tuple[ClassFacts, ModuleFacts, bytes],
    words: re.Pattern[str],
    device: str,
    config: Config,
    *,
    instantiated: bool,
) -> tuple[set[int], set[int]] | None:
    """The class's tests (indices in its body) that use no device and those
    that do, by what each reaches (see the module's docstring); None when a
    member that runs for every test uses the device, or the module uses a
    device where no test can be seen to reach it or not."""
    info, facts, data = read
    lines = [n for n in facts.accelerator_lines if n not in set(info.unreached)]
    # A module-level function that mentions a device, bound to none (it names
    # two, or asks too): a test calling it may run on one, so it counts as a
    # device test; what else mentions one (run at import) no test is seen to use.
    helpers_of = mentioning_functions(data, lines)
    try:
        refuse_unnamed_mentions(data, [n for n in lines if n not in helpers_of], facts.device_bindings)
    except Refusal:
        return None
    bound = bound_names(data, lines, bindings=facts.device_bindings) | set(helpers_of.values())
    assert isinstance(cls.body, cst.IndentedBlock)
    body = list(cls.body.body)
    tests = dict(test_methods(cls))
    shared = [
        stmt
        for i, stmt in enumerate(body)
        if i not in tests and runs_for_every_test(stmt) and not is_declaration(stmt, config.attribute)
    ]
    attributes = _device_attributes(shared, cls.name.value, words, device, bound)
    if attributes is None or attributes & _THE_DEVICE:
        # (The class's own device, for what it runs: code it does not show may read it.)
        return None

    def names_it(stmt: cst.BaseStatement) -> bool:
        text = code_without_prose(stmt)
        return (
            names_device(text, words, device)
            or bool(bound_used(stmt, text, bound))
            or bool(members_named(stmt, cls.name.value) & attributes)
        )

    # The facts' sites in each member's lines, its decorators': a probe, a
    # device (`device=GPU_TYPE`), a requirement (`@skipIf(not TEST_MULTIGPU, ...)`).
    spans = member_spans(cls, info.line)
    sites = [s.line for s in (*info.probes, *info.devices, *info.distributed, *info.requires)]

    def holds_site(i: int) -> bool:
        return any(spans[i][0] <= n <= spans[i][1] for n in sites)

    helpers = {
        i
        for i, stmt in enumerate(body)
        if i not in tests and not runs_for_every_test(stmt) and (names_it(stmt) or holds_site(i))
    }
    own = {
        i: bool(named_use(module, fn, words, bound, instantiated)[0]) or holds_site(i) or names_it(fn)
        for i, fn in tests.items()
    }
    free: set[int] = set()
    used: set[int] = set()
    for i in tests:
        first, anything = reached(body, cls.name.value, [i])
        # (What it reaches, transitively: a helper, or another test, that uses the device.)
        uses = own[i] or anything or any(j in helpers or own.get(j, False) for j in first if j != i)
        (used if uses else free).add(i)
    return free, used


def _device_attributes(
    shared: list[cst.BaseStatement], class_name: str, words: re.Pattern[str], device: str, bound: set[str]
) -> set[str] | None:
    """The attributes the members that run for every test (`shared`) bind to
    a mention of `device` (a device object or its name, not made on it), or
    to another such attribute; None when one of them names the device
    otherwise: every test then runs that."""
    values: dict[str, list[cst.BaseExpression]] = {}
    for stmt in shared:
        bindings = _MentionBindings(class_name, isinstance(stmt, cst.SimpleStatementLine))
        rest = stmt.visit(bindings)
        assert isinstance(rest, cst.BaseStatement)  # (a line becomes a line: `pass` for a binding)
        for name, value in bindings.found:
            values.setdefault(name, []).append(value)
        text = code_without_prose(rest)
        if names_device(text, words, device) or bound_used(rest, text, bound):
            return None
    attributes: set[str] = set()
    grown = True
    while grown:
        grown = False
        for name, found in values.items():
            if name in attributes:
                continue
            for value in found:
                text = cst.Module(body=[]).code_for_node(value)
                named = members_named(value, class_name) & (attributes | {ANY})
                if names_device(text, words, device) or named or any(name in bound for name in _names(value)):
                    attributes.add(name)
                    grown = True
                    break
    return attributes


class _MentionBindings(cst.CSTTransformer):
    """Collects each `self.X = <mention>` (`cls.X`, or `X = <mention>` in
    the class body itself) and replaces it with `pass`: what is left of the
    member is what it runs besides. A mention makes nothing on a device: a
    string, `torch.device(...)` of mentions and numbers, a name, an
    attribute, or a list, tuple or set of those."""

    def __init__(self, class_name: str, class_level: bool) -> None:
        self.class_name = class_name
        self.class_level = class_level
        self.found: list[tuple[str, cst.BaseExpression]] = []

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        bindings: list[tuple[str, cst.BaseExpression]] = []
        for small in updated_node.body:
            if not isinstance(small, cst.Assign) or not _is_mention(small.value):
                return updated_node
            for target in small.targets:
                name = self._attribute(target.target)
                if name is None:
                    return updated_node
                bindings.append((name, small.value))
        self.found.extend(bindings)
        return updated_node.with_changes(body=[cst.Pass()])

    def _attribute(self, target: cst.BaseAssignTargetExpression) -> str | None:
        if self.class_level and isinstance(target, cst.Name):
            return target.value
        if isinstance(target, cst.Attribute) and dotted(target.value) in ("self", "cls", self.class_name):
            return target.attr.value
        return None


def _names(value: cst.BaseExpression) -> set[str]:
    """The plain names `value` uses."""
    return {n.value for n in matchers.findall(value, matchers.Name()) if isinstance(n, cst.Name)}


def _is_mention(value: cst.BaseExpression) -> bool:
    """Whether `value` makes nothing on a device (see `_MentionBindings`)."""
    if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Name, cst.Attribute)):
        return True
    if isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        return all(isinstance(e, cst.Element) and _is_mention(e.value) for e in value.elements)
    if isinstance(value, cst.Call) and dotted(value.func) in ("torch.device", "device"):
        return all(a.keyword is None and a.star == "" and _is_mention(a.value) for a in value.args)
    return False
