"""HWC002 `invalid-classification`: Classification is not a valid member, or is declared twice.

The rule, its examples and its check; `hwlint rule HWC002` prints its
explanation (the class docstring)."""

from __future__ import annotations

from typing import Iterator

from hwlint.core.config import Config
from hwlint.core.diagnostics import Fix, NotFixable
from hwlint.facts.resolve import ModuleContext, canonical_member
from hwlint.rules.base import Example, Rule, Violation, snippet

# Names users meet in older code, with what they mean now, for the message.
_KNOWN_OLD_NAMES = {"DEVICE_GENERIC": "ACCELERATOR"}


class InvalidClassification(Rule):
    """
    ## What it does
    Reports a classification declaration whose value is not a member of the
    enum: an unknown member, a string, an alias that is not configured, any
    other expression, an annotation without a value, or a second declaration
    of the same class.

    ## Why is this bad?
    The runner compares the attribute with the enum's members; anything else
    silently matches no hardware, and a second declaration hides the first.

    ## Example
    ```python
    class TestFoo(TestCase):
        hw_classification = "GENERIC"
    ```

    ## Use instead
    ```python
    class TestFoo(TestCase):
        hw_classification = HardwareClassification.GENERIC
    ```

    ## Fix safety
    A string that is exactly a member (`"GENERIC"`) or a configured alias
    gets a safe fix: `hwlint fix` (and `hwlint check --fix`) replaces the
    string with the enum attribute it names (`HardwareClassification.GENERIC`;
    an alias keeps its name), in the class body or in a module-level
    `TestFoo.hw_classification = "..."`, keeping the annotation and
    comments, and imports the enum as HWC001's fix does. A string that
    matches one member or alias only when case is ignored (`"generic"`) gets
    an unsafe fix (`hwlint fix --unsafe`). Any other value, and a second
    declaration, need a human. In JSON output the `fix` gives the
    `classification` (aliases resolved) and the `member` written after the
    enum's name.

    ## Options
    `classifications` (the members), `aliases` (old names accepted, e.g.
    `{ DEVICE_GENERIC = "ACCELERATOR" }`), `enum`, `attribute`.
    """

    code = "HWC002"
    name = "invalid-classification"
    summary = "Classification is not a valid member, or is declared twice"
    fixable = True
    VALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification: HardwareClassification = HardwareClassification.CPU
                    def test_a(self): pass
                """)
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.DEVICE_GENERIC
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals())
                """),
            settings={"aliases": {"DEVICE_GENERIC": "ACCELERATOR"}},
        ),
        Example(
            snippet("""\
                import common_utils as cu

                class TestA(TestCase):
                    hw_classification = cu.HardwareClassification.GENERIC
                    def test_a(self): pass
                """)
        ),
    )
    INVALID = (
        # A string naming a member: a safe fix; in another case: an unsafe one.
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = 'GENERIC'
                    def test_a(self): pass
                """),
            expect=((2, 5),),
            messages=("the string 'GENERIC' is not a member: use HardwareClassification.GENERIC",),
            fixed=snippet("""\
                from torch.testing._internal.common_utils import HardwareClassification
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    def test_a(self): pass
                """),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = 'generic'
                    def test_a(self): pass
                """),
            expect=((2, 5),),
            messages=("the string 'generic' is not a member: use HardwareClassification.GENERIC",),
            unsafe_fixed=snippet("""\
                from torch.testing._internal.common_utils import HardwareClassification
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    def test_a(self): pass
                """),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    def test_a(self): pass

                TestA.hw_classification = "CPU"
                """),
            expect=((4, 1),),
            messages=("the string 'CPU' is not a member",),
            fixed=snippet("""\
                from torch.testing._internal.common_utils import HardwareClassification
                class TestA(TestCase):
                    def test_a(self): pass

                TestA.hw_classification = HardwareClassification.CPU
                """),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = 'GPU'
                    def test_a(self): pass
                """),
            expect=((2, 5),),
            messages=("the string 'GPU' is not a member: use HardwareClassification.<",),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GPU
                    def test_a(self): pass
                """),
            expect=((2, 5),),
            messages=("GPU is not a member of HardwareClassification",),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.DEVICE_GENERIC
                    def test_a(self): pass
                """),
            expect=((2, 5),),
            messages=("DEVICE_GENERIC is the old name of ACCELERATOR",),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification: HardwareClassification
                    def test_a(self): pass
                """),
            expect=((2, 5),),
            messages=("annotation without a value",),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.GENERIC
                    def test_a(self): pass

                TestA.hw_classification = HardwareClassification.CPU
                """),
            expect=((5, 1),),
            messages=("hw_classification of TestA is declared twice (first at line 2)",),
        ),
    )

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        config = ctx.config
        spelled = f"{config.enum}.<{'|'.join(config.classifications)}>"
        for info in ctx.classes:
            decls = sorted(info.facts.declarations, key=lambda d: (d.line, d.column))
            for index, decl in enumerate(decls):
                name = info.facts.name
                if index > 0:
                    twice = twice_message(config.attribute, name, decls[0].line)
                    yield Violation(decl.line, decl.column, twice, name, NotFixable(twice, "declared-twice"))
                    continue
                if canonical_member(decl, config) is not None:
                    continue
                value = decl.value
                fix = None
                if value.kind == "member":
                    if value.text in _KNOWN_OLD_NAMES:
                        problem = (
                            f"{value.text} is the old name of {_KNOWN_OLD_NAMES[value.text]}: use "
                            f"{config.enum}.{_KNOWN_OLD_NAMES[value.text]}, or configure "
                            f'aliases = {{ {value.text} = "{_KNOWN_OLD_NAMES[value.text]}" }}'
                        )
                    else:
                        problem = f"{value.text} is not a member of {config.enum}: use {spelled}"
                elif value.kind == "string":
                    fix = string_fix(value.text, config)
                    # Like HWC001's, the suggestion names the fix and its evidence.
                    use = spelled if fix is None else f"{config.enum}.{fix.member} ({fix.evidence})"
                    problem = f"the string {value.text!r} is not a member: use {use}"
                elif value.kind == "missing":
                    problem = f"annotation without a value: assign {spelled}"
                else:
                    problem = f"{value.text} is not a member of {config.enum}: use {spelled}"
                yield Violation(
                    decl.line,
                    decl.column,
                    message(config.attribute, name, problem),
                    name,
                    fix if fix is not None else NotFixable(problem, "invalid-value"),
                )


def message(attribute: str, class_name: str, problem: str) -> str:
    """HWC002's message for a value that is not a member; `problem` says what
    is wrong and what to write instead."""
    return f"invalid {attribute} for {class_name}: {problem}"


def twice_message(attribute: str, class_name: str, first_line: int) -> str:
    return f"{attribute} of {class_name} is declared twice (first at line {first_line}): keep one"


def string_fix(text: str, config: Config) -> Fix | None:
    """The fix of a declaration whose value is the string `text`: the enum
    attribute it names, or None when it names none.

    `member` is what `hwlint fix` writes after the enum's name (an alias
    stays the alias the author chose, since it is accepted), and
    `classification` the member it means."""
    if text in config.classifications:
        return Fix("safe", text, "the string names the member", text, text, "string")
    if text in config.aliases:
        return Fix(
            "safe", config.aliases[text], f"the string names an alias of {config.aliases[text]}", text, text, "string"
        )
    # Another case is likely the same intent, but a project's runtime could
    # tell them apart: only an unsafe fix, and only when one name matches.
    folded = text.casefold()
    matches = [m for m in (*config.classifications, *config.aliases) if m.casefold() == folded]
    if len(matches) == 1:
        (match,) = matches
        return Fix(
            "unsafe",
            config.aliases.get(match, match),
            f"the string matches {match} only when case is ignored",
            match,
            text,
            "string-case",
        )
    return None
