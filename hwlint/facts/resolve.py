"""Resolve: inheritance across classes and files, giving each class its
effective classification and whether it is a test class at all.

Bases are followed in the file itself and through imports into other files of
the project, the way PyTorch test files import their siblings: the test
folder and the file's own folder are on `sys.path` (`from common_foo import
Base`, `from test_bar import Base`), and package-relative imports work.
Files reached this way that are not test files themselves are read on
demand, once.
"""

# No `from __future__ import annotations`: typing.NamedTuple would compile
# each string annotation (hwlint.facts.records says why).

import os
from typing import Callable, Iterator, Mapping, NamedTuple

from hwlint.core.config import Config
from hwlint.facts import ClassFacts, Declaration, ModuleFacts

# How deep a chain of bases and re-exports is followed; real ones are short,
# and a bound keeps a pathological project from costing time.
_MAX_DEPTH = 32


class ClassInfo(NamedTuple):
    facts: ClassFacts
    is_test: bool
    classification: str | None  # the effective, canonical member; None if none
    declared: bool  # the class declares (validly or not) in its own body or module
    inherited_from: str | None  # "Base (test/common_foo.py)" when inherited
    # Every base hwlint resolved, nearest first, each once, with its file:
    # what the class runs besides its own body (hwlint.rules.infer reads their
    # device use).
    ancestors: tuple[tuple[str, ClassFacts], ...] = ()


class ModuleContext(NamedTuple):
    """What rules see: one module's facts and its resolved classes."""

    facts: ModuleFacts
    classes: tuple[ClassInfo, ...]
    config: Config

    @property
    def path(self) -> str:
        return self.facts.path

    def test_classes(self) -> Iterator[ClassInfo]:
        return (c for c in self.classes if c.is_test)


def canonical_member(decl: Declaration, config: Config) -> str | None:
    """The member a declaration names, aliases resolved; None if invalid."""
    if decl.value.kind != "member":
        return None
    name = decl.value.text
    if name in config.classifications:
        return name
    return config.aliases.get(name)


Loader = Callable[[str], "ModuleFacts | None"]
# (is_test, effective member, where it came from, ancestors) of a class.
_Resolved = tuple[bool, "str | None", "str | None", "tuple[tuple[str, ClassFacts], ...]"]


class Resolver:
    """Each class's effective classification, across classes and files: the
    run's modules, and the files their imports reach, loaded (`load`) when
    first asked for."""

    def __init__(
        self,
        config: Config,
        modules: Mapping[str, ModuleFacts],
        load: Loader,
        exists: dict[str, bool] | None = None,
        located: dict[tuple[str, str, int], str | None] | None = None,
    ) -> None:
        """`exists`: which candidate files exist, as another resolver of the
        same tree found them (shared: files do not come and go in a run);
        `located`: the files its imports were found in (shared with `exists`:
        they follow from it)."""
        self.config = config
        self.root = str(config.root)
        self.modules = modules
        self.load = load
        self._extra: dict[str, ModuleFacts | None] = {}
        self.exists: dict[str, bool] = {} if exists is None else exists
        self.located: dict[tuple[str, str, int], str | None] = {} if located is None else located
        self._info: dict[tuple[str, str, int], _Resolved] = {}

    # -- files ------------------------------------------------------------

    def module(self, path: str) -> ModuleFacts | None:
        """The facts of `path`: one of the run's modules, or loaded (and kept)
        when an import reaches it; None when it cannot be."""
        if path in self.modules:
            return self.modules[path]
        if path not in self._extra:
            self._extra[path] = self.load(path)
        return self._extra[path]

    def probed(self) -> dict[str, bool]:
        """Every candidate file an import was resolved against, and whether
        it existed: an input of resolution, like the files read."""
        return dict(self.exists)

    def _isfile(self, rel: str) -> bool:
        if rel not in self.exists:
            self.exists[rel] = os.path.isfile(os.path.join(self.root, rel))
        return self.exists[rel]

    def locate(self, from_path: str, module: str, level: int) -> str | None:
        """The root-relative file a module name refers to, seen from `from_path`."""
        key = (from_path, module, level)
        if key not in self.located:
            self.located[key] = self._locate(from_path, module, level)
        return self.located[key]

    def _locate(self, from_path: str, module: str, level: int) -> str | None:
        parts = module.split(".") if module else []
        directory = from_path.rsplit("/", 1)[0] if "/" in from_path else ""
        if level:
            for _ in range(level - 1):
                if not directory:
                    return None
                directory = directory.rsplit("/", 1)[0] if "/" in directory else ""
            candidates = [directory]
        else:
            # The file's folder, then each folder above it up to the root:
            # where `python test/foo/test_x.py` and pytest's rootdir-based
            # sys.path find sibling modules.
            candidates = []
            current = directory
            while True:
                candidates.append(current)
                if not current:
                    break
                current = current.rsplit("/", 1)[0] if "/" in current else ""
        for base in candidates:
            stem = "/".join(p for p in (base, *parts) if p)
            if not stem:
                continue
            if self._isfile(stem + ".py"):
                return stem + ".py"
            if self._isfile(stem + "/__init__.py"):
                return stem + "/__init__.py"
        return None

    # -- names ------------------------------------------------------------

    def find_class(self, path: str, name: str, depth: int = 0) -> tuple[str, ClassFacts] | None:
        """The class bound to `name` at module level of `path`, following imports."""
        if depth > _MAX_DEPTH:
            return None
        facts = self.module(path)
        if facts is None or facts.error is not None:
            return None
        for cls in facts.classes:
            if cls.name == name:
                return path, cls
        for imp in facts.imports:
            if imp.asname != name or imp.name is None:
                continue
            target = self.locate(path, imp.module, imp.level)
            if target is not None and target != path:
                found = self.find_class(target, imp.name, depth + 1)
                if found is not None:
                    return found
        return None

    def find_base(self, path: str, dotted: str) -> tuple[str, ClassFacts] | None:
        """The file and class a base's dotted source names from `path` (`Base`,
        `module.Base`); None when hwlint cannot find it."""
        if not dotted:
            return None
        if "." not in dotted:
            return self.find_class(path, dotted)
        head, _, rest = dotted.partition(".")
        module_parts, _, name = rest.rpartition(".")
        facts = self.module(path)
        if facts is None:
            return None
        for imp in facts.imports:
            if imp.asname != head:
                continue
            if imp.name is None:  # import pkg.mod as head / import head
                module = imp.module
            else:  # from pkg import mod as head
                module = f"{imp.module}.{imp.name}" if imp.module else imp.name
            full = ".".join(p for p in (module, module_parts) if p)
            target = self.locate(path, full, imp.level)
            if target is not None:
                return self.find_class(target, name)
        return None

    # -- classes ----------------------------------------------------------

    def own_member(self, cls: ClassFacts) -> str | None:
        """The member the class's own declarations name (the first valid one), or None."""
        for decl in cls.declarations:
            member = canonical_member(decl, self.config)
            if member is not None:
                return member
        return None

    def _resolve(self, path: str, cls: ClassFacts, stack: frozenset[tuple[str, str, int]]) -> _Resolved:
        """(is_test, effective member, where it came from, ancestors) for a class."""
        key = (path, cls.name, cls.line)
        if key in self._info:
            return self._info[key]
        is_test = bool(cls.methods)
        member = self.own_member(cls)
        origin: str | None = None
        ancestors: dict[tuple[str, str, int], tuple[str, ClassFacts]] = {}
        if key not in stack and len(stack) < _MAX_DEPTH:
            inner = stack | {key}
            for dotted in cls.bases:
                found = self.find_base(path, dotted)
                if found is None:
                    continue
                base_path, base = found
                if (base_path, base.name, base.line) in inner:
                    continue
                base_test, base_member, base_origin, base_ancestors = self._resolve(base_path, base, inner)
                ancestors.setdefault((base_path, base.name, base.line), found)
                for above in base_ancestors:
                    ancestors.setdefault((above[0], above[1].name, above[1].line), above)
                is_test = is_test or base_test
                # Only a valid member is inherited: an invalid declaration
                # is reported on the class that makes it, not spread.
                if member is None and origin is None and base_member is not None and not cls.declarations:
                    member = base_member
                    origin = base_origin or (base.name if base_path == path else f"{base.name} in {base_path}")
        result = (is_test, member, origin, tuple(ancestors.values()))
        self._info[key] = result
        return result

    def context(self, facts: ModuleFacts) -> ModuleContext:
        """The module's classes, each with its effective classification."""
        infos = []
        for cls in facts.classes:
            is_test, member, origin, ancestors = self._resolve(facts.path, cls, frozenset())
            infos.append(ClassInfo(cls, is_test, member, bool(cls.declarations), origin, ancestors))
        return ModuleContext(facts, tuple(infos), self.config)
