"""The device-parameter migrations of a class whose tests take `device`
and that is never instantiated: instantiated as ACCELERATOR
("instantiate"), the parameter dropped as GENERIC ("drop-device"), or
instantiated only_for the device every `device=` default names
("default-device")."""

from __future__ import annotations

from typing import Mapping

import libcst as cst

from hwlint.facts import ClassFacts, ModuleFacts
from hwlint.facts.devices import DEVICE_TEST_DECORATORS, framework_type, instantiable
from hwlint.fix.migrate.class_level import ModuleEdits, refuse_clashing_names
from hwlint.fix.migrate.framework import instantiated_names, opt_in
from hwlint.fix.migrate.outcome import Done, MigrateError, Refusal
from hwlint.fix.migrate.parameters import (
    FILLS_IN_ORDER,
    default_device,
    given_device,
    without_param,
    written_decorator,
)
from hwlint.fix.migrate.tree import (
    base_name,
    bindings,
    body_uses,
    class_facts,
    decorator_name,
    device_parameter,
    find_class,
    test_methods,
)
from hwlint.fix.plan_records import Migration
from hwlint.fix.rewrite import parse_module
from hwlint.rules.device_decorator import is_device_specific


def _parametrizes(fn: cst.FunctionDef, name: str) -> bool:
    """Whether a decorator of `fn` gives it the argument `name`: a
    `@parametrize("name, ...", ...)`-style one (common_utils', pytest's), the
    `parameterized` library's, or hypothesis' `@given(name=...)`."""
    for decorator in fn.decorators:
        call = decorator.decorator
        if isinstance(call, cst.Call) and decorator_name(decorator) in FILLS_IN_ORDER:
            return True
        if isinstance(call, cst.Call) and decorator_name(decorator) == "given":
            if any(a.keyword is not None and a.keyword.value == name for a in call.args):
                return True
        if not (isinstance(call, cst.Call) and decorator_name(decorator).startswith("parametrize") and call.args):
            continue
        first = call.args[0].value
        if isinstance(first, cst.SimpleString):
            value = first.evaluated_value
            names = value.decode("latin-1") if isinstance(value, bytes) else value
            if name in (n.strip() for n in names.split(",")):
                return True
    return False


def _giver(fn: cst.FunctionDef) -> str:
    """The first parametrizing decorator of `fn`, as written (`@parameterized.expand`)."""
    return written_decorator(fn, lambda name: name.startswith("parametrize") or name in {*FILLS_IN_ORDER, "given"})


# The tests that take `device`: each one's index in the class body, the test, its parameter.
_Taking = list[tuple[int, cst.FunctionDef, cst.Param]]


def migrate_device_param(state: ModuleEdits, m: Migration, index: int, facts: ModuleFacts) -> Done:
    """The class at `state.body[index]`, whose tests take `device`,
    instantiated for the device every `device=` default names, else as
    ACCELERATOR when a test uses `device` or wears a device-type decorator,
    else GENERIC with the parameter dropped. Refusal, with why, when the
    class cannot be instantiated or the evidence does not say which."""
    cls = state.body[index]
    assert isinstance(cls, cst.ClassDef)
    info = _instantiable(m, facts)
    tests = test_methods(cls)
    taking = _taking_device(m, tests)
    bound = bindings(facts)
    defaults = {fn.name.value: default_device(p.default, bound) for _, fn, p in taking if p.default is not None}
    if defaults:
        return _instantiated_for_default(state, m, index, info, taking, defaults, bound)
    used = [fn.name.value for _, fn, _ in taking if body_uses(fn, "device")]
    decorated = [
        fn.name.value
        for _, fn in tests
        if any(
            decorator_name(d) in DEVICE_TEST_DECORATORS or is_device_specific(decorator_name(d)) for d in fn.decorators
        )
    ]
    if used or decorated:
        if "ACCELERATOR" not in state.config.classifications:
            raise Refusal("ACCELERATOR is not a configured classification")
        refuse_clashing_names(cls, instantiable(False, False), state.config.extend_devices)
        state.declare[index] = "ACCELERATOR"
        state.instantiate.append((index, m.class_name, ""))
        why = f"{used[0]} uses `device`" if used else f"{decorated[0]} has a device-type decorator"
        return Done(
            "instantiate",
            m.class_name,
            m.line,
            "ACCELERATOR",
            f"instantiated: {why}",
            instantiated_names(m.class_name, instantiable(False, False)),
        )
    return _device_dropped(state, m, index, info, taking)


def _instantiable(m: Migration, facts: ModuleFacts) -> ClassFacts:
    """The class's facts; Refusal when instantiating it would take it from
    the module while something else there uses it."""
    info = class_facts(facts, m.class_name, m.occurrence)
    if info is None:
        raise Refusal(f"class {m.class_name} not found in the facts")
    if any(base_name(b) == m.class_name for c in facts.classes for b in c.bases):
        raise Refusal(
            f"another class of the module subclasses {m.class_name}: instantiating it would remove it "
            "from the module first; migrate by hand"
        )
    if any(m.class_name in d.args or d.target == m.class_name for d in facts.dynamic):
        raise Refusal(
            f"{m.class_name} is passed to a function at module level (line {next(d.line for d in facts.dynamic if m.class_name in d.args or d.target == m.class_name)}): migrate by hand"
        )
    return info


def _taking_device(m: Migration, tests: list[tuple[int, cst.FunctionDef]]) -> _Taking:
    """The tests that take `device`; Refusal when none does, or one takes
    several devices or gets its device from a decorator (@parametrize, @parameterized.expand, @given)."""
    taking = [(i, fn, p) for i, fn in tests if (p := device_parameter(fn)) is not None]
    if not taking:
        raise Refusal(f"no test written in {m.class_name}'s body takes `device` (inherited?): migrate by hand")
    if any(p.name.value == "devices" for _, _, p in taking):
        raise Refusal("a test takes `devices` (several devices): migrate by hand")
    parametrized = next((fn for _, fn, p in taking if _parametrizes(fn, p.name.value)), None)
    if parametrized is not None:
        # `@parametrize("device", [...])` gives the test its device itself:
        # instantiating the class would ask the device framework for one
        # more, and the runtime would collect none of its tests.
        raise Refusal(
            f"{parametrized.name.value} gets `device` from its decorator ({_giver(parametrized)}), not from the "
            "device framework: migrate by hand"
        )
    return taking


def _instantiated_for_default(
    state: ModuleEdits,
    m: Migration,
    index: int,
    info: ClassFacts,
    taking: _Taking,
    defaults: dict[str, str | None],
    bound: Mapping[str, str],
) -> Done:
    """ "default-device": every test's `device` defaults to one accelerator,
    and nothing in the class uses another: the class is instantiated
    only_for it, the defaults gone."""
    cls = state.body[index]
    assert isinstance(cls, cst.ClassDef)
    kinds = set(defaults.values())
    if None in kinds or len(kinds) != 1 or len(defaults) != len(taking):
        raise Refusal("the tests' `device` defaults differ or are computed: choose the classification by hand")
    (device,) = kinds
    assert device is not None
    others = _other_devices(info, device)
    if others:
        raise Refusal(f"the tests default to {device!r} but the class also uses {others}: classify it by hand")
    member = next((c for c in state.config.classifications if c == device.upper()), None)
    if member is None:
        raise Refusal(
            f"every `device=` default is {device!r}, which is not a configured classification: add it to `classifications`"
        )
    if device == "cpu":
        raise Refusal("every `device=` default is 'cpu': a CPU class is not instantiated for CPU by this migration")
    # A device class is instantiated only_for its device (HWC101/HWC111,
    # TEST_LINTER's device-class rules): the framework then passes
    # `device`, and the defaults go.
    new_body, _ = given_device(cls, device, drop_defaults=True, bound=bound)
    refuse_clashing_names(cls, (device,), state.config.extend_devices)
    state.body[index] = cls.with_changes(body=cls.body.with_changes(body=new_body))
    state.declare[index] = member
    flag = opt_in(device)
    state.instantiate.append((index, m.class_name, f', only_for="{device}"{flag}'))
    return Done(
        "default-device",
        m.class_name,
        m.line,
        member,
        f'every test\'s `device` defaults to {device!r}: instantiated only_for="{device}"{flag}',
        instantiated_names(m.class_name, (framework_type(device),)),
    )


def _device_dropped(state: ModuleEdits, m: Migration, index: int, info: ClassFacts, taking: _Taking) -> Done:
    """ "drop-device": no test uses its `device` and nothing in the class
    points at a device: GENERIC, the parameter gone."""
    cls = state.body[index]
    assert isinstance(cls, cst.ClassDef)
    uses = [s for s in (*info.probes, *info.devices, *info.requires, *info.distributed)]
    if uses:
        raise Refusal(
            f"no test uses its `device`, but the class uses an accelerator ({uses[0].text}, line {uses[0].line}): "
            "instantiate it (ACCELERATOR) or classify it by hand"
        )
    if "GENERIC" not in state.config.classifications:
        raise Refusal("GENERIC is not a configured classification")
    body = list(cls.body.body) if isinstance(cls.body, cst.IndentedBlock) else []
    for i, fn, param in taking:
        body[i] = fn.with_changes(params=without_param(fn.params, param))
    new_cls = cls.with_changes(body=cls.body.with_changes(body=body))
    state.body[index] = new_cls
    state.declare[index] = "GENERIC"
    return Done(
        "drop-device",
        m.class_name,
        m.line,
        "GENERIC",
        f"no test uses `device` ({len(taking)} test{'s' if len(taking) != 1 else ''}), no accelerator use in the class",
    )


def _other_devices(info: ClassFacts, device: str) -> str:
    from hwlint.rules.infer import probe_device

    for site in (*info.probes, *info.devices):
        found = probe_device(site.text)
        if found is not None and found != device.upper():
            return f"{site.text} (line {site.line})"
    return ""


def one_default(data: bytes, m: Migration, bound: Mapping[str, str]) -> str | None:
    """The accelerator every `device=` default of the class's tests names, if one does."""
    body = parse_module(data, MigrateError).body
    try:
        where = find_class(body, m.class_name, m.occurrence)
    except Refusal:
        return None
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    params = [p for _, fn in test_methods(cls) if (p := device_parameter(fn)) is not None]
    found = {default_device(p.default, bound) if p.default is not None else None for p in params}
    if len(found) != 1:
        return None
    (device,) = found
    return device if device not in (None, "cpu") else None


def device_tests(state: ModuleEdits, m: Migration, index: int, facts: ModuleFacts) -> Done:
    """The class at `state.body[index]`, instantiated for its device
    (`m.member`), with `device` given to each of its tests that lacks it:
    the framework passes it to every test of a device class (HWC102);
    the test need not use it. Refusal, with why, when a test cannot take it."""
    cls = state.body[index]
    assert isinstance(cls, cst.ClassDef)
    if not isinstance(cls.body, cst.IndentedBlock):
        raise Refusal(f"{m.class_name} has a one-line body")
    new_body, added = given_device(cls, m.member.lower(), drop_defaults=False)
    if not added:
        raise Refusal(f"every test of {m.class_name} takes `device` already")
    state.body[index] = cls.with_changes(body=cls.body.with_changes(body=new_body))
    detail = f"{m.member} class instantiated for its device: {added} test{'s' if added != 1 else ''} given `device`"
    return Done("device-tests", m.class_name, m.line, m.member, detail)
