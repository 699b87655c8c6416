"""hwlint.facts.dynamic: `setattr` calls in functions are found by a walk
pruned to the lines where `setattr` may be written; it must find exactly what
a walk of every node finds."""

import ast
import textwrap
from typing import Iterator

import pytest

from hwlint.facts import dynamic
from hwlint.facts.dynamic import _DynamicFinder, _lines_of, dynamic_sites
from hwlint.facts.records import Dynamic


def _column(line: int, offset: int) -> int:
    return offset + 1


def _full_walk(source: str) -> tuple[Dynamic, ...]:
    """What dynamic_sites found before: every node of every top-level
    function and class walked."""
    tree = ast.parse(source)
    finder = _DynamicFinder(_column, "hw_classification", set())
    finder.block(tree.body, {})
    if "setattr" in source:
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for node in ast.walk(stmt):
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
                        finder.call(node, "")
    return tuple(sorted(dict.fromkeys(finder.found), key=lambda d: (d.line, d.column)))


def _pruned(source: str) -> tuple[Dynamic, ...]:
    return dynamic_sites(ast.parse(source), source, _column, "hw_classification", set())


CASES = {
    "generate_tests": """
        def generate_tests(cls):
            for name in ["a", "b"]:
                def fn(self):
                    pass
                setattr(cls, "test_" + name, fn)
        generate_tests(TestFoo)
    """,
    "in a method": """
        class TestFoo(TestCase):
            @classmethod
            def setUpClass(cls):
                setattr(cls, "hw_classification", X)
                setattr(cls, name, f)
    """,
    "in a decorator": """
        @register(lambda cls: setattr(cls, "test_x", f))
        @other
        def helper():
            pass

        @decorate(setattr(Base, "test_y", g))
        class TestBar(TestCase):
            pass
    """,
    "multi-line call": """
        def make(cls):
            x = (
                setattr
            )(cls, "test_z", f)
            setattr(
                cls,
                "test_w",
                f,
            )
    """,
    "in an f-string": """
        def make(cls):
            return f'''{
                setattr(cls, "test_f", f)
            }'''
    """,
    "nested everywhere": """
        async def make(cls, d=lambda: setattr(A, "test_d", f)):
            with ctx() as c, other(setattr(B, "test_e", g)):
                try:
                    [setattr(C, n, h) for n in names if n]
                except E as e:
                    match e:
                        case X(y=1):
                            setattr(D, "test_m", k)
    """,
    "only in text": """
        # setattr(cls, "test_no", f) in a comment
        def make(cls):
            return "setattr(cls, 'test_no', f)"
    """,
    "module level, and in an if": """
        setattr(TestFoo, "test_a", f)
        if True:
            def make(cls):
                setattr(cls, "test_b", f)
        def other(cls):
            setattr(globals()["X"], "test_c", f)
            setattr(cls, "hw_classification", HardwareClassification.GENERIC)
    """,
    "non-ASCII identifier": """
        def make(cls):
            \uff53etattr(cls, "test_full", f)
            s = "é"
            setattr(cls, "test_plain", f)
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_pruned_walk_finds_what_a_full_walk_finds(name: str, newline: str) -> None:
    source = textwrap.dedent(CASES[name]).replace("\n", newline)
    assert _pruned(source) == _full_walk(source)


def test_cases_do_find_calls_in_functions() -> None:
    """The cases are not vacuous: setattr calls in functions are found."""
    found = _pruned(textwrap.dedent(CASES["nested everywhere"]))
    assert [d.args for d in found] == [("test_d",), ("test_e",), (None,), ("test_m",)]
    full_width = _pruned(textwrap.dedent(CASES["non-ASCII identifier"]))
    assert [d.args for d in full_width] == [("test_full",), ("test_plain",)]


def test_lines_of() -> None:
    assert _lines_of("a\nsetattr\nb setattr setattr\n", "setattr") == [2, 3]
    assert _lines_of("a\r\nsetattr\rsetattr\n", "setattr") == [2, 3]
    assert _lines_of("x = 'é'\nsetattr\n", "setattr") == [1, 2]  # non-ASCII lines are candidates


def test_the_walk_is_pruned(monkeypatch: pytest.MonkeyPatch) -> None:
    """A function of many statements with one setattr: few nodes are visited."""
    body = "".join(f"    x{i} = foo(a, b, c={i})\n" for i in range(200))
    source = f"def make(cls):\n{body}    setattr(cls, 'test_a', f)\n"
    visited = []
    walk = dynamic.walk_lines

    def counting(node: ast.AST, lines: list[int], *, whole_fstrings: bool = False) -> Iterator[ast.AST]:
        for sub in walk(node, lines, whole_fstrings=whole_fstrings):
            visited.append(sub)
            yield sub

    monkeypatch.setattr(dynamic, "walk_lines", counting)
    assert [d.args for d in _pruned(source)] == [("test_a",)]
    assert len(visited) < 20
