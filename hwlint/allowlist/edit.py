"""Changing the allowlist: the ratchet's local half.

The new list is computed by pure functions (hwlint.allowlist.plan) from the
parsed list and the per-file violation counts of a check run, and written
under a lock, atomically (hwlint.allowlist.rewrite): `prune_allowlist`,
`sync_allowlist`, `init_allowlist`, `import_allowlist` here, each returning
what changed (hwlint.allowlist.change). Reading and judging the list (what
`hwlint check` needs) is `hwlint.allowlist.model`; PyTorch's JSON list is
`hwlint.allowlist.json_list`.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import TYPE_CHECKING, Callable, Sequence

from hwlint.allowlist.change import AllowlistChange
from hwlint.allowlist.model import Allowlist, counted, load_allowlist
from hwlint.allowlist.plan import Plan, TreeCounts, plan_import, plan_init, plan_prune, plan_sync, render_allowlist
from hwlint.allowlist.rewrite import allowlist_lock, write_list
from hwlint.core.diagnostics import UserError

if TYPE_CHECKING:
    from hwlint.core.config import Config
    from hwlint.engine.check import CheckResult


def configured_rules(config: Config) -> frozenset[str]:
    """The rules budgets count: `select`/`ignore` of the configuration."""
    from hwlint.rules import enabled_codes

    return enabled_codes(tuple(config.select), tuple(config.ignore))


def tree_counts(config: Config, result: CheckResult, *, jobs: int | None = None) -> TreeCounts:
    """Per-file counts of a check run, exactly as `apply_allowlist` counts them.

    Allowlisted files are exempt in `result.diagnostics`; their counts come
    from `result.allowlist_counts`. A run with other rules than the
    configured ones (`check --select ... --fix`) cannot set budgets, which
    count the configured rules: the files it checked are linted again.
    """
    if result.enabled != configured_rules(config):
        paths = [ctx.path for ctx in result.contexts]
        if not result.whole_tree and not paths:
            return TreeCounts({}, frozenset(), False)
        result = result.recheck(jobs=jobs)
    broken = frozenset(ctx.path for ctx in result.contexts if ctx.facts.error is not None)
    counts = {ctx.path: 0 for ctx in result.contexts if ctx.path not in broken}
    listed = result.allowlist_counts
    for diag in result.diagnostics:
        if diag.path in counts and diag.path not in listed and counted(diag.code):
            counts[diag.path] += 1
    counts.update({path: n for path, n in listed.items() if path in counts})
    return TreeCounts(counts, broken, result.whole_tree)


def _exists(config: Config) -> Callable[[str], bool]:
    return lambda rel: (config.root / rel).is_file()


def _renames(config: Config, allowlist: Allowlist, tree: TreeCounts) -> dict[str, str]:
    """old -> new for listed files that are gone and that git saw renamed to
    a test file hwlint lints. git is asked only when an entry's file is gone."""
    exists = _exists(config)
    gone = [path for path in allowlist.entries if not tree.checked(path) and not exists(path)]
    if not gone:
        return {}
    from hwlint.allowlist.ratchet import local_renames
    from hwlint.facts.discover import Matcher

    seen = local_renames(config.root)
    matcher = Matcher(config)
    renames: dict[str, str] = {}
    for path in gone:
        target = seen.get(path)
        if target is None or not exists(target):
            continue
        if tree.checked(target) or (not tree.whole_tree and matcher.selected(target)):
            renames[path] = target
    return renames


def _apply(config: Config, compute: Callable[[Allowlist], tuple[Plan, bool]], *, write: bool) -> AllowlistChange:
    """Read the list, compute the plan, write it: under the lock when writing,
    so that a concurrent run's changes are read, not overwritten."""
    with allowlist_lock(config) if write else nullcontext():
        allowlist = load_allowlist(config.root, config.allowlist)
        plan, may_create = compute(allowlist)
        change = AllowlistChange(
            allowlist.path,
            allowlist.exists,
            plan.actions,
            plan.refused,
            plan.blocked,
            entries_before=len(allowlist.entries),
            entries_after=len(plan.budgets),
        )
        if not change.changed or (not allowlist.exists and not may_create):
            change.entries_after = len(allowlist.entries)
            return change
        change.text = render_allowlist(allowlist, plan, attribute=config.attribute)
        if write:
            write_list(config, change.text, "make it and its folder writable", plan.budgets)
            change.written = True
        return change


def prune_allowlist(config: Config, result: CheckResult, *, write: bool, jobs: int | None = None) -> AllowlistChange:
    """Prune the allowlist after a check run (`hwlint allowlist prune`,
    `hwlint check --fix`, and `hwlint fix` after it fixed files: pass it a
    fresh CheckResult). Only entries of files `result` checked are judged,
    plus entries of files that are gone."""
    tree = tree_counts(config, result, jobs=jobs)
    exists = _exists(config)

    def compute(allowlist: Allowlist) -> tuple[Plan, bool]:
        plan = plan_prune(allowlist, tree, exists=exists, renames=_renames(config, allowlist, tree))
        return plan, False

    return _apply(config, compute, write=write)


def sync_allowlist(
    config: Config, result: CheckResult, *, allow_growth: bool, write: bool, jobs: int | None = None
) -> AllowlistChange:
    """Rebuild the allowlist from a whole-tree check run (`hwlint allowlist sync`)."""
    if not result.whole_tree:
        raise ValueError("sync needs a check run over the whole tree")
    tree = tree_counts(config, result, jobs=jobs)
    exists = _exists(config)

    def compute(allowlist: Allowlist) -> tuple[Plan, bool]:
        plan = plan_sync(
            allowlist, tree, exists=exists, renames=_renames(config, allowlist, tree), allow_growth=allow_growth
        )
        return plan, True

    return _apply(config, compute, write=write)


def init_allowlist(config: Config, result: CheckResult, *, jobs: int | None = None) -> AllowlistChange:
    """Create the allowlist from a whole-tree check run (`hwlint allowlist
    init`): the tree as it is becomes the budget. Refuses (UserError) when a
    list exists, even an empty one: adopting twice would hide what was fixed
    or broken since."""
    if not result.whole_tree:
        raise ValueError("init needs a check run over the whole tree")
    tree = tree_counts(config, result, jobs=jobs)
    with allowlist_lock(config):
        allowlist = load_allowlist(config.root, config.allowlist)
        if allowlist.exists:
            n = len(allowlist.entries)
            raise UserError(
                f"{allowlist.path} already exists ({n} entr{'y' if n == 1 else 'ies'}): `hwlint allowlist init` "
                "only creates a list; `hwlint allowlist prune` shrinks it, `hwlint allowlist sync` rebuilds it"
            )
        plan = plan_init(tree)
        change = AllowlistChange(allowlist.path, False, plan.actions, entries_after=len(plan.budgets))
        change.text = render_allowlist(allowlist, plan, attribute=config.attribute)
        write_list(config, change.text, "make its folder writable", plan.budgets)
        change.written = True
        return change


def import_allowlist(
    config: Config,
    result: CheckResult,
    paths: Sequence[str],
    *,
    allow_growth: bool,
    write: bool,
    jobs: int | None = None,
) -> tuple[AllowlistChange, list[str]]:
    """Replace the allowlist's entries with `paths`, at their current counts
    (`hwlint allowlist import-json`). Returns the change and the skipped paths."""
    if not result.whole_tree:
        raise ValueError("import needs a check run over the whole tree")
    tree = tree_counts(config, result, jobs=jobs)
    skipped: list[str] = []

    def compute(allowlist: Allowlist) -> tuple[Plan, bool]:
        plan, skips = plan_import(allowlist, tree, paths, allow_growth=allow_growth)
        skipped[:] = skips
        return plan, True

    return _apply(config, compute, write=write), skipped
