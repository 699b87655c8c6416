"""Select: which test files and classes a runner with given hardware runs.

Built on `hwlint check`'s resolved contexts: a class is selected by its
*effective* classification (its own declaration, else the one it inherits),
exactly what the rules judge.

A class passed to `instantiate_device_type_tests` is not collected under
its own name: PyTorch removes it from the module and adds one class per
device type, named `<Class><DEVICE>` with the device type upper-cased
(`TestFooCUDA`, `TestFooCPU`). With a device, such classes are named the way
pytest collects them, and only when the instantiation covers the device
(`only_for`, `except_for`; MPS and XPU only with `allow_mps`/`allow_xpu`,
as `get_desired_device_type_test_bases` does).

A module also collects the test classes it imports (`from test_foo import
TestFoo`): unittest and pytest find them among its names, so they are
listed there too. Only classes that derive from a `TestCase` are collected:
a mixin with test methods is not.

A module where the runtime may collect classes hwlint cannot see
(hwlint.rules.uncertain) is listed in every selection, whole: a runner that runs
it when not needed loses a little time; one that drops it loses tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from hwlint.core.config import Config
from hwlint.core.diagnostics import UserError
from hwlint.engine.api import CheckResult, run_resolver
from hwlint.facts import ClassFacts, Instantiation
from hwlint.facts.collect import FactsSource
from hwlint.facts.devices import NATIVE_DEVICES
from hwlint.facts.resolve import ClassInfo, ModuleContext, Resolver
from hwlint.infra.runtime import RuntimeModule
from hwlint.rules.no_runner import test_methods
from hwlint.rules.uncertain import Generated, Reason, analyse, base_may_be_testcase

_NATIVE_DEVICES = NATIVE_DEVICES  # the device types PyTorch knows by name (hwlint.facts.devices)


@dataclass(frozen=True)
class Selected:
    """One selected test class: where it is, its effective classification,
    and the class pytest collects for it."""

    path: str  # root-relative
    class_name: str  # as written in the file
    classification: str | None  # effective; None when unclassified
    inherited_from: str | None
    instantiated: bool  # passed to instantiate_device_type_tests
    collected_as: str | None  # the class pytest collects; None: instantiated, but no device given
    imported_from: str | None = None  # the file that defines it, when the module imports it
    # Its test methods, own and inherited, each name once: what a shard of
    # `select --matrix` weighs it by. Parametrized expansions are not in the
    # facts, so a method counts once.
    methods: int = 1

    @property
    def node_id(self) -> str | None:
        return f"{self.path}::{self.collected_as}" if self.collected_as else None


@dataclass
class Selection:
    """What a runner runs: the selected classes, the warnings, and the files
    selected whole because the runtime may collect what hwlint cannot see."""

    members: tuple[str, ...]
    include_unclassified: bool
    device: str | None
    tests: list[Selected] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Files where the runtime may collect what hwlint cannot see: selected
    # whole whatever the members, with the reasons.
    uncertain: dict[str, list[Reason]] = field(default_factory=dict)

    @property
    def files(self) -> list[str]:
        return sorted({t.path for t in self.tests} | set(self.uncertain))

    def known(self) -> list[Selected]:
        """The selected classes outside uncertain files."""
        return [t for t in self.tests if t.path not in self.uncertain]


def canonical_members(config: Config, names: tuple[str, ...]) -> tuple[str, ...]:
    """The configured members `names` stand for, case-insensitively, aliases
    resolved; a UserError naming the valid ones otherwise."""
    known = {m.upper(): m for m in config.classifications}
    for alias, target in config.aliases.items():
        known.setdefault(alias.upper(), target)
    out: list[str] = []
    for name in names:
        member = known.get(name.strip().upper())
        if member is None:
            valid = ", ".join(config.classifications)
            extra = f" (aliases: {', '.join(sorted(config.aliases))})" if config.aliases else ""
            raise UserError(f"unknown classification {name!r}: expected one of {valid}{extra}")
        if member not in out:
            out.append(member)
    return tuple(out)


def default_device(members: tuple[str, ...]) -> str | None:
    """The device a runner that asks for `members` has, when exactly one of
    them names a device (`GENERIC CPU` -> cpu, `ACCELERATOR CUDA` -> cuda);
    None when none or several do. GENERIC and ACCELERATOR name none."""
    devices = [m.lower() for m in members if m not in ("GENERIC", "ACCELERATOR")]
    return devices[0] if len(devices) == 1 else None


def covers(call: Instantiation, device: str) -> bool | None:
    """Whether an instantiation creates the class for `device`; None when it
    cannot be told (only_for/except_for is not a literal)."""
    device = device.lower()

    def names(values: tuple[str, ...]) -> set[str]:
        lowered = {v.lower() for v in values}
        if "privateuse1" in lowered and device not in _NATIVE_DEVICES:
            lowered.add(device)
        return lowered

    if call.only_for is not None:
        if not call.only_for:
            return None
        if device not in names(call.only_for):
            return False
    if call.except_for is not None:
        if not call.except_for:
            return None
        if device in names(call.except_for):
            return False
    if device == "mps" and not call.allow_mps:
        return False
    if device == "xpu" and not call.allow_xpu:
        return False
    return True


class _Imported:
    """Classes that a module instantiates but imports from another file
    (`from test_ops import TestCommon` then `instantiate_device_type_tests(
    TestCommon, globals(), only_for="xpu")`, the way out-of-tree backends
    reuse PyTorch's tests), resolved with check's own Resolver."""

    def __init__(self, result: CheckResult) -> None:
        self.result = result
        self.checked = {ctx.path: ctx for ctx in result.contexts}
        self._resolver: Resolver | None = None

    def resolver(self) -> Resolver:
        if self._resolver is None:
            # The run's own resolver (its modules, and the files it reached);
            # a result built by hand has none: resolve over its contexts.
            config = self.result.config
            self._resolver = run_resolver(self.result) or Resolver(
                config, {path: ctx.facts for path, ctx in self.checked.items()}, FactsSource(config, jobs=1).load
            )
        return self._resolver

    def find(self, path: str, name: str) -> ClassInfo | None:
        found = self.find_where(path, name)
        return found[1] if found else None

    def find_where(self, path: str, name: str) -> tuple[str, ClassInfo] | None:
        """The class `name` means in `path`, and the file that defines it."""
        found = self.resolver().find_class(path, name)
        if found is None:
            return None
        where, facts = found
        ctx = self.checked.get(where)
        if ctx is None:
            module = self.resolver().module(where)
            if module is None:
                return None
            ctx = self.resolver().context(module)
        info = next((info for info in ctx.classes if info.facts == facts), None)
        return (where, info) if info is not None else None

    def classes_of(self, path: str, module: str, level: int) -> list[tuple[str, ClassInfo]]:
        """`from module import *`: the public classes of that project file."""
        target = self.resolver().locate(path, module, level)
        facts = self.resolver().module(target) if target else None
        if target is None or facts is None or facts.error is not None:
            return []
        ctx = self.checked.get(target) or self.resolver().context(facts)
        return [(target, info) for info in ctx.classes if not info.facts.name.startswith("_")]

    def instantiates(self, path: str, name: str) -> bool:
        """Whether `path` passes `name` to instantiate_device_type_tests, which
        removes it from the module: importing it from there fails."""
        facts = self.resolver().module(path)
        return facts is not None and any(call.class_name == name for call in facts.instantiations)

    def variable_classification(self, path: str, name: str) -> tuple[str, str] | None:
        """(class, file) of the first class in `name`'s bases, in another
        file than `path`, that sets its classification through a variable:
        what it inherits at run time, hwlint cannot tell."""
        stack = [(path, name)]
        seen: set[tuple[str, ClassFacts]] = set()
        while stack and len(seen) < 64:
            where, current = stack.pop()
            found = self.resolver().find_class(where, current)
            if found is None or found in seen:
                continue
            seen.add(found)
            home, facts = found
            if home != path and any(d.value.kind == "other" for d in facts.declarations):
                return facts.name, home
            if facts.declarations:
                continue  # its own declaration hides its bases'
            for dotted in facts.bases:
                base = self.resolver().find_base(home, dotted)
                if base is not None:
                    stack.append((base[0], base[1].name))
        return None

    def is_testcase(self, path: str, name: str, depth: int = 0) -> bool:
        """Whether the class may derive from unittest's TestCase, which is what
        unittest collects: a base hwlint cannot find counts as HWC112 counts
        it (hwlint.rules.uncertain.base_may_be_testcase); a mixin with no
        such base is not collected. A class with no base named `Test*` is
        pytest's own kind of test class."""
        found = self.resolver().find_class(path, name)
        if found is None or depth > 32:
            return True
        where, facts = found
        if not facts.bases and depth == 0 and facts.name.startswith("Test"):
            return True  # a plain `class TestFoo:` is a pytest test class
        for dotted in facts.bases:
            base = self.resolver().find_base(where, dotted) if dotted else None
            if base is None:
                if base_may_be_testcase(dotted):
                    return True
                continue
            if base[1].name != name or base[0] != where:
                if self.is_testcase(base[0], base[1].name, depth + 1):
                    return True
        return False


def select_tests(
    result: CheckResult,
    members: tuple[str, ...],
    *,
    include_unclassified: bool = False,
    device: str | None = None,
) -> Selection:
    """The test classes whose effective classification is one of `members`
    (canonical names, see canonical_members), in path order, then in the
    order of the source; classes a module imports and instantiates come
    after its own."""
    selector = _Selector(result, members, include_unclassified, device)
    for ctx in result.contexts:
        selector.module(ctx)
    return selector.selection


class _Selector:
    """select_tests' walk: each module's classes, the ones it makes at run
    time, instantiates from another file or imports, each considered once."""

    def __init__(
        self, result: CheckResult, members: tuple[str, ...], include_unclassified: bool, device: str | None
    ) -> None:
        self.wanted = set(members)
        self.include_unclassified = include_unclassified
        self.device = device
        self.selection = Selection(members, include_unclassified, device.lower() if device else None)
        self.imported = _Imported(result)
        self.reasons: list[Reason] = []  # the current module's

    def module(self, ctx: ModuleContext) -> None:
        """One module's selected classes, in the order pytest meets them, and
        why the runtime may collect more (Selection.uncertain)."""
        if ctx.facts.error is not None:
            self.selection.warnings.append(
                f"{ctx.path}: cannot be parsed ({ctx.facts.error.message}): none of its tests is selected"
            )
            return
        analysis = analyse(ctx)
        self.reasons[:] = analysis.reasons
        calls: dict[str, list[Instantiation]] = {}
        for call in ctx.facts.instantiations:
            if call.class_name:
                calls.setdefault(call.class_name, []).append(call)
        seen: set[str] = set()
        defined = {info.facts.name for info in ctx.classes}
        for info in ctx.classes:
            if (info.is_test or info.facts.name in analysis.gains_tests) and self.imported.is_testcase(
                ctx.path, info.facts.name
            ):
                self.consider(ctx.path, info, calls.get(info.facts.name, []), seen)
        self.generated(ctx, analysis.generated, calls, seen)
        for name, instantiations in calls.items():
            if name in defined:
                continue
            found = self.imported.find(ctx.path, name)
            if found is not None and found.is_test:
                self.consider(ctx.path, found, instantiations, seen)
        self.imports(ctx, defined, calls, seen)
        if self.reasons:
            self.selection.uncertain[ctx.path] = sorted(set(self.reasons), key=lambda r: (r.line, r.column))

    def generated(
        self, ctx: ModuleContext, made: tuple[Generated, ...], calls: dict[str, list[Instantiation]], seen: set[str]
    ) -> None:
        """The classes the module makes with a configured generator (hwlint.rules.uncertain)."""
        for one in made:
            base = self.imported.find(ctx.path, one.base)
            if base is None:
                self.reasons.append(
                    Reason(
                        one.line,
                        1,
                        "created-by-call",
                        f"{one.name} derives from {one.base}, which hwlint cannot find",
                    )
                )
            elif base.is_test:
                self.consider(ctx.path, base, calls.get(one.name, []), seen, one.name, inherited_from=one.base)

    def imports(
        self, ctx: ModuleContext, defined: set[str], calls: dict[str, list[Instantiation]], seen: set[str]
    ) -> None:
        """The test classes the module imports: its namespace holds them, so
        the loaders collect them there too."""
        imported = self.imported
        for imp in ctx.facts.imports:
            if imp.name is None:
                continue
            if imp.name == "*":
                pairs = [
                    (where, info, info.facts.name)
                    for where, info in imported.classes_of(ctx.path, imp.module, imp.level)
                ]
            else:
                found_where = imported.find_where(ctx.path, imp.asname)
                pairs = [(found_where[0], found_where[1], imp.asname)] if found_where else []
            for where, info, local in pairs:
                if (
                    where == ctx.path
                    or local in defined
                    or local in calls
                    or not info.is_test
                    or imported.instantiates(where, info.facts.name)
                    or not imported.is_testcase(where, info.facts.name)
                ):
                    continue
                self.consider(ctx.path, info, [], seen, local, imported_from=where)

    def consider(
        self,
        path: str,
        info: ClassInfo,
        instantiations: list[Instantiation],
        seen: set[str],
        name: str | None = None,
        imported_from: str | None = None,
        inherited_from: str | None = None,
    ) -> None:
        """`info` (collected as `name`) selected when its classification is
        wanted and, when it is instantiated, pytest collects it for the
        device; a classification it gets through a variable is a reason."""
        name = name or info.facts.name
        hidden = self.imported.variable_classification(path, info.facts.name if imported_from is None else name)
        if hidden is not None:
            self.reasons.append(
                Reason(
                    info.facts.line if imported_from is None else 1,
                    1,
                    "classification-variable",
                    f"{name} gets its classification from {hidden[0]} in {hidden[1]}, which sets it through a variable",
                    name,
                )
            )
        member = info.classification
        if member is None and not self.include_unclassified:
            return
        if member is not None and member not in self.wanted:
            return
        collected: str | None = name
        if instantiations:
            collected = self.collected_as(path, name, instantiations)
            if collected == "":
                return
        key = collected or name
        if key in seen:
            return  # defined twice (if/else): pytest collects one class
        seen.add(key)
        self.selection.tests.append(
            Selected(
                path,
                name,
                member,
                inherited_from or info.inherited_from,
                bool(instantiations),
                collected,
                imported_from,
                test_methods(info),
            )
        )

    def collected_as(self, path: str, name: str, instantiations: list[Instantiation]) -> str | None:
        """The name pytest collects an instantiated class under for the
        device (None without a device); "" when it is not created for it,
        or when that cannot be told (warned)."""
        device = self.device
        if device is None:
            return None
        answers = [covers(call, device) for call in instantiations]
        if True in answers:
            return name + device.upper()
        if None in answers:
            self.selection.warnings.append(
                f"{path}: cannot tell whether {name} is instantiated for {device} "
                "(only_for/except_for is not a literal): left out"
            )
        return ""  # not created for this device: pytest would not find it


def select_runtime(
    result: CheckResult,
    collected: Mapping[str, RuntimeModule],
    members: tuple[str, ...],
    *,
    include_unclassified: bool = False,
    device: str | None = None,
) -> Selection:
    """Like select_tests, from what the runtime collected (hwlint.infra.runtime):
    each class the module holds, with the classification it has at run time.
    A module that could not be collected keeps its static selection, and is
    uncertain with the reason."""
    static = select_tests(result, members, include_unclassified=include_unclassified, device=device)
    device = device.lower() if device else None
    selection = Selection(members, include_unclassified, device, warnings=static.warnings)
    wanted = set(members)
    counts = {(t.path, t.class_name): t.methods for t in static.tests}
    for ctx in result.contexts:
        path = ctx.path
        module = collected.get(path)
        if module is None or module.error is not None:
            why = module.error if module is not None and module.error else "not collected"
            selection.tests += [t for t in static.tests if t.path == path]
            selection.uncertain[path] = [Reason(1, 1, "import-failed", why), *static.uncertain.get(path, ())]
            continue
        for cls in module.classes:
            member = cls.classification if cls.valid else None
            if member is None and not include_unclassified:
                continue
            if member is not None and member not in wanted:
                continue
            device_type = cls.name[len(cls.generic) :].lower() if cls.generic else None
            if device is not None and device_type is not None and device_type != device:
                continue  # made for another device of this machine
            name = cls.generic or cls.name
            origin = cls.file if cls.file != path else None
            methods = counts.get((path, name), 1)
            selection.tests.append(
                Selected(path, name, member, None, cls.generic is not None, cls.name, origin, methods)
            )
    return selection
