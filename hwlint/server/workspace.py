"""What the server holds in memory: each project's settings (the last good
ones), the facts of the project's files that resolution needed (read once,
through hwlint's cache where it is warm), the open documents' facts, and
which files each open document's classes were resolved through, so that a
changed base class re-judges its open subclasses.

A document's diagnostics are what `hwlint check FILE` reports for the same
content: the same extraction, rules, noqa and per-file-ignores
(`lint_file`), the same allowlist judgement of a run on one file
(exemption and budgets, not the entries of other files), the same phases.
The one difference is where a base class in another file comes from: the
editor's buffer when that file is open, the disk otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Sequence

from hwlint.allowlist.model import Allowlist, Entry, apply_allowlist, counted, load_allowlist
from hwlint.core.config import Config
from hwlint.core.diagnostics import Diagnostic, UserError
from hwlint.engine.api import Judge, lint_file, load_project, read_facts, run_check, run_resolver
from hwlint.facts import ModuleFacts, extract_source
from hwlint.facts.collect import FactsOptions
from hwlint.facts.discover import Matcher, relative_to_root
from hwlint.rules import enabled_codes
from hwlint.rules.phase_overdue import PhaseOverdue

Loader = Callable[[str], ModuleFacts]
Warn = Callable[[str], None]  # a message for the user (the server shows each once)


class Project:
    """One project: its settings and allowlist as last read without error,
    and the facts of its files."""

    def __init__(self, config: Config, allowlist: Allowlist) -> None:
        self.config = config
        self.allowlist = allowlist
        self.enabled = enabled_codes(config.select, config.ignore)
        self.judge = Judge(config)
        self.matcher = Matcher(config)
        self.options = FactsOptions.of(config)._asdict()
        # Files read for resolution (not open in the editor), by root-relative path.
        self.facts: dict[str, ModuleFacts] = {}
        # The open documents' facts, from the editor's text.
        self.open: dict[str, ModuleFacts] = {}
        # Which files each open document's resolution read (itself excluded).
        self.needs: dict[str, set[str]] = {}
        self._cached_load: Callable[[str], ModuleFacts | None] | None = None
        # Budget history (git blame, then the file as it was): per entry.
        self._earlier: dict[tuple[str, int], list[Diagnostic] | None] = {}

    @property
    def root(self) -> Path:
        return self.config.root

    @property
    def settings_files(self) -> set[str]:
        """The files whose change means reading the settings again (absolute)."""
        found = {os.path.join(self.root, self.config.allowlist)}
        if self.config.source is not None:
            found.add(str(self.config.source))
        return found

    def relative(self, path: Path) -> str | None:
        return relative_to_root(path, self.root)

    # -- the files around the documents ----------------------------------

    def _read(self, rel: str) -> ModuleFacts:
        """A file's facts from disk, through the cache when it has them."""
        if self._cached_load is None:
            self._cached_load = read_facts_fallback(self.config)
            try:
                # A run on one file gives the cache-backed loader a run uses
                # (content-keyed: a warm cache parses nothing).
                result = run_check(self.config, [self.root / rel], use_allowlist=False, cache=True, jobs=1)
                resolver = run_resolver(result)
                if resolver is not None:
                    self._cached_load = resolver.load
            except (UserError, OSError):
                pass
        found = self._cached_load(rel)
        return found if found is not None else read_facts(self.config, rel)

    def loader(self, document: str | None) -> Loader:
        """The facts of the files `document`'s classes reach, noting each
        (None: noting nothing)."""
        needs: set[str] = set()
        if document is not None:
            needs = self.needs.setdefault(document, set())
            needs.clear()

        def load(rel: str) -> ModuleFacts:
            needs.add(rel)
            if rel in self.open:
                return self.open[rel]
            if rel not in self.facts:
                self.facts[rel] = self._read(rel)
            return self.facts[rel]

        return load

    def forget(self, rel: str) -> None:
        """A file changed on disk: read it again when next needed."""
        self.facts.pop(rel, None)

    def dependents(self, rel: str) -> list[str]:
        """The open documents resolved through `rel`."""
        return sorted(doc for doc, needs in self.needs.items() if rel in needs and doc != rel)

    def close(self, rel: str) -> None:
        self.open.pop(rel, None)
        self.needs.pop(rel, None)

    # -- one document ----------------------------------------------------

    def check(self, rel: str, text: str) -> list[Diagnostic]:
        """`hwlint check FILE`'s diagnostics for `rel` holding `text` (those
        on the allowlist or the settings file included)."""
        config = self.config
        facts = extract_source(rel, text, **self.options)
        self.open[rel] = facts
        if not self.matcher.selected(rel):
            self.needs.pop(rel, None)
            return []
        found = lint_file(config, facts, self.enabled, self.judge, self.loader(rel))
        broken = {rel} if facts.error is not None else set()
        diagnostics, _ = apply_allowlist(
            self.allowlist, found, {rel}, broken, set(), False, self.enabled, self._budget_history
        )
        if config.phases and PhaseOverdue.code in self.enabled:
            from hwlint.allowlist import phases

            settings = config.source.name if config.source is not None else "the configuration"
            diagnostics += phases.overdue_entries(
                self.allowlist, config.phases, phases.today(), {rel}, False, settings, config.source
            )
        diagnostics.sort()
        return diagnostics

    def _budget_history(self, path: str, entry: Entry) -> list[Diagnostic] | None:
        """The file's counted violations when its budget was set, as a run
        finds them (hwlint.engine.check's budget history): asked only of a
        file over its budget, kept per entry (git is slow for a keystroke)."""
        key = (path, entry.line)
        if key not in self._earlier:
            self._earlier[key] = self._earlier_findings(path, entry)
        return self._earlier[key]

    def _earlier_findings(self, path: str, entry: Entry) -> list[Diagnostic] | None:
        from hwlint.infra.git import file_at_line_commit

        config = self.config
        text = file_at_line_commit(config.root, config.allowlist, entry.line, path)
        if text is None:
            return None
        facts = extract_source(path, text, **self.options)
        if facts.error is not None:
            return None
        found = lint_file(config, facts, self.enabled, self.judge, self.loader(None))
        return [d for d in found if counted(d.code)]


def read_facts_fallback(config: Config) -> Callable[[str], ModuleFacts | None]:
    """read_facts for `config`, as a loader."""
    return lambda rel: read_facts(config, rel)


class Workspace:
    """The projects of the open documents, found as `hwlint check` finds
    its configuration: from the file's folder upward."""

    def __init__(self, warn: Warn) -> None:
        self.warn = warn
        self.projects: dict[Path, Project] = {}
        self._folders: dict[Path, Path] = {}  # a document's folder -> its project's root
        self.documents: dict[Path, Path] = {}  # an open document -> its project's root

    def project_of(self, path: Path) -> Project | None:
        """The project `path` belongs to; None when its settings were never
        readable (the user is told why)."""
        known = self.documents.get(path)
        if known is not None and known in self.projects:
            return self.projects[known]
        folder = path.parent
        root = self._folders.get(folder)
        if root is None:
            project = self._load(folder)
            if project is None:
                return None
            root = project.root
            self._folders[folder] = root
        self.documents[path] = root
        return self.projects[root]

    def _load(self, folder: Path) -> Project | None:
        try:
            config = load_project(start=folder)
        except UserError as exc:
            self.warn(str(exc))
            return None
        existing = self.projects.get(config.root)
        if existing is not None and existing.config == config:
            return existing
        try:
            allowlist = load_allowlist(config.root, config.allowlist, layout=False)
        except UserError as exc:
            self.warn(str(exc))
            if existing is None:
                return None
            allowlist = existing.allowlist
        self.projects[config.root] = Project(config, allowlist)
        return self.projects[config.root]

    def reload_settings(self) -> None:
        """The settings or an allowlist changed: each open document's project
        read again; where that fails, the last good settings stay."""
        self._folders.clear()
        for path, root in list(self.documents.items()):
            folder = path.parent
            if folder in self._folders:
                self.documents[path] = self._folders[folder]
                continue
            old = self.projects.get(root)
            try:
                config = load_project(start=folder)
            except UserError as exc:
                self.warn(str(exc))
                continue  # the document keeps its project as it was
            try:
                allowlist = load_allowlist(config.root, config.allowlist, layout=False)
            except UserError as exc:
                self.warn(str(exc))
                if old is None or old.root != config.root:
                    continue
                allowlist = old.allowlist
            current = self.projects.get(config.root)
            if current is None or current.config != config or not same_entries(current.allowlist, allowlist):
                fresh = Project(config, allowlist)
                if current is not None and current.config == config:
                    fresh.facts = current.facts  # same facts options: the files read stay good
                self.projects[config.root] = fresh
            self._folders[folder] = config.root
            self.documents[path] = config.root

    def settings_files(self) -> set[str]:
        return {name for project in self.projects.values() for name in project.settings_files}

    def closed(self, path: Path) -> None:
        root = self.documents.pop(path, None)
        project = self.projects.get(root) if root is not None else None
        if project is not None:
            rel = project.relative(path)
            if rel is not None:
                project.close(rel)

    def open_in(self, project: Project) -> list[Path]:
        return sorted(path for path, root in self.documents.items() if root == project.root)


def same_entries(a: Allowlist, b: Allowlist) -> bool:
    """Whether two readings of an allowlist judge alike."""
    return a.entries == b.entries and [(d.line, d.message) for d in a.problems] == [
        (d.line, d.message) for d in b.problems
    ]


def by_path(diagnostics: Sequence[Diagnostic]) -> dict[str, list[Diagnostic]]:
    grouped: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        grouped.setdefault(d.path, []).append(d)
    return grouped
