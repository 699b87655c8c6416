"""HWC111 `device-specific-instantiation`: Device class not instantiated for exactly its device.

The rule, its examples and its check; `hwlint rule HWC111` prints its
explanation (the class docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Sequence

from hwlint.facts.devices import OPT_IN
from hwlint.facts.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation, snippet

if TYPE_CHECKING:
    from hwlint.core.config import Config
    from hwlint.core.diagnostics import Diagnostic
    from hwlint.facts import ModuleFacts

# The members that name no one device: every other configured member (CPU,
# CUDA, MPS, XPU, and a project's NPU or PRIVATEUSE1) is a device class's.
# The default members that name no one device.
DEVICELESS = frozenset({"GENERIC", "ACCELERATOR"})
# Devices instantiate_device_type_tests leaves out unless asked, by member.


def device_of(member: str | None, config: Config) -> str | None:
    """The device type a class of `member` runs on (`CUDA` -> "cuda"), as
    `only_for` names it: the member in lower case, which is how
    instantiate_device_type_tests spells device types (and what
    TEST_LINTER expects). None for GENERIC, ACCELERATOR, no member, or a
    member the configuration does not have."""
    if member is None or member in DEVICELESS or member not in config.classifications:
        return None
    return member.lower()


def device_instantiation(name: str, member: str) -> str:
    """The call that instantiates a `member` class for its device alone."""
    call = f"instantiate_device_type_tests({name}, globals(), only_for={member.lower()!r}"
    opt_in = OPT_IN.get(member.lower())
    return call + (f", {opt_in}=True)" if opt_in else ")")


class DeviceSpecificInstantiation(Rule):
    """
    ## What it does
    Reports the instantiation of a device class (CPU, CUDA, MPS, XPU, or a
    device member the project configures, such as NPU) that is not limited
    to that device: without `only_for="<device>"` (or with `only_for`
    naming other devices, or a value hwlint cannot read as a literal), or
    with `except_for`. Each problem is its own diagnostic at the call, as
    TEST_LINTER reports `[only_for]` and `[except_for]` apart. MPS and XPU
    classes must also pass `allow_mps=True` / `allow_xpu=True`, without
    which `instantiate_device_type_tests` never makes those devices' classes
    (TEST_LINTER does not check this).

    A device class that is never instantiated is HWC101's (instantiation).

    ## Why is this bad?
    A class classified for one device but instantiated for several runs its
    tests on devices it was not written for, and the runners that select by
    classification disagree with what actually runs. `except_for` is a
    list of devices to leave out, so every device not in it (a new
    accelerator too) still gets the class.

    ## Example
    ```python
    class TestCudaGraphs(TestCase):
        hw_classification = HardwareClassification.CUDA
        def test_capture(self, device): ...

    instantiate_device_type_tests(TestCudaGraphs, globals(), except_for="cpu")
    ```

    ## Use instead
    ```python
    instantiate_device_type_tests(TestCudaGraphs, globals(), only_for="cuda")
    ```

    ## Differences from TEST_LINTER
    TEST_LINTER reads only a module-level `instantiate_device_type_tests(...)`
    statement, by that plain name, and only the first for a class; hwlint
    judges every instantiation of the class (inside `if`/`try` blocks and
    loops, through `common_device_type.instantiate_device_type_tests` too).
    hwlint reads `only_for={"cuda"}` (a set, which the runtime accepts) as the
    literal it is; TEST_LINTER cannot read it and reports it. `except_for=None`
    and `only_for=None` count as given and not literal (hwlint's facts keep
    no more of a value than its devices), where TEST_LINTER reads `None` as
    absent: leave the argument out instead.
    """

    code = "HWC111"
    name = "device-specific-instantiation"
    summary = "Device class not instantiated for exactly its device"
    VALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.XPU
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals(), only_for='xpu', allow_xpu=True)
                """)
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CUDA
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals(), only_for=['cuda'])
                """)
        ),
        # A device the project configures is a device class's too.
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.NPU
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals(), only_for='npu')
                """),
            settings={"classifications": ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "NPU"]},
        ),
    )
    INVALID = (
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CUDA
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals())
                """),
            expect=((5, 1),),
            messages=("CUDA test class TestA is instantiated without only_for: pass only_for='cuda'",),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.MPS
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals(), only_for='mps')
                """),
            expect=((5, 1),),
            messages=(
                "MPS test class TestA is instantiated without allow_mps=True: "
                "instantiate_device_type_tests makes no mps class without it",
            ),
        ),
        # TEST_LINTER's [except_for] and [only_for]: two diagnostics at the call.
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CPU
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals(), except_for='cuda')
                """),
            expect=((5, 1), (5, 1)),
            messages=(
                "CPU test class TestA is instantiated with except_for: its tests are for cpu alone, "
                "pass only_for='cpu' instead",
                "CPU test class TestA is instantiated without only_for: pass only_for='cpu'",
            ),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CUDA
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals(), only_for=('cpu', 'cuda'))
                """),
            expect=((5, 1),),
            messages=(
                "CUDA test class TestA is instantiated with only_for=('cpu', 'cuda'): pass only_for='cuda' alone",
            ),
        ),
        Example(
            snippet("""\
                DEVICES = ('cuda',)

                class TestA(TestCase):
                    hw_classification = HardwareClassification.CUDA
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals(), only_for=DEVICES)
                """),
            expect=((7, 1),),
            messages=(
                "CUDA test class TestA is instantiated with an only_for that is not a literal: pass only_for='cuda'",
            ),
        ),
        Example(
            snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.NPU
                    def test_a(self, device): pass

                instantiate_device_type_tests(TestA, globals(), except_for='cpu')
                """),
            settings={"classifications": ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "NPU"]},
            expect=((5, 1), (5, 1)),
            messages=(
                "NPU test class TestA is instantiated with except_for",
                "NPU test class TestA is instantiated without only_for",
            ),
        ),
    )

    @classmethod
    def surfaced(cls, diagnostics: Sequence[Diagnostic], member: str, module: ModuleFacts) -> str:
        return f"its instantiation is not limited to {member.lower()} ({cls.code})"

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        members = {info.facts.name: info.classification for info in ctx.test_classes()}
        for call in ctx.facts.instantiations:
            name = call.class_name or ""
            member = members.get(name)
            device = device_of(member, ctx.config)
            if member is None or device is None:
                continue
            # One violation per problem: TEST_LINTER counts [except_for] and
            # [only_for] apart, and each has its own edit.
            if call.except_for is not None:
                yield Violation(
                    call.line,
                    call.column,
                    f"{member} test class {name} is instantiated with except_for: its tests are for {device} alone, "
                    f"pass only_for={device!r} instead",
                    name,
                )
            if call.only_for is None:
                yield Violation(
                    call.line,
                    call.column,
                    f"{member} test class {name} is instantiated without only_for: pass only_for={device!r}",
                    name,
                )
            elif call.only_for == ():
                # Not a literal (a name, a call, `None`): it may name other
                # devices at run time, and TEST_LINTER cannot read it either.
                yield Violation(
                    call.line,
                    call.column,
                    f"{member} test class {name} is instantiated with an only_for that is not a literal: "
                    f"pass only_for={device!r}",
                    name,
                )
            elif call.only_for != (device,):
                yield Violation(
                    call.line,
                    call.column,
                    f"{member} test class {name} is instantiated with only_for={_literal(call.only_for)}: "
                    f"pass only_for={device!r} alone",
                    name,
                )
            opt_in = OPT_IN.get(member.lower())
            if opt_in is not None and not getattr(call, opt_in):
                yield Violation(
                    call.line,
                    call.column,
                    f"{member} test class {name} is instantiated without {opt_in}=True: "
                    f"instantiate_device_type_tests makes no {device} class without it",
                    name,
                )


def _literal(devices: tuple[str, ...]) -> str:
    return repr(devices[0]) if len(devices) == 1 else repr(devices)
