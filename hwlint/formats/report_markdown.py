"""`hwlint report --format markdown`: the report's layout for
`$GITHUB_STEP_SUMMARY` and PR comments. Tables, and the burn-down as a
Mermaid `xychart-beta` block, which GitHub renders as a chart (and other
viewers show as readable text)."""

from __future__ import annotations

from typing import Any, Sequence

from hwlint.report import Block, Chart, Code, Layout, Paragraph, burndown_series

# Points on the chart's x axis: more labels than this overlap on GitHub.
CHART_POINTS = 30


def _cell(value: Any) -> str:
    text = str(value)
    if isinstance(value, Code) and "`" not in text:
        return f"`{text}`"
    # A pipe would end the cell; a newline would end the table.
    return text.replace("|", "\\|").replace("\n", " ")


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    numeric = [bool(rows) and all(isinstance(row[i], (int, float)) for row in rows if row[i] != "") for i in range(len(headers))]
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


def block(item: Block) -> list[str]:
    if isinstance(item, Paragraph):
        return [item.text]
    if isinstance(item, Chart):
        return chart(list(item.history))
    if not item.rows:
        return [item.empty]
    rows = table(item.headers, list(item.rows) + ([list(item.footer)] if item.footer else []))
    if item.fold is not None:
        # GitHub renders a table inside <details> when blank lines surround it.
        return [f"<details><summary>{item.fold}</summary>", "", *rows, "", "</details>"]
    return rows


def render(report: Layout) -> str:
    figures = report.figures
    figure, meaning = report.headline
    out = ["## hwlint report", "", f"**{figure}**: {meaning}"]
    for section in report.sections:
        out += ["", f"### {section.title}"]
        if section.note:
            out += ["", section.note]
        for item in section.blocks:
            out += ["", *block(item)]
    out += ["", f"<sub>hwlint {figures['version']}, {figures['generated_at']}</sub>"]
    return "\n".join(out) + "\n"
