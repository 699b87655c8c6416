"""The device-parameter migrations of a class whose tests take `device`
and that is never instantiated: instantiated as ACCELERATOR
("instantiate"), the parameter dropped as GENERIC ("drop-device"), or
instantiated only_for the device every `device=` default names
("default-device")."""

from __future__ import annotations

from typing import Mapping

import libcst as cst

from hwlint.facts import ClassFacts, ModuleFacts
from hwlint.fix.migrate.class_level import ModuleEdits, name_clash
from hwlint.fix.migrate.framework import DEVICE_TEST_DECORATORS, device_type, instantiable, instantiated_names, opt_in
from hwlint.fix.migrate.outcome import Done, MigrateError
from hwlint.fix.migrate.parameters import default_device, given_device, without_param
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
from hwlint.fix.plan import Migration
from hwlint.fix.rewrite import parse_module
from hwlint.rules.device_decorator import is_device_specific


def _parametrizes(fn: cst.FunctionDef, name: str) -> bool:
    """Whether a `@parametrize("name, ...", ...)`-style decorator of `fn`
    gives it the argument `name`."""
    for decorator in fn.decorators:
        call = decorator.decorator
        if not (isinstance(call, cst.Call) and decorator_name(decorator).startswith("parametrize") and call.args):
            continue
        first = call.args[0].value
        if isinstance(first, cst.SimpleString):
            value = first.evaluated_value
            names = value.decode("latin-1") if isinstance(value, bytes) else value
            if name in (n.strip() for n in names.split(",")):
                return True
    return False


def migrate_device_param(state: ModuleEdits, m: Migration, index: int, facts: ModuleFacts) -> Done | str:
    cls = state.body[index]
    assert isinstance(cls, cst.ClassDef)
    info = class_facts(facts, m.class_name, m.occurrence)
    if info is None:
        return f"class {m.class_name} not found in the facts"
    if any(base_name(b) == m.class_name for c in facts.classes for b in c.bases):
        return (
            f"another class of the module subclasses {m.class_name}: instantiating it would remove it "
            "from the module first; migrate by hand"
        )
    if any(m.class_name in d.args or d.target == m.class_name for d in facts.dynamic):
        return f"{m.class_name} is passed to a function at module level (line {next(d.line for d in facts.dynamic if m.class_name in d.args or d.target == m.class_name)}): migrate by hand"
    tests = test_methods(cls)
    taking = [(i, fn, p) for i, fn in tests if (p := device_parameter(fn)) is not None]
    if not taking:
        return f"no test written in {m.class_name}'s body takes `device` (inherited?): migrate by hand"
    if any(p.name.value == "devices" for _, _, p in taking):
        return "a test takes `devices` (several devices): migrate by hand"
    parametrized = next((fn for _, fn, p in taking if _parametrizes(fn, p.name.value)), None)
    if parametrized is not None:
        # `@parametrize("device", [...])` gives the test its device itself:
        # instantiating the class would ask the device framework for one
        # more, and the runtime would collect none of its tests.
        return (
            f"{parametrized.name.value} gets `device` from @parametrize, not from the device framework: migrate by hand"
        )
    bound = bindings(facts)
    defaults = {fn.name.value: default_device(p.default, bound) for _, fn, p in taking if p.default is not None}
    if defaults:
        kinds = set(defaults.values())
        if None in kinds or len(kinds) != 1 or len(defaults) != len(taking):
            return "the tests' `device` defaults differ or are computed: choose the classification by hand"
        (device,) = kinds
        assert device is not None
        others = _other_devices(info, device)
        if others:
            return f"the tests default to {device!r} but the class also uses {others}: classify it by hand"
        member = next((c for c in state.config.classifications if c == device.upper()), None)
        if member is None:
            return f"every `device=` default is {device!r}, which is not a configured classification: add it to `classifications`"
        if device == "cpu":
            return "every `device=` default is 'cpu': a CPU class is not instantiated for CPU by this migration"
        # A device class is instantiated only_for its device (HWC101/HWC111,
        # TEST_LINTER's device-class rules): the framework then passes
        # `device`, and the defaults go.
        given = given_device(cls, device, drop_defaults=True, bound=bound)
        if isinstance(given, str):
            return given
        clash = name_clash(cls, (device,), state.config.extend_devices)
        if clash is not None:
            return clash
        new_body, _ = given
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
            instantiated_names(m.class_name, (device_type(device, state.config.extend_devices),)),
        )
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
            return "ACCELERATOR is not a configured classification"
        clash = name_clash(cls, instantiable(False, False), state.config.extend_devices)
        if clash is not None:
            return clash
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
    uses = [s for s in (*info.probes, *info.devices, *info.requires, *info.distributed)]
    if uses:
        return (
            f"no test uses its `device`, but the class uses an accelerator ({uses[0].text}, line {uses[0].line}): "
            "instantiate it (ACCELERATOR) or classify it by hand"
        )
    if "GENERIC" not in state.config.classifications:
        return "GENERIC is not a configured classification"
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
    from hwlint.rules.infer import _probe_device

    for site in (*info.probes, *info.devices):
        found = _probe_device(site.text)
        if found is not None and found != device.upper():
            return f"{site.text} (line {site.line})"
    return ""


def one_default(data: bytes, m: Migration, bound: Mapping[str, str]) -> str | None:
    """The accelerator every `device=` default of the class's tests names, if one does."""
    body = parse_module(data, MigrateError).body
    where = find_class(body, m.class_name, m.occurrence)
    if isinstance(where, str):
        return None
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    params = [p for _, fn in test_methods(cls) if (p := device_parameter(fn)) is not None]
    found = {default_device(p.default, bound) if p.default is not None else None for p in params}
    if len(found) != 1:
        return None
    (device,) = found
    return device if device not in (None, "cpu") else None
