"""`hwlint report --format html`: one self-contained page (inline CSS, the
chart as inline SVG, no script, nothing fetched), to attach to a CI run or
open from disk.

The burn-down chart is drawn by pygal, the optional extra `hwlint[report]`,
so that the core install stays light. Without pygal the page shows the
burn-down as a table and says how to get the chart.
"""

from __future__ import annotations

import re
from datetime import datetime
from html import escape
from typing import Any, Sequence

from hwlint.formats.report_text import projection_sentence
from hwlint.report import rule_name

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
.note { background: #fff8c5; border: 1px solid #d4a72c; padding: 8px 12px; border-radius: 6px; }
figure { margin: 8px 0; }
figure svg { width: 100%; height: auto; }
"""


def _table(table_id: str, headers: Sequence[str], rows: Sequence[Sequence[Any]], code_columns: Sequence[int] = ()) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for index, value in enumerate(row):
            if (isinstance(value, (int, float)) and not isinstance(value, bool)) or re.fullmatch(r"[\d.]+%", str(value)):
                cells.append(f'<td class="num">{value}</td>')
            elif index in code_columns:
                cells.append(f"<td><code>{escape(str(value))}</code></td>")
            else:
                cells.append(f"<td>{escape(str(value))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table id="{table_id}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _parse(iso: str) -> datetime:
    return datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ")


def burndown_svg(history: list[dict[str, Any]], until: str | None = None) -> str | None:
    """The burn-down as an inline <svg>, or None when pygal is not installed.
    The last size holds until `until` (the report's time), so that the
    newest commit's change is not hidden at the chart's right edge."""
    try:
        import pygal
        from pygal.style import Style
    except ImportError:
        return None
    style = Style(
        background="#ffffff",
        plot_background="#ffffff",
        foreground="#1f2328",
        foreground_strong="#1f2328",
        foreground_subtle="#d0d7de",
        colors=("#cf222e",),
        opacity=".25",  # the area under the line: light, so the line stands out
        opacity_hover=".35",
        stroke_width="3",  # the filled area's outline is the line itself
        stroke_opacity="1",
        font_family="system-ui, sans-serif",
    )
    chart = pygal.DateTimeLine(
        style=style,
        js=[],  # pygal's default links a tooltip script from the web: the page must work offline
        disable_xml_declaration=True,
        show_legend=False,
        show_dots=len(history) <= 60,
        fill=True,
        width=900,
        height=360,
        title="Files allowlisted",
        x_label_rotation=30,
        x_value_formatter=lambda d: d.strftime("%Y-%m-%d"),
        range=(0, max(1, max(p["allowlisted"] for p in history))),
        include_x_axis=True,
        truncate_label=-1,
    )
    # A staircase: the size holds until the next commit changes it.
    points: list[tuple[datetime, int]] = []
    for point in sorted(history, key=lambda p: p["date"]):
        when = _parse(point["date"])
        if points:
            points.append((when, points[-1][1]))
        points.append((when, point["allowlisted"]))
    if until is not None and _parse(until) > points[-1][0]:
        points.append((_parse(until), points[-1][1]))
    chart.add("files allowlisted", points)
    svg: str = chart.render(is_unicode=True)
    # pygal always embeds its tooltip configuration as a <script>; without
    # its tooltip library (js=[] above) the script does nothing, and a page
    # without scripts opens everywhere (CI artifact viewers block them).
    return re.sub(r"<script\b[^>]*>.*?</script>", "", svg, flags=re.DOTALL)


def render(report: dict[str, Any]) -> str:
    percent = report["percent_migrated"]
    parts: list[str] = []
    parts.append("<h1>hwlint report</h1>")
    parts.append(
        f'<p class="meta"><code>{escape(report["root"])}</code> · generated {escape(report["generated_at"])} '
        f"by hwlint {escape(report['version'])}</p>"
    )
    parts.append(
        f'<p class="headline"><strong>{percent}% migrated</strong>: {report["files_allowlisted"]} files allowlisted '
        f'(baseline {report["baseline"]}), {report["files_checked"]} test files checked.</p>'
    )
    parts.append(f'<div class="bar" role="img" aria-label="{percent}% migrated"><div style="width: {percent}%"></div></div>')
    parts.append('<section id="summary"><h2>Summary</h2>')
    parts.append(
        _table(
            "summary-table",
            ["figure", "value"],
            [
                ["files checked", report["files_checked"]],
                ["files allowlisted", report["files_allowlisted"]],
                ["baseline", report["baseline"]],
                ["percent migrated", f"{percent}%"],
                ["test classes", report["classes_total"]],
                ["unclassified classes", report["classes_unclassified"]],
            ],
        )
    )
    parts.append("</section>")

    parts.append('<section id="burndown"><h2>Burn-down</h2>')
    history = report["history"]
    if history:
        history_table = _table(
            "history",
            ["date", "commit", "files allowlisted"],
            [[p["date"], p["commit"][:12], p["allowlisted"]] for p in reversed(history)],
            code_columns=(1,),
        )
        svg = burndown_svg(history, report["generated_at"])
        if svg is not None:
            parts.append(f'<figure id="chart">{svg}</figure>')
            parts.append(f"<p>{escape(projection_sentence(report))}</p>")
            n = len(history)
            parts.append(f"<details><summary>The {n} commit{'s' if n != 1 else ''} that changed the allowlist</summary>{history_table}</details>")
        else:
            parts.append(
                '<p class="note">The chart needs pygal: <code>pip install \'hwlint[report]\'</code>. '
                "Here is the burn-down as a table.</p>"
            )
            parts.append(f"<p>{escape(projection_sentence(report))}</p>")
            parts.append(history_table)
    else:
        parts.append("<p>Run <code>hwlint report --history --format html</code> for the burn-down of the allowlist.</p>")
    parts.append("</section>")

    parts.append('<section id="classes"><h2>Test classes by classification</h2>')
    rows: list[list[Any]] = [[m, n] for m, n in report["classes_by_classification"].items()]
    rows.append(["(unclassified)", report["classes_unclassified"]])
    parts.append(_table("classifications", ["classification", "classes"], rows))
    parts.append("</section>")

    parts.append('<section id="violations"><h2>Violations by rule</h2><p>Allowlisted files included: this is the work left.</p>')
    violations = report["violations_by_code"]
    if violations:
        parts.append(_table("violations-table", ["code", "rule", "violations"], [[c, rule_name(c), n] for c, n in violations.items()]))
    else:
        parts.append("<p>None.</p>")
    parts.append("</section>")

    parts.append('<section id="dirs"><h2>Directories by remaining work</h2>')
    parts.append(
        _table(
            "directories",
            ["directory", "files", "allowlisted", "classes", "unclassified"],
            [[d["path"], d["files"], d["allowlisted"], d["classes"], d["unclassified"]] for d in report["directories"]],
            code_columns=(0,),
        )
    )
    parts.append("</section>")

    parts.append('<section id="top"><h2>Files with the most unclassified classes</h2>')
    if report["top_files"]:
        parts.append(
            _table(
                "top-files",
                ["file", "unclassified", "classes", "allowlisted"],
                [[f["path"], f["unclassified"], f["classes"], "yes" if f["allowlisted"] else "no"] for f in report["top_files"]],
                code_columns=(0,),
            )
        )
    else:
        parts.append("<p>None: every test class is classified.</p>")
    parts.append("</section>")

    body = "\n".join(parts)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>hwlint report: {percent}% migrated</title>\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )
