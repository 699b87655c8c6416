"""The burn-down's series, as the charts with an evenly spaced x axis draw
them (Mermaid's in markdown, the terminal's sparkline), and a phase plan's
value on a day (the plan line beside a phase's burn-down)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Any

from hwlint.report.time_axis import parse_iso


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
