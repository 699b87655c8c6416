"""The tests of ACCELERATOR classes migrated: `@onlyCUDA`-style decorators
on a test whose body names no device become `@onlyAccelerator`
("only-accelerator"), a test without `device` gets it ("add-device"), and
tests bound to a device are moved (hwlint.fix.migrate.move_tests)."""

from __future__ import annotations

import re
from typing import Sequence

import libcst as cst

from hwlint.core.config import Config
from hwlint.facts import ModuleFacts
from hwlint.fix.edits import dotted, ensure_import
from hwlint.fix.migrate.evidence import device_words
from hwlint.fix.migrate.framework import DEVICE_TYPE_MODULE, ONLY_ACCELERATOR
from hwlint.fix.migrate.move_tests import move_target, move_tests
from hwlint.fix.migrate.outcome import Done, Refused
from hwlint.fix.migrate.parameters import with_device
from hwlint.fix.migrate.tree import class_facts, decorator_name, device_parameter, find_class, test_methods
from hwlint.fix.plan import REPLACEABLE, Migration, not_replaceable
from hwlint.fix.rewrite import dotted_expr
from hwlint.rules.device_decorator import DeviceDecorator, is_device_specific
from hwlint.rules.device_param import DeviceParam


def accelerator_tests(
    module: cst.Module, migrations: Sequence[Migration], config: Config, facts: ModuleFacts
) -> tuple[cst.Module, list[Done], list[Refused]]:
    """`module` with the tests of the ACCELERATOR classes migrated; `facts`
    are those of its bytes (a test's lines are its facts' line on: libcst's
    positions would cost a resolve of the whole module)."""
    words = device_words(config)
    allowed = frozenset(config.allowed_only_decorators)
    body: list[cst.BaseStatement] = list(module.body)
    done: list[Done] = []
    refused: list[Refused] = []
    needs_import = False
    seen: set[tuple[str, int]] = set()
    for m in migrations:
        if (m.class_name, m.occurrence) in seen:
            continue
        seen.add((m.class_name, m.occurrence))
        where = find_class(body, m.class_name, m.occurrence)
        if isinstance(where, str):
            refused.append(Refused(m, where))
            continue
        cls = body[where]
        assert isinstance(cls, cst.ClassDef)
        info = class_facts(facts, m.class_name, m.occurrence)
        if info is None:
            refused.append(Refused(m, f"class {m.class_name} not found in the facts"))
            continue
        if not any(i.class_name == m.class_name for i in facts.instantiations):
            refused.append(
                Refused(m, f"{m.class_name} is not passed to instantiate_device_type_tests: its tests get no `device`")
            )
            continue
        sites = [s.line for s in (*info.probes, *info.devices, *info.distributed)]
        lines: dict[str, int] = {}
        for method in info.methods:
            lines.setdefault(method.name, method.line)
        new_body = list(cls.body.body) if isinstance(cls.body, cst.IndentedBlock) else []
        # Tests that stay bound to a device: where they go (hwlint.fix.migrate._move).
        moving: dict[str | tuple[str, ...], list[tuple[int, cst.FunctionDef, int, list[str]]]] = {}
        for i, fn in test_methods(cls):
            specific = [d for d in fn.decorators if is_device_specific(decorator_name(d), allowed)]
            lacks = device_parameter(fn) is None
            if not specific and not lacks:
                continue
            line = lines.get(fn.name.value)
            if line is None:
                refused.append(Refused(m, f"{fn.name.value} is not among the facts' tests of {m.class_name}"))
                continue
            # The test as it would read without its @only* decorators: does
            # it still name a device, or use one (the facts' sites)?
            text = cst.Module(
                body=[fn.with_changes(decorators=[d for d in fn.decorators if d not in specific], leading_lines=[])]
            ).code
            named = words.search(text)
            end = line + cst.Module(body=[fn.with_changes(decorators=[], leading_lines=[])]).code.count("\n")
            used = next((s for s in sites if line <= s < end), None)
            generic = named is None and used is None
            why = f"names {named.group(0)!r}" if named is not None else f"uses a device at line {used}"
            new_fn = fn
            kept = False  # a device decorator stays: `device` is then not all that is missing
            if specific:
                names = [decorator_name(d) for d in specific]
                bad = [n for n in names if n not in REPLACEABLE]
                kept = bool(bad) or not generic
                target = move_target(specific) if kept else None
                if target is not None and not lacks:
                    moving.setdefault(target, []).append((i, fn, line, names))
                    continue
                if bad:
                    refused.append(Refused(m, not_replaceable(fn.name.value, bad[0]), line, DeviceDecorator.code))
                elif not generic:
                    refused.append(
                        Refused(
                            m,
                            f"{fn.name.value} is @{names[0]} and {why}: a test of that device; "
                            "move it to a class of that device",
                            line,
                            DeviceDecorator.code,
                        )
                    )
                else:
                    has = any(decorator_name(d) == ONLY_ACCELERATOR for d in fn.decorators)
                    decorators: list[cst.Decorator] = []
                    for d in fn.decorators:
                        if d is specific[0] and not has:
                            decorators.append(d.with_changes(decorator=cst.Name(ONLY_ACCELERATOR)))
                        elif d not in specific:
                            decorators.append(d)
                    new_fn = new_fn.with_changes(decorators=decorators)
                    needs_import = needs_import or not has
                    done.append(
                        Done(
                            "only-accelerator",
                            m.class_name,
                            line,
                            None,
                            f"{fn.name.value}: @{' @'.join(names)} -> @{ONLY_ACCELERATOR}",
                            method=fn.name.value,
                        )
                    )
            if lacks and not kept:
                params = with_device(fn.params)
                if params is None or any(decorator_name(d) in ("staticmethod", "classmethod") for d in fn.decorators):
                    refused.append(
                        Refused(m, f"{fn.name.value} has no `self` to put `device` after", line, DeviceParam.code)
                    )
                elif not generic:
                    refused.append(
                        Refused(
                            m,
                            f"{fn.name.value} takes no device and {why}: make it device-generic "
                            "or move it to a class of that device",
                            line,
                            DeviceParam.code,
                        )
                    )
                else:
                    new_fn = new_fn.with_changes(params=params)
                    done.append(
                        Done(
                            "add-device",
                            m.class_name,
                            line,
                            None,
                            f"{fn.name.value}: `device` added",
                            method=fn.name.value,
                        )
                    )
            new_body[i] = new_fn
        if isinstance(cls.body, cst.IndentedBlock):
            body[where] = cls.with_changes(body=cls.body.with_changes(body=new_body))
        placed = 0  # classes already moved out of this one: the next goes after them
        staying = {fn.name.value for _, fn in test_methods(cls)} - {
            fn.name.value for ts in moving.values() for _, fn, _, _ in ts
        }
        for target, tests in moving.items():
            made = move_tests(
                module, body, where, placed, m, target, tests, config, whole=not staying and len(moving) == 1
            )
            if isinstance(made, str):
                refused.extend(
                    Refused(m, f"{fn.name.value} is @{names[0]}; not moved: {made}", line, DeviceDecorator.code)
                    for _, fn, line, names in tests
                )
                continue
            moved, stay = made
            refused.extend(
                Refused(m, f"{fn.name.value} is @{names[0]}; not moved: {why}", line, DeviceDecorator.code)
                for fn, line, names, why in stay
            )
            done.extend(moved)
            placed += bool(moved) and moved[0].to_class != moved[0].class_name
    if not done:
        return module, done, refused
    module = module.with_changes(body=body)
    if needs_import:
        module, local = ensure_import(module, DEVICE_TYPE_MODULE, ONLY_ACCELERATOR)
        if local != ONLY_ACCELERATOR:
            module = module.visit(_Rename(ONLY_ACCELERATOR, local))
    if any(d.kind == "move-tests" and d.member == "ACCELERATOR" for d in done):
        # The decorators an ACCELERATOR subclass's except_for stands for.
        for name in ("onlyNativeDeviceTypes", "onlyOn"):
            module = _drop_unused_import(module, name)
    return module, done, refused


def _drop_unused_import(module: cst.Module, name: str) -> cst.Module:
    """`module` without `name` in its `from ... import` lists when nothing
    else names it any more (the moves dropped its last uses): flake8's
    F401 would report it. An import of it alone, or under another name,
    stays."""
    if len(re.findall(rf"\b{re.escape(name)}\b", module.code)) != 1:
        return module

    class Drop(cst.CSTTransformer):
        def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> cst.ImportFrom:
            if isinstance(updated_node.names, cst.ImportStar) or len(updated_node.names) < 2:
                return updated_node
            names = list(updated_node.names)
            for at, alias in enumerate(names):
                if alias.asname is None and dotted(alias.name) == name:
                    names.pop(at)
                    if at == len(names):  # it was last: the one now last keeps its comma (or none)
                        names[-1] = names[-1].with_changes(comma=alias.comma)
                    return updated_node.with_changes(names=names)
            return updated_node

    return module.visit(Drop())


class _Rename(cst.CSTTransformer):
    """`@onlyAccelerator` under the name the file imports it as."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__()
        self.old, self.new = old, new

    def leave_Decorator(self, original_node: cst.Decorator, updated_node: cst.Decorator) -> cst.Decorator:
        if isinstance(updated_node.decorator, cst.Name) and updated_node.decorator.value == self.old:
            return updated_node.with_changes(decorator=dotted_expr(self.new))
        return updated_node
