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
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hwlint.check import CheckResult
from hwlint.config import Config
from hwlint.diagnostics import UserError
from hwlint.collect import FactsSource
from hwlint.facts import Instantiation, ModuleFacts
from hwlint.resolve import ClassInfo, Resolver

# Device types PyTorch knows by name; any other device a runner names is a
# PrivateUse1 backend (npu, openreg, ...), which `only_for="privateuse1"` covers.
_NATIVE_DEVICES = frozenset({"cpu", "cuda", "meta", "mps", "xpu", "hpu", "lazy", "mtia", "xla"})


@dataclass(frozen=True)
class Selected:
    path: str  # root-relative
    class_name: str  # as written in the file
    classification: str | None  # effective; None when unclassified
    inherited_from: str | None
    instantiated: bool  # passed to instantiate_device_type_tests
    collected_as: str | None  # the class pytest collects; None: instantiated, but no device given

    @property
    def node_id(self) -> str | None:
        return f"{self.path}::{self.collected_as}" if self.collected_as else None


@dataclass
class Selection:
    members: tuple[str, ...]
    include_unclassified: bool
    device: str | None
    tests: list[Selected] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def files(self) -> list[str]:
        return sorted({t.path for t in self.tests})


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
            config = self.result.config

            self._resolver = Resolver(config, {path: ctx.facts for path, ctx in self.checked.items()},
                                      FactsSource(config, jobs=1).load)
        return self._resolver

    def find(self, path: str, name: str) -> ClassInfo | None:
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
        return next((info for info in ctx.classes if info.facts == facts), None)


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
    wanted = set(members)
    selection = Selection(members, include_unclassified, device.lower() if device else None)
    imported = _Imported(result)

    def consider(path: str, info: ClassInfo, instantiations: list[Instantiation], seen: set[str]) -> None:
        name = info.facts.name
        member = info.classification
        if member is None and not include_unclassified:
            return
        if member is not None and member not in wanted:
            return
        collected: str | None = name
        if instantiations:
            collected = None
            if device is not None:
                answers = [covers(call, device) for call in instantiations]
                if True in answers:
                    collected = name + device.upper()
                elif None in answers:
                    selection.warnings.append(
                        f"{path}: cannot tell whether {name} is instantiated for {device} "
                        "(only_for/except_for is not a literal): left out"
                    )
                    return
                else:
                    return  # not created for this device: pytest would not find it
        key = collected or name
        if key in seen:
            return  # defined twice (if/else): pytest collects one class
        seen.add(key)
        selection.tests.append(Selected(path, name, member, info.inherited_from, bool(instantiations), collected))

    for ctx in result.contexts:
        if ctx.facts.error is not None:
            selection.warnings.append(f"{ctx.path}: cannot be parsed ({ctx.facts.error.message}): none of its tests is selected")
            continue
        calls: dict[str, list[Instantiation]] = {}
        for call in ctx.facts.instantiations:
            if call.class_name:
                calls.setdefault(call.class_name, []).append(call)
        seen: set[str] = set()
        defined = {info.facts.name for info in ctx.classes}
        for info in ctx.test_classes():
            consider(ctx.path, info, calls.get(info.facts.name, []), seen)
        for name, instantiations in calls.items():
            if name in defined:
                continue
            found = imported.find(ctx.path, name)
            if found is not None and found.is_test:
                consider(ctx.path, found, instantiations, seen)
    return selection
