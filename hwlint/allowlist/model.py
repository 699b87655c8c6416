"""The allowlist: not-yet-migrated files and their violation budgets.

```
# <path relative to the project root> <violations allowed>
test/distributed/test_c10d_common.py 12
```

A listed file is exempt from the module rules but may not exceed its budget
(HWC302) and must leave once clean or gone (HWC301). Problems with the list
itself are HWC304 at the offending line, so that a fix is one edit.

This module is what `hwlint check` needs: reading the list and judging it.
Changing it (prune, sync, import: the ratchet's local half) is in
`hwlint.allowlist.edit`; the comparison with a git ref (HWC303) in
`hwlint.allowlist.ratchet`.
"""

# No `from __future__ import annotations`: typing.NamedTuple would compile
# each string annotation (hwlint.facts.records says why).

import re
from pathlib import Path
from typing import Any, Callable, Collection, Literal, NamedTuple, Sequence

from hwlint.core.diagnostics import Diagnostic, UserError
from hwlint.rules import COUNTED, allowlist_budget, allowlist_stale
from hwlint.rules import allowlist_syntax as syntax
from hwlint.rules.allowlist_budget import AllowlistBudget
from hwlint.rules.allowlist_stale import AllowlistStale
from hwlint.rules.allowlist_syntax import AllowlistSyntax

# A budget of more than 18 digits is a typo, not a count (and one of over
# 4,300 digits is more than int() converts).
_ENTRY = re.compile(r"^(?P<path>\S+)\s+(?P<budget>\d{1,18})(?P<trailing>\s*(?:#.*)?)$")
_CONFLICT = ("<<<<<<<", "=======", ">>>>>>>", "|||||||")

DEFAULT_HEADER = (
    "# Test files not yet migrated to {attribute}. This list may only shrink.",
    "# <path relative to the project root> <violations allowed>",
)


class Entry(NamedTuple):
    """A listed file, its budget, and the line that lists it."""

    path: str
    budget: int
    line: int


RecordKind = Literal[
    "entry",  # the first line of a path
    "duplicate",  # a later line of the same path
    "malformed",  # a path without a readable budget
    "bad-path",  # absolute, `..`, `\\`
    "conflict",  # a merge-conflict marker
]


class Record(NamedTuple):
    """One line of the list that is not blank or a comment, of a `kind`.

    `lead` holds the comment and blank lines just above it: they describe
    this line, so they move with it when the list is sorted and go when it
    goes.
    """

    line: int
    text: str
    kind: RecordKind
    path: str | None = None
    budget: int | None = None
    trailing: str = ""
    lead: tuple[str, ...] = ()


class Allowlist:
    """The parsed list: its entries, the problems with the list itself
    (HWC304), and the layout a rewrite keeps."""

    def __init__(self, path: str, exists: bool) -> None:
        self.path = path  # root-relative, for diagnostics
        self.exists = exists
        self.entries: dict[str, Entry] = {}
        self.problems: list[Diagnostic] = []
        # The layout, for rewriting the list without losing the user's comments.
        self.records: list[Record] = []
        self.header: list[str] = []  # comment lines above the first record
        self.footer: list[str] = []  # comment lines below the last one
        self.newline = "\n"


def parse_allowlist(text: str, where: str, *, layout: bool = True) -> Allowlist:
    """The list in `text`. `layout=False` keeps only the entries and the
    problems (what a check needs), not the records, header and footer a
    rewrite needs: a third of the work for a long list."""
    allowlist = Allowlist(where, True)
    allowlist.newline = "\r\n" if "\r\n" in text else "\n"
    entries = allowlist.entries
    entry_match = _ENTRY.match
    previous = ""
    kept = _Layout(allowlist) if layout else None
    pending = kept.pending if kept is not None else []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] == "#":
            if layout:
                pending.append(raw)
            continue
        match = entry_match(line)
        if match is not None and not layout:
            # The common line, a new path in order: nothing to report. (Only
            # without layout, so that a test can compare both paths.)
            path, digits, trailing = match.groups()
            if (
                previous < path
                and path not in entries
                and "\\" not in path
                and ".." not in path
                and path[0] not in "/.<=>|"
                and path[1:2] != ":"
                and path[-1] != ":"
            ):  # not a conflict marker either
                previous = path
                entries[path] = Entry(path, int(digits), number)
                continue
        previous = _read_line(allowlist, number, raw, line, match, previous, kept)
    if kept is not None:
        kept.finish()
    return allowlist


class _Layout:
    """The records of a list being read, and the comment and blank lines
    around them (the header, each record's lead, the footer): what a
    rewrite needs to keep the user's comments."""

    def __init__(self, allowlist: Allowlist) -> None:
        self.allowlist = allowlist
        self.pending: list[str] = []  # comment/blank lines not yet attached to a record

    def record(
        self,
        number: int,
        raw: str,
        kind: RecordKind,
        path: str | None = None,
        budget: int | None = None,
        trailing: str = "",
    ) -> None:
        records = self.allowlist.records
        if not records:
            self.allowlist.header = self.pending[:]
            lead: tuple[str, ...] = ()
        else:
            lead = tuple(self.pending)
        self.pending.clear()
        records.append(Record(number, raw, kind, path, budget, trailing, lead))

    def finish(self) -> None:
        """The comment lines after the last record are the footer (the
        header, when there is no record)."""
        if self.allowlist.records:
            self.allowlist.footer = self.pending[:]
        else:
            self.allowlist.header = self.pending[:]


def _read_line(
    allowlist: Allowlist,
    number: int,
    raw: str,
    line: str,
    match: "re.Match[str] | None",
    previous: str,
    kept: _Layout | None,
) -> str:
    """One line that is not a comment, judged: its entry and its problems
    added to `allowlist`, its record to `kept`. Gives the path the next
    line's order is judged against (`previous`, unless this line sets it)."""
    where = allowlist.path
    problems = allowlist.problems
    entries = allowlist.entries
    colon_budget: int | None = None
    if line.startswith(_CONFLICT):
        problems.append(syntax.diagnostic(where, number, syntax.conflict_message()))
        if kept is not None:
            kept.record(number, raw, "conflict")
        return previous
    path = match.group("path") if match else line.split()[0]
    if match is not None and path.endswith(":") and len(path) > 1:
        # `test/test_x.py: 3`, as YAML writes it: the file is meant.
        problems.append(syntax.diagnostic(where, number, syntax.malformed_message(line)))
        path, colon_budget, match = path[:-1], int(match.group("budget")), None
    elif match is None:
        problems.append(syntax.diagnostic(where, number, syntax.malformed_message(line)))
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path) or "\\" in path:
        problems.append(syntax.diagnostic(where, number, syntax.absolute_message(path)))
        if kept is not None:
            kept.record(number, raw, "bad-path", path)
        return previous
    if ".." in path.split("/") or path.startswith("./"):
        problems.append(syntax.diagnostic(where, number, syntax.outside_message(path)))
        if kept is not None:
            kept.record(number, raw, "bad-path", path)
        return previous
    budget = int(match.group("budget")) if match else colon_budget
    trailing = match.group("trailing") if match else ""
    if path in entries:
        first = entries[path].line
        problems.append(syntax.diagnostic(where, number, syntax.duplicate_message(path, first)))
        if kept is not None:
            kept.record(number, raw, "duplicate" if match else "malformed", path, budget, trailing)
        return previous
    if previous and path < previous:
        problems.append(syntax.diagnostic(where, number, syntax.unsorted_message(path, previous)))
    # A malformed line still exempts its file, so that one typo does
    # not flood the output with the file's violations.
    entries[path] = Entry(path, budget if budget is not None else 0, number)
    if kept is not None:
        kept.record(number, raw, "entry" if match else "malformed", path, budget, trailing)
    return path


def read_allowlist_bytes(root: Path, relative: str) -> bytes | None:
    """The bytes of the list at `root / relative`; None when there is none."""
    path = root / relative
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None  # no list: nothing is exempt
    except OSError as exc:
        raise UserError(
            f"{path}: cannot read the allowlist ({exc.strerror or exc}): make it a readable file, "
            "or delete it (a missing allowlist is an empty one)"
        ) from None


def allowlist_from_bytes(data: bytes | None, root: Path, relative: str, *, layout: bool = True) -> Allowlist:
    """The list in `data` (None: there is none), or a UserError when it is not UTF-8 text."""
    if data is None:
        return Allowlist(relative, False)
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data  # a BOM is not part of the list
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = body.count(b"\n", 0, exc.start) + 1
        raise UserError(f"{root / relative}:{line}: the allowlist is not UTF-8 text: save it as UTF-8") from None
    return parse_allowlist(text, relative, layout=layout)


def load_allowlist(root: Path, relative: str, *, layout: bool = True) -> Allowlist:
    """The list at `root / relative` (an empty one when there is none)."""
    return allowlist_from_bytes(read_allowlist_bytes(root, relative), root, relative, layout=layout)


def allowlist_to_tuple(allowlist: Allowlist) -> tuple[Any, ...]:
    """What a check needs of a list read without layout, as plain tuples."""
    return (
        allowlist.newline,
        tuple([(e.path, e.budget, e.line) for e in allowlist.entries.values()]),
        tuple([(d.line, d.message) for d in allowlist.problems]),
    )


def allowlist_from_tuple(value: Any, where: str) -> Allowlist:
    """The inverse of allowlist_to_tuple (raises TypeError/ValueError on another shape)."""
    newline, entries, problems = value
    allowlist = Allowlist(where, True)
    allowlist.newline = newline
    make = Entry._make
    allowlist.entries = {e[0]: make(e) for e in entries}
    allowlist.problems = [syntax.diagnostic(where, line, message) for line, message in problems]
    return allowlist


def counted(code: str) -> bool:
    """Whether a budget counts this rule's violations: the module rules'
    (HWC000, a file that cannot be parsed, has none to count; the
    allowlist's own rules judge the list)."""
    return code in COUNTED


def exempts(listed: Collection[str], path: str, code: str) -> bool:
    """Whether the allowlist exempts a finding: its file is listed and the
    finding counts against the budget (HWC000 and the list's own rules never
    are). The one rule check, lintrunner and flake8 share (hwlint.engine.judge)."""
    return path in listed and counted(code)


def apply_allowlist(
    allowlist: Allowlist,
    diagnostics: list[Diagnostic],
    checked: set[str],
    broken: set[str],
    unlinted_existing: set[str],
    whole_tree: bool,
    enabled: frozenset[str],
    earlier: Callable[[str, Entry], Sequence[Diagnostic] | None] = lambda path, entry: None,
) -> tuple[list[Diagnostic], dict[str, int]]:
    """Exempt allowlisted files, and judge the entries: (the diagnostics
    left, the counted violations of each judged entry's file).

    `checked`: files linted in this run; `broken`: those with HWC000;
    `unlinted_existing`: listed files that exist but are not test files.
    Entries for files outside this run are judged only when the whole tree
    was linted (a pre-commit run sees a few files). The counts cover the
    entries' files that were checked and parse, so that prune need not lint
    them again. `earlier(path, entry)`: the file's counted violations when
    its budget was set, if known; asked only of files over their budget, to
    report the new violations where they are (HWC302).
    """
    entries = allowlist.entries
    kept: list[Diagnostic] = []
    counts: dict[str, int] = {}
    per_file: dict[str, list[Diagnostic]] = {}
    for diag in diagnostics:
        if exempts(entries, diag.path, diag.code):
            per_file.setdefault(diag.path, []).append(diag)
        else:
            kept.append(diag)
    where = allowlist.path
    for path, entry in entries.items():
        if path in checked:
            if path in broken:
                continue  # cannot count a file that does not parse
            found = per_file.get(path, [])
            counts[path] = len(found)
            if not found and AllowlistStale.code in enabled:
                kept.append(allowlist_stale.clean(where, entry.line, path))
            elif len(found) > entry.budget and AllowlistBudget.code in enabled:
                kept.extend(
                    allowlist_budget.beyond_budget(where, entry.line, path, entry.budget, found, earlier(path, entry))
                )
        elif whole_tree and AllowlistStale.code in enabled:
            kept.append(allowlist_stale.gone(where, entry.line, path, exists=path in unlinted_existing))
    if AllowlistSyntax.code in enabled:
        kept.extend(allowlist.problems)
    return kept, counts
