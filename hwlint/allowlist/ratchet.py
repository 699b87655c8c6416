"""The ratchet's git half: the allowlist may not grow compared to a git ref (HWC303).

`hwlint allowlist check --base REF` reads the allowlist at the merge base of
HEAD and REF and compares the working tree's list with it: an entry that is
new there, or a budget that is higher, is HWC303 at the entry's line. A test
file that git sees renamed (`git diff --find-renames`, from the base to the
working tree, so committed, staged and unstaged changes all count) keeps its
entry under the new name. A list that did not exist at the base is an empty
one, as everywhere: every entry is then growth.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from hwlint.allowlist.model import Allowlist, load_allowlist, parse_allowlist
from hwlint.core.diagnostics import Diagnostic
from hwlint.infra.git import GitError, run_git, show_file
from hwlint.rules import allowlist_growth
from hwlint.rules.allowlist_syntax import AllowlistSyntax

if TYPE_CHECKING:
    from hwlint.core.config import Config

# Tried in this order when no --base is given.
DEFAULT_BASES = ("origin/main", "main")


@dataclass(frozen=True)
class Base:
    """The commit the allowlist is compared with."""

    ref: str  # what was asked for (or the default that was found)
    commit: str  # the merge base of HEAD and `ref` (or `ref` itself without shared history)

    @property
    def label(self) -> str:
        """How messages name the base: `main (1a2b3c4d5e)`."""
        return f"{self.ref} ({self.commit[:10]})"


def _commit(root: Path, ref: str) -> str | None:
    if ref.startswith("-"):  # would be read as an option
        return None
    out = run_git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).strip()
    return out or None


def _merge_base(root: Path, a: str, b: str) -> str | None:
    out = run_git(root, "merge-base", a, b, check=False).strip()
    return out or None


def _require_repository(root: Path) -> None:
    if not run_git(root, "rev-parse", "--git-dir", check=False).strip():
        raise GitError(f"{root}: not inside a git repository: the allowlist can only be compared with a git ref there")


def resolve_base(root: Path, ref: str | None = None) -> Base:
    """The merge base of HEAD and `ref` (default: origin/main, else main).

    The merge base, not the ref's tip: when main shrank the list after this
    branch left it, the branch did not grow it. Without shared history (or
    without a commit on HEAD yet) the ref itself is the base.
    """
    _require_repository(root)
    if ref is None:
        for candidate in DEFAULT_BASES:
            commit = _commit(root, candidate)
            if commit is not None:
                return Base(candidate, _merge_base(root, "HEAD", commit) or commit)
        raise GitError(f"{root}: neither origin/main nor main exists here: pass the ref to compare with, --base REF")
    commit = _commit(root, ref)
    if commit is None:
        raise GitError(
            f"--base {shlex.quote(ref)}: not a commit of the repository at {root}: "
            "pass a branch, tag or commit, e.g. --base origin/main"
        )
    return Base(ref, _merge_base(root, "HEAD", commit) or commit)


def renamed_files(root: Path, commit: str) -> dict[str, str]:
    """old -> new path (root-relative) of the files git sees renamed between
    `commit` and the working tree (committed, staged and unstaged changes;
    a new file git does not track yet is not seen: `git add` it)."""
    out = run_git(root, "diff", "--find-renames", "--name-status", "-z", "--relative", "--no-color", commit, "--")
    fields = out.split("\0")
    renames: dict[str, str] = {}
    index = 0
    while index < len(fields) and fields[index]:
        status = fields[index]
        if status.startswith(("R", "C")):
            old, new = fields[index + 1], fields[index + 2]
            if status.startswith("R"):
                renames[old] = new
            index += 3
        else:
            index += 2
    return renames


def local_renames(root: Path) -> dict[str, str]:
    """Renames prune and sync follow: since the default base (the merge base
    with origin/main or main), else since HEAD. Empty outside a git
    repository or without git: following renames is a convenience there."""
    try:
        try:
            base = resolve_base(root).commit
        except GitError:
            base = _commit(root, "HEAD") or ""
        return renamed_files(root, base) if base else {}
    except GitError:
        return {}


def allowlist_at(root: Path, commit: str, relative: str) -> Allowlist:
    """The allowlist as it was at `commit`; an empty one when it did not exist."""
    text = show_file(root, commit, relative)
    if text is None:
        return Allowlist(relative, False)
    return parse_allowlist(text.removeprefix("\ufeff"), relative)


def growth(previous: Allowlist, current: Allowlist, renames: Mapping[str, str], label: str) -> list[Diagnostic]:
    """HWC303 for each entry of `current` that is not in `previous` (under
    its name, or under the name it had before a rename) or whose budget is
    higher there. A base entry vouches for one current entry only: a file
    renamed while its old name stays listed does not bring a second entry."""
    renamed_from = {new: old for old, new in renames.items() if old not in current.entries}
    found: list[Diagnostic] = []
    for path, entry in sorted(current.entries.items(), key=lambda item: item[1].line):
        origin = path if path in previous.entries else renamed_from.get(path)
        if origin is None or origin not in previous.entries:
            found.append(allowlist_growth.new_entry(current.path, entry.line, path, label))
        elif entry.budget > previous.entries[origin].budget:
            found.append(
                allowlist_growth.raised(
                    current.path, entry.line, path, entry.budget, label, previous.entries[origin].budget, origin
                )
            )
    return found


@dataclass
class RatchetResult:
    base: Base
    previous: Allowlist  # at the base
    current: Allowlist  # in the working tree
    diagnostics: list[Diagnostic]  # HWC303, and HWC304 of the current list


def check_ratchet(config: Config, ref: str | None = None, *, syntax: bool = True) -> RatchetResult:
    """Compare the working tree's allowlist with the one at the base (`--base REF`)."""
    root = config.root
    base = resolve_base(root, ref)
    current = load_allowlist(root, config.allowlist)
    renames = renamed_files(root, base.commit)
    previous = allowlist_at(root, base.commit, config.allowlist)
    if not previous.exists:
        # The list itself may have been renamed (and `allowlist` changed with it).
        old_name = next((old for old, new in renames.items() if new == config.allowlist), None)
        if old_name is not None:
            previous = allowlist_at(root, base.commit, old_name)
            previous.path = config.allowlist
    diagnostics = growth(previous, current, renames, base.label)
    if syntax:
        diagnostics += [p for p in current.problems if p.code == AllowlistSyntax.code]
    diagnostics.sort()
    return RatchetResult(base, previous, current, diagnostics)
