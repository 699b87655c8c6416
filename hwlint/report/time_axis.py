"""Labels for the burn-down's time axis, in every format.

A history can span seconds (adoption day: adopt, then `hwlint fix` a minute
later) or years, and a label that is right for one is wrong for the other:
dates on a history of minutes print the same day eleven times, times on a
history of months say nothing. Two kinds of axis, one rule for both: the
label is as coarse as the span allows and never the same twice.

- `ticks`: a continuous axis (the html chart). Ticks fall on round
  instants, as a chart library's "nice" time ticks do (d3's time scale,
  matplotlib's AutoDateLocator): every 5, 15 or 30 minutes, every 3 or 6
  hours, every day, Monday, first of the month, new year; the step is the
  finest whose labels fit the axis without overlapping. Their format
  follows the step, as matplotlib's AutoDateFormatter does: `%H:%M` for
  steps under a day (the date once, in the axis's caption, and on a
  midnight tick), `%Y-%m-%d` for days and weeks, `%Y-%m` for months, `%Y`
  for years.
- `point_labels`: an axis with one label per point (Mermaid's categorical
  x axis, which merges points whose labels are equal, and the commits
  table): dates when no two points share a day, else times.

Every instant is UTC, as the JSON's dates are; a label showing a time says
so (in the caption or the table's header).
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Literal, Sequence

DAY = 86400

# The steps a continuous axis may tick at, finest first: ("s", seconds) on
# multiples of the step since the epoch (so 15 minutes fall on :00, :15,
# ...; a day on midnight UTC), ("w", weeks) on Mondays, ("M", months) on
# the first of the month, ("y", years) on the first of January: the unit
# (Unit) and how many of it.
Unit = Literal["s", "w", "M", "y"]
_STEPS: tuple[tuple[Unit, int], ...] = (
    *(("s", n) for n in (1, 2, 5, 10, 15, 30)),
    *(("s", 60 * n) for n in (1, 2, 5, 10, 15, 30)),
    *(("s", 3600 * n) for n in (1, 2, 3, 6, 12)),
    ("s", DAY),
    ("s", 2 * DAY),
    ("w", 1),
    ("w", 2),
    ("M", 1),
    ("M", 2),
    ("M", 3),
    ("M", 6),
    *(("y", n) for n in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)),
)

# A unit's length in seconds (about, for months and years: to skip steps far too fine).
_SIZE: dict[Unit, float] = {"s": 1, "w": 7 * DAY, "M": 30.44 * DAY, "y": 365.25 * DAY}

# Ticks on an axis however wide: more read as a fence (d3's default is ten).
MOST_TICKS = 10
# Characters of space a label needs beyond its own: the gap to the next one.
_GAP = 4
# Monday 1970-01-05, 00:00 UTC: where weeks start.
_MONDAY = 4 * DAY


@dataclass(frozen=True)
class Axis:
    """A continuous time axis: its ticks (instant, label), oldest first,
    and a caption (what the labels leave out: the date of a sub-day axis,
    the time zone), or None."""

    ticks: tuple[tuple[datetime, str], ...]
    caption: str | None


def utc(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc)


def parse_iso(iso: str) -> datetime:
    """A report date (`YYYY-MM-DDTHH:MM:SSZ`, or a `YYYY-MM-DD` day) as an aware UTC datetime."""
    fmt = "%Y-%m-%d" if len(iso) == 10 else "%Y-%m-%dT%H:%M:%SZ"
    return datetime.strptime(iso, fmt).replace(tzinfo=timezone.utc)


def _instants(kind: Unit, step: int, start: float, end: float) -> list[float]:
    """The round instants of one step in [start, end]."""
    if kind in ("s", "w"):
        size, offset = (step, 0) if kind == "s" else (step * 7 * DAY, _MONDAY)
        first = -(-(start - offset) // size) * size + offset
        count = int((end - first) // size) + 1
        return [first + i * size for i in range(max(0, count))]
    found: list[float] = []
    begin, last = utc(start), utc(end)
    if kind == "M":
        month = (begin.year * 12 + begin.month - 1) // step * step
        while True:
            when = datetime(month // 12, month % 12 + 1, 1, tzinfo=timezone.utc).timestamp()
            if when > end:
                return found
            if when >= start:
                found.append(when)
            month += step
    year = begin.year // step * step
    while year <= last.year:
        if year >= 1:
            when = float(calendar.timegm((year, 1, 1, 0, 0, 0)))
            if start <= when <= end:
                found.append(when)
        year += step
    return found


def _label(kind: Unit, step: int, when: datetime, within_a_day: bool) -> str:
    if kind == "y":
        return when.strftime("%Y")
    if kind == "M":
        return when.strftime("%Y-%m")
    if kind == "w" or step >= DAY or (when.hour, when.minute, when.second) == (0, 0, 0):
        # A day, or midnight on an axis of hours: the date says where the day changes.
        return when.strftime("%Y-%m-%d")
    clock = "%H:%M:%S" if step < 60 else "%H:%M"
    return when.strftime(clock if within_a_day else f"%Y-%m-%d {clock}")


def ticks(start: datetime, end: datetime, room: int = 130) -> Axis:
    """Nice ticks for an axis from `start` to `end` that is `room`
    characters of label text wide: the finest step whose labels, each
    with a gap, fit in it (at most MOST_TICKS). An empty span is widened
    to a minute, so that a single commit still has an axis."""
    first, last = start.timestamp(), end.timestamp()
    if last - first < 1:
        first, last = first - 30, first + 30
    within_a_day = last - first < DAY
    chosen: tuple[tuple[Unit, int], list[tuple[datetime, str]]] | None = None
    for kind, step in _STEPS:
        if (last - first) / (step * _SIZE[kind]) > MOST_TICKS + 1:
            continue  # too many ticks whatever their labels (and a year of seconds is not listed)
        instants = [utc(t) for t in _instants(kind, step, first, last)]
        labelled = [(when, _label(kind, step, when, within_a_day)) for when in instants]
        if not labelled:
            continue
        longest = max(len(label) for _, label in labelled)
        chosen = ((kind, step), labelled)
        if len(labelled) <= min(MOST_TICKS, room // (longest + _GAP)):
            break
    assert chosen is not None  # the coarsest step always has its year, or none before it fit
    (kind, step), labelled = chosen
    return Axis(tuple(labelled), _caption(kind, step, utc(first), utc(last)))


def _caption(kind: Unit, step: int, first: datetime, last: datetime) -> str | None:
    if kind != "s" or step >= DAY:
        return None
    if last - first >= timedelta(days=1):
        return "UTC"
    days = sorted({first.strftime("%Y-%m-%d"), last.strftime("%Y-%m-%d")})
    return f"{' to '.join(days)} (UTC)"


def point_labels(instants: Sequence[datetime], *, dated: bool = False) -> tuple[list[str], str | None]:
    """One distinct label per instant, and a caption for what they leave
    out (None when nothing is). Dates when no two instants share a UTC
    day; else, when all fall on one day and not `dated`, times (seconds
    when two share a minute) with that day in the caption; else the date
    and time. `dated`: every label stands alone (a table's rows).
    Instants still equal to the second get a counter: (2), (3)."""
    if not instants:
        return [], None
    days = [when.strftime("%Y-%m-%d") for when in instants]
    if len(set(days)) == len(days):
        return days, None
    one_day = len(set(days)) == 1 and not dated
    labels: list[str] = []
    for clock in ("%H:%M", "%H:%M:%S"):
        fmt = clock if one_day else f"%Y-%m-%d {clock}"
        labels = [when.strftime(fmt) for when in instants]
        if len(set(labels)) == len(labels):
            break
    seen: dict[str, int] = {}
    unique = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        unique.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return unique, f"{days[0]} (UTC)" if one_day else "UTC"
