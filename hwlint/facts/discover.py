"""Discovery: which files of the project are test files to lint.

A file is linted when its root-relative path matches `include`, does not match
`exclude`, and is not ignored by a `.gitignore`. Paths named on the command
line go through the same filter (ruff's `--force-exclude`): pre-commit passes
every staged Python file, and only test files must be linted.

pathspec (gitignore patterns) is imported only when patterns are matched:
`discover` takes the verdict of a named file from `selected` when it is
given (hwlint.engine.cached remembers verdicts, keyed by `selection_inputs`), and
importing pathspec costs a fifth of a pre-commit run on a few files.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from hwlint.core.config import Config
from hwlint.core.diagnostics import UserError

if TYPE_CHECKING:
    import pathspec


def import_pathspec() -> Any:
    """pathspec, imported without typing_extensions.

    pathspec 1.x imports typing_extensions on Python < 3.13 for a
    deprecation decorator, and that decorator imports asyncio: 30 ms, as long
    as the interpreter's own start-up. pathspec falls back to its own
    decorator when typing_extensions is missing (it has no required
    dependencies): make it take that path unless something already loaded
    typing_extensions."""
    if "pathspec" in sys.modules or sys.version_info >= (3, 13) or "typing_extensions" in sys.modules:
        import pathspec

        return pathspec
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # `import` raises ImportError
    try:
        import pathspec
    finally:
        if "typing_extensions" in sys.modules and sys.modules["typing_extensions"] is None:
            del sys.modules["typing_extensions"]
    return pathspec


def pattern_spec(patterns: Iterable[str], setting: str | None = None) -> pathspec.GitIgnoreSpec:
    """Gitignore patterns as one spec. `setting` ("<file>: [tool.hwlint]
    exclude") names where configured patterns come from: an invalid one (a
    bare `!`, a trailing backslash) is a UserError naming it. Without it (a
    .gitignore), invalid lines are dropped, as git drops them."""
    spec = import_pathspec().GitIgnoreSpec
    patterns = list(patterns)
    try:
        spec_of_all: pathspec.GitIgnoreSpec = spec.from_lines(patterns)
        return spec_of_all
    except (ValueError, re.error):  # a bare `!`, a trailing backslash; a range such as [z-a]
        pass
    valid = []
    for pattern in patterns:
        try:
            spec.from_lines([pattern])
        except (ValueError, re.error):
            if setting is not None:
                raise UserError(
                    f"{setting}: {pattern!r} is not a valid gitignore-style pattern: correct or remove it"
                ) from None
            continue
        valid.append(pattern)
    spec_of_valid: pathspec.GitIgnoreSpec = spec.from_lines(valid)
    return spec_of_valid


class Discovery:
    """The files a run checks, and what of the paths it was given is missing
    or outside the root."""

    def __init__(self, files: list[str] | None = None, whole_tree: bool = True) -> None:
        self.files: list[str] = files or []  # root-relative, '/'-separated, sorted
        self.missing: list[str] = []  # named on the command line, not found
        self.outside: list[str] = []  # named on the command line, outside the root
        self.whole_tree = whole_tree  # no paths were given: the run sees every test file


class _GitIgnores:
    """The .gitignore files met on the way down, each applying below its folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}

    def _spec(self, rel_dir: str) -> pathspec.GitIgnoreSpec | None:
        if rel_dir not in self._specs:
            path = self.root / rel_dir / ".gitignore" if rel_dir else self.root / ".gitignore"
            spec = None
            try:
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
                spec = pattern_spec(lines)
            except OSError:
                pass
            self._specs[rel_dir] = spec
        return self._specs[rel_dir]

    def ignored(self, rel_path: str, is_dir: bool) -> bool:
        return ignored_by(self.above(rel_path), rel_path, is_dir)

    def above(self, rel_path: str) -> _Specs:
        """The .gitignore files of the folders above `rel_path`, root first."""
        parts = rel_path.split("/")
        specs: _Specs = ()
        for depth in range(len(parts)):
            rel_dir = "/".join(parts[:depth])
            spec = self._spec(rel_dir)
            if spec is not None:
                specs += ((rel_dir, spec),)
        return specs

    def entered(self, specs: _Specs, rel_dir: str, has_gitignore: bool) -> _Specs:
        """`specs` for what lies in `rel_dir`: with its own .gitignore, when
        its listing has one (a folder without is never asked about it)."""
        if not has_gitignore:
            self._specs.setdefault(rel_dir, None)
            return specs
        spec = self._spec(rel_dir)
        return specs if spec is None else (*specs, (rel_dir, spec))


# The .gitignore files that apply to a path: (folder, its spec), root first.
_Specs = tuple[tuple[str, "pathspec.GitIgnoreSpec"], ...]


def ignored_by(specs: _Specs, rel_path: str, is_dir: bool) -> bool:
    """Whether the .gitignore files of `specs` (the folders above
    `rel_path`, root first) ignore it: the deepest that has a say wins, as in
    git."""
    verdict = False
    for rel_dir, spec in specs:
        include = _last_match(spec, rel_path[len(rel_dir) + 1 :] if rel_dir else rel_path, is_dir)
        if include is not None:
            verdict = include
    return verdict


# pathspec's own priority rules are meant for file paths: asked about a
# directory as "dir/", a plain `*` (a file-priority match) beats a later
# `!*/`, so the common whitelist .gitignore `*` / `!*/` / `!*.py` ignored
# every folder and nothing was linted. Git's rule is simpler: the last pattern
# that matches the path itself (a `dir/` pattern only when it is a folder)
# decides; folders above are judged on their own by the callers, which prune
# ignored folders. `ps_d` is the group pathspec's gitignore regexes use to
# mark the end of the directory they matched.
_DIR_MARK = "ps_d"


def _last_match(spec: pathspec.GitIgnoreSpec, path: str, is_dir: bool) -> bool | None:
    verdict = None
    for pattern in spec.patterns:
        regex = getattr(pattern, "regex", None)
        if pattern.include is None or regex is None:
            continue
        if _matches_itself(regex, path, is_dir):
            verdict = bool(pattern.include)
    return verdict


def _matches_itself(regex: "re.Pattern[str]", path: str, is_dir: bool) -> bool:
    """Whether a gitignore regex matches `path` itself, not only a folder above it."""
    has_mark = _DIR_MARK in regex.groupindex
    # As a path: a match that does not stop at a '/' inside it (`x`, `*`, `a/**`).
    if any(not has_mark or m.start(_DIR_MARK) == -1 for m in regex.finditer(path)):
        return True
    # As a folder: a directory pattern (`x/`, `*/`) whose mark is the trailing '/'.
    return is_dir and has_mark and any(m.start(_DIR_MARK) == len(path) for m in regex.finditer(path + "/"))


class Matcher:
    """Which root-relative paths are test files hwlint lints: matched by
    `include`, not by `exclude`, and not ignored by git."""

    def __init__(self, config: Config) -> None:
        self.root = config.root
        self.include = pattern_spec(config.include, f"{config.source}: [tool.hwlint] include")
        self.exclude = pattern_spec(config.exclude, f"{config.source}: [tool.hwlint] exclude")
        self.gitignores = _GitIgnores(config.root)
        # No exclude is the common case: not asking it saves a match per file and folder.
        self._excluded: Callable[[str], bool] = self.exclude.match_file if config.exclude else _never

    def selected(self, rel_path: str) -> bool:
        """Whether `rel_path` is a test file hwlint lints."""
        return self.include.match_file(rel_path) and not self._excluded(rel_path) and not self._any_ignored(rel_path)

    def _any_ignored(self, rel_path: str) -> bool:
        parts = rel_path.split("/")
        if ".git" in parts[:-1]:
            return True  # named on the command line: `.git` is never linted, as it is never walked
        for depth in range(1, len(parts)):
            if self.gitignores.ignored("/".join(parts[:depth]), is_dir=True):
                return True
        return self.gitignores.ignored(rel_path, is_dir=False)

    def walk(self, rel_dir: str) -> list[str]:
        """The test files under `rel_dir`, unsorted: an excluded or ignored
        folder is not entered, a symlinked folder not followed."""
        found: list[str] = []
        root = str(self.root)
        included = self.include.match_file
        excluded = self._excluded
        gitignores = self.gitignores
        # Each folder to enter with the .gitignore files above it: a file is
        # asked only of the ones that exist (most folders have none), and a
        # folder's own is read only when its listing shows one.
        stack = [(rel_dir, gitignores.above(rel_dir) if rel_dir else ())]
        while stack:
            current, above = stack.pop()
            try:
                entries = list(os.scandir(os.path.join(root, current) if current else root))
            except OSError:
                continue  # unreadable folder: nothing in it can be linted
            specs = gitignores.entered(above, current, any(entry.name == ".gitignore" for entry in entries))
            for entry in entries:
                rel = f"{current}/{entry.name}" if current else entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    if entry.name == ".git" or excluded(rel + "/"):
                        continue
                    if specs and ignored_by(specs, rel, is_dir=True):
                        continue
                    stack.append((rel, specs))
                elif entry.is_symlink() and os.path.isdir(entry.path):
                    # A symlink to a folder is not followed (loops, trees
                    # linted twice), and it is not a file either: a link named
                    # test_x.py must not become "HWC000 is a directory".
                    continue
                elif included(rel) and not excluded(rel) and not (specs and ignored_by(specs, rel, is_dir=False)):
                    found.append(rel)
        return found


def _never(rel_path: str) -> bool:
    return False


def explain_empty(config: Config) -> str:
    """Why no file was selected, and how to change it: the root, where the
    settings came from, the patterns, and the folders that do hold files
    named like tests (what `include` probably should say)."""
    settings = (
        f"settings from {config.source}"
        if config.source is not None
        else "default settings: no hwlint.toml or pyproject.toml with [tool.hwlint] found"
    )
    import json

    settings_file = (
        str(config.source)
        if config.source is not None and config.source.name == "hwlint.toml"
        else f"[tool.hwlint] of {config.source or 'pyproject.toml at the project root'}"
    )

    patterns = f"include = {json.dumps(list(config.include))}" + (
        f", exclude = {json.dumps(list(config.exclude))}" if config.exclude else ""
    )
    text = f"no test file matched under {config.root} ({settings}; {patterns})"
    folders = Matcher(config._replace(include=("**/test_*.py", "**/*_test.py"), exclude=())).walk("")
    tops = sorted({rel.split("/", 1)[0] for rel in folders if "/" in rel})
    if folders:
        where = ", ".join(f"{top}/" for top in tops[:3]) + (", ..." if len(tops) > 3 else "")
        example = f'["{tops[0]}/**/test_*.py"]' if tops else '["test_*.py"]'
        text += (
            f"; {len(folders)} file{'s' if len(folders) != 1 else ''} named like tests exist{'' if len(folders) != 1 else 's'}"
            + (f" under {where}" if tops else " at the root")
        )
        text += f": set include (e.g. include = {example}) in {settings_file}"
    else:
        text += f": run hwlint in the project's folder, or set include in {settings_file}"
    return text


def relative_to_root(path: Path, root: Path) -> str | None:
    """`path` as a root-relative '/' path, or None when it lies outside the root."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return None


def selection_inputs(config: Config, rel: str) -> tuple[Any, ...]:
    """Everything `Matcher.selected(rel)` depends on: the path, the patterns
    and the text of each .gitignore from the root down to the file's folder."""
    parts = rel.split("/")
    texts: list[bytes | None] = []
    for depth in range(len(parts)):
        path = os.path.join(config.root, *parts[:depth], ".gitignore")
        try:
            with open(path, "rb") as fh:
                texts.append(fh.read())
        except OSError:
            texts.append(None)
    return (rel, config.include, config.exclude, tuple(texts))


def discover(
    config: Config, paths: list[Path] | None = None, selected: Callable[[str], bool] | None = None
) -> Discovery:
    """The test files to lint: the whole tree, or those among `paths`.
    `selected`: whether a named file is a test file (default: Matcher's
    verdict; a layer may remember verdicts)."""
    if not paths:
        return Discovery(files=sorted(set(Matcher(config).walk(""))))
    matchers: list[Matcher] = []

    def matcher() -> Matcher:
        if not matchers:
            matchers.append(Matcher(config))
        return matchers[0]

    if selected is None:

        def selected(rel: str) -> bool:
            return matcher().selected(rel)

    result = Discovery(whole_tree=False)
    files: set[str] = set()
    for path in paths:
        rel = relative_to_root(path, config.root)
        if rel is None:
            result.outside.append(str(path))
            continue
        if rel == ".":
            rel = ""
        full = config.root / rel
        if os.path.isdir(full):
            if rel and matcher()._any_ignored(rel + "/x"):
                continue
            files.update(matcher().walk(rel))
        elif os.path.lexists(full):
            if selected(rel):
                files.add(rel)
        elif selected(rel):
            # Gitignore applies too: an ignored path is dropped whether or not it exists.
            result.missing.append(rel)
    result.files = sorted(files)
    return result
