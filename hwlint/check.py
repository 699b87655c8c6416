"""The check pipeline: discover → read → facts → resolve → rules → allowlist.

Each stage lives in its own module; this one only runs them in order, and
spreads the expensive stage (reading and parsing) over processes.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pathspec

from hwlint.allowlist import Allowlist, apply_allowlist, load_allowlist
from hwlint.config import Config
from hwlint.diagnostics import Diagnostic
from hwlint.discover import discover
from hwlint.facts import ModuleFacts, extract_file
from hwlint.resolve import ModuleContext, Resolver
from hwlint.rules import ALL_RULES, ParseError, enabled_codes

# Below this many files a process pool costs more than it saves (start-up
# and imports in each worker against a few milliseconds of parsing).
_POOL_THRESHOLD = 16


@dataclass
class CheckResult:
    diagnostics: list[Diagnostic]
    contexts: list[ModuleContext]
    files_checked: int
    allowlist: Allowlist | None
    enabled: frozenset[str]
    config: Config
    whole_tree: bool = True
    outside: list[str] = field(default_factory=list)


def _extract_chunk(root: str, paths: list[str], enum: str, attribute: str) -> list[ModuleFacts]:
    return [extract_file(p, os.path.join(root, p), enum=enum, attribute=attribute) for p in paths]


def _chunks(root: Path, files: list[str], jobs: int) -> list[list[str]]:
    """Deal files into chunks, largest first, round-robin: the biggest files
    start early and each chunk gets a similar amount of work, so no worker
    is left parsing a 700 KB file at the end."""

    def size(path: str) -> int:
        try:
            return os.stat(root / path).st_size
        except OSError:
            return 0

    ordered = sorted(files, key=size, reverse=True)
    count = min(len(ordered), jobs * 8)
    chunks: list[list[str]] = [[] for _ in range(count)]
    for index, path in enumerate(ordered):
        chunks[index % count].append(path)
    return chunks


Progress = Callable[[int, int], None]  # (files just done, files in all)


def collect_facts(config: Config, files: list[str], jobs: int | None = None, progress: Progress | None = None) -> list[ModuleFacts]:
    """Facts for every file, in the order given, in parallel when worth it."""
    jobs = jobs or os.cpu_count() or 1
    root, enum, attribute = str(config.root), config.enum, config.attribute
    if jobs <= 1 or len(files) < _POOL_THRESHOLD:
        done = _extract_chunk(root, files, enum, attribute)
        if progress is not None:
            progress(len(done), len(files))
        return done
    chunks = _chunks(config.root, files, jobs)
    by_path: dict[str, ModuleFacts] = {}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_extract_chunk, root, chunk, enum, attribute) for chunk in chunks]
        for future in as_completed(futures):
            chunk_facts = future.result()
            for facts in chunk_facts:
                by_path[facts.path] = facts
            if progress is not None:
                progress(len(chunk_facts), len(files))
    return [by_path[path] for path in files]


def _diagnostic(rule_code: str, rule_name: str, path: str, line: int, column: int, message: str,
                class_name: str | None = None, fix: dict | None = None) -> Diagnostic:
    return Diagnostic(path, line, column, rule_code, rule_name, message, "error", class_name, fix)


def lint_module(ctx: ModuleContext, enabled: frozenset[str]) -> list[Diagnostic]:
    """Run the enabled rules on one module; noqa applied."""
    facts = ctx.facts
    if facts.skip_file:
        return []
    found: list[Diagnostic] = []
    if facts.error is not None:
        if ParseError.code in enabled:
            err = facts.error
            found.append(_diagnostic(ParseError.code, ParseError.name, facts.path, err.line, err.column, err.message))
        return found
    for rule in ALL_RULES:
        if rule.code not in enabled or rule.scope != "module":
            continue
        for v in rule().check(ctx):
            if not facts.suppressed(v.line, rule.code):
                found.append(_diagnostic(rule.code, rule.name, facts.path, v.line, v.column, v.message, v.class_name, v.fix))
    return found


def _per_file_ignores(config: Config) -> list[tuple[pathspec.GitIgnoreSpec, tuple[str, ...]]]:
    return [(pathspec.GitIgnoreSpec.from_lines([pattern]), codes) for pattern, codes in config.per_file_ignores.items()]


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
) -> CheckResult:
    enabled = enabled_codes(
        tuple(select if select is not None else config.select) + tuple(extend_select),
        tuple(ignore if ignore is not None else config.ignore),
    )
    found = discover(config, paths)
    modules = collect_facts(config, found.files, jobs, progress)
    by_path = {m.path: m for m in modules}
    root = config.root

    def load(rel: str) -> ModuleFacts | None:
        return extract_file(rel, str(root / rel), enum=config.enum, attribute=config.attribute)

    resolver = Resolver(config, by_path, load)
    contexts = [resolver.context(m) for m in modules]
    ignores = _per_file_ignores(config)
    diagnostics: list[Diagnostic] = []
    for ctx in contexts:
        file_diags = lint_module(ctx, enabled)
        if ignores:
            dropped = [codes for spec, codes in ignores if spec.match_file(ctx.path)]
            file_diags = [d for d in file_diags if not any(d.code.startswith(c) for cs in dropped for c in cs)]
        diagnostics.extend(file_diags)
    for missing in found.missing:
        if ParseError.code in enabled:
            diagnostics.append(_diagnostic(ParseError.code, ParseError.name, missing, 1, 1, "file not found"))
    allowlist = None
    if use_allowlist:
        allowlist = load_allowlist(root, config.allowlist)
        checked = set(by_path)
        broken = {m.path for m in modules if m.error is not None}
        unlinted = {p for p in allowlist.entries if p not in checked and (root / p).is_file()}
        diagnostics = apply_allowlist(allowlist, diagnostics, checked, broken, unlinted, found.whole_tree, enabled)
    diagnostics.sort()
    return CheckResult(diagnostics, contexts, len(modules), allowlist, enabled, config, found.whole_tree, found.outside)
