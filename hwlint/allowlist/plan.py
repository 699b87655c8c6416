"""Plans for changing the allowlist: pure functions from the parsed list and
the per-file violation counts of a check run (`TreeCounts`) to the new list
and what changed (`plan_prune`, `plan_sync`, `plan_init`, `plan_import`),
and the new list rendered with the user's comments kept
(`render_allowlist`). Applying a plan is `hwlint.allowlist.edit`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal, Mapping, Sequence

from hwlint.allowlist.model import DEFAULT_HEADER, Allowlist, Record
from hwlint.core.diagnostics import Diagnostic
from hwlint.rules.parse_error import ParseError


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


ActionKind = Literal["remove", "lower", "move", "add", "raise", "merge", "drop", "sort"]


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
        """The change as one line of output about the list `where`: done, as it
        would be (`dry_run`), or as growth that was refused."""
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
    """A new list (path -> budget) and how it came from the old one: the
    changes made, the growth refused, the problems that block it."""

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
