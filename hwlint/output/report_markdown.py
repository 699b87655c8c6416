"""`hwlint report --format markdown`: the report's layout for
`$GITHUB_STEP_SUMMARY` and PR comments. Tables, and the burn-down as a
Mermaid `xychart-beta` block, which GitHub renders as a chart (and other
viewers show as readable text)."""

from __future__ import annotations

from typing import Any, Sequence

from hwlint.report.blocks import Block, Chart, Code, Layout, Paragraph
from hwlint.report.burndown import burndown_series, plan_at
from hwlint.report.time_axis import parse_iso, point_labels

# Points on the chart's x axis: more labels than this overlap on GitHub.
CHART_POINTS = 30


def _cell(value: Any) -> str:
    text = str(value)
    if isinstance(value, Code) and "`" not in text:
        return f"`{text}`"
    # A pipe would end the cell; a newline would end the table.
    return text.replace("|", "\\|").replace("\n", " ")


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    """A GitHub-flavoured Markdown table; number columns right-aligned."""
    numeric = [
        bool(rows) and all(isinstance(row[i], (int, float)) for row in rows if row[i] != "")
        for i in range(len(headers))
    ]
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    out.extend("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows)
    return out


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def chart(item: Chart) -> list[str]:
    """A Mermaid line chart; with a plan, the x axis runs to the due date
    (the last size held) and a second line is the plan. Mermaid's x axis has
    a label per point and merges points whose labels are equal: they are
    dates, or times when points share a day (time_axis.point_labels), with
    what they leave out (the day, the time zone) as the axis's title."""
    series = burndown_series(list(item.history), CHART_POINTS)
    instants = [when for when, _ in series]
    lines: list[list[float]] = [[value for _, value in series]]
    if item.plan:
        due = parse_iso(item.plan[-1][0])
        if instants[-1] < due:
            instants.append(due)
            lines[0].append(lines[0][-1])
        lines.append([plan_at(item.plan, when.strftime("%Y-%m-%d")) for when in instants])
    labels, caption = point_labels(instants)
    top = max(max(line) for line in lines)
    title = f'"{caption}" ' if caption else ""
    return [
        "```mermaid",
        "xychart-beta",
        f'    title "{item.title}"',
        f"    x-axis {title}[{', '.join(f'{chr(34)}{label}{chr(34)}' for label in labels)}]",
        f'    y-axis "files" 0 --> {max(int(top + 0.5), 1)}',
        *(f"    line [{', '.join(_number(value) for value in line)}]" for line in lines),
        "```",
    ]


def block(item: Block) -> list[str]:
    if isinstance(item, Paragraph):
        return [item.text]
    if isinstance(item, Chart):
        return chart(item)
    if not item.rows:
        return [item.empty]
    rows = table(item.headers, list(item.rows) + ([list(item.footer)] if item.footer else []))
    if item.more:
        rows += ["", item.more]  # a paragraph: a line right under a table would be read as a row
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
