"""The tests of ACCELERATOR classes migrated: `@onlyCUDA`-style decorators
on a test whose body names no device become `@onlyAccelerator`
("only-accelerator"), a test without `device` gets it ("add-device"), and
tests bound to a device are moved (hwlint.fix.migrate.move_tests)."""

from __future__ import annotations

import re
import textwrap
from typing import Sequence

import libcst as cst

from hwlint.core.config import Config
from hwlint.facts import ClassFacts, ModuleFacts
from hwlint.fix.edits import ensure_import
from hwlint.fix.migrate.class_level import RenameDecorator
from hwlint.fix.migrate.evidence import device_words
from hwlint.fix.migrate.framework import DEVICE_TYPE_MODULE, ONLY_ACCELERATOR
from hwlint.fix.migrate.local_names import masked_local_names
from hwlint.fix.migrate.move_tests import MovingTest, move_target, move_tests
from hwlint.fix.migrate.outcome import Done, Refusal, Refused
from hwlint.fix.migrate.parameters import with_device
from hwlint.fix.migrate.split_members import code_without_prose
from hwlint.fix.migrate.tree import class_facts, decorator_name, device_parameter, find_class, test_methods
from hwlint.fix.migrate.triton_guard import asks_for_triton
from hwlint.fix.migrate.unused_imports import drop_unused_import
from hwlint.fix.plan import REPLACEABLE, not_replaceable
from hwlint.fix.plan_records import Migration
from hwlint.rules.device_decorator import DeviceDecorator, is_device_specific
from hwlint.rules.device_param import DeviceParam


def accelerator_tests(
    module: cst.Module, migrations: Sequence[Migration], config: Config, facts: ModuleFacts
) -> tuple[cst.Module, list[Done], list[Refused]]:
    """`module` with the tests of the ACCELERATOR classes migrated; `facts`
    are those of its bytes (a test's lines are its facts' line on: libcst's
    positions would cost a resolve of the whole module)."""
    body: list[cst.BaseStatement] = list(module.body)
    tests = _TestsMigrated(config)
    seen: set[tuple[str, int]] = set()
    for m in migrations:
        if (m.class_name, m.occurrence) in seen:
            continue
        seen.add((m.class_name, m.occurrence))
        tests.migrate_class(module, body, m, facts)
    done, refused = tests.done, tests.refused
    if not done:
        return module, done, refused
    module = module.with_changes(body=body)
    if tests.needs_import:
        module, local = ensure_import(module, DEVICE_TYPE_MODULE, ONLY_ACCELERATOR)
        if local != ONLY_ACCELERATOR:
            module = module.visit(RenameDecorator(ONLY_ACCELERATOR, local))
        # The decorators @onlyAccelerator replaced, once nothing names them (flake8's F401).
        for name in sorted(REPLACEABLE):
            module = drop_unused_import(module, name)
    if any(d.kind == "move-tests" and d.member == "ACCELERATOR" for d in done):
        # The decorators an ACCELERATOR subclass's except_for stands for.
        for name in ("onlyNativeDeviceTypes", "onlyOn"):
            module = drop_unused_import(module, name)
    return module, done, refused


# Tests that stay bound to a device, by where they go (move_target): a device, several, or NATIVE.
_Moving = dict[str | tuple[str, ...], list[MovingTest]]


class _TestsMigrated:
    """The tests of one module's ACCELERATOR classes migrated so far: the
    migrations made and refused, and whether `@onlyAccelerator` must be
    imported."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.words = device_words(config)
        # A test that asks for Triton names no device by naming it (hwlint.fix.migrate.triton_guard).
        self.words_asking = device_words(config, triton=False)
        self.allowed = frozenset(config.allowed_only_decorators)
        self.done: list[Done] = []
        self.refused: list[Refused] = []
        self.needs_import = False

    def migrate_class(
        self, module: cst.Module, body: list[cst.BaseStatement], m: Migration, facts: ModuleFacts
    ) -> None:
        """The tests of the class `m` names migrated in `body`, in place."""
        try:
            where = find_class(body, m.class_name, m.occurrence)
            cls = body[where]
            assert isinstance(cls, cst.ClassDef)
            info = _instantiated(m, facts)
        except Refusal as refusal:
            self.refused.append(refusal.of(m))
            return
        # Its local variables' and device-free helpers' names hidden (only
        # names: hwlint.fix.migrate.local_names), line for line.
        masked = masked_local_names(module.bytes, info.line, self.words).decode("utf-8", "replace").splitlines()
        moving = self._class_tests(body, where, cls, info, m, masked)
        self._moved(module, body, where, cls, m, moving)

    def _class_tests(
        self,
        body: list[cst.BaseStatement],
        where: int,
        cls: cst.ClassDef,
        info: ClassFacts,
        m: Migration,
        masked: list[str],
    ) -> _Moving:
        """The class's tests given `@onlyAccelerator` and `device` where
        they can be (in `body`); those bound to a device, by where they go."""
        # `torch.accelerator.synchronize()` runs on whichever accelerator the test has: no device's.
        sites = [
            s.line
            for s in (*info.probes, *info.devices, *info.distributed)
            if not (s.text.startswith("torch.accelerator.") and not s.name)
        ]
        lines: dict[str, int] = {}
        for method in info.methods:
            lines.setdefault(method.name, method.line)
        new_body = list(cls.body.body) if isinstance(cls.body, cst.IndentedBlock) else []
        moving: _Moving = {}
        for i, fn in test_methods(cls):
            specific = [d for d in fn.decorators if is_device_specific(decorator_name(d), self.allowed)]
            lacks = device_parameter(fn) is None
            if not specific and not lacks:
                continue
            line = lines.get(fn.name.value)
            if line is None:
                self.refused.append(Refused(m, f"{fn.name.value} is not among the facts' tests of {m.class_name}"))
                continue
            generic, why = self._generic(fn, specific, line, sites, masked)
            names = [decorator_name(d) for d in specific]
            bad = [n for n in names if n not in REPLACEABLE]
            # A device decorator stays: `device` is then not all that is missing.
            kept = bool(specific) and (bool(bad) or not generic)
            target = move_target(specific) if kept else None
            if target is not None and not lacks:
                moving.setdefault(target, []).append((i, fn, line, names))
                continue
            new_fn = fn
            try:
                if specific:
                    new_fn = self._only_accelerator(m, fn, line, specific, names, bad, generic, why)
            except Refusal as refusal:
                self.refused.append(refusal.of(m))
            try:
                if lacks and not kept:
                    new_fn = self._device_added(m, fn, new_fn, line, generic, why)
            except Refusal as refusal:
                self.refused.append(refusal.of(m))
            new_body[i] = new_fn
        if isinstance(cls.body, cst.IndentedBlock):
            body[where] = cls.with_changes(body=cls.body.with_changes(body=new_body))
        return moving

    def _generic(
        self, fn: cst.FunctionDef, specific: list[cst.Decorator], line: int, sites: list[int], masked: list[str]
    ) -> tuple[bool, str]:
        """Whether the test, as it would read without its @only* decorators,
        names no device and uses none (the facts' sites); and what it does
        name or use, for the refusals. `masked`: the module's lines with
        the names that are only names hidden (its own name is one too)."""
        bare = fn.with_changes(decorators=[d for d in fn.decorators if d not in specific], leading_lines=[])
        end = line + cst.Module(body=[bare.with_changes(decorators=[])]).code.count("\n")
        own = textwrap.dedent("\n".join(masked[line - 1 : end]) + "\n")
        try:
            hidden = cst.parse_statement(re.sub(rf"\bdef\s+{re.escape(fn.name.value)}\b", "def test", own, count=1))
        except cst.ParserSyntaxError:
            hidden = None
        if isinstance(hidden, cst.FunctionDef):
            bare = hidden.with_changes(decorators=bare.decorators)
        # Comments, docstrings and messages are prose: they name no device to run on.
        code = code_without_prose(bare)
        named = (self.words_asking if asks_for_triton(code) else self.words).search(code)
        used = next((s for s in sites if line <= s < end), None)
        why = f"names {named.group(0)!r}" if named is not None else f"uses a device at line {used}"
        return named is None and used is None, why

    def _only_accelerator(
        self,
        m: Migration,
        fn: cst.FunctionDef,
        line: int,
        specific: list[cst.Decorator],
        names: list[str],
        bad: list[str],
        generic: bool,
        why: str,
    ) -> cst.FunctionDef:
        """ "only-accelerator": the test's device decorators replaced by
        `@onlyAccelerator`; Refusal (HWC103's) when one is not replaceable
        or the test is one of that device."""
        if bad:
            raise Refusal(not_replaceable(fn.name.value, bad[0]), line, DeviceDecorator.code)
        if not generic:
            raise Refusal(
                f"{fn.name.value} is @{names[0]} and {why}: a test of that device; move it to a class of that device",
                line,
                DeviceDecorator.code,
            )
        has = any(decorator_name(d) == ONLY_ACCELERATOR for d in fn.decorators)
        decorators: list[cst.Decorator] = []
        for d in fn.decorators:
            if d is specific[0] and not has:
                decorators.append(d.with_changes(decorator=cst.Name(ONLY_ACCELERATOR)))
            elif d not in specific:
                decorators.append(d)
        self.needs_import = self.needs_import or not has
        self.done.append(
            Done(
                "only-accelerator",
                m.class_name,
                line,
                None,
                f"{fn.name.value}: @{' @'.join(names)} -> @{ONLY_ACCELERATOR}",
                method=fn.name.value,
            )
        )
        return fn.with_changes(decorators=decorators)

    def _device_added(
        self, m: Migration, fn: cst.FunctionDef, new_fn: cst.FunctionDef, line: int, generic: bool, why: str
    ) -> cst.FunctionDef:
        """ "add-device": `device` added to a test that names no device;
        Refusal (HWC102's) when it cannot take one or is a test of a device."""
        params = with_device(fn.params)
        if params is None or any(decorator_name(d) in ("staticmethod", "classmethod") for d in fn.decorators):
            raise Refusal(f"{fn.name.value} has no `self` to put `device` after", line, DeviceParam.code)
        if not generic:
            raise Refusal(
                f"{fn.name.value} takes no device and {why}: make it device-generic "
                "or move it to a class of that device",
                line,
                DeviceParam.code,
            )
        self.done.append(
            Done("add-device", m.class_name, line, None, f"{fn.name.value}: `device` added", method=fn.name.value)
        )
        return new_fn.with_changes(params=params)

    def _moved(
        self,
        module: cst.Module,
        body: list[cst.BaseStatement],
        where: int,
        cls: cst.ClassDef,
        m: Migration,
        moving: _Moving,
    ) -> None:
        """The tests bound to a device moved to a class of it
        (hwlint.fix.migrate.move_tests), each group in turn."""
        placed = 0  # classes already moved out of this one: the next goes after them
        staying = {fn.name.value for _, fn in test_methods(cls)} - {
            fn.name.value for ts in moving.values() for _, fn, _, _ in ts
        }
        for target, tests in moving.items():
            try:
                moved, stay = move_tests(
                    module, body, where, placed, target, tests, self.config, whole=not staying and len(moving) == 1
                )
            except Refusal as refusal:
                self.refused.extend(
                    Refused(
                        m, f"{fn.name.value} is @{names[0]}; not moved: {refusal.reason}", line, DeviceDecorator.code
                    )
                    for _, fn, line, names in tests
                )
                continue
            self.refused.extend(
                Refused(m, f"{fn.name.value} is @{names[0]}; not moved: {why}", line, DeviceDecorator.code)
                for fn, line, names, why in stay
            )
            self.done.extend(moved)
            placed += bool(moved) and moved[0].to_class != moved[0].class_name


def _instantiated(m: Migration, facts: ModuleFacts) -> ClassFacts:
    """The class's facts; Refusal when it is not instantiated (its tests get no `device`)."""
    info = class_facts(facts, m.class_name, m.occurrence)
    if info is None:
        raise Refusal(f"class {m.class_name} not found in the facts")
    if not any(i.class_name == m.class_name for i in facts.instantiations):
        raise Refusal(f"{m.class_name} is not passed to instantiate_device_type_tests: its tests get no `device`")
    return info
