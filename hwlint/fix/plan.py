"""What `hwlint fix` will do, before libcst is imported: the plans per
file, from the typed fixes of the diagnostics, each tried first with the
real rules (hwlint.fix.trial) so that a safe fix never surfaces violations.

`hwlint fix` writes these plans (hwlint.fix.apply); `hwlint check` counts them
for its "N fixable" line, so that the number it prints is what `fix` does
for the errors it shows.
"""

from __future__ import annotations

from typing import Container, Iterable, NamedTuple

from hwlint.core.diagnostics import Diagnostic, Fix, FixInfo, NotFixable, Respell, Rewrite
from hwlint.engine.api import CheckResult
from hwlint.facts import ModuleFacts
from hwlint.fix.blocker import Blocker, base_blocker
from hwlint.fix.equivalents import rewrite_equivalent
from hwlint.fix.kinds import (
    INSTANTIATING,
    MigrationKind,
    left_unclassified,
    reason_kind,
    rewrite_kind,
)
from hwlint.fix.plan_records import ClassFix, FilePlan, Migration, Respelling, SiteRewrite, Unfixed
from hwlint.fix.trial import Declare, Surfaced, Trial
from hwlint.fix.unnamed import UnnamedDevices
from hwlint.rules.device_decorator import DeviceDecorator, is_device_specific
from hwlint.rules.missing_classification import MissingClassification
from hwlint.rules.torch_api import BY_TARGET, NoEquivalent

# -- planning ------------------------------------------------------------


def plan_fixes(
    result: CheckResult,
    *,
    unsafe: bool = False,
    classes: Iterable[str] | None = None,
    rewrite: bool = False,
    paths: Container[str] | None = None,
) -> tuple[list[FilePlan], list[Unfixed]]:
    """What to fix, per file, from the typed `fix` of the diagnostics of the
    fixable rules in `result`: a Fix adds a declaration or, when it names a
    `member`, replaces a string; a Rewrite (unsafe, so only with `unsafe`
    or `rewrite`) rewrites a hard-coded device; a NotFixable needs a human.

    Every fix is tried first with the real rules (hwlint.fix.trial): one that
    would surface violations (an instantiated class whose tests use
    @onlyCUDA is not ACCELERATOR yet) is not safe, whatever its evidence,
    and is left for a human with what it would surface; `unsafe` applies it
    all the same. `paths`: only the findings of those files (the fixable
    count plans the others where the workers judged them alone)."""
    wanted = set(classes) if classes else None
    planner = _Planner(result, _Index.of(result, paths), unsafe=unsafe, rewrite=rewrite)
    for diag in result.diagnostics:
        if paths is not None and diag.path not in paths:
            continue
        # A fixable rule's finding carries its fix, and so does an HWC302
        # that reports one beyond an allowlisted file's budget.
        if isinstance(diag.fix, Respell):
            if unsafe and wanted is None:  # a file's, not a class's
                planner.plan(diag.path).respellings.append(
                    Respelling(diag.line, diag.column, diag.fix.wrong, diag.fix.right)
                )
            continue
        if diag.fix is None or diag.class_name is None:
            continue
        if wanted is not None and diag.class_name not in wanted:
            continue
        planner.add(diag, diag.fix)
    plans, unfixed = planner.plans, planner.unfixed
    if not unsafe:
        unfixed.extend(_screen_all(Trial(result), planner.index.modules, plans))
    else:
        unfixed.extend(_plan_migrations(result, plans, wanted))
    return [plans[p] for p in sorted(plans) if any(plans[p].fields()[1:])], unfixed


class _Index(NamedTuple):
    """What planning looks up in the run's facts, per file."""

    modules: dict[str, ModuleFacts]
    # (path, class name, line) -> the class's occurrence among classes of its name
    occurrences: dict[tuple[str, str, int], int]
    # (path, line, column) of each declaration -> the occurrence of its class
    declarations: dict[tuple[str, int, int], int]
    instantiated: dict[str, set[str | None]]  # the classes each file instantiates per device
    # what, in the bases hwlint resolves, binds the class to a device (None: nothing)
    ancestors: dict[tuple[str, str, int], Blocker | None]
    imports_torch: dict[str, bool]
    unnamed: UnnamedDevices

    @classmethod
    def of(cls, result: CheckResult, paths: Container[str] | None = None) -> _Index:
        """The index of the facts of `result`'s modules (of those of `paths`)."""
        occurrences: dict[tuple[str, str, int], int] = {}
        declarations: dict[tuple[str, int, int], int] = {}
        modules: dict[str, ModuleFacts] = {}
        contexts = result.contexts if paths is None else [result.context(p) for p in result.paths() if p in paths]
        for ctx in contexts:
            modules[ctx.path] = ctx.facts
            seen: dict[str, int] = {}
            for c in ctx.facts.classes:
                occurrence = seen.get(c.name, 0)
                occurrences[(ctx.path, c.name, c.line)] = occurrence
                seen[c.name] = occurrence + 1
                for decl in c.declarations:
                    declarations.setdefault((ctx.path, decl.line, decl.column), occurrence)
        return cls(
            modules,
            occurrences,
            declarations,
            {ctx.path: {i.class_name for i in ctx.facts.instantiations} for ctx in contexts},
            {(ctx.path, c.facts.name, c.facts.line): base_blocker(c) for ctx in contexts for c in ctx.classes},
            {ctx.path: any(i.asname == "torch" for i in ctx.facts.imports) for ctx in contexts},
            UnnamedDevices.of(result),
        )


class _Planner:
    """The plans and what is left, built one diagnostic's typed fix at a time."""

    def __init__(self, result: CheckResult, index: _Index, *, unsafe: bool, rewrite: bool) -> None:
        self.result = result
        self.index = index
        self.unsafe = unsafe
        self.rewrite = rewrite
        self.plans: dict[str, FilePlan] = {}
        self.unfixed: list[Unfixed] = []
        self.replaced: set[tuple[str, int, int]] = set()

    def plan(self, path: str) -> FilePlan:
        return self.plans.setdefault(path, FilePlan(path))

    def occurrence(self, diag: Diagnostic) -> int:
        return self.index.occurrences.get((diag.path, diag.class_name or "", diag.line), 0)

    def base_blocker(self, diag: Diagnostic) -> Blocker | None:
        return self.index.ancestors.get((diag.path, diag.class_name or "", diag.line))

    def add(self, diag: Diagnostic, fix: FixInfo) -> None:
        """Plan `diag`'s typed fix, or note what it leaves for a human."""
        if isinstance(fix, NotFixable):
            self.not_fixable(diag, fix)
        elif isinstance(fix, Rewrite):
            self.site_rewrite(diag, fix)
        elif isinstance(fix, Fix):
            self.classification(diag, fix)

    def not_fixable(self, diag: Diagnostic, fix: NotFixable) -> None:
        """A migration with `--unsafe`, else a class left for a human."""
        assert diag.class_name is not None
        unsafe = self.unsafe and diag.code == MissingClassification.code
        migration = _MIGRATIONS.get(fix.kind) if unsafe else None
        device = (
            fix.device if fix.kind == "not-configured" else "ACCELERATOR" if fix.kind == "needs-accelerator" else ""
        )
        if device and unsafe and "ACCELERATOR" in self.result.config.classifications:
            # A class of a device that is no configured member, or one whose
            # tests need an accelerator but name none: only device-generic
            # (ACCELERATOR, instantiated) can classify it. (Refused at once,
            # with why, when a base binds it: only its own code is rewritten.)
            self.plan(diag.path).migrations.append(
                Migration(
                    "generalize",
                    diag.class_name,
                    self.occurrence(diag),
                    diag.line,
                    fix.reason,
                    device,
                    self.base_blocker(diag),
                )
            )
            return
        if migration is not None:
            self.plan(diag.path).migrations.append(
                Migration(migration, diag.class_name, self.occurrence(diag), diag.line, fix.reason)
            )
            return
        self.unfixed.append(
            Unfixed(diag.path, diag.line, diag.class_name, fix.reason, reason_kind(fix.kind), code=diag.code)
        )

    def site_rewrite(self, diag: Diagnostic, fix: Rewrite) -> None:
        """A hard-coded device rewritten (unsafe), or left saying why not."""
        assert diag.class_name is not None
        if not (self.unsafe or self.rewrite):
            self.unfixed.append(
                Unfixed(
                    diag.path,
                    diag.line,
                    diag.class_name,
                    f"unsafe rewrite of {fix.name} ({fix.evidence}): apply with --unsafe",
                    "unsafe-rewrite",
                    code=diag.code,
                )
            )
            return
        imports_torch = self.index.imports_torch[diag.path]
        if fix.target in BY_TARGET and not imports_torch:
            self.unfixed.append(
                Unfixed(diag.path, diag.line, diag.class_name, f"{fix.target} needs `import torch`", code=diag.code)
            )
            return
        found = rewrite_equivalent(fix, self.index.modules[diag.path].imports)
        if isinstance(found, NoEquivalent):
            self.unfixed.append(Unfixed(diag.path, diag.line, diag.class_name, found.reason, code=diag.code))
            return
        instantiated = diag.class_name in self.index.instantiated[diag.path]
        self.plan(diag.path).rewrites.append(
            SiteRewrite(
                diag.line,
                diag.column,
                rewrite_kind(fix.kind),
                fix.name,
                diag.class_name,
                instantiated,
                found,
                imports_torch,
            )
        )

    def classification(self, diag: Diagnostic, fix: Fix) -> None:
        """A declaration added or a string replaced; an unsafe one left
        without `--unsafe`; with it, a one-device class tried as device-generic first."""
        assert diag.class_name is not None
        generic = fix.classification == "GENERIC" and fix.member is None
        named = generic and self.index.unnamed.named_by(self.index.modules[diag.path], diag.class_name, diag.line)
        if named:
            # A module that registers the backend itself (`rename_privateuse1_backend("openreg")`)
            # is no evidence of that device alone: the project's other modules are.
            why = (
                f'names "{named}", a device other modules of the project use and the configuration does not '
                "name: GENERIC is not known; configure it (`hwlint devices --write`), then fix"
            )
            self.unfixed.append(Unfixed(diag.path, diag.line, diag.class_name, why, "not-configured", code=diag.code))
            return
        if fix.applicability == "unsafe" and not self.unsafe:
            self.unfixed.append(
                Unfixed(
                    diag.path,
                    diag.line,
                    diag.class_name,
                    f"unsafe fix to {fix.classification} ({fix.evidence}): apply with --unsafe",
                    "unsafe",
                    fix.classification,
                    evidence=fix.kind,
                )
            )
            return
        if fix.member is None and self.unsafe and fix.kind == "one-device" and diag.code == MissingClassification.code:
            # First try to make the class device-generic (hwlint.fix.migrate);
            # the one-device classification below stays if that is refused
            # (at once, with why, when a base binds it to its device).
            self.plan(diag.path).migrations.append(
                Migration(
                    "generalize",
                    diag.class_name,
                    self.occurrence(diag),
                    diag.line,
                    fix.evidence,
                    fix.classification,
                    self.base_blocker(diag),
                )
            )
        if fix.member is None:
            occurrence = self.occurrence(diag)
            name, text = "", ""
        else:
            position = (diag.path, diag.line, diag.column)
            if position in self.replaced:
                return  # one declaration in a loop over several classes: replaced once
            self.replaced.add(position)
            occurrence = self.index.declarations.get(position, 0)
            name, text = fix.member, fix.string or ""
        planned = ClassFix(
            diag.class_name,
            occurrence,
            fix.classification,
            fix.applicability,
            fix.evidence,
            diag.line,
            diag.column,
            diag.code,
            name,
            text,
        )
        self.plan(diag.path).fixes.append(planned)


# What `--unsafe` tries in place of leaving a class for a human: the kind of
# a NotFixable (hwlint.rules.infer.REASONS) -> the migration (hwlint.fix.migrate).
_MIGRATIONS: dict[str, MigrationKind] = {
    "only-for-several": "only-for",
    "only-for-unconfigured": "only-for",
    "device-not-instantiated": "device-param",
    "any-gpu": "any-gpu",
}


def _plan_migrations(result: CheckResult, plans: dict[str, FilePlan], wanted: set[str] | None) -> list[Unfixed]:
    """The migrations of the ACCELERATOR classes' tests (HWC102/HWC103:
    classes that are ACCELERATOR, or that a planned fix makes so), added to
    `plans`; and, returned, the device-parameter migrations given up
    because a class in another file subclasses the class (instantiating it
    removes it from its module)."""
    left = _subclassed_elsewhere(result, plans)
    allowed = frozenset(result.config.allowed_only_decorators)
    for ctx in result.contexts:
        plan = plans.get(ctx.path)
        planned = {(f.class_name, f.occurrence): f.member for f in plan.fixes} if plan else {}
        instantiated = {i.class_name for i in ctx.facts.instantiations}
        seen: dict[str, int] = {}
        for info in ctx.classes:
            cls = info.facts
            occurrence = seen.get(cls.name, 0)
            seen[cls.name] = occurrence + 1
            if not info.is_test or (wanted is not None and cls.name not in wanted):
                continue
            if cls.name not in instantiated:
                continue  # without instantiate_device_type_tests a `device` parameter has no value
            member = info.classification or planned.get((cls.name, occurrence))
            if member not in (None, "GENERIC", "ACCELERATOR"):
                # A class instantiated for its device: its tests take the `device` the framework passes.
                if any(not {"device", "devices"} & set(method.params) for method in cls.methods):
                    plans.setdefault(ctx.path, FilePlan(ctx.path)).migrations.append(
                        Migration("device-tests", cls.name, occurrence, cls.line, member=member)
                    )
                continue
            if member != "ACCELERATOR":
                continue
            candidates = 0
            for method in cls.methods:
                specific = [d for d in method.decorators if is_device_specific(d, allowed)]
                kept = [d for d in specific if d not in REPLACEABLE and d not in MOVABLE]
                if kept:
                    # Known without reading the test: no libcst for it.
                    left.append(
                        Unfixed(
                            ctx.path,
                            method.line,
                            cls.name,
                            not_replaceable(method.name, kept[0]),
                            "accelerator-tests",
                            code=DeviceDecorator.code,
                        )
                    )
                elif specific or not {"device", "devices"} & set(method.params):
                    candidates += 1
            if candidates:
                plans.setdefault(ctx.path, FilePlan(ctx.path)).migrations.append(
                    Migration("accelerator-tests", cls.name, occurrence, cls.line)
                )
    return left


def _subclassed_elsewhere(result: CheckResult, plans: dict[str, FilePlan]) -> list[Unfixed]:
    """The instantiating migrations given up (removed from `plans`) because
    a class in another file subclasses the class: instantiating it removes
    it from its module."""
    left: list[Unfixed] = []
    instantiating = {
        path: modules
        for path, modules in ((p, [m for m in plan.migrations if m.kind in INSTANTIATING]) for p, plan in plans.items())
        if modules
    }
    if instantiating:
        contexts = {ctx.path: ctx.facts for ctx in result.contexts if ctx.path in instantiating}
        subclassed = {base for bases in Trial(result).subclasses_elsewhere(contexts).values() for base in bases}
        for path, migrations in instantiating.items():
            for m in migrations:
                if (path, m.class_name) in subclassed:
                    plans[path].migrations.remove(m)
                    generalize, members = m.kind == "generalize", result.config.classifications
                    left_as = left_unclassified(m.member, members) if generalize else INSTANTIATING[m.kind]
                    if left_as is None:
                        continue  # the one-device classification is planned
                    left.append(
                        Unfixed(
                            path,
                            m.line,
                            m.class_name,
                            f"{m.evidence}; a class in another file subclasses it, so instantiating it "
                            "(which removes it from its module) would break that file: migrate by hand",
                            left_as,
                            code=MissingClassification.code,
                        )
                    )
    return left


# Decorators that keep a test to one accelerator (or two), and that
# @onlyAccelerator stands for once the test names no device
# (hwlint.fix.migrate). @onlyCPU and @onlyNativeDeviceTypes run it on CPU,
# @onlyOn names its devices: replacing them would lose runs.
REPLACEABLE = frozenset({"onlyCUDA", "onlyXPU", "onlyMPS", "onlyHPU", "onlyPRIVATEUSE1", "onlyCUDAAndPRIVATEUSE1"})


# Decorators that keep a test to one device (or to PyTorch's own device
# types), whose tests hwlint.fix.migrate moves to a subclass of that device.
MOVABLE = frozenset({"onlyCPU", "onlyCUDA", "onlyXPU", "onlyMPS", "onlyOn", "onlyNativeDeviceTypes"})


def not_replaceable(test: str, decorator: str) -> str:
    """Why a test's device decorator stays."""
    return f"{test} is @{decorator}, which runs it on CPU too or names its devices: keep it in a class of those devices"


# A subclass in another file may itself be a base elsewhere: a few rounds
# settle real trees; each round drops at least one fix.
_MAX_ROUNDS = 8


def _screen_all(trial: Trial, modules: dict[str, ModuleFacts], plans: dict[str, FilePlan]) -> list[Unfixed]:
    """Keep in `plans` only the fixes that surface nothing, in their own
    file or in subclasses in other files; the others are returned."""
    left: list[Unfixed] = []
    changed: dict[str, ModuleFacts] = {}
    for path, plan in plans.items():
        plan.fixes, dropped, changed[path] = _screen(trial, modules[path], plan.fixes)
        left.extend(dropped)
    for _ in range(_MAX_ROUNDS):
        reached = trial.reached({path: facts for path, facts in changed.items() if plans[path].fixes})
        if not reached:
            break
        judged: set[tuple[str, str]] = set()
        for base_path, base_name, where, new in reached:
            if (base_path, base_name) in judged:
                continue  # several subclasses: the first one says why
            judged.add((base_path, base_name))
            plan = plans[base_path]
            # The base's own fix; else the fixes of its file that it inherits.
            culprits = [f for f in plan.fixes if f.class_name == base_name] or list(plan.fixes)
            codes = tuple(sorted({d.code for d in new}))
            for f in culprits:
                text = Surfaced(Declare(f.class_name, f.occurrence, f.member), tuple(new)).describe(where)
                left.append(
                    Unfixed(
                        base_path,
                        f.line,
                        f.class_name,
                        f"not safe: {text} in {where.path}",
                        "surfaces",
                        f.member,
                        codes,
                    )
                )
            plan.fixes = [f for f in plan.fixes if f not in culprits]
            plan.fixes, dropped, changed[base_path] = _screen(trial, modules[base_path], plan.fixes)
            left.extend(dropped)
    return left


def _screen(
    trial: Trial, facts: ModuleFacts, fixes: list[ClassFix]
) -> tuple[list[ClassFix], list[Unfixed], ModuleFacts]:
    """The fixes that surface nothing in their file, the others as Unfixed
    saying what they would surface, and the file's facts with the kept ones."""

    def declare(f: ClassFix) -> Declare:
        return Declare(f.class_name, f.occurrence, f.name if f.replaces else f.member, f.line, f.column, f.replaces)

    by_change = {declare(f): f for f in fixes}
    accepted, surfaced, state = trial.screen(facts, list(by_change))
    left = []
    for s in surfaced:
        f = by_change[s.change]
        codes = tuple(sorted({d.code for d in s.diagnostics}))
        left.append(
            Unfixed(facts.path, f.line, f.class_name, f"not safe: {s.describe(facts)}", "surfaces", f.member, codes)
        )
    return [by_change[change] for change in accepted], left, state
