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
  hwlint's `select`/`ignore` (so the off-by-default HWC111 and HWC201 need
  `select` in `[tool.hwlint]`), and hwlint's `per-file-ignores` apply.
- Base classes in other files are resolved, as in `hwlint check`: the file's
  siblings are read from disk (once per process) from the project root.
- `# noqa: HWC001` is flake8's business: flake8 applies it (and honours
  `--disable-noqa`). `# hwlint: skip-file` skips the file.
- The allowlist needs the whole tree, so the allowlist rules HWC301-HWC304
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from hwlint import __version__
from hwlint.config import Config, load_config
from hwlint.diagnostics import Diagnostic, UserError
from hwlint.facts import ModuleFacts, extract_file, extract_source

# Rules that judge the allowlist need the whole tree: never through flake8.
_TREE_RULES = ("HWC3",)
# Sibling files read to resolve bases, per process: (path, mtime, size) ->
# facts. Bounded, for long-lived processes (editors run flake8 in one).
_SIBLINGS: dict[tuple[str, int, int], ModuleFacts | None] = {}
_SIBLINGS_MAX = 4096


@dataclass(frozen=True)
class _Project:
    config: Config
    selected: Any  # Callable[[str], bool]: include/exclude/.gitignore
    enabled: frozenset[str]
    allowlisted: frozenset[str]
    ignores: tuple[Any, ...]


_PROJECTS: dict[str, _Project] = {}


def _project(directory: str) -> _Project:
    """The hwlint project a folder belongs to, once per folder and process."""
    if directory not in _PROJECTS:
        from hwlint.allowlist import load_allowlist
        from hwlint.check import _per_file_ignores
        from hwlint.discover import Matcher
        from hwlint.rules import enabled_codes

        config = load_config(start=Path(directory))
        enabled = frozenset(c for c in enabled_codes(config.select, config.ignore) if not c.startswith(_TREE_RULES))
        allowlist = load_allowlist(config.root, config.allowlist)
        _PROJECTS[directory] = _Project(
            config, Matcher(config).selected, enabled, frozenset(allowlist.entries), tuple(_per_file_ignores(config))
        )
    return _PROJECTS[directory]


def _sibling(config: Config, rel: str) -> ModuleFacts | None:
    abspath = os.path.join(config.root, rel)
    try:
        stat = os.stat(abspath)
    except OSError:
        return None
    key = (abspath, stat.st_mtime_ns, stat.st_size)
    if key not in _SIBLINGS:
        if len(_SIBLINGS) >= _SIBLINGS_MAX:
            _SIBLINGS.clear()
        _SIBLINGS[key] = extract_file(rel, abspath, enum=config.enum, attribute=config.attribute,
                                       accelerators=config.accelerators())
    return _SIBLINGS[key]


def facts_from_tree(path: str, source: str, tree: ast.AST | None, config: Config) -> ModuleFacts:
    """The module's facts from the tree flake8 parsed (no second parse), or
    from the source when that is not possible. `noqa` is left to flake8."""
    if isinstance(tree, ast.Module):
        from hwlint.facts import facts_from_tree as from_tree, is_skipped, split_lines

        if is_skipped(source):
            return ModuleFacts(path, skip_file=True, lines=len(split_lines(source)))
        return from_tree(path, source, tree, enum=config.enum, attribute=config.attribute,
                         accelerators=config.accelerators())
    facts = extract_source(path, source, enum=config.enum, attribute=config.attribute,
                           accelerators=config.accelerators())
    return facts._replace(noqa={})


def check_file(filename: str, lines: list[str], tree: ast.AST | None = None) -> list[Diagnostic]:
    """hwlint's per-file diagnostics for one file as flake8 sees it."""
    from hwlint.check import lint_module
    from hwlint.discover import relative_to_root
    from hwlint.resolve import Resolver

    abspath = Path(os.path.abspath(filename if filename not in ("-", "stdin") else "stdin"))
    project = _project(str(abspath.parent))
    config = project.config
    rel = relative_to_root(abspath, config.root)
    if rel is None or not project.selected(rel):
        return []
    facts = facts_from_tree(rel, "".join(lines), tree, config)
    resolver = Resolver(config, {rel: facts}, lambda other: _sibling(config, other))
    found = lint_module(resolver.context(facts), project.enabled)
    dropped = [codes for spec, codes in project.ignores if spec.match_file(rel)]
    found = [d for d in found if not any(d.code.startswith(c) for cs in dropped for c in cs)]
    if rel in project.allowlisted:
        found = [d for d in found if d.code == "HWC000"]
    return found


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
            yield 1, 0, f"HWC000 hwlint cannot check this file: {exc}", type(self)
            return
        for d in found:
            # flake8 columns are 0-based; hwlint's are 1-based characters.
            yield d.line, max(d.column - 1, 0), f"{d.code} {d.message}", type(self)
