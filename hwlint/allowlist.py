"""The allowlist: not-yet-migrated files and their violation budgets.

```
# <path relative to the project root> <violations allowed>
test/distributed/test_c10d_common.py 12
```

A listed file is exempt from the module rules but may not exceed its budget
(HWC302) and must leave once clean or gone (HWC301). Problems with the list
itself are HWC304 at the offending line, so that a fix is one edit.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from hwlint.diagnostics import Diagnostic, UserError
from hwlint.rules import AllowlistBudget, AllowlistStale, AllowlistSyntax

_ENTRY = re.compile(r"^(?P<path>\S+)\s+(?P<budget>\d+)\s*(?:#.*)?$")
_CONFLICT = ("<<<<<<<", "=======", ">>>>>>>", "|||||||")
# Budgets count these; HWC000 (a file that cannot be parsed has no countable
# violations) and the allowlist's own rules do not.
_UNCOUNTED_PREFIXES = ("HWC000", "HWC3")


@dataclass(frozen=True)
class Entry:
    path: str
    budget: int
    line: int


@dataclass
class Allowlist:
    path: str  # root-relative, for diagnostics
    exists: bool
    entries: dict[str, Entry] = field(default_factory=dict)
    problems: list[Diagnostic] = field(default_factory=list)


def _syntax(where: str, line: int, message: str) -> Diagnostic:
    return Diagnostic(where, line, 1, AllowlistSyntax.code, AllowlistSyntax.name, message)


def parse_allowlist(text: str, where: str) -> Allowlist:
    allowlist = Allowlist(where, True)
    previous: str | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(_CONFLICT):
            allowlist.problems.append(
                _syntax(where, number, "merge-conflict marker: resolve the conflict, or run `hwlint allowlist sync`")
            )
            continue
        match = _ENTRY.match(line)
        path = match.group("path") if match else line.split()[0]
        if match is None:
            allowlist.problems.append(
                _syntax(where, number, f"malformed entry {line!r}: expected `<path> <violations allowed>`")
            )
        if path.startswith("/") or re.match(r"^[A-Za-z]:", path) or "\\" in path:
            allowlist.problems.append(
                _syntax(where, number, f"{path}: use a path relative to the project root with / separators")
            )
            continue
        if ".." in path.split("/") or path.startswith("./"):
            allowlist.problems.append(_syntax(where, number, f"{path}: use a normalized path inside the project root"))
            continue
        if path in allowlist.entries:
            first = allowlist.entries[path].line
            allowlist.problems.append(_syntax(where, number, f"{path} is listed twice (first at line {first}): remove this line"))
            continue
        if previous is not None and path < previous:
            allowlist.problems.append(_syntax(where, number, f"{path} is out of order (after {previous}): keep the list sorted"))
        previous = path
        # A malformed line still exempts its file, so that one typo does
        # not flood the output with the file's violations.
        budget = int(match.group("budget")) if match else 0
        allowlist.entries[path] = Entry(path, budget, number)
    return allowlist


def load_allowlist(root: Path, relative: str) -> Allowlist:
    path = root / relative
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Allowlist(relative, False)  # no list: nothing is exempt
    except OSError as exc:
        raise UserError(f"{path}: cannot read the allowlist: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UserError(f"{path}:{line}: the allowlist is not UTF-8 text: save it as UTF-8") from None
    return parse_allowlist(text, relative)


def counted(code: str) -> bool:
    return not code.startswith(_UNCOUNTED_PREFIXES)


def apply_allowlist(
    allowlist: Allowlist,
    diagnostics: list[Diagnostic],
    checked: set[str],
    broken: set[str],
    unlinted_existing: set[str],
    whole_tree: bool,
    enabled: frozenset[str],
) -> list[Diagnostic]:
    """Exempt allowlisted files, and judge the entries.

    `checked`: files linted in this run; `broken`: those with HWC000;
    `unlinted_existing`: listed files that exist but are not test files.
    Entries for files outside this run are judged only when the whole tree
    was linted (a pre-commit run sees a few files).
    """
    entries = allowlist.entries
    kept: list[Diagnostic] = []
    per_file: dict[str, list[Diagnostic]] = {}
    for diag in diagnostics:
        if diag.path in entries and counted(diag.code):
            per_file.setdefault(diag.path, []).append(diag)
        else:
            kept.append(diag)
    where = allowlist.path
    for path, entry in entries.items():
        if path in checked:
            if path in broken:
                continue  # cannot count a file that does not parse
            found = per_file.get(path, [])
            if not found and AllowlistStale.code in enabled:
                kept.append(
                    Diagnostic(where, entry.line, 1, AllowlistStale.code, AllowlistStale.name,
                               f"{path} is clean now: remove it from the allowlist (`hwlint allowlist prune`)")
                )
            elif len(found) > entry.budget and AllowlistBudget.code in enabled:
                codes = Counter(d.code for d in found)
                summary = ", ".join(f"{n}× {c}" for c, n in sorted(codes.items()))
                first = ", ".join(f"{d.line}" for d in sorted(found)[:5])
                kept.append(
                    Diagnostic(where, entry.line, 1, AllowlistBudget.code, AllowlistBudget.name,
                               f"{path} has {len(found)} violations, over its budget of {entry.budget} "
                               f"({summary}; lines {first}{', ...' if len(found) > 5 else ''}): fix the new ones, "
                               f"see them with `hwlint check --no-allowlist {path}`")
                )
        elif whole_tree and AllowlistStale.code in enabled:
            reason = "is not a test file hwlint lints (see include/exclude)" if path in unlinted_existing else "no longer exists"
            kept.append(
                Diagnostic(where, entry.line, 1, AllowlistStale.code, AllowlistStale.name,
                           f"{path} {reason}: remove it from the allowlist (`hwlint allowlist prune`)")
            )
    if AllowlistSyntax.code in enabled:
        kept.extend(allowlist.problems)
    return kept
