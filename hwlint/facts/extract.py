"""The extractor: one module's source parsed once with the standard
library's `ast`, walked once (hwlint.facts.module_walk, which reads each
class with hwlint.facts.classes), and reduced to a ModuleFacts; the tree is
dropped."""

import ast
import gc
import re
import warnings
from typing import TYPE_CHECKING, Sequence

from hwlint.facts.devices import backend_packages, discover, flag_of, module_of
from hwlint.facts.dynamic import dynamic_sites
from hwlint.facts.prescan import Lines, is_skipped, noqa_comments
from hwlint.facts.reach import Statement, bound_names, unreached
from hwlint.facts.read import ReadError, read_source
from hwlint.facts.records import Branch, ClassFacts, Declaration, DeviceBinding, Import, ModuleFacts, Value
from hwlint.facts.vocabulary import DEFAULT_ACCELERATORS, Accelerators, LazyPattern

if TYPE_CHECKING:
    from hwlint.facts.module_walk import ModuleWalk


def _finish(extractor: "ModuleWalk", enum: str) -> tuple[ClassFacts, ...]:
    """Resolve `Enum.MEMBER` values against the module's imports, and attach
    module-level `TestFoo.attr = ...` assignments to their classes."""
    enum_names = {enum} | {i.asname for i in extractor.imports if i.name == enum}

    def member(value: Value) -> Value:
        if value.kind != "dotted":
            return value
        prefix, _, attr = value.text.rpartition(".")
        if prefix and (prefix in enum_names or prefix.rsplit(".", 1)[-1] == enum):
            return Value("member", attr)
        return Value("other", value.text)

    extra: dict[str, list[Declaration]] = {}
    for name, decl in extractor.module_declarations:
        extra.setdefault(name, []).append(decl)
    classes = []
    for cls in extractor.classes:
        decls = [d._replace(value=member(d.value)) for d in (*cls.declarations, *extra.get(cls.name, ()))]
        classes.append(cls._replace(declarations=tuple(decls)) if decls or cls.declarations else cls)
    return tuple(classes)


def extract_source(
    path: str,
    source: str,
    *,
    enum: str = "HardwareClassification",
    attribute: str = "hw_classification",
    accelerators: Accelerators = DEFAULT_ACCELERATORS,
) -> ModuleFacts:
    """Reduce one module's source to facts. Never raises on bad source: a
    module Python would refuse is a ModuleFacts with `error` set."""
    lines = Lines(source)  # split only if something reads them all
    if is_skipped(source):
        return ModuleFacts(path, skip_file=True, lines=len(lines))
    noqa = noqa_comments(source, lines)
    gc_was_enabled = gc.isenabled()
    # Parsing allocates millions of nodes and no cycles: the collector would
    # only spend time scanning them.
    gc.disable()
    try:
        with warnings.catch_warnings():
            # Invalid escape sequences and the like are the file owner's
            # business (SyntaxWarning); they must not reach the terminal.
            warnings.simplefilter("ignore")
            try:
                # Not the real path: for some errors CPython re-reads the line
                # from the named file as raw UTF-8, which shifts columns after
                # a BOM or a coding cookie and depends on the working folder.
                tree = ast.parse(source, filename="<hwlint>")
            except SyntaxError as exc:
                line = exc.lineno or 1
                column = exc.offset or 1
                return ModuleFacts(
                    path, error=ReadError(line, max(column, 1), f"syntax error: {exc.msg}"), noqa=noqa, lines=len(lines)
                )
            except (ValueError, TypeError) as exc:  # e.g. NUL bytes on Python < 3.12
                return ModuleFacts(path, error=ReadError(1, 1, f"cannot parse: {exc}"), noqa=noqa, lines=len(lines))
            except (RecursionError, MemoryError):
                return ModuleFacts(
                    path,
                    error=ReadError(1, 1, "cannot parse: too deeply nested for Python's parser"),
                    noqa=noqa,
                    lines=len(lines),
                )
        facts = facts_from_tree(
            path, source, tree, lines=lines, enum=enum, attribute=attribute, accelerators=accelerators
        )
        del tree
        return facts._replace(noqa=noqa) if noqa else facts
    finally:
        if gc_was_enabled:
            gc.enable()


def _bound_from(tree: ast.Module, packages: Sequence[str]) -> list[tuple[str, str]]:
    """The names the module's top level binds from the backend `packages`,
    each with what it names (`from torch_musa import testing`: `testing`,
    `torch_musa.testing`; `import torch_musa.testing as mt`)."""
    if not packages:
        return []
    roots = frozenset(packages)
    bound: list[tuple[str, str]] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and (stmt.module or "").split(".")[0] in roots:
            bound.extend(
                (alias.asname or alias.name, f"{stmt.module}.{alias.name}") for alias in stmt.names if alias.name != "*"
            )
        elif isinstance(stmt, ast.Import):
            bound.extend((a.asname, a.name) for a in stmt.names if a.asname and a.name.split(".")[0] in roots)
    return bound


def facts_from_tree(
    path: str,
    source: str,
    tree: ast.Module,
    *,
    lines: Sequence[str] | None = None,
    enum: str = "HardwareClassification",
    attribute: str = "hw_classification",
    accelerators: Accelerators = DEFAULT_ACCELERATORS,
) -> ModuleFacts:
    """Facts from an already parsed module (the flake8 plugin gets the tree
    from flake8). `noqa` is left empty: the caller reads comments its way."""
    lines = lines if lines is not None else Lines(source)
    # A device the configuration does not name is still a device: the
    # module's facts match the names it uses as it uses them.
    found = discover(source, accelerators.devices)
    names = [f.name for f in found]
    # A backend package's calls are its device's too (`torch_dipu.x(...)`),
    # the device configured or found.
    packages = backend_packages(source, (*accelerators.devices, *names))
    if names or packages:
        # As the settings that cover them would (hwlint.facts.devices.coverage);
        # and what the module binds from a backend package (`from torch_musa
        # import testing`: `testing.OpTest(...)` is the package's call).
        modules = [*(module_of(n) for n in names), *packages]
        accelerators = accelerators.extended(modules, [flag_of(n) for n in names], names, _bound_from(tree, packages))
    # Here, not at the top: a warm run, every module's facts in the cache,
    # imports this module (hwlint.facts names its entry points) but walks no
    # tree, and the walk is six modules (module_walk and what it uses).
    from hwlint.facts.module_text import ModuleText
    from hwlint.facts.module_walk import ModuleWalk

    extractor = ModuleWalk(ModuleText(lines, source if "\r" not in source else None, accelerators), attribute)
    try:
        extractor.block(tree.body, Branch(), {})
    except RecursionError:
        return ModuleFacts(path, error=ReadError(1, 1, "cannot analyse: too deeply nested"), lines=len(lines))
    classes = _finish(extractor, enum)
    if extractor.module_mentions and classes:
        text = source if "\r" not in source else "\n".join(lines)
        far = unreached(extractor.statements, extractor.class_spans, text)
        classes = tuple(cls._replace(unreached=lines_) if lines_ else cls for cls, lines_ in zip(classes, far))
    return ModuleFacts(
        path,
        classes=classes,
        instantiations=tuple(extractor.instantiations),
        imports=tuple(extractor.imports),
        lines=len(lines),
        accelerator_lines=tuple(sorted(set(extractor.module_mentions))),
        dynamic=dynamic_sites(tree, source, extractor.column, attribute, {c.name for c in extractor.classes}),
        device_bindings=_bound_once(extractor.device_bindings, extractor.statements, extractor.imports, source),
        gpu_bindings=tuple(extractor.gpu_bindings),
        devices_found=found,
    )


_GLOBAL_NAMES = LazyPattern(r"\bglobal\s+(\w+(?:\s*,\s*\w+)*)")


def _bound_once(
    bindings: list[DeviceBinding], statements: list[Statement], imports: list[Import], text: str
) -> tuple[DeviceBinding, ...]:
    """The bindings of names that nothing else at module level binds (`try:
    device = "xpu"` / `except: device = "cpu"` names no one device), no
    import, nor a function's `global` statement."""
    if not bindings:
        return ()
    names = {b.name for b in bindings}
    counts = dict.fromkeys(names, 0)
    for statement in statements:
        if statement.in_main:
            continue  # collection never runs it
        for name in (bound_names(statement.node) or set()) & names:
            counts[name] += 1
    for imported in imports:
        if imported.asname in counts:
            counts[imported.asname] += 1
    if "global" in text:
        for match in _GLOBAL_NAMES.compiled().finditer(text):
            for name in re.split(r"\s*,\s*", match.group(1)):
                if name in counts:
                    counts[name] += 1
    return tuple(b for b in bindings if counts[b.name] == 1)


def extract_file(
    path: str,
    abspath: str,
    *,
    enum: str = "HardwareClassification",
    attribute: str = "hw_classification",
    accelerators: Accelerators = DEFAULT_ACCELERATORS,
) -> ModuleFacts:
    """Facts of the file at `abspath`, reported as `path`; a file that cannot
    be read is a ModuleFacts with `error` set."""
    source = read_source(abspath)
    if isinstance(source, ReadError):
        return ModuleFacts(path, error=source)
    return extract_source(path, source, enum=enum, attribute=attribute, accelerators=accelerators)
