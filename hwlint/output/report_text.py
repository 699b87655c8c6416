"""`hwlint report --format text`: the report's layout as aligned tables for
a terminal."""

from __future__ import annotations

from typing import Any, Sequence

from hwlint.report.blocks import Block, Chart, Layout, Paragraph
from hwlint.report.burndown import burndown_series

# Eight levels of a bar, for a one-line burn-down on the terminal.
_SPARK = "▁▂▃▄▅▆▇█"
INDENT = "  "


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    """Columns padded to their widest cell; numbers right-aligned."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    numeric = [
        bool(rows) and all(isinstance(row[i], (int, float)) for row in rows if row[i] != "")
        for i in range(len(headers))
    ]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for row in cells:
        parts = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(row, widths, numeric)]
        out.append((INDENT + "  ".join(parts)).rstrip())
    return out


def sparkline(values: Sequence[int]) -> str:
    """The values as a one-line bar chart, scaled from zero to the largest."""
    if not values:
        return ""
    top = max(values) or 1
    return "".join(_SPARK[min(len(_SPARK) - 1, round(v / top * (len(_SPARK) - 1)))] for v in values)


def block(item: Block) -> list[str]:
    if isinstance(item, Paragraph):
        return [INDENT + item.text]
    if isinstance(item, Chart):
        line = INDENT + sparkline([value for _, value in burndown_series(list(item.history), 60)])
        if item.plan:  # a phase's burn-down: which phase, and its deadline
            line += f"  {item.title}"
        return [line]
    if not item.rows:
        return [INDENT + item.empty]
    # A terminal has nothing to fold a table under: the layout has already
    # cut a long one (report.fold_rows), and its `more` line follows it.
    out = table(item.headers, list(item.rows) + ([list(item.footer)] if item.footer else []))
    return out + ([INDENT + item.more] if item.more else [])


def render(report: Layout) -> str:
    figures = report.figures
    out = [
        f"hwlint report for {figures['root']}",
        f"generated {figures['generated_at']} by hwlint {figures['version']}",
        "",
    ]
    figure, meaning = report.headline
    out.append(f"{figure}: {meaning}")
    for section in report.sections:
        out += ["", section.title]
        if section.note:
            out.append(INDENT + section.note)
        for item in section.blocks:
            out.extend(block(item))
    return "\n".join(out) + "\n"
