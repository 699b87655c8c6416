"""`hwlint report --format html`: one self-contained page (inline CSS, the
chart as inline SVG, no script, nothing fetched), to attach to a CI run or
open from disk.

The burn-down chart is drawn by pygal, the optional extra `hwlint[report]`,
so that the core install stays light. Without pygal the page shows the
burn-down as a table and says how to get the chart.
"""

from __future__ import annotations

import re
from datetime import timedelta
from html import escape
from typing import Any, Sequence

from hwlint.report.blocks import Block, Chart, Code, Layout, Paragraph, Table
from hwlint.report.time_axis import parse_iso, ticks

_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; margin: 0; background: #f6f8fa; }
main { max-width: 960px; margin: 0 auto; padding: 24px; background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
.meta { color: #59636e; margin: 0 0 16px; }
.headline { font-size: 20px; margin: 8px 0; }
.bar { height: 14px; background: #eaeef2; border-radius: 7px; overflow: hidden; max-width: 480px; }
.bar > div { height: 100%; background: #1f883d; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #d0d7de; padding: 4px 10px; text-align: left; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 13px ui-monospace, SFMono-Regular, Menlo, monospace; }
.more { color: #59636e; margin: 0 0 8px; }
.note { background: #fff8c5; border: 1px solid #d4a72c; padding: 8px 12px; border-radius: 6px; }
figure { margin: 8px 0; }
figure svg { width: 100%; height: auto; }
"""


def _cells(row: Sequence[Any]) -> str:
    cells = []
    for value in row:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            cells.append(f'<td class="num">{value}</td>')
        elif isinstance(value, Code):
            cells.append(f"<td><code>{escape(value)}</code></td>")
        else:
            cells.append(f"<td>{escape(str(value))}</td>")
    return "<tr>" + "".join(cells) + "</tr>"


def html_table(table: Table) -> str:
    """A table block as an html <table>, every cell escaped."""
    head = "".join(f"<th>{escape(h)}</th>" for h in table.headers)
    body = "".join(_cells(row) for row in table.rows)
    foot = f"<tfoot>{_cells(table.footer)}</tfoot>" if table.footer else ""
    return f'<table id="{table.id}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody>{foot}</table>'


def _inline(text: str) -> str:
    """Escaped text, `backticks` as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text))


def block(item: Block) -> str:
    if isinstance(item, Paragraph):
        return f"<p>{_inline(item.text)}</p>"
    if isinstance(item, Chart):
        svg = burndown_svg(list(item.history), item.until, item.title, item.plan)
        if svg is None:
            shown = "The table above shows the phases." if item.plan else "The commits below show the burn-down."
            return f"<p class=\"note\">The chart needs pygal: <code>pip install 'hwlint[report]'</code>. {shown}</p>"
        return f'<figure id="{item.id}">{svg}</figure>'
    if not item.rows:
        return f"<p>{escape(item.empty)}</p>"
    shown = html_table(item) + (f'<p class="more">{_inline(item.more)}</p>' if item.more else "")
    if item.fold is not None:
        return f"<details><summary>{escape(item.fold)}</summary>{shown}</details>"
    return shown


# The chart's plot is about 830 px wide and its labels 12 px: about 7 px a
# character, digits and dashes.
_AXIS_ROOM = 115


def file_ticks(top: int, most: int = 8) -> list[int]:
    """The y axis's ticks: whole files (pygal would tick 0.4, 0.8 ... for a
    list of 3), every 1, 2, 5, 10, 20, 25, 50 ... files, from 0 to the first
    tick at or above `top`, at most `most` + 1 of them."""
    step, scale = 1, 1
    while True:
        for factor in (1, 2, 2.5, 5) if scale >= 10 else (1, 2, 5):
            step = int(factor * scale)
            if -(-max(1, top) // step) <= most:
                return list(range(0, -(-max(1, top) // step) * step + 1, step))
        scale *= 10


def _tooltip(point: dict[str, Any]) -> str:
    """What a browser shows on hovering a commit's dot (an SVG <title>: no script)."""
    if "commit" not in point:  # a phase's burn-down: one point a day
        return f"{point['date'][:10]}: {point['allowlisted']} files"
    when = parse_iso(point["date"]).strftime("%Y-%m-%d %H:%M UTC")
    return f"{when}, {point['commit'][:10]}: {point['allowlisted']} files allowlisted"


def _staircase(history: list[dict[str, Any]], until: str | None) -> list[dict[str, Any]]:
    """The burn-down's points as pygal draws them: a staircase, the size
    holding until the next commit changes it, and the last size until
    `until`. Only a commit's own point has a dot (with its tooltip); the
    corners do not, nor a point followed by another at the same instant (a
    phase's points are days: adoption day's commits would stack up as a
    column of dots)."""
    commits = sorted(history, key=lambda p: p["date"])
    points: list[dict[str, Any]] = []
    for point in commits:
        when = parse_iso(point["date"])
        if points and points[-1]["value"][0] == when:
            points[-1] = {"value": points[-1]["value"], "node": {"r": 0}}
        elif points:
            points.append({"value": (when, points[-1]["value"][1]), "node": {"r": 0}})
        points.append({"value": (when, point["allowlisted"]), "tooltip": _tooltip(point)})
    end = points[-1]["value"][0]
    if until is not None and parse_iso(until) > end:
        points.append({"value": (parse_iso(until), points[-1]["value"][1]), "node": {"r": 0}})
    return points


def _chart_style() -> Any:
    """The chart's pygal Style: the page's colours and sizes."""
    from pygal.style import Style

    return Style(
        background="#ffffff",
        plot_background="#ffffff",
        foreground="#1f2328",
        foreground_strong="#1f2328",
        foreground_subtle="#d0d7de",
        # The area, the line over it, the plan.
        colors=("#cf222e", "#cf222e", "#59636e"),
        opacity=".25",  # the area under the line: light, so the line stands out
        opacity_hover=".35",
        stroke_width="3",
        stroke_opacity="1",
        font_family="system-ui, sans-serif",
        # pygal's black guides read heavier than the line they are behind.
        guide_stroke_color="#d0d7de",
        major_guide_stroke_color="#afb8c1",
        # pygal's 10 px labels read small beside the page's 15 px text.
        label_font_size=12,
        major_label_font_size=12,
        title_font_size=16,
        legend_font_size=13,
    )


def burndown_svg(
    history: list[dict[str, Any]],
    until: str | None = None,
    title: str = "Files allowlisted",
    plan: Sequence[tuple[str, int]] = (),
) -> str | None:
    """The burn-down as an inline <svg>, or None when pygal is not installed.
    The last size holds until `until` (the report's time), so that the
    newest commit's change is not hidden at the chart's right edge. A
    phase's `plan` (date, files) is drawn as a dashed grey line to its due
    date, with a legend. The x axis ticks at round instants, labelled as
    finely as the span needs (time_axis.ticks: times on adoption day,
    dates over weeks, months over a year)."""
    try:
        import pygal
    except ImportError:
        return None
    points = _staircase(history, until)
    planned = [(parse_iso(day), n) for day, n in plan]
    start = min([points[0]["value"][0], *(when for when, _ in planned)])
    end = max([points[-1]["value"][0], *(when for when, _ in planned)])
    axis = ticks(start, end, _AXIS_ROOM)
    levels = file_ticks(max([p["allowlisted"] for p in history] + [n for _, n in plan]), 6)
    if end - start < timedelta(seconds=1):  # one instant: the axis's minute around it
        start, end = axis.ticks[0][0], axis.ticks[-1][0]
    chart = pygal.DateTimeLine(
        style=_chart_style(),
        js=[],  # pygal's default links a tooltip script from the web: the page must work offline
        disable_xml_declaration=True,
        show_legend=bool(plan),
        legend_at_bottom=True,
        show_dots=len(history) <= 60,
        dots_size=4,  # a commit's dot, big enough to see and to hover for its tooltip
        width=900,
        height=360,
        title=title,
        x_title=axis.caption,
        x_label_rotation=0,  # time_axis.ticks spaced them to fit unrotated
        # A tick's own tooltip (pygal titles it with the instant): the whole instant, readably.
        x_value_formatter=lambda d: d.strftime("%Y-%m-%d %H:%M UTC"),
        x_labels=[{"value": when, "label": label} for when, label in axis.ticks],
        xrange=(start, end),
        y_labels=levels,
        range=(0, levels[-1]),
        include_x_axis=True,
        truncate_label=-1,
    )
    # The area under the staircase, without an outline: a filled line's
    # outline closes down to zero at both ends, and at the right edge that
    # read as the list emptied on the report's day. No title: no legend.
    chart.add(None, [p["value"] for p in points], fill=True, show_dots=False)
    chart.add("files left" if plan else "files allowlisted", points)
    if plan:
        chart.add(
            "plan: zero by the due date",
            planned,
            fill=False,
            show_dots=False,
            stroke_style={"width": 2, "dasharray": "8, 6"},
        )
    svg: str = chart.render(is_unicode=True)
    # The area is the one filled path: an area, not a line, and without
    # the outline (an attribute beats pygal's stylesheet).
    svg = svg.replace('class="line reactive"', 'class="area reactive" style="stroke: none"', 1)
    # pygal always embeds its tooltip configuration as a <script>; without
    # its tooltip library (js=[] above) the script does nothing, and a page
    # without scripts opens everywhere (CI artifact viewers block them).
    return re.sub(r"<script\b[^>]*>.*?</script>", "", svg, flags=re.DOTALL)


def render(report: Layout) -> str:
    figures = report.figures
    percent = report.percent
    figure, meaning = report.headline
    parts = [
        "<h1>hwlint report</h1>",
        f'<p class="meta"><code>{escape(figures["root"])}</code> · generated {escape(figures["generated_at"])} '
        f"by hwlint {escape(figures['version'])}</p>",
        f'<p class="headline"><strong>{escape(figure)}</strong>: {escape(meaning)}</p>',
        f'<div class="bar" role="img" aria-label="{percent}% migrated"><div style="width: {percent}%"></div></div>',
    ]
    for section in report.sections:
        parts.append(f'<section id="{section.id}"><h2>{escape(section.title)}</h2>')
        if section.note:
            parts.append(f"<p>{_inline(section.note)}</p>")
        parts.extend(block(item) for item in section.blocks)
        parts.append("</section>")
    body = "\n".join(parts)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>hwlint report: {escape(figure)}</title>\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )
