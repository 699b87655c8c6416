"""HWC401 `no-runner`: Classified test class that no configured runner selects (it would never run in CI).

The rule, its examples and its check; `hwlint rule HWC401` prints its
explanation (the class docstring)."""

from __future__ import annotations

from typing import Iterator

from hwlint.core.config import Runner
from hwlint.facts.resolve import ClassInfo, ModuleContext
from hwlint.rules.base import Example, Rule, Violation, snippet

_CPU = {"name": "linux-cpu", "members": ["GENERIC", "CPU"], "device": "cpu"}
_CUDA = {"name": "linux-cuda", "members": ["ACCELERATOR", "CUDA"], "device": "cuda"}


def _cls(member: str, params: str = "self") -> str:
    return (
        f"class TestA(TestCase):\n    hw_classification = HardwareClassification.{member}\n"
        f"    def test_a({params}): pass\n"
    )


def test_methods(info: ClassInfo) -> int:
    """The test methods a class runs: its own and its bases', each name once
    (an override replaces the base's), at least 1. Parametrized expansions
    are not in the facts: a method counts once. What `select --matrix`
    balances shards by and the report's runner coverage counts."""
    names = {m.name for m in info.facts.methods}
    for _, base in info.ancestors:
        names.update(m.name for m in base.methods)
    return max(1, len(names))


def runners_of(member: str, runners: tuple[Runner, ...]) -> list[Runner]:
    """The runners that select a class of `member`: those with it among their members."""
    return [runner for runner in runners if member in runner.members]


class NoRunner(Rule):
    """
    ## What it does
    Reports a classified test class that no configured CI runner selects
    (`[[tool.hwlint.runners]]`): its classification is in no runner's
    `members`. An ACCELERATOR class is selected by any runner that has
    ACCELERATOR among its members; a GENERIC class by any that has GENERIC.
    The rule reports nothing until runners are configured, and is on by
    default once they are (an explicit `select` decides for itself).

    Unclassified classes are HWC001's; `hwlint select --include-unclassified`
    decides where they run.

    ## Why is this bad?
    `hwlint select --runner NAME` and `--matrix` give each runner the tests
    of its members. A class whose classification no runner asks for is
    selected by none: it never runs in CI, and nothing says so. An MPS class
    in a project without a macOS runner, or an XPU class where only CUDA
    runners exist, passes review and is never executed.

    ## Example
    ```toml
    [[tool.hwlint.runners]]
    name = "linux-cuda"
    members = ["ACCELERATOR", "CUDA"]
    device = "cuda"
    ```
    ```python
    class TestMetal(TestCase):
        hw_classification = HardwareClassification.MPS
    ```

    ## Use instead
    Add a runner whose `members` include the classification (or add it to an
    existing runner that has that hardware), or classify the class for
    hardware CI has: a test that runs on any accelerator is ACCELERATOR.

    ## Options
    `[[tool.hwlint.runners]]`: `name`, `members`, `device`, `shards`.
    """

    code = "HWC401"
    name = "no-runner"
    summary = "Classified test class that no configured runner selects (it would never run in CI)"
    VALID = (
        Example(_cls("CPU"), settings={"runners": [_CPU, _CUDA]}),
        Example(
            _cls("ACCELERATOR", "self, device") + "\ninstantiate_device_type_tests(TestA, globals())\n",
            settings={"runners": [_CPU, _CUDA]},
        ),
        # No runners configured: nothing to judge against, even when selected.
        Example(_cls("MPS")),
    )
    INVALID = (
        Example(
            _cls("MPS"),
            settings={"runners": [_CPU, _CUDA]},
            expect=((1, 1),),
            messages=(
                "TestA is MPS, which no runner selects (runners: linux-cpu: GENERIC, CPU; "
                "linux-cuda: ACCELERATOR, CUDA)",
            ),
        ),
        Example(
            _cls("XPU"),
            settings={"runners": [_CUDA]},
            expect=((1, 1),),
            messages=("TestA is XPU, which no runner selects (runners: linux-cuda: ACCELERATOR, CUDA)",),
        ),
        # Inherited: the subclass never runs either.
        Example(
            snippet("""\
                class Base(TestCase):
                    hw_classification = HardwareClassification.GENERIC

                class TestB(Base):
                    def test_b(self): pass
                """),
            settings={"runners": [_CUDA]},
            expect=((4, 1),),
            messages=("TestB is GENERIC (inherited from Base), which no runner selects",),
        ),
    )

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        runners = ctx.config.runners
        if not runners:
            return
        for info in ctx.test_classes():
            member = info.classification
            if member is None or runners_of(member, runners):
                continue
            name = info.facts.name
            how = f" (inherited from {info.inherited_from})" if info.inherited_from else ""
            listing = "; ".join(f"{r.name}: {', '.join(r.members)}" for r in runners)
            yield Violation(
                info.facts.line,
                info.facts.column,
                f"{name} is {member}{how}, which no runner selects (runners: {listing}): it never runs in CI; "
                f"add {member} to the members of a runner that has the hardware, or classify {name} for hardware "
                "CI has",
                name,
            )
