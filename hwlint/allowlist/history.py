"""History: the allowlist's size at every commit that changed it, and when
the trend reaches zero.

Old trees are never linted again: the allowlist *is* the number that goes to
zero, so its blob at each commit is all that is read. The number of git
processes does not grow with the history: one `git log` lists the commits
that touched the file, one `git cat-file --batch` streams every version of
it (a `git show` per commit would cost a process start each, seconds for a
thousand commits), and only the lines that changed between versions are
parsed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

from hwlint.infra.git import GitError, NotARepository, check_repository, read_blobs, run_git

_CONFLICT = (b"<<<<<<<", b"=======", b">>>>>>>", b"|||||||")

# The projection's window: the allowlist commits of the last 90 days before
# the newest one. Long enough to smooth out a busy week, short enough to
# follow a change of pace.
WINDOW_DAYS = 90

# No projection before the history means something. On adoption day the
# list has two versions a few seconds apart (adopt, then `hwlint fix`): a
# slope through them read -684,000 files/day and gave a date. Three commits
# are two changes, the fewest that show a pace rather than one event (and
# the fewest for which least squares is not an exact line through the
# points); seven days are a working week, so one busy afternoon cannot set
# the rate, and a team that migrates weekly gets its date within its first
# fortnight.
MIN_PROJECTION_COMMITS = 3
MIN_PROJECTION_DAYS = 7


@dataclass(frozen=True)
class HistoryPoint:
    commit: str  # full hash
    timestamp: int  # committer date, seconds since the epoch
    allowlisted: int  # files listed in this version (0 when the file was deleted)
    # With allowlist_history's `group`: files listed in this version per
    # group (a migration phase), by index.
    groups: tuple[int, ...] = ()

    @property
    def date(self) -> str:
        return iso_utc(self.timestamp)

    def to_dict(self) -> dict[str, object]:
        return {"commit": self.commit, "date": self.date, "allowlisted": self.allowlisted}


@dataclass(frozen=True)
class Projection:
    """A straight-line projection of the allowlist's size to zero."""

    date: str | None  # YYYY-MM-DD (UTC), None when the trend does not reach zero
    files_per_day: float  # the fitted slope (negative when shrinking)
    points: int  # history points the line was fitted to
    window_days: int = WINDOW_DAYS
    method: str = "least-squares"  # or "reached": the list is empty, `date` is when it emptied

    def to_dict(self) -> dict[str, object]:
        return {
            "method": self.method,
            "window_days": self.window_days,
            "points": self.points,
            "files_per_day": round(self.files_per_day, 4),
        }


def iso_utc(timestamp: int) -> str:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _listed(line: bytes) -> bytes | None:
    """The path a line of the allowlist lists: its first word, unless the
    line is blank, a comment or a conflict marker."""
    words = line.split(None, 1)
    if not words or words[0].startswith(b"#") or words[0].startswith(_CONFLICT):
        return None
    return words[0]


def count_entries(blob: bytes) -> int:
    """Files listed in one version of the allowlist: the distinct first
    words of its lines that are not blank, comments or conflict markers (a
    path listed twice is one file, as `hwlint check` reads it)."""
    return len({path for path in map(_listed, blob.split(b"\n")) if path is not None})


def count_versions(blobs: list[bytes | None]) -> list[int]:
    """count_entries of each version (see count_versions_by_group)."""
    return [count for count, _ in count_versions_by_group(blobs)]


def count_versions_by_group(
    blobs: list[bytes | None], group: Callable[[str], int | None] | None = None, groups: int = 0
) -> list[tuple[int, tuple[int, ...]]]:
    """count_entries of each version (None: the file did not exist), in
    order, without parsing every line of every version.

    Consecutive versions share nearly all their lines, so only the lines
    that differ from the previous version are parsed, in Python; splitting
    and the set differences run in C. For 1,000 versions of a 1,000-line
    list that is a few thousand parsed lines instead of a million.

    Each version's (count, files per group): `group` maps a path to an
    index below `groups` (or None); a path's group is looked up when it
    enters or leaves the list, not for every version.
    """
    counts: list[tuple[int, tuple[int, ...]]] = []
    tally = [0] * groups
    group_of: dict[bytes, int | None] = {}
    previous: set[bytes] = set()
    paths: dict[bytes, int] = {}  # path -> distinct lines naming it

    def moved(path: bytes, step: int) -> None:
        if group is None:
            return
        if path not in group_of:
            group_of[path] = group(path.decode("utf-8", "surrogateescape"))
        index = group_of[path]
        if index is not None:
            tally[index] += step

    for blob in blobs:
        current = set(blob.split(b"\n")) if blob else set()
        for line in previous - current:
            path = _listed(line)
            if path is not None:
                if paths[path] == 1:
                    del paths[path]
                    moved(path, -1)
                else:
                    paths[path] -= 1
        for line in current - previous:
            path = _listed(line)
            if path is not None:
                if path not in paths:
                    moved(path, 1)
                paths[path] = paths.get(path, 0) + 1
        counts.append((len(paths), tuple(tally)))
        previous = current
    return counts


def _check_repository(root: Path) -> None:
    try:
        check_repository(root, "--history")
    except NotARepository as exc:
        if exc.reason is None:
            raise GitError(
                f"--history reads the allowlist's git history, but {root} is not in a git repository"
            ) from None
        raise GitError(f"--history: git cannot read the repository at {root}: {exc.reason}") from None


def allowlist_history(
    root: Path, allowlist: str, group: Callable[[str], int | None] | None = None, groups: int = 0
) -> list[HistoryPoint]:
    """The allowlist's size at every commit of HEAD's first-parent history
    that changed it, oldest first; with `group` (see count_versions), the
    size per group too (HistoryPoint.groups).

    First parent only: on a branch that merges pull requests, each point is
    a state the main line really had, not a commit of a side branch.
    Raises GitError (a UserError) outside a git repository.
    """
    _check_repository(root)
    if not run_git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False).strip():
        return []  # a repository without commits has no history yet
    log = run_git(
        root,
        # log.follow would follow renames of the file: the history of this
        # path is what is asked for, whatever the user's settings.
        "-c",
        "log.follow=false",
        "log",
        "--first-parent",
        "--format=%H %ct",
        "HEAD",
        "--",
        allowlist,
    )
    commits: list[tuple[str, int]] = []
    for line in log.splitlines():
        sha, _, stamp = line.partition(" ")
        if sha and stamp.strip().lstrip("-").isdigit():
            commits.append((sha, int(stamp)))
    commits.reverse()
    # `./path` makes git read the path relative to the project root, which
    # may be a folder inside the repository.
    blobs = read_blobs(root, [f"{sha}:./{allowlist}" for sha, _ in commits], "--history")
    counted = count_versions_by_group(blobs, group, groups)
    return [HistoryPoint(sha, stamp, size, tally) for (sha, stamp), (size, tally) in zip(commits, counted)]


def largest_size(root: Path, allowlist: str) -> int | None:
    """The most files the allowlist has listed at any commit of HEAD's
    first-parent history (the adoption, usually): the report's baseline when
    none is configured. None without such a history: outside a repository,
    before the first commit, or when git cannot read it. Costs the same two
    git processes as `--history`."""
    try:
        points = allowlist_history(root, allowlist)
    except GitError:
        return None
    return max((p.allowlisted for p in points), default=None)


def duration(seconds: int) -> str:
    """A span of time as a person says it: "36 seconds", "5 hours", "6 days"
    (whole units, rounded down: 6.9 days is not yet 7)."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def projection_gap(history: list[HistoryPoint]) -> str | None:
    """Why `history` is too short to project from, as a clause the report
    prints ("the history spans 36 seconds and 2 commits; a projection needs
    at least 7 days and 3 commits"), or None when it is long enough, empty,
    or ends at zero (the date zero was reached is a fact, not a projection)."""
    if not history or history[-1].allowlisted == 0:
        return None
    span = history[-1].timestamp - history[0].timestamp
    if len(history) >= MIN_PROJECTION_COMMITS and span >= MIN_PROJECTION_DAYS * 86400:
        return None
    need = f"a projection needs at least {MIN_PROJECTION_DAYS} days and {MIN_PROJECTION_COMMITS} commits"
    if len(history) == 1:
        return f"the history has 1 commit; {need}"
    return f"the history spans {duration(max(0, span))} and {len(history)} commits; {need}"


def project_zero(history: list[HistoryPoint], window_days: int = WINDOW_DAYS) -> Projection | None:
    """When the allowlist reaches zero at the recent rate.

    The rate is the least-squares slope of (committer date, files
    allowlisted) over the history points dated within `window_days` of the
    newest one, reaching back to older points while those span fewer than
    two points or MIN_PROJECTION_DAYS (two commits seconds apart after a
    quiet quarter are no rate). Callers that show the date check
    projection_gap first: this function projects from any two points. The projection
    starts from the newest point, so it never lands before it: zero is
    reached after newest.allowlisted / -slope days. The date is None when
    the line is not going down; when the list is already empty it is the
    date of the commit that emptied it. None without at least two points.
    """
    if not history:
        return None
    newest = history[-1]
    if newest.allowlisted == 0:
        # Done: the date zero was reached, the first point of the final run of zeros.
        index = len(history) - 1
        while index > 0 and history[index - 1].allowlisted == 0:
            index -= 1
        return Projection(iso_utc(history[index].timestamp)[:10], 0.0, 1, window_days, method="reached")
    if len(history) < 2:
        return None
    start = newest.timestamp - window_days * 86400
    window = [p for p in history if p.timestamp >= start]
    least = MIN_PROJECTION_DAYS * 86400
    if len(window) < 2 or newest.timestamp - min(p.timestamp for p in window) < least:
        first = len(history) - 2
        while first > 0 and newest.timestamp - history[first].timestamp < least:
            first -= 1
        window = history[first:]
    xs = [(p.timestamp - newest.timestamp) / 86400 for p in window]
    ys = [float(p.allowlisted) for p in window]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    if spread == 0:  # every point at the same instant: no rate to speak of
        return Projection(None, 0.0, len(window), window_days)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / spread
    if slope >= 0 or not math.isfinite(slope):
        return Projection(None, slope, len(window), window_days)
    days = newest.allowlisted / -slope
    try:
        # Whole seconds: 28 / 0.1 must be 280 days, not a hair less (the day before).
        when = datetime.fromtimestamp(newest.timestamp, tz=timezone.utc) + timedelta(seconds=round(days * 86400))
    except (OverflowError, ValueError):  # centuries away: no date worth printing
        return Projection(None, slope, len(window), window_days)
    return Projection(when.strftime("%Y-%m-%d"), slope, len(window), window_days)
