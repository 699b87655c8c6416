"""A one-device class migrated: made device-generic (an instantiated
ACCELERATOR class, its hard-coded devices given HWC201's rewrites:
"generalize"), or, when it cannot be, instantiated only_for its device
("device-class")."""

from __future__ import annotations

import re
from typing import Callable

import libcst as cst

from hwlint.core.config import Config
from hwlint.core.diagnostics import NotFixable, Rewrite
from hwlint.facts import DEFAULT_ACCELERATORS, ClassFacts, ModuleFacts
from hwlint.facts.devices import framework_type, instantiable
from hwlint.fix.kinds import rewrite_kind
from hwlint.fix.migrate.class_level import ModuleEdits, redeclare, refuse_clashing_names, write_class_level
from hwlint.fix.migrate.evidence import device_constants, device_words, names_a_device
from hwlint.fix.migrate.framework import instantiated_names, opt_in
from hwlint.fix.migrate.outcome import Done, MigrateError, Refusal
from hwlint.fix.migrate.parameters import given_device
from hwlint.fix.migrate.tree import base_name, bindings, class_facts, decorator_name, find_class, node_uses
from hwlint.fix.plan import Migration, SiteRewrite
from hwlint.fix.rewrite import parse_module, rewrite_source
from hwlint.fix.verify import verify_rewrites


def generalize(
    data: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, Done]:
    """A class bound to one device (`m.member`) as an instantiated
    ACCELERATOR class: its tests take `device` (a default naming the
    device goes), its hard-coded devices get HWC201's rewrites
    (hwlint.fix.rewrite), its declaration says ACCELERATOR and it is
    passed to instantiate_device_type_tests (with `allow_xpu=True` or
    `allow_mps=True` for those devices, so that it still runs where it
    ran; never only_for). Refusal, with why, when a use has no
    device-generic equivalent or the class still names a device after the
    rewrites."""
    device = m.member.lower()
    if device == "cpu" or "ACCELERATOR" not in config.classifications:
        raise Refusal("a CPU class stays CPU" if device == "cpu" else "ACCELERATOR is not a configured classification")
    facts = facts_of(data)
    info = _to_instantiate(facts, m)
    if info.decorators:
        raise Refusal(f"{m.class_name} has class decorators ({info.decorators[0]}): generalize by hand")
    words = device_words(config)
    _refuse_unrewritten_names(data, m, config, facts, info, words)
    # (a) every test takes `device`.
    step_a, where, added = _tests_given_device(data, m, device, facts)
    # (b) the hard-coded devices rewritten, each with its device-generic equivalent.
    step_b, rewritten = _devices_rewritten(step_a, m, config, facts_of)
    # (c) nothing in the class names a device any more, nor a module-level
    # name it uses that does; then the declaration and the instantiation.
    module = parse_module(step_b, MigrateError)
    body = list(module.body)
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    _refuse_still_bound(step_b, m, cls, words, config, facts_of)
    replaced = redeclare(cls, config.attribute, "ACCELERATOR")
    if replaced is not None:
        body[where] = replaced
    state = ModuleEdits(module.with_changes(body=body), config)
    if replaced is None:
        state.declare[where] = "ACCELERATOR"
    flag = opt_in(device)
    runs = instantiable(device == "mps", device == "xpu")
    refuse_clashing_names(cls, runs, config.extend_devices)
    state.instantiate.append((where, m.class_name, flag))
    fixed = write_class_level(state).bytes
    detail = (
        f"{m.member} class made device-generic: {added} test{'s' if added != 1 else ''} given `device`, "
        f"{rewritten} hard-coded device{'s' if rewritten != 1 else ''} rewritten, instantiated{flag}"
    )
    return fixed, Done(
        "generalize", m.class_name, m.line, "ACCELERATOR", detail, instantiated_names(m.class_name, runs)
    )


def _refuse_unrewritten_names(
    data: bytes, m: Migration, config: Config, facts: ModuleFacts, info: ClassFacts, words: re.Pattern[str]
) -> None:
    """What the facts already tell, before libcst parses the file: Refusal
    for a use with no device-generic equivalent, or a line that names a
    device and has no rewrite (a test's `def` line aside: its default goes,
    its name stays)."""
    early = _site_rewrites(info, facts, config)
    rewritten = {s.line for s in early}
    defs = {t.line for t in info.methods}
    lines = data.decode("utf-8", "replace").splitlines()
    for n in range(info.body_line or info.line + 1, min(info.end_line, len(lines)) + 1):
        if n in rewritten or n in defs or lines[n - 1].lstrip().startswith(("#", config.attribute)):
            continue
        found = words.search(lines[n - 1])
        if found is not None:
            raise Refusal(
                f"{m.class_name} names {found.group(0)!r} (line {n}), which no rewrite changes: it is a test of that device"
            )


def _undecorated_class(
    data: bytes, m: Migration, doing: str
) -> tuple[cst.Module, list[cst.SimpleStatementLine | cst.BaseCompoundStatement], int, cst.ClassDef]:
    """The module, its body, the class's index there and the class, refused
    when the class has decorators (what they do to it is not known: `doing`
    by hand)."""
    module = parse_module(data, MigrateError)
    body = list(module.body)
    where = find_class(body, m.class_name, m.occurrence)
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    if cls.decorators:
        raise Refusal(f"{m.class_name} has class decorators ({decorator_name(cls.decorators[0])}): {doing} by hand")
    return module, body, where, cls


def _tests_given_device(data: bytes, m: Migration, device: str, facts: ModuleFacts) -> tuple[bytes, int, int]:
    """The module with `device` given to every test of the class (a default
    naming the device gone), the class's index in its body, and how many
    tests got it."""
    module, body, where, cls = _undecorated_class(data, m, "generalize")
    new_body, added = given_device(cls, device, drop_defaults=True, bound=bindings(facts))
    body[where] = cls.with_changes(body=cls.body.with_changes(body=new_body))
    return module.with_changes(body=body).bytes, where, added


def _devices_rewritten(
    step_a: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, int]:
    """The module with the class's hard-coded devices rewritten (HWC201's
    rewrites, verified), and how many; Refusal when one cannot be."""
    facts_a = facts_of(step_a)
    info_a = class_facts(facts_a, m.class_name, m.occurrence)
    assert info_a is not None
    sites = _site_rewrites(info_a, facts_a, config)
    step_b = step_a
    if sites:
        outcome = rewrite_source(step_a, sites)
        if outcome.skipped:
            site, why = outcome.skipped[0]
            raise Refusal(f"line {site.line}: {why}")
        step_b = outcome.fixed
        verify_rewrites(facts_a, facts_of(step_b), outcome.done)
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
    named = names_a_device(cls, words, config.attribute)
    if named:
        raise Refusal(f"after the rewrites, {m.class_name} still names {named}: it is a test of that device")
    bound = device_constants(step_b, facts_of(step_b).accelerator_lines)
    used = sorted(name for name in bound if node_uses(cls, name))
    if used:
        raise Refusal(f"{m.class_name} uses {used[0]}, which the module binds to a device")
    facts_b = facts_of(step_b)
    info_b = class_facts(facts_b, m.class_name, m.occurrence)
    assert info_b is not None
    reached = facts_b.bindings_reached(info_b)
    if reached:
        # Through a module-level function or name: no rewrite of the class changes it.
        raise Refusal(
            f"{m.class_name} reaches {reached[0].name}, which the module binds to {reached[0].device!r} "
            f"(line {reached[0].line}): it is a test of that device"
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
    _to_instantiate(facts_of(data), m)
    module, body, where, cls = _undecorated_class(data, m, "instantiate it")
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
        f'only_for="{device}"{flag}'
    )
    return fixed, Done(
        "device-class", m.class_name, m.line, m.member, detail, instantiated_names(m.class_name, (kind,))
    )


def _to_instantiate(facts: ModuleFacts, m: Migration) -> ClassFacts:
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


def _site_rewrites(info: ClassFacts, facts: ModuleFacts, config: Config) -> list[SiteRewrite]:
    """HWC201's rewrites of the class's hard-coded devices; Refusal, with
    why, when one has none."""
    from hwlint.facts.resolve import ClassInfo
    from hwlint.fix.equivalents import rewrite_equivalent
    from hwlint.rules.hardcoded_device import device_fix
    from hwlint.rules.torch_api import NoEquivalent

    modules = DEFAULT_ACCELERATORS.extended(config.extend_accelerator_modules).device_modules
    judged = ClassInfo(info, True, "ACCELERATOR", True, None)
    imports_torch = any(i.asname == "torch" for i in facts.imports)
    out = []
    for site in sorted((*info.devices, *info.distributed), key=lambda s: (s.line, s.column)):
        if site.kind in ("backend-feature", "decorator"):
            raise Refusal(f"line {site.line}: {site.text} belongs to one backend: generalize by hand")
        fix = device_fix(site, judged, modules, config.oldest_torch)
        if not isinstance(fix, Rewrite):
            reason = fix.reason if isinstance(fix, NotFixable) else "no rewrite"
            raise Refusal(f"line {site.line}: {site.text} has no device-generic equivalent ({reason})")
        equivalent = rewrite_equivalent(fix, facts.imports)
        if isinstance(equivalent, NoEquivalent):
            raise Refusal(f"line {site.line}: {equivalent.reason}")
        if fix.target != "device" and not imports_torch:
            raise Refusal(f"line {site.line}: {fix.target} needs `import torch`")
        out.append(
            SiteRewrite(
                site.line, site.column, rewrite_kind(fix.kind), fix.name, info.name, True, equivalent, imports_torch
            )
        )
    return out


def class_devices_rewritten(
    data: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, int]:
    """The module with the hard-coded devices of the class `m` names given
    HWC201's device-generic rewrites (verified), and how many; Refusal when
    one has none. The class must be an instantiated ACCELERATOR class whose
    tests take `device` (hwlint.fix.migrate.split makes one)."""
    return _devices_rewritten(data, m, config, facts_of)
