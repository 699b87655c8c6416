"""What the engine offers the rest of hwlint (commands, fix, report,
select, output, the flake8 plugin), like pyflakes' `api` and flake8's
`api/legacy.py`: run a check, lint one more module the way a run does, and
the records they return. Consumers import the engine through this module
only (an import-linter contract in pyproject.toml holds them to it), so the
engine's insides can change without them."""

from __future__ import annotations

from typing import Callable

from hwlint.core.config import Config
from hwlint.core.diagnostics import Diagnostic
from hwlint.engine.check import CheckResult, Progress, Resolved, lint_files, lint_variant, run_check, run_resolver
from hwlint.engine.judge import Judge
from hwlint.engine.project import load_project
from hwlint.facts import ModuleFacts
from hwlint.facts.collect import FactsSource

__all__ = [
    "CheckResult",
    "Judge",
    "Progress",
    "lint_file",
    "lint_variant",
    "load_project",
    "read_facts",
    "run_check",
    "run_resolver",
]


class _GivenSource(FactsSource):
    """The module whose facts the caller has; every other file (a base
    class in a sibling) through `parse`."""

    def __init__(self, config: Config, facts: ModuleFacts, parse: Callable[[str], ModuleFacts] | None) -> None:
        super().__init__(config, jobs=1)
        self.facts = facts
        self.parse_other = parse

    def parse(self, rel: str) -> ModuleFacts:
        if rel == self.facts.path:
            return self.facts
        return self.parse_other(rel) if self.parse_other is not None else super().parse(rel)


def read_facts(config: Config, rel: str) -> ModuleFacts:
    """One file's facts, read and extracted as a run does (`rel`: relative
    to the project root)."""
    return FactsSource(config, jobs=1).parse(rel)


def lint_file(
    config: Config,
    facts: ModuleFacts,
    enabled: frozenset[str],
    judge: Judge,
    parse: Callable[[str], ModuleFacts] | None = None,
) -> list[Diagnostic]:
    """The diagnostics of one module whose facts are given (flake8 parsed
    it), judged as `hwlint check` judges it (noqa, per-file-ignores), its
    bases in other files resolved as a run resolves them. `parse(rel)`
    gives a sibling's facts (default: `read_facts`); a long-lived caller
    may keep them."""
    source = _GivenSource(config, facts, parse)
    found, _ = lint_files(config, Resolved(config, source, [facts.path]), [facts.path], enabled, judge)
    return found
