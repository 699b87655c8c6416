"""Which of a module's accelerator mentions a class can reach.

A module-level statement that mentions an accelerator (`DEVICE =
torch.device("xpu")`, `def _on_gpu(): ...`, `if TEST_CUDA:`) makes a class
that has no use of its own only weakly GENERIC (hwlint.rules.infer), unless
the class never reaches it. A class reaches a mention when its text names a
name the mention binds, directly or through module-level functions and
assignments it names (`def helper(): return DEVICE`); a statement that does
something at import besides binding names (a call, an attribute or item
set, a `raise`, an `if TEST_CUDA:` whose arms do more than bind) reaches
every class, except under `if __name__ == "__main__":`, which collection
never runs. Names are matched in the text (identifiers not after a `.`): a
parameter or local of the same name counts as a use, which errs on the
side of "reached".

This is cheap by construction: only modules with a mention and a class pay,
and only the names that carry a mention are searched for, once each, in the
module's text; class bodies are never walked.
"""

import ast
import bisect
import re
from typing import Iterable, NamedTuple, Sequence, cast

from hwlint.facts.prescan import line_at


class Statement(NamedTuple):
    """A module-level statement outside classes, as the extractor saw it."""

    node: ast.stmt
    mention: int  # the line of its accelerator mention; 0 when it has none
    in_main: bool  # under `if __name__ == "__main__":`


def is_main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = (test.left, test.comparators[0])
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


def _target_names(target: ast.expr, found: set[str]) -> bool:
    """Add the plain names `target` binds; False when it sets something else
    (an attribute, an item)."""
    if isinstance(target, ast.Name):
        found.add(target.id)
        return True
    if isinstance(target, ast.Starred):
        return _target_names(target.value, found)
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_target_names(e, found) for e in target.elts)
    return False


def bound_names(stmt: ast.stmt) -> set[str] | None:
    """The plain names a simple statement or definition binds; None when it
    does anything else at import (a call, an attribute set, a raise)."""
    found: set[str] = set()
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        found.add(stmt.name)
        return found
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        found.update(a.asname or a.name.split(".")[0] for a in stmt.names)
        return found
    if isinstance(stmt, ast.Pass):
        return found
    if isinstance(stmt, ast.Expr):
        # A docstring does nothing; any other expression runs at import.
        return found if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str) else None
    if isinstance(stmt, ast.Assign):
        targets: list[ast.expr] = list(stmt.targets)
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        targets = [stmt.target]
    else:
        return None
    if not all(_target_names(t, found) for t in targets):
        return None
    if stmt.value is not None:
        # `device = acc.type if (acc := torch.accelerator.current_accelerator()) else "cpu"`
        found.update(n.target.id for n in ast.walk(stmt.value) if isinstance(n, ast.NamedExpr))
    return found


def _arm_names(body: Iterable[ast.stmt], found: set[str]) -> bool:
    """Add the names the statements of an `if` arm bind (nested blocks
    included); False when one does more than bind names."""
    for stmt in body:
        if isinstance(stmt, (ast.If, ast.While)):
            if not (_arm_names(stmt.body, found) and _arm_names(stmt.orelse, found)):
                return False
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            if not (
                _target_names(stmt.target, found) and _arm_names(stmt.body, found) and _arm_names(stmt.orelse, found)
            ):
                return False
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            if not _arm_names(stmt.body, found):
                return False
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            tried = cast(ast.Try, stmt)  # ast.TryStar (`except*`) has Try's fields
            arms = [tried.body, tried.orelse, tried.finalbody, *(h.body for h in tried.handlers)]
            if not all(_arm_names(arm, found) for arm in arms):
                return False
        else:
            names = bound_names(stmt)
            if names is None:
                return False
            found.update(names)
    return True


class _Binder:
    __slots__ = ("first", "last", "names", "carries")

    def __init__(self, first: int, last: int, names: set[str], carries: set[int]) -> None:
        self.first, self.last, self.names, self.carries = first, last, names, carries


# Module-level functions unittest calls for every class of the module.
_IMPLICIT = frozenset({"setUpModule", "tearDownModule"})
_GLOBAL = re.compile(r"^\s*global\s+([\w\s,]+)")


def _globals(binders: list[_Binder], text: str) -> None:
    """A module-level function that declares `global NAME` binds NAME too
    (`def setUpModule(): global DEVICE; DEVICE = ...`)."""
    functions = sorted((b.first, b.last, b) for b in binders if b.last > b.first)
    if not functions:
        return
    starts = [f[0] for f in functions]
    at = text.find("global")
    line, counted = 1, 0
    while at != -1:
        line += text.count("\n", counted, at)
        counted = at
        match = _GLOBAL.match(line_at(text, at))  # its line, not every line split
        index = bisect.bisect_right(starts, line) - 1
        if match and index >= 0 and functions[index][1] >= line:
            functions[index][2].names.update(n for n in re.split(r"[\s,]+", match.group(1)) if n)
        at = text.find("global", at + 6)


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", None)
    return decorators[0].lineno if decorators else node.lineno


def unreached(
    statements: Sequence[Statement], classes: Sequence[tuple[int, int, str]], text: str
) -> list[tuple[int, ...]]:
    """For each class (its first line, decorators included, its last, its name),
    the lines of the module's mentions it never reaches (sorted).

    `statements` are the module-level statements outside classes, in order;
    `text` is the module with "\\n" line ends."""
    mentions = sorted({s.mention for s in statements if s.mention})
    if not mentions or not classes:
        return [() for _ in classes]
    everywhere: set[int] = set()
    binders: list[_Binder] = []
    for stmt, mention, in_main in statements:
        node = stmt
        if isinstance(node, (ast.If, ast.While)):
            # The mention is in the test: what the arms bind depends on it.
            if not mention:
                continue
            arms: set[str] = set()
            names: set[str] | None = arms
            if isinstance(node, ast.While) or not (_arm_names(node.body, arms) and _arm_names(node.orelse, arms)):
                names = None
            first, last = node.test.lineno, node.test.end_lineno or node.test.lineno
        else:
            names = bound_names(node)
            first, last = _first_line(node), node.end_lineno or node.lineno
        if names is None:
            # It does something at import: every class runs after it.
            if mention and not in_main:
                everywhere.add(mention)
            continue
        binders.append(_Binder(first, last, names, {mention} if mention else set()))
    if not everywhere.issuperset(mentions):
        if "global" in text:
            _globals(binders, text)
        reached = _propagate(binders, classes, text)
        for binder in binders:
            if binder.names & _IMPLICIT:
                # unittest calls it around every class's tests, unnamed.
                everywhere |= binder.carries
    else:
        reached = [set() for _ in classes]
    return [tuple(m for m in mentions if m not in everywhere and m not in found) for found in reached]


def _propagate(binders: list[_Binder], classes: Sequence[tuple[int, int, str]], text: str) -> list[set[int]]:
    """The mentions each class reaches through the names it uses. A class
    binds its own name too: a test class that subclasses or calls a helper
    class reaches what that class reaches."""
    own = [_Binder(first, last, {name}, set()) for first, last, name in classes]
    carried: dict[str, set[int]] = {}
    for binder in binders:
        if binder.carries:
            for name in binder.names:
                carried.setdefault(name, set()).update(binder.carries)
    # By first line: they do not overlap (a binder is a module-level
    # statement or an `if` test, outside classes), but for statements
    # sharing a line (`a = 1; b = 2`).
    spans = sorted([*own, *binders], key=lambda b: (b.first, b.last))
    starts = [b.first for b in spans]
    lines: dict[str, list[int]] = {}
    frontier = set(carried)
    while frontier:
        new = [name for name in frontier if name not in lines]
        if new:
            lines.update(_occurrences(text, new))
        following: set[str] = set()
        for name in frontier:
            carries = carried[name]
            for line in lines.get(name, ()):
                index = bisect.bisect_right(starts, line) - 1
                while index >= 0 and spans[index].last >= line:
                    holder = spans[index]
                    index -= 1
                    if carries <= holder.carries:
                        continue
                    holder.carries |= carries
                    for bound in holder.names:
                        known = carried.setdefault(bound, set())
                        if not holder.carries <= known:
                            known |= holder.carries
                            following.add(bound)
        frontier = following
    return [binder.carries for binder in own]


def _occurrences(text: str, names: list[str]) -> dict[str, list[int]]:
    """The lines where each name is used as a name (not after a `.`, not
    part of a longer identifier). str.find, not a regular expression: a
    pattern that starts with a look-behind tries every position of the
    text, several times slower. The places of all the names are turned into
    lines in one pass over the text, not one pass per name (counting
    newlines was most of the cost)."""
    places: list[tuple[int, int]] = []  # (where, which name)
    for index, name in enumerate(names):
        size = len(name)
        at = text.find(name)
        while at != -1:
            before = text[at - 1] if at else " "
            after = text[at + size : at + size + 1]
            if not (before.isalnum() or before in "_.") and not (after.isalnum() or after == "_"):
                places.append((at, index))
            at = text.find(name, at + size)
    places.sort()
    hits: list[list[int]] = [[] for _ in names]
    line, counted = 1, 0
    for at, index in places:
        line += text.count("\n", counted, at)
        counted = at
        found = hits[index]
        if not found or found[-1] != line:
            found.append(line)
    return dict(zip(names, hits))
