"""What blocks making a one-device class device-generic, found in its
source: the code of a site as written (`torch.cuda.set_device(0)`, not
the facts' `torch.cuda.set_device()`), what on a line names a device that
no rewrite changes (a string such as `"cpu:gloo,cuda:nccl"`, a flag), a
device's backend asserted (`pg._get_backend(torch.device("cuda"))`), and
the docstrings' lines (prose: they bind the class to no device).
hwlint.fix.migrate.generalize turns them into Blockers (hwlint.fix.blocker).

The module is parsed with `ast` only when a question is asked, once per
version of its bytes: most classes generalized never ask one.
"""

from __future__ import annotations

import ast
import re
from functools import cached_property

from hwlint.core.diagnostics import NotFixable, Rewrite
from hwlint.facts import ClassFacts, Site
from hwlint.fix.blocker import Blocker

# Why a device string blocks: what a string names, no rewrite reaches.
NAMES_IN_A_STRING = "names a device in a string, which no rewrite changes"
# No release is this new: asked with it, a rule says what the newest torch offers.
NEWEST_TORCH = "99.0"
# A site longer than this is shown cut, as the facts show calls.
_SHOWN = 80


def _shown(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


class ClassSource:
    """The source of one class in one version of its module's bytes."""

    def __init__(self, data: bytes, info: ClassFacts) -> None:
        self.data = data
        self.info = info

    @cached_property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @cached_property
    def node(self) -> ast.ClassDef | None:
        """The class's node (None when the bytes do not parse: nothing is then shown but the facts' text)."""
        try:
            tree = ast.parse(self.data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == self.info.name and node.lineno == self.info.line:
                return node
        return None

    def _column(self, node: ast.AST) -> tuple[int, int]:
        """A node's line and 1-based character column, as the facts give sites."""
        line = getattr(node, "lineno", 0)
        offset = getattr(node, "col_offset", 0)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return line, len(text.encode("utf-8")[:offset].decode("utf-8", "ignore")) + 1

    def _segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node) or ""

    @cached_property
    def docstring_lines(self) -> frozenset[int]:
        """The lines of the class's docstring and of its methods'."""
        found: set[int] = set()
        if self.node is None:
            return frozenset()
        for node in (self.node, *ast.walk(self.node)):
            if not isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) or not node.body:
                continue
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
        return frozenset(found)

    @cached_property
    def decorator_lines(self) -> frozenset[int]:
        """The lines of its methods' decorators: they run when the class is
        made, where no test's `device` is defined."""
        found: set[int] = set()
        if self.node is None:
            return frozenset()
        for node in ast.walk(self.node):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for d in node.decorator_list:
                    found.update(range(d.lineno, (d.end_lineno or d.lineno) + 1))
        return frozenset(found)

    def code(self, site: Site) -> str:
        """The site as written (`torch.cuda.set_device(0)`, `"nccl"`,
        `f"cuda:{rank}"`); the facts' text where the tree says nothing more."""
        if self.node is None or site.kind in ("decorator", "keyword", "method", "to"):
            return site.text
        for node in ast.walk(self.node):
            if self._column(node) != (site.line, site.column):
                continue
            if site.kind in ("module", "torch.device") and isinstance(node, ast.Call):
                if ast.unparse(node.func) == (site.name if site.kind == "module" else "torch.device"):
                    return _shown(self._segment(node))
            elif site.kind in ("backend", "backend-options", "fstring") and isinstance(
                node, (ast.Constant, ast.JoinedStr)
            ):
                return _shown(self._segment(node))
        return site.text

    def asserts_backend(self, site: Site) -> str:
        """`pg._get_backend(torch.device("cuda"))` when the site is that
        device: the test asks for that device's backend; else ""."""
        if self.node is None or site.kind != "torch.device":
            return ""
        for node in ast.walk(self.node):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "_get_backend":
                if any(self._column(arg) == (site.line, site.column) for arg in node.args):
                    return _shown(self._segment(node))
        return ""

    def naming(self, line: int, found: re.Match[str]) -> Blocker:
        """What names the device `found` matched on `line`: a string (its
        literal), else the name or attribute chain around it."""
        word = found.group(0)
        column = found.start() + 1
        best: ast.AST | None = None
        if self.node is not None:
            for node in ast.walk(self.node):
                if getattr(node, "lineno", 0) != line or getattr(node, "end_lineno", 0) != line:
                    continue
                start, end = self._column(node)[1], self._column(node)[1] + len(self._segment(node))
                if not start <= column < end:
                    continue
                if isinstance(node, (ast.Constant, ast.JoinedStr)) and (
                    isinstance(node, ast.JoinedStr) or isinstance(node.value, str)
                ):
                    return Blocker(
                        line,
                        _shown(self._segment(node)),
                        NAMES_IN_A_STRING,
                        "device-string",
                    )
                if isinstance(node, (ast.Name, ast.Attribute)) and (
                    best is None or len(self._segment(node)) > len(self._segment(best))
                ):
                    best = node  # the whole dotted chain, not one of its parts
        if best is None:
            # An imported name, a keyword argument's: the identifier around the match.
            text = self.lines[line - 1]
            start, end = found.start(), found.end()
            while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_."):
                start -= 1
            while end < len(text) and (text[end].isalnum() or text[end] == "_"):
                end += 1
            shown = _shown(text[start:end])
        else:
            shown = _shown(self._segment(best))
        return Blocker(
            line, shown, f"names {word!r}, which no rewrite changes: it is a test of that device", "names-device"
        )


def equivalent_blocker(
    site: Site, code: str, fix: NotFixable | None, newest: object, oldest_torch: str, modules: tuple[str, ...]
) -> Blocker:
    """Why a site of the class has no rewrite: its equivalent is newer than
    `oldest_torch` (`newest`: the rule's rewrite of it with no release too
    new), there is none (hwlint.rules.torch_api says why), or the rule
    gives none here (`fix`: its reason)."""
    from hwlint.rules.torch_api import why_none  # as hwlint.rules.hardcoded_device: off by default

    if isinstance(newest, Rewrite) and newest.since:
        target = newest.target.rsplit(".", 1)[-1] if newest.kind == "decorator" else newest.target
        why = f"has no device-generic equivalent before torch {newest.since} (oldest-torch {oldest_torch}): {target}"
        return Blocker(site.line, code, why, "newer-torch")
    if site.kind in ("module", "backend-options", "decorator"):
        module = max((m for m in modules if site.name.startswith(m + ".")), key=len, default="")
        bare = why_none(site.kind, site.name[len(module) + 1 :] if module else site.name)
        why = f"has no device-generic equivalent: {bare}" if bare else "has no known device-generic equivalent"
        return Blocker(site.line, code, why, "no-equivalent")
    reason = fix.reason if fix is not None else "no rewrite"
    return Blocker(site.line, code, f"has no device-generic rewrite: {reason}", "rewrite-refused")
