"""Changing the allowlist: the ratchet's local half.

The new list is computed by pure functions (`plan_prune`, `plan_sync`,
`plan_import`) from the parsed list and the per-file violation counts of a
check run, rendered with the user's comments kept (`render_allowlist`), and
written under a lock, atomically (`prune_allowlist`, `sync_allowlist`,
`import_allowlist`). Reading and judging the list (what `hwlint check` needs)
is `hwlint.allowlist.model`.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Literal, Mapping, Sequence

from hwlint.allowlist.model import DEFAULT_HEADER, Allowlist, Record, counted, load_allowlist
from hwlint.core.diagnostics import Diagnostic, UserError
from hwlint.rules.allowlist_syntax import AllowlistSyntax
from hwlint.rules.parse_error import ParseError

if TYPE_CHECKING:
    from hwlint.core.config import Config
    from hwlint.engine.check import CheckResult


# ---------------------------------------------------------------------------
# Per-file counts: what a budget is compared with.


@dataclass(frozen=True)
class TreeCounts:
    """The violations of each checked file, counted as budgets count them.

    `counts` holds every checked file that parses (0 = clean); `broken` the
    checked files that do not parse (not countable: their entries are kept
    as they are); `whole_tree`: every test file was checked, so an entry of
    a file that was not is stale.
    """

    counts: Mapping[str, int]
    broken: frozenset[str] = frozenset()
    whole_tree: bool = True

    def checked(self, path: str) -> bool:
        return path in self.counts or path in self.broken


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


# ---------------------------------------------------------------------------
# Plans: pure functions from (list, counts) to the new list and what changed.


ActionKind = Literal["remove", "lower", "move", "add", "raise", "merge", "drop", "sort"]
# How a summary counts each kind, in this order ("sort" is said apart).
_DONE: tuple[tuple[ActionKind, str], ...] = (
    ("add", "added"),
    ("raise", "raised"),
    ("remove", "removed"),
    ("lower", "lowered"),
    ("move", "moved"),
    ("merge", "merged"),
    ("drop", "dropped"),
)


@dataclass(frozen=True)
class Action:
    """One change to the list, said the way a user reads it.

    `kind`: remove, lower, move, add, raise (growth, with --allow-growth),
    merge (a duplicate line), drop (a line that is not an entry), sort;
    `refused` growth is an add or raise that was not applied.
    """

    kind: ActionKind
    path: str | None
    line: int | None = None  # the line in the list as it was read
    old: int | None = None
    new: int | None = None
    reason: str = ""
    target: str | None = None  # the new name, for a move

    def describe(self, where: str, *, dry_run: bool = False, refused: bool = False) -> str:
        at = f"{where}:{self.line}: " if self.line else f"{where}: "
        if refused:
            if self.kind == "add":
                return (
                    f"{at}not adding {self.path} ({self.new} violation{'s' if self.new != 1 else ''}): "
                    "classify its test classes, or pass --allow-growth"
                )
            return (
                f"{at}not raising {self.path} from {self.old} to {self.new}: fix its new violations, "
                "or pass --allow-growth"
            )
        verb = {
            "remove": ("removed", "would remove"),
            "lower": ("lowered", "would lower"),
            "move": ("moved", "would move"),
            "add": ("added", "would add"),
            "raise": ("raised", "would raise"),
            "merge": ("merged", "would merge"),
            "drop": ("dropped", "would drop"),
            "sort": ("sorted", "would sort"),
        }[self.kind][dry_run]
        if self.kind == "remove":
            return f"{at}{verb} {self.path}: {self.reason}"
        if self.kind in ("lower", "raise"):
            return f"{at}{verb} {self.path} from {self.old} to {self.new}"
        if self.kind == "move":
            if self.new == self.old:
                budget = f", budget {self.new}"
            else:
                budget = f", budget {'lowered' if (self.new or 0) < (self.old or 0) else 'raised'} from {self.old} to {self.new}"
            return f"{at}{verb} {self.path} to {self.target} (renamed){budget}"
        if self.kind == "add":
            return f"{at}{verb} {self.path} {self.new}"
        if self.kind == "merge":
            return f"{at}{verb} the duplicate line of {self.path} (kept the lowest budget, {self.new})"
        if self.kind == "drop":
            return f"{at}{verb} {self.reason}"
        return f"{at}{verb} the entries"


@dataclass
class Plan:
    budgets: dict[str, int]  # the new list: path -> budget
    sources: dict[str, str] = field(default_factory=dict)  # new path -> the entry it came from (renames)
    actions: list[Action] = field(default_factory=list)
    refused: list[Action] = field(default_factory=list)
    blocked: list[Diagnostic] = field(default_factory=list)  # problems that stop the plan


def _base_budgets(allowlist: Allowlist) -> dict[str, tuple[int, int]]:
    """path -> (lowest budget on any of its lines, first line). The lowest,
    so that neither a duplicate nor the other side of a merge conflict can
    raise a budget."""
    base: dict[str, tuple[int, int]] = {}
    for rec in allowlist.records:
        if rec.kind in ("entry", "duplicate") and rec.path is not None and rec.budget is not None:
            if rec.path in base:
                base[rec.path] = (min(base[rec.path][0], rec.budget), base[rec.path][1])
            else:
                base[rec.path] = (rec.budget, rec.line)
    return base


def _layout_actions(allowlist: Allowlist, budgets: Mapping[str, int]) -> list[Action]:
    """Lines that go because they are not entries, merged duplicates, and a
    re-sort: what rewriting the list changes besides budgets."""
    actions: list[Action] = []
    for rec in allowlist.records:
        if rec.kind == "conflict":
            actions.append(Action("drop", None, rec.line, reason="a merge-conflict marker"))
        elif rec.kind == "bad-path":
            actions.append(Action("drop", rec.path, rec.line, reason=f"{rec.text.strip()!r}: not a root-relative path"))
        elif rec.kind == "malformed":
            actions.append(
                Action(
                    "drop",
                    rec.path,
                    rec.line,
                    reason=f"{rec.text.strip()!r}: "
                    + ("no budget" if rec.budget is None else "not `<path> <violations allowed>`"),
                )
            )
        elif rec.kind == "duplicate" and rec.path is not None and rec.path in budgets:
            actions.append(Action("merge", rec.path, rec.line, new=budgets[rec.path]))
    kept = [
        rec.path for rec in allowlist.records if rec.kind == "entry" and rec.path is not None and rec.path in budgets
    ]
    if kept != sorted(kept):
        actions.append(Action("sort", None))
    return actions


def _judge_listed(
    allowlist: Allowlist,
    tree: TreeCounts,
    exists: Callable[[str], bool],
    renames: Mapping[str, str],
    grow: bool | None,
) -> Plan:
    """The entries already listed: removed, lowered, moved, kept, or (sync
    with growth) raised. `grow`: None for prune (never raises), False for a
    sync that refuses growth, True for one that allows it."""
    base = _base_budgets(allowlist)
    plan = Plan({})
    for path, (budget, line) in sorted(base.items()):
        target = path
        if path in tree.broken:
            plan.budgets[path] = budget  # does not parse: cannot be counted, keep it
            continue
        if path in tree.counts:
            count: int | None = tree.counts[path]
        elif not exists(path) and path in renames:
            target = renames[path]
            if target in base:
                plan.actions.append(
                    Action("remove", path, line, budget, reason=f"renamed to {target}, which has its own entry")
                )
                continue
            if target in tree.broken:
                count = None
            else:
                count = tree.counts.get(target)  # None: the new file was not checked in this run
        elif not exists(path):
            plan.actions.append(Action("remove", path, line, budget, reason="no longer exists"))
            continue
        elif tree.whole_tree:
            plan.actions.append(
                Action("remove", path, line, budget, reason="not a test file hwlint lints (see include/exclude)")
            )
            continue
        else:
            plan.budgets[path] = budget  # not part of this run: not judged
            continue
        new = budget
        if count == 0:
            reason = "clean now" if target == path else f"renamed to {target}, which is clean now"
            plan.actions.append(Action("remove", path, line, budget, reason=reason))
            continue
        if count is not None and count < budget:
            new = count
        elif count is not None and count > budget and grow is not None:
            if grow:
                new = count
            else:
                plan.refused.append(Action("raise", target, line, budget, count))
        plan.budgets[target] = new
        if target != path:
            plan.sources[target] = path
            plan.actions.append(Action("move", path, line, budget, new, target=target))
        elif new < budget:
            plan.actions.append(Action("lower", path, line, budget, new))
        elif new > budget:
            plan.actions.append(Action("raise", path, line, budget, new))
    return plan


def _in_line_order(actions: list[Action]) -> list[Action]:
    """Changes in the order of the lines they touch; additions and the
    re-sort (no line) last."""
    return sorted(actions, key=lambda a: (a.line is None, a.line or 0))


def _blocking(allowlist: Allowlist) -> list[Diagnostic]:
    """Lines prune will not guess about: conflict markers, lines without a
    budget, paths that are not root-relative. `sync` rebuilds such a list."""
    lines = {rec.line for rec in allowlist.records if rec.kind in ("conflict", "malformed", "bad-path")}
    return [p for p in allowlist.problems if p.line in lines]


def plan_prune(
    allowlist: Allowlist,
    tree: TreeCounts,
    *,
    exists: Callable[[str], bool],
    renames: Mapping[str, str] | None = None,
) -> Plan:
    """Remove clean and missing files, lower budgets to the current counts.

    Never adds a file and never raises a budget. Entries of files this run
    did not check are left alone unless their file is gone (or, on a whole
    tree run, is no longer a linted test file). A file git saw renamed keeps
    its entry under the new name. A list with conflict markers, lines
    without a budget or bad paths is not touched (`plan.blocked`).
    """
    blocked = _blocking(allowlist)
    if blocked:
        current = {path: entry.budget for path, entry in allowlist.entries.items()}
        return Plan(current, blocked=blocked)
    plan = _judge_listed(allowlist, tree, exists, renames or {}, grow=None)
    plan.actions = _in_line_order(_layout_actions(allowlist, plan.budgets) + plan.actions)
    return plan


def plan_sync(
    allowlist: Allowlist,
    tree: TreeCounts,
    *,
    exists: Callable[[str], bool],
    renames: Mapping[str, str] | None = None,
    allow_growth: bool = False,
) -> Plan:
    """Rebuild the list from the tree: every file with violations, at its count.

    Without `allow_growth`, a file that is not listed is not added and a
    budget is not raised (`plan.refused`); the rest (removals, lowered
    budgets, a repaired layout) is applied. A conflicted list is resolved
    from the tree: an entry on either side counts as listed, at the lowest
    budget of the two, so that resolving never grows the list.
    """
    if not tree.whole_tree:
        raise ValueError("sync needs the counts of the whole tree")
    plan = _judge_listed(allowlist, tree, exists, renames or {}, grow=allow_growth)
    handled = set(_base_budgets(allowlist)) | set(plan.budgets)
    for path, count in sorted(tree.counts.items()):
        if count > 0 and path not in handled:
            if allow_growth:
                plan.budgets[path] = count
                plan.actions.append(Action("add", path, None, None, count))
            else:
                plan.refused.append(Action("add", path, None, None, count))
    plan.actions = _in_line_order(_layout_actions(allowlist, plan.budgets) + plan.actions)
    return plan


def plan_init(tree: TreeCounts) -> Plan:
    """The first list (adoption): every file with violations, at its count."""
    if not tree.whole_tree:
        raise ValueError("init needs the counts of the whole tree")
    budgets = {path: count for path, count in sorted(tree.counts.items()) if count > 0}
    return Plan(budgets, actions=[Action("add", path, None, None, n) for path, n in budgets.items()])


def plan_import(
    allowlist: Allowlist,
    tree: TreeCounts,
    paths: Sequence[str],
    *,
    allow_growth: bool = False,
) -> tuple[Plan, list[str]]:
    """The list of `paths` (PyTorch's JSON allowlist), with current budgets.

    Replaces the entries. Paths that are clean, missing, not linted or do not
    parse are skipped (returned with the reason): listing them would be
    HWC301 at once. Into an empty or missing list every path is added (the
    first import); into a list with entries, a new file or a higher budget
    is growth, refused without `allow_growth`.
    """
    if not tree.whole_tree:
        raise ValueError("import needs the counts of the whole tree")
    base = _base_budgets(allowlist)
    first_import = not allowlist.records
    plan = Plan({})
    skipped: list[str] = []
    wanted: dict[str, int] = {}
    for path in sorted(set(paths)):
        if path.startswith("/") or "\\" in path or ".." in path.split("/") or path.startswith("./"):
            skipped.append(f"{path}: not a root-relative path")
        elif path in tree.broken:
            skipped.append(f"{path}: does not parse ({ParseError.code}): fix it, then list it")
        elif path not in tree.counts:
            skipped.append(f"{path}: not a test file hwlint lints (see include/exclude)")
        elif tree.counts[path] == 0:
            skipped.append(f"{path}: clean now")
        else:
            wanted[path] = tree.counts[path]
    for path, (budget, line) in sorted(base.items()):
        if path not in wanted:
            plan.actions.append(Action("remove", path, line, budget, reason="not in the imported list"))
    for path, count in wanted.items():
        old = base.get(path)
        if old is None:
            action = Action("add", path, None, None, count)
        elif count < old[0]:
            plan.budgets[path] = count
            plan.actions.append(Action("lower", path, old[1], old[0], count))
            continue
        elif count > old[0]:
            action = Action("raise", path, old[1], old[0], count)
        else:
            plan.budgets[path] = count
            continue
        if first_import or allow_growth:
            plan.budgets[path] = count
            plan.actions.append(action)
        else:
            plan.refused.append(action)
            if old is not None:
                plan.budgets[path] = old[0]
    plan.actions = _in_line_order(_layout_actions(allowlist, plan.budgets) + plan.actions)
    return plan, skipped


def render_allowlist(allowlist: Allowlist, plan: Plan, *, attribute: str = "hw_classification") -> str:
    """The list as text: the user's header and footer comments kept, one
    sorted line per entry. A line whose path and budget did not change is
    kept byte for byte (with its trailing comment); the comments just above
    a line move with it."""
    by_path: dict[str, list[Record]] = {}
    for rec in allowlist.records:
        if rec.path is not None and rec.kind in ("entry", "duplicate", "malformed"):
            by_path.setdefault(rec.path, []).append(rec)
    header = (
        allowlist.header
        if allowlist.records or allowlist.header
        else [line.format(attribute=attribute) for line in DEFAULT_HEADER]
    )
    out = list(header)
    for path in sorted(plan.budgets):
        budget = plan.budgets[path]
        records = by_path.get(plan.sources.get(path, path), [])
        for rec in records:
            out.extend(rec.lead)
        first = next((rec for rec in records if rec.kind == "entry"), None)
        if first is not None and first.path == path and first.budget == budget:
            out.append(first.text)
        else:
            out.append(f"{path} {budget}{first.trailing.rstrip() if first else ''}")
    out.extend(allowlist.footer)
    return "".join(line + allowlist.newline for line in out)


# ---------------------------------------------------------------------------
# Applying a plan: lock, read, compute, write.


@contextmanager
def allowlist_lock(config: Config) -> Iterator[None]:
    """Serialise read-modify-write of the allowlist between processes
    (pre-commit runs hooks in parallel; two prunes must not lose lines).

    The lock is `flock` on the project root folder, not on the list: writes
    replace the list by a rename, so a lock on the old file would not exclude
    a process that opened the new one; a lock file would be a stray file in
    the user's tree (and `.git/` is not always there); the root always
    exists, whatever folder the list is in and whether it exists yet. The
    lock goes with the file descriptor, so a killed process never leaves it
    held.
    """
    try:
        import fcntl
    except ImportError:  # Windows: no flock; writes are still atomic
        yield
        return
    fd = os.open(config.root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


@dataclass
class AllowlistChange:
    """What prune, sync or import did (or, without writing, would do)."""

    where: str  # the allowlist, root-relative
    exists: bool  # the list existed before
    actions: list[Action]
    refused: list[Action] = field(default_factory=list)
    blocked: list[Diagnostic] = field(default_factory=list)
    entries_before: int = 0
    entries_after: int = 0
    written: bool = False
    text: str | None = None  # the new text, when there is a change

    @property
    def changed(self) -> bool:
        return bool(self.actions) and not self.blocked

    def lines(self, *, dry_run: bool = False) -> list[str]:
        """One line per change, then one per refused growth."""
        out = [a.describe(self.where, dry_run=dry_run) for a in self.actions] if not self.blocked else []
        out += [a.describe(self.where, refused=True) for a in self.refused]
        return out

    def summary(self, command: str, *, dry_run: bool = False) -> str:
        """The closing line of `hwlint allowlist COMMAND` (prune, sync, import-json)."""
        done = {"prune": "pruned", "sync": "synced", "import-json": "imported"}.get(command, "changed")
        if self.blocked:
            return (
                f"{self.where} not {done}: fix the lines above ({AllowlistSyntax.code}), "
                "or run `hwlint allowlist sync` to rebuild the list from the tree"
            )
        if not self.exists and not self.changed:
            text = f"{self.where} does not exist: nothing to {command}."
            if command == "sync":
                text += " To adopt hwlint, create it from the tree as it is: `hwlint allowlist init`."
            return text + self._refused_summary()
        counts: Counter[str] = Counter(a.kind for a in self.actions)
        parts = [f"{counts[k]} {word}" for k, word in _DONE if counts[k]]
        if counts["sort"]:
            parts.append("re-sorted")
        left = f"{self.entries_after} entr{'y' if self.entries_after == 1 else 'ies'}"
        if not self.changed:
            text = f"{self.where} is up to date ({left})."
        elif dry_run:
            text = f"{self.where} would change ({', '.join(parts)}; {left}): run `hwlint allowlist {command}`."
        else:
            text = f"{done.capitalize()} {self.where}: {', '.join(parts)}; {left}."
        return text + self._refused_summary()

    def _refused_summary(self) -> str:
        if not self.refused:
            return ""
        adds = sum(1 for a in self.refused if a.kind == "add")
        raises = len(self.refused) - adds
        refused = []
        if adds:
            refused.append(f"{adds} file{'s' if adds != 1 else ''} not added")
        if raises:
            refused.append(f"{raises} budget{'s' if raises != 1 else ''} not raised")
        return f" Growth refused: {', '.join(refused)}."


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
            _write_list(config, change.text, "make it and its folder writable", plan.budgets)
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
        _write_list(config, change.text, "make its folder writable", plan.budgets)
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


# ---------------------------------------------------------------------------
# PyTorch's JSON allowlist: a sorted array of repo-relative paths.


def read_json_allowlist(file: Path) -> list[str]:
    """The paths of a `test_linter_allowlist.json`, or a UserError naming the file."""
    try:
        text = file.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise UserError(f"{file}: cannot read ({exc.strerror or exc}): pass an existing JSON allowlist") from None
    except UnicodeDecodeError:
        raise UserError(f"{file}: not UTF-8 text: pass a JSON array of paths") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{file}:{exc.lineno}: not valid JSON ({exc.msg}): pass a JSON array of paths") from None
    if not isinstance(data, list) or not all(isinstance(p, str) for p in data):
        raise UserError(
            f"{file}: expected a JSON array of root-relative paths, like PyTorch's test_linter_allowlist.json"
        )
    return data


def export_json_allowlist(allowlist: Allowlist) -> str:
    """The entries' paths as PyTorch writes its JSON allowlist: a sorted array,
    two-space indent, a final newline."""
    return json.dumps(sorted(allowlist.entries), indent=2) + "\n"


def _write_list(config: Config, text: str, hint: str, paths: Iterable[str]) -> None:
    """Write the allowlist (`text`, listing `paths`) atomically, or say in
    one line why not and what to do (`hint`)."""
    from hwlint.infra.atomic import write_text_atomic

    for path in paths:
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            # A file name that is not UTF-8 (POSIX allows it); the list is UTF-8 text.
            name = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            state = "unchanged" if config.allowlist_path.exists() else "not written"
            raise UserError(
                f"{name}: the file name is not UTF-8, and the allowlist is UTF-8 text: rename the file "
                f"({config.allowlist_path} is {state})"
            ) from None
    try:
        config.allowlist_path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(config.allowlist_path, text)
    except OSError as exc:
        raise UserError(
            f"{config.allowlist_path}: cannot write the allowlist ({exc.strerror or exc}): {hint}"
        ) from None
