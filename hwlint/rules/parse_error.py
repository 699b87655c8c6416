"""HWC000 `parse-error`: File cannot be read, decoded or parsed.

The rule, its examples and its check; `hwlint rule HWC000` prints its
explanation (the class docstring)."""

from __future__ import annotations

from hwlint.core.diagnostics import Diagnostic
from hwlint.facts.read import ReadError
from hwlint.rules.base import Example, Rule, snippet


class ParseError(Rule):
    """
    ## What it does
    Reports a test file that cannot be read, decoded or parsed.

    ## Why is this bad?
    A file hwlint cannot parse is a file it cannot check: skipping it
    silently would let unclassified classes through. Python would refuse it
    too, so its tests do not run at all.

    ## Example
    ```python
    class TestFoo(TestCase)
        def test_x(self): ...
    ```

    ## Use instead
    Fix the syntax error, or save the file in UTF-8 (or with a correct
    PEP 263 coding cookie).
    """

    code = "HWC000"
    name = "parse-error"
    summary = "File cannot be read, decoded or parsed"
    scope = "file"
    VALID = (Example("x = 1\n"),)
    INVALID = (
        Example(
            snippet("""\
                class TestFoo(TestCase)
                    def test_x(self): pass
                """),
            expect=((1, 24),),
            messages=("syntax error: expected ':'",),
        ),
        Example(
            snippet("""\
                def f(:
                    pass
                """),
            expect=((1, 7),),
            messages=("syntax error",),
        ),
    )


def diagnostic(path: str, error: ReadError) -> Diagnostic:
    """HWC000 for a file the read or parse stage could not turn into facts;
    the stage's error says what went wrong, and where."""
    return Diagnostic(path, error.line, error.column, ParseError.code, ParseError.name, error.message)


def missing(path: str) -> Diagnostic:
    """HWC000 for a path given on the command line that does not exist."""
    return Diagnostic(path, 1, 1, ParseError.code, ParseError.name, "file not found")
