"""Fix: the plans of a check (hwlint.fix.plan) made, file by file, in the
process pool when there are enough: each file's rewrites (HWC201, with
`--unsafe`), classifications (HWC001) and string declarations (HWC002)
made with libcst (hwlint.fix.transform) and verified (hwlint.fix.verify),
then its migrations (hwlint.fix.migrate, `--unsafe`), judged with the real
rules (a migration that adds a finding, or a fix that puts an allowlisted
file over its budget, is refused).

A fixed file is written only if it parses and its facts show exactly the
intended classification on exactly the intended classes and declarations;
the write is atomic and happens only if the file did not change meanwhile.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from pathlib import Path
from typing import Iterable, Mapping

import libcst as cst

from hwlint.core.config import Config
from hwlint.core.diagnostics import Diagnostic, UserError
from hwlint.engine.api import CheckResult, run_resolver
from hwlint.facts import ModuleFacts
from hwlint.facts.read import ReadError, decode
from hwlint.fix.kinds import left_unclassified
from hwlint.fix.migrate.driver import migrate_source
from hwlint.fix.migrate.outcome import MigrateError, Refused
from hwlint.fix.plan import plan_fixes
from hwlint.fix.plan_records import FilePlan, SiteRewrite, Unfixed
from hwlint.fix.respell import respelt
from hwlint.fix.result import FileResult, FixError, FixReport
from hwlint.fix.rewrite import RewriteError, rewrite_source
from hwlint.fix.split_plan import plan_splits
from hwlint.fix.summary import refused_unfixed
from hwlint.fix.transform import decorator_names, fix_source, import_decorators
from hwlint.fix.trial import Trial
from hwlint.fix.verify import facts_of, verify, verify_migrations, verify_rewrites
from hwlint.infra.atomic import write_bytes_atomic
from hwlint.infra.pool import run_in_pool
from hwlint.rules import COUNTED
from hwlint.rules.device_specific_instantiation import device_of
from hwlint.rules.hardcoded_device import HardcodedDevice


def fix_file(root: Path, plan: FilePlan, before: ModuleFacts, config: Config) -> FileResult:
    """One file's plan made, nothing written: its rewrites, its fixes (each
    verified against `before`, the facts of the file as read), the backend
    decorators' import, its migrations (verified), then its misspelt
    devices respelt; what could not be made is in the FileResult, the
    file's bytes as they were."""
    outcome = _made(root, plan, before, config)
    mixed = _left_mixed(plan, outcome, config)
    if mixed:
        # Made again without them: their classification and migrations go.
        again = FilePlan(
            plan.path,
            [f for f in plan.fixes if f.class_name not in mixed],
            plan.rewrites,
            [m for m in plan.migrations if m.class_name not in mixed],
            plan.respellings,
        )
        outcome = _made(root, again, before, config)
        outcome.refused += tuple(mixed.values())
    if not plan.respellings or outcome.fixed is None or outcome.error is not None:
        return outcome
    # Last: they find their strings by their text, wherever the edits above moved them.
    try:
        outcome.fixed, outcome.respelt = respelt(outcome.fixed, plan.respellings)
    except MigrateError as exc:
        outcome.error = f"not respelt: {exc}"
    return outcome


def _left_mixed(plan: FilePlan, outcome: FileResult, config: Config) -> dict[str, Refused]:
    """The classes to leave unclassified, by name, each with the refusal
    that leaves it, as no classification fits them, for which the plan
    wrote one device's classification (`--unsafe`): a class of device-free
    tests and device tests that could not be split (classified so, it would
    be instantiated for that device alone, and its device-free tests would
    no longer run on the CPU runners they ran on: "split"); one that cannot
    be instantiated for its device (declared its, it would be a finding of
    its own: "device-tests")."""
    devices = {f.class_name for f in plan.fixes if device_of(f.member, config) not in (None, "cpu")}
    return {
        r.migration.class_name: r._replace(migration=r.migration._replace(member=""))
        for r in outcome.refused
        if r.migration.kind in ("split", "device-tests") and r.mixed and r.migration.class_name in devices
    }


def _made(root: Path, plan: FilePlan, before: ModuleFacts, config: Config) -> FileResult:
    """The plan made, but for its respellings."""
    path = root / plan.path
    try:
        original = path.read_bytes()
    except OSError as exc:
        return FileResult(plan.path, b"", None, plan.fixes, f"cannot read: {exc.strerror or exc}")
    fixed = original
    rewritten: tuple[SiteRewrite, ...] = ()
    not_rewritten: tuple[tuple[SiteRewrite, str], ...] = ()
    try:
        if plan.rewrites:
            # Rewrites first: they find their sites by the positions of the
            # file as read, and change columns, never lines.
            rewrites = decorator_names(original, plan.rewrites)
            fixed, rewritten, not_rewritten = rewrite_source(original, rewrites)
            if rewritten:
                verify_rewrites(before, facts_of(plan.path, fixed, config), rewritten)
        if plan.fixes:
            fixed = fix_source(fixed, plan.fixes, config)
            verify(plan.path, fixed, plan.fixes, before, config)
        # Last: the import may add a line, and the fixes above find their
        # places by the lines of the file as read.
        fixed = import_decorators(fixed, rewritten)
    except (FixError, RewriteError) as exc:
        return FileResult(plan.path, original, None, plan.fixes, str(exc))
    if not plan.migrations:
        return FileResult(plan.path, original, fixed, plan.fixes, None, rewritten, not_rewritten)
    # The migrations find classes by name, not by line: they come after
    # everything else, on the file the fixes made.
    try:
        outcome = migrate_source(fixed, plan.migrations, config, lambda data: facts_of(plan.path, data, config))
        if outcome.done:
            verify_migrations(
                facts_of(plan.path, fixed, config), facts_of(plan.path, outcome.fixed, config), outcome.done, config
            )
    except (MigrateError, RewriteError, cst.CSTValidationError) as exc:
        # (CSTValidationError: a node a migration built that libcst refuses,
        # e.g. a parameter without a default after one with: a refusal, not a crash.)
        refused = tuple(Refused(m, f"not migrated: {exc}") for m in plan.migrations)
        return FileResult(plan.path, original, fixed, plan.fixes, None, rewritten, not_rewritten, refused=refused)
    return FileResult(
        plan.path,
        original,
        outcome.fixed,
        plan.fixes,
        None,
        rewritten,
        not_rewritten,
        outcome.done,
        outcome.refused,
        outcome.moves,
        fixed,
    )


def write_fixed(root: Path, result: FileResult) -> str | None:
    """Write a fixed file atomically; an error message, or None."""
    if not result.changed:
        return None
    path = root / result.path
    try:
        if path.read_bytes() != result.original:
            return "the file changed while it was being fixed: run hwlint fix again"
        assert result.fixed is not None
        write_bytes_atomic(path, result.fixed)
    except OSError as exc:
        return f"cannot write: {exc.strerror or exc}"
    return None


def write_report(config: Config, report: FixReport) -> None:
    """Write the files of a report computed without writing (`fix
    --verify-runtime` writes only what it kept); a file that cannot be
    written is left for a human, saying why."""
    kept: list[FileResult] = []
    for outcome in report.files:
        error = write_fixed(config.root, outcome)
        if error is None:
            kept.append(outcome)
        else:
            report.unfixed.extend(
                Unfixed(outcome.path, f.line, f.class_name, f"not fixed: {error}") for f in outcome.fixes
            )
    report.files = kept
    report.written = True


def unified_diff(result: FileResult) -> str:
    """The file's fix as a unified diff (`fix --diff`); empty when either
    side does not decode."""
    before = decode(result.original)
    after = decode(result.fixed or result.original)
    if isinstance(before, ReadError) or isinstance(after, ReadError):
        return ""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{result.path}",
            tofile=f"b/{result.path}",
        )
    )


# Below this many files to rewrite, starting worker processes costs more than it saves.
_POOL_THRESHOLD = 8
# libcst takes a good part of a second on a big file: small tasks spread
# even a few files over the workers.
_FILES_PER_TASK = 2


def _fix_batch(
    batch: list[tuple[str, int]], config: Config, payloads: Mapping[str, tuple[FilePlan, ModuleFacts]]
) -> list[FileResult]:
    """The files of one task of the pool (hwlint.infra.pool), fixed."""
    return [fix_file(config.root, *payloads[path], config) for path, _ in batch]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # fix_file says why it cannot read it


def apply_fixes(
    config: Config,
    result: CheckResult,
    *,
    unsafe: bool = False,
    classes: Iterable[str] | None = None,
    write: bool = True,
    jobs: int | None = None,
) -> FixReport:
    """Fix the diagnostics of `result` that have a fix (HWC001, HWC002, and
    HWC201's rewrites, which are unsafe), for `hwlint fix` and `hwlint check
    --fix`; with `write=False`, compute the fixes only."""
    plans, unfixed = plan_fixes(result, unsafe=unsafe, classes=classes)
    if unsafe:
        plans, unfixed = plan_splits(result, plans, unfixed, set(classes) if classes else None)
    facts = {ctx.path: ctx.facts for ctx in result.contexts}
    report = FixReport(unfixed=list(unfixed), written=write)
    # libcst is most of a fix's time: files are rewritten in parallel. The
    # writes stay in this process, in the order of the plans (the pool
    # finishes files in any order; the report must not depend on --jobs),
    # each as soon as its file and those before it are done.
    outcomes = run_in_pool(
        _fix_batch,
        (config,),
        [(plan.path, _size(config.root / plan.path)) for plan in plans],
        jobs or os.cpu_count() or 1,
        None,
        len(plans),
        payloads={plan.path: (plan, facts[plan.path]) for plan in plans},
        batch_files=_FILES_PER_TASK,
        min_files=_POOL_THRESHOLD,
    )
    done: dict[str, FileResult] = {}
    recorded = 0
    migrating = [plan.path for plan in plans if plan.migrations]
    budgets = _budgets(result) if unsafe else {}
    trial = Trial(result) if migrating or budgets else None
    # The subclasses in other files of each migrating file's classes, once
    # for the run: migrations keep class names, so the run's facts tell.
    reached: dict[str, dict[str, set[tuple[str, str]]]] = {}
    if trial is not None:
        for sub, bases in trial.subclasses_elsewhere({path: facts[path] for path in migrating}).items():
            for base in bases:
                reached.setdefault(base[0], {}).setdefault(sub, set()).add(base)
    by_path = {plan.path: plan for plan in plans}
    for outcome in outcomes:
        if trial is not None and outcome.migrated:
            outcome = _judged(
                config, trial, by_path[outcome.path], facts[outcome.path], outcome, reached.get(outcome.path, {})
            )
        if trial is not None and outcome.path in budgets:
            outcome = _within_budget(
                config, trial, by_path[outcome.path], facts[outcome.path], outcome, budgets[outcome.path], report
            )
        done[outcome.path] = outcome
        while recorded < len(plans) and plans[recorded].path in done:
            _record(config, plans[recorded], done.pop(plans[recorded].path), report, write)
            recorded += 1
    return report


def _findings(diagnostics: Iterable[Diagnostic]) -> Counter[tuple[str, str | None, str | None]]:
    """Findings as a multiset that lines do not enter: a migration adds lines."""
    return Counter((d.code, d.class_name, d.method) for d in diagnostics)


def _judged(
    config: Config,
    trial: Trial,
    plan: FilePlan,
    before: ModuleFacts,
    outcome: FileResult,
    subclasses: Mapping[str, set[tuple[str, str]]],
) -> FileResult:
    """`outcome`, or the file fixed again without the migrations that add
    a finding (in the file, or in a subclass in another file) to what the
    file has once the other fixes are made; those are refused, saying what
    they would surface."""
    refused: list[Refused] = []
    migrations = list(plan.migrations)
    for _ in range(_MAX_RETRIES):
        if not outcome.migrated or outcome.premigration is None or outcome.fixed is None:
            break
        pre = facts_of(plan.path, outcome.premigration, config)
        post = facts_of(plan.path, outcome.fixed, config)
        extra = _findings(trial.lint(post)) - _findings(trial.lint(pre))
        new = [
            f"{code} ({cls}{'.' + method if method else ''})"
            for code, cls, method in sorted(extra, key=lambda k: (k[0], k[1] or "", k[2] or ""))
        ]
        culprits = {cls for _, cls, _ in extra}
        resolver = run_resolver(trial.result) if subclasses else None
        for path, bases in sorted(subclasses.items()):
            sub = resolver.module(path) if resolver is not None else None
            if sub is None:
                continue
            more = _findings(trial.lint(sub, {plan.path: post})) - _findings(trial.lint(sub, {plan.path: pre}))
            if more:
                new.extend(f"{code} ({cls}, in {path})" for code, cls, _ in sorted(more, key=str))
                culprits.update(name for _, name in bases)
        if not new:
            break
        migrated = {d.class_name for d in outcome.migrated}
        dropping = [m for m in migrations if m.class_name in (culprits & migrated or migrated)]
        shown = ", ".join(new[:3]) + (f" and {len(new) - 3} more" if len(new) > 3 else "")
        refused.extend(Refused(m, f"not migrated: it would surface {shown}") for m in dropping)
        migrations = [m for m in migrations if m not in dropping]
        outcome = fix_file(
            config.root, FilePlan(plan.path, plan.fixes, plan.rewrites, migrations, plan.respellings), before, config
        )
    else:
        refused.extend(Refused(m, "not migrated: its migrations kept surfacing findings") for m in migrations)
        outcome = fix_file(
            config.root, FilePlan(plan.path, plan.fixes, plan.rewrites, [], plan.respellings), before, config
        )
    if refused:
        outcome.refused = (*outcome.refused, *refused)
    return outcome


# Each retry drops at least one migration; a file rarely needs more than two.
_MAX_RETRIES = 4


def _budgets(result: CheckResult) -> dict[str, int]:
    """The budget of each allowlisted file (`fix` checks with the allowlist
    exempting nothing, so it is read here)."""
    allowlist = result.allowlist
    if allowlist is None:
        from hwlint.allowlist.model import load_allowlist

        try:
            allowlist = load_allowlist(result.config.root, result.config.allowlist, layout=False)
        except UserError:  # an unreadable list is check's to report, not fix's to guard
            return {}
    return {path: entry.budget for path, entry in allowlist.entries.items()}


def _within_budget(
    config: Config,
    trial: Trial,
    plan: FilePlan,
    before: ModuleFacts,
    outcome: FileResult,
    budget: int,
    report: FixReport,
) -> FileResult:
    """`outcome`, or, when it would put its allowlisted file over its budget
    (an unsafe ACCELERATOR whose tests keep their device decorators: one
    HWC001 becomes several HWC103), the file fixed again without the
    classes that keep findings: even `--unsafe` never turns a passing
    `check` into a failing one (the class is left, saying what it would
    surface, and the budget still counts it once)."""
    fixes, migrations = list(plan.fixes), list(plan.migrations)
    limit: int | None = None
    for _ in range(_MAX_RETRIES):
        if outcome.fixed is None or not outcome.changed:
            return outcome
        found = [d for d in trial.lint(facts_of(plan.path, outcome.fixed, config)) if d.code in COUNTED]
        if len(found) <= budget:
            return outcome
        if limit is None:
            # A file already over its budget (a class added since it was
            # listed) may still get the fixes that add nothing: linted only here.
            limit = max(budget, len([d for d in trial.lint(before) if d.code in COUNTED]))
        if len(found) <= limit:
            return outcome
        changed = {f.class_name for f in fixes} | {m.class_name for m in migrations}
        culprits = {d.class_name for d in found if d.class_name in changed}
        if not culprits:
            return outcome
        codes = ", ".join(sorted({d.code for d in found if d.class_name in culprits}))
        reason = (
            f"not applied: the file would have {len(found)} violations, over its budget of {limit} "
            f"({codes}): fix those tests first"
        )
        report.unfixed.extend(
            Unfixed(
                plan.path, f.line, f.class_name, reason, "over-budget", f.member, tuple(codes.split(", ")), code=f.code
            )
            for f in fixes
            if f.class_name in culprits
        )
        fixes = [f for f in fixes if f.class_name not in culprits]
        migrations = [m for m in migrations if m.class_name not in culprits]
        outcome = fix_file(
            config.root, FilePlan(plan.path, fixes, plan.rewrites, migrations, plan.respellings), before, config
        )
    return outcome


def _record(config: Config, plan: FilePlan, outcome: FileResult, report: FixReport, write: bool) -> None:
    """Write one fixed file (when asked) and note what came of it."""
    error = outcome.error
    if error is None and write:
        error = write_fixed(config.root, outcome)
    if error is not None:
        report.unfixed.extend(Unfixed(plan.path, f.line, f.class_name, f"not fixed: {error}") for f in plan.fixes)
        report.unfixed.extend(
            Unfixed(
                plan.path, r.line, r.class_name, f"not rewritten: {error}", "not-rewritten", code=HardcodedDevice.code
            )
            for r in plan.rewrites
        )
        return
    report.unfixed.extend(
        Unfixed(plan.path, r.line, r.class_name, f"not rewritten: {reason}", "not-rewritten", code=HardcodedDevice.code)
        for r, reason in outcome.not_rewritten
    )
    # A class not generalized keeps the one-device classification written
    # for it: classified, not left (`--format json` lists why, "not_generalized").
    # A test the plan already left (a decorator known not to be replaceable) is listed once.
    listed = {(u.path, u.line, u.class_name, u.reason) for u in report.unfixed if u.path == plan.path}
    migrated = {d.class_name for d in outcome.migrated}
    for r in outcome.refused:
        left = refused_unfixed(plan.path, r)
        if r.migration.kind == "generalize":
            kind = left_unclassified(r.migration.member, config.classifications)
            if kind is None:
                continue
            # No classification was written for it (its device is no configured
            # member, or its tests need an accelerator they do not name): it is left.
            left = left._replace(reason=f"{r.migration.evidence}; not generalized: {r.reason}", kind=kind)
        elif r.migration.kind == "split":
            if r.migration.member or r.migration.class_name in migrated:
                # Classified whole as before, or by the class's next migration
                # (`--format json` lists why it was not split: "not_split").
                continue
            left = left._replace(reason=f"{r.migration.evidence}; not split: {r.reason.removeprefix('not split: ')}")
        if (left.path, left.line, left.class_name, left.reason) not in listed:
            report.unfixed.append(left)
    if outcome.changed:
        report.files.append(outcome)
