"""A one-device class migrated: made device-generic (an instantiated
ACCELERATOR class, its hard-coded devices given HWC201's rewrites, with
`except_for="cpu"` when its tests need an accelerator: "generalize"), or,
when it cannot be, instantiated only_for its device ("device-class"); a
refused generalization says what blocked it (hwlint.fix.blocker)."""

from __future__ import annotations

import ast
import re
from typing import Callable, Sequence

import libcst as cst

from hwlint.core.config import Config
from hwlint.core.diagnostics import NotFixable, Rewrite
from hwlint.facts import DEFAULT_ACCELERATORS, ClassFacts, ModuleFacts
from hwlint.facts.devices import framework_type, instantiable
from hwlint.fix.blocker import Blocker
from hwlint.fix.kinds import rewrite_kind
from hwlint.fix.migrate.accelerator_need import accelerator_need
from hwlint.fix.migrate.blockers import NAMES_IN_A_STRING, NEWEST_TORCH, ClassSource, equivalent_blocker
from hwlint.fix.migrate.class_decorators import refused_decorator
from hwlint.fix.migrate.class_level import ModuleEdits, redeclare, refuse_clashing_names, write_class_level
from hwlint.fix.migrate.config_patches import composed, config_patches_applied
from hwlint.fix.migrate.evidence import (
    accelerator_type_names,
    device_constants,
    device_words,
    masked_messages,
    names_a_device,
)
from hwlint.fix.migrate.framework import instantiated_names, opt_in
from hwlint.fix.migrate.guards import guards_applied
from hwlint.fix.migrate.local_names import masked_local_names
from hwlint.fix.migrate.outcome import Done, MigrateError, Refusal
from hwlint.fix.migrate.parameters import given_device
from hwlint.fix.migrate.parametrized import parametrized_dropped
from hwlint.fix.migrate.split_members import without_prose
from hwlint.fix.migrate.split_one_kind import decorator_last_name
from hwlint.fix.migrate.tree import base_name, bindings, class_facts, decorator_name, find_class, node_uses
from hwlint.fix.migrate.triton_flags import triton_flags_applied
from hwlint.fix.migrate.triton_guard import triton_guarded
from hwlint.fix.plan import REPLACEABLE
from hwlint.fix.plan_records import Migration, SiteRewrite
from hwlint.fix.result import FixError
from hwlint.fix.rewrite import RewriteError, parse_module, rewrite_source
from hwlint.fix.transform import decorator_names, import_decorators
from hwlint.fix.verify import verify_rewrites

# What a device-generic class is instantiated with after `globals()`: every
# accelerator (XPU opted in, as PyTorch's contributors write it), and not
# CPU when its tests need an accelerator (hwlint.fix.migrate.accelerator_need).
_EXCEPT_CPU = ', except_for="cpu"'
_ALLOW_XPU = ", allow_xpu=True"


def generalize(
    data: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, Done]:
    """A class bound to one device (`m.member`) as an instantiated
    ACCELERATOR class: its tests take `device` (a default naming the
    device goes), its hard-coded devices get HWC201's rewrites
    (hwlint.fix.rewrite), its declaration says ACCELERATOR and it is
    passed to instantiate_device_type_tests with `allow_xpu=True` (and
    `allow_mps=True` for an MPS class, so that it still runs where it
    ran), `except_for="cpu"` before them when its tests need an
    accelerator (they never ran on CPU); never only_for. Refusal, its
    Blocker saying what blocked it, when a use has no device-generic
    equivalent or the class still names a device after the rewrites."""
    try:
        return _generalize(data, m, config, facts_of)
    except Refusal as refusal:
        if refusal.blocker is not None:
            raise
        # Nothing of the class's code: the class itself (instantiated, subclassed, a name clash...).
        raise Refusal.blocked(Blocker(m.line, "", refusal.reason, "class")) from None


def _generalize(
    data: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, Done]:
    device = m.member.lower()
    if device == "cpu" or "ACCELERATOR" not in config.classifications:
        raise Refusal("a CPU class stays CPU" if device == "cpu" else "ACCELERATOR is not a configured classification")
    # (0) instantiate_parametrized_tests gone (hwlint.fix.migrate.parametrized),
    # its config patches on its tests, then the tests' guards of the device
    # as `@onlyCUDA` (hwlint.fix.migrate.config_patches, .guards).
    data, parametrized = parametrized_dropped(data, m.class_name, m.occurrence)
    class_to_instantiate(facts_of(data), m)
    data, patched = config_patches_applied(data, m.class_name, m.occurrence, facts_of)
    facts = facts_of(data)
    info = class_to_instantiate(facts, m)
    _refuse_the_class(info, m, config, facts)
    data, guards, renamed = guards_applied(data, m.class_name, m.occurrence, facts_of)
    renamed = composed(patched, renamed)
    # (0') its flags of Triton on the device as `HAS_TRITON` (hwlint.fix.migrate.triton_flags),
    # and its tests that name Triton asking for it (hwlint.fix.migrate.triton_guard).
    data, triton = triton_flags_applied(data, m.class_name, m.occurrence)
    data, asks_triton, asking = triton_guarded(data, m.class_name, m.occurrence, facts_of)
    renamed = composed(renamed, asking)
    if guards or triton or asking:
        facts = facts_of(data)
        info = class_to_instantiate(facts, m)
    # Triton asked for wherever the class names it is no device's.
    words = device_words(config, triton=not asks_triton, found=(f.name for f in facts.devices_found))
    source = ClassSource(data, info)
    _refuse_unrewritten_names(source, m, config, facts, words)
    # A test that asked for Triton on the device asks for Triton: on an accelerator.
    # (A test given `@requires_triton()` is skipped where Triton is not: it needs no accelerator for that.)
    need = accelerator_need(source, bindings(facts)) or ("it asked for Triton on the device" if triton else "")
    # (a) every test takes `device`.
    step_a, where, added = _tests_given_device(data, m, device, facts, config, words)
    # (b) the hard-coded devices rewritten, each with its device-generic equivalent.
    step_b, rewritten = _devices_rewritten(step_a, m, config, facts_of)
    # (c) nothing in the class names a device any more, nor a module-level
    # name it uses that does; then the declaration and the instantiation.
    module = parse_module(step_b, MigrateError)
    body = list(module.body)
    where = find_class(body, m.class_name, m.occurrence)  # a decorator's import may have come before it
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    _refuse_still_bound(step_b, m, cls, words, config, facts_of)
    replaced = redeclare(cls, config.attribute, "ACCELERATOR")
    if replaced is not None:
        body[where] = replaced
    state = ModuleEdits(module.with_changes(body=body), config)
    if replaced is None:
        state.declare[where] = "ACCELERATOR"
    flags = (_EXCEPT_CPU if need else "") + _ALLOW_XPU + (opt_in(device) if device == "mps" else "")
    runs = tuple(d for d in instantiable(device == "mps", True) if not (need and d == "cpu"))
    refuse_clashing_names(cls, runs, config.extend_devices)
    state.instantiate.append((where, m.class_name, flags))
    fixed = write_class_level(state).bytes
    detail = (
        ("class whose tests need an accelerator" if m.member == "ACCELERATOR" else f"{m.member} class")
        + f" made device-generic: {added} test{'s' if added != 1 else ''} given `device`, "
        f"{rewritten} hard-coded device{'s' if rewritten != 1 else ''} rewritten, "
        + (f"{guards} guard{'s' if guards != 1 else ''} of the device made generic, " if guards else "")
        + (f"{triton} flag{'s' if triton != 1 else ''} of Triton on the device made HAS_TRITON, " if triton else "")
        + f"instantiated{flags}"
        + (" in place of @instantiate_parametrized_tests" if parametrized else "")
        + (f" (its tests need an accelerator: {need})" if need else "")
    )
    return fixed, Done(
        "generalize",
        m.class_name,
        m.line,
        "ACCELERATOR",
        detail,
        instantiated_names(m.class_name, runs),
        guards=renamed,
    )


def _refuse_unrewritten_names(
    source: ClassSource, m: Migration, config: Config, facts: ModuleFacts, words: re.Pattern[str]
) -> None:
    """What the facts already tell, before libcst parses the file: Refusal,
    with the first blocker in the class (by line), for a use with no
    device-generic equivalent, or a line that names a device and has no
    rewrite (a test's `def` line aside: its default goes, its name stays;
    comments and docstrings aside: prose binds the class to no device)."""
    info = source.info
    early, blocker = _site_rewrites(info, facts, config, source)
    rewritten = {s.line for s in early}
    skipped = {t.line for t in info.methods} | rewritten | source.docstring_lines | _only_lines(source, m)
    # A local variable named after a device (`x_xpu`) is only a name (hwlint.fix.migrate.local_names).
    # A skip's or an assertion's message is prose (hwlint.fix.migrate.evidence).
    masked = masked_messages(masked_local_names(source.data, info.line, words), info.line)
    lines = source.lines if masked is source.data else ClassSource(masked, info).lines
    for n in range(info.body_line or info.line + 1, min(info.end_line, len(lines)) + 1):
        if blocker is not None and n >= blocker.line:
            break
        if n in skipped or lines[n - 1].lstrip().startswith(("#", config.attribute)):
            continue
        found = words.search(lines[n - 1])
        if found is not None:
            blocker = source.naming(n, found)
            break
    if blocker is not None:
        raise Refusal.blocked(blocker)


def _only_lines(source: ClassSource, m: Migration) -> set[int]:
    """The lines of the tests' `@onlyCUDA`-style decorators of the class's
    own device (the ACCELERATOR tests' migration, hwlint.fix.migrate.accelerator_tests,
    makes them `@onlyAccelerator` once the test names no device) and of
    their device-generic requirements."""
    cls = source.node
    if cls is None:
        return set()
    own = _own_only(m.member) | _GENERIC_REQUIREMENTS
    return {
        n
        for stmt in cls.body
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
        for d in stmt.decorator_list
        if decorator_last_name(d) in own
        for n in range(d.lineno, (d.end_lineno or d.lineno) + 1)
    }


# Requirements that name the backends of several devices and keep a test
# wherever one of them is (`@requires_accelerator_dist_backend(["nccl",
# "xccl"])`): what `@requires_nccl()` is rewritten to, device-generic already.
_GENERIC_REQUIREMENTS = frozenset({"requires_accelerator_dist_backend"})


def _own_only(member: str) -> set[str]:
    """The `@only*` decorators of the class's own device (`onlyCUDA` for CUDA) that become `@onlyAccelerator`."""
    return {d for d in REPLACEABLE if d[len("only") :].lower() == member.lower()}


def _without_decorators(cls: cst.ClassDef, names: set[str]) -> cst.ClassDef:
    """The class with its methods' decorators of `names` left out."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return cls
    stmts = [
        s.with_changes(decorators=[d for d in s.decorators if decorator_name(d) not in names])
        if isinstance(s, cst.FunctionDef)
        else s
        for s in cls.body.body
    ]
    return cls.with_changes(body=cls.body.with_changes(body=stmts))


def _undecorated_class(
    data: bytes,
    m: Migration,
    config: Config,
    doing: str,
    words: re.Pattern[str] | None = None,
    *,
    requires: bool = False,
) -> tuple[cst.Module, list[cst.SimpleStatementLine | cst.BaseCompoundStatement], int, cst.ClassDef]:
    """The module, its body, the class's index there and the class, refused
    when the class has decorators other than skips its device classes
    inherit (hwlint.fix.migrate.class_decorators: what others do to it is
    not known, `doing` by hand); with `requires`, a `@requires_*()` too."""
    module = parse_module(data, MigrateError)
    body = list(module.body)
    where = find_class(body, m.class_name, m.occurrence)
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    for d in cls.decorators:
        if refused_decorator(decorator_name(d), config, requires=requires) is not None:
            raise Refusal(f"{m.class_name} has class decorators ({decorator_name(d)}): {doing} by hand")
    if words is not None:
        _refuse_decorator_naming(module, cls, m, words)
    return module, body, where, cls


def _refuse_decorator_naming(module: cst.Module, cls: cst.ClassDef, m: Migration, words: re.Pattern[str]) -> None:
    """Refusal when a decorator of the class names a device (`@skipIf(not
    TEST_CUDA, ...)`): every device class would inherit the skip."""
    for d in cls.decorators:
        code = module.code_for_node(d.decorator)
        if words.search(code):
            why = "names a device, and every device class would inherit the skip: a class of that device"
            raise Refusal.blocked(Blocker(m.line, f"@{code}", why, "names-device"))


def _tests_given_device(
    data: bytes, m: Migration, device: str, facts: ModuleFacts, config: Config, words: re.Pattern[str]
) -> tuple[bytes, int, int]:
    """The module with `device` given to every test of the class (a default
    naming the device gone), the class's index in its body, and how many
    tests got it; Refusal when a decorator of the class names a device (`words`)."""
    module, body, where, cls = _undecorated_class(data, m, config, "generalize", words)
    new_body, added = given_device(cls, device, drop_defaults=True, bound=bindings(facts))
    body[where] = cls.with_changes(body=cls.body.with_changes(body=new_body))
    return module.with_changes(body=body).bytes, where, added


def _devices_rewritten(
    step_a: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, int]:
    """The module with the class's hard-coded devices rewritten (HWC201's
    rewrites, verified; a backend decorator's replacement imported as
    `fix` imports it), and how many; Refusal when one cannot be."""
    facts_a = facts_of(step_a)
    info_a = class_facts(facts_a, m.class_name, m.occurrence)
    assert info_a is not None
    sites, blocker = _site_rewrites(info_a, facts_a, config, ClassSource(step_a, info_a))
    if blocker is not None:
        raise Refusal.blocked(blocker)
    step_b = step_a
    if sites:
        try:
            outcome = rewrite_source(step_a, decorator_names(step_a, sites))
        except FixError as exc:
            raise MigrateError(str(exc)) from None
        if outcome.skipped:
            site, why = outcome.skipped[0]
            found = next(
                (s for s in (*info_a.devices, *info_a.distributed) if (s.line, s.column) == (site.line, site.column)),
                None,
            )
            code = ClassSource(step_a, info_a).code(found) if found is not None else site.name
            raise Refusal.blocked(Blocker(site.line, code, f"is not rewritten: {why}", "rewrite-refused"))
        verify_rewrites(facts_a, facts_of(outcome.fixed), outcome.done)
        try:
            step_b = import_decorators(outcome.fixed, outcome.done)
        except RewriteError as exc:
            raise MigrateError(str(exc)) from None
    return step_b, len(sites)


def _refuse_still_bound(
    step_b: bytes,
    m: Migration,
    cls: cst.ClassDef,
    words: re.Pattern[str],
    config: Config,
    facts_of: Callable[[bytes], ModuleFacts],
) -> None:
    """Refusal when, after the rewrites, the class still names a device, or
    uses (or reaches) a module-level name bound to one: it is a test of
    that device."""
    facts_b = facts_of(step_b)
    info_b = class_facts(facts_b, m.class_name, m.occurrence)
    assert info_b is not None
    masked = masked_local_names(step_b, info_b.line, words)
    if masked is not step_b:
        # The same class with its local variables' device words hidden (only names).
        cls = _undecorated_class(masked, m, config, "generalize")[3]
    named = names_a_device(
        without_prose(_without_decorators(cls, _own_only(m.member) | _GENERIC_REQUIREMENTS)),
        words,
        config.attribute,
        docstrings=False,
    )
    if named:
        raise Refusal.blocked(
            Blocker(
                m.line,
                "",
                f"after the rewrites, {m.class_name} still names {named}: it is a test of that device",
                "names-device",
            )
        )
    bound = {b.name: b for b in facts_b.device_bindings}
    # The machine's accelerator type (`device_type = acc.type if (acc :=
    # torch.accelerator.current_accelerator()) else "cpu"`) is the type of
    # the device each instantiated test is given: no one device's.
    names = device_constants(step_b, facts_b.accelerator_lines) - accelerator_type_names(step_b)
    used = sorted(name for name in names if node_uses(cls, name))
    if used:
        line = bound[used[0]].line if used[0] in bound else 0
        why = f"is bound to a device at module level, and {m.class_name} uses it: it is a test of that device"
        raise Refusal.blocked(Blocker(line, used[0], why, "module-device"))
    reached = facts_b.bindings_reached(info_b)
    if reached:
        # Through a module-level function or name: no rewrite of the class changes it.
        raise Refusal.blocked(
            Blocker(
                reached[0].line,
                reached[0].name,
                f"is bound to {reached[0].device!r} at module level, and {m.class_name} reaches it: "
                "it is a test of that device",
                "module-device",
            )
        )


def device_class(
    data: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, Done]:
    """A class bound to one device that cannot be made device-generic, as
    a class of that device the framework instantiates: its tests take
    `device` (their bodies still name the device, which a class of it may),
    and it is passed to instantiate_device_type_tests with `only_for=` the
    device (and `allow_xpu=True`/`allow_mps=True`). It then runs, renamed
    `TestFooXPU`, where that device is, as the classification says; the
    declaration hwlint.fix.apply wrote stays. Refusal, with why, when it
    cannot be instantiated."""
    device = m.member.lower()
    if device == "cpu":
        raise Refusal("a CPU class is not instantiated for CPU by this migration")
    data, parametrized = parametrized_dropped(data, m.class_name, m.occurrence)
    class_to_instantiate(facts_of(data), m)
    data, patched = config_patches_applied(data, m.class_name, m.occurrence, facts_of)
    # (Instantiated for its device alone, its class's requirement of it stays, as the any-gpu migration keeps one.)
    module, body, where, cls = _undecorated_class(data, m, config, "instantiate it", requires=True)
    if not isinstance(cls.body, cst.IndentedBlock):
        raise Refusal(f"{m.class_name} has a one-line body")
    new_body, added = given_device(cls, device, drop_defaults=False)
    kind = framework_type(device)
    refuse_clashing_names(cls, (device,), config.extend_devices)
    body[where] = cls.with_changes(body=cls.body.with_changes(body=new_body))
    state = ModuleEdits(module.with_changes(body=body), config)
    flag = opt_in(device)
    state.instantiate.append((where, m.class_name, f', only_for="{device}"{flag}'))
    fixed = write_class_level(state).bytes
    detail = (
        f"{m.member} class instantiated for {device}: {added} test{'s' if added != 1 else ''} given `device`, "
        f'only_for="{device}"{flag}' + (" in place of @instantiate_parametrized_tests" if parametrized else "")
    )
    return fixed, Done(
        "device-class",
        m.class_name,
        m.line,
        m.member,
        detail,
        instantiated_names(m.class_name, (kind,)),
        guards=patched,
    )


def _refuse_the_class(info: ClassFacts, m: Migration, config: Config, facts: ModuleFacts) -> None:
    """Refusal when the class itself stands in the way: its name names a
    device, or a decorator does to it what its device classes would not inherit."""
    devices = (*DEFAULT_ACCELERATORS.devices, *config.extend_devices, *(f.name for f in facts.devices_found))
    named = name_names_a_device(m.class_name, (*devices, "privateuse1"))
    if named:
        # `TestSDPAPrivateUse1Only`: its author made it that device's only;
        # instantiated, it would run as TestSDPAPrivateUse1OnlyCUDA.
        raise Refusal.blocked(
            Blocker(
                info.line,
                m.class_name,
                f"is {named!r} only, by its name: rename it to make it device-generic",
                "class",
            )
        )
    for name in info.decorators:
        refused = refused_decorator(name, config)
        if refused is not None:
            raise Refusal.blocked(Blocker(info.line, f"@{name}", refused, "class"))


def name_names_a_device(name: str, devices: Sequence[str]) -> str:
    """The device a class's name says it is only for, by its CamelCase
    parts (`TestSDPACudaOnly`, `TestSDPAPrivateUse1Only`, `TestOnlyNPU`,
    `TestXPUSpecific`), "" when none: `TestCuda` alone may be a class
    whose author knew one device, `TestDumps` names no MPS."""
    parts = [p.lower() for p in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)]
    for device in devices:
        for i, part in enumerate(parts):
            width = 1 if part == device else 2 if part + "".join(parts[i + 1 : i + 2]) == device else 0
            if not width:
                continue
            after = parts[i + width] if i + width < len(parts) else ""
            before = parts[i - 1] if i else ""
            if after in _ONLY or before == "only":
                return device
    return ""


_ONLY = frozenset({"only", "specific", "exclusive"})


def class_to_instantiate(facts: ModuleFacts, m: Migration) -> ClassFacts:
    """The facts of the class `m` would pass to instantiate_device_type_tests;
    Refusal when it cannot be: instantiating removes it from its module, so
    nothing else there may use it."""
    info = class_facts(facts, m.class_name, m.occurrence)
    if info is None:
        raise Refusal(f"class {m.class_name} not found in the facts")
    if any(i.class_name == m.class_name for i in facts.instantiations):
        raise Refusal(f"{m.class_name} is already instantiated")
    if any(base_name(b) == m.class_name for c in facts.classes for b in c.bases):
        raise Refusal(f"another class of the module subclasses {m.class_name}")
    if any(m.class_name in d.args or d.target == m.class_name for d in facts.dynamic):
        raise Refusal(f"{m.class_name} is passed to a function at module level")
    return info


def _site_rewrites(
    info: ClassFacts, facts: ModuleFacts, config: Config, source: ClassSource
) -> tuple[list[SiteRewrite], Blocker | None]:
    """HWC201's rewrites of the class's hard-coded devices, up to the first
    one that has none; and that one's Blocker (None when every site has a rewrite)."""
    from hwlint.facts.resolve import ClassInfo
    from hwlint.fix.equivalents import rewrite_equivalent
    from hwlint.rules.hardcoded_device import device_fix
    from hwlint.rules.torch_api import NoEquivalent

    modules = DEFAULT_ACCELERATORS.extended(config.extend_accelerator_modules).device_modules
    judged = ClassInfo(info, True, "ACCELERATOR", True, None)
    imports_torch = any(i.asname == "torch" for i in facts.imports)
    out: list[SiteRewrite] = []
    for site in sorted((*info.devices, *info.distributed), key=lambda s: (s.line, s.column)):
        code = source.code(site)
        if site.kind == "string":
            return out, Blocker(site.line, code, NAMES_IN_A_STRING, "device-string")
        if site.kind == "backend-feature":
            why = "belongs to one collective backend: it is a test of that backend"
            return out, Blocker(site.line, code, why, "backend-only")
        asserted = source.asserts_backend(site)
        if asserted:
            why = "asks for one device's backend: the test asserts what that backend does"
            return out, Blocker(site.line, asserted, why, "backend-assertion")
        fix = device_fix(site, judged, modules, config.oldest_torch)
        if not isinstance(fix, Rewrite):
            newest = device_fix(site, judged, modules, NEWEST_TORCH)
            unfixable = fix if isinstance(fix, NotFixable) else None
            return out, equivalent_blocker(site, code, unfixable, newest, config.oldest_torch, modules)
        equivalent = rewrite_equivalent(fix, facts.imports)
        if isinstance(equivalent, NoEquivalent):
            return out, Blocker(site.line, code, f"has no rewrite here: {equivalent.reason}", "rewrite-refused")
        if fix.target == "device" and site.line in source.decorator_lines:
            # `@largeTensorTest("48GB", device="xpu")` cannot say `device=device`: no test's device is there.
            why = "is a decorator's argument: the test's `device` is not defined where decorators run"
            return out, Blocker(site.line, code, why, "rewrite-refused")
        if fix.target != "device" and not imports_torch:
            return out, Blocker(site.line, code, f"needs `import torch` for {fix.target}", "rewrite-refused")
        out.append(
            SiteRewrite(
                site.line, site.column, rewrite_kind(fix.kind), fix.name, info.name, True, equivalent, imports_torch
            )
        )
    return out, None


def gpu_type_class_generalized(
    data: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, int]:
    """The class `m` names, bound to one device, already made ACCELERATOR the
    way a GPU_TYPE class is (hwlint.fix.migrate.any_gpu: its tests take
    `device`, it is instantiated for every accelerator), with its uses of
    that device given their device-generic rewrites, and how many; Refusal
    as generalize refuses a class: its name or a decorator names the device
    (every device class would inherit the skip), a use has no equivalent,
    or after the rewrites it still names the device or reaches a
    module-level name bound to it. Triton is every GPU's there: GPU_TYPE's."""
    facts = facts_of(data)
    info = class_facts(facts, m.class_name, m.occurrence)
    assert info is not None  # (the any-gpu migration found it)
    _refuse_the_class(info, m, config, facts)
    words = device_words(config, triton=False, found=(f.name for f in facts.devices_found))
    module = parse_module(data, MigrateError)
    cls = module.body[find_class(list(module.body), m.class_name, m.occurrence)]
    assert isinstance(cls, cst.ClassDef)
    _refuse_decorator_naming(module, cls, m, words)
    fixed, rewritten = _devices_rewritten(data, m, config, facts_of)
    module = parse_module(fixed, MigrateError)
    cls = module.body[find_class(list(module.body), m.class_name, m.occurrence)]
    assert isinstance(cls, cst.ClassDef)
    _refuse_still_bound(fixed, m, cls, words, config, facts_of)
    return fixed, rewritten


def class_devices_rewritten(
    data: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, int]:
    """The module with the hard-coded devices of the class `m` names given
    HWC201's device-generic rewrites (verified), and how many; Refusal when
    one has none. The class must be an instantiated ACCELERATOR class whose
    tests take `device` (hwlint.fix.migrate.split makes one)."""
    return _devices_rewritten(data, m, config, facts_of)
