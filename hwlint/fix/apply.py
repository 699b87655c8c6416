"""Fix: insert the classification that `infer` found (HWC001), or replace
a string declaration with the member it names (HWC002), with libcst; and
HWC201's device-agnostic rewrites (hwlint.fix.rewrite), with `--unsafe`.

libcst keeps every byte it is not asked to change (comments, quotes,
encoding, BOM, newline style, indentation), so a fix adds the declaration or
replaces the string and, when needed, adds the enum's import, and nothing
else. Only files with something to fix are parsed with libcst, and libcst is
imported here only: `hwlint check` never pays for it.

A fixed file is written only if it parses and its facts show exactly the
intended classification on exactly the intended classes and declarations;
the write is atomic and happens only if the file did not change meanwhile.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from hwlint.core.config import Config
from hwlint.core.diagnostics import Diagnostic, UserError
from hwlint.engine.api import CheckResult, run_resolver
from hwlint.facts import ModuleFacts, Value, extract_source
from hwlint.facts.collect import FactsOptions
from hwlint.facts.read import ReadError, decode
from hwlint.facts.resolve import canonical_member
from hwlint.fix.edits import _declaration, declare, ensure_import, only_inserted
from hwlint.fix.migrate import KINDS, ONLY_ACCELERATOR, Done, MigrateError, Refused, migrate_source
from hwlint.fix.plan import REPLACEABLE, ClassFix, ClassMove, FilePlan, SiteRewrite, Unfixed, plan_fixes
from hwlint.fix.rewrite import RewriteError, generate, parse_module, reproduces, rewrite_source, verify_rewrites
from hwlint.fix.trial import Trial
from hwlint.infra.atomic import write_bytes_atomic
from hwlint.infra.pool import run_in_pool
from hwlint.rules import COUNTED, PER_FINDING
from hwlint.rules.device_decorator import is_device_specific
from hwlint.rules.hardcoded_device import HardcodedDevice
from hwlint.rules.missing_classification import MissingClassification
from hwlint.rules.torch_api import REQUIRES_BACKEND, REQUIRES_BACKEND_MODULE


class FixError(Exception):
    """A fix that cannot be made safely; the file is left as it is."""


@dataclass
class FileResult:
    path: str
    original: bytes
    fixed: bytes | None  # None when the file could not be fixed
    fixes: list[ClassFix]
    error: str | None = None
    rewritten: tuple[SiteRewrite, ...] = ()
    # Planned rewrites the tree did not allow, each with why.
    not_rewritten: tuple[tuple[SiteRewrite, str], ...] = ()
    # Class-level migrations (hwlint.fix.migrate), those refused, and the
    # classes whose tests are now collected under another class's name.
    migrated: tuple[Done, ...] = ()
    refused: tuple[Refused, ...] = ()
    moves: tuple[ClassMove, ...] = ()
    # The file as the fixes left it, before the migrations: what they are
    # judged against (they may add no finding).
    premigration: bytes | None = None

    @property
    def declared(self) -> list[ClassFix]:
        """The fixes whose classification stays: a class a migration made
        device-generic is ACCELERATOR, not the one device first written."""
        generalized = {d.class_name for d in self.migrated if d.kind == "generalize"}
        return [f for f in self.fixes if f.class_name not in generalized]

    @property
    def changed(self) -> bool:
        return self.fixed is not None and self.fixed != self.original


# -- rewriting -----------------------------------------------------------


class _Classes:
    """Finds module-level classes in the order facts.py lists them."""

    def __init__(self, fixes: Sequence[ClassFix], make: Callable[[str], cst.SimpleStatementLine]) -> None:
        self.wanted = {(f.class_name, f.occurrence): f for f in fixes if not f.replaces}
        self.seen: dict[str, int] = {}
        self.done: set[tuple[str, int]] = set()
        self.make = make

    def block(self, stmts: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
        return [self.statement(s) for s in stmts]

    def suite(self, node: cst.BaseSuite) -> cst.BaseSuite:
        if isinstance(node, cst.IndentedBlock):
            return node.with_changes(body=self.block(node.body))
        return node

    def statement(self, stmt: cst.BaseStatement) -> cst.BaseStatement:
        if isinstance(stmt, cst.ClassDef):
            name = stmt.name.value
            occurrence = self.seen.get(name, 0)
            self.seen[name] = occurrence + 1
            fix = self.wanted.get((name, occurrence))
            if fix is not None:
                self.done.add((name, occurrence))
                return declare(stmt, self.make(fix.member))
            return stmt
        if isinstance(stmt, cst.If):
            # The body first: occurrences count classes in source order.
            body = self.suite(stmt.body)
            orelse: cst.BaseStatement | cst.Else | None = stmt.orelse
            if isinstance(orelse, cst.If):
                orelse = self.statement(orelse)  # elif
            elif isinstance(orelse, cst.Else):
                orelse = orelse.with_changes(body=self.suite(orelse.body))
            return stmt.with_changes(body=body, orelse=orelse)
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            body = self.suite(stmt.body)
            handlers = [h.with_changes(body=self.suite(h.body)) for h in stmt.handlers]
            orelse = stmt.orelse.with_changes(body=self.suite(stmt.orelse.body)) if stmt.orelse else None
            final = stmt.finalbody.with_changes(body=self.suite(stmt.finalbody.body)) if stmt.finalbody else None
            return stmt.with_changes(body=body, handlers=handlers, orelse=orelse, finalbody=final)
        if isinstance(stmt, (cst.For, cst.While)):
            body = self.suite(stmt.body)
            orelse = stmt.orelse.with_changes(body=self.suite(stmt.orelse.body)) if stmt.orelse else None
            return stmt.with_changes(body=body, orelse=orelse)
        if isinstance(stmt, cst.With):
            return stmt.with_changes(body=self.suite(stmt.body))
        if isinstance(stmt, cst.Match):
            return stmt.with_changes(cases=[c.with_changes(body=self.suite(c.body)) for c in stmt.cases])
        return stmt


class _Strings(cst.CSTTransformer):
    """Replaces the string value of the declarations at the given positions
    (facts' 1-based line and column of the assignment) with `Enum.NAME`.

    Positions, not names, find them: a declaration may be in the class body
    (also under if/try) or at module level after the class (also in a loop),
    and facts.py and the diagnostics give each one's position."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, fixes: Sequence[ClassFix], enum: str) -> None:
        super().__init__()
        self.wanted = {(f.line, f.column): f for f in fixes}
        self.enum = enum
        self.done: set[tuple[int, int]] = set()

    def _replace(self, original: cst.CSTNode, value: cst.BaseExpression | None) -> cst.BaseExpression | None:
        start = self.get_metadata(PositionProvider, original).start
        key = (start.line, start.column + 1)
        fix = self.wanted.get(key)
        if fix is None or value is None:
            return None
        if not isinstance(value, (cst.SimpleString, cst.ConcatenatedString)) or value.evaluated_value != fix.text:
            raise FixError(f"the declaration of {fix.class_name} at line {fix.line} is not the string {fix.text!r}")
        self.done.add(key)
        # Parentheses around the string stay around the member.
        return cst.Attribute(cst.Name(self.enum), cst.Name(fix.name), lpar=value.lpar, rpar=value.rpar)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        # Declarations are never in functions (facts.py does not look
        # there), and method bodies are most of a test file.
        return False

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        new = self._replace(original_node, updated_node.value)
        return updated_node if new is None else updated_node.with_changes(value=new)

    def leave_AnnAssign(self, original_node: cst.AnnAssign, updated_node: cst.AnnAssign) -> cst.AnnAssign:
        new = self._replace(original_node, updated_node.value)
        return updated_node if new is None else updated_node.with_changes(value=new)


def replace_strings(module: cst.Module, fixes: Sequence[ClassFix], enum: str) -> cst.Module:
    """The module with each fix's string declaration replaced by `enum.NAME`,
    or FixError when one is not where the facts said."""
    if not fixes:
        return module
    # MetadataWrapper copies the module by default so that no node appears
    # twice; a parsed module has no shared nodes, and copying costs time.
    transformer = _Strings(fixes, enum)
    fixed = MetadataWrapper(module, unsafe_skip_copy=True).visit(transformer)
    missing = [f for f in fixes if (f.line, f.column) not in transformer.done]
    if missing:
        raise FixError(", ".join(f"the declaration of {f.class_name} at line {f.line} not found" for f in missing))
    return fixed


def fix_source(data: bytes, fixes: Sequence[ClassFix], config: Config) -> bytes:
    """The fixed bytes of a module, or FixError."""
    # One code generation where it can be: the round trip of the original
    # is checked only when what is written is not shown to be the original
    # with declarations and an import added (only_inserted).
    original = module = parse_module(data, FixError, round_trip=False)
    try:
        replacements = [f for f in fixes if f.replaces]
        if replacements:
            # Positions are those of the file as read: replace the strings
            # before anything is inserted. The enum's name is what the
            # import below will give (imports are not touched by this).
            module = replace_strings(module, replacements, ensure_import(module, config.import_from, config.enum)[1])
        module, enum_name = ensure_import(module, config.import_from, config.enum)
        finder = _Classes(fixes, lambda member: _declaration(config.attribute, enum_name, member))
        module = module.with_changes(body=finder.block(module.body))
    except (RecursionError, MemoryError):
        raise FixError("the file is too deeply nested to rewrite") from None
    # The one generation: libcst's failures on odd input become FixError, as
    # they did when the round trip came first.
    fixed = generate(module, FixError)
    if replacements or not only_inserted(
        data, fixed, attribute=config.attribute, enum=enum_name, import_from=config.import_from, declarations=len(fixes)
    ):
        reproduces(original, data, FixError)
    missing = [f"{f.class_name}" for f in fixes if not f.replaces and (f.class_name, f.occurrence) not in finder.done]
    if missing:
        raise FixError(f"class {', '.join(missing)} not found where expected")
    return fixed


def verify(path: str, fixed: bytes, fixes: Sequence[ClassFix], before: ModuleFacts, config: Config) -> None:
    """The fixed file parses, each class fixed by a new declaration (only
    those) now declares exactly its intended member, and each replaced
    string declaration (only those) is now the valid member intended."""
    text = decode(fixed)
    if isinstance(text, ReadError):
        raise FixError(f"the fixed file does not decode: {text.message}")
    after = extract_source(path, text, enum=config.enum, attribute=config.attribute)
    if after.error is not None:
        raise FixError(f"the fixed file does not parse: {after.error.message}")
    if [c.name for c in after.classes] != [c.name for c in before.classes]:
        raise FixError("the fixed file's classes differ from the original's")
    intended = {(f.class_name, f.occurrence): f.member for f in fixes if not f.replaces}
    # A replaced declaration is at the position the original's facts give
    # (a loop's is shared by the classes it assigns to).
    replaced = {(f.line, f.column): f for f in fixes if f.replaces}
    checked: set[tuple[int, int]] = set()
    seen: dict[str, int] = {}
    for old, new in zip(before.classes, after.classes):
        occurrence = seen.get(new.name, 0)
        seen[new.name] = occurrence + 1
        checked.update((d.line, d.column) for d in old.declarations)
        member = intended.get((new.name, occurrence))
        if member is None:
            # Lines move with the insertions: compare what is declared.
            if len(new.declarations) != len(old.declarations):
                raise FixError(f"the fix changed {new.name}, which it should not touch")
            for d, now in zip(old.declarations, new.declarations):
                fix = replaced.get((d.line, d.column))
                if fix is None:
                    if (now.value, now.where) != (d.value, d.where):
                        raise FixError(f"the fix changed {new.name}, which it should not touch")
                    continue
                if d.value != Value("string", fix.text):
                    raise FixError(f"the declaration of {new.name} at line {d.line} was not the string {fix.text!r}")
                if (now.value, now.where) != (Value("member", fix.name), d.where) or canonical_member(
                    now, config
                ) != fix.member:
                    raise FixError(
                        f"the declaration of {new.name} at line {d.line} does not end up {config.enum}.{fix.name}"
                    )
            continue
        own = [canonical_member(d, config) for d in new.declarations if d.where == "body"]
        if own != [member]:
            raise FixError(f"{new.name} does not end up classified {member}")
    unseen = [f for position, f in replaced.items() if position not in checked]
    if unseen:
        raise FixError(f"no declaration of {unseen[0].class_name} at line {unseen[0].line}")


def fix_file(root: Path, plan: FilePlan, before: ModuleFacts, config: Config) -> FileResult:
    path = root / plan.path
    try:
        original = path.read_bytes()
    except OSError as exc:
        return FileResult(plan.path, b"", None, plan.fixes, f"cannot read: {exc.strerror or exc}")
    fixed = original
    rewritten: tuple[SiteRewrite, ...] = ()
    not_rewritten: tuple[tuple[SiteRewrite, str], ...] = ()
    try:
        if plan.rewrites:
            # Rewrites first: they find their sites by the positions of the
            # file as read, and change columns, never lines.
            rewrites = _decorator_names(original, plan.rewrites)
            fixed, rewritten, not_rewritten = rewrite_source(original, rewrites)
            if rewritten:
                verify_rewrites(before, _facts_of(plan.path, fixed, config), rewritten)
        if plan.fixes:
            fixed = fix_source(fixed, plan.fixes, config)
            verify(plan.path, fixed, plan.fixes, before, config)
        # Last: the import may add a line, and the fixes above find their
        # places by the lines of the file as read.
        fixed = _import_decorators(fixed, rewritten)
    except (FixError, RewriteError) as exc:
        return FileResult(plan.path, original, None, plan.fixes, str(exc))
    if not plan.migrations:
        return FileResult(plan.path, original, fixed, plan.fixes, None, rewritten, not_rewritten)
    # The migrations find classes by name, not by line: they come after
    # everything else, on the file the fixes made.
    try:
        outcome = migrate_source(fixed, plan.migrations, config, lambda data: _facts_of(plan.path, data, config))
        if outcome.done:
            verify_migrations(
                _facts_of(plan.path, fixed, config), _facts_of(plan.path, outcome.fixed, config), outcome.done, config
            )
    except (MigrateError, RewriteError, cst.CSTValidationError) as exc:
        # (CSTValidationError: a node a migration built that libcst refuses,
        # e.g. a parameter without a default after one with: a refusal, not a crash.)
        refused = tuple(Refused(m, f"not migrated: {exc}") for m in plan.migrations)
        return FileResult(plan.path, original, fixed, plan.fixes, None, rewritten, not_rewritten, refused=refused)
    return FileResult(
        plan.path,
        original,
        outcome.fixed,
        plan.fixes,
        None,
        rewritten,
        not_rewritten,
        outcome.done,
        outcome.refused,
        outcome.moves,
        fixed,
    )


def verify_migrations(before: ModuleFacts, after: ModuleFacts, done: Sequence[Done], config: Config) -> None:
    """The migrated file parses; it has the same classes with the same
    tests; each migrated class declares what the migration says, is
    instantiated as it says; each migrated test has what it says
    (`@onlyAccelerator`, `device`) and no other test changed. RewriteError
    otherwise."""
    if after.error is not None:
        raise RewriteError(f"the migrated file does not parse: {after.error.message}")
    moved = [d for d in done if d.kind == "move-tests"]
    _verify_moves(before, after, moved, config)
    # Tests moved to a new class leave theirs; a class all of whose tests
    # went to one device keeps them (_verify_moves checked them).
    targets = {d.to_class for d in moved if d.to_class != d.class_name}
    gone = {(d.class_name, d.method) for d in moved if d.to_class != d.class_name}
    retargeted = {(d.class_name, d.method) for d in moved if d.to_class == d.class_name}
    remaining = [
        c._replace(methods=tuple(x for x in c.methods if (c.name, x.name) not in gone)) for c in before.classes
    ]
    staying = [c for c in after.classes if c.name not in targets]
    if [(c.name, [m.name for m in c.methods]) for c in remaining] != [
        (c.name, [m.name for m in c.methods]) for c in staying
    ]:
        raise RewriteError("the migration changed the file's classes or their tests")
    by_class = {d.class_name: d for d in done if not d.method}
    tests = [d for d in done if d.method and d.kind != "move-tests"]
    for old, new in zip(remaining, staying):
        d = by_class.get(new.name)
        if d is not None and d.member is not None:
            own = [canonical_member(x, config) for x in new.declarations if x.where == "body"]
            if own != [d.member]:
                raise RewriteError(f"{new.name} does not end up classified {d.member}")
        for was, now in zip(old.methods, new.methods):
            if (new.name, now.name) in retargeted:
                continue
            mine = {x.kind for x in tests if (x.class_name, x.method) == (new.name, now.name)}
            want_params, want_decorators = was.params, was.decorators
            if d is not None and d.kind == "drop-device":
                want_params = tuple(p for p in was.params if p != "device")
            if d is not None and d.kind in ("generalize", "device-class") and "device" not in was.params:
                want_params = ("device", *was.params)
            elif d is not None and d.kind == "generalize" and now.params[:1] == ("device",):
                # Its default gone, `device` moved ahead of the parameters
                # with defaults (hwlint.fix.migrate._without_default).
                want_params = ("device", *(p for p in was.params if p != "device"))
            if "add-device" in mine:
                want_params = ("device", *was.params)  # after `self`, which the facts leave out
            if "only-accelerator" in mine:
                # One decorator in place of the device ones: @onlyAccelerator,
                # under the name the file imports it as.
                kept = [x for x in was.decorators if x not in REPLACEABLE]
                added = list(now.decorators)
                for x in kept:
                    if x in added:
                        added.remove(x)
                if set(now.decorators) & REPLACEABLE or len(added) > 1 or (not added and ONLY_ACCELERATOR not in kept):
                    raise RewriteError(f"{new.name}.{now.name} is not @{ONLY_ACCELERATOR} alone")
                want_decorators = now.decorators
            if (now.params, now.decorators) != (want_params, want_decorators):
                raise RewriteError(f"the migration changed {new.name}.{now.name} other than intended")
    for d in by_class.values():
        calls = [i for i in after.instantiations if i.class_name == d.class_name]
        if d.kind in ("instantiate", "generalize") and [(i.only_for, i.except_for) for i in calls] != [(None, None)]:
            raise RewriteError(f"{d.class_name} is not instantiated once for every device")
        if d.kind == "only-for-except" and (len(calls) != 1 or calls[0].only_for is not None):
            raise RewriteError(f"{d.class_name} still has only_for")
        device = (d.member or "").lower()
        if d.kind == "device-class" and [(i.only_for, i.except_for) for i in calls] != [((device,), None)]:
            raise RewriteError(f"{d.class_name} is not instantiated once for {device}")
        if d.kind == "only-for-one" and (len(calls) != 1 or calls[0].only_for is None or len(calls[0].only_for) != 1):
            raise RewriteError(f"{d.class_name} is not instantiated for one device")


def _verify_moves(before: ModuleFacts, after: ModuleFacts, moved: Sequence[Done], config: Config) -> None:
    """Each class tests were moved to is a new subclass of the class they
    left, holds exactly them (their parameters as they were, their
    decorators too but @onlyNativeDeviceTypes, which its except_for stands
    for), declares what the move says and is instantiated once, for its
    device (only_for) or, ACCELERATOR, without only_for."""
    if not moved:
        return
    old = {(c.name, x.name): x for c in before.classes for x in c.methods}
    for target in dict.fromkeys(d.to_class for d in moved):
        mine = [d for d in moved if d.to_class == target]
        found = [c for c in after.classes if c.name == target]
        whole = target == mine[0].class_name
        if len(found) != 1 or (not whole and any(c.name == target for c in before.classes)):
            raise RewriteError(f"{target} is not one {'' if whole else 'new '}class")
        (cls,) = found
        if whole and [x.name for x in cls.methods] != [
            x.name for c in before.classes if c.name == target for x in c.methods
        ]:
            raise RewriteError(f"the migration changed {target}'s tests")
        if not whole and (
            cls.bases != (mine[0].class_name,) or [x.name for x in cls.methods] != [d.method for d in mine]
        ):
            raise RewriteError(f"{target} is not a subclass of {mine[0].class_name} with the tests moved")
        if [canonical_member(x, config) for x in cls.declarations if x.where == "body"] != [mine[0].member]:
            raise RewriteError(f"{target} does not end up classified {mine[0].member}")
        calls = [i for i in after.instantiations if i.class_name == target]
        device = (mine[0].member or "").lower() if mine[0].member != "ACCELERATOR" else None
        if len(calls) != 1 or calls[0].only_for != ((device,) if device else None):
            raise RewriteError(f"{target} is not instantiated once for {device or 'the devices it names'}")
        now_by_name = {x.name: x for x in cls.methods}
        allowed = frozenset(config.allowed_only_decorators)
        for d in mine:
            was, now = old[(d.class_name, d.method)], now_by_name[d.method]
            # To an ACCELERATOR class, without the device decorators its except_for stands for.
            decorators = (
                was.decorators if device else tuple(x for x in was.decorators if not is_device_specific(x, allowed))
            )
            if (now.params, now.decorators) != (was.params, decorators):
                raise RewriteError(f"the move changed {target}.{now.name} other than intended")


def _decorator_names(original: bytes, rewrites: list[SiteRewrite]) -> list[SiteRewrite]:
    """The rewrites, with a backend decorator's replacement under the name
    the file imports it as (`requires_accelerator_dist_backend`, or its alias)."""
    decorators = [r for r in rewrites if r.kind == "decorator" and r.equivalent is not None]
    if not decorators:
        return rewrites
    name = decorators[0].equivalent.target if decorators[0].equivalent is not None else REQUIRES_BACKEND
    local = ensure_import(parse_module(original, FixError), REQUIRES_BACKEND_MODULE, name)[1]
    if local == name:
        return rewrites
    return [
        r._replace(equivalent=r.equivalent._replace(target=local)) if r in decorators and r.equivalent else r
        for r in rewrites
    ]


def _import_decorators(fixed: bytes, rewritten: Sequence[SiteRewrite]) -> bytes:
    """`fixed` with the rewritten backend decorators imported from
    common_distributed the way `fix` imports the enum (merged into an
    import of that module, else after the last import). The one change is
    checked: the module's tree, its imports of that name left out, is the
    tree it had."""
    names = {r.equivalent.target for r in rewritten if r.kind == "decorator" and r.equivalent is not None}
    if not names:
        return fixed
    module = parse_module(fixed, RewriteError)
    for name in sorted(names):
        module = ensure_import(module, REQUIRES_BACKEND_MODULE, name)[0]
    data = module.bytes
    if data != fixed and _without_imports(data, names) != _without_imports(fixed, names):
        raise RewriteError(f"adding the import of {', '.join(sorted(names))} changed more than the imports")
    return data


def _without_imports(data: bytes, names: set[str]) -> str:
    """The module's tree (no positions) with `names` left out of its
    `from ... import` statements at module level."""
    import ast

    tree = ast.parse(data)
    body: list[ast.stmt] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == REQUIRES_BACKEND_MODULE:
            stmt.names = [a for a in stmt.names if a.name not in names]
            if not stmt.names:
                continue
        body.append(stmt)
    tree.body = body
    return ast.dump(tree)


def _facts_of(path: str, data: bytes, config: Config) -> ModuleFacts:
    text = decode(data)
    if isinstance(text, ReadError):
        raise RewriteError(f"the rewritten file does not decode: {text.message}")
    return extract_source(path, text, **FactsOptions.of(config)._asdict())


def write_fixed(root: Path, result: FileResult) -> str | None:
    """Write a fixed file atomically; an error message, or None."""
    if not result.changed:
        return None
    path = root / result.path
    try:
        if path.read_bytes() != result.original:
            return "the file changed while it was being fixed: run hwlint fix again"
        assert result.fixed is not None
        write_bytes_atomic(path, result.fixed)
    except OSError as exc:
        return f"cannot write: {exc.strerror or exc}"
    return None


def write_report(config: Config, report: FixReport) -> None:
    """Write the files of a report computed without writing (`fix
    --verify-runtime` writes only what it kept); a file that cannot be
    written is left for a human, saying why."""
    kept: list[FileResult] = []
    for outcome in report.files:
        error = write_fixed(config.root, outcome)
        if error is None:
            kept.append(outcome)
        else:
            report.unfixed.extend(
                Unfixed(outcome.path, f.line, f.class_name, f"not fixed: {error}") for f in outcome.fixes
            )
    report.files = kept
    report.written = True


def unified_diff(result: FileResult) -> str:
    before = decode(result.original)
    after = decode(result.fixed or result.original)
    if isinstance(before, ReadError) or isinstance(after, ReadError):
        return ""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{result.path}",
            tofile=f"b/{result.path}",
        )
    )


@dataclass
class FixReport:
    """What a fix run did (or, without writing, would do)."""

    files: list[FileResult] = field(default_factory=list)  # the files changed
    unfixed: list[Unfixed] = field(default_factory=list)
    written: bool = False

    @property
    def classified(self) -> dict[str, int]:
        """Fixes (declarations added and strings replaced) per member."""
        counts: dict[str, int] = {}
        for result in self.files:
            for f in result.declared:
                counts[f.member] = counts.get(f.member, 0) + 1
            for d in result.migrated:
                # A class instantiated for its device keeps the declaration its fix wrote (counted above).
                if d.member is not None and not d.method and d.kind != "device-class":
                    counts[d.member] = counts.get(d.member, 0) + 1
        return dict(sorted(counts.items()))

    @property
    def migrated(self) -> dict[str, int]:
        """Migrations made, by kind (hwlint.fix.migrate.KINDS)."""
        counts: dict[str, int] = {}
        for result in self.files:
            for d in result.migrated:
                counts[d.kind] = counts.get(d.kind, 0) + 1
        return dict(sorted(counts.items()))

    @property
    def rewritten(self) -> int:
        """Hard-coded devices rewritten (HWC201)."""
        return sum(len(result.rewritten) for result in self.files)

    def to_dict(self, *, over_budget: Sequence[Diagnostic] = ()) -> dict[str, object]:
        """`hwlint fix --format json`: what was (or would be) fixed, what is
        left for a human, and the allowlisted files over budget."""
        fixed = [
            {
                "path": r.path,
                "line": f.line,
                "class_name": f.class_name,
                "classification": f.member,
                "applicability": f.applicability,
                "evidence": f.evidence,
            }
            for r in self.files
            for f in r.declared
        ]
        return {
            "written": self.written,
            "classified": self.classified,
            "fixed": sorted(fixed, key=lambda f: (f["path"], f["line"])),
            "migrated": self.migrated,
            "migrations": [d.to_dict(r.path) for r in self.files for d in r.migrated],
            "moves": [{"path": r.path, "old": m.old, "new": m.new} for r in self.files for m in r.moves],
            "not_generalized": [
                {
                    "path": r.path,
                    "line": x.migration.line,
                    "class_name": x.migration.class_name,
                    "classification": x.migration.member,
                    "reason": x.reason,
                }
                for r in self.files
                for x in r.refused
                if x.migration.kind == "generalize"
            ],
            "unfixed": [u.to_dict() for u in sorted(self.unfixed, key=lambda u: (u.path, u.line))],
            "over_budget": [d.to_dict() for d in over_budget],
        }

    def summary(self, *, show_unfixed: bool = False) -> list[str]:
        """What was done, then what is left for a human, counted by reason
        with an example each; each class too with `show_unfixed`, or when
        there are few."""
        replaced = sum(f.replaces for result in self.files for f in result.fixes)
        declared = sum(self.classified.values()) - replaced
        classes = f"{declared} class{'es' if declared != 1 else ''}"
        strings = f"{replaced} string declaration{'s' if replaced != 1 else ''}"
        if not replaced:
            done = f"Classified {classes}" if self.written else f"Would classify {classes}"
        elif not declared:
            done = f"Fixed {strings}" if self.written else f"Would fix {strings}"
        else:
            done = (
                f"Classified {classes} and fixed {strings}"
                if self.written
                else f"Would classify {classes} and fix {strings}"
            )
        if self.rewritten:
            devices = f"{self.rewritten} hard-coded device{'s' if self.rewritten != 1 else ''}"
            rewrote = f"rewrote {devices}" if self.written else f"rewrite {devices}"
            done = (
                f"{done} and {rewrote}"
                if declared or replaced
                else (f"Rewrote {devices}" if self.written else f"Would rewrite {devices}")
            )
        files = len(self.files)
        breakdown = ", ".join(f"{member} {n}" for member, n in self.classified.items())
        lines = [f"{done} in {files} file{'s' if files != 1 else ''}" + (f" ({breakdown})" if breakdown else "") + "."]
        lines.extend(self._migration_lines())
        if not self.unfixed:
            return lines
        n = len(self.unfixed)
        ordered = sorted(self.unfixed, key=lambda u: (u.path, u.line))
        groups: dict[str, list[Unfixed]] = {}
        for u in ordered:
            groups.setdefault(u.group, []).append(u)
        # A rewrite is of a site, not of a class.
        things = "class" if all(u.code not in PER_FINDING for u in self.unfixed) else "finding"
        plural = "es" if things == "class" else "s"
        lines.append(f"{n} {things}{plural if n != 1 else ''} need{'s' if n == 1 else ''} a human, by reason:")
        width = len(str(max(len(g) for g in groups.values())))
        for group, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            example = members[0]
            lines.append(f"  {len(members):>{width}} {group} (e.g. {example.path}:{example.line} {example.class_name})")
        if show_unfixed or n <= _LIST_AT_MOST:
            lines.append(f"Each {things}:")
            lines.extend(f"  {u.path}:{u.line}: {u.class_name}: {u.reason}" for u in ordered)
        else:
            lines.append("`hwlint fix --show-unfixed` lists each class; `--format json` prints them for scripts.")
        return lines

    def _migration_lines(self) -> list[str]:
        """The class migrations, by kind, and the per-device classes the
        runtime collects from the classes now instantiated."""
        migrated = self.migrated
        if not migrated:
            return []
        verb = "Migrated" if self.written else "Would migrate"
        lines = [f"{verb} (unsafe: review the diff), by kind:"]
        width = len(str(max(migrated.values())))
        lines.extend(
            f"  {n:>{width}} {KINDS.get(kind, kind)}"
            for kind, n in sorted(migrated.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        # A moved test's class is the one it went to; several tests moved there are one line.
        collected = list(
            dict.fromkeys(
                (r.path, d.to_class or d.class_name, d.collected) for r in self.files for d in r.migrated if d.collected
            )
        )
        if collected:
            lines.append("Instantiated per device, collected as (where the machine has the device):")
            lines.extend(f"  {path}: {name} -> {', '.join(names)}" for path, name, names in collected[:_LIST_AT_MOST])
            if len(collected) > _LIST_AT_MOST:
                lines.append(f"  ... {len(collected) - _LIST_AT_MOST} more (`--format json` lists them)")
        moves = [(r.path, m) for r in self.files for m in r.moves if m.old != m.new]
        if moves:
            lines.append("Tests moved to new classes:")
            lines.extend(f"  {path}: tests of {m.old} now in {m.new}" for path, m in moves[:_LIST_AT_MOST])
            if len(moves) > _LIST_AT_MOST:
                lines.append(f"  ... {len(moves) - _LIST_AT_MOST} more (`--format json` lists them)")
        return lines


# Up to this many classes left for a human are listed without --show-unfixed.
_LIST_AT_MOST = 10


# Below this many files to rewrite, starting worker processes costs more than it saves.
_POOL_THRESHOLD = 8
# libcst takes a good part of a second on a big file: small tasks spread
# even a few files over the workers.
_FILES_PER_TASK = 2


def _fix_batch(
    batch: list[tuple[str, int]], config: Config, payloads: Mapping[str, tuple[FilePlan, ModuleFacts]]
) -> list[FileResult]:
    """The files of one task of the pool (hwlint.infra.pool), fixed."""
    return [fix_file(config.root, *payloads[path], config) for path, _ in batch]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # fix_file says why it cannot read it


def apply_fixes(
    config: Config,
    result: CheckResult,
    *,
    unsafe: bool = False,
    classes: Iterable[str] | None = None,
    write: bool = True,
    jobs: int | None = None,
) -> FixReport:
    """Fix the diagnostics of `result` that have a fix (HWC001, HWC002, and
    HWC201's rewrites, which are unsafe), for `hwlint fix` and `hwlint check
    --fix`; with `write=False`, compute the fixes only."""
    plans, unfixed = plan_fixes(result, unsafe=unsafe, classes=classes)
    facts = {ctx.path: ctx.facts for ctx in result.contexts}
    report = FixReport(unfixed=list(unfixed), written=write)
    # libcst is most of a fix's time: files are rewritten in parallel. The
    # writes stay in this process, in the order of the plans (the pool
    # finishes files in any order; the report must not depend on --jobs),
    # each as soon as its file and those before it are done.
    outcomes = run_in_pool(
        _fix_batch,
        (config,),
        [(plan.path, _size(config.root / plan.path)) for plan in plans],
        jobs or os.cpu_count() or 1,
        None,
        len(plans),
        payloads={plan.path: (plan, facts[plan.path]) for plan in plans},
        batch_files=_FILES_PER_TASK,
        min_files=_POOL_THRESHOLD,
    )
    done: dict[str, FileResult] = {}
    recorded = 0
    migrating = [plan.path for plan in plans if plan.migrations]
    budgets = _budgets(result) if unsafe else {}
    trial = Trial(result) if migrating or budgets else None
    # The subclasses in other files of each migrating file's classes, once
    # for the run: migrations keep class names, so the run's facts tell.
    reached: dict[str, dict[str, set[tuple[str, str]]]] = {}
    if trial is not None:
        for sub, bases in trial.subclasses_elsewhere({path: facts[path] for path in migrating}).items():
            for base in bases:
                reached.setdefault(base[0], {}).setdefault(sub, set()).add(base)
    by_path = {plan.path: plan for plan in plans}
    for outcome in outcomes:
        if trial is not None and outcome.migrated:
            outcome = _judged(
                config, trial, by_path[outcome.path], facts[outcome.path], outcome, reached.get(outcome.path, {})
            )
        if trial is not None and outcome.path in budgets:
            outcome = _within_budget(
                config, trial, by_path[outcome.path], facts[outcome.path], outcome, budgets[outcome.path], report
            )
        done[outcome.path] = outcome
        while recorded < len(plans) and plans[recorded].path in done:
            _record(config, plans[recorded], done.pop(plans[recorded].path), report, write)
            recorded += 1
    return report


def _findings(diagnostics: Iterable[Diagnostic]) -> Counter[tuple[str, str | None, str | None]]:
    """Findings as a multiset that lines do not enter: a migration adds lines."""
    return Counter((d.code, d.class_name, d.method) for d in diagnostics)


def _judged(
    config: Config,
    trial: Trial,
    plan: FilePlan,
    before: ModuleFacts,
    outcome: FileResult,
    subclasses: Mapping[str, set[tuple[str, str]]],
) -> FileResult:
    """`outcome`, or the file fixed again without the migrations that add
    a finding (in the file, or in a subclass in another file) to what the
    file has once the other fixes are made; those are refused, saying what
    they would surface."""
    refused: list[Refused] = []
    migrations = list(plan.migrations)
    for _ in range(_MAX_RETRIES):
        if not outcome.migrated or outcome.premigration is None or outcome.fixed is None:
            break
        pre = _facts_of(plan.path, outcome.premigration, config)
        post = _facts_of(plan.path, outcome.fixed, config)
        extra = _findings(trial.lint(post)) - _findings(trial.lint(pre))
        new = [
            f"{code} ({cls}{'.' + method if method else ''})"
            for code, cls, method in sorted(extra, key=lambda k: (k[0], k[1] or "", k[2] or ""))
        ]
        culprits = {cls for _, cls, _ in extra}
        resolver = run_resolver(trial.result) if subclasses else None
        for path, bases in sorted(subclasses.items()):
            sub = resolver.module(path) if resolver is not None else None
            if sub is None:
                continue
            more = _findings(trial.lint(sub, {plan.path: post})) - _findings(trial.lint(sub, {plan.path: pre}))
            if more:
                new.extend(f"{code} ({cls}, in {path})" for code, cls, _ in sorted(more, key=str))
                culprits.update(name for _, name in bases)
        if not new:
            break
        migrated = {d.class_name for d in outcome.migrated}
        dropping = [m for m in migrations if m.class_name in (culprits & migrated or migrated)]
        shown = ", ".join(new[:3]) + (f" and {len(new) - 3} more" if len(new) > 3 else "")
        refused.extend(Refused(m, f"not migrated: it would surface {shown}") for m in dropping)
        migrations = [m for m in migrations if m not in dropping]
        outcome = fix_file(config.root, FilePlan(plan.path, plan.fixes, plan.rewrites, migrations), before, config)
    else:
        refused.extend(Refused(m, "not migrated: its migrations kept surfacing findings") for m in migrations)
        outcome = fix_file(config.root, FilePlan(plan.path, plan.fixes, plan.rewrites, []), before, config)
    if refused:
        outcome.refused = (*outcome.refused, *refused)
    return outcome


# Each retry drops at least one migration; a file rarely needs more than two.
_MAX_RETRIES = 4


def _budgets(result: CheckResult) -> dict[str, int]:
    """The budget of each allowlisted file (`fix` checks with the allowlist
    exempting nothing, so it is read here)."""
    allowlist = result.allowlist
    if allowlist is None:
        from hwlint.allowlist.model import load_allowlist

        try:
            allowlist = load_allowlist(result.config.root, result.config.allowlist, layout=False)
        except UserError:  # an unreadable list is check's to report, not fix's to guard
            return {}
    return {path: entry.budget for path, entry in allowlist.entries.items()}


def _within_budget(
    config: Config,
    trial: Trial,
    plan: FilePlan,
    before: ModuleFacts,
    outcome: FileResult,
    budget: int,
    report: FixReport,
) -> FileResult:
    """`outcome`, or, when it would put its allowlisted file over its budget
    (an unsafe ACCELERATOR whose tests keep their device decorators: one
    HWC001 becomes several HWC103), the file fixed again without the
    classes that keep findings: even `--unsafe` never turns a passing
    `check` into a failing one (the class is left, saying what it would
    surface, and the budget still counts it once)."""
    fixes, migrations = list(plan.fixes), list(plan.migrations)
    limit: int | None = None
    for _ in range(_MAX_RETRIES):
        if outcome.fixed is None or not outcome.changed:
            return outcome
        found = [d for d in trial.lint(_facts_of(plan.path, outcome.fixed, config)) if d.code in COUNTED]
        if len(found) <= budget:
            return outcome
        if limit is None:
            # A file already over its budget (a class added since it was
            # listed) may still get the fixes that add nothing: linted only here.
            limit = max(budget, len([d for d in trial.lint(before) if d.code in COUNTED]))
        if len(found) <= limit:
            return outcome
        changed = {f.class_name for f in fixes} | {m.class_name for m in migrations}
        culprits = {d.class_name for d in found if d.class_name in changed}
        if not culprits:
            return outcome
        codes = ", ".join(sorted({d.code for d in found if d.class_name in culprits}))
        reason = (
            f"not applied: the file would have {len(found)} violations, over its budget of {limit} "
            f"({codes}): fix those tests first"
        )
        report.unfixed.extend(
            Unfixed(
                plan.path, f.line, f.class_name, reason, "over-budget", f.member, tuple(codes.split(", ")), code=f.code
            )
            for f in fixes
            if f.class_name in culprits
        )
        fixes = [f for f in fixes if f.class_name not in culprits]
        migrations = [m for m in migrations if m.class_name not in culprits]
        outcome = fix_file(config.root, FilePlan(plan.path, fixes, plan.rewrites, migrations), before, config)
    return outcome


def _record(config: Config, plan: FilePlan, outcome: FileResult, report: FixReport, write: bool) -> None:
    """Write one fixed file (when asked) and note what came of it."""
    error = outcome.error
    if error is None and write:
        error = write_fixed(config.root, outcome)
    if error is not None:
        report.unfixed.extend(Unfixed(plan.path, f.line, f.class_name, f"not fixed: {error}") for f in plan.fixes)
        report.unfixed.extend(
            Unfixed(
                plan.path, r.line, r.class_name, f"not rewritten: {error}", "not-rewritten", code=HardcodedDevice.code
            )
            for r in plan.rewrites
        )
        return
    report.unfixed.extend(
        Unfixed(plan.path, r.line, r.class_name, f"not rewritten: {reason}", "not-rewritten", code=HardcodedDevice.code)
        for r, reason in outcome.not_rewritten
    )
    # A class not generalized keeps the one-device classification written
    # for it: classified, not left (`--format json` lists why, "not_generalized").
    # A test the plan already left (a decorator known not to be replaceable) is listed once.
    listed = {(u.path, u.line, u.class_name, u.reason) for u in report.unfixed if u.path == plan.path}
    for r in outcome.refused:
        left = refused_unfixed(plan.path, r)
        if r.migration.kind == "generalize" and r.migration.member not in config.classifications:
            # No classification was written for it (its device is no configured member): it is left.
            left = left._replace(reason=f"{r.migration.evidence}; not generalized: {r.reason}", kind="not-configured")
        elif r.migration.kind == "generalize":
            continue
        if (left.path, left.line, left.class_name, left.reason) not in listed:
            report.unfixed.append(left)
    if outcome.changed:
        report.files.append(outcome)


# The kind of what is left when a migration is refused: the reason the
# class had (hwlint.rules.infer.REASONS), or the tests' own.
_LEFT = {
    "only-for": "only-for-several",
    "device-param": "device-not-instantiated",
    "accelerator-tests": "accelerator-tests",
}


def refused_unfixed(path: str, refused: Refused) -> Unfixed:
    m = refused.migration
    where = refused.line or m.line
    return Unfixed(
        path,
        where,
        m.class_name,
        refused.reason,
        _LEFT.get(m.kind, m.kind),
        code=refused.code or MissingClassification.code,
    )


def lintrunner_replacements(result: CheckResult) -> dict[tuple[str, int, int, str, str | None], tuple[str, str]]:
    """Whole-file (original, replacement) for the first fixable message of
    each file, keyed by (path, line, column, code, class name): `lintrunner
    -a` writes the replacement, fixing every class and declaration of the
    file at once. Safe fixes, and HWC201's rewrites: that rule is off unless
    the project turns it on, and lintrunner shows each replacement as a diff
    before `-a` applies it."""
    plans, _ = plan_fixes(result, rewrite=True)
    facts = {ctx.path: ctx.facts for ctx in result.contexts}
    found: dict[tuple[str, int, int, str, str | None], tuple[str, str]] = {}
    for plan in plans:
        outcome = fix_file(result.config.root, plan, facts[plan.path], result.config)
        if not outcome.changed or outcome.fixed is None:
            continue
        before, after = decode(outcome.original), decode(outcome.fixed)
        if isinstance(before, ReadError) or isinstance(after, ReadError):
            continue
        # The class too: a declaration in a loop is reported for each class it assigns to.
        line, column, code, class_name = min(
            [(f.line, f.column, f.code, f.class_name) for f in plan.fixes]
            + [(r.line, r.column, HardcodedDevice.code, r.class_name) for r in outcome.rewritten]
        )
        found[(plan.path, line, column, code, class_name)] = (before, after)
    return found
