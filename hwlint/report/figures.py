"""Report: the migration's figures, as one plain dict.

A pure function of what `hwlint check` computed (its contexts and
diagnostics), the allowlist, and optionally the allowlist's history: no
second analysis. The dict's keys are the JSON keys the spec promises
(dashboards read them); every renderer in hwlint/formats/report_*.py draws
from this dict and nothing else.

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

The report has two layers, both built here and only here. The figures
(`build_report`) are the JSON document. The layout (`layout`) is what the
other formats show: a headline and ordered sections, each with a title, a
note and blocks (paragraphs, tables, the burn-down chart). A renderer
draws blocks in its medium and never decides what a section holds, so every
format shows the same sections with the same figures; a new section is a
figure in `build_report` and a `Section` in `layout`. Long tables are cut
to their first TABLE_ROWS rows in `layout` too, with a "M more" line
(fold_rows); the JSON document keeps every row.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, replace
from datetime import date, datetime, timezone
from typing import Any, Iterable, Union

from hwlint import __version__
from hwlint.allowlist.history import MIN_PROJECTION_DAYS, HistoryPoint, project_zero, projection_gap
from hwlint.allowlist.model import counted
from hwlint.core.diagnostics import UserError
from hwlint.engine.api import CheckResult
from hwlint.facts.devices import coverage
from hwlint.report.time_axis import parse_iso, point_labels
from hwlint.rules import ALLOWLIST_RULES
from hwlint.rules.no_runner import NoRunner
from hwlint.rules.phase_overdue import PhaseOverdue
from hwlint.rules.unconfigured_device import UnconfiguredDevice

TOP_FILES = 10
# Rows a table shows in text, markdown and html before it folds into "M more"
# (`--all-rows` shows them all; json always has them all). PyTorch's test tree
# has about 50 folders: 15 is the next few weeks of work, and a GitHub job
# summary or a terminal screen shows them without scrolling past the rest.
TABLE_ROWS = 15


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


def resolve_baseline(option: int | None, configured: int | None, largest: int | None, entries: int) -> tuple[int, str]:
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
    listed_set = set(listed)
    history = history or []
    if largest is None and history:
        largest = max(p.allowlisted for p in history)
    start, source = resolve_baseline(baseline, config.baseline, largest, len(listed))
    members = list(config.classifications)
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

    violations = Counter(d.code for d in result.diagnostics if d.code not in ALLOWLIST_RULES)
    # What `hwlint check` would fail on outside the list: an allowlisted file
    # is exempt from the counted codes only (allowlist.apply_allowlist).
    failing = {
        d.path
        for d in result.diagnostics
        if d.code not in ALLOWLIST_RULES and (d.path not in listed_set or not counted(d.code))
    }
    classes_total = sum(by_member.values()) + unclassified
    classified = classes_total - unclassified
    # Remaining work first: files still allowlisted, then classes still to
    # classify; the path keeps ties stable.
    directories = sorted(dirs.values(), key=lambda d: (-d["allowlisted"], -d["unclassified"], d["path"]))
    top = sorted(files, key=lambda f: (-f["unclassified"], f["path"]))[:TOP_FILES]
    # Too short a history gives a rate from seconds of work: no date, and
    # the report says why (projection_gap).
    gap = projection_gap(history)
    projection = project_zero(history) if history and gap is None else None
    phases = []
    if config.phases:
        from hwlint.allowlist.phases import phase_statuses

        phases = phase_statuses(
            config.phases, listed, phase_history, today or (now or report_time()).date(), config.source
        )
    runners, orphans = _runner_coverage(result)
    found = result.unconfigured_devices()
    work_left = bool(listed or failing or unclassified)
    return {
        "version": __version__,
        "generated_at": (now or report_time()).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "root": str(config.root),
        "files_checked": result.files_checked,
        "files_allowlisted": len(listed),
        "baseline": start,
        "percent_migrated": percent_migrated(start, len(listed), work_left),
        "classes_total": classes_total,
        "classes_by_classification": {m: by_member.get(m, 0) for m in members},
        "classes_unclassified": unclassified,
        "violations_by_code": dict(sorted(violations.items())),
        "directories": directories,
        "history": [p.to_dict() for p in history],
        "projected_zero_date": projection.date if projection else None,
        "phases": [status.to_dict() for status in phases],
        # Beyond the spec's keys: where the baseline came from, the figures
        # that keep percent_migrated honest, the "top files", and
        # how the projection was made, so that a dashboard can say them.
        "baseline_source": source,
        "files_failing": len(failing),
        "classes_classified": classified,
        "percent_classified": _share(classified, classes_total, bool(unclassified)) if classes_total else 100.0,
        "top_files": top,
        "projection": projection.to_dict() if projection else None,
        # Each phase's burn-down (its files in each version of the list,
        # from its start), for the charts; `phases` keeps the spec's keys.
        "phase_burndown": [
            {
                "name": s.phase.name,
                "points": [{"date": day, "files_left": n} for day, n in s.burndown],
                "files_per_day": None if s.pace is None else round(s.pace, 4),
            }
            for s in phases
        ],
        # Why there is no projected date yet (the history is too short), in
        # the words the other formats print; null when there is a date, or
        # no history was read.
        "projection_note": gap,
        # Runner coverage ([[tool.hwlint.runners]]): what each runner runs,
        # and the classified classes none runs (HWC401's findings); empty
        # lists without runners.
        "runners": runners,
        "orphans": orphans,
        # The accelerator devices the tree uses that the configuration does
        # not name (HWC003), with how many files use each, and the whole
        # [tool.hwlint] settings that cover them (`hwlint devices --write`).
        "unconfigured_devices": [{"name": name, "files": n} for name, n in found],
        "unconfigured_device_settings": coverage((name for name, _ in found), config).settings() if found else {},
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


def rule_name(code: str) -> str:
    from hwlint.rules import BY_CODE

    rule = BY_CODE.get(code)
    return rule.name if rule is not None else ""


def burndown_series(history: list[dict[str, Any]], samples: int) -> list[tuple[datetime, int]]:
    """The burn-down as at most `samples` (instant, allowlisted) points for
    a chart whose x axis is evenly spaced (Mermaid's, a sparkline); label
    them with time_axis.point_labels.

    Up to `samples` commits are shown as they are (commits at the same
    instant, a phase's several commits of one day, as the last of them:
    the state they left). Beyond that, the step function "size of the list
    at time t" is read at evenly spaced instants between the first and the
    last commit, so that the chart's x axis is time, not commit count (ten
    commits in a day would otherwise look like ten days of work).
    """
    points: list[tuple[datetime, int]] = []
    for p in history:
        when = parse_iso(p["date"])
        if points and points[-1][0] == when:
            points[-1] = (when, p["allowlisted"])
        else:
            points.append((when, p["allowlisted"]))
    if len(points) <= samples:
        return points
    # Commit order is graph order; dates can step back (rebases), so read
    # the step function over the points sorted by date.
    ordered = sorted(((when.timestamp(), n) for when, n in points), key=lambda item: item[0])
    first, last = ordered[0][0], ordered[-1][0]
    series: list[tuple[datetime, int]] = []
    index = 0
    for k in range(samples):
        instant = first + (last - first) * k / (samples - 1)
        while index + 1 < len(ordered) and ordered[index + 1][0] <= instant:
            index += 1
        series.append((datetime.fromtimestamp(round(instant), tz=timezone.utc), ordered[index][1]))
    return series


def plan_at(plan: tuple[tuple[str, int], ...], day: str) -> float:
    """The files a phase's plan (straight lines between its (YYYY-MM-DD,
    files) points) allows on `day`, one decimal; flat outside them."""
    ordinal = date.fromisoformat(day[:10]).toordinal()
    points = [(date.fromisoformat(d).toordinal(), n) for d, n in plan]
    if ordinal <= points[0][0]:
        return float(points[0][1])
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if ordinal <= x1:
            return round(y0 + (y1 - y0) * (ordinal - x0) / max(1, x1 - x0), 1)
    return float(points[-1][1])


def projection_sentence(report: dict[str, Any]) -> str:
    """How the zero date was found, in one sentence (every format says it)."""
    projection = report.get("projection")
    date = report["projected_zero_date"]
    if report.get("projection_note"):
        return f"Projected zero: not yet — {report['projection_note']}."
    if projection is None:
        return "Projected zero: none (the history has fewer than two commits)."
    if projection["method"] == "reached":
        return f"Zero reached on {date}."
    rate = f"{projection['files_per_day']:+g} files/day"
    how = (
        f"the least-squares slope over the {projection['points']} allowlist commits within "
        f"{projection['window_days']} days of the newest, further back when those span less than "
        f"{MIN_PROJECTION_DAYS} days"
    )
    if date is None:
        return f"Projected zero: none, the allowlist is not shrinking ({rate}, {how})."
    return f"Projected zero: {date}, at {rate} ({how}), counting from the newest commit."


# ---- the layout: what text, markdown and html show ----

# How a phase's status is decided (hwlint.allowlist.phases), as every format says it.
PHASE_RULES = (
    f"Done: no file left. Overdue: files left after the due date ({PhaseOverdue.code}). At risk: at the phase's pace "
    "(its last 90 days) zero comes after the due date, or never. On track: zero by the due date, or no history "
    "to tell."
)


class Percent(float):
    """A percentage cell: a number (right-aligned like the others), shown with %."""

    def __str__(self) -> str:
        return f"{float(self)}%"


class Code(str):
    """A cell holding a path or a commit: shown as code where the medium can."""


Cell = Union[int, float, str]


@dataclass(frozen=True)
class Paragraph:
    """One sentence or two; `backticks` mark code."""

    text: str


@dataclass(frozen=True)
class Table:
    id: str  # stable: the html page's element id, which tests and links use
    headers: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    footer: tuple[Cell, ...] | None = None  # e.g. a total, computed here, never by a renderer
    empty: str = "None."  # shown instead of a table without rows
    # A list of details (the burn-down's commits): html and markdown fold it
    # under this summary.
    fold: str | None = None
    noun: tuple[str, str] = ("row", "rows")  # what a row is, singular and plural: "36 more directories"
    # Set by `layout` when rows were left out (TABLE_ROWS): the line every
    # format prints under the table, e.g. "36 more directories (...)".
    more: str | None = None


def fold_rows(table: Table, limit: int | None) -> Table:
    """The table's first `limit` rows, and a `more` line saying how many
    were left out and where to see them; the table itself when it is short
    enough or `limit` is None. The rows are already in the order that
    matters (most work first, newest first), so the first ones are kept."""
    if limit is None or len(table.rows) <= limit:
        return table
    left = len(table.rows) - limit
    noun = table.noun[0] if left == 1 else table.noun[1]
    more = f"{left} more {noun} (`--all-rows` shows every row; `--format json` lists them all)."
    return replace(table, rows=table.rows[:limit], more=more)


@dataclass(frozen=True)
class Chart:
    """The burn-down: the allowlist's size at each commit, until `until`.
    A phase's chart also has its `plan`: (date, files) points of the agreed
    pace, from the files at its start to zero on its due date."""

    history: tuple[dict[str, Any], ...]
    until: str
    title: str = "Files allowlisted"
    id: str = "chart"  # the html page's element id
    plan: tuple[tuple[str, int], ...] = ()


Block = Union[Paragraph, Table, Chart]


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    blocks: tuple[Block, ...]
    note: str | None = None  # what the section counts, under its title


@dataclass(frozen=True)
class Layout:
    figures: dict[str, Any]  # build_report's dict: the JSON document
    percent: float
    headline: tuple[str, str]  # (the figure, what it means), e.g. ("70.0% migrated", "3 files ...")
    sections: tuple[Section, ...]


# Where the baseline came from, as the Summary's note says it.
BASELINE_SOURCES = {
    "option": "Baseline: `--baseline`.",
    "configuration": "Baseline: `baseline` in the configuration.",
    "history": "Baseline: the most files the allowlist has listed in its git history (its adoption).",
    "allowlist": "Baseline: the allowlist's current size (git has no larger version of it).",
}


def _phases_section(f: dict[str, Any]) -> tuple[Section, ...]:
    """The Phases section: a table, then each phase's burn-down against its
    deadline (for the phases that had files in the history read)."""
    if not f.get("phases"):
        return ()
    table = Table(
        "phases",
        ("phase", "due", "status", "files left", "files at start", "projected done", "owners"),
        tuple(
            (
                p["name"],
                p["due"],
                p["status"],
                p["files_left"],
                "—" if p["files_at_start"] is None else p["files_at_start"],
                p["projected_done"] or "—",
                Code(", ".join(p["owners"])) if p["owners"] else "",
            )
            for p in f["phases"]
        ),
        noun=("phase", "phases"),
    )
    charts: list[Block] = []
    for index, (phase, burndown) in enumerate(zip(f["phases"], f["phase_burndown"]), start=1):
        points = burndown["points"]
        if not any(point["files_left"] for point in points):
            continue
        history = tuple({"date": f"{point['date']}T00:00:00Z", "allowlisted": point["files_left"]} for point in points)
        plan = ((points[0]["date"], phase["files_at_start"]), (phase["due"], 0))
        charts.append(
            Chart(
                history,
                f["generated_at"],
                f"{phase['name']}: files left (due {phase['due']})",
                f"phase-chart-{index}",
                plan,
            )
        )
    if not charts:
        charts.append(
            Paragraph("No burn-down: the allowlist's git history is not available, or no phase had files in it.")
        )
    return (Section("phases", "Phases", (table, *charts), note=PHASE_RULES),)


def _runners_section(f: dict[str, Any]) -> tuple[Section, ...]:
    """Runner coverage: what each configured runner runs, then the classes
    no runner runs (HWC401)."""
    if not f.get("runners"):
        return ()
    table = Table(
        "runners",
        ("runner", "device", "members", "classes", "tests", "shards"),
        tuple(
            (r["name"], Code(r["device"]), ", ".join(r["members"]), r["classes"], r["tests"], r["shards"])
            for r in f["runners"]
        ),
        noun=("runner", "runners"),
    )
    orphans = Table(
        "orphans",
        ("file", "class", "classification"),
        tuple((Code(o["path"]), o["class_name"], o["classification"]) for o in f["orphans"]),
        empty="None: every classified test class has a runner.",
        noun=("orphaned class", "orphaned classes"),
    )
    n = len(f["orphans"])
    said = Paragraph(
        (
            f"1 classified test class no runner selects ({NoRunner.code}): it never runs in CI."
            if n == 1
            else f"{n} classified test classes no runner selects ({NoRunner.code}): they never run in CI."
        )
        if n
        else "Every classified test class is selected by a runner."
    )
    note = (
        "Classes whose effective classification is among the runner's members; tests: their test methods "
        "(a parametrized method counts once)."
    )
    return (Section("runners", "Runner coverage", (table, said, orphans), note=note),)


def _devices_section(f: dict[str, Any]) -> tuple[Section, ...]:
    """The devices the configuration does not name, and the settings that
    cover them; nothing when there are none."""
    found = f.get("unconfigured_devices") or []
    if not found:
        return ()
    devices = Table(
        "unconfigured-devices",
        ("device", "files"),
        tuple((Code(d["name"]), d["files"]) for d in found),
        noun=("device", "devices"),
    )
    settings = Table(
        "device-settings",
        ("[tool.hwlint] setting", "value"),
        tuple((Code(key), Code(json.dumps(values))) for key, values in f["unconfigured_device_settings"].items()),
    )
    said = Paragraph(
        f"The test files use these accelerators, which the configuration does not name ({UnconfiguredDevice.code}): hwlint "
        "takes them for accelerators but classifies no class bound to one. These settings cover them; "
        "`hwlint devices --write` adds them."
    )
    return (Section("devices", "Devices the configuration does not name", (devices, said, settings)),)


def layout(figures: dict[str, Any], rows: int | None = TABLE_ROWS) -> Layout:
    """The sections every format shows, in order, from the figures. Each
    table shows its first `rows` rows and says how many more there are
    (fold_rows); None shows them all (`--all-rows`)."""
    f = figures
    percent = f["percent_migrated"]
    # The file figure never stands alone: the files check fails on and the
    # classes left are beside it, so a tree full of unclassified classes
    # cannot read as done.
    headline = (
        f"{percent}% migrated",
        f"{f['files_allowlisted']} files allowlisted (baseline {f['baseline']}), "
        f"{f['files_failing']} failing outside the allowlist, "
        f"{f['classes_classified']} of {f['classes_total']} test classes classified ({f['percent_classified']}%), "
        f"{f['files_checked']} test files checked.",
    )
    summary = Table(
        "summary-table",
        ("figure", "value"),
        (
            ("files checked", f["files_checked"]),
            ("files allowlisted", f["files_allowlisted"]),
            ("baseline", f["baseline"]),
            ("percent migrated", Percent(percent)),
            ("files failing outside the allowlist", f["files_failing"]),
            ("test classes", f["classes_total"]),
            ("classified classes", f["classes_classified"]),
            ("percent classified", Percent(f["percent_classified"])),
            ("unclassified classes", f["classes_unclassified"]),
        ),
    )
    history = f["history"]
    if history:
        n = len(history)
        commits = f"{n} commit{'s' if n != 1 else ''}"
        # The day of each commit, or its time when two share a day (adoption
        # day: every row would read the same date).
        when, zone = point_labels([parse_iso(p["date"]) for p in reversed(history)], dated=True)
        burndown: tuple[Block, ...] = (
            Chart(tuple(history), f["generated_at"]),
            Paragraph(f"{commits} changed the allowlist. {projection_sentence(f)}"),
            Table(
                "history",
                ("date" if zone is None else f"date ({zone})", "commit", "files allowlisted"),
                tuple((label, Code(p["commit"][:10]), p["allowlisted"]) for label, p in zip(when, reversed(history))),
                fold=f"The {commits} that changed the allowlist",
                noun=("commit", "commits"),
            ),
        )
    else:
        burndown = (Paragraph("Run `hwlint report --history` for the burn-down of the allowlist."),)
    classes = Table(
        "classifications",
        ("classification", "classes"),
        tuple((m, n) for m, n in f["classes_by_classification"].items())
        + (("(unclassified)", f["classes_unclassified"]),),
        noun=("classification", "classifications"),
    )
    violations = f["violations_by_code"]
    violation_table = Table(
        "violations-table",
        ("code", "rule", "violations"),
        tuple((code, rule_name(code), n) for code, n in violations.items()),
        footer=("total", "", sum(violations.values())) if violations else None,  # of every rule, shown or not
        noun=("rule", "rules"),
    )
    directories = Table(
        "directories",
        ("directory", "files", "allowlisted", "classes", "unclassified"),
        tuple(
            (Code(d["path"]), d["files"], d["allowlisted"], d["classes"], d["unclassified"]) for d in f["directories"]
        ),
        empty="No test files.",
        noun=("directory", "directories"),
    )
    top = Table(
        "top-files",
        ("file", "unclassified", "classes", "allowlisted"),
        tuple(
            (Code(t["path"]), t["unclassified"], t["classes"], "yes" if t["allowlisted"] else "no")
            for t in f["top_files"]
        ),
        empty="None: every test class is classified.",
        noun=("file", "files"),
    )
    sections = (
        Section("summary", "Summary", (summary,), note=BASELINE_SOURCES[f["baseline_source"]]),
        *_devices_section(f),
        Section("burndown", "Burn-down", burndown),
        *_phases_section(f),
        *_runners_section(f),
        Section(
            "classes",
            "Test classes by classification",
            (classes,),
            note="Effective classification: the class's own, else the one it inherits.",
        ),
        Section(
            "violations",
            "Violations by rule",
            (violation_table,),
            note="Allowlisted files included: this is the work left.",
        ),
        Section("dirs", "Directories by remaining work", (directories,)),
        Section("top", "Files with the most unclassified classes", (top,)),
    )
    # Every long table folds the same way, here, so that no format prints
    # 51 directories into a job summary while another prints 15.
    sections = tuple(
        replace(section, blocks=tuple(fold_rows(b, rows) if isinstance(b, Table) else b for b in section.blocks))
        for section in sections
    )
    return Layout(figures, percent, headline, sections)
