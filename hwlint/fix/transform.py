"""The libcst rewrites `fix` makes to a module's text: the classification
that `infer` found inserted into its class (HWC001), a string declaration
replaced by the member it names (HWC002), and the import of the backend
decorators HWC201's rewrites (hwlint.fix.rewrite) put in.

libcst keeps every byte it is not asked to change (comments, quotes,
encoding, BOM, newline style, indentation), so a fix adds the declaration or
replaces the string and, when needed, adds the enum's import, and nothing
else. Only files with something to fix are parsed with libcst, and libcst is
imported only by the fix modules: `hwlint check` never pays for it.
Whether the result is what was intended is hwlint.fix.verify's question.
"""

from __future__ import annotations

from typing import Callable, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from hwlint.core.config import Config
from hwlint.fix.edits import declaration_statement, declare, ensure_import, only_inserted
from hwlint.fix.plan_records import ClassFix, SiteRewrite
from hwlint.fix.result import FixError
from hwlint.fix.rewrite import RewriteError, generate, parse_module, reproduces
from hwlint.rules.torch_api import REQUIRES_BACKEND, REQUIRES_BACKEND_MODULE


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
        finder = _Classes(fixes, lambda member: declaration_statement(config.attribute, enum_name, member))
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


def decorator_names(original: bytes, rewrites: list[SiteRewrite]) -> list[SiteRewrite]:
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


def import_decorators(fixed: bytes, rewritten: Sequence[SiteRewrite]) -> bytes:
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
