"""flake8 plugin: hwlint's per-file rules as flake8 errors, so that

    flake8 --select HWC

works in a repository that already runs flake8. Registered as the
`flake8.extension` entry point `HWC` (`pip install hwlint` is all it takes).

What flake8 can and cannot do here (flake8 hands a plugin one file at a
time, in its own worker processes):

- The configuration is hwlint's own (`[tool.hwlint]` in pyproject.toml or
  hwlint.toml, found by walking up from the file's folder; defaults when
  there is none). Its `include`/`exclude` decide which files are test files,
  exactly as for `hwlint check FILE`; flake8's own `--select`/`--ignore`/
  `--per-file-ignores` then filter the codes further. The rules that run are
  hwlint's `select`/`ignore` (so the off-by-default HWC112 and HWC201 need
  `select` in `[tool.hwlint]`), and hwlint's `per-file-ignores` apply.
- Base classes in other files are resolved, as in `hwlint check`: the file's
  siblings are read from disk (once per process) from the project root.
- `# noqa: HWC001` is flake8's business: flake8 applies it (and honours
  `--disable-noqa`). `# hwlint: skip-file` skips the file.
- The allowlist needs the whole tree, so the allowlist rules HWC301-HWC305
  are never reported through flake8 (run `hwlint check` in CI for the
  ratchet). An allowlisted file is exempt, as in `hwlint check`: no errors
  but HWC000.
- HWC000: flake8 reports a file that does not parse as E999 and skips
  plugins, so HWC000 appears only for a bad hwlint configuration, at 1:1.

The plugin uses the tree flake8 has already parsed: the file is not parsed
twice.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple

from hwlint import __version__
from hwlint.core.config import Config
from hwlint.core.diagnostics import Diagnostic, UserError
from hwlint.engine.api import Judge
from hwlint.facts import ModuleFacts, extract_source
from hwlint.rules.parse_error import ParseError

# Sibling files read to resolve bases, per process: (path, mtime, size) ->
# facts. Bounded, for long-lived processes (editors run flake8 in one).
_SIBLINGS: dict[tuple[str, int, int], ModuleFacts] = {}
_SIBLINGS_MAX = 4096


class _Project(NamedTuple):
    config: Config
    selected: Callable[[str], bool]  # include/exclude/.gitignore
    enabled: frozenset[str]
    judge: Judge


_PROJECTS: dict[str, _Project] = {}


def _project(directory: str) -> _Project:
    """The hwlint project a folder belongs to, once per folder and process."""
    if directory not in _PROJECTS:
        from hwlint.allowlist.model import load_allowlist
        from hwlint.engine.api import load_project
        from hwlint.facts.discover import Matcher
        from hwlint.rules import ALLOWLIST_RULES, enabled_codes

        config = load_project(start=Path(directory))
        # The allowlist's rules need the whole tree: never through flake8.
        enabled = enabled_codes(config.select, config.ignore) - ALLOWLIST_RULES
        allowlist = load_allowlist(config.root, config.allowlist)
        _PROJECTS[directory] = _Project(
            config, Matcher(config).selected, enabled, Judge(config, frozenset(allowlist.entries))
        )
    return _PROJECTS[directory]


def _sibling(config: Config, rel: str) -> ModuleFacts:
    """A sibling's facts (for the bases it holds), once per process while
    the file is unchanged."""
    from hwlint.engine.api import read_facts

    abspath = os.path.join(config.root, rel)
    try:
        stat = os.stat(abspath)
    except OSError:
        return read_facts(config, rel)
    key = (abspath, stat.st_mtime_ns, stat.st_size)
    found = _SIBLINGS.get(key)
    if found is None:
        if len(_SIBLINGS) >= _SIBLINGS_MAX:
            _SIBLINGS.clear()
        found = _SIBLINGS[key] = read_facts(config, rel)
    return found


def facts_from_tree(path: str, source: str, tree: ast.AST | None, config: Config) -> ModuleFacts:
    """The module's facts from the tree flake8 parsed (no second parse), or
    from the source when that is not possible. `noqa` is left to flake8."""
    from hwlint.facts.collect import FactsOptions

    options = FactsOptions.of(config)._asdict()
    if isinstance(tree, ast.Module):
        from hwlint.facts import facts_from_tree as from_tree
        from hwlint.facts import is_skipped, split_lines

        if is_skipped(source):
            return ModuleFacts(path, skip_file=True, lines=len(split_lines(source)))
        return from_tree(path, source, tree, **options)
    return extract_source(path, source, **options)._replace(noqa={})


def check_file(filename: str, lines: list[str], tree: ast.AST | None = None) -> list[Diagnostic]:
    """hwlint's per-file diagnostics for one file as flake8 sees it: the
    check pipeline on one file, judged as `hwlint check` judges it (no
    budgets: an allowlisted file is exempt)."""
    from hwlint.engine.api import lint_file
    from hwlint.facts.discover import relative_to_root

    abspath = Path(os.path.abspath(filename if filename not in ("-", "stdin") else "stdin"))
    project = _project(str(abspath.parent))
    config = project.config
    rel = relative_to_root(abspath, config.root)
    if rel is None or not project.selected(rel):
        return []
    facts = facts_from_tree(rel, "".join(lines), tree, config)
    found = lint_file(config, facts, project.enabled, project.judge, lambda sibling: _sibling(config, sibling))
    return [d for d in found if not project.judge.exempt(rel, d.code)]


class HwlintChecker:
    """The flake8 entry point (`HWC`)."""

    name = "hwlint"
    version = __version__

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]) -> None:
        self.tree = tree
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type[Any]]]:
        try:
            found = check_file(self.filename, self.lines, self.tree)
        except UserError as exc:  # a bad [tool.hwlint]: say so, once per file
            yield 1, 0, f"{ParseError.code} hwlint cannot check this file: {exc}", type(self)
            return
        for d in found:
            # flake8 columns are 0-based; hwlint's are 1-based characters.
            yield d.line, max(d.column - 1, 0), f"{d.code} {d.message}", type(self)
