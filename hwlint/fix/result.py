"""What a fix run made: one file's outcome (FileResult), the run's report
(FixReport: the files changed, what is left for a human, and its JSON and
summary), and FixError, a fix that cannot be made safely.

The records sit apart from the orchestration (hwlint.fix.apply) so that
the summary's wording, `--verify-runtime` and the output read them without
importing the pool or the rewriting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from hwlint.core.diagnostics import Diagnostic
from hwlint.fix.migrate.outcome import Done, Refused
from hwlint.fix.plan_records import ClassFix, ClassMove, Respelling, SiteRewrite, Unfixed
from hwlint.fix.summary import (
    done_line,
    migration_lines,
    not_generalized_lines,
    not_split_lines,
    respelt_lines,
    unfixed_lines,
)


class FixError(Exception):
    """A fix that cannot be made safely; the file is left as it is."""


@dataclass
class FileResult:
    """What `fix` made of one file: its bytes as read and as fixed (None,
    with `error` saying why, when it could not be fixed), the fixes, and
    the rewrites and migrations made or refused."""

    path: str
    original: bytes
    fixed: bytes | None  # None when the file could not be fixed
    fixes: list[ClassFix]
    error: str | None = None
    rewritten: tuple[SiteRewrite, ...] = ()
    # Planned rewrites the tree did not allow, each with why.
    not_rewritten: tuple[tuple[SiteRewrite, str], ...] = ()
    # Class-level migrations (hwlint.fix.migrate), those refused, and the
    # classes whose tests are now collected under another class's name.
    migrated: tuple[Done, ...] = ()
    refused: tuple[Refused, ...] = ()
    moves: tuple[ClassMove, ...] = ()
    # The file as the fixes left it, before the migrations: what they are
    # judged against (they may add no finding).
    premigration: bytes | None = None
    # Misspelt devices respelt (HWC003, --unsafe), last of all.
    respelt: tuple[Respelling, ...] = ()

    @property
    def declared(self) -> list[ClassFix]:
        """The fixes whose classification stays: a class a migration made
        device-generic is ACCELERATOR, not the one device first written."""
        generalized = {d.class_name for d in self.migrated if d.kind in ("generalize", "split")}
        return [f for f in self.fixes if f.class_name not in generalized]

    @property
    def changed(self) -> bool:
        """Whether the fixed bytes differ from the file's."""
        return self.fixed is not None and self.fixed != self.original


@dataclass
class FixReport:
    """What a fix run did (or, without writing, would do)."""

    files: list[FileResult] = field(default_factory=list)  # the files changed
    unfixed: list[Unfixed] = field(default_factory=list)
    written: bool = False

    @property
    def classified(self) -> dict[str, int]:
        """Fixes (declarations added and strings replaced) per member."""
        counts: dict[str, int] = {}
        for result in self.files:
            for f in result.declared:
                counts[f.member] = counts.get(f.member, 0) + 1
            for d in result.migrated:
                # A class instantiated for its device keeps the declaration its fix wrote (counted above).
                if d.member is not None and not d.method and d.kind not in ("device-class", "device-tests"):
                    counts[d.member] = counts.get(d.member, 0) + 1
        return dict(sorted(counts.items()))

    @property
    def migrated(self) -> dict[str, int]:
        """Migrations made, by kind (hwlint.fix.migrate.KINDS)."""
        counts: dict[str, int] = {}
        for result in self.files:
            for d in result.migrated:
                counts[d.kind] = counts.get(d.kind, 0) + 1
        return dict(sorted(counts.items()))

    @property
    def rewritten(self) -> int:
        """Hard-coded devices rewritten (HWC201)."""
        return sum(len(result.rewritten) for result in self.files)

    def to_dict(self, *, over_budget: Sequence[Diagnostic] = ()) -> dict[str, object]:
        """`hwlint fix --format json`: what was (or would be) fixed, what is
        left for a human, and the allowlisted files over budget."""
        fixed = [
            {
                "path": r.path,
                "line": f.line,
                "class_name": f.class_name,
                "classification": f.member,
                "applicability": f.applicability,
                "evidence": f.evidence,
            }
            for r in self.files
            for f in r.declared
        ]
        return {
            "written": self.written,
            "classified": self.classified,
            "fixed": sorted(fixed, key=lambda f: (f["path"], f["line"])),
            "migrated": self.migrated,
            "migrations": [d.to_dict(r.path) for r in self.files for d in r.migrated],
            "moves": [{"path": r.path, "old": m.old, "new": m.new} for r in self.files for m in r.moves],
            "not_generalized": [
                {
                    "path": r.path,
                    "line": x.migration.line,
                    "class_name": x.migration.class_name,
                    "classification": x.migration.member,
                    "reason": x.reason,
                    "blocked_by": x.blocked_by.to_dict(),
                }
                for r in self.files
                for x in r.refused
                if x.migration.kind == "generalize"
            ],
            "not_split": [
                {"path": r.path, "line": x.migration.line, "class_name": x.migration.class_name, "reason": x.reason}
                for r in self.files
                for x in r.refused
                if x.migration.kind == "split"
            ],
            "respelt": [
                {"path": r.path, "line": x.line, "wrong": x.wrong, "right": x.right}
                for r in self.files
                for x in r.respelt
            ],
            "unfixed": [u.to_dict() for u in sorted(self.unfixed, key=lambda u: (u.path, u.line))],
            "over_budget": [d.to_dict() for d in over_budget],
        }

    def summary(self, *, show_unfixed: bool = False) -> list[str]:
        """What was done, then what is left for a human, counted by reason
        with an example each; each class too with `show_unfixed`, or when
        there are few."""
        replaced = sum(f.replaces for result in self.files for f in result.fixes)
        lines = [done_line(self.written, len(self.files), replaced, self.classified, self.rewritten)]
        lines.extend(
            migration_lines(
                self.written,
                self.migrated,
                [(r.path, d) for r in self.files for d in r.migrated],
                [(r.path, m) for r in self.files for m in r.moves],
            )
        )
        # (A class of a device that is no configured member is left, and listed with why below.)
        stayed = [
            (r.path, x)
            for r in self.files
            for x in r.refused
            if x.migration.kind == "generalize" and x.migration.class_name in {f.class_name for f in r.fixes}
        ]
        lines.extend(not_generalized_lines(stayed, show_all=show_unfixed))
        # A class a split was refused for keeps the one classification
        # written for it: say why, as for the classes not generalized.
        whole = [
            (r.path, x, f.member)
            for r in self.files
            for x in r.refused
            for f in r.declared
            if x.migration.kind == "split" and x.migration.member and f.class_name == x.migration.class_name
        ]
        lines.extend(not_split_lines(whole, show_all=show_unfixed))
        lines.extend(respelt_lines(self.written, [(r.path, x) for r in self.files for x in r.respelt]))
        lines.extend(unfixed_lines(self.unfixed, show_unfixed=show_unfixed))
        return lines
