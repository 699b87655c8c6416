"""`hwlint fix --verify-runtime`: no test is lost, as PyTorch itself collects them.

Before `fix` writes anything, each module it changes is collected twice in
a child process of the project's Python (hwlint.infra.runtime: unittest's
loader, with collection-only test bases for CUDA, XPU and MPS, so that a
CPU machine sees what their runners collect): as the file is, and as the
fix would write it (imported from that text in the file's place). The test
ids before are mapped through the renames the fix makes:

- a class that `instantiate_device_type_tests` now makes per device:
  `TestFoo.test_x` → `TestFooCPU.test_x_cpu`, `TestFooCUDA.test_x_cuda`,
  ... (parametrize and dtype suffixes as PyTorch writes them, around the
  device: `test_x_cuda_float32`), derived from what the runtime collected;
- a class a migration moved, split or renamed (FileResult.moves): its
  tests under the new class, with the same per-device renames; a test
  collected per device before and once after (a split's GENERIC class)
  maps each device's id onto that one.

A test collected before that maps to nothing after is lost: the command
exits 1 and that file is not written. A test that a CPU runner collected
before, and no skip decorator skipped there, whose ids after are all in
classes of other devices (`only_for="cuda"`, `except_for="cpu"`) is
listed as off CPU runners: not lost (a skip in its body, which collection
does not see, may have kept it off CPU before), but for review. A module that does not import before
the fix (a dependency missing on CPU) is skipped, with the reason.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

from hwlint.facts.devices import MEMBER_ACCELERATORS
from hwlint.fix.plan_records import ClassMove, Unfixed
from hwlint.fix.result import FileResult, FixReport
from hwlint.infra.runtime import RuntimeClass, RuntimeModule, collect_served
from hwlint.rules.hardcoded_device import HardcodedDevice

# The device types whose runners the check collects for, besides the CPU.
DEVICES = MEMBER_ACCELERATORS


class ModuleCheck(NamedTuple):
    """What the runtime collects from one module before and after the fix."""

    path: str
    skipped: str | None = None  # why the module was not compared (it does not import before the fix)
    before: int = 0
    after: int = 0
    renamed: int = 0  # tests collected before under another id after
    per_device: tuple[str, ...] = ()  # ids after that per-device instantiation made of a test before
    added: tuple[str, ...] = ()  # ids after that no test before maps to
    lost: tuple[str, ...] = ()  # ids before that map to nothing after
    # ids before of moved one-device tests on other device types, where
    # their @only decorator skipped them: no longer collected there
    narrowed: tuple[str, ...] = ()
    # ids before, collected on a CPU runner and not skipped there at import,
    # whose tests after are only in classes of devices other than the CPU
    off_cpu: tuple[str, ...] = ()
    error: str | None = None  # the module no longer imports after the fix
    # The tests collected per device type ("": classes not made per device),
    # before and after: what each runner collects (`fix --pr-description`).
    before_devices: tuple[tuple[str, int], ...] = ()
    after_devices: tuple[tuple[str, int], ...] = ()


class RuntimeCheck(NamedTuple):
    """What the runtime collects from each module `fix` changes, before and
    after the fix, in the Python it ran (`--python`)."""

    python: str
    modules: tuple[ModuleCheck, ...]

    @property
    def lost(self) -> int:
        """The tests collected before that map to nothing after."""
        return sum(len(m.lost) for m in self.modules)

    def totals(self) -> dict[str, int]:
        """The modules and tests, counted over the modules compared."""
        checked = [m for m in self.modules if m.skipped is None]
        return {
            "modules": len(self.modules),
            "checked": len(checked),
            "skipped": len(self.modules) - len(checked),
            "tests_before": sum(m.before for m in checked),
            "tests_after": sum(m.after for m in checked),
            "renamed": sum(m.renamed for m in checked),
            "per_device": sum(len(m.per_device) for m in checked),
            "added": sum(len(m.added) for m in checked),
            "narrowed": sum(len(m.narrowed) for m in checked),
            "off_cpu": sum(len(m.off_cpu) for m in checked),
            "lost": self.lost,
        }

    def to_dict(self) -> dict[str, object]:
        """`fix --verify-runtime --format json`'s `verify_runtime`."""
        return {
            **self.totals(),
            "python": self.python,
            "skipped_modules": [{"path": m.path, "reason": m.skipped} for m in self.modules if m.skipped],
            "lost_tests": [f"{m.path}::{test}" for m in self.modules for test in m.lost],
            "modules_checked": [
                {
                    "path": m.path,
                    "before": m.before,
                    "after": m.after,
                    "renamed": m.renamed,
                    "per_device": list(m.per_device),
                    "added": list(m.added),
                    "lost": list(m.lost),
                    "narrowed": list(m.narrowed),
                    "off_cpu": list(m.off_cpu),
                    "error": m.error,
                }
                for m in self.modules
                if m.skipped is None
            ],
        }

    def summary(self) -> list[str]:
        """The totals in one line, then each module skipped, broken or losing tests."""
        t = self.totals()
        lines = [
            f"Runtime check ({self.python}): {t['checked']} of {t['modules']} changed module"
            f"{'s' if t['modules'] != 1 else ''} collected before and after, {t['skipped']} skipped; "
            f"{t['tests_before']} test{'s' if t['tests_before'] != 1 else ''} before, {t['tests_after']} after: "
            f"{t['renamed']} renamed, "
            f"{t['per_device']} newly per-device, {t['added']} new, {t['lost']} lost"
            + (
                f"; {t['narrowed']} no longer collected on device types their @only decorator skipped them on"
                if t["narrowed"]
                else ""
            )
            + (
                f"; {t['off_cpu']} no longer collected on CPU runners, where they ran before (no skip at import)"
                if t["off_cpu"]
                else ""
            )
            + "."
        ]
        for m in self.modules:
            if m.skipped:
                lines.append(f"  skipped {m.path}: {m.skipped}")
        for m in self.modules:
            if m.error:
                lines.append(f"  {m.path}: after the fix: {m.error}")
            lines.extend(f"  LOST {m.path}::{test}" for test in m.lost)
        off = [f"{m.path}::{test}" for m in self.modules for test in m.off_cpu]
        # A test may skip itself on CPU in its body, which collection does not see: listed for review, not lost.
        lines.extend(f"  OFF CPU {test}" for test in off[:_OFF_CPU_SHOWN])
        if len(off) > _OFF_CPU_SHOWN:
            lines.append(f"  ... and {len(off) - _OFF_CPU_SHOWN} more off CPU runners (`--format json`: off_cpu)")
        return lines


# The tests off CPU runners the summary names; `--format json` lists them all.
_OFF_CPU_SHOWN = 10


def _names(start: str, moves: Sequence[ClassMove]) -> set[str]:
    """`start` and every class its tests may have moved to (moves chain)."""
    found, todo = {start}, [start]
    while todo:
        current = todo.pop()
        for move in moves:
            if move.old == current and move.new not in found:
                found.add(move.new)
                todo.append(move.new)
    return found


def _per_device(test: str, device: str, name: str) -> bool:
    """Whether `name` is what instantiate_device_type_tests makes of
    `test` for `device`: `test_x` → `test_x_cuda`, `test_x_cuda_float32`."""
    stem = f"{test}_{device}"
    return name == stem or name.startswith(stem + "_")


def _skipped_there(cls: RuntimeClass, test: str, moves: Sequence[ClassMove]) -> bool:
    """Whether `test` of the per-device class `cls` is a moved one-device
    test on a device type it no longer runs on (its decorator skipped it
    there). PyTorch writes a parametrized test's name with the parameters
    before the device and the dtype after (`test_x_requires_grad_False_cuda_bool`):
    a name that is a moved test's, parameters, the device and a dtype is
    counted so (a test not moved whose name extends a moved one's, and that
    the fix loses, would be too: both are still listed in `narrowed`)."""
    if cls.generic is None or not cls.device_type:
        return False
    device = re.escape(cls.device_type)
    for move in moves:
        if move.old != cls.generic or not move.devices or cls.device_type in move.devices:
            continue
        if any(re.fullmatch(rf"{re.escape(t)}(?:_\w+?)??_{device}(?:_\w+)?", test) for t in move.tests):
            return True
    return False


def _merged(cls: RuntimeClass, test: str, names: set[str], after: dict[str, RuntimeClass]) -> set[str]:
    """The ids, in the classes `names` that are not made per device, of the
    test that `test` of the per-device class `cls` was made from."""
    assert cls.device_type is not None
    return {
        f"{name}.{t}"
        for name in names
        if name in after and after[name].generic is None and after[name].device_type is None
        for t in after[name].tests
        if _per_device(t, cls.device_type, test)
    }


def compare(path: str, before: RuntimeModule, after: RuntimeModule, moves: Sequence[ClassMove] = ()) -> ModuleCheck:
    """Map the tests collected before through the renames onto those
    collected after."""
    if before.error is not None:
        return ModuleCheck(path, skipped=before.error)
    ids_before = {f"{c.name}.{t}" for c in before.classes for t in c.tests}
    if after.error is not None:
        return ModuleCheck(
            path,
            before=len(ids_before),
            lost=tuple(sorted(ids_before)),
            error=after.error,
            before_devices=_by_device(before),
        )
    after_classes: dict[str, RuntimeClass] = {c.name: c for c in after.classes}
    ids_after = {f"{c.name}.{t}" for c in after.classes for t in c.tests}
    by_generic: dict[str, list[RuntimeClass]] = {}
    for cls in after.classes:
        if cls.generic is not None:
            by_generic.setdefault(cls.generic, []).append(cls)
    images: set[str] = set()
    per_device: set[str] = set()
    renamed = 0
    lost: list[str] = []
    narrowed: list[str] = []
    off_cpu: list[str] = []
    for cls in before.classes:
        # The names its tests may have now: moved, and the moved device
        # class of a device class (TestFooCUDA → TestBarCUDA).
        targets = _names(cls.name, moves)
        if cls.generic is not None and cls.device_type:
            suffix = cls.name[len(cls.generic) :]
            targets |= {new + suffix for new in _names(cls.generic, moves)}
        for test in cls.tests:
            own = f"{cls.name}.{test}"
            found = {
                f"{name}.{test}" for name in targets if name in after_classes and test in after_classes[name].tests
            }
            if cls.generic is not None and cls.device_type:
                # Per device before, in a class no longer instantiated now (a
                # split's GENERIC class): TestFooCUDA.test_x_cuda → TestFooGeneric.test_x.
                found |= _merged(cls, test, _names(cls.generic, moves) - {cls.generic}, after_classes)
            if cls.generic is None:
                # Instantiated per device now: TestFoo.test_x → TestFooCUDA.test_x_cuda
                # (a class of its own may set `device_type` too: inductor's `= GPU_TYPE`).
                for name in targets:
                    for device_cls in by_generic.get(name, ()):
                        made = {
                            f"{device_cls.name}.{t}"
                            for t in device_cls.tests
                            if device_cls.device_type and _per_device(test, device_cls.device_type, t)
                        }
                        found |= made
                        per_device |= made
            if not found:
                (narrowed if _skipped_there(cls, test, moves) else lost).append(own)
                continue
            if _off_cpu(cls, test, found, after_classes):
                off_cpu.append(own)
            images |= found
            if own not in found:
                renamed += 1
    added = ids_after - images - ids_before
    return ModuleCheck(
        path,
        before=len(ids_before),
        after=len(ids_after),
        renamed=renamed,
        per_device=tuple(sorted(per_device - ids_before)),
        added=tuple(sorted(added)),
        lost=tuple(sorted(lost)),
        narrowed=tuple(sorted(narrowed)),
        off_cpu=tuple(sorted(off_cpu)),
        before_devices=_by_device(before),
        after_devices=_by_device(after),
    )


def _off_cpu(cls: RuntimeClass, test: str, found: set[str], after: dict[str, RuntimeClass]) -> bool:
    """Whether `test` of `cls` ran on CPU runners before (a class of no
    device, or the CPU's; no skip decorator skipped it here) and its ids
    `found` after are all in classes of other devices (`only_for="cuda"`,
    `except_for="cpu"`): CPU runners no longer run it."""
    if cls.device_type not in (None, "cpu") or test in cls.skipped:
        return False
    return all(after[i.split(".", 1)[0]].device_type not in (None, "cpu") for i in found)


def _by_device(module: RuntimeModule) -> tuple[tuple[str, int], ...]:
    """The tests `module` collects per device type ("": not made per device)."""
    counts: dict[str, int] = {}
    for cls in module.classes:
        counts[cls.device_type or ""] = counts.get(cls.device_type or "", 0) + len(cls.tests)
    return tuple(sorted(counts.items()))


def verify_runtime(
    root: Path,
    results: Sequence[FileResult],
    *,
    python: str,
    attribute: str,
    timeout: float,
    jobs: int | None = None,
    devices: Iterable[str] = DEVICES,
) -> RuntimeCheck:
    """Collect each changed module as it is and as the fix would write it,
    and compare."""
    changed = [r for r in results if r.changed and r.fixed is not None]
    paths = [r.path for r in changed]
    device = ",".join(devices)
    before = collect_served(
        root,
        paths,
        python=python,
        attribute=attribute,
        timeout=timeout,
        jobs=jobs,
        device=device,
        sources={r.path: r.original for r in changed},
    )
    # Only what imports before is worth collecting after.
    again = [r for r in changed if before[r.path].error is None]
    after = collect_served(
        root,
        [r.path for r in again],
        python=python,
        attribute=attribute,
        timeout=timeout,
        jobs=jobs,
        device=device,
        sources={r.path: r.fixed for r in again if r.fixed is not None},
    )
    modules = tuple(compare(r.path, before[r.path], after.get(r.path, RuntimeModule(r.path)), r.moves) for r in changed)
    return RuntimeCheck(python, modules)


def withhold(report: FixReport, check: RuntimeCheck) -> None:
    """Take the files whose fix loses tests out of `report`: they are left
    for a human, with the tests they would lose."""
    losing = {m.path: m for m in check.modules if m.lost}
    if not losing:
        return
    kept: list[FileResult] = []
    for outcome in report.files:
        module = losing.get(outcome.path)
        if module is None:
            kept.append(outcome)
            continue
        shown = ", ".join(module.lost[:3]) + (", ..." if len(module.lost) > 3 else "")
        why = f" ({module.error})" if module.error else ""
        reason = (
            f"not written: after the fix the runtime does not collect {len(module.lost)} of its tests{why}: {shown}"
        )
        report.unfixed.extend(Unfixed(outcome.path, f.line, f.class_name, reason, "lost-tests") for f in outcome.fixes)
        report.unfixed.extend(
            Unfixed(outcome.path, r.line, r.class_name, reason, "lost-tests", code=HardcodedDevice.code)
            for r in outcome.rewritten
        )
    report.files = kept
