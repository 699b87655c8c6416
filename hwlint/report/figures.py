"""Report: the migration's figures, as one plain dict.

A pure function of what `hwlint check` computed (its contexts and
diagnostics), the allowlist, and optionally the allowlist's history: no
second analysis. The dict's keys are the JSON keys the spec promises
(dashboards read them); every format draws from this dict and nothing else,
through the layout (hwlint.report.layout) or, for json, as it is.

What the figures count:

- `files_checked`: test files linted (include/exclude applied).
- `files_allowlisted`: entries in the allowlist, the number that must reach
  zero (an entry whose file is gone still counts: it still has to go).
- `baseline`: the allowlist's size when the migration began. `--baseline`,
  else `baseline` in the configuration, else the most entries the list has
  had in git history (its adoption), else its current size; never a
  built-in number. `baseline_source` says which (`option`, `configuration`,
  `history`, `allowlist`). The current size wins over a smaller history:
  entries added and not committed yet are part of the start.
- `percent_migrated`: (baseline - allowlisted) / baseline × 100, clamped to
  0..100, one decimal. 100.0 means done, so it is never shown while work is
  left (entries, files failing outside the allowlist, unclassified classes):
  it stops at 99.9. With a baseline of 0 (no list, ever) it is 100.0 when
  nothing is left and 0.0 otherwise.
- `files_failing`: test files that `hwlint check` fails on although the
  allowlist does not cover them (not listed, or unparsable: HWC000 is never
  exempt). Zero in a project whose CI passes.
- `classes_classified` / `percent_classified`: test classes with a valid
  classification, of all test classes (100.0 only when every one is).
- classes: test classes in the checked files, by *effective* classification
  (own declaration, else inherited). A class whose declaration is invalid
  (HWC002) is unclassified.
- `violations_by_code`: every violation in every checked file, allowlisted
  files included (what `hwlint check --no-allowlist` prints): that is the
  work left. The allowlist's own rules (HWC3xx) are about the list, not the
  tests, and are not counted.

The figures are the JSON document; what the other formats show of them (a
headline and ordered sections) is hwlint.report.layout's.
"""

from __future__ import annotations

import os
from collections import Counter
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any, Iterable, Literal, NamedTuple

from hwlint import __version__
from hwlint.allowlist.history import HistoryPoint, Projection, project_zero, projection_gap
from hwlint.allowlist.model import counted
from hwlint.core.diagnostics import UserError
from hwlint.engine.api import CheckResult
from hwlint.facts.devices import coverage
from hwlint.rules import ALLOWLIST_RULES

if TYPE_CHECKING:
    from hwlint.allowlist.phases import PhaseStatus
    from hwlint.core.config import Config

TOP_FILES = 10
# Where the baseline came from (`baseline_source`; see the module's docstring).
BaselineSource = Literal["option", "configuration", "history", "allowlist"]


def report_time() -> datetime:
    """Now, unless SOURCE_DATE_EPOCH pins it (reproducible builds' variable:
    golden tests and reproducible artifacts set it)."""
    pinned = os.environ.get("SOURCE_DATE_EPOCH")
    if pinned:
        try:
            return datetime.fromtimestamp(int(pinned), tz=timezone.utc)
        except (ValueError, OverflowError, OSError):
            raise UserError(f"SOURCE_DATE_EPOCH must be a number of seconds since 1970, got {pinned!r}") from None
    return datetime.now(timezone.utc)


def percent_migrated(baseline: int, allowlisted: int, work_left: bool | None = None) -> float:
    """(baseline - allowlisted) / baseline as a percentage (see the module's
    docstring). `work_left` defaults to "entries remain"; the report also
    counts failing files and unclassified classes."""
    left = allowlisted > 0 if work_left is None else work_left or allowlisted > 0
    if baseline <= 0:
        return 0.0 if left else 100.0
    return _share(baseline - allowlisted, baseline, left)


def resolve_baseline(
    option: int | None, configured: int | None, largest: int | None, entries: int
) -> tuple[int, BaselineSource]:
    """The baseline and where it came from (`baseline_source`): the option,
    else the configuration, else the list's largest size in git history,
    else (no history, or a smaller one) its current size."""
    if option is not None:
        return option, "option"
    if configured is not None:
        return configured, "configuration"
    if largest is not None and largest >= entries:
        return largest, "history"
    return entries, "allowlist"


def _share(part: int, whole: int, left: bool) -> float:
    """part / whole in percent, clamped to 0..100, one decimal, and below 100
    while work is left (rounding must not print 100.0 for 1 file in 2,000)."""
    share = round(min(100.0, max(0.0, part / whole * 100)), 1)
    return min(share, 99.9) if left else share


def _directory(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else "."


class ClassTally(NamedTuple):
    """The test classes of the checked files, counted by effective
    classification and by directory (the `classes_*`, `directories` and
    `top_files` figures)."""

    by_member: Counter[str]
    unclassified: int
    directories: list[dict[str, Any]]  # most work left first
    top_files: list[dict[str, Any]]  # the TOP_FILES files with the most unclassified classes

    @property
    def total(self) -> int:
        return sum(self.by_member.values()) + self.unclassified

    @property
    def classified(self) -> int:
        return self.total - self.unclassified

    def percent_classified(self) -> float:
        total = self.total
        return _share(self.classified, total, bool(self.unclassified)) if total else 100.0


def tally_classes(result: CheckResult, listed: list[str]) -> ClassTally:
    """Count the test classes of `result`'s files, and each directory's
    files, allowlisted files (of `listed`), classes and unclassified ones."""
    listed_set = set(listed)
    by_member: Counter[str] = Counter()
    unclassified = 0
    dirs: dict[str, dict[str, Any]] = {}
    files: list[dict[str, Any]] = []

    def directory(path: str) -> dict[str, Any]:
        key = _directory(path)
        if key not in dirs:
            dirs[key] = {"path": key, "files": 0, "allowlisted": 0, "classes": 0, "unclassified": 0}
        return dirs[key]

    for ctx in result.contexts:
        row = directory(ctx.path)
        row["files"] += 1
        classes = missing = 0
        for info in ctx.test_classes():
            classes += 1
            if info.classification is None:
                missing += 1
            else:
                by_member[info.classification] += 1
        unclassified += missing
        row["classes"] += classes
        row["unclassified"] += missing
        if missing:
            files.append(
                {"path": ctx.path, "classes": classes, "unclassified": missing, "allowlisted": ctx.path in listed_set}
            )
    for path in listed:
        directory(path)["allowlisted"] += 1
    # Remaining work first: files still allowlisted, then classes still to
    # classify; the path keeps ties stable.
    directories = sorted(dirs.values(), key=lambda d: (-d["allowlisted"], -d["unclassified"], d["path"]))
    top = sorted(files, key=lambda f: (-f["unclassified"], f["path"]))[:TOP_FILES]
    return ClassTally(by_member, unclassified, directories, top)


def failing_files(result: CheckResult, listed: set[str]) -> set[str]:
    """What `hwlint check` would fail on outside the list: an allowlisted
    file is exempt from the counted codes only (allowlist.apply_allowlist)."""
    return {
        d.path
        for d in result.diagnostics
        if d.code not in ALLOWLIST_RULES and (d.path not in listed or not counted(d.code))
    }


def _projection(history: list[HistoryPoint]) -> tuple[Projection | None, str | None]:
    """The projection to zero, and why there is none yet: too short a history
    gives a rate from seconds of work, so no date, and the report says why
    (projection_gap)."""
    gap = projection_gap(history)
    return (project_zero(history) if history and gap is None else None), gap


def _phase_statuses(
    config: Config, listed: list[str], phase_history: list[HistoryPoint] | None, on: date | None, now: datetime | None
) -> list[PhaseStatus]:
    """Each configured phase's status on `on` (default: the report's date)."""
    if not config.phases:
        return []
    from hwlint.allowlist.phases import phase_statuses

    return phase_statuses(config.phases, listed, phase_history, on or (now or report_time()).date(), config.source)


def _phase_burndown(status: PhaseStatus) -> dict[str, Any]:
    return {
        "name": status.phase.name,
        "points": [{"date": day, "files_left": n} for day, n in status.burndown],
        "files_per_day": None if status.pace is None else round(status.pace, 4),
    }


def build_report(
    result: CheckResult,
    allowlisted: Iterable[str],
    *,
    history: list[HistoryPoint] | None = None,
    baseline: int | None = None,
    largest: int | None = None,
    now: datetime | None = None,
    phase_history: list[HistoryPoint] | None = None,
    today: date | None = None,
) -> dict[str, Any]:
    """The report's figures. `result` comes from `run_check(...,
    use_allowlist=False)`, so that allowlisted files' violations are counted
    (see the module's docstring); `allowlisted` are the allowlist's paths;
    `history` the points to show (`--history`); `baseline` the `--baseline`
    option; `largest` the most entries the list has had in git history
    (history.largest_size), for when neither option nor configuration sets
    the baseline. `phase_history`: the history counted per migration phase
    (hwlint.allowlist.phases.phase_statuses), None without git; `today`: the date the
    phases are judged on (default: the report's date)."""
    config = result.config
    listed = sorted(set(allowlisted))
    history = history or []
    if largest is None and history:
        largest = max(p.allowlisted for p in history)
    start, source = resolve_baseline(baseline, config.baseline, largest, len(listed))
    classes = tally_classes(result, listed)
    violations = Counter(d.code for d in result.diagnostics if d.code not in ALLOWLIST_RULES)
    failing = failing_files(result, set(listed))
    projection, gap = _projection(history)
    phases = _phase_statuses(config, listed, phase_history, today, now)
    runners, orphans = _runner_coverage(result)
    work_left = bool(listed or failing or classes.unclassified)
    return {
        "version": __version__,
        "generated_at": (now or report_time()).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "root": str(config.root),
        "files_checked": result.files_checked,
        "files_allowlisted": len(listed),
        "baseline": start,
        "percent_migrated": percent_migrated(start, len(listed), work_left),
        "classes_total": classes.total,
        "classes_by_classification": {m: classes.by_member.get(m, 0) for m in config.classifications},
        "classes_unclassified": classes.unclassified,
        "violations_by_code": dict(sorted(violations.items())),
        "directories": classes.directories,
        "history": [p.to_dict() for p in history],
        "projected_zero_date": projection.date if projection else None,
        "phases": [status.to_dict() for status in phases],
        # Beyond the spec's keys: where the baseline came from, the figures
        # that keep percent_migrated honest, the "top files", and
        # how the projection was made, so that a dashboard can say them.
        "baseline_source": source,
        "files_failing": len(failing),
        "classes_classified": classes.classified,
        "percent_classified": classes.percent_classified(),
        "top_files": classes.top_files,
        "projection": projection.to_dict() if projection else None,
        # Each phase's burn-down (its files in each version of the list,
        # from its start), for the charts; `phases` keeps the spec's keys.
        "phase_burndown": [_phase_burndown(status) for status in phases],
        # Why there is no projected date yet (the history is too short), in
        # the words the other formats print; null when there is a date, or
        # no history was read.
        "projection_note": gap,
        # Runner coverage ([[tool.hwlint.runners]]): what each runner runs,
        # and the classified classes none runs (HWC401's findings); empty
        # lists without runners.
        "runners": runners,
        "orphans": orphans,
        **_device_figures(result),
    }


def _device_figures(result: CheckResult) -> dict[str, Any]:
    """The accelerator devices the tree uses that the configuration does not
    name (HWC003), with how many files use each, and the whole [tool.hwlint]
    settings that cover them (`hwlint devices --write`)."""
    found = result.unconfigured_devices()
    return {
        "unconfigured_devices": [{"name": name, "files": n} for name, n in found],
        "unconfigured_device_settings": coverage((name for name, _ in found), result.config).settings()
        if found
        else {},
    }


def _runner_coverage(result: CheckResult) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per configured runner, the test classes whose effective
    classification is among its members and their test methods (as HWC401
    and `select --matrix` count them); and the classified classes no runner
    selects, in path order."""
    from hwlint.rules.no_runner import runners_of, test_methods

    runners = result.config.runners
    if not runners:
        return [], []
    totals = {runner.name: [0, 0] for runner in runners}
    orphans = []
    for ctx in result.contexts:
        for info in ctx.test_classes():
            member = info.classification
            if member is None:
                continue
            chosen = runners_of(member, runners)
            for runner in chosen:
                totals[runner.name][0] += 1
                totals[runner.name][1] += test_methods(info)
            if not chosen:
                orphans.append({"path": ctx.path, "class_name": info.facts.name, "classification": member})
    rows = [
        {
            "name": r.name,
            "device": r.device,
            "members": list(r.members),
            "classes": totals[r.name][0],
            "tests": totals[r.name][1],
            "shards": r.shards,
        }
        for r in runners
    ]
    orphans.sort(key=lambda o: (o["path"], o["class_name"]))
    return rows, orphans
