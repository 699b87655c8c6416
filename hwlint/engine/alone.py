"""resolve → rules for each module in the worker that parsed it.

A cold check's workers parse; resolution and the rules, which need the
bases of each class, ran in the main process, and that serial part is what
bounds the speed-up on many cores (benchmarks/bench_jobs.py). Now the worker
that holds a module's facts judges the module there, exactly as the main
process would: the same Resolver, rules and per-file-ignores, and the files
its bases come from (a sibling's `common_utils.py`) read there into the
facts the main process would have read. It sends the diagnostics with the
facts, and which other files it read: a consumer that follows inheritance
across files (fix's trials) asks only about the modules that read one.
"""

from __future__ import annotations

import os
from typing import Callable, NamedTuple, TypeVar

from hwlint.core.config import Config
from hwlint.core.diagnostics import Diagnostic
from hwlint.engine.judge import Judge
from hwlint.engine.lint import lint_module
from hwlint.facts import ModuleFacts
from hwlint.facts.collect import FactsOptions, facts_of
from hwlint.facts.resolve import ModuleContext, Resolver

# A run of one module (hwlint.engine.check.CheckResult: this module cannot
# import the pipeline that imports it).
Run = TypeVar("Run")


class Alone(NamedTuple):
    """What a worker found for a module: the diagnostics the main process's
    lint_files would give it, whether it failed to parse, the import
    candidates its resolution probed (an input of resolution the cache's
    whole-tree memo keys by), and the other files it read to resolve it."""

    diagnostics: list[Diagnostic]
    broken: bool
    exists: dict[str, bool]  # only for a run that keeps a memo (it is ~a quarter of what travels)
    extra: object = None  # what run_check's `per_module` gave for the module alone
    needs: tuple[str, ...] = ()  # the files its bases (and re-exports) were followed into


# The other files a worker read to resolve its modules' bases, by (root,
# path, options): a sibling that many modules import from (a suite's
# `common_utils.py`) is read once per worker. The main process would read
# the same bytes into the same facts (hwlint.facts.collect.facts_of).
_LOADED: dict[tuple[str, str, FactsOptions], ModuleFacts] = {}


def _loader(config: Config, options: FactsOptions, needs: set[str]) -> Callable[[str], ModuleFacts | None]:
    root = str(config.root)

    def load(path: str) -> ModuleFacts | None:
        needs.add(path)
        key = (root, path, options)
        if key not in _LOADED:
            _LOADED[key] = facts_of(path, None, os.path.join(root, path), options)
        return _LOADED[key]

    return load


def judge_alone(
    config: Config,
    enabled: frozenset[str],
    per_module: Callable[[Run], object] | None = None,
    run_of_one: Callable[[Config, Resolver, ModuleContext, list[Diagnostic], frozenset[str]], Run] | None = None,
    with_probes: bool = True,
) -> Callable[[str, ModuleFacts], Alone]:
    """The worker's step (hwlint.facts.collect.WorkerStep) for one task:
    each module judged where it was parsed, the files its bases come from
    read there too. With `per_module` (what a consumer computes from one
    module, in the worker too: a module-level function, sent by name), what
    it gives for a run of the module alone, made by `run_of_one`
    (hwlint.engine.check.run_of_one).
    `with_probes`: send the import candidates probed (a cached run's memo
    keys by them)."""
    judge = Judge(config)
    options = FactsOptions.of(config)

    def step(path: str, facts: ModuleFacts) -> Alone:
        needs: set[str] = set()
        resolver = Resolver(config, {path: facts}, _loader(config, options, needs))
        ctx = resolver.context(facts)
        found = judge.without_ignored(path, lint_module(ctx, enabled))
        extra = None
        if per_module is not None and run_of_one is not None:
            try:
                extra = per_module(run_of_one(config, resolver, ctx, found, enabled))
            except Exception:  # a consumer's extra, never the check: the main process computes it with the run
                extra = None
        probed = resolver.exists if with_probes else {}
        return Alone(found, facts.error is not None, probed, extra, tuple(sorted(needs)))

    # What the steps give travels back, and waits, packed with the rest of
    # its task's (hwlint.infra.pool.Packed): while the workers still hold
    # their memory, 20,000 modules' diagnostics unpacked took the cold run's
    # peak from 147 MB to 169 MB (benchmarks/bench_scale.py).
    return step
