"""Parallelism around a stage: run it over many files in a process pool
(hwlint.facts.collect parses files with it, hwlint.fix.apply rewrites them).

- Workers are forked (they start in a millisecond with everything imported)
  and run with the garbage collector off (trees and facts have no cycles).
- Largest files first, and never so many big files at once that their trees
  would exceed a memory budget; a worker gives the memory of a big tree back
  to the system after it.
- Workers send facts back as compact blobs (marshal, zlib): the main process
  keeps them in that form (hwlint.facts.collect.LazyFacts), so its memory grows by
  about a kilobyte per file, not by the records of the whole tree.
"""

from __future__ import annotations

import gc
import sys
from typing import Any, Callable, Iterator, Mapping, TypeVar

# An ast tree takes about this many bytes of memory per byte of source.
_TREE_BYTES_PER_SOURCE_BYTE = 110
# The trees of big files being parsed at once stay under this (estimated);
# a bigger file is parsed alone.
_TREE_BUDGET = 80 * 1024 * 1024
# CPython gives little of a freed tree's memory back to the system by itself
# (glibc keeps the freed blocks): a worker keeps as much memory as the
# largest tree it has parsed, and reuses it for the next trees. After a
# file whose tree takes more than half the budget (those that may be parsed
# alone), it asks glibc to give the free memory back (malloc_trim), so that
# an idle worker never holds more than half the budget while another parses
# a big file. Not after every big-ish file: the system hands the memory out
# again a page at a time, and trimming after each file above 128 KB made
# the workers fault in ~1.5 GB again on the four real trees (258k page
# faults, 156k now; a pass that only parses the same files: 142k).
_TRIM_ABOVE = _TREE_BUDGET // 2 // _TREE_BYTES_PER_SOURCE_BYTE
# A batch with a file above this size counts that file's tree against the
# budget (a batch's trees are built one at a time: its largest is what it
# holds at once); smaller ones count for nothing (none above ~14 MB).
_ALONE_ABOVE = 128 * 1024
# Small files go to workers in batches of about this much source, and of
# at most this many files (by default: a caller whose work per file is
# slow asks for smaller batches, so that a few files still spread over
# the workers).
_BATCH_BYTES = 256 * 1024
_BATCH_FILES = 256
# At least this many tasks per worker, so that they finish together (the
# largest first, the smallest last fill the gaps).
_TASKS_PER_JOB = 8
_release: Any = None

R = TypeVar("R")
Batch = list[tuple[str, int]]  # (path, size) of the files of one task


def release_memory() -> None:
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


def release_memory_after(size: int) -> None:
    """In a worker, after a file of `size` bytes: give a big tree's memory back."""
    if size > _TRIM_ABOVE:
        release_memory()


def _task(work: Callable[..., list[R]], paths: Batch, args: tuple[Any, ...]) -> list[R]:
    gc_was_enabled = gc.isenabled()
    gc.disable()  # trees and facts are acyclic: the collector would only scan them
    try:
        return work(paths, *args)
    finally:
        if gc_was_enabled:
            gc.enable()


def plan(
    sizes: list[tuple[str, int]], batch_files: int = _BATCH_FILES, jobs: int = 1
) -> list[tuple[list[tuple[str, int]], int]]:
    """Work for the pool, largest first, in batches of at most
    `batch_files` files (a worker builds their trees one at a time). A
    batch holds about _BATCH_BYTES of source, or a `jobs`-th of the
    whole divided in _TASKS_PER_JOB when that is more: each task costs the
    main process about a millisecond (sending it, waking for its result),
    so a run on few cores sends few large ones, and one on many cores as
    many as it needs for its workers to finish together. A batch with a
    big file (above _ALONE_ABOVE) counts that file's tree against the
    memory budget; a file too big for a batch is a task of its own."""
    batch_limit = max(_BATCH_BYTES, sum(size for _, size in sizes) // (max(jobs, 1) * _TASKS_PER_JOB))
    ordered = sorted(sizes, key=lambda item: (-item[1], item[0]))
    tasks: list[tuple[list[tuple[str, int]], int]] = []
    batch: list[tuple[str, int]] = []
    batch_bytes = 0
    estimate = 0
    for rel, size in ordered:
        if size > batch_limit:
            tasks.append(([(rel, size)], size * _TREE_BYTES_PER_SOURCE_BYTE))
            continue
        batch.append((rel, size))
        batch_bytes += size
        if size > _ALONE_ABOVE:
            estimate = max(estimate, size * _TREE_BYTES_PER_SOURCE_BYTE)
        if batch_bytes >= batch_limit or len(batch) >= batch_files:
            tasks.append((batch, estimate))
            batch, batch_bytes, estimate = [], 0, 0
    if batch:
        tasks.append((batch, estimate))
    return tasks


class Packed:
    """What a task's work gave for its files besides their facts, by path,
    as one compressed pickle: it travels back and waits, until the main
    process asks for one of its files, in a fifth of the memory, and
    unpickling a task's worth at once (its classes and repeated strings
    read once) took a third of the time 2,180 pickles of one module each
    did on the four trees (0.006 s against 0.018 s, 153 KB against 683 KB)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> "Packed":
        import pickle
        import zlib

        return cls(zlib.compress(pickle.dumps(dict(values), protocol=pickle.HIGHEST_PROTOCOL), 1))

    def unpack(self) -> dict[str, Any]:
        import pickle
        import zlib

        values: dict[str, Any] = pickle.loads(zlib.decompress(self.data))
        return values

    def __reduce__(self) -> tuple[type["Packed"], tuple[bytes]]:
        return (Packed, (self.data,))


def unpacked(values: dict[str, Any], key: str) -> Any:
    """`values[key]` (None when absent); when it is still in its task's
    pack, every value of that pack is unpacked into `values` first."""
    value = values.get(key)
    if isinstance(value, Packed):
        values.update(value.unpack())
        value = values[key]
    return value


def _with_payloads(args: tuple[Any, ...], payloads: Mapping[str, Any] | None, batch: Batch) -> tuple[Any, ...]:
    return args if payloads is None else (*args, {rel: payloads[rel] for rel, _ in batch})


def run_in_pool(
    work: Callable[..., list[R]],
    args: tuple[Any, ...],
    sizes: Batch,
    jobs: int,
    progress: Callable[[int, int], None] | None,
    total: int,
    *,
    payloads: Mapping[str, Any] | None = None,
    batch_files: int = _BATCH_FILES,
    min_files: int = 0,
) -> Iterator[R]:
    """`work(batch, *args)` over the files of `sizes` in batches, in worker
    processes; each result as its worker finishes. `work` is a module-level
    function (workers are forked; it is sent by name).

    With `payloads` (what each file's work needs beyond its path), a task
    also gets its own files' payloads, `work(batch, *args, {path:
    payload})`: a task carries only what its files need, not every file's.
    With `jobs` 1, or fewer files than `min_files` (below which starting
    workers costs more than it saves), there is no pool: one file at a
    time, in the order of `sizes`, in this process."""
    if jobs <= 1 or len(sizes) < min_files:
        for item in sizes:
            results = work([item], *_with_payloads(args, payloads, [item]))
            yield from results
            if progress is not None:
                progress(len(results), total)
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    pending = plan(sizes, batch_files, jobs)
    budget = max([_TREE_BUDGET] + [estimate for _, estimate in pending[:1]])
    # fork: workers start in a millisecond with everything imported (and
    # release_memory's library loaded); the main process has no threads yet.
    context = multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None
    release_memory()
    in_flight: dict[Future[list[R]], int] = {}
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
                future = pool.submit(_task, work, paths, _with_payloads(args, payloads, paths))
                in_flight[future] = estimate
                used += estimate
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                used -= in_flight.pop(future)
                results = future.result()
                yield from results
                if progress is not None:
                    progress(len(results), total)
