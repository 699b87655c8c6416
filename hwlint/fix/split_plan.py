"""Which classes `hwlint fix --unsafe` tries to split by test
(hwlint.fix.migrate.split), from the facts alone: an unclassified class
one classification does not fit (its evidence is one of `SPLIT_KINDS`) and
whose tests may divide into device-free ones and device ones. The split
itself reads each test's lines and text, and says why when it does not
apply."""

from __future__ import annotations

from hwlint.core.diagnostics import Fix, NotFixable
from hwlint.engine.api import CheckResult
from hwlint.facts import ClassFacts
from hwlint.facts.devices import DEVICE_TEST_DECORATORS
from hwlint.fix.plan_records import FilePlan, Migration, Unfixed
from hwlint.rules.device_decorator import is_device_specific
from hwlint.rules.missing_classification import MissingClassification

# The kinds of evidence (hwlint.rules.infer.REASONS) of the classes a
# split by test is tried for (hwlint.fix.migrate.split), when their tests
# divide: one classification does not fit them all.
SPLIT_KINDS = frozenset(
    {"any-gpu", "mixed-accelerator-use", "some-tests-need-accelerator", "one-device", "instantiated"}
)


def plan_splits(
    result: CheckResult, plans: list[FilePlan], unfixed: list[Unfixed], wanted: set[str] | None
) -> tuple[list[FilePlan], list[Unfixed]]:
    """`plans` (hwlint.fix.plan.plan_fixes's, with `--unsafe`) with a
    "split" first among its file's migrations for each unclassified class
    whose evidence is one of SPLIT_KINDS and whose facts show both a test
    that may be device-free and one that is not (`_divides`), and that no
    other file imports or subclasses (the split takes its name away). A
    class left for a human ("mixed-accelerator-use") is then no longer
    listed as left: a refused split lists it, with why. The plans and the
    unfixed, without those."""
    by_path = {plan.path: plan for plan in plans}
    classes = {(ctx.path, c.name, c.line): (ctx.facts, c) for ctx in result.contexts for c in ctx.facts.classes}
    taken: set[tuple[str, str, int]] = set()
    for diag in result.diagnostics:
        fix = diag.fix
        if diag.code != MissingClassification.code or diag.class_name is None or fix is None:
            continue
        if (wanted is not None and diag.class_name not in wanted) or not isinstance(fix, (Fix, NotFixable)):
            continue
        found = classes.get((diag.path, diag.class_name, diag.line))
        if fix.kind not in SPLIT_KINDS or found is None:
            continue
        facts, cls = found
        instantiated = any(i.class_name == cls.name for i in facts.instantiations)
        # A GPU_TYPE class of a module that spells it its own way (`DEVICE =
        # GPU_TYPE`): which tests use it, the split finds (hwlint.fix.migrate.any_gpu_spellings).
        spelt = fix.kind == "any-gpu" and bool(facts.gpu_bindings) and len(cls.methods) > 1
        if not (spelt or _divides(cls, instantiated)) or _used_elsewhere(result, diag.path, cls.name):
            continue
        occurrence = [c for c in facts.classes if c.name == cls.name].index(cls)
        member = fix.classification if isinstance(fix, Fix) else ""
        evidence = fix.evidence if isinstance(fix, Fix) else fix.reason
        plan = by_path.get(diag.path)
        if plan is None:
            plan = by_path[diag.path] = FilePlan(diag.path)
        plan.migrations.insert(0, Migration("split", cls.name, occurrence, diag.line, evidence, member))
        taken.add((diag.path, diag.class_name, diag.line))
    left = [u for u in unfixed if not (u.kind == "mixed-accelerator-use" and (u.path, u.class_name, u.line) in taken)]
    return [by_path[p] for p in sorted(by_path)], left


def _used_elsewhere(result: CheckResult, path: str, name: str) -> bool:
    """Whether another file imports a name `name` or has a class with a base
    of that name (another module's class of that name blocks the split too:
    the facts do not say which module a base comes from)."""
    for ctx in result.contexts:
        if ctx.path == path:
            continue
        if any(i.name == name for i in ctx.facts.imports):
            return True
        if any(b.rsplit(".", 1)[-1] == name for c in ctx.facts.classes for b in c.bases):
            return True
    return False


def _divides(cls: ClassFacts, instantiated: bool) -> bool:
    """Whether the facts show a test that may be device-free (no site of an
    accelerator between the tests around it, no `device`, no device-type
    decorator) beside one that is not. The split reads each test's own
    lines and text (hwlint.fix.migrate.split), and says why it does not apply."""
    lines = [m.line for m in cls.methods]
    # A test's requirement is on its own decorators: the next test's line.
    guards = {s.line for s in cls.requires if s.kind == "test"}
    needed = {next((n for n in lines if n > line), 0) for line in guards}
    # A probe on a test's guard (`@skipIf(not TEST_CUDA, ...)`) is that test's, not the one before's.
    sites = [
        s.line
        for s in (*cls.probes, *cls.devices, *cls.distributed, *cls.requires)
        if s.kind != "test" and s.line not in guards
    ]
    free = device = 0
    for at, method in enumerate(cls.methods):
        # From its `def` to the next test's: its body, or a member that is no
        # test, or the next test's decorators up to its first guard (a probe
        # in its own decorators is missed: the split then finds it, and refuses).
        low = method.line - 1
        high = lines[at + 1] if at + 1 < len(lines) else cls.end_line + 1
        high = min((g for g in guards if low < g < high), default=high)
        if (
            method.line in needed
            or {"device", "devices"} & set(method.params)
            or any(d in DEVICE_TEST_DECORATORS or is_device_specific(d) for d in method.decorators)
            or (instantiated and any(d.startswith("parametrize") for d in method.decorators))
        ):
            device += 1
        elif any(low < s < high for s in sites):
            device += 1
        else:
            free += 1
    return bool(free) and (bool(device) or bool(sites))
