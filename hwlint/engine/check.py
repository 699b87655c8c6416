"""The check pipeline: discover → read → facts → resolve → rules → allowlist.

Each stage lives in its own module; this one only runs them in order.
Parsing many files is done in a process pool (hwlint.infra.pool, through
hwlint.facts.collect.FactsSource); the cache is a layer around the stages
(hwlint.engine.cached): facts of unchanged files are loaded, not parsed, and a
whole-tree run whose inputs are all unchanged reuses the last run's
diagnostics.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, cast, overload

from hwlint.core.config import Config
from hwlint.core.diagnostics import Configure, Diagnostic
from hwlint.engine.alone import Alone, judge_alone
from hwlint.engine.judge import Judge
from hwlint.engine.lint import lint_module
from hwlint.facts import ModuleFacts
from hwlint.facts.collect import FactsSource, LazyFacts, Progress
from hwlint.facts.discover import Discovery, discover
from hwlint.facts.resolve import ModuleContext, Resolver
from hwlint.infra.pool import Packed, unpacked
from hwlint.rules import enabled_codes, parse_error
from hwlint.rules.parse_error import ParseError
from hwlint.rules.phase_overdue import PhaseOverdue

if TYPE_CHECKING:
    from datetime import date

    from hwlint.allowlist.model import Allowlist, Entry
    from hwlint.engine.cached import CachedFactsSource, TreeMemo
    from hwlint.infra.cache import Cache

__all__ = ["CheckResult", "Progress", "lint_files", "lint_module", "lint_variant", "run_check"]


class CheckResult:
    """What a run found, for the output stage and the allowlist commands."""

    def __init__(
        self,
        diagnostics: list[Diagnostic],
        contexts: Sequence[ModuleContext],  # built on demand, one module at a time
        files_checked: int,
        allowlist: Allowlist | None,
        enabled: frozenset[str],
        config: Config,
        whole_tree: bool = True,
        outside: list[str] | None = None,
        allowlist_counts: dict[str, int] | None = None,
        missing: list[str] | None = None,
        cache: bool | str | Path | Cache | None = None,
        memo: Callable[[str, Callable[[], int]], int] | None = None,
        linted: list[Diagnostic] | None = None,
        alone: Mapping[str, Alone] | None = None,
    ) -> None:
        self.diagnostics = diagnostics
        self.contexts = contexts
        self.files_checked = files_checked
        self.allowlist = allowlist
        self.enabled = enabled
        self.config = config
        self.whole_tree = whole_tree
        self.outside = [] if outside is None else outside
        self.missing = [] if missing is None else missing  # named, matching `include`, not found (HWC000 when on)
        # The counted violations of each allowlisted file checked (and parsed) in this run.
        self.allowlist_counts = {} if allowlist_counts is None else allowlist_counts
        # run_check's `cache` argument: a consumer that checks again (prune,
        # fix) uses the cache this run was told to use.
        self.cache = cache
        self._memo = memo
        # Every module's diagnostics before the allowlist, as `enabled` found
        # them: fix's trials lint each module as it is once more per file
        # otherwise (more than half of the "N fixable" count's cost).
        self._linted = linted
        self._by_path: dict[str, list[Diagnostic]] | None = None
        # The modules the workers judged alone (hwlint.engine.alone), by path:
        # none of their bases is in another module.
        self.alone: Mapping[str, Alone] = {} if alone is None else alone
        self._readers_index: tuple[dict[str, list[str]], list[str]] | None = None

    def context(self, path: str) -> ModuleContext:
        """The context of one of the run's modules."""
        contexts = self.contexts
        if isinstance(contexts, _Contexts):
            return contexts.context(path)
        return next(ctx for ctx in contexts if ctx.path == path)

    def paths(self) -> list[str]:
        """The run's modules, in its order."""
        contexts = self.contexts
        return list(contexts.paths) if isinstance(contexts, _Contexts) else [ctx.path for ctx in contexts]

    def may_inherit_from(self, changed: Iterable[str]) -> Iterator[ModuleContext]:
        """The contexts of the modules that may have a base in a module of
        `changed`, in the run's order: those judged with the run, and those
        a worker judged that read one of `changed`."""
        readers, with_run = self._readers()
        wanted = set(with_run).union(*(readers.get(path, ()) for path in changed))
        for path in self.paths():
            if path in wanted:
                yield self.context(path)

    def _readers(self) -> tuple[dict[str, list[str]], list[str]]:
        """Who may inherit from whom, indexed once (fix's trials ask for
        every module they try): each file a worker read, with the modules
        it read it for; and the modules judged with the run."""
        if self._readers_index is None:
            readers: dict[str, list[str]] = {}
            with_run: list[str] = []
            for path in self.paths():
                alone = self.alone.get(path)
                if alone is None:
                    with_run.append(path)
                    continue
                for other in alone.needs:
                    readers.setdefault(other, []).append(path)
            self._readers_index = (readers, with_run)
        return self._readers_index

    def inherited(self) -> set[str]:
        """The modules that a class of another module may inherit from (a
        superset: every file a worker read to resolve a module)."""
        readers, with_run = self._readers()
        found = set(readers)
        for path in with_run:
            for c in self.context(path).classes:
                found.update(p for p, _ in c.ancestors if p != path)
        return found

    def as_linted(self, facts: ModuleFacts, enabled: frozenset[str]) -> list[Diagnostic] | None:
        """What lint_variant would give for `facts` unchanged, from the run
        itself: its diagnostics of that module before the allowlist, when
        `facts` is the very module the run linted, with the same rules;
        None otherwise."""
        if self._linted is None or enabled != self.enabled:
            return None
        resolver = run_resolver(self)
        if resolver is None or facts.path not in resolver.modules or resolver.modules[facts.path] is not facts:
            return None
        if self._by_path is None:
            self._by_path = {}
            for d in self._linted:
                self._by_path.setdefault(d.path, []).append(d)
        return list(self._by_path.get(facts.path, ()))

    def unconfigured_devices(self) -> tuple[tuple[str, int], ...]:
        """Each accelerator device this run found in the code that the
        configuration does not name (HWC003's findings), with how many
        files use it: most used first."""
        files: dict[str, set[str]] = {}
        for d in self.diagnostics:
            if isinstance(d.fix, Configure):
                files.setdefault(d.fix.device, set()).add(d.path)
        return tuple(sorted(((name, len(paths)) for name, paths in files.items()), key=lambda x: (-x[1], x[0])))

    def remember(self, name: str, compute: Callable[[], int]) -> int:
        """`compute()`, a figure derived from this result, or the value it had
        for the last run with the same inputs and diagnostics (the cache's
        whole-tree memo: hwlint.engine.cached.TreeMemo.derived)."""
        return compute() if self._memo is None else self._memo(name, compute)

    def recheck(self, *, jobs: int | None = None) -> "CheckResult":
        """The same files checked again with the configured rules and no
        allowlist (what budgets count), through the same cache: how the
        allowlist's commands count a run made with other rules."""
        paths = None if self.whole_tree else [self.config.root / ctx.path for ctx in self.contexts]
        return run_check(self.config, paths, jobs=jobs, use_allowlist=False, cache=self.cache)


class Resolved:
    """The facts and the resolver of a run's files, made when first asked for."""

    def __init__(self, config: Config, source: FactsSource, files: list[str]) -> None:
        self.modules = LazyFacts(source.collect(files), source.rebuild)
        self.resolver = Resolver(config, self.modules, source.load)
        # The modules the workers judged where they parsed them (hwlint.engine.alone),
        # packed by task until lint_files unpacks them, in place.
        self.alone = cast("dict[str, Alone | Packed]", source.judged)
        self.source = source

    def context(self, path: str) -> ModuleContext:
        return self.resolver.context(self.modules[path])


class _Contexts(Sequence[ModuleContext]):
    """CheckResult.contexts: each module's context, built when asked for, so
    that a run over 20,000 files does not hold 20,000 modules' records."""

    def __init__(self, paths: list[str], make: Callable[[], Resolved]) -> None:
        self.paths = paths
        self._make = make
        self._resolved: Resolved | None = None

    def context(self, path: str) -> ModuleContext:
        if self._resolved is None:
            self._resolved = self._make()
        return self._resolved.context(path)

    def __len__(self) -> int:
        return len(self.paths)

    @overload
    def __getitem__(self, index: int) -> ModuleContext: ...

    @overload
    def __getitem__(self, index: slice) -> list[ModuleContext]: ...

    def __getitem__(self, index: int | slice) -> ModuleContext | list[ModuleContext]:
        if isinstance(index, slice):
            return [self.context(p) for p in self.paths[index]]
        return self.context(self.paths[index])

    def __iter__(self) -> Iterator[ModuleContext]:
        for path in self.paths:
            yield self.context(path)

    def __repr__(self) -> str:
        return f"<{len(self.paths)} module contexts>"

    def resolver(self) -> Resolver:
        if self._resolved is None:
            self._resolved = self._make()
        return self._resolved.resolver


def lint_files(
    config: Config, resolved: Resolved, files: list[str], enabled: frozenset[str], judge: Judge
) -> tuple[list[Diagnostic], set[str]]:
    """(diagnostics before the allowlist, files that do not parse). A module
    a worker judged alone is taken as it found it, with the candidates its
    resolution probed (the run's resolver would have probed the same)."""
    diagnostics: list[Diagnostic] = []
    broken: set[str] = set()
    resolver = resolved.resolver
    for rel in files:
        alone = unpacked(resolved.alone, rel)
        if alone is not None:
            if alone.broken:
                broken.add(rel)
            resolver.exists.update(alone.exists)
            alone.exists.clear()  # moved into the run's resolver: 20,000 modules' copies are not kept
            for other in alone.needs:
                if other not in resolved.modules:
                    resolved.source.read_elsewhere(other)
            diagnostics.extend(alone.diagnostics)
            continue
        ctx = resolved.context(rel)
        if ctx.facts.error is not None:
            broken.add(rel)
        diagnostics.extend(judge.without_ignored(ctx.path, lint_module(ctx, enabled)))
    return diagnostics, broken


class _OneModule:
    """What a run of one module judged in a worker resolves with: that
    worker's resolver (its loader reads the files bases come from)."""

    def __init__(self, resolver: Resolver, ctx: ModuleContext) -> None:
        self.resolver = resolver
        self.ctx = ctx

    def context(self, path: str) -> ModuleContext:
        return self.ctx


def run_of_one(
    config: Config, resolver: Resolver, ctx: ModuleContext, found: list[Diagnostic], enabled: frozenset[str]
) -> CheckResult:
    """A check of one module judged in a worker, without the allowlist:
    what run_check's `per_module` is given. A consumer that lints variants
    of it resolves them with the worker's resolver."""
    one = _OneModule(resolver, ctx)
    contexts = _Contexts([ctx.path], lambda: cast(Resolved, one))
    return CheckResult(sorted(found), contexts, 1, None, enabled, config, whole_tree=False)


def run_resolver(result: CheckResult) -> Resolver | None:
    """The resolver of `result`'s run (its modules, and the files their
    imports reached), or None for a result built by hand."""
    contexts = result.contexts
    return contexts.resolver() if isinstance(contexts, _Contexts) else None


def lint_variant(
    result: CheckResult,
    facts: ModuleFacts,
    enabled: frozenset[str],
    judge: Judge | None = None,
    changed: Mapping[str, ModuleFacts] | None = None,
) -> list[Diagnostic]:
    """Lint a changed version of one of `result`'s modules as the run would
    (noqa and per-file-ignores applied), its bases resolved through the
    run's files, or through their `changed` versions: how `fix` tries a
    classification before writing it."""
    base = run_resolver(result)
    load = base.module if base is not None else (lambda path: None)
    # A variant is linted many times (fix's trials): the run's probes of
    # candidate files are shared, not made again each time.
    resolver = Resolver(
        result.config,
        {**(changed or {}), facts.path: facts},
        load,
        base.exists if base is not None else None,
        base.located if base is not None else None,
    )
    judge = judge or Judge(result.config)
    return judge.without_ignored(facts.path, lint_module(resolver.context(facts), enabled))


def _budget_history(
    config: Config, contexts: _Contexts, enabled: frozenset[str], judge: Judge
) -> Callable[[str, Entry], list[Diagnostic] | None]:
    """apply_allowlist's `earlier`: a file's counted violations as of the
    commit that last changed its allowlist line (`git blame`), when its
    budget was set; linted with the run's rules and its other files. None
    without that history. Asked only of files over their budget."""

    def earlier(path: str, entry: Entry) -> list[Diagnostic] | None:
        # Imported here: a run with no file over its budget never needs git.
        from hwlint.allowlist.model import counted
        from hwlint.facts import extract_source
        from hwlint.facts.collect import FactsOptions
        from hwlint.infra.git import file_at_line_commit

        text = file_at_line_commit(config.root, config.allowlist, entry.line, path)
        if text is None:
            return None
        facts = extract_source(path, text, **FactsOptions.of(config)._asdict())
        if facts.error is not None:
            return None
        runs = contexts.resolver()
        resolver = Resolver(config, {path: facts}, runs.module)
        found = judge.without_ignored(path, lint_module(resolver.context(facts), enabled))
        return [d for d in found if counted(d.code)]

    return earlier


def run_check(
    config: Config,
    paths: list[Path] | None = None,
    *,
    jobs: int | None = None,
    select: tuple[str, ...] | None = None,
    extend_select: tuple[str, ...] = (),
    ignore: tuple[str, ...] | None = None,
    use_allowlist: bool = True,
    progress: Progress | None = None,
    cache: bool | str | Path | Cache | None = None,
    today: date | None = None,
    per_module: Callable[[CheckResult], object] | None = None,
) -> CheckResult:
    """Check `paths` (default: the whole project).

    `cache`: True (what `hwlint check` passes unless --no-cache) uses the
    cache unless HWLINT_NO_CACHE says otherwise, in HWLINT_CACHE_DIR or
    `.hwlint_cache/` at the root; None (the default) uses it only when a
    folder is named that way; False: no cache; a path: that folder; a
    Cache: that one (see hwlint.engine.cached.open_cache). `today`: the date
    migration phases are judged on (default: $HWLINT_TODAY, else today).
    `per_module`: what a consumer computes from each module the workers
    judge alone, computed there (in `result.alone`, hwlint.engine.alone)."""
    from hwlint.engine import cached

    enabled = enabled_codes(
        tuple(select if select is not None else config.select) + tuple(extend_select),
        tuple(ignore if ignore is not None else config.ignore),
    )
    store = cached.open_cache(config, cache)
    found = discover(config, paths, cached.selector(config, store))
    files = found.files
    judge = Judge(config)
    gc_was_enabled = gc.isenabled()
    gc.disable()  # facts and diagnostics are acyclic: the collector would only scan them
    try:
        source, memo = _facts_source(config, store, found, enabled, jobs, progress, per_module)
        diagnostics, broken, contexts = _resolve_and_lint(config, source, memo, files, enabled, judge, progress)
        if store is not None:
            _keep(store, source, found)
    finally:
        if gc_was_enabled:
            gc.enable()
    linted = list(diagnostics)
    for missing in found.missing:
        if ParseError.code in enabled:
            diagnostics.append(parse_error.missing(missing))
    allowlist = None
    counts: dict[str, int] = {}
    if use_allowlist:
        allowlist = cached.load_allowlist(config, store)
        diagnostics, counts = _judge_allowlist(config, allowlist, found, diagnostics, broken, enabled, contexts, judge)
        diagnostics += _overdue(config, allowlist, found, enabled, today)
    diagnostics.sort()
    return CheckResult(
        diagnostics,
        contexts,
        len(files),
        allowlist,
        enabled,
        config,
        found.whole_tree,
        found.outside,
        counts,
        found.missing,
        cache,
        memo[0].derived(diagnostics) if memo is not None else None,
        linted,
        cast("Mapping[str, Alone]", source.judged),
    )


# The whole-tree memo of a cached run, and the facts source it is keyed by.
_Memo = tuple["TreeMemo", "CachedFactsSource"]


def _facts_source(
    config: Config,
    store: Cache | None,
    found: Discovery,
    enabled: frozenset[str],
    jobs: int | None,
    progress: Progress | None,
    per_module: Callable[[CheckResult], object] | None = None,
) -> tuple[FactsSource, _Memo | None]:
    """read → facts: where the run's facts come from (parsed, in the pool
    when there are enough files, or loaded from the cache), and the
    whole-tree memo when the cache can keep one for this run."""
    from hwlint.engine import cached

    # The files parsed in the pool are judged there (hwlint.engine.alone).
    if store is None:
        source = FactsSource(config, jobs, progress)
        source.after = (judge_alone, (config, enabled, per_module, run_of_one, False))
        return source, None
    in_cache = cached.CachedFactsSource(config, store, jobs, progress)
    in_cache.after = (judge_alone, (config, enabled, per_module, run_of_one, True))
    in_cache.hash_files(found.files)
    if found.whole_tree and found.files:
        return in_cache, (cached.TreeMemo(store, config, enabled), in_cache)
    return in_cache, None


def _resolve_and_lint(
    config: Config,
    source: FactsSource,
    memo: _Memo | None,
    files: list[str],
    enabled: frozenset[str],
    judge: Judge,
    progress: Progress | None,
) -> tuple[list[Diagnostic], set[str], _Contexts]:
    """resolve → rules: the diagnostics before the allowlist, the files that
    do not parse, and the modules' contexts. A whole-tree run whose inputs
    are all unchanged takes the first two from the memo, and resolves only
    when a consumer asks for a context."""
    outcome = memo[0].get(memo[1], files) if memo is not None else None
    if outcome is not None:
        if progress is not None:
            progress(len(files), len(files))

        def resolve_again() -> Resolved:
            source.progress = None  # the run has ended: no more progress to show
            resolved = Resolved(config, source, files)
            for rel in files:  # resolve in the order a full run does
                resolved.context(rel)
            return resolved

        diagnostics, broken = outcome
        return diagnostics, broken, _Contexts(files, resolve_again)
    resolved = Resolved(config, source, files)
    diagnostics, broken = lint_files(config, resolved, files, enabled, judge)
    if memo is not None:
        memo[0].put(memo[1], files, resolved.resolver.probed(), diagnostics, broken)
    return diagnostics, broken, _Contexts(files, lambda: resolved)


def _keep(store: Cache, source: FactsSource, found: Discovery) -> None:
    """What the cache keeps of the run: the facts of the files it checked
    (on a whole-tree run, deleted files leave the cache), its statistics."""
    from hwlint.engine import cached

    if found.whole_tree and not store.memo_hit and isinstance(source, cached.CachedFactsSource):
        store.retain(set(found.files) | set(source.extras))  # deleted files leave the cache
    if isinstance(source, cached.CachedFactsSource):
        source.record_stats(found.whole_tree)
    store.save()


def _judge_allowlist(
    config: Config,
    allowlist: Allowlist,
    found: Discovery,
    diagnostics: list[Diagnostic],
    broken: set[str],
    enabled: frozenset[str],
    contexts: _Contexts,
    judge: Judge,
) -> tuple[list[Diagnostic], dict[str, int]]:
    """The diagnostics with the allowlist applied (listed files exempt,
    budgets and the list judged), and each listed file's counted violations."""
    from hwlint.allowlist.model import apply_allowlist

    checked = set(found.files)
    unlinted: set[str] = set()
    if found.whole_tree:  # only read then (a pre-commit run does not judge other entries)
        base = str(config.root)
        unlinted = {p for p in allowlist.entries if p not in checked and os.path.isfile(os.path.join(base, p))}
    return apply_allowlist(
        allowlist,
        diagnostics,
        checked,
        broken,
        unlinted,
        found.whole_tree,
        enabled,
        _budget_history(config, contexts, enabled, judge),
    )


def _overdue(
    config: Config, allowlist: Allowlist, found: Discovery, enabled: frozenset[str], today: date | None
) -> list[Diagnostic]:
    """HWC305's findings: the listed files of migration phases past due."""
    if not (config.phases and PhaseOverdue.code in enabled):
        return []
    from hwlint.allowlist import phases

    settings = config.source.name if config.source is not None else "the configuration"
    return phases.overdue_entries(
        allowlist, config.phases, today or phases.today(), set(found.files), found.whole_tree, settings, config.source
    )
