"""What an edit of the allowlist did, or without writing would do
(`AllowlistChange`): one line per change, and the closing summary of
`hwlint allowlist prune`, `sync` and `import-json`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from hwlint.allowlist.plan import Action, ActionKind
from hwlint.core.diagnostics import Diagnostic
from hwlint.rules.allowlist_syntax import AllowlistSyntax

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
