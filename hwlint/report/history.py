"""What a report reads of the allowlist's git history: the points of
`--history`, the phases' burn-down (counted per phase in the same pass over
the list's versions), and the list's largest size, its adoption, when that
is the baseline."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from hwlint.allowlist.history import HistoryPoint, allowlist_history, largest_size
from hwlint.infra.git import GitError

if TYPE_CHECKING:
    from hwlint.core.config import Config


class ReportHistory(NamedTuple):
    """build_report's `history`, `phase_history` and `largest`."""

    points: list[HistoryPoint] | None  # with --history only
    phase_points: list[HistoryPoint] | None  # None without phases, or without git
    largest: int | None  # None: not read, or no history


def read_history(config: Config, history: bool, baseline: int | None) -> ReportHistory:
    """The history a report of `config` shows: all of it with `history`
    (`--history`: git's errors are the user's), else quietly what the phases
    or the baseline need (`baseline`: the `--baseline` option)."""
    groups: dict[str, Any] = {}
    if config.phases:
        from hwlint.allowlist.phases import PhaseMap

        groups = {"group": PhaseMap(config.phases, config.source).index_of, "groups": len(config.phases)}
    if history:
        points = allowlist_history(config.root, config.allowlist, **groups)
        return ReportHistory(points, points, None)
    if config.phases:
        # The phases' burn-down, read quietly like the baseline below: without
        # git the phases lack their start and projection.
        try:
            phase_points = allowlist_history(config.root, config.allowlist, **groups)
        except GitError:
            phase_points = None
        largest = max(p.allowlisted for p in phase_points) if phase_points else None
        return ReportHistory(None, phase_points, largest)
    if baseline is None and config.baseline is None:
        # The baseline is the list's adoption, read from git (quietly: a
        # report outside a repository falls back on the list's size).
        return ReportHistory(None, None, largest_size(config.root, config.allowlist))
    return ReportHistory(None, None, None)
