"""`hwlint report --format text`: aligned tables for a terminal."""

from __future__ import annotations

from typing import Any, Sequence

from hwlint.report import burndown_series, rule_name

# Eight levels of a bar, for a one-line burn-down on the terminal.
_SPARK = "▁▂▃▄▅▆▇█"
HISTORY_ROWS = 10


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "  ") -> list[str]:
    """Columns padded to their widest cell; numbers right-aligned."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    numeric = [all(isinstance(row[i], (int, float)) for row in rows) and bool(rows) for i in range(len(headers))]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for row in cells:
        parts = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(row, widths, numeric)]
        out.append((indent + "  ".join(parts)).rstrip())
    return out


def sparkline(values: Sequence[int]) -> str:
    if not values:
        return ""
    top = max(values) or 1
    return "".join(_SPARK[min(len(_SPARK) - 1, round(v / top * (len(_SPARK) - 1)))] for v in values)


def render(report: dict[str, Any]) -> str:
    out: list[str] = []
    out.append(f"hwlint report for {report['root']}")
    out.append(f"generated {report['generated_at']} by hwlint {report['version']}")
    out.append("")
    out.append(
        f"Migrated: {report['percent_migrated']}% "
        f"({report['files_allowlisted']} files allowlisted, baseline {report['baseline']})"
    )
    out.extend(
        table(
            ["figure", "value"],
            [
                ["files checked", report["files_checked"]],
                ["files allowlisted", report["files_allowlisted"]],
                ["baseline", report["baseline"]],
                ["test classes", report["classes_total"]],
                ["unclassified classes", report["classes_unclassified"]],
            ],
        )
    )
    out.append("")
    out.append("Test classes by classification (effective, inheritance included)")
    rows: list[list[Any]] = [[m, n] for m, n in report["classes_by_classification"].items()]
    rows.append(["(unclassified)", report["classes_unclassified"]])
    out.extend(table(["classification", "classes"], rows))
    out.append("")
    out.append("Violations by rule (allowlisted files included)")
    violations = report["violations_by_code"]
    if violations:
        rows = [[code, rule_name(code), n] for code, n in violations.items()]
        rows.append(["total", "", sum(violations.values())])
        out.extend(table(["code", "rule", "violations"], rows))
    else:
        out.append("  none")
    out.append("")
    out.append("Directories by remaining work")
    if report["directories"]:
        out.extend(
            table(
                ["directory", "files", "allowlisted", "classes", "unclassified"],
                [[d["path"], d["files"], d["allowlisted"], d["classes"], d["unclassified"]] for d in report["directories"]],
            )
        )
    else:
        out.append("  no test files")
    out.append("")
    out.append("Files with the most unclassified classes")
    if report["top_files"]:
        out.extend(
            table(
                ["file", "unclassified", "classes", "allowlisted"],
                [[f["path"], f["unclassified"], f["classes"], "yes" if f["allowlisted"] else "no"] for f in report["top_files"]],
            )
        )
    else:
        out.append("  none: every test class is classified")
    history = report["history"]
    if history:
        out.append("")
        out.append(f"Burn-down: files allowlisted at each of the {len(history)} commits that changed the allowlist")
        out.append("  " + sparkline([value for _, value in burndown_series(history, 60)]))
        shown = history[-HISTORY_ROWS:]
        if len(history) > len(shown):
            out.append(f"  ... {len(history) - len(shown)} earlier commits (--format json lists them all)")
        out.extend(table(["date", "commit", "allowlisted"], [[p["date"][:10], p["commit"][:10], p["allowlisted"]] for p in shown]))
        out.append(f"  {projection_sentence(report)}")
    return "\n".join(out) + "\n"


def projection_sentence(report: dict[str, Any]) -> str:
    """How the zero date was found, in one sentence (every format says it)."""
    projection = report.get("projection")
    date = report["projected_zero_date"]
    if projection is None:
        return "Projected zero: none (the history has fewer than two commits)."
    if projection["method"] == "reached":
        return f"Zero reached on {date}."
    rate = f"{projection['files_per_day']:+g} files/day"
    how = (
        f"the least-squares slope over the {projection['points']} allowlist commits within "
        f"{projection['window_days']} days of the newest, at least the last two"
    )
    if date is None:
        return f"Projected zero: none, the allowlist is not shrinking ({rate}, {how})."
    return f"Projected zero: {date}, at {rate} ({how}), counting from the newest commit."
