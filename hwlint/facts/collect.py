"""Read and facts for many files: the `read → facts` stages over a tree.

`FactsSource` gives the facts of the files asked for, parsing them here or,
when there are many, in a process pool (hwlint.infra.pool). It knows nothing of a
cache: hwlint.engine.cached layers one around it. Facts travel and are kept as
compact blobs (facts.to_blob); `LazyFacts` builds the records of one module
at a time, so that a run over 20,000 files does not hold 20,000 modules'
records.
"""

# No `from __future__ import annotations`: typing.NamedTuple would compile
# each string annotation (hwlint.facts.records says why).

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Callable, Iterator, NamedTuple

from hwlint.core.config import Config
from hwlint.facts import (
    DEFAULT_ACCELERATORS,
    Accelerators,
    ModuleFacts,
    extract_file,
    extract_source,
    from_blob,
    to_blob,
)
from hwlint.facts.read import ReadError, decode, read_file

if TYPE_CHECKING:
    from hwlint.infra.pool import Packed

Progress = Callable[[int, int], None]  # (files just done, files in all)
Blob = bytes  # facts.to_blob(facts)

# Below this many files to parse a process pool costs more than it saves
# (start-up and imports in each worker against a few milliseconds of parsing).
POOL_THRESHOLD = 16


class FactsOptions(NamedTuple):
    """Everything of the configuration that reaches the facts stage. Small
    and picklable (it goes to worker processes); the cache keys facts by it
    whole, so a setting that changes facts cannot be left out of the key."""

    enum: str
    attribute: str
    accelerators: Accelerators

    @classmethod
    def of(cls, config: Config) -> "FactsOptions":
        accelerators = DEFAULT_ACCELERATORS.extended(
            config.extend_accelerator_modules, config.extend_accelerator_flags, config.extend_devices
        )
        return cls(config.enum, config.attribute, accelerators)


def read_bytes(abspath: str) -> bytes | None:
    try:
        return read_file(abspath)
    except OSError:
        return None  # extract_file reads it again and says why it cannot


def facts_of(rel: str, data: bytes | None, abspath: str, options: FactsOptions) -> ModuleFacts:
    """extract_file, from bytes already read (None: read it)."""
    kwargs = options._asdict()
    if data is None:
        return extract_file(rel, abspath, **kwargs)
    source = decode(data)
    if isinstance(source, ReadError):
        return ModuleFacts(rel, error=source)
    return extract_source(rel, source, **kwargs)


# What a worker may do with each module's facts besides sending them back
# (hwlint.engine.alone judges a module there when it needs no other
# module): a module-level function, sent by name, called once per task
# with the arguments beside it, that gives the step for each (path, facts);
# the steps' results of a task travel back together, packed
# (hwlint.infra.pool.Packed; a step's None: nothing to send for that file).
WorkerStep = tuple[Callable[..., Callable[[str, ModuleFacts], object]], tuple[object, ...]]


def _extract_batch(
    paths: list[tuple[str, int]], root: str, options: FactsOptions, with_keys: bool, after: "WorkerStep | None"
) -> "list[tuple[str, bytes | None, Blob, Packed | None]]":
    """In a worker: (path, content hash of the bytes parsed, facts blob,
    what `after` gave for the task's files, packed) per file (no hash
    unless asked: then the file is read as extract_file reads it). The pack
    is one object for the task: it travels once."""
    from hwlint.infra.hashing import digest
    from hwlint.infra.pool import Packed, release_memory_after

    step = after[0](*after[1]) if after is not None else None
    out = []
    given: dict[str, object] = {}
    for rel, size in paths:
        abspath = os.path.join(root, rel)
        data = read_bytes(abspath) if with_keys else None
        key = digest(data, bulk=True) if data is not None else None
        facts = facts_of(rel, data, abspath, options)
        if step is not None:
            value = step(rel, facts)
            if value is not None:
                given[rel] = value
        out.append((rel, key, to_blob(facts)))
        release_memory_after(size)
    packed = Packed.of(given) if given else None
    return [(rel, key, blob, packed if rel in given else None) for rel, key, blob in out]


class FactsSource:
    """The facts of a project's files, read from disk and parsed."""

    def __init__(self, config: Config, jobs: int | None = None, progress: Progress | None = None) -> None:
        self.config = config
        self.options = FactsOptions.of(config)
        self.root = str(config.root)
        self.jobs = jobs or os.cpu_count() or 1
        self.progress = progress
        self.sizes: dict[str, int] = {}  # known file sizes, for the pool's planning
        # What the workers do with each module besides its facts, and what
        # they gave, by path (only for files parsed in the pool): packed,
        # each task's files sharing one pack, until a consumer unpacks it
        # (hwlint.infra.pool.unpacked).
        self.after: WorkerStep | None = None
        self.judged: dict[str, object] = {}

    def abspath(self, rel: str) -> str:
        return os.path.join(self.root, rel)

    def parse(self, rel: str) -> ModuleFacts:
        return facts_of(rel, None, self.abspath(rel), self.options)

    def collect(self, files: list[str]) -> dict[str, Blob | ModuleFacts]:
        """Facts of `files`, as records (parsed here) or blobs (from workers)."""
        return self.parse_all(files, len(files))

    def parse_all(self, files: list[str], total: int) -> dict[str, Blob | ModuleFacts]:
        """Parse `files` (`total`: the run's file count, for progress)."""
        values: dict[str, Blob | ModuleFacts] = {}
        if self.jobs <= 1 or len(files) < POOL_THRESHOLD:
            for rel in files:
                values[rel] = self.parse_one(rel)
                if self.progress is not None:
                    self.progress(1, total)
            return values
        from hwlint.infra.pool import run_in_pool

        for rel in files:
            if rel not in self.sizes:  # not read yet: ask the file system
                try:
                    self.sizes[rel] = os.stat(self.abspath(rel)).st_size
                except OSError:
                    self.sizes[rel] = 0
        for rel, key, blob, judged in run_in_pool(
            _extract_batch,
            (self.root, self.options, self.with_keys, self.after),
            [(rel, self.sizes[rel]) for rel in files],
            self.jobs,
            self.progress,
            total,
        ):
            values[rel] = blob
            if judged is not None:
                self.judged[rel] = judged
            self.parsed(rel, key, blob)
        return values

    # What the cache layer overrides: whether workers hash what they read,
    # and what to do with each file parsed.
    with_keys = False

    def parse_one(self, rel: str) -> ModuleFacts:
        return self.parse(rel)

    def parsed(self, rel: str, key: bytes | None, blob: Blob) -> None:
        pass

    def load(self, rel: str) -> ModuleFacts | None:
        """A non-test file a base class comes from (read on demand)."""
        return self.parse(rel)

    def read_elsewhere(self, rel: str) -> None:
        """A non-test file a worker read for a base class (what `load` reads
        here): nothing to keep without a cache."""

    def rebuild(self, rel: str) -> ModuleFacts:
        """Facts of a file whose blob turned out unusable."""
        return self.parse(rel)


# A check goes over every module several times (the rules, the fixable
# count's trials, the subclasses of each class), and building the records
# again on each pass cost more than the rules themselves (~0.1 s a pass at
# 2,000 files). A tree of up to KEEP_BUILT modules keeps every module's
# records once built (~7 KB each: at most ~30 MB); a bigger one keeps the
# last KEEP_RECENT (bases are asked for again and again) and builds the
# others again on each pass, so that its memory stays what it was (at
# 20,000 files the peak is within a few MB of the 150 MB target).
KEEP_BUILT = 4096
KEEP_RECENT = 64


class LazyFacts(Mapping[str, ModuleFacts]):
    """path -> ModuleFacts, kept as compact blobs and built when asked for
    (all of them in a tree of up to KEEP_BUILT modules, else the last
    KEEP_RECENT)."""

    def __init__(self, values: dict[str, Blob | ModuleFacts], rebuild: Callable[[str], ModuleFacts]) -> None:
        self._values = values
        self._rebuild = rebuild
        self._recent: dict[str, ModuleFacts] = {}
        self._keep = KEEP_BUILT if len(values) <= KEEP_BUILT else KEEP_RECENT

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
            if len(self._recent) >= self._keep:
                del self._recent[next(iter(self._recent))]
        self._recent[path] = facts
        return facts

    def __contains__(self, path: object) -> bool:
        return path in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)
