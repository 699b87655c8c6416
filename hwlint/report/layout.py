"""The report's layout: what text, markdown and html show, from the figures.

`hwlint.report.figures` computes the figures (the JSON document); `layout`
here puts them into a headline and ordered sections, each with a title, a
note and blocks (hwlint.report.blocks: paragraphs, tables, the burn-down
chart). A renderer draws blocks in its medium and never decides what a
section holds, so every format shows the same sections with the same
figures; a new section is a figure in `build_report` and a `Section` here.
Long tables are cut to their first TABLE_ROWS rows here too, with a "M
more" line (blocks.fold_rows); the JSON document keeps every row.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from hwlint.allowlist.history import MIN_PROJECTION_DAYS
from hwlint.report.blocks import Block, Chart, Code, Layout, Paragraph, Percent, Section, Table, fold_rows
from hwlint.report.time_axis import parse_iso, point_labels
from hwlint.rules import BY_CODE
from hwlint.rules.no_runner import NoRunner
from hwlint.rules.phase_overdue import PhaseOverdue
from hwlint.rules.unconfigured_device import UnconfiguredDevice

if TYPE_CHECKING:
    from hwlint.report.figures import BaselineSource

# Rows a table shows in text, markdown and html before it folds into "M more"
# (`--all-rows` shows them all; json always has them all). PyTorch's test tree
# has about 50 folders: 15 is the next few weeks of work, and a GitHub job
# summary or a terminal screen shows them without scrolling past the rest.
TABLE_ROWS = 15

# How a phase's status is decided (hwlint.allowlist.phases), as every format says it.
PHASE_RULES = (
    f"Done: no file left. Overdue: files left after the due date ({PhaseOverdue.code}). At risk: at the phase's pace "
    "(its last 90 days) zero comes after the due date, or never. On track: zero by the due date, or no history "
    "to tell."
)


# Where the baseline came from, as the Summary's note says it.
BASELINE_SOURCES: dict[BaselineSource, str] = {
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
    sections = (
        Section("summary", "Summary", (_summary_table(f),), note=BASELINE_SOURCES[f["baseline_source"]]),
        *_devices_section(f),
        Section("burndown", "Burn-down", _burndown_blocks(f)),
        *_phases_section(f),
        *_runners_section(f),
        Section(
            "classes",
            "Test classes by classification",
            (_classes_table(f),),
            note="Effective classification: the class's own, else the one it inherits.",
        ),
        Section(
            "violations",
            "Violations by rule",
            (_violations_table(f),),
            note="Allowlisted files included: this is the work left.",
        ),
        Section("dirs", "Directories by remaining work", (_directories_table(f),)),
        Section("top", "Files with the most unclassified classes", (_top_files_table(f),)),
    )
    # Every long table folds the same way, here, so that no format prints
    # 51 directories into a job summary while another prints 15.
    sections = tuple(
        replace(section, blocks=tuple(fold_rows(b, rows) if isinstance(b, Table) else b for b in section.blocks))
        for section in sections
    )
    return Layout(figures, f["percent_migrated"], _headline(f), sections)


def _headline(f: dict[str, Any]) -> tuple[str, str]:
    """The figure and what it means. The file figure never stands alone: the
    files check fails on and the classes left are beside it, so a tree full
    of unclassified classes cannot read as done."""
    return (
        f"{f['percent_migrated']}% migrated",
        f"{f['files_allowlisted']} files allowlisted (baseline {f['baseline']}), "
        f"{f['files_failing']} failing outside the allowlist, "
        f"{f['classes_classified']} of {f['classes_total']} test classes classified ({f['percent_classified']}%), "
        f"{f['files_checked']} test files checked.",
    )


def _summary_table(f: dict[str, Any]) -> Table:
    return Table(
        "summary-table",
        ("figure", "value"),
        (
            ("files checked", f["files_checked"]),
            ("files allowlisted", f["files_allowlisted"]),
            ("baseline", f["baseline"]),
            ("percent migrated", Percent(f["percent_migrated"])),
            ("files failing outside the allowlist", f["files_failing"]),
            ("test classes", f["classes_total"]),
            ("classified classes", f["classes_classified"]),
            ("percent classified", Percent(f["percent_classified"])),
            ("unclassified classes", f["classes_unclassified"]),
        ),
    )


def _burndown_blocks(f: dict[str, Any]) -> tuple[Block, ...]:
    """The allowlist's burn-down: the chart, how the zero date was found, and
    the commits that changed the list; without a history, how to get one."""
    history = f["history"]
    if not history:
        return (Paragraph("Run `hwlint report --history` for the burn-down of the allowlist."),)
    n = len(history)
    commits = f"{n} commit{'s' if n != 1 else ''}"
    # The day of each commit, or its time when two share a day (adoption
    # day: every row would read the same date).
    when, zone = point_labels([parse_iso(p["date"]) for p in reversed(history)], dated=True)
    return (
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


def _classes_table(f: dict[str, Any]) -> Table:
    return Table(
        "classifications",
        ("classification", "classes"),
        tuple((m, n) for m, n in f["classes_by_classification"].items())
        + (("(unclassified)", f["classes_unclassified"]),),
        noun=("classification", "classifications"),
    )


def _violations_table(f: dict[str, Any]) -> Table:
    violations = f["violations_by_code"]
    return Table(
        "violations-table",
        ("code", "rule", "violations"),
        tuple((code, rule_name(code), n) for code, n in violations.items()),
        footer=("total", "", sum(violations.values())) if violations else None,  # of every rule, shown or not
        noun=("rule", "rules"),
    )


def _directories_table(f: dict[str, Any]) -> Table:
    return Table(
        "directories",
        ("directory", "files", "allowlisted", "classes", "unclassified"),
        tuple(
            (Code(d["path"]), d["files"], d["allowlisted"], d["classes"], d["unclassified"]) for d in f["directories"]
        ),
        empty="No test files.",
        noun=("directory", "directories"),
    )


def _top_files_table(f: dict[str, Any]) -> Table:
    return Table(
        "top-files",
        ("file", "unclassified", "classes", "allowlisted"),
        tuple(
            (Code(t["path"]), t["unclassified"], t["classes"], "yes" if t["allowlisted"] else "no")
            for t in f["top_files"]
        ),
        empty="None: every test class is classified.",
        noun=("file", "files"),
    )


def rule_name(code: str) -> str:
    """The rule's name, for the violations table; empty for a code no rule has."""
    rule = BY_CODE.get(code)
    return rule.name if rule is not None else ""


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
