"""Migration phases agreed with maintainers (`[[tool.hwlint.phases]]`):
which phase a file is in, which allowlisted files are overdue (HWC305), and
each phase's status for the report.

A stage: plain functions of their inputs (the configuration's phases, the
allowlist, the history points, today's date). No cache, no command line.

The rules, written down once (the report and the README quote them):

- A file belongs to the first phase, in configuration order, whose `paths`
  (gitignore-style, like `include`) match it.
- **done**: no allowlisted file is left in the phase.
- **overdue**: files are left and today is after `due`.
- **at risk**: files are left, it is not due yet, and the phase's burn-down
  (its files in each version of the allowlist, from git history) at its
  current pace reaches zero after `due`, or does not go down at all.
- **on track**: files are left, it is not due yet, and the projection reaches
  zero by `due`, or there is no history to measure a pace from (no git, or
  too short a history: see below): nothing says otherwise.

The projection is hwlint.allowlist.history.project_zero's (least squares over the
last 90 days of allowlist commits) applied to the phase's own counts, with
the report's gate (hwlint.allowlist.history.projection_gap): no projected date from
fewer than 3 points or less than 7 days of them, so that a phase is not
called at risk, or given a date, from a few seconds of adoption-day commits.
"""

from __future__ import annotations

import os
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any, Iterable, Literal, NamedTuple

from hwlint.core.config import Phase
from hwlint.core.diagnostics import Diagnostic, UserError
from hwlint.facts.discover import pattern_spec
from hwlint.rules import phase_overdue

if TYPE_CHECKING:
    from pathlib import Path

    from hwlint.allowlist.history import HistoryPoint
    from hwlint.allowlist.model import Allowlist

ENV_TODAY = "HWLINT_TODAY"
# A phase's status (the rules above say when each holds).
Status = Literal["done", "on-track", "at-risk", "overdue"]
STATUSES: tuple[Status, ...] = ("done", "on-track", "at-risk", "overdue")


def parse_day(text: str, where: str) -> date:
    """A YYYY-MM-DD date given by the user; UserError naming `where` otherwise."""
    try:
        if len(text) != 10:
            raise ValueError
        return date.fromisoformat(text)
    except ValueError:
        raise UserError(f"{where} must be a date YYYY-MM-DD, got {text!r}") from None


def today(default: date | None = None) -> date:
    """The date phases are judged on when no option says: $HWLINT_TODAY,
    else `default`, else today in UTC (CI machines run in UTC; a team
    spread over time zones gets one answer)."""
    pinned = os.environ.get(ENV_TODAY)
    if pinned:
        return parse_day(pinned, ENV_TODAY)
    return default or datetime.now(timezone.utc).date()


class PhaseMap:
    """Which phase a root-relative path belongs to."""

    def __init__(self, phases: tuple[Phase, ...], source: Path | None = None) -> None:
        """`source`: the configuration file, named when a pattern is invalid."""
        self.phases = phases
        self._specs = [
            pattern_spec(phase.paths, f"{source}: [[tool.hwlint.phases]] ({phase.name}) paths") for phase in phases
        ]

    def index_of(self, path: str) -> int | None:
        for index, spec in enumerate(self._specs):
            if spec.match_file(path):
                return index
        return None

    def phase_of(self, path: str) -> Phase | None:
        index = self.index_of(path)
        return None if index is None else self.phases[index]

    def named(self, name: str, where: str) -> int:
        """The index of the phase called `name`; UserError naming `where`
        (the option) and listing the phases otherwise."""
        for index, phase in enumerate(self.phases):
            if phase.name == name:
                return index
        known = ", ".join(p.name for p in self.phases) or "none are configured: see [[tool.hwlint.phases]]"
        raise UserError(f"{where}: no phase named {name!r} (phases: {known})")


def overdue_entries(
    allowlist: Allowlist,
    phases: tuple[Phase, ...],
    on: date,
    checked: set[str],
    whole_tree: bool,
    settings: str,
    source: Path | None = None,
) -> list[Diagnostic]:
    """HWC305 for each entry in a phase due before `on`: every such entry
    after a whole-tree run, those of the files checked otherwise (like
    HWC301/HWC302). An entry whose file is clean or gone gets HWC301 too:
    one edit, removing the line, settles both. `settings`: the
    configuration file, named in the message (`source`: its path)."""
    due = [p for p in phases if p.due < on]
    if not due:
        return []
    phase_map = PhaseMap(phases, source)
    found = []
    for path, entry in allowlist.entries.items():
        if not whole_tree and path not in checked:
            continue
        phase = phase_map.phase_of(path)
        if phase is None or not phase.due < on:
            continue
        found.append(phase_overdue.overdue(allowlist.path, entry.line, path, phase, settings))
    return found


class PhaseStatus(NamedTuple):
    phase: Phase
    files_left: int
    files_at_start: int | None  # None without history
    projected_done: str | None  # YYYY-MM-DD
    status: Status
    burndown: list[tuple[str, int]]  # (YYYY-MM-DD, files), oldest first; [] without history
    pace: float | None  # files per day (negative when shrinking), None without a measured pace

    def to_dict(self) -> dict[str, Any]:
        """The report's JSON object: exactly the keys dashboards read."""
        return {
            "name": self.phase.name,
            "due": self.phase.due.isoformat(),
            "paths": list(self.phase.paths),
            "owners": list(self.phase.owners),
            "files_at_start": self.files_at_start,
            "files_left": self.files_left,
            "projected_done": self.projected_done,
            "status": self.status,
        }


def _since_start(points: list[HistoryPoint], start: date | None) -> list[HistoryPoint]:
    """The phase's burn-down from its start: the points from `start` on,
    led by the last one before it (the list as it was when the phase began)."""
    if start is None or not points:
        return points
    from hwlint.allowlist.history import HistoryPoint

    moment = int(datetime(start.year, start.month, start.day, tzinfo=timezone.utc).timestamp())
    before = [p for p in points if p.timestamp < moment]
    after = [p for p in points if p.timestamp >= moment]
    if before:
        last = before[-1]
        after.insert(0, HistoryPoint(last.commit, moment, last.allowlisted, last.groups))
    return after


def phase_statuses(
    phases: tuple[Phase, ...],
    allowlisted: Iterable[str],
    history: list[HistoryPoint] | None,
    on: date,
    source: Path | None = None,
) -> list[PhaseStatus]:
    """Each phase's figures, in configuration order. `history`: points of
    allowlist_history(..., group=PhaseMap(phases).index_of, groups=len(phases)),
    or None when there is none; `on`: today; `source`: the configuration file."""
    # Here, not at the top: `hwlint check` needs this module's HWC305 on
    # every commit, and history's imports would be paid for nothing.
    from hwlint.allowlist.history import HistoryPoint, project_zero, projection_gap

    phase_map = PhaseMap(phases, source)
    left = [0] * len(phases)
    for path in allowlisted:
        index = phase_map.index_of(path)
        if index is not None:
            left[index] += 1
    statuses = []
    for index, phase in enumerate(phases):
        points = [HistoryPoint(p.commit, p.timestamp, p.groups[index]) for p in history or []]
        points = _since_start(points, phase.start)
        # None when the phase's history is too short to mean a pace (unless it is already at zero).
        projection = project_zero(points) if projection_gap(points) is None else None
        projected = projection.date if projection else None
        status: Status
        if left[index] == 0:
            status = "done"
        elif phase.due < on:
            status = "overdue"
        elif projection is not None and (projected is None or projected > phase.due.isoformat()):
            status = "at-risk"
        else:
            status = "on-track"
        statuses.append(
            PhaseStatus(
                phase,
                left[index],
                points[0].allowlisted if points else None,
                projected,
                status,
                [(p.date[:10], p.allowlisted) for p in points],
                projection.files_per_day if projection is not None and projection.method != "reached" else None,
            )
        )
    return statuses
