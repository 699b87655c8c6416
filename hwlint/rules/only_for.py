"""HWC104 `only-for`: ACCELERATOR instantiation uses `only_for` (use `except_for`).

The rule, its examples and its check; `hwlint rule HWC104` prints its
explanation (the class docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Sequence

from hwlint.facts.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation, snippet

if TYPE_CHECKING:
    from hwlint.core.diagnostics import Diagnostic
    from hwlint.facts import ModuleFacts


class OnlyFor(Rule):
    """
    ## What it does
    Reports an ACCELERATOR class instantiated with `only_for`.

    ## Why is this bad?
    `only_for` names the devices that get the tests, so every accelerator
    not in the list (XPU, MPS, out-of-tree PrivateUse1 backends) silently
    loses them, although ACCELERATOR says they apply. `except_for` keeps
    new accelerators in by default.

    ## Example
    ```python
    instantiate_device_type_tests(TestOps, globals(), only_for=("cpu", "cuda"))
    ```

    ## Use instead
    ```python
    instantiate_device_type_tests(TestOps, globals(), except_for=("meta",))
    ```
    or classify the class for the one device it targets.
    """

    code = "HWC104"
    name = "only-for"
    summary = "ACCELERATOR instantiation uses `only_for` (use `except_for`)"
    VALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals(), except_for='meta')
                """)
        ),
    )
    INVALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.ACCELERATOR
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals(), only_for=('cpu', 'cuda'))
                """),
            expect=((5, 1),),
            messages=("ACCELERATOR test class TestA is instantiated with only_for",),
        ),
    )

    @classmethod
    def surfaced(cls, diagnostics: Sequence[Diagnostic], member: str, module: ModuleFacts) -> str:
        return f"its instantiation uses only_for ({cls.code})"

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        members = {info.facts.name: info.classification for info in ctx.test_classes()}
        for call in ctx.facts.instantiations:
            if call.only_for is not None and members.get(call.class_name or "") == "ACCELERATOR":
                yield Violation(
                    call.line,
                    call.column,
                    f"ACCELERATOR test class {call.class_name} is instantiated with only_for: "
                    "use except_for for the devices it cannot run on, or classify it for one device",
                    call.class_name,
                )
