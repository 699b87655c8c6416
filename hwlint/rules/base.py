"""What a rule is: one small self-describing unit (fixit's and ruff's model).

A rule module holds one `Rule` subclass: its code, name and summary, an
explanation in ruff's sections (the class docstring, printed by `hwlint rule
CODE`), VALID and INVALID examples that one parametrized test runs, and its
check, a pure function of a module's resolved facts.
"""

# No `from __future__ import annotations`: typing.NamedTuple would compile
# each string annotation (hwlint.facts.records says why).

from typing import Any, ClassVar, Iterator, Literal, NamedTuple, Sequence

from hwlint.core.diagnostics import Diagnostic, FixInfo
from hwlint.facts import ModuleFacts
from hwlint.facts.resolve import ClassInfo, ModuleContext


class Violation(NamedTuple):
    """What a rule's check finds: where, the message, and the fix or why there is none."""

    line: int
    column: int
    message: str
    class_name: str | None = None
    # A fixable rule's violation carries a Fix or a NotFixable (why not);
    # `hwlint fix` and the formats read it, never the message.
    fix: FixInfo = None
    method: str | None = None  # the test method it is about, if any


class Example(NamedTuple):
    """A snippet and what the rule says of it.

    `expect` lists the (line, column) of each diagnostic of this rule;
    empty for a valid example; `messages` a stable part of the message of
    each, in the same order. For a fixable rule, `fixed` is the snippet
    after `hwlint fix` (None: it stays as it is), and `unsafe_fixed` after
    `hwlint fix --unsafe` when that differs. `files` adds other files to the
    project (path -> source), `allowlist` writes allowlist.txt, `settings`
    overrides [tool.hwlint] keys. The snippet itself is
    `test/test_example.py`. With `base_allowlist`, the project is a git
    repository whose one commit holds that allowlist, and the example is
    judged by `hwlint allowlist check --base HEAD` (HWC303).
    """

    source: str
    expect: tuple[tuple[int, int], ...] = ()
    messages: tuple[str, ...] = ()
    fixed: str | None = None
    unsafe_fixed: str | None = None
    files: dict[str, str] = {}  # never mutated: the defaults are shared
    allowlist: str | None = None
    settings: dict[str, Any] = {}
    base_allowlist: str | None = None


def snippet(block: str) -> str:
    """An example's text written as an indented block, as fixit writes its
    examples: `snippet(`, three quotes and a backslash, then the lines, then
    the closing quotes on a line of their own at the first line's
    indentation. Every line loses the first line's indentation, which for
    these blocks is what `textwrap.dedent` removes; it is done with one
    `str.replace`, without textwrap, since every check imports every rule and
    so builds every example."""
    margin = block[: len(block) - len(block.lstrip(" "))]
    return block[len(margin) :].replace("\n" + margin, "\n")


Scope = Literal["module", "file", "allowlist"]


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


class Rule:
    """A rule: its metadata, its explanation (the subclass's docstring), its
    examples and its check of a module's resolved facts."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    default: ClassVar[bool] = True
    # "module": check() runs on each module's facts, and an allowlisted
    # file's budget counts its violations; "file": reported by the reading
    # stage (a file that cannot be read has nothing to count); "allowlist":
    # judged on the allowlist against the whole tree (never per file, so
    # never through flake8, and never counted against a budget).
    scope: ClassVar[Scope] = "module"
    # Whether `hwlint fix` can fix this rule's violations: each then carries
    # a Fix or a NotFixable. The one place that says which codes are fixable.
    fixable: ClassVar[bool] = False
    # What one finding left unfixed stands for in `hwlint fix`'s summary: a
    # class (the classification rules) or one site or test (rules about a
    # use inside a class, several of which a class can have).
    counted_by: ClassVar[Literal["class", "finding"]] = "class"
    VALID: ClassVar[tuple[Example, ...]] = ()
    INVALID: ClassVar[tuple[Example, ...]] = ()

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        return iter(())

    @classmethod
    def surfaced(cls, diagnostics: Sequence[Diagnostic], member: str, module: ModuleFacts) -> str:
        """How `hwlint fix` names these new findings of this rule when
        declaring `member` would surface them (`3 tests use @onlyCUDA
        (HWC103)`). A rule that `fix` can surface phrases its own."""
        return f"{len(diagnostics)}× {cls.code} ({cls.name})"

    @classmethod
    def explanation(cls) -> str:
        import inspect  # only `hwlint rule CODE` needs it

        doc = inspect.cleandoc(cls.__doc__ or "")
        state = "on by default" if cls.default else "off by default: enable it with `select`"
        return f"# {cls.name} ({cls.code})\n\n{cls.summary}. {state[0].upper()}{state[1:]}.\n\n{doc}\n"


def member_example(config_enum: str, member: str) -> str:
    return f"hw_classification = {config_enum}.{member}"


def instantiated_names(ctx: ModuleContext) -> set[str]:
    return {i.class_name for i in ctx.facts.instantiations if i.class_name}


def is_accelerator(info: ClassInfo) -> bool:
    return info.classification == "ACCELERATOR"


def is_generic(info: ClassInfo) -> bool:
    return info.classification == "GENERIC"
