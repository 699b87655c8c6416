"""HWC003 `unconfigured-device`: Test file uses an accelerator device the configuration does not name.

The rule, its examples and its check; `hwlint rule HWC003` prints its
explanation (the class docstring)."""

from __future__ import annotations

import difflib
from typing import Iterator

from hwlint.core.diagnostics import Configure, Respell
from hwlint.facts.devices import DEVICES, FRAMEWORK_DEVICES, NOT_ACCELERATORS, coverage
from hwlint.facts.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation, snippet

_TABLE = "[tool.hwlint]"


class UnconfiguredDevice(Rule):
    """
    ## What it does
    Reports a test file that uses an accelerator device the configuration
    does not name: a device string where a device goes (`.to("mlu")`,
    `device="mlu:0"`, `torch.device("mlu")`, `f"mlu:{rank}"`), a call into
    its device module (`torch.mlu.synchronize()`), or its backend package
    imported and the name used as a device (`import torch_mlu` with
    `.mlu()`, `"mlu"` or `torch_mlu.mlu.`); the package's own calls
    (`torch_mlu.some_op(...)`) are then that device's use, and so are its
    backend's settings (`torch.backends.mlu.matmul.allow_tf32`), which
    only its package makes. `cpu` and `meta`
    are no accelerators, and a backend a test module registers itself
    (`rename_privateuse1_backend("foo")`, as PyTorch's tests of the
    mechanism do, on the CPU) is not reported. Reported once per file and
    device, at its first use.

    ## Why is this bad?
    A device hwlint was not told about is still a device: hwlint matches it
    as one all the same (a class that uses it never gets a safe GENERIC,
    which would send its tests to CPU runners), but it cannot classify such
    a class, and the project's runners and `select` know nothing of it. The
    configuration should say what the tree is for.

    ## Example
    ```python
    class TestAbs(TestCase):
        def test_abs(self):
            self.assertEqual(torch.abs(x.to("mlu")).cpu(), torch.abs(x))
    ```

    ## Use instead
    Cover the device in `[tool.hwlint]`: a member for its classes, the
    device, its `torch.<device>` module and its `TEST_<DEVICE>` flag.
    `hwlint devices` prints the lines, `hwlint devices --write` adds them:

    ```toml
    [tool.hwlint]
    classifications = ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "MPS", "XPU", "MLU"]
    extend-devices = ["mlu"]
    extend-accelerator-modules = ["torch.mlu"]
    extend-accelerator-flags = ["TEST_MLU"]
    ```

    A device that is a misspelling of a known one (`device="privatuse1"`,
    which torch.device() refuses) is reported with the spelling it means;
    `hwlint fix --unsafe` respells every string of the file that names it.

    Not counted against an allowlisted file's budget, and never exempted by
    the allowlist: it is about the configuration, not the file.
    """

    code = "HWC003"
    name = "unconfigured-device"
    summary = "Test file uses an accelerator device the configuration does not name"
    scope = "file"
    # A misspelt device is respelt (`fix --unsafe`); the others are
    # configured (`hwlint devices --write`), which `fix` leaves alone.
    fixable = True
    counted_by = "finding"

    VALID = (
        Example(
            snippet("""\
            x = torch.ones(2).to("cpu")
            y = torch.ones(2, device="meta")
            z = torch.ones(2, device="cuda:0")
            """)
        ),
        Example('t = torch.ones(2).to("mlu")\n', settings={"extend-devices": ["mlu"]}),
    )
    INVALID = (
        Example(
            snippet("""\
                import torch


                class TestAbs:
                    def test_abs(self):
                        x = torch.ones(2)
                        assert torch.abs(x.to("mlu")).cpu().sum() == 2
                """),
            expect=((7, 27),),
            messages=('uses device "mlu" (`.to("mlu")`), which the configuration does not name',),
        ),
        Example(
            snippet("""\
                import torch

                t = torch.ones(2, device="musa:0")
                u = torch.device("mlu")
                """),
            expect=((3, 19), (4, 5)),
            messages=('uses device "musa" (`device="musa:0"`)', 'uses device "mlu" (`torch.device("mlu")`)'),
        ),
        Example(
            snippet("""\
                import torch

                t = torch.ones(2, device="privatuse1")
                """),
            expect=((3, 19),),
            messages=(
                'uses device "privatuse1" (`device="privatuse1"`), which no configuration names: did you mean '
                '"privateuse1"? `hwlint fix --unsafe` respells it',
            ),
            unsafe_fixed=snippet("""\
                import torch

                t = torch.ones(2, device="privateuse1")
                """),
        ),
        Example(
            snippet("""\
                import torch
                import torch_gcu


                def sync():
                    torch.gcu.synchronize()
                """),
            expect=((2, 1),),
            messages=('uses device "gcu" (`import torch_gcu`)',),
        ),
    )

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        names = (*DEVICES, *ctx.config.extend_devices, "privateuse1", *NOT_ACCELERATORS)
        for found in ctx.facts.devices_found:
            if found.name in FRAMEWORK_DEVICES:
                # "privateuse1": the framework's own name for whichever
                # out-of-tree backend is there (instantiated as PRIVATEUSE1
                # by default): a device all the same, nothing to configure.
                continue
            close = difflib.get_close_matches(found.name, names, n=1, cutoff=0.8)
            if close:
                # `device="privatuse1"` (Ascend's tests): a misspelt device,
                # which torch.device() refuses; nothing to configure.
                yield Violation(
                    found.line,
                    found.column,
                    f'uses device "{found.name}" (`{found.text}`), which no configuration names: did you '
                    f'mean "{close[0]}"? `hwlint fix --unsafe` respells it',
                    fix=Respell("unsafe", found.name, close[0]),
                )
                continue
            settings = coverage((found.name,), ctx.config).settings()
            yield Violation(
                found.line,
                found.column,
                f'uses device "{found.name}" (`{found.text}`), which the configuration does not name: hwlint takes '
                f"it for an accelerator; `hwlint devices --write` adds the {_TABLE} lines that cover it "
                f'(extend-devices = ["{found.name}"], a member {found.name.upper()}, its module and flag)',
                fix=Configure(found.name, tuple((key, tuple(values)) for key, values in settings.items())),
            )
