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
import textwrap
from typing import Callable, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from hwlint.core.config import Config
from hwlint.facts import ClassFacts, DeviceBinding, ModuleFacts
from hwlint.facts.devices import BACKENDS, DEVICE_TEST_DECORATORS
from hwlint.fix.migrate.any_gpu_decorators import DEVICE_SKIPS
from hwlint.fix.migrate.any_gpu_methods import gpu_attribute
from hwlint.fix.migrate.any_gpu_spellings import respelt
from hwlint.fix.migrate.evidence import (
    bound_at,
    device_constants,
    device_words,
    masked_messages,
    names_a_device,
    users_of,
)
from hwlint.fix.migrate.framework import instantiated_names
from hwlint.fix.migrate.generalize import class_devices_rewritten
from hwlint.fix.migrate.guards import Rewritten, decorators_changed, guards_applied
from hwlint.fix.migrate.local_names import masked_local_names
from hwlint.fix.migrate.outcome import Done, MigrateError, Refusal
from hwlint.fix.migrate.split_classes import (
    ASKS,
    NEEDS_ACCELERATOR,
    SortedTests,
    is_declaration,
    member_name,
    write_split,
)
from hwlint.fix.migrate.split_cpu import cpu_tests, own_helpers
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
from hwlint.fix.migrate.triton_guard import triton_guarded
from hwlint.fix.plan_records import ClassMove, Migration
from hwlint.fix.rewrite import parse_module
from hwlint.rules.device_decorator import is_device_specific
from hwlint.rules.device_specific_instantiation import device_of


class OneKind(Refusal):
    """A split refused because the class's tests are all of one kind: one
    classification fits them all."""


class StaysOneDevice(Refusal):
    """A split refused because its device tests still name a device, or use
    a module-level name bound to one, after the rewrites: they are tests of
    that device (`split` then tries them as a class of it)."""


def split(
    data: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, list[Done], tuple[ClassMove, ...]]:
    """The class `m` names split into a mixin, a GENERIC class of its
    device-free tests and an instantiated ACCELERATOR class of the others
    (see the module's docstring); the records of the two classes made and
    the moves of their tests. When the device tests stay one device's (they
    name it, or `@requires_cuda`), and the class is that device's by its
    uses (`m.member`: "CUDA"), the others go to `<Name>CUDA`, instantiated
    for it alone, as the contributors' `TestSDPACUDA`: the device-free tests
    keep running on every runner, as they did. Refusal, with why, when it
    cannot be."""
    for member in ("GENERIC", "ACCELERATOR"):
        if member not in config.classifications:
            raise Refusal(f"not split: {member} is not a configured classification")
    # The module's own spellings of GPU_TYPE as GPU_TYPE (`T(10)` placing on
    # `DEVICE = GPU_TYPE` by default): the tests using them are then seen as GPU_TYPE's are.
    data = respelt(data, m.class_name, m.occurrence, facts_of(data))
    try:
        return _split_as(data, m, config, facts_of, "")
    except Refusal as refusal:
        # Its device tests stay one device's: they still name it after the
        # rewrites, or a use of theirs has no device-generic equivalent (a
        # blocker: `"cuda:1"`, `torch.xpu.memory_allocated()` before 2.9).
        stays = isinstance(refusal, StaysOneDevice) or (refusal.mixed and refusal.blocker is not None)
        if not stays or device_of(m.member or None, config) in (None, "cpu"):
            raise
        device = m.member
        try:
            fixed, done, moves = _split_as(data, m, config, facts_of, device)
        except Refusal as second:
            why = f"{refusal.reason}; as a {device} class: {second.reason}"
            raise Refusal(why, refusal.line, refusal.code, refusal.blocker, mixed=True) from None
        # (The blocker's line is one of the class split, before its tests moved.)
        because = refusal.blocker.describe(line=False) if refusal.blocker else f"its tests still name {device}"
        return fixed, [*done[:-1], done[-1]._replace(detail=f"{done[-1].detail}; not device-generic: {because}")], moves


# A device's own libraries, by device type, besides its collective backend
# (facts.devices.BACKENDS): a test that names only others' (`mkldnn`, a CPU
# library, in a CUDA class) is no test of that device.
_LIBRARIES = {"cuda": ("cudnn", "cublas", "rocm", "hip", "triton"), "xpu": ("onednn", "mkldnn", "triton")}


def names_another_device(fn: cst.BaseStatement, words: re.Pattern[str], device: str) -> bool:
    """Whether what `fn` runs names a device (`words`), and each name is
    another's than `device`'s (its name, its backend, its libraries)."""
    text = code_without_prose(fn)
    return words.search(text) is not None and not names_device(text, words, device)


def names_device(text: str, words: re.Pattern[str], device: str) -> bool:
    """Whether the code `text` names `device` (by its name, its backend or
    its libraries) among the devices it names (`words`)."""
    family = (device, *(b for b, d in BACKENDS.items() if d == device), *_LIBRARIES.get(device, ()))
    return any(f in w.lower() for w in words.findall(text) for f in family)


def _split_as(
    data: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts], device: str
) -> tuple[bytes, list[Done], tuple[ClassMove, ...]]:
    """`split`'s, the device tests' class ACCELERATOR or, with `device`, that device's."""
    facts = facts_of(data)
    info = class_facts(facts, m.class_name, m.occurrence)
    if info is None:
        raise Refusal(f"class {m.class_name} not found in the facts")
    words = device_words(config, found=(f.name for f in facts.devices_found))
    masked = first_look(data, info, facts, words)
    module = parse_module(data, MigrateError)
    where = find_class(module.body, m.class_name, m.occurrence)
    cls = module.body[where]
    assert isinstance(cls, cst.ClassDef)
    if not isinstance(cls.body, cst.IndentedBlock):
        raise Refusal(f"not split: {m.class_name} has a one-line body")
    calls = [at for at, stmt in enumerate(module.body) if instantiation_call(stmt, m.class_name) is not None]
    if device and calls:
        raise Refusal(f"not split: {m.class_name} is instantiated already")
    # The tests sorted first: a class whose tests are all of one kind (most
    # of the splits the plan tries and the facts cannot rule out) is refused
    # before the module is read whole.
    sorted_tests = sort_tests(module, cls, info, facts, data, config, instantiated=bool(calls), masked=masked)
    # Its tests are of both kinds from here: a refusal leaves a class no one classification fits.
    try:
        return _split_sorted(module, cls, m, (info, facts, words), sorted_tests, calls, config, facts_of, device)
    except StaysOneDevice:
        raise
    except Refusal as refusal:
        raise Refusal(refusal.reason, refusal.line, refusal.code, refusal.blocker, mixed=True) from None


def _split_sorted(
    module: cst.Module,
    cls: cst.ClassDef,
    m: Migration,
    read: tuple[ClassFacts, ModuleFacts, re.Pattern[str]],
    sorted_tests: SortedTests,
    calls: list[int],
    config: Config,
    facts_of: Callable[[bytes], ModuleFacts],
    device: str,
) -> tuple[bytes, list[Done], tuple[ClassMove, ...]]:
    """`_split_as`'s, its tests sorted; `read`: the class's and the module's
    facts, and the device words `_split_as` read them with."""
    info, facts, words = read
    names = SplitNames.of(m.class_name)
    if device:
        names = names._replace(accelerator=f"{m.class_name}{device}")  # the contributors' `TestSDPACUDA`
    if device and sorted_tests.any_gpu:
        raise Refusal("not split: its device tests use GPU_TYPE, whichever GPU the machine has")
    if device:
        other = [
            fn.name.value
            for i, fn in test_methods(cls)
            if i in sorted_tests.device and names_another_device(fn, words, device.lower())
        ]
        if other:
            raise Refusal(f"not split: {other[0]} names a device, and none of them is {device}'s")
    if sorted_tests.cpu and not parametrized_calls(module.body, m.class_name):
        names = names._replace(generic=f"{m.class_name}OnlyCPU")  # the contributors' name
    else:
        sorted_tests = sorted_tests._replace(cpu=False)
    refuse_other_uses(module, calls, names, facts)
    fixed, runs, chosen = write_split(module, m, names, sorted_tests, config, calls, device)
    renamed: Rewritten
    rewritten, renamed = 0, ()
    if not device:
        fixed, rewritten, renamed = _made_device_generic(fixed, m, names, info, sorted_tests, config, facts_of)
    generic = tuple(fn.name.value for i, fn in test_methods(cls) if i in sorted_tests.generic)
    tests = tuple(fn.name.value for i, fn in test_methods(cls) if i in sorted_tests.device)
    assert isinstance(cls.body, cst.IndentedBlock)
    helpers = [member_name(cls.body.body[i]) for i in sorted_tests.moved]
    instantiated = (
        "instantiation renamed"
        if calls
        else f'instantiated, only_for="{device.lower()}"'
        if device
        else "instantiated" + (NEEDS_ACCELERATOR if sorted_tests.needs else ASKS)
    )
    made = f"{rewritten + chosen} hard-coded device{'s' if rewritten + chosen != 1 else ''} rewritten, "
    done = [
        _device_free_done(m, names.generic, generic, sorted_tests.cpu),
        Done(
            "split",
            m.class_name,
            m.line,
            device or "ACCELERATOR",
            f"{listed(tests)}{' with ' + listed(helpers) if helpers else ''} -> {names.accelerator} "
            f"({device or 'ACCELERATOR'}, given `device`, {'' if device else made}{instantiated})",
            instantiated_names(names.accelerator, runs),
            to_class=names.accelerator,
            guards=renamed,
        ),
    ]
    moves = (ClassMove(m.class_name, names.generic, generic), ClassMove(m.class_name, names.accelerator, tests))
    return fixed, done, moves


def _made_device_generic(
    fixed: bytes,
    m: Migration,
    names: SplitNames,
    info: ClassFacts,
    sorted_tests: SortedTests,
    config: Config,
    facts_of: Callable[[bytes], ModuleFacts],
) -> tuple[bytes, int, Rewritten]:
    """The ACCELERATOR class of a split made device-generic: its guards of a
    device as a device-generic class has them, its tests naming Triton
    asking for it, its hard-coded devices rewritten; how many were, and the
    tests whose decorators changed. StaysOneDevice when a device test
    still names a device."""
    fixed = guards_applied(fixed, names.accelerator, 0, facts_of)[0]
    # Its tests that name Triton asking for it (hwlint.fix.migrate.triton_guard); in
    # a GPU_TYPE class, Triton is the GPU's code generator already.
    asks_triton = False
    if not sorted_tests.any_gpu:
        fixed, asks_triton, _ = triton_guarded(fixed, names.accelerator, 0, facts_of)
    # The device tests whose decorators changed (the guards, GPU_TYPE's), for the verification.
    now = class_facts(facts_of(fixed), names.accelerator, 0)
    assert now is not None
    renamed = decorators_changed(info, now)
    accelerator = m._replace(class_name=names.accelerator, occurrence=0)
    fixed, rewritten = class_devices_rewritten(fixed, accelerator, config, facts_of)
    _refuse_still_bound(fixed, names, config, facts_of, triton=not (sorted_tests.any_gpu or asks_triton))
    return fixed, rewritten, renamed


def _device_free_done(m: Migration, name: str, tests: Sequence[str], cpu: bool) -> Done:
    """The record of the class of the device-free tests: GENERIC, or CPU
    (instantiated for the CPU) when they are the CPU's case (hwlint.fix.migrate.split_cpu)."""
    if not cpu:
        return Done("split", m.class_name, m.line, "GENERIC", f"{listed(tests)} -> {name} (GENERIC)", to_class=name)
    detail = f'{listed(tests)} -> {name} (CPU, given `device`, instantiated, only_for="cpu")'
    return Done("split", m.class_name, m.line, "CPU", detail, instantiated_names(name, ("cpu",)), to_class=name)


def first_look(data: bytes, info: ClassFacts, facts: ModuleFacts, words: re.Pattern[str]) -> bytes:
    """The module with what runs on no device hidden, as the split sorts the
    tests (`_naming_nothing_that_runs`); Refusal when every test then uses a
    device. With ast: libcst's parse costs some fifty times more."""
    reached = [n for n in facts.accelerator_lines if n not in set(info.unreached)]
    masked = masked_for_tests(data, info, words)
    if every_test_uses_a_device(
        masked, info.line, words, bound_names(data, reached, bindings=facts.device_bindings), instantiated=False
    ):
        raise OneKind(_ONE_KIND.format("every"))
    return masked


def listed(tests: Sequence[str]) -> str:
    """The first three tests' names, and how many more."""
    return ", ".join(tests[:3]) + (f" and {len(tests) - 3} more" if len(tests) > 3 else "")


def member_spans(cls: cst.ClassDef, line: int) -> dict[int, tuple[int, int]]:
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
    masked: bytes | None = None,
) -> SortedTests:
    """The class's tests sorted into device-free ones and device ones: a
    device test takes `device`, has an accelerator site of the facts (a
    probe, a hard-coded device, a requirement) or a device-type decorator,
    names a device, `device_type`, or a module-level name bound to one (or
    using one); in an instantiated class, a `@parametrize` too. Refusal when
    a member that is no test uses a device, a test is named by another
    member, or the tests are all of one kind."""
    assert isinstance(cls.body, cst.IndentedBlock)
    words = device_words(config, found=(f.name for f in facts.devices_found))
    reached = [n for n in facts.accelerator_lines if n not in set(info.unreached)]
    bound = bound_names(data, reached, bindings=facts.device_bindings)
    tests = {i: fn for i, fn in test_methods(cls)}
    # What each test's own code says, first: when it makes every test a
    # device test (most of the splits the plan tries and the facts cannot
    # rule out), the lines of the class are not laid out.
    uses_of = {i: named_use(module, fn, words, bound, instantiated) for i, fn in tests.items()}
    named = {i: why for i, (why, _) in uses_of.items()}
    # (A test that only asks about a device may still be device-free: below.)
    if named and all(named.values()) and not info.questions:
        raise OneKind(_ONE_KIND.format("every"))
    refuse_unnamed_mentions(data, reached, facts.device_bindings)
    spans = member_spans(cls, info.line)
    worded = {i: spans[i] for i, (_, by_word) in uses_of.items() if by_word}
    for i in _naming_nothing_that_runs(masked or masked_for_tests(data, info, words), words, bound, worded):
        named[i] = ""
    if named and all(named.values()):
        raise OneKind(_ONE_KIND.format("every"))
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
        raise OneKind(_ONE_KIND.format("every"))
    uses = _member_uses(module, cls, tests, (sites, spans), words, bound, config)
    any_gpu = any(s.kind == "any-gpu" for s in info.devices)
    if any_gpu:
        # `device = GPU_TYPE` goes: the tests' `device` takes its place (`_gpu_type_rewritten`).
        uses = {i: use for i, use in uses.items() if gpu_attribute(cls.body.body[i]) is None}
    names = {i: member_name(stmt) for i, stmt in enumerate(cls.body.body)}
    # (With no device test, a test that reaches a member's device use is why.)
    moved = placed(list(cls.body.body), cls.name.value, (generic, device), uses, names)
    if not device:
        raise OneKind(_ONE_KIND.format("no"))
    cpu = not instantiated and cpu_tests(tests, generic, device, own_helpers(cls))
    return SortedTests(generic, device, needs, moved, any_gpu, cpu)


_ONE_KIND = "not split: {} test uses a device: one classification fits them all"
Pattern = re.Pattern[str]
Bindings = Sequence[DeviceBinding]  # ModuleFacts.device_bindings


def _is_use(text: str) -> bool:
    """Whether a site's text runs on an accelerator rather than asks about one."""
    return not re.search(r"is_available|device_count|TEST_|HAS_", text)


def refuse_unnamed_mentions(data: bytes, reached: list[int], bindings: Bindings = ()) -> None:
    """Refusal when the class reaches a module-level mention of an
    accelerator that binds no name a test could be seen to use (a
    statement run at import; a function's body unless the facts bind the
    function to the device: `bindings`, ModuleFacts.device_bindings)."""
    named = {b.line for b in bindings}
    for n, (names, _) in sorted(bound_at(data, reached).items()):
        if not names and n not in named:
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
        if i in tests or is_declaration(stmt, config.attribute):
            continue
        start, end = spans[i]
        mine = [s for s in sites if start <= s[0] <= end]
        text = code_without_prose(stmt)
        named = words.search(text) or DEVICE_TYPE.search(text)
        used = bound_used(stmt, text, bound)
        if mine:
            uses[i] = Use(mine[0][1], mine[0][0])
        elif named is not None or used:
            uses[i] = Use(repr(named.group(0)) if named is not None else used[0])
        if not isinstance(stmt, cst.FunctionDef) and re.search(r"^\s*test\w*\s*[:=]", text, re.M):
            raise Refusal(f"not split: {member_name(stmt)} binds a test by assignment")
    code = module.code_for_node(cls.body)
    for fn in tests.values():
        if len(re.findall(rf"\b{re.escape(fn.name.value)}\b", code)) > 1:
            raise Refusal(f"not split: {fn.name.value} is named elsewhere in the class")
    return uses


def named_use(
    module: cst.Module, fn: cst.FunctionDef, words: re.Pattern[str], bound: set[str], instantiated: bool
) -> tuple[str, bool]:
    """What in `fn`'s own code makes it a device test, or "": it takes
    `device`, a device-type decorator, a device or `device_type` named, a
    module-level name bound to a device used (the facts' sites aside); and
    whether that is a device or a name written in its code (which a
    message or a question may be: `_naming_nothing_that_runs`)."""
    if device_parameter(fn) is not None:
        return "takes `device`", False
    for d in fn.decorators:
        name = decorator_name(d)
        if name in DEVICE_TEST_DECORATORS or is_device_specific(name):
            return f"@{name}", False
        if instantiated and name.startswith("parametrize"):
            return f"@{name} (expanded by the device framework)", False
    # Its name and its prose run on no device.
    text = code_without_prose(fn.with_changes(name=cst.Name("test"), leading_lines=[]))
    found = words.search(text) or DEVICE_TYPE.search(text)
    if found is not None:
        return repr(found.group(0)), True
    used = bound_used(fn, text, bound)
    return (used[0], True) if used else ("", False)


def masked_for_tests(data: bytes, info: ClassFacts, words: re.Pattern[str]) -> bytes:
    """`data` with what in the class runs on no device hidden, line for
    line: its local variables' names (hwlint.fix.migrate.local_names), its
    skips' and assertions' messages, and the questions about an
    accelerator whose answer a test takes either way (the facts')."""
    masked = masked_messages(masked_local_names(data, info.line, words), info.line)
    if not info.questions:
        return masked
    lines = masked.split(b"\n")
    for q in info.questions:
        text = q.text.encode("utf-8")
        if 0 < q.line <= len(lines):
            # A name of the same length: the line still parses, and names nothing.
            lines[q.line - 1] = lines[q.line - 1].replace(text, b"_" * len(text), 1)
    return b"\n".join(lines)


def _naming_nothing_that_runs(
    masked: bytes, words: re.Pattern[str], bound: set[str], spans: dict[int, tuple[int, int]]
) -> list[int]:
    """Of the tests at `spans` (a device named in their code), those that
    name one only where nothing runs on it: their own name, a comment, a
    docstring, a skip's or an assertion's message, a local variable's
    name, or a question whose answer they take either way (`if
    torch.cuda.is_available(): self.skipTest(...)`, the facts' questions,
    which a GENERIC test may ask). `masked`: the module with those hidden
    (`masked_for_tests`)."""
    if not spans:
        return []
    lines = masked.decode("utf-8", "replace").splitlines()
    quiet = []
    for i, (start, end) in spans.items():
        own = textwrap.dedent("\n".join(lines[start - 1 : end]) + "\n")
        try:
            fn = cst.parse_statement(own)
        except cst.ParserSyntaxError:
            continue
        if not isinstance(fn, cst.FunctionDef):
            continue
        text = code_without_prose(fn.with_changes(name=cst.Name("test")))
        if words.search(text) is None and DEVICE_TYPE.search(text) is None and not bound_used(fn, text, bound):
            quiet.append(i)
    return quiet


def bound_used(node: cst.CSTNode, text: str, bound: set[str]) -> list[str]:
    """The names of `bound` that `node` (whose code is `text`) uses."""
    return sorted(name for name in bound if re.search(rf"\b{re.escape(name)}\b", text) and node_uses(node, name))


def bound_names(data: bytes, lines: Sequence[int], naming: Pattern | None = None, bindings: Bindings = ()) -> set[str]:
    """The module-level names bound to a device on `lines` (evidence.device_constants;
    `bindings`' too, ModuleFacts.device_bindings: a function whose body places on it), and
    the functions and values that use them (`def T(*size, device=DEVICE)`: a test
    calling `T(2)` places on that device)."""
    on = set(lines)
    named = {b.name for b in bindings if b.line in on and (naming is None or naming.search(b.device))}
    bound = device_constants(data, lines, naming) | named
    return bound | users_of(data, bound) if bound else bound


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
    facts = facts_of(fixed)
    words = device_words(config, triton=triton, found=(f.name for f in facts.devices_found))
    info = class_facts(facts, names.accelerator, 0)
    assert info is not None
    # Its local variables' and device-free helpers' names are only names (hwlint.fix.migrate.local_names).
    body = parse_module(masked_local_names(fixed, info.line, words), MigrateError).body
    cls = body[find_class(body, names.accelerator, 0)]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    stmts = [
        s.with_changes(
            decorators=[
                d
                for d in s.decorators
                if not is_device_specific(decorator_name(d)) and decorator_name(d) not in DEVICE_SKIPS
            ]
        )
        if isinstance(s, cst.FunctionDef)
        else s
        for s in cls.body.body
    ]
    # What a comment or a docstring says runs on no device.
    bare = without_prose(cls.with_changes(body=cls.body.with_changes(body=stmts)))
    named = names_a_device(bare, words, config.attribute)
    if named:
        raise StaysOneDevice(
            f"not split: after the rewrites, a device test still names {named}: it is a test of that device",
            mixed=True,
        )
    # A GPU_TYPE class's: a name bound to whichever GPU the machine has
    # (`requires_multigpu = skipIf(not HAS_MULTIGPU, ...)`) is no device's.
    after = facts_of(fixed)
    bound = bound_names(fixed, after.accelerator_lines, None if triton else words, after.device_bindings)
    used = sorted(name for name in bound if node_uses(bare, name, attributes=False))
    if used:
        raise StaysOneDevice(f"not split: a device test uses {used[0]}, which the module binds to a device", mixed=True)
