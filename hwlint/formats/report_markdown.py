"""`hwlint report --format markdown`: for `$GITHUB_STEP_SUMMARY` and PR
comments. Tables, and the burn-down as a Mermaid `xychart-beta` block, which
GitHub renders as a chart (and other viewers show as readable text)."""

from __future__ import annotations

from typing import Any, Sequence

from hwlint.formats.report_text import projection_sentence
from hwlint.report import burndown_series, rule_name

# Points on the chart's x axis: more labels than this overlap on GitHub.
CHART_POINTS = 30


def _cell(value: Any) -> str:
    text = str(value)
    # A pipe would end the cell; a newline would end the table.
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return f"`{text}`" if "`" not in text else _cell(text)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    numeric = [bool(rows) and all(isinstance(row[i], (int, float)) for row in rows) for i in range(len(headers))]
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    out.extend("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows)
    return out


def chart(history: list[dict[str, Any]]) -> list[str]:
    series = burndown_series(history, CHART_POINTS)
    top = max(value for _, value in series)
    labels = ", ".join(f'"{label}"' for label, _ in series)
    values = ", ".join(str(value) for _, value in series)
    return [
        "```mermaid",
        "xychart-beta",
        '    title "Files allowlisted"',
        f"    x-axis [{labels}]",
        f'    y-axis "files" 0 --> {max(top, 1)}',
        f"    line [{values}]",
        "```",
    ]


def render(report: dict[str, Any]) -> str:
    out: list[str] = ["## hwlint report", ""]
    out.append(
        f"**{report['percent_migrated']}% migrated**: {report['files_allowlisted']} files allowlisted "
        f"(baseline {report['baseline']}), {report['files_checked']} test files checked."
    )
    out.append("")
    out.extend(
        table(
            ["figure", "value"],
            [
                ["files checked", report["files_checked"]],
                ["files allowlisted", report["files_allowlisted"]],
                ["baseline", report["baseline"]],
                ["percent migrated", f"{report['percent_migrated']}%"],
                ["test classes", report["classes_total"]],
                ["unclassified classes", report["classes_unclassified"]],
            ],
        )
    )
    history = report["history"]
    if history:
        out += ["", "### Burn-down", ""]
        out.extend(chart(history))
        out.append("")
        n = len(history)
        out.append(f"{n} commit{'s' if n != 1 else ''} changed the allowlist. {projection_sentence(report)}")
    out += ["", "### Test classes by classification", ""]
    rows: list[list[Any]] = [[m, n] for m, n in report["classes_by_classification"].items()]
    rows.append(["*unclassified*", report["classes_unclassified"]])
    out.extend(table(["classification", "classes"], rows))
    out += ["", "### Violations by rule", "", "Allowlisted files included: this is the work left.", ""]
    violations = report["violations_by_code"]
    if violations:
        rows = [[code, rule_name(code), n] for code, n in violations.items()]
        out.extend(table(["code", "rule", "violations"], rows))
    else:
        out.append("None.")
    out += ["", "### Directories by remaining work", ""]
    if report["directories"]:
        out.extend(
            table(
                ["directory", "files", "allowlisted", "classes", "unclassified"],
                [[_code(d["path"]), d["files"], d["allowlisted"], d["classes"], d["unclassified"]] for d in report["directories"]],
            )
        )
    else:
        out.append("No test files.")
    out += ["", "### Files with the most unclassified classes", ""]
    if report["top_files"]:
        out.extend(
            table(
                ["file", "unclassified", "classes", "allowlisted"],
                [[_code(f["path"]), f["unclassified"], f["classes"], "yes" if f["allowlisted"] else "no"] for f in report["top_files"]],
            )
        )
    else:
        out.append("None: every test class is classified.")
    out += ["", f"<sub>hwlint {report['version']}, {report['generated_at']}</sub>"]
    return "\n".join(out) + "\n"
