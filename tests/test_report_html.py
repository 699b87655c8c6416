"""`hwlint report --format html`: one self-contained page, checked in a real
headless browser (Debian's chromium, which .ci/run installs): the page must
render, with the burn-down chart and the tables visible."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from hwlint.report.blocks import Code, Table
from hwlint.report.layout import layout
from tests.test_history import GIT_ENV, git
from tests.test_report import FIRST_15, make_repo, make_wide_tree


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed: .ci/run installs it (apt-get install chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium; .ci/run does it)")
    return found


def browse(page: Path, tmp_path: Path, *how: str) -> subprocess.CompletedProcess[bytes]:
    """Open a page in headless chromium, offline, with a throwaway profile."""
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--user-data-dir={profile}",
            *how,
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path)},
    )


def screenshot(page: Path, tmp_path: Path) -> Any:
    png = tmp_path / f"{page.stem}.png"
    proc = browse(page, tmp_path, "--window-size=1000,2200", f"--screenshot={png}")
    assert png.is_file(), f"chromium could not render {page}: {proc.stderr.decode(errors='replace')[-2000:]}"
    Image = pytest.importorskip("PIL.Image", reason="Pillow decodes the screenshot: pip install -e '.[test]'")

    return Image.open(io.BytesIO(png.read_bytes())).convert("RGB")


def pixels_like(image: Any, rgb: tuple[int, int, int], tolerance: int = 24) -> int:
    r0, g0, b0 = rgb
    return sum(
        count
        for count, (r, g, b) in image.getcolors(maxcolors=1 << 24)
        if abs(r - r0) <= tolerance and abs(g - g0) <= tolerance and abs(b - b0) <= tolerance
    )


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_repo(tmp_path_factory.mktemp("html") / "repo")
    out = root / "report.html"
    proc = subprocess.run(
        [sys.executable, "-m", "hwlint", "report", "--history", "--format", "html", "-o", str(out)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**GIT_ENV, "SOURCE_DATE_EPOCH": "1717243200"},
    )
    assert proc.returncode == 0, proc.stderr
    return out


def test_page_is_self_contained(page: Path) -> None:
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>")
    # Nothing to fetch: no scripts, stylesheets, images or fonts from anywhere.
    assert "<script" not in html and "<link" not in html and "<img" not in html and "@import" not in html
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?!#)""", html)
    assert not re.search(r"url\((?!#)", html)
    assert '<figure id="chart"><svg' in html
    assert "Projected zero: 2024-04-09" in html


def test_page_renders_in_a_browser(page: Path, tmp_path: Path) -> None:
    proc = browse(page, tmp_path, "--dump-dom")
    dom = proc.stdout.decode("utf-8", "replace")
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    # The browser parsed the chart as SVG inside the page, with the line drawn.
    chart = dom.split('<figure id="chart">', 1)[1].split("</figure>", 1)[0]
    assert chart.startswith("<svg") and 'class="pygal-chart"' in chart
    assert re.search(r'<path d="M[^"]+" class="line reactive', chart), "the burn-down line is missing"
    for table_id in ("summary-table", "classifications", "violations-table", "directories", "top-files", "history"):
        assert f'<table id="{table_id}">' in dom, table_id
    directories = dom.split('<table id="directories">', 1)[1].split("</table>", 1)[0]
    assert directories.count("<tr>") == 4  # a header and three folders
    assert "<code>test/distributed</code>" in directories

    image = screenshot(page, tmp_path)
    colors = image.getcolors(maxcolors=1 << 24)
    assert len(colors) > 50, "the page rendered blank"
    assert pixels_like(image, (0xCF, 0x22, 0x2E)) > 1500, "the chart's line is not visible"
    assert pixels_like(image, (0x1F, 0x88, 0x3D), tolerance=8) > 1000, "the progress bar is not visible"
    assert pixels_like(image, (0xF6, 0xF8, 0xFA), tolerance=2) > 5000, "the tables' headers are not visible"
    assert pixels_like(image, (0xD0, 0xD7, 0xDE), tolerance=6) > 3000, "the tables' borders are not visible"


def test_the_browser_check_sees_a_page_that_does_not_render(tmp_path: Path) -> None:
    """The checks above fail on a page without content, as they must."""
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><head><style>body{background:#fff}</style></head><body></body></html>")
    image = screenshot(blank, tmp_path)
    assert len(image.getcolors(maxcolors=1 << 24)) <= 2
    assert pixels_like(image, (0xCF, 0x22, 0x2E)) == 0


def test_without_pygal_the_page_shows_a_table_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from hwlint.output import report_html

    monkeypatch.setitem(sys.modules, "pygal", None)  # import pygal raises ImportError
    report = {
        "version": "0.1.0",
        "generated_at": "2024-06-01T12:00:00Z",
        "root": "/r",
        "files_checked": 1,
        "files_allowlisted": 1,
        "baseline": 2,
        "percent_migrated": 50.0,
        "classes_total": 1,
        "classes_by_classification": {"GENERIC": 0},
        "classes_unclassified": 1,
        "violations_by_code": {"HWC001": 1},
        "directories": [{"path": "test", "files": 1, "allowlisted": 1, "classes": 1, "unclassified": 1}],
        "history": [
            {"commit": "a" * 40, "date": "2024-01-01T00:00:00Z", "allowlisted": 2},
            {"commit": "b" * 40, "date": "2024-02-01T00:00:00Z", "allowlisted": 1},
        ],
        "projected_zero_date": "2024-03-03",
        "baseline_source": "configuration",
        "files_failing": 0,
        "classes_classified": 0,
        "percent_classified": 0.0,
        "top_files": [],
        "projection": {"method": "least-squares", "window_days": 90, "points": 2, "files_per_day": -0.0323},
    }
    html = report_html.render(layout(report))
    assert "<svg" not in html
    assert "The chart needs pygal: <code>pip install 'hwlint[report]'</code>" in html
    history = html.split('<table id="history">', 1)[1].split("</table>", 1)[0]
    assert '<td>2024-02-01</td><td><code>bbbbbbbbbb</code></td><td class="num">1</td>' in history


def test_escapes_what_it_prints() -> None:
    from hwlint.output.report_html import html_table

    table = Table("t", ("a", "b"), (("<b>&", Code("x<y")),))
    assert html_table(table) == (
        '<table id="t"><thead><tr><th>a</th><th>b</th></tr></thead>'
        "<tbody><tr><td>&lt;b&gt;&amp;</td><td><code>x&lt;y</code></td></tr></tbody></table>"
    )


def test_a_long_directory_table_folds_in_a_browser(tmp_path: Path) -> None:
    """51 folders: the page the browser renders shows the first 15 and says
    that 36 more are left out; with --all-rows it shows all 51."""
    root = make_wide_tree(tmp_path / "proj")
    for args, rows in (((), 15), (("--all-rows",), 51)):
        page = tmp_path / f"report{len(args)}.html"
        proc = subprocess.run(
            [sys.executable, "-m", "hwlint", "report", "--format", "html", "-o", str(page), *args],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
            env={**GIT_ENV, "SOURCE_DATE_EPOCH": "1717243200"},
        )
        assert proc.returncode == 0, proc.stderr
        shown = browse(page, tmp_path, "--dump-dom")
        assert shown.returncode == 0, shown.stderr.decode(errors="replace")[-2000:]
        dom = shown.stdout.decode("utf-8", "replace")
        section = dom.split('<section id="dirs">', 1)[1].split("</section>", 1)[0]
        table, after = section.split('<table id="directories">', 1)[1].split("</table>", 1)
        paths = re.findall(r"<tr><td><code>([^<]+)</code></td>", table)
        assert len(paths) == rows
        if args:
            assert paths[-1] == "test/area49" and after == "\n"
        else:
            assert paths == FIRST_15
            assert after == (
                '<p class="more">36 more directories (<code>--all-rows</code> shows every row; '
                "<code>--format json</code> lists them all).</p>\n"
            )


# ---- the burn-down's time axis, as the browser lays it out ----

# Run in a copy of the page (the report itself has no script): each x-axis
# label's box as the browser lays it out, written into the DOM it dumps.
MEASURE = """<script>
const found = [];
for (const figure of document.querySelectorAll("figure")) {
  const labels = [...figure.querySelectorAll("g.axis.x text")].map(t => {
    const r = t.getBoundingClientRect(); return {text: t.textContent, left: r.left, right: r.right};
  });
  const caption = figure.querySelector("text.title:not(.plot_title)");
  const dots = [...figure.querySelectorAll("g.dots title")].map(t => t.textContent);
  found.push({id: figure.id, labels, caption: caption ? caption.textContent : null, dots});
}
const out = document.createElement("pre"); out.id = "measured"; out.textContent = JSON.stringify(found);
document.body.appendChild(out);
</script>"""


def measured_axes(page: Path, tmp_path: Path) -> list[dict[str, Any]]:
    """Each chart's x-axis labels (text, left, right in px), its caption and
    its dots' tooltips, as headless chromium lays out the page."""
    import html as html_lib
    import json

    probe = tmp_path / f"{page.stem}-measured.html"
    probe.write_text(page.read_text().replace("</body>", MEASURE + "</body>"))
    proc = browse(probe, tmp_path, "--window-size=1280,2000", "--dump-dom")
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    dom = proc.stdout.decode("utf-8", "replace")
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert found, "the measuring script did not run"
    return json.loads(html_lib.unescape(found.group(1)))  # type: ignore[no-any-return]


def report_of_history(root: Path, moments: list[str], now: str, tmp_path: Path) -> Path:
    """A committed tree whose allowlist shrinks by a file at each of
    `moments` (ISO 8601, to the second), reported as html at `now`."""
    from tests.conftest import write_project
    from tests.test_history import init_repo, listing
    from tests.test_report import TREE, commit_at

    init_repo(root)
    write_project(root, TREE)
    for index, when in enumerate(moments):
        commit_at(root, when, {"allowlist.txt": listing(len(moments) + 4 - index)}, f"commit {index}")
    page = tmp_path / f"{root.name}.html"
    epoch = str(int(datetime.fromisoformat(now).timestamp()))
    proc = subprocess.run(
        [sys.executable, "-m", "hwlint", "report", "--history", "--format", "html", "-o", str(page)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**GIT_ENV, "SOURCE_DATE_EPOCH": epoch},
    )
    assert proc.returncode == 0, proc.stderr
    return page


def assert_readable(labels: list[dict[str, Any]]) -> list[str]:
    """The labels are distinct, in order, and no two overlap (4 px apart at least)."""
    texts = [label["text"] for label in labels]
    assert len(set(texts)) == len(texts), texts
    for before, after in zip(labels, labels[1:]):
        assert after["left"] - before["right"] >= 4, (before, after)
    return texts


def test_adoption_day_axis_shows_times(tmp_path: Path) -> None:
    """Adopted at 07:24, a fix 36 s later, three more commits within the
    hour, the report at 08:15: the axis ticks every 10 minutes, labelled
    with times (the date once, as the axis's title); each commit's dot has
    its time and short hash as a tooltip. It printed 2026-11-29 eleven
    times."""
    moments = [
        "2026-11-29T07:24:18+00:00",
        "2026-11-29T07:24:54+00:00",
        "2026-11-29T07:41:05+00:00",
        "2026-11-29T07:58:30+00:00",
        "2026-11-29T08:02:11+00:00",
    ]
    page = report_of_history(tmp_path / "adopted", moments, "2026-11-29T08:15:00+00:00", tmp_path)
    (chart,) = [axis for axis in measured_axes(page, tmp_path) if axis["id"] == "chart"]
    assert assert_readable(chart["labels"]) == ["07:30", "07:40", "07:50", "08:00", "08:10"]
    assert chart["caption"] == "2026-11-29 (UTC)"
    root = tmp_path / "adopted"
    hashes = git(root, "log", "--reverse", "--format=%h", "--abbrev=10").split()
    assert chart["dots"] == [
        f"2026-11-29 {when[11:16]} UTC, {sha}: {files} files allowlisted"
        for when, sha, files in zip(moments, hashes, (9, 8, 7, 6, 5))
    ]
    # The commits table says the time too (every row has the same date), to
    # the second: two commits share 07:24.
    html = page.read_text()
    table = html.split('<table id="history">', 1)[1].split("</table>", 1)[0]
    assert "<th>date (UTC)</th>" in table
    assert re.findall(r"<tr><td>([^<]+)</td>", table) == [f"2026-11-29 {when[11:19]}" for when in reversed(moments)]


def test_an_axis_over_days_shows_dates_and_over_months_months(tmp_path: Path) -> None:
    """Five commits over three weeks: dates, on Mondays. Over seven months:
    the first of each month, as YYYY-MM. No title: a date needs none."""
    days = [
        "2024-03-04T10:00:00+00:00",
        "2024-03-06T15:30:00+00:00",
        "2024-03-11T09:00:00+00:00",
        "2024-03-18T17:45:00+00:00",
        "2024-03-22T11:00:00+00:00",
    ]
    page = report_of_history(tmp_path / "weeks", days, "2024-03-25T12:00:00+00:00", tmp_path)
    (chart,) = [axis for axis in measured_axes(page, tmp_path) if axis["id"] == "chart"]
    assert assert_readable(chart["labels"]) == ["2024-03-11", "2024-03-18", "2024-03-25"]
    assert chart["caption"] is None
    months = [
        "2024-01-15T10:00:00+00:00",
        "2024-02-20T10:00:00+00:00",
        "2024-04-02T10:00:00+00:00",
        "2024-05-28T10:00:00+00:00",
        "2024-07-30T10:00:00+00:00",
    ]
    page = report_of_history(tmp_path / "months", months, "2024-08-01T12:00:00+00:00", tmp_path)
    (chart,) = [axis for axis in measured_axes(page, tmp_path) if axis["id"] == "chart"]
    assert assert_readable(chart["labels"]) == [
        "2024-02",
        "2024-03",
        "2024-04",
        "2024-05",
        "2024-06",
        "2024-07",
        "2024-08",
    ]
    assert chart["caption"] is None
    # Dates do not repeat in the table: no time, as before.
    assert "<th>date</th>" in page.read_text()


def test_the_axis_check_sees_labels_that_overlap(tmp_path: Path) -> None:
    """The check above fails on what the old axis drew: the same date, over and over, overlapping."""
    page = tmp_path / "overlap.html"
    texts = "".join(f'<text x="{20 + 30 * i}" y="20">2026-11-29</text>' for i in range(3))
    page.write_text(
        f'<!DOCTYPE html><html><body><figure id="chart"><svg width="400" height="40">'
        f'<g class="axis x">{texts}</g></svg></figure></body></html>'
    )
    (chart,) = measured_axes(page, tmp_path)
    assert [label["text"] for label in chart["labels"]] == ["2026-11-29"] * 3
    with pytest.raises(AssertionError):
        assert_readable(chart["labels"])
    distinct = [{**label, "text": str(i)} for i, label in enumerate(chart["labels"])]
    with pytest.raises(AssertionError, match="left"):
        assert_readable(distinct)  # distinct, but 30 px apart: they overlap
