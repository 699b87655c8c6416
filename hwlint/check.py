"""The check pipeline: discover → read → facts → resolve → rules → allowlist.

Each stage lives in its own module; this one only runs them in order, and
makes the expensive stage (reading and parsing) cheap:

- the cache (hwlint/cache.py): facts of unchanged files are loaded, not
  parsed; a whole-tree run whose inputs are all unchanged reuses the last
  run's diagnostics;
- the rest is parsed in a process pool (forked: workers start with
  everything imported), with the garbage collector off (trees and facts
  have no cycles), largest files first, and never so many big files at once
  that their trees would exceed a memory budget; a worker gives the memory
  of a big tree back to the system after it;
- workers send facts back as compact tuples (marshal, zlib); the main process
  keeps them in that form and builds the records of one module at a time,
  so its memory grows by about a kilobyte per file, not by the records of
  the whole tree.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator


from hwlint.cache import Cache, memo_name, open_cache
from hwlint.config import Config
from hwlint.diagnostics import Diagnostic, fix_from_plain, fix_to_plain
from hwlint.discover import discover, import_pathspec
from hwlint.facts import Accelerators, ModuleFacts, extract_file, extract_source, from_blob, to_blob
from hwlint.read import ReadError, decode
from hwlint.resolve import ModuleContext, Resolver
from hwlint.rules import ALL_RULES, ParseError, Rule, Violation, enabled_codes, parse_error

if TYPE_CHECKING:
    import pathspec

    from hwlint.allowlist import Allowlist

# Below this many files to parse a process pool costs more than it saves
# (start-up and imports in each worker against a few milliseconds of parsing).
_POOL_THRESHOLD = 16
# An ast tree takes about this many bytes of memory per byte of source.
_TREE_BYTES_PER_SOURCE_BYTE = 110
# CPython gives little of a freed tree's memory back to the system by itself
# (glibc keeps the freed blocks): a worker keeps as much memory as the
# largest tree it has parsed. After a file above this size, it asks glibc
# to give the free memory back (malloc_trim), so that a worker keeps at most
# ~15 MB, and the memory of big files is only taken while they are parsed
# (at the cost of the system handing it out again: ~2% more CPU time).
_TRIM_ABOVE = 128 * 1024
# The trees of big files being parsed at once stay under this (estimated);
# a bigger file is parsed alone.
_TREE_BUDGET = 80 * 1024 * 1024
# Small files go to workers in batches of about this much source.
_BATCH_BYTES = 256 * 1024
_release: Any = None


def _release_memory() -> None:
    """Give the memory freed by the allocator back to the system (glibc)."""
    global _release
    if _release is None:
        _release = False
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                _release = ctypes.CDLL("libc.so.6").malloc_trim
            except (OSError, AttributeError):  # not glibc (musl...): nothing to do
                pass
    if _release:
        _release(0)


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
    ) -> None:
        self.diagnostics = diagnostics
        self.contexts = contexts
        self.files_checked = files_checked
        self.allowlist = allowlist
        self.enabled = enabled
        self.config = config
        self.whole_tree = whole_tree
        self.outside = [] if outside is None else outside
        # The counted violations of each allowlisted file checked (and parsed) in this run.
        self.allowlist_counts = {} if allowlist_counts is None else allowlist_counts


Progress = Callable[[int, int], None]  # (files just done, files in all)
Blob = bytes  # facts.to_blob(facts)


# -- reading and parsing (main process and workers) ---------------------------


def _read(abspath: str) -> bytes | None:
    try:
        with open(abspath, "rb", buffering=0) as fh:
            return fh.readall()
    except OSError:
        return None  # extract_file reads it again and says why it cannot


# What extraction needs from the configuration: (enum, attribute,
# accelerators). Small and picklable: it goes to worker processes.
How = tuple[str, str, Accelerators]


def how_of(config: Config) -> How:
    return (config.enum, config.attribute, config.accelerators())


def _facts_of(rel: str, data: bytes | None, abspath: str, how: How) -> ModuleFacts:
    """extract_file, from bytes already read (None: read it)."""
    enum, attribute, accelerators = how
    if data is None:
        return extract_file(rel, abspath, enum=enum, attribute=attribute, accelerators=accelerators)
    source = decode(data)
    if isinstance(source, ReadError):
        return ModuleFacts(rel, error=source)
    return extract_source(rel, source, enum=enum, attribute=attribute, accelerators=accelerators)


def _blob_of(rel: str, data: bytes | None, abspath: str, how: How) -> Blob:
    return to_blob(_facts_of(rel, data, abspath, how))


def _extract_task(root: str, paths: list[tuple[str, int]], how: How,
                  with_keys: bool) -> list[tuple[str, bytes | None, Blob]]:
    """Worker: (path, content hash of the bytes parsed, facts) per file
    (no hash without a cache: the file is read as extract_file reads it)."""
    from hwlint.cache import digest

    gc_was_enabled = gc.isenabled()
    gc.disable()  # facts are acyclic: the collector would only scan them
    try:
        out = []
        for rel, size in paths:
            abspath = os.path.join(root, rel)
            data = _read(abspath) if with_keys else None
            key = digest(data, bulk=True) if data is not None else None
            out.append((rel, key, _blob_of(rel, data, abspath, how)))
            if size > _TRIM_ABOVE:
                _release_memory()
        return out
    finally:
        if gc_was_enabled:
            gc.enable()


def _tasks(sizes: list[tuple[str, int]]) -> list[tuple[list[tuple[str, int]], int]]:
    """Work for the pool, largest first: each big file alone (with the
    memory its tree will take), small files in batches (a worker keeps the
    memory of their trees, bounded through _TRIM_ABOVE)."""
    ordered = sorted(sizes, key=lambda item: (-item[1], item[0]))
    tasks: list[tuple[list[tuple[str, int]], int]] = []
    batch: list[tuple[str, int]] = []
    batch_bytes = 0
    for rel, size in ordered:
        if size > _TRIM_ABOVE:
            tasks.append(([(rel, size)], size * _TREE_BYTES_PER_SOURCE_BYTE))
            continue
        batch.append((rel, size))
        batch_bytes += size
        if batch_bytes >= _BATCH_BYTES or len(batch) >= 256:
            tasks.append((batch, 0))
            batch, batch_bytes = [], 0
    if batch:
        tasks.append((batch, 0))
    return tasks


def _pool_extract(config: Config, files: list[str], sizes: dict[str, int], jobs: int, with_keys: bool,
                  progress: Progress | None, total: int) -> Iterator[tuple[str, bytes | None, Blob]]:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    root, how = str(config.root), how_of(config)
    pending = _tasks([(rel, sizes.get(rel, 0)) for rel in files])
    budget = max([_TREE_BUDGET] + [estimate for _, estimate in pending[:1]])
    # fork: workers start in a millisecond with everything imported (and
    # _release_memory's library loaded); the main process has no threads yet.
    context = multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None
    _release_memory()
    in_flight: dict[Future[list[tuple[str, bytes | None, Blob]]], int] = {}
    used = 0
    with ProcessPoolExecutor(max_workers=min(jobs, len(pending)), mp_context=context) as pool:
        while pending or in_flight:
            while pending and len(in_flight) <= jobs:
                # The largest task whose tree fits in what the budget has left.
                pick = next((i for i, (_, estimate) in enumerate(pending) if used + estimate <= budget), None)
                if pick is None:
                    if in_flight:
                        break
                    pick = 0
                paths, estimate = pending.pop(pick)
                future = pool.submit(_extract_task, root, paths, how, with_keys)
                in_flight[future] = estimate
                used += estimate
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                used -= in_flight.pop(future)
                results = future.result()
                yield from results
                if progress is not None:
                    progress(len(results), total)


class _Facts(Mapping[str, ModuleFacts]):
    """path -> ModuleFacts, kept as compact blobs and built when asked for
    (the last few are kept: bases are asked for again and again)."""

    def __init__(self, values: dict[str, Blob | ModuleFacts], rebuild: Callable[[str], ModuleFacts]) -> None:
        self._values = values
        self._rebuild = rebuild
        self._recent: dict[str, ModuleFacts] = {}

    def __getitem__(self, path: str) -> ModuleFacts:
        facts = self._recent.pop(path, None)
        if facts is None:
            value = self._values[path]
            if isinstance(value, ModuleFacts):
                facts = value
            else:
                try:
                    facts = from_blob(value)
                except Exception:  # a damaged cache entry: parse the file again
                    facts = self._values[path] = self._rebuild(path)
            if len(self._recent) >= 64:
                del self._recent[next(iter(self._recent))]
        self._recent[path] = facts
        return facts

    def __contains__(self, path: object) -> bool:
        return path in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


class _Contexts(Sequence[ModuleContext]):
    """CheckResult.contexts: each module's context, built when asked for, so
    that a run over 20,000 files does not hold 20,000 modules' records."""

    def __init__(self, paths: list[str], make: Callable[[], tuple[_Facts, Resolver]]) -> None:
        self._paths = paths
        self._make = make
        self._state: tuple[_Facts, Resolver] | None = None

    def _context(self, path: str) -> ModuleContext:
        if self._state is None:
            self._state = self._make()
        modules, resolver = self._state
        return resolver.context(modules[path])

    def __len__(self) -> int:
        return len(self._paths)

    def __getitem__(self, index):  # type: ignore[no-untyped-def,override]
        if isinstance(index, slice):
            return [self._context(p) for p in self._paths[index]]
        return self._context(self._paths[index])

    def __iter__(self) -> Iterator[ModuleContext]:
        for path in self._paths:
            yield self._context(path)

    def __repr__(self) -> str:
        return f"<{len(self._paths)} module contexts>"


class _Session:
    """One run's reading, cache and parsing."""

    def __init__(self, config: Config, store: Cache | None, jobs: int | None, progress: Progress | None) -> None:
        self.config = config
        self.how = how_of(config)
        self.root = str(config.root)
        self.store = store
        self.jobs = jobs or os.cpu_count() or 1
        self.progress = progress
        self.keys: dict[str, bytes | None] = {}  # content hash of every file read
        self.sizes: dict[str, int] = {}
        self.extras: dict[str, bytes | None] = {}  # non-test files loaded for resolution

    def hash_files(self, files: list[str]) -> None:
        """Read and hash every file the cache has an entry for: the key is
        the content (a CI checkout gives every file a new mtime). A file
        without an entry is parsed anyway, and hashed by whoever parses it.
        Reading and SHA-1 let go of the interpreter lock: two threads do it
        in about half the time."""
        from hwlint.cache import digest

        store = self.store
        if store is not None:
            files = [rel for rel in files if store.has(rel)]
        root, keys, sizes = self.root, self.keys, self.sizes
        bulk = len(files) > 8

        def run(part: list[str]) -> None:
            for rel in part:
                data = _read(os.path.join(root, rel))
                if data is None:
                    keys[rel] = None
                else:
                    keys[rel] = digest(data, bulk=bulk)
                    sizes[rel] = len(data)

        if len(files) < 256 or (os.cpu_count() or 1) < 2:
            run(files)
            return
        import threading

        helper = threading.Thread(target=run, args=(files[1::2],), daemon=True)
        helper.start()
        try:
            run(files[0::2])
        finally:
            helper.join()

    def _extract_here(self, rel: str) -> tuple[bytes | None, ModuleFacts]:
        abspath = os.path.join(self.root, rel)
        if self.store is None:
            return None, _facts_of(rel, None, abspath, self.how)
        from hwlint.cache import digest

        data = _read(abspath)
        facts = _facts_of(rel, data, abspath, self.how)
        key = None
        if data is not None:
            key = digest(data)
            self.store.put(rel, key, to_blob(facts))
        return key, facts

    def collect(self, files: list[str]) -> dict[str, Blob | ModuleFacts]:
        """Facts of `files`, as blobs (from the cache or workers) or records."""
        total = len(files)
        values: dict[str, Blob | ModuleFacts] = {}
        missing: list[str] = []
        store = self.store
        for rel in files:
            key = self.keys.get(rel)
            blob = None
            if store is not None:
                if key is not None:
                    blob = store.get(rel, key)
                else:
                    store.misses += 1  # no entry (or unreadable)
            if blob is None:
                missing.append(rel)
            else:
                values[rel] = blob
        if self.progress is not None and len(values):
            self.progress(len(values), total)
        if self.jobs <= 1 or len(missing) < _POOL_THRESHOLD:
            for rel in missing:
                key, facts = self._extract_here(rel)
                if key is not None:
                    self.keys[rel] = key
                values[rel] = facts
                if self.progress is not None:
                    self.progress(1, total)
            return {rel: values[rel] for rel in files}
        for rel in missing:
            if rel not in self.sizes:  # not read for hashing: ask the file system
                try:
                    self.sizes[rel] = os.stat(os.path.join(self.root, rel)).st_size
                except OSError:
                    self.sizes[rel] = 0
        for rel, key, blob in _pool_extract(self.config, missing, self.sizes, self.jobs, store is not None,
                                            self.progress, total):
            values[rel] = blob
            self.keys[rel] = key
            if store is not None and key is not None:
                store.put(rel, key, blob)
        return {rel: values[rel] for rel in files}

    def load(self, rel: str) -> ModuleFacts | None:
        """A non-test file a base class comes from (read on demand, cached)."""
        abspath = os.path.join(self.root, rel)
        store = self.store
        if store is None:
            return _facts_of(rel, None, abspath, self.how)
        from hwlint.cache import digest

        data = _read(abspath)
        key = digest(data) if data is not None else None
        self.extras[rel] = key
        if key is not None:
            blob = store.get(rel, key)
            if blob is not None:
                try:
                    return from_blob(blob)
                except Exception:
                    store.discard(rel)
        facts = _facts_of(rel, data, abspath, self.how)
        if key is not None:
            store.put(rel, key, to_blob(facts))
        return facts

    def rebuild(self, rel: str) -> ModuleFacts:
        if self.store is not None:
            self.store.discard(rel)
        return self._extract_here(rel)[1]


def collect_facts(config: Config, files: list[str], jobs: int | None = None, progress: Progress | None = None,
                  cache: bool | str | Path | Cache | None = False) -> list[ModuleFacts]:
    """Facts for every file, in the order given, in parallel when worth it
    (from the cache when `cache` is given: see run_check)."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        store = open_cache(config, cache)
        session = _Session(config, store, jobs, progress)
        if store is not None:
            session.hash_files(files)
        modules = _Facts(session.collect(files), session.rebuild)
        result = [modules[rel] for rel in files]
        if store is not None:
            store.save()
        return result
    finally:
        if gc_was_enabled:
            gc.enable()


def _diagnostic(rule: type[Rule], path: str, v: Violation) -> Diagnostic:
    return Diagnostic(path, v.line, v.column, rule.code, rule.name, v.message, "error", v.class_name, v.fix)


def lint_module(ctx: ModuleContext, enabled: frozenset[str]) -> list[Diagnostic]:
    """Run the enabled rules on one module; noqa applied."""
    facts = ctx.facts
    if facts.skip_file:
        return []
    found: list[Diagnostic] = []
    if facts.error is not None:
        if ParseError.code in enabled:
            found.append(parse_error.diagnostic(facts.path, facts.error))
        return found
    for rule in ALL_RULES:
        if rule.code not in enabled or rule.scope != "module":
            continue
        for v in rule().check(ctx):
            if not facts.suppressed(v.line, rule.code):
                found.append(_diagnostic(rule, facts.path, v))
    return found


def _per_file_ignores(config: Config) -> list[tuple[pathspec.GitIgnoreSpec, tuple[str, ...]]]:
    if not config.per_file_ignores:
        return []
    pathspec = import_pathspec()
    return [(pathspec.GitIgnoreSpec.from_lines([pattern]), codes) for pattern, codes in config.per_file_ignores.items()]


# -- the memo of a whole-tree run ------------------------------------------------


def _memo_name(config: Config, enabled: frozenset[str]) -> str:
    settings = tuple((name, repr(getattr(config, name))) for name in config._fields if name not in ("root", "source"))
    shape = Diagnostic.__slots__
    return memo_name(("whole-tree", tuple(sorted(enabled)), settings, shape))


def _memo_valid(memo: Any, session: _Session, files: list[str]) -> bool:
    """Whether every input of the memo's run is unchanged: the test files
    and their contents, the base files read and the import candidates
    probed (a new file can change what an import finds)."""
    from hwlint.cache import digest

    try:
        if memo["files"] != tuple((rel, session.keys.get(rel)) for rel in files):
            return False
        root = session.root
        for rel, key in memo["extras"]:
            data = _read(os.path.join(root, rel))
            if (digest(data) if data is not None else None) != key:
                return False
        for rel, exists in memo["probes"]:
            if os.path.isfile(os.path.join(root, rel)) != exists:
                return False
        return True
    except Exception:  # a memo of another shape: not valid
        return False


def _encode_diagnostic(d: Diagnostic) -> tuple[Any, ...]:
    return (d.path, d.line, d.column, d.code, d.name, d.message, d.severity, d.class_name, fix_to_plain(d.fix))


def _decode_diagnostic(d: tuple[Any, ...]) -> Diagnostic:
    path, line, column, code, name, message, severity, class_name, fix = d
    return Diagnostic(path, line, column, code, name, message, severity, class_name, fix_from_plain(fix))


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
) -> CheckResult:
    """Check `paths` (default: the whole project).

    `cache`: True (what `hwlint check` passes) uses the cache unless
    --no-cache / HWLINT_NO_CACHE say otherwise, in --cache-dir,
    HWLINT_CACHE_DIR or `.hwlint_cache/` at the root; None (the default)
    uses it only when a folder is named that way; False: no cache; a path:
    that folder; a Cache: that one (see hwlint.cache.open_cache)."""
    enabled = enabled_codes(
        tuple(select if select is not None else config.select) + tuple(extend_select),
        tuple(ignore if ignore is not None else config.ignore),
    )
    store = open_cache(config, cache)
    found = discover(config, paths, store)
    files = found.files
    gc_was_enabled = gc.isenabled()
    gc.disable()  # facts and diagnostics are acyclic: the collector would only scan them
    try:
        session = _Session(config, store, jobs, progress)
        if store is not None:
            session.hash_files(files)
        diagnostics, broken, contexts = _lint(config, session, files, enabled, found.whole_tree)
        if store is not None:
            if found.whole_tree and not store.memo_hit:
                store.retain(set(files) | set(session.extras))  # deleted files leave the cache
            store.save()
    finally:
        if gc_was_enabled:
            gc.enable()
    root = config.root
    for missing in found.missing:
        if ParseError.code in enabled:
            diagnostics.append(parse_error.missing(missing))
    allowlist = None
    counts: dict[str, int] = {}
    if use_allowlist:
        from hwlint.allowlist import apply_allowlist, load_allowlist

        allowlist = load_allowlist(root, config.allowlist, layout=False, memo=store)
        checked = set(files)
        unlinted: set[str] = set()
        if found.whole_tree:  # only read then (a pre-commit run does not judge other entries)
            base = str(root)
            unlinted = {p for p in allowlist.entries if p not in checked and os.path.isfile(os.path.join(base, p))}
        diagnostics, counts = apply_allowlist(allowlist, diagnostics, checked, broken, unlinted, found.whole_tree, enabled)
    diagnostics.sort()
    return CheckResult(diagnostics, contexts, len(files), allowlist, enabled, config, found.whole_tree, found.outside,
                       counts)


def _lint(config: Config, session: _Session, files: list[str], enabled: frozenset[str],
          whole_tree: bool) -> tuple[list[Diagnostic], set[str], _Contexts]:
    """(diagnostics before the allowlist, files that do not parse, contexts)."""
    store = session.store
    memo_key = None
    if store is not None and whole_tree and files:
        memo_key = _memo_name(config, enabled)
        known = all(session.keys.get(rel) is not None for rel in files)
        memo = store.memo_get(memo_key) if known else None
        if memo is not None and _memo_valid(memo, session, files):
            try:
                diagnostics = [_decode_diagnostic(d) for d in memo["diagnostics"]]
                broken = set(memo["broken"])
            except Exception:
                pass
            else:
                store.memo_hit = True
                if session.progress is not None:
                    session.progress(len(files), len(files))

                def make() -> tuple[_Facts, Resolver]:
                    session.progress = None  # the run has ended: no more progress to show
                    modules = _Facts(session.collect(files), session.rebuild)
                    resolver = Resolver(config, modules, session.load)  # type: ignore[arg-type]  # a Mapping will do
                    for rel in files:  # resolve in the order a full run does
                        resolver.context(modules[rel])
                    return modules, resolver

                return diagnostics, broken, _Contexts(files, make)

    modules = _Facts(session.collect(files), session.rebuild)
    resolver = Resolver(config, modules, session.load)  # type: ignore[arg-type]  # a Mapping will do
    ignores = _per_file_ignores(config)
    diagnostics = []
    broken = set()
    for rel in files:
        ctx = resolver.context(modules[rel])
        if ctx.facts.error is not None:
            broken.add(rel)
        file_diags = lint_module(ctx, enabled)
        if ignores:
            dropped = [codes for spec, codes in ignores if spec.match_file(ctx.path)]
            file_diags = [d for d in file_diags if not any(d.code.startswith(c) for cs in dropped for c in cs)]
        diagnostics.extend(file_diags)
    if memo_key is not None and store is not None:
        probes = getattr(resolver, "_exists", None)  # every import candidate resolution looked at
        if isinstance(probes, dict) and all(session.keys.get(rel) is not None for rel in files):
            store.memo_put(memo_key, {
                "files": tuple((rel, session.keys[rel]) for rel in files),
                "extras": tuple(sorted(session.extras.items())),
                "probes": tuple(sorted(probes.items())),
                "diagnostics": tuple(_encode_diagnostic(d) for d in diagnostics),
                "broken": tuple(sorted(broken)),
            })
    return diagnostics, broken, _Contexts(files, lambda: (modules, resolver))
