"""resolve → rules for one module in the worker that parsed it, when the
module needs no other module's facts.

A cold check's workers parse; resolution and the rules, which need the
bases of each class, ran in the main process, and that serial part is what
bounds the speed-up on many cores (benchmarks/bench_jobs.py). Most test
modules (91% of the four real trees' 2,180) resolve every base in their own
file or not at all: for them the worker that holds the facts judges the
module there, exactly as the main process would (the same Resolver, rules
and per-file-ignores), and sends the diagnostics with the facts. A module
whose resolution asks for another module's facts (a base imported from a
sibling file) is judged in the main process as before, with the whole run.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, TypeVar

from hwlint.core.config import Config
from hwlint.core.diagnostics import Diagnostic
from hwlint.engine.judge import Judge
from hwlint.engine.lint import lint_module
from hwlint.facts import ModuleFacts
from hwlint.facts.resolve import ModuleContext, Resolver

# A run of one module (hwlint.engine.check.CheckResult: this module cannot
# import the pipeline that imports it).
Run = TypeVar("Run")


class Alone(NamedTuple):
    """What a worker found for a module that needs no other module: the
    diagnostics the main process's lint_files would give it, whether it
    failed to parse, and the import candidates its resolution probed (an
    input of resolution the cache's whole-tree memo keys by)."""

    diagnostics: list[Diagnostic]
    broken: bool
    exists: dict[str, bool]
    located: dict[tuple[str, str, int], str | None]
    extra: object = None  # what run_check's `per_module` gave for the module alone


class _NeedsOther(Exception):
    """The module's resolution asked for another module's facts."""


def _needs_other(path: str) -> ModuleFacts | None:
    raise _NeedsOther(path)


def judge_alone(
    config: Config,
    enabled: frozenset[str],
    per_module: Callable[[Run], object] | None = None,
    run_of_one: Callable[[Config, ModuleContext, list[Diagnostic], frozenset[str]], Run] | None = None,
) -> Callable[[str, ModuleFacts], Alone | None]:
    """The worker's step (hwlint.facts.collect.WorkerStep) for one task:
    each module judged alone, or None when it needs another module. With
    `per_module` (what a consumer computes from one module, in the worker
    too: a module-level function, sent by name), what it gives for a run of
    the module alone, made by `run_of_one` (hwlint.engine.check.run_of_one)."""
    judge = Judge(config)

    def step(path: str, facts: ModuleFacts) -> Alone | None:
        resolver = Resolver(config, {path: facts}, _needs_other)
        try:
            ctx = resolver.context(facts)
        except _NeedsOther:
            return None
        found = judge.without_ignored(path, lint_module(ctx, enabled))
        extra = None
        if per_module is not None and run_of_one is not None:
            extra = per_module(run_of_one(config, ctx, found, enabled))
        return Alone(found, facts.error is not None, resolver.exists, resolver.located, extra)

    return step
